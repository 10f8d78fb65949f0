"""The ``conceptnet_gen`` LAMA corpus: facts regenerated from ConceptNet 5.7 surface texts.

Input is the English edges table (``EDGE_SCHEMA``) written by ``conceptnet.stream_to_parquet``
(or by ``conceptnet_lite.edges_from_conceptnet_lite``). LAMA queried "the OMCS sentence that
contains both the subject and the object", so only edges of Open Mind Common Sense
(``/d/conceptnet/4/en``; ConceptNet's other sources write WordNet, Wiktionary, ... templates) are
read. A fact is a ConceptNet triple: (relation, start term, end term), its labels the edge's terms
(``start_term``/``end_term``: the URI's term, ``_`` as space), as the release's ConceptNet
``sub``/``obj_label`` are, so ``[[Birds]] can [[fly]]`` and ``[[birds]] can [[sing]]`` are two
facts of the one subject ``birds``, each the other's valid object, and ``[[Time]] is [[Finite]]``
has the object ``finite``. The surface text only gives the sentence: an edge of one of LAMA's 16
ConceptNet relations whose surfaceText holds two bracketed spans, e.g. ``[[a dog]] can [[bark]]``,
gives one masked sentence: the object span replaced by ``[MASK]``, the subject span's brackets
removed, the rest verbatim (``a dog can [MASK]``), written as the release writes its sentences:
ConceptNet's ``*`` frame marker dropped, the first letter capitalised and a period closing it
(``A dog can [MASK].``). A span's leading article (or ``to``: the words ConceptNet drops from
terms) stays in the sentence, outside the mask, as in LAMA's own sentences: ``in [[a field]]``
gives ``in a [MASK]``. Which span is the object is decided by matching the spans against the
edge's start and end terms (OMCS templates sometimes put the object first: ``*Something you find
on [[a test]] is [[hard questions]]`` is AtLocation(hard questions, test)); the words under the
mask must be the object term but for case, or the edge is dropped and counted (the sentence would
not hold the answer).

Objects are single words (LAMA kept single-token objects; facts with multi-word object terms are
dropped and counted). A fact stated by several edges
is one row whose ``evidences`` are all its masked sentences and whose query is one of them drawn at
random, seeded per fact ("If there are several sentences for a triple, we pick one at random"). At most ``max_per_relation`` facts per relation are sampled, seeded, among those
whose object term is in the common vocabulary. The edges table is read in record batches; only one
small aggregate per fact is kept in memory.
"""

from __future__ import annotations

import random
import re
import uuid
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lmprobes.suites.lama.release import MASK, facts_frame, load_common_vocab, make_row

CORPUS = "conceptnet_gen"
# The 16 relations of LAMA's ConceptNet corpus, the `pred` values of the release's
# ConceptNet/test.jsonl (the paper gives the count in Section 4.1.3 and names ten in Table 3).
LAMA_CONCEPTNET_RELATIONS = (
    "AtLocation", "CapableOf", "Causes", "CausesDesire", "Desires", "HasA", "HasPrerequisite",
    "HasProperty", "HasSubevent", "IsA", "MadeOf", "MotivatedByGoal", "NotDesires", "PartOf",
    "ReceivesAction", "UsedFor",
)
REQUIRED_COLUMNS = ("relation", "start_uri", "end_uri", "start_term", "end_term", "dataset", "surface_text")
OMCS_DATASET = "/d/conceptnet/4/en"  # Open Mind Common Sense, as ConceptNet 5.7 imports it
BATCH_ROWS = 65_536
SPAN = re.compile(r"\[\[(.*?)\]\]")
UUID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/commonsense/conceptnet5")
# ConceptNet's own English term normalisation (conceptnet5.language.english.english_filter).
STOPWORDS = frozenset({"the", "a", "an"})
DROP_FIRST = frozenset({"to"})
WORD = re.compile(r"\w+(?:['\u2019]\w+)*")
# A span's leading article (or "to", which ConceptNet's terms drop too) stays in the sentence,
# outside the mask and the label: LAMA's own sentences read "... in a [MASK] ." for [[a drain]].
ARTICLE_SPAN = re.compile(r"(?P<before>\s*(?:(?:a|an|the|to)\s+(?=\S))?)(?P<core>.*?)(?P<after>\s*)",
                          re.IGNORECASE | re.DOTALL)


class ConceptNetGenError(ValueError):
    """Unusable edges input; the message names the file."""


def new_stats() -> dict:
    return {
        "edges_read": 0, "other_relation": 0, "not_omcs": 0, "no_surface_text": 0, "bad_surface_text": 0,
        "unresolved_object_span": 0, "object_span_not_term": 0, "multiword_object_facts": 0, "facts": 0,
        "not_in_common_vocab_facts": 0, "candidates": {}, "sampled": {},
    }


# --- which span is the object ------------------------------------------------------------


