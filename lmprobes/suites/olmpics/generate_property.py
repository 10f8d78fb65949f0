"""Property conjunction (oLMpics Section 4.4, MC-QA) generated from ConceptNet's English edges.

A property is a (relation, object) pair: the edge ``pen --AtLocation--> desk`` gives pen the
property (AtLocation, desk). An item takes an answer concept A with two properties p1, p2, a
distractor D1 with p1 but not p2 and a distractor D2 with p2 but not p1, and asks
``what {phrase(r1)} {x1} and {phrase(r2)} {x2}`` (``what is usually located at desk and usually
used for writing``), so exactly one choice has both properties. Symmetric relations (RelatedTo,
DistinctFrom, Antonym) hold both ways: ``wood --RelatedTo--> saw`` gives saw (RelatedTo, wood).

Input is the English edge table of ``lmprobes.suites.lama.conceptnet`` (``EDGE_SCHEMA`` Parquet).
The splits share no choice (as in the release, whose train and dev choices have no concept in
common): the concepts that can be answers are shuffled (seeded) and split in the proportion of
``n_dev`` to ``n_train`` before any item is drawn; dev's items are drawn first, and no answer or
distractor of a train item is a choice of a dev item.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lmprobes.suites.olmpics.controls import items_frame, numbered, shuffled_choices

TASK = "property_conjunction"
TEMPLATE_ID = "property_conjunction/and"
# The 21 relation phrasings of the release's questions (conjunction_filt4_{train,dev}: the paper
# says 15 predicates; the released questions use these 21). RelatedTo is ~60% of the conjuncts.
# "recieve" is the release's spelling, kept so generated questions read like released ones.
PHRASINGS = {
    "RelatedTo": "is related to",
    "AtLocation": "is usually located at",
    "UsedFor": "usually used for",
    "PartOf": "is part of",
    "HasProperty": "has a property of",
    "HasPrerequisite": "has a prerequisite of",
    "HasSubevent": "has a subevent of",
    "CapableOf": "is capable of",
    "MotivatedByGoal": "is motivated by a goal of",
    "CausesDesire": "causes desire of",
    "ReceivesAction": "may recieve an action of",
    "DistinctFrom": "is distinct from",
    "Antonym": "is the opposite of",
    "CreatedBy": "is created by",
    "NotDesires": "does not desire",
    "HasA": "has",
    "HasLastSubevent": "has a last subevent of",
    "Desires": "desires",
    "Causes": "may cause",
    "HasFirstSubevent": "has a first subevent of",
    "NotCapableOf": "is not capable of",
}
SYMMETRIC = frozenset({"RelatedTo", "DistinctFrom", "Antonym"})  # ConceptNet's symmetric ones among them
EDGE_COLUMNS = ("relation", "start_uri", "end_uri", "start_term", "end_term", "row")
ATTEMPTS_PER_ITEM = 50

Property = tuple[str, str]  # (relation, object term)


class PropertyInputError(ValueError):
    """The edge table cannot be used; the message names the file."""


@dataclass
class PropertyIndex:
    """Which concepts have which properties, and the edge that says so."""

    properties: dict[str, set[Property]] = field(default_factory=lambda: defaultdict(set))
    holders: dict[Property, set[str]] = field(default_factory=lambda: defaultdict(set))
    evidence: dict[tuple[str, Property], dict] = field(default_factory=dict)
    _sorted_holders: dict[Property, list[str]] = field(default_factory=dict, init=False, repr=False)

    def add(self, concept: str, prop: Property, edge: dict) -> None:
        if concept == prop[1]:
            return
        self.properties[concept].add(prop)
        self.holders[prop].add(concept)
        self._sorted_holders.pop(prop, None)
        self.evidence.setdefault((concept, prop), edge)

    def sorted_holders(self, prop: Property) -> list[str]:
        """``sorted(holders[prop])``, sorted once (the index is complete before any item is drawn)."""
        if prop not in self._sorted_holders:
            self._sorted_holders[prop] = sorted(self.holders[prop])
        return self._sorted_holders[prop]


def read_edges(path: str | Path) -> pd.DataFrame:
    """The edges of the 21 relations from an EDGE_SCHEMA Parquet table, in row order."""
    try:
        table = pq.read_table(path, columns=list(EDGE_COLUMNS))
    except (OSError, KeyError, ValueError) as error:
        raise PropertyInputError(f"{path}: not a ConceptNet edge table with columns {EDGE_COLUMNS}: {error}") from error
    table = table.filter(pc.is_in(table["relation"], value_set=pa.array(sorted(PHRASINGS), pa.string())))
    return table.to_pandas().sort_values("row", kind="stable").reset_index(drop=True)


def build_index(edges: pd.DataFrame) -> PropertyIndex:
    """Properties of lower-cased terms; symmetric relations counted in both directions."""
    index = PropertyIndex()
    for edge in edges.to_dict("records"):
        start, end, relation = edge["start_term"].lower(), edge["end_term"].lower(), edge["relation"]
        reference = {"relation": relation, "start": edge["start_uri"], "end": edge["end_uri"], "row": int(edge["row"])}
        index.add(start, (relation, end), reference)
        if relation in SYMMETRIC:
            index.add(end, (relation, start), reference)
    return index


@dataclass(frozen=True)
class PropertyItem:
    answer: str
    first: Property
    second: Property
    distractor1: str  # has ``first`` only
    distractor2: str  # has ``second`` only


def kth_kept(ordered: list[str], k: int, *removed: list[str]) -> str:
    """``[concept for concept in ordered if concept not in removed][k]`` without building that list:
    all lists are sorted, those ``removed`` are disjoint and all their elements are in ``ordered``."""

    def kept_through(position: int) -> int:  # elements of ordered[:position + 1] not removed
        return position + 1 - sum(bisect_right(part, ordered[position]) for part in removed)

    # the answer is the first position through which k + 1 are kept: at least k, at most k + len(removed)
    last = k + sum(map(len, removed))
    return ordered[k + bisect_right(range(k, last + 1), k, key=kept_through)]


def draw_item(index: PropertyIndex, answer: str, rng: random.Random,
              unusable: frozenset[str] = frozenset()) -> PropertyItem | None:
    """An item about ``answer`` whose distractors are not ``unusable``, or None.

    Each distractor is ``rng.choice`` of the sorted list of one property's holders that neither hold
    the other property nor are excluded. Common properties have tens of thousands of holders and
    sorting such lists at every attempt took most of a full-size run, so the draw counts that list
    from the (much smaller) intersection, makes the same ``rng.choice`` call on a range of its
    length (the same random numbers: choice takes ``seq[_randbelow(len(seq))]``) and finds that
    element among the property's holders, sorted once."""
    first, second = rng.sample(sorted(index.properties[answer]), 2)
    if first[1] == second[1]:
        return None
    excluded = {answer, first[1], second[1], *unusable}
    holders1, holders2 = index.holders[first], index.holders[second]
    both = holders1 & holders2
    excluded1, excluded2 = (holders1 & excluded) - both, (holders2 & excluded) - both
    n_first, n_second = len(holders1) - len(both) - len(excluded1), len(holders2) - len(both) - len(excluded2)
    if not n_first or not n_second:
        return None
    both_in_order = sorted(both)
    distractor1 = kth_kept(index.sorted_holders(first), rng.choice(range(n_first)), both_in_order, sorted(excluded1))
    distractor2 = kth_kept(index.sorted_holders(second), rng.choice(range(n_second)), both_in_order, sorted(excluded2))
    return PropertyItem(answer, first, second, distractor1, distractor2)


