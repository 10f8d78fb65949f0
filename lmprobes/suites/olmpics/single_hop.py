"""The single-hop facts behind encyclopedic composition (oLMpics Section 4.5), its first training stage.

The paper: "we first fine-tune the model on all such facts (e.g., 'What company did Bill Gates
establish? Microsoft') from the training and evaluation set, and then fine-tune on multi-hop
composition." The release holds the composed questions only, so the bridge of each (the band, the
actor, the company) is looked up on Wikidata through ``SparqlClient`` (every answer cached; a rerun
sends nothing). The question's entity is found by its English label; of the bridges it reaches,
those whose answer is the item's gold answer (the band's inception year, the actor's spouse, the
company's headquarters, by English label) qualify, and the one with the smallest id is kept. A
question without one is left out (counted in the file's metadata and the log). A band's inception
is read as the composed questions' generator reads it: best-rank P571 statements of year precision
or finer (a decade's "1960" is no inception year).

Each question with a bridge gives up to two MC-QA items of three choices, as the composed ones have
(a hop without two distractors is left out; the counts are in the file's metadata and the log):

- the first hop (``which band did {entity} play in?``, ``which actor played in {entity}?``,
  ``what company did {entity} establish?``): the bridge, against the bridges of two other
  questions of its type that the entity does not reach (seeded);
- the second hop (``when did {bridge} first form?``, ``who is the spouse of {bridge}?``,
  ``where is the headquarters of {bridge} located?``): the composed item's gold answer, against the
  answers of two other questions of its type that are none of the composed item's choices (seeded),
  so that no composed item's own choice set is trained on with its label (its answer is, as the
  paper's facts give it), and none of the bridge's own answers in the looked-up rows (a band's
  other inception year, an actor's other spouse, a company's other headquarters), so that exactly
  one choice is right.

The paper gives one example and no format: these templates and distractors are this workflow's.
Items keep their question's split; the first stage trains on both splits, as the paper does.
"""

from __future__ import annotations

import logging
import random
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from lmprobes.suites.lama.wikidata import PREFIXES, STATEMENT_PREFIXES, Row, SparqlClient
from lmprobes.suites.olmpics.controls import items_frame
from lmprobes.suites.olmpics.generate_encyclopedic import (
    QUESTION_TYPES,
    english_labels,
    entity_or_none,
    inception_clauses,
    inception_year,
)
from lmprobes.suites.olmpics.schema import make_item

log = logging.getLogger("lmprobes.suites.olmpics.single_hop")

TASK = "encyclopedic_composition"
LABELS_PER_QUERY = 50
HOP_TEMPLATES = {
    "band_inception": ("which band did {entity} play in?", "when did {bridge} first form?"),
    "film_spouse": ("which actor played in {entity}?", "who is the spouse of {bridge}?"),
    "company_headquarters": ("what company did {entity} establish?", "where is the headquarters of {bridge} located?"),
}
# The composed question of each type, its entity captured (a film title may end in "?" itself).
QUESTIONS = {kind.name: re.compile("^" + re.escape(kind.template).replace(r"\{entity\}", "(.+)") + "$")
             for kind in QUESTION_TYPES}


class SingleHopError(ValueError):
    """Items the single-hop stage cannot use; the message names them."""


@dataclass(frozen=True)
class Bridge:
    entity_label: str
    bridge: str  # Wikidata id
    bridge_label: str
    answer_label: str  # the year for band_inception


def parse_question(stem: str) -> tuple[str, str] | None:
    """``(question type, entity label)`` of a composed question, or None for another stem."""
    for name, pattern in QUESTIONS.items():
        found = pattern.match(stem)
        if found:
            return name, found.group(1)
    return None


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


# SPARQL's ECHAR escapes: a "…" string literal may not hold the quote, the backslash, LF or CR as they
# are (STRING_LITERAL2); tab, backspace and form feed are escaped too, so no control character is sent.
ECHAR = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b",
                       "\f": "\\f"})


def _literal(label: str) -> str:
    """``label`` (NFC) as a SPARQL ``"…"@en`` literal."""
    return '"' + nfc(label).translate(ECHAR) + '"@en'


