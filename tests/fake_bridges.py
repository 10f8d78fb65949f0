"""A fake Wikidata query service on 127.0.0.1 for the single-hop stage's bridge lookups: per question
type (told apart by its property), the rows it knows, (entity label, bridge id, bridge label, answer),
a band's row with the inception's precision as a fifth value (9, a year, when left out). It filters
nothing: a row of any precision is answered, as a service that ignored the query's FILTER would."""

from __future__ import annotations

import json
import re
import unicodedata
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs

import pandas as pd

from loopback import send

E = "http://www.wikidata.org/entity/"
XSD_INTEGER = "http://www.w3.org/2001/XMLSchema#integer"
PROPERTY = {"band_inception": "wdt:P527", "film_spouse": "wdt:P161", "company_headquarters": "wdt:P112"}
# Per property: the entity label's variable, the bridge's and the answer's.
VARIABLES = {"wdt:P527": ("memberLabel", "band", "inception"), "wdt:P161": ("filmLabel", "actor", "spouseLabel"),
             "wdt:P112": ("founderLabel", "company", "hqLabel")}
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"@en')
# SPARQL's ECHAR escapes, undone as a SPARQL parser does.
ECHAR = {"t": "\t", "n": "\n", "r": "\r", "b": "\b", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


class FakeBridgeService:
    """Answers each label the query names with the rows it knows; records the labels asked."""

    def __init__(self, known: dict[str, list[tuple]]) -> None:
        self.known = known
        self.labels: list[str] = []

    def respond(self, handler: BaseHTTPRequestHandler) -> None:
        sparql = parse_qs(handler.rfile.read(int(handler.headers["Content-Length"])).decode())["query"][0]
        prop = next((prop for prop in VARIABLES if prop in sparql), None)
        if prop is None:
            send(handler, 400, b"MalformedQueryException: unexpected query")
            return
        if any(char in literal for literal in LITERAL.findall(sparql) for char in "\r\n"):
            send(handler, 400, b"MalformedQueryException: a line break inside a string literal")
            return
        asked = [re.sub(r"\\(.)", lambda escape: ECHAR[escape.group(1)], label) for label in LITERAL.findall(sparql)]
        self.labels += asked
        label_var, bridge_var, answer_var = VARIABLES[prop]
        bindings = []
        for label, bridge, bridge_label, answer, *precision in self.known.get(prop, []):
            if label not in asked:
                continue
            row = {label_var: {"type": "literal", "value": label}, bridge_var: {"type": "uri", "value": E + bridge},
                   f"{bridge_var}Label": {"type": "literal", "value": bridge_label},
                   answer_var: {"type": "literal", "value": answer}}
            if answer_var == "inception":
                value = str(precision[0]) if precision else "9"
                row["precision"] = {"type": "literal", "datatype": XSD_INTEGER, "value": value}
            bindings.append(row)
        body = {"head": {"vars": []}, "results": {"bindings": bindings}}
        send(handler, 200, json.dumps(body).encode(), {"Content-Type": "application/sparql-results+json"})


def bridges_to_gold(questions: pd.DataFrame) -> dict[str, list[tuple[str, str, str, str]]]:
    """Rows that give every composed question of ``questions`` a bridge whose answer is its gold answer."""
    from lmprobes.suites.olmpics.single_hop import parse_question

    known: dict[str, list] = {}
    for number, (stem, choices, answer) in enumerate(zip(questions["stem"], questions["choices"],
                                                         questions["answer"], strict=True), start=1):
        kind, entity = parse_question(stem)
        gold = str(choices[answer])
        value = f"{gold}-01-01T00:00:00Z" if kind == "band_inception" else gold
        known.setdefault(PROPERTY[kind], []).append(
            (unicodedata.normalize("NFC", entity), f"Q{number}", f"Bridge {number}", value))
    return known
