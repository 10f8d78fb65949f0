"""LAMA-UHN ("UnHelpfulNames"; Poerner, Waltinger and Schütze, "E-BERT", Findings of EMNLP 2020,
Section 4): the T-REx and Google-RE facts a model could guess from the subject's name, removed.

- String match: the object's label, lowercased, is a substring of the lowercased subject label
  ("Apple Watch", manufacturer, "Apple").
- Person name: for the relations a person's name hints at (places of birth and death,
  citizenship, native and spoken languages), each whitespace-separated part of the subject's
  name fills ``[X] is a common name in the following {city|country|language}: [MASK].``; a fact
  whose object is among a BERT model's top 3 answers for any part is removed ("Jean Marais",
  native language, "French": Jean is a common French name).

Both filters follow their reference code, LAMA's ``scripts/create_lama_uhn.py``. The string match
needs no model; the person-name answers come from a masked model's job
(``uhn_names.score_name_hits``), and the two are joined per fact in the tables (``uhn_facts``).
This module needs no torch, so the table job starts without it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from lmprobes.suites.lama.release import MASK

CORPORA = ("google_re", "trex", "trex_raw", "wikidata_fresh")
# The kind of name each relation's object is; Google-RE's relations by their file names.
NAME_KINDS = {
    "P19": "city", "P20": "city", "place_of_birth": "city", "place_of_death": "city",
    "P27": "country", "P103": "language", "P1412": "language",
}
NAME_TEMPLATE = "[X] is a common name in the following {kind}: [MASK]."
TOP_K = 3
# Where the filter model's top answers are read: every id of its vocabulary, special tokens included,
# each spelled as its piece ("full": LAMA's scripts/create_lama_uhn.py takes torch.topk over all
# logits and compares the object with the top pieces), or LAMA's answer space, the common vocabulary.
VOCABULARIES = ("full", "common")

HITS_SCHEMA = pa.schema([
    pa.field("row_id", pa.string()),
    pa.field("corpus", pa.string()),
    pa.field("relation", pa.string()),
    pa.field("sub_label", pa.string()),
    pa.field("obj_label", pa.string()),
    # The parts of the subject's name whose top answers hold the object (empty: none did).
    pa.field("name_hits", pa.list_(pa.string())),
])


def string_match(facts: pd.DataFrame) -> pd.Series:
    """Per fact, whether its object's label is inside its subject's label, both lowercased (as LAMA's
    create_lama_uhn.py does: ``str.lower``, not case folding, so "Straße" does not hold "strasse")."""
    hits = [obj.lower() in sub.lower() for sub, obj in zip(facts["sub_label"], facts["obj_label"], strict=True)]
    return pd.Series(hits, index=facts.index, dtype=bool)


def name_facts(facts: pd.DataFrame) -> pd.DataFrame:
    """The facts of the relations the person-name filter reads."""
    return facts[facts["relation"].isin(NAME_KINDS.keys())]


def name_queries(facts: pd.DataFrame) -> list[tuple[str, str]]:
    """Every distinct ``(kind, name part)`` the person-name filter asks about, sorted."""
    facts = name_facts(facts)
    return sorted({(NAME_KINDS[relation], part)
                   for relation, subject in zip(facts["relation"], facts["sub_label"], strict=True)
                   for part in subject.split()})


def query_text(kind: str, part: str, mask_token: str) -> str:
    return NAME_TEMPLATE.format(kind=kind).replace("[X]", part).replace(MASK, mask_token)


def name_hits(facts: pd.DataFrame, answers: dict[tuple[str, str], list[str]], *, lowercase: bool) -> pd.DataFrame:
    """``HITS_SCHEMA`` rows for the facts of the person-name relations: the name parts whose
    answers hold the object (compared lowercased for a model that lowercases its input)."""
    fold = str.lower if lowercase else str
    facts = name_facts(facts)
    hits = []
    for relation, subject, obj in zip(facts["relation"], facts["sub_label"], facts["obj_label"], strict=True):
        kind = NAME_KINDS[relation]
        hits.append([part for part in dict.fromkeys(subject.split())
                     if fold(obj) in {fold(word) for word in answers[kind, part]}])
    columns = [field.name for field in HITS_SCHEMA if field.name != "name_hits"]
    return facts[columns].assign(name_hits=hits).reset_index(drop=True)


def flagged(hits: pd.DataFrame) -> pd.DataFrame:
    """The ``name_hits`` rows the person-name filter removes: some part of the name gave the object."""
    return hits[hits["name_hits"].map(len) > 0]


def uhn_facts(facts: pd.DataFrame, hits: pd.DataFrame | None) -> pd.DataFrame:
    """The rows of ``facts`` (``tables.scored_facts`` rows of the UHN corpora) that LAMA-UHN keeps:
    no string match, and no person-name hit (``hits``: ``name_hits`` rows; None: that filter off)."""
    keep = ~string_match(facts).to_numpy()
    if hits is not None and len(hits):
        keys = pd.MultiIndex.from_frame(flagged(hits)[["corpus", "row_id"]])
        keep &= ~pd.MultiIndex.from_frame(facts[["corpus", "row_id"]]).isin(keys)
    return facts[np.asarray(keep, dtype=bool)]


def removal_counts(dataset: pd.DataFrame, hits: pd.DataFrame | None) -> dict[str, int]:
    """How many facts of one corpus each filter removes (a fact can fall to both)."""
    matched = string_match(dataset)
    named = np.zeros(len(dataset), dtype=bool)
    if hits is not None and len(hits):
        named = dataset["row_id"].isin(set(flagged(hits)["row_id"])).to_numpy()
    return {"facts": len(dataset), "string_match": int(matched.sum()), "person_name": int(named.sum()),
            "removed": int((matched.to_numpy() | named).sum())}