def _values(variable: str, labels: list[str]) -> str:
    return f"  VALUES ?{variable} {{ {' '.join(_literal(label) for label in labels)} }}\n"


def band_lookup(labels: list[str]) -> str:
    return (PREFIXES + STATEMENT_PREFIXES + "SELECT DISTINCT ?memberLabel ?band ?bandLabel ?inception ?precision WHERE {\n"
            + _values("memberLabel", labels) + "  ?member rdfs:label ?memberLabel .\n"
            "  ?band wdt:P31 wd:Q215380 ; wdt:P527 ?member .\n" + inception_clauses("band") + english_labels("band")
            + "}\n")


def film_lookup(labels: list[str]) -> str:
    return (PREFIXES + "SELECT ?filmLabel ?actor ?actorLabel ?spouseLabel WHERE {\n" + _values("filmLabel", labels)
            + "  ?film rdfs:label ?filmLabel ; wdt:P31 wd:Q11424 ; wdt:P161 ?actor .\n  ?actor wdt:P26 ?spouse .\n"
            + english_labels("actor", "spouse") + "}\n")


def company_lookup(labels: list[str]) -> str:
    return (PREFIXES + "SELECT ?founderLabel ?company ?companyLabel ?hqLabel WHERE {\n"
            + _values("founderLabel", labels) + "  ?founder rdfs:label ?founderLabel ; wdt:P31 wd:Q5 .\n"
            "  ?company wdt:P112 ?founder ; wdt:P159 ?hq .\n" + english_labels("company", "hq") + "}\n")


def band_bridge(row: Row) -> Bridge | None:
    return _bridge(row, "memberLabel", "band", inception_year(row))


def film_bridge(row: Row) -> Bridge | None:
    return _bridge(row, "filmLabel", "actor", row.get("spouseLabel"))


def company_bridge(row: Row) -> Bridge | None:
    return _bridge(row, "founderLabel", "company", row.get("hqLabel"))


def _bridge(row: Row, entity_label: str, bridge: str, answer: str | None) -> Bridge | None:
    """None for a row with an unknown bridge (a blank node), answer or label."""
    labels = row.get(entity_label), row.get(f"{bridge}Label")
    found = entity_or_none(row.get(bridge))
    return Bridge(labels[0], found, labels[1], answer) if found and answer and all(labels) else None


LOOKUPS: dict[str, tuple[Callable[[list[str]], str], Callable[[Row], Bridge | None]]] = {
    "band_inception": (band_lookup, band_bridge),
    "film_spouse": (film_lookup, film_bridge),
    "company_headquarters": (company_lookup, company_bridge),
}


def lookup_bridges(client: SparqlClient, kind: str, labels: list[str]) -> dict[str, list[Bridge]]:
    """Every bridge each entity label reaches, by NFC label."""
    query, parse = LOOKUPS[kind]
    found: dict[str, list[Bridge]] = defaultdict(list)
    unique = sorted({nfc(label) for label in labels})
    for start in range(0, len(unique), LABELS_PER_QUERY):
        for row in client.query(query(unique[start:start + LABELS_PER_QUERY])):
            bridge = parse(row)
            if bridge is not None:
                found[nfc(bridge.entity_label)].append(bridge)
    return found


def _id_number(entity: str) -> int:
    return int(entity[1:])


def chosen_bridge(candidates: list[Bridge], answer: str) -> Bridge | None:
    """Of the bridges whose answer is the gold answer, the one with the smallest id."""
    fitting = [bridge for bridge in candidates if nfc(bridge.answer_label) == nfc(answer)]
    return min(fitting, key=lambda bridge: (_id_number(bridge.bridge), bridge.bridge_label), default=None)