def answer_pools(index: PropertyIndex, n_train: int, n_dev: int, rng: random.Random) -> dict[str, list[str]]:
    """Disjoint answer concepts per split, in the proportion of the requested sizes."""
    candidates = sorted(concept for concept, props in index.properties.items() if len(props) >= 2)
    rng.shuffle(candidates)
    total = n_train + n_dev
    n_dev_pool = 0 if total == 0 else round(len(candidates) * n_dev / total)
    if n_dev and not n_dev_pool and candidates:
        n_dev_pool = 1
    return {"dev": sorted(candidates[:n_dev_pool]), "train": sorted(candidates[n_dev_pool:])}


def sample_items(index: PropertyIndex, pool: list[str], n: int, rng: random.Random,
                 seen: set[frozenset[Property]], unusable: frozenset[str] = frozenset()) -> list[PropertyItem]:
    """Up to ``n`` items whose questions are not in ``seen`` (updated: one item per question) and
    whose choices are not ``unusable``."""
    pool = [concept for concept in pool if concept not in unusable]
    items: list[PropertyItem] = []
    for _ in range(n * ATTEMPTS_PER_ITEM if pool else 0):
        if len(items) == n:
            break
        item = draw_item(index, rng.choice(pool), rng, unusable)
        if item is None or (key := frozenset((item.first, item.second))) in seen:
            continue
        seen.add(key)
        items.append(item)
    return items


def question(first: Property, second: Property) -> str:
    return f"what {PHRASINGS[first[0]]} {first[1]} and {PHRASINGS[second[0]]} {second[1]}"


def row_item(index: PropertyIndex, item: PropertyItem, rng: random.Random) -> dict:
    choices, answer = shuffled_choices(rng, item.answer, [item.distractor1, item.distractor2])
    facts = [(item.answer, item.first), (item.answer, item.second),
             (item.distractor1, item.first), (item.distractor2, item.second)]
    return {
        "stem": question(item.first, item.second), "choices": choices, "answer": answer,
        "template_id": TEMPLATE_ID,
        "arguments": {"relation1": item.first[0], "object1": item.first[1], "relation2": item.second[0],
                      "object2": item.second[1]},
        "provenance": {"source": "conceptnet", "answer": item.answer,
                       "distractors": [item.distractor1, item.distractor2],
                       "edges": [{"concept": concept, **index.evidence[(concept, prop)]} for concept, prop in facts]},
    }


def generate_property_conjunction(edges_path: str | Path, *, n_train: int, n_dev: int, seed: int) -> pd.DataFrame:
    """SCHEMA rows: up to ``n_train`` train and ``n_dev`` dev questions, seeded; the splits share
    no choice (dev is drawn first, train from what its choices leave) and no question is asked twice."""
    index = build_index(read_edges(edges_path))
    rng = random.Random(seed)
    pools = answer_pools(index, n_train, n_dev, rng)
    seen: set[frozenset[Property]] = set()
    dev = sample_items(index, pools["dev"], n_dev, rng, seen)
    dev_choices = frozenset(concept for item in dev for concept in (item.answer, item.distractor1, item.distractor2))
    train = sample_items(index, pools["train"], n_train, rng, seen, unusable=dev_choices)
    rows = []
    for split, items in (("train", train), ("dev", dev)):
        rows += numbered(TASK, split, [row_item(index, item, rng) for item in items], seed)
    return items_frame(rows)