def plain_key(text: str) -> str:
    """Lower case, ``_`` as space, outer spaces removed: ``Ice_Cream`` -> ``ice cream``."""
    return text.replace("_", " ").strip().lower()


def conceptnet_key(text: str) -> tuple[str, ...]:
    """The words ConceptNet keeps of a term: no punctuation, no a/an/the, no leading "to"."""
    words = WORD.findall(plain_key(text))
    kept = [word for word in words if word not in STOPWORDS]
    while kept and kept[0] in DROP_FIRST:
        kept = kept[1:]
    return tuple(kept) if kept else tuple(words)


def match_score(subject_span: str, object_span: str, start_term: str, end_term: str) -> tuple[int, int]:
    """(spans equal to their term after ConceptNet's normalisation, spans equal as plain text)."""
    pairs = ((subject_span, start_term), (object_span, end_term))
    normalised = sum(conceptnet_key(span) == conceptnet_key(term) for span, term in pairs)
    plain = sum(plain_key(span) == plain_key(term) for span, term in pairs)
    return normalised, plain


def object_span_index(spans: Sequence[str], start_term: str, end_term: str) -> int | None:
    """1 when the second span is the object, 0 when the first is, None when the terms cannot tell."""
    as_written = match_score(spans[0], spans[1], start_term, end_term)
    reversed_ = match_score(spans[1], spans[0], start_term, end_term)
    if as_written == reversed_:
        return None  # neither span matches, or a subject equal to its object
    return 1 if as_written > reversed_ else 0


def split_span(span: str) -> tuple[str, str, str]:
    """(leading space and article, the words, trailing space): ``a field`` -> ("a ", "field", "")."""
    parts = ARTICLE_SPAN.fullmatch(span)
    return parts.group("before"), parts.group("core"), parts.group("after")


def masked_sentence(surface_text: str, object_index: int) -> str:
    """The surface text unbracketed, with the object span's words (not its article) as the mask."""
    spans = iter(range(2))

    def replace(match: re.Match) -> str:
        if next(spans) != object_index:
            return match.group(1)
        before, _, after = split_span(match.group(1))
        return before + MASK + after

    return SPAN.sub(replace, surface_text)


# --- aggregation ---------------------------------------------------------------------------


@dataclass
class Fact:
    """Everything kept of one (relation, subject term, object term): its sentences and smallest URIs."""

    sentences: set[str] = field(default_factory=set)
    sub_uri: str | None = None
    obj_uri: str | None = None

    def add(self, sentence: str, sub_uri: str, obj_uri: str) -> None:
        self.sentences.add(sentence)
        self.sub_uri = sub_uri if self.sub_uri is None else min(self.sub_uri, sub_uri)
        self.obj_uri = obj_uri if self.obj_uri is None else min(self.obj_uri, obj_uri)


FactKey = tuple[str, str, str]  # relation, start term, end term: the row's relation, sub_label, obj_label


def edge_batches(path: Path) -> Iterator[pa.RecordBatch]:
    try:
        parquet = pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as error:
        raise ConceptNetGenError(f"{path}: not a readable Parquet edges table ({error})") from None
    missing = [name for name in REQUIRED_COLUMNS if name not in parquet.schema_arrow.names]
    if missing:
        raise ConceptNetGenError(f"{path}: edges table lacks columns {missing} (expected EDGE_SCHEMA)")
    yield from parquet.iter_batches(batch_size=BATCH_ROWS, columns=list(REQUIRED_COLUMNS))


def usable_rows(batch: pa.RecordBatch, relations: set[str], stats: dict) -> pa.RecordBatch:
    """The batch's OMCS edges of the wanted relations that have a surface text, counting the others."""
    stats["edges_read"] += batch.num_rows
    wanted = pc.fill_null(pc.is_in(batch.column("relation"), value_set=pa.array(sorted(relations), pa.string())), False)
    batch = batch.filter(wanted)
    stats["other_relation"] += len(wanted) - batch.num_rows
    omcs = pc.fill_null(pc.starts_with(batch.column("dataset"), OMCS_DATASET), False)
    stats["not_omcs"] += batch.num_rows - pc.sum(omcs).as_py()
    batch = batch.filter(omcs)
    has_text = pc.fill_null(pc.invert(pc.is_null(batch.column("surface_text"))), False)
    kept = batch.filter(has_text)
    stats["no_surface_text"] += batch.num_rows - kept.num_rows
    return kept


