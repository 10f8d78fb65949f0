"""A fake Wikidata Query Service on 127.0.0.1 answering from recorded SPARQL JSON results
(tests/data/wikidata_fresh/): the ``bd:sample`` answer of a relation as recorded, and subject- or
item-restricted queries with the recorded rows of the items in the query's VALUES block
(``answers_unasked``: a facts query with every recorded row, as an over-broad answer would)."""

from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs

from loopback import send

DATA = Path(__file__).parent / "data" / "wikidata_fresh"
E = "http://www.wikidata.org/entity/"
VALUES = re.compile(r"VALUES \?(\w+) \{([^}]*)\}")


def recorded(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


class FakeQueryService:
    """Answers sample, subject-restricted facts and alias queries; records what it was asked."""

    def __init__(self, samples: dict[str, dict], facts: dict[str, dict], aliases: dict,
                 unknown_relation: dict | None = None, answers_unasked: bool = False) -> None:
        self.samples, self.facts, self.aliases = samples, facts, aliases
        self.unknown_relation = unknown_relation  # the answer for a relation without a recording
        # A facts query answered with every recorded statement of the relation, not only the asked subjects'.
        self.answers_unasked = answers_unasked
        self.requests: list[dict] = []

    def respond(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length", 0))
        sparql = parse_qs(handler.rfile.read(length).decode())["query"][0]
        answer, asked = self.answer(sparql)
        self.requests.append(asked)
        if answer is None:
            send(handler, 400, f"MalformedQueryException: unexpected query\n{sparql}".encode())
            return
        send(handler, 200, json.dumps(answer).encode(), {"Content-Type": "application/sparql-results+json"})

    def answer(self, sparql: str) -> tuple[dict | None, dict]:
        relation = re.search(r"wdt:(P\d+)", sparql)
        values = VALUES.search(sparql)
        items = values.group(2).split() if values else []
        if "SERVICE bd:sample" in sparql:
            limit = int(re.search(r"bd:sample.limit (\d+)", sparql).group(1))
            asked = {"kind": "sample", "relation": relation.group(1), "limit": limit}
            return self.samples.get(relation.group(1), self.unknown_relation), asked
        if "skos:altLabel" in sparql and values:
            return restricted(self.aliases, "entity", items), {"kind": "aliases", "items": items}
        if relation and values and values.group(1) == "subject":
            asked = {"kind": "facts", "relation": relation.group(1), "items": items}
            facts = self.facts.get(relation.group(1), empty_answer())
            return (facts if self.answers_unasked else restricted(facts, "subject", items)), asked
        return None, {"kind": "unknown"}


def restricted(answer: dict, variable: str, items: list[str]) -> dict:
    wanted = {E + item.removeprefix("wd:") for item in items}
    bindings = [row for row in answer["results"]["bindings"] if row[variable]["value"] in wanted]
    return {"head": answer["head"], "results": {"bindings": bindings}}


def empty_answer() -> dict:
    return {"head": {"vars": []}, "results": {"bindings": []}}




def recorded_service() -> FakeQueryService:
    """The recorded P19 and P47 answers; other relations have no statements."""
    return FakeQueryService(
        {"P19": recorded("P19_sample.json"), "P47": recorded("P47_sample.json")},
        {"P19": recorded("P19_facts.json"), "P47": recorded("P47_facts.json")},
        recorded("aliases.json"),
    )