def single_hop_items(composed: pd.DataFrame, client: SparqlClient, *, seed: int) -> tuple[pd.DataFrame, dict]:
    """Up to two single-hop items of every composed question with a bridge (SCHEMA rows, both splits) and
    the counts per question type (questions, with a bridge, first and second hops made)."""
    questions = composed[(composed["task"] == TASK) & (composed["variant"] == "standard")]
    if questions.empty:
        raise SingleHopError(f"no {TASK} questions (standard variant) to look up")
    parsed = [parse_question(stem) for stem in questions["stem"]]
    unknown = [row_id for row_id, found in zip(questions["row_id"], parsed, strict=True) if found is None]
    if unknown:
        raise SingleHopError(f"{len(unknown)} {TASK} stems match none of the three questions (first: {unknown[0]})")
    reached = {kind: lookup_bridges(client, kind, [label for k, label in parsed if k == kind]) for kind in LOOKUPS}
    facts = []
    for item, (kind, label) in zip(questions.to_dict("records"), parsed, strict=True):
        bridge = chosen_bridge(reached[kind].get(nfc(label), []), item["choices"][item["answer"]])
        if bridge is not None:
            facts.append((item, kind, label, bridge))
    if not facts:
        raise SingleHopError(f"no {TASK} question reached a bridge whose answer is its gold answer "
                             "(suites.olmpics.learning_curves.single_hop: false fine-tunes without this stage)")
    items = _items(facts, reached, seed)
    made = items["template_id"].value_counts()
    counts = {kind: {"questions": sum(k == kind for k, _ in parsed), "with_bridge": sum(f[1] == kind for f in facts),
                     **{hop: int(made.get(f"{TASK}/{kind}/{hop}", 0)) for hop in ("hop1", "hop2")}}
              for kind in LOOKUPS}
    log.info("%s single-hop bridges and items made: %s", TASK, counts)
    return items, counts


def _items(facts: list, reached: dict, seed: int) -> pd.DataFrame:
    rng = random.Random(f"{seed}:single_hop")
    bridges_of_kind = {kind: sorted({f[3].bridge_label for f in facts if f[1] == kind}) for kind in LOOKUPS}
    answers_of_kind = {kind: sorted({f[0]["choices"][f[0]["answer"]] for f in facts if f[1] == kind}) for kind in LOOKUPS}
    # Every answer of each bridge, whichever entity label's rows gave it (nfc, as answers are compared).
    answers_of_bridge = {kind: defaultdict(set) for kind in LOOKUPS}
    for kind, by_label in reached.items():
        for found in by_label.values():
            for bridge in found:
                answers_of_bridge[kind][bridge.bridge].add(nfc(bridge.answer_label))
    rows, numbers = [], defaultdict(int)
    for item, kind, label, bridge in facts:
        first, second = HOP_TEMPLATES[kind]
        own = {b.bridge_label for b in reached[kind].get(nfc(label), [])}
        hop1 = _choices(rng, bridge.bridge_label, [name for name in bridges_of_kind[kind] if name not in own])
        if hop1:
            rows.append(_item(item, numbers, kind, "hop1", first.format(entity=label), *hop1, label, bridge))
        gold = item["choices"][item["answer"]]
        own_answers = answers_of_bridge[kind][bridge.bridge]
        hop2 = _choices(rng, gold, [answer for answer in answers_of_kind[kind]
                                    if answer not in item["choices"] and nfc(answer) not in own_answers])
        if hop2:
            rows.append(_item(item, numbers, kind, "hop2", second.format(bridge=bridge.bridge_label), *hop2, label,
                              bridge))
    return items_frame(rows)


def _choices(rng: random.Random, gold: str, others: list[str]) -> tuple[list[str], int] | None:
    """The gold and two of ``others`` in a seeded order, and the gold's index; None without two others."""
    if len(others) < 2:
        return None
    choices = [gold, *rng.sample(others, 2)]
    rng.shuffle(choices)
    return choices, choices.index(gold)


def _item(question: dict, numbers: dict, kind: str, hop: str, stem: str, choices: list[str], answer: int,
          label: str, bridge: Bridge) -> dict:
    split = question["split"]
    numbers[split] += 1
    return make_item(TASK, "release", "single_hop", split, numbers[split], id=f"{question['id']}/{hop}", stem=stem,
                     choices=choices, answer=answer, template_id=f"{TASK}/{kind}/{hop}",
                     arguments={"entity": label, "bridge": bridge.bridge_label},
                     provenance={"question": question["row_id"], "bridge": bridge.bridge})