def add_edge(facts: dict[FactKey, Fact], multiword: set[FactKey], edge: dict, stats: dict) -> None:
    spans = SPAN.findall(edge["surface_text"])
    if len(spans) != 2 or not all(span.strip() for span in spans):
        stats["bad_surface_text"] += 1
        return
    object_index = object_span_index(spans, edge["start_term"], edge["end_term"])
    if object_index is None:
        stats["unresolved_object_span"] += 1
        return
    key = (edge["relation"], edge["start_term"], edge["end_term"])
    if len(key[2].split()) != 1:
        multiword.add(key)
        return
    # The mask must hide the answer itself: not a span matched through the subject alone, nor one
    # holding punctuation that ConceptNet's term drops (``[[bark!]]``).
    if plain_key(split_span(spans[object_index])[1]) != plain_key(key[2]):
        stats["object_span_not_term"] += 1
        return
    facts.setdefault(key, Fact()).add(masked_sentence(edge["surface_text"], object_index),
                                      edge["start_uri"], edge["end_uri"])


def collect_facts(path: Path, relations: set[str], stats: dict) -> dict[FactKey, Fact]:
    facts: dict[FactKey, Fact] = {}
    multiword: set[FactKey] = set()
    for batch in edge_batches(path):
        for edge in usable_rows(batch, relations, stats).to_pylist():
            add_edge(facts, multiword, edge, stats)
    stats["multiword_object_facts"] = len(multiword)
    stats["facts"] = len(facts)
    return facts


def valid_objects(facts: dict[FactKey, Fact]) -> dict[tuple[str, str], list[str]]:
    objects: dict[tuple[str, str], list[str]] = defaultdict(list)
    for relation, subject, obj in sorted(facts):
        objects[(relation, subject)].append(obj)
    return objects


# --- sampling and rows ---------------------------------------------------------------------


def sample_relation(candidates: list[FactKey], relation: str, seed: int, cap: int) -> list[FactKey]:
    """At most ``cap`` of the sorted candidates, seeded per relation, returned sorted."""
    candidates = sorted(candidates)
    if len(candidates) <= cap:
        return candidates
    return sorted(random.Random(f"{seed}:{relation}").sample(candidates, cap))


def fact_uuid(relation: str, subject: str, obj: str) -> str:
    return str(uuid.uuid5(UUID_NAMESPACE, f"{CORPUS}/{relation}/{subject}/{obj}"))


def as_sentence(text: str, ending: str) -> str:
    """A masked surface text as the release writes its ConceptNet sentences (``One of the things you
    do when you are alive is [MASK].``): ConceptNet's ``*`` frame marker dropped, the first letter
    capitalised, and ``ending`` after a text without final punctuation (surface texts have none)."""
    text = text.strip().removeprefix("*").strip()
    text = text[:1].upper() + text[1:]
    return text if not ending or text.endswith((".", "!", "?")) else text + ending


def fact_row(path: Path, lineno: int, key: FactKey, fact: Fact, objects: list[str], sentence_end: str,
             seed: int) -> dict:
    relation, subject, obj = key
    evidences = sorted({as_sentence(sentence, sentence_end) for sentence in fact.sentences})
    query = random.Random(f"{seed}:{relation}:{subject}:{obj}").choice(evidences)
    return make_row(
        CORPUS, relation, path, lineno,
        sub_label=subject, obj_label=obj, masked_sentences=[query],
        relation_label=relation, sub_uri=fact.sub_uri, obj_uri=fact.obj_uri,
        uuid=fact_uuid(relation, subject, obj), valid_objects=objects, evidences=evidences,
    )


def build_conceptnet_gen(
    edges: Path,
    common_vocab_path: Path,
    *,
    seed: int,
    max_per_relation: int = 1000,
    relations: Sequence[str] = LAMA_CONCEPTNET_RELATIONS,
    sentence_end: str = ".",
    stats: dict | None = None,
) -> pd.DataFrame:
    """The ``conceptnet_gen`` dataset (release SCHEMA), relations in sorted order, facts sorted
    within a relation; ``stats`` (see ``new_stats``) is filled in place with the counts.
    ``sentence_end`` closes sentences without final punctuation (``""`` keeps them as they are)."""
    if max_per_relation < 1:
        raise ValueError(f"max_per_relation must be positive, not {max_per_relation}")
    edges = Path(edges)
    stats = new_stats() if stats is None else stats
    stats.update(new_stats())
    common_vocab = load_common_vocab(common_vocab_path)
    facts = collect_facts(edges, set(relations), stats)
    objects = valid_objects(facts)
    by_relation: dict[str, list[FactKey]] = defaultdict(list)
    for key in facts:
        if key[2] in common_vocab:
            by_relation[key[0]].append(key)
        else:
            stats["not_in_common_vocab_facts"] += 1
    rows = []
    for relation in sorted(set(relations)):
        sample = sample_relation(by_relation[relation], relation, seed, max_per_relation)
        stats["candidates"][relation] = len(by_relation[relation])
        stats["sampled"][relation] = len(sample)
        rows += [fact_row(edges, lineno, key, facts[key], objects[key[:2]], sentence_end, seed)
                 for lineno, key in enumerate(sample, start=1)]
    return facts_frame(rows, common_vocab, f"{edges}: no {CORPUS} facts (of {sorted(set(relations))}) found")
