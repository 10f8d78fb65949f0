"""Raw T-REx (Elsahar et al. 2018, ``TREx.zip``) -> LAMA-style facts of the ``trex_raw`` corpus.

The source is many JSON files (``re-nlg_0-10000.json``, ...), each an array of documents with
``text``, ``sentences_boundaries`` and ``triples``; a triple has ``subject``/``predicate``/``object``
mentions (``uri``, ``boundaries`` as character offsets into the document's text, ``surfaceform``,
``annotator``) and the ``sentence_id`` it was aligned with. Members are read one at a time in
sorted name order, straight from the zip (never extracted), and only per-fact aggregates are kept:
for each (relation, subject, object) the smallest ``max_evidences`` distinct masked sentences and
the member it was first seen in, and for each entity how often each surface form was used.

A triple counts when its predicate is one of the relations, subject and object are Wikidata items
(``.../entity/Q<digits>``), neither mention is a pronoun from the coreference annotator, and the
aligned sentence contains both surface forms. Its evidence is that sentence with the object's
mention replaced by ``[MASK]`` at its boundaries (at the surface form's first occurrence in the
sentence when the boundaries are missing or do not point at it).

Labels: raw T-REx carries surface forms, not Wikidata labels, so an entity's label is its most
frequent surface form over the counted triples of all relations (as subject or object), ties
broken alphabetically. As LAMA kept facts whose object is one token, the candidates of a relation
are its facts whose object label is in the common vocabulary; at most ``max_per_relation`` of them
are sampled, seeded per relation, from the candidates sorted by (subject, object) id.
"""

from __future__ import annotations

import bisect
import json
import random
import sys
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow as pa

from lmprobes.io import gc_paused
from lmprobes.suites.lama.release import (
    MASK,
    RELATIONS_WITHOUT_TREX,
    facts_frame,
    fill_template,
    load_common_vocab,
    load_relations,
    make_row,
)

CORPUS = "trex_raw"
ITEM_PREFIX = "http://www.wikidata.org/entity/Q"
PROPERTY_PREFIX = "http://www.wikidata.org/prop/direct/"
# Simple_Coreference links sentence-initial "he/she/it/they" to the document's entity: such a
# mention does not name the entity, so it is neither a label nor an evidence.
PRONOUN_ANNOTATORS = frozenset({"Simple_Coreference"})
SKIP_REASONS = ("other_predicate", "not_item", "pronoun", "sentence_out_of_range", "surface_form_missing")
UUID_NAMESPACE = uuid.UUID("1b4e28ba-2fa1-11d2-883f-0016d3cca427")
# Every counted fact of the relations, sampled or not: the valid objects of a subject, for the
# filtered rank of the release's T-REx facts (``release.with_valid_objects``).
OBJECTS_SCHEMA = pa.schema([
    pa.field("relation", pa.string()),
    pa.field("sub_uri", pa.string()),
    pa.field("obj_uri", pa.string()),
    pa.field("obj_label", pa.string()),
])


class TrexRawError(ValueError):
    """Malformed raw T-REx input; the message names the member file and the document index."""


# --- reading -------------------------------------------------------------------------------


def iter_members(trex: Path) -> Iterator[tuple[str, list]]:
    """(member name, its documents) for each JSON file of the zip or folder, in sorted name order,
    one member in memory at a time."""
    trex = Path(trex)
    if trex.is_dir():
        yield from _folder_members(trex)
    elif zipfile.is_zipfile(trex):
        yield from _zip_members(trex)
    else:
        raise TrexRawError(f"{trex}: neither a folder nor a zip file of raw T-REx JSON files")


def _is_json_member(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base.endswith(".json") and not base.startswith("._") and not name.startswith("__MACOSX/")


def _zip_members(path: Path) -> Iterator[tuple[str, list]]:
    with zipfile.ZipFile(path) as archive:
        names = sorted(info.filename for info in archive.infolist() if not info.is_dir() and _is_json_member(info.filename))
        if not names:
            raise TrexRawError(f"{path}: no .json members in the zip")
        for name in names:
            with archive.open(name) as handle:
                yield name, _parse_member(path, name, handle.read())


def _folder_members(folder: Path) -> Iterator[tuple[str, list]]:
    names = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.json") if p.is_file())
    names = [name for name in names if _is_json_member(name)]
    if not names:
        raise TrexRawError(f"{folder}: no .json files in the folder")
    for name in names:
        yield name, _parse_member(folder, name, (folder / name).read_bytes())


def _parse_member(source: Path, name: str, data: bytes) -> list:
    try:
        documents = json.loads(data)
    except UnicodeDecodeError as error:
        raise TrexRawError(f"{source}: {name}: not UTF-8 ({error.reason})") from None
    except json.JSONDecodeError as error:
        raise TrexRawError(f"{source}: {name}: not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    if not isinstance(documents, list):
        raise TrexRawError(f"{source}: {name}: expected a JSON array of documents, got {type(documents).__name__}")
    return documents


# --- one triple ----------------------------------------------------------------------------


def item_id(uri) -> str | None:
    """``http://www.wikidata.org/entity/Q42`` -> ``Q42``; None for anything that is not an item."""
    if isinstance(uri, str) and uri.startswith(ITEM_PREFIX):
        digits = uri[len(ITEM_PREFIX):]
        if digits.isascii() and digits.isdigit():
            return sys.intern("Q" + digits)  # the same ids recur millions of times
    return None


def mask_object(text: str, start: int, end: int, boundaries, surface: str) -> tuple[str, bool]:
    """The sentence ``text[start:end]`` with the object masked, and whether its boundaries were used.

    The caller has checked that the sentence contains ``surface``.
    """
    if _points_at(text, start, end, boundaries, surface):
        first, last = boundaries
        return (text[start:first] + MASK + text[last:end]).strip(), True
    sentence = text[start:end]
    at = sentence.find(surface)
    return (sentence[:at] + MASK + sentence[at + len(surface):]).strip(), False


def _points_at(text: str, start: int, end: int, boundaries, surface: str) -> bool:
    if not isinstance(boundaries, list) or len(boundaries) != 2:
        return False
    first, last = boundaries
    return (isinstance(first, int) and isinstance(last, int) and start <= first < last <= end
            and text[first:last] == surface)


def _surface(mention: dict) -> str | None:
    surface = mention["surfaceform"]
    return surface if isinstance(surface, str) and surface.strip() else None


def add_capped(evidences: list[str], sentence: str, cap: int) -> None:
    """Keep ``evidences`` the sorted ``cap`` smallest distinct sentences seen (order-independent)."""
    at = bisect.bisect_left(evidences, sentence)
    if at < len(evidences) and evidences[at] == sentence:
        return
    if len(evidences) < cap:
        evidences.insert(at, sentence)
    elif at < cap:
        evidences.insert(at, sentence)
        evidences.pop()


# --- aggregation ---------------------------------------------------------------------------


class FactCollector:
    """Per-fact and per-entity aggregates over the documents of every member."""

    def __init__(self, relations: list[str], max_evidences: int) -> None:
        self.relation_of = {PROPERTY_PREFIX + relation: relation for relation in relations}
        self.max_evidences = max_evidences
        # relation -> (subject, object) -> [first member, sorted capped evidences]
        self.facts: dict[str, dict[tuple[str, str], list]] = {relation: {} for relation in relations}
        self.surfaces: dict[str, dict[str, int]] = {}
        self.aligned = dict.fromkeys(relations, 0)
        self.counts = {"members": 0, "documents": 0, "triples": 0, "masked_by_search": 0}
        self.skipped = dict.fromkeys(SKIP_REASONS, 0)
        self.labels: dict[str, str] = {}  # label() of each entity asked for, once every member is in

    def add_member(self, source: Path, member: str, documents: list) -> None:
        self.labels.clear()  # new surface forms may change a label
        self.counts["members"] += 1
        member_file = sys.intern(Path(member).name)
        for index, document in enumerate(documents):
            try:
                self.add_document(member_file, document)
            except TrexRawError as error:
                raise TrexRawError(f"{source}: {member}: document {index}{_docid(document)}: {error}") from None
            self.counts["documents"] += 1

    def add_document(self, member_file: str, document) -> None:
        if not isinstance(document, dict):
            raise TrexRawError(f"expected a JSON object, got {type(document).__name__}")
        text, sentences, triples = (_required(document, key) for key in ("text", "sentences_boundaries", "triples"))
        if not isinstance(text, str) or not isinstance(sentences, list) or not isinstance(triples, list):
            raise TrexRawError("text must be a string, sentences_boundaries and triples lists")
        for number, triple in enumerate(triples):
            try:
                reason = self.add_triple(member_file, text, sentences, triple)
            except KeyError as error:
                raise TrexRawError(f"triple {number}: missing field {error.args[0]!r}") from None
            except (TypeError, ValueError, AttributeError) as error:
                raise TrexRawError(f"triple {number}: malformed ({error})") from None
            if reason is not None:
                self.skipped[reason] += 1
        self.counts["triples"] += len(triples)

    def add_triple(self, member_file: str, text: str, sentences: list, triple: dict) -> str | None:
        """Aggregate one triple; returns why it was skipped, or None."""
        relation = self.relation_of.get(triple["predicate"]["uri"])
        if relation is None:
            return "other_predicate"
        subject_mention, object_mention = triple["subject"], triple["object"]
        subject, obj = item_id(subject_mention["uri"]), item_id(object_mention["uri"])
        if subject is None or obj is None:
            return "not_item"
        if subject_mention.get("annotator") in PRONOUN_ANNOTATORS or object_mention.get("annotator") in PRONOUN_ANNOTATORS:
            return "pronoun"
        sentence_id = triple["sentence_id"]
        if isinstance(sentence_id, bool) or not isinstance(sentence_id, int):
            raise TypeError(f"sentence_id {sentence_id!r} is not an integer")
        if not 0 <= sentence_id < len(sentences):
            return "sentence_out_of_range"
        start, end = sentences[sentence_id]
        subject_surface, object_surface = _surface(subject_mention), _surface(object_mention)
        sentence = text[start:end]
        if subject_surface is None or object_surface is None or subject_surface not in sentence or object_surface not in sentence:
            return "surface_form_missing"
        evidence, by_boundaries = mask_object(text, start, end, object_mention["boundaries"], object_surface)
        self.counts["masked_by_search"] += not by_boundaries
        self._count_surface(subject, subject_surface)
        self._count_surface(obj, object_surface)
        self.aligned[relation] += 1
        fact = self.facts[relation].setdefault((subject, obj), [member_file, []])
        add_capped(fact[1], evidence, self.max_evidences)
        return None

    def _count_surface(self, entity: str, surface: str) -> None:
        forms = self.surfaces.setdefault(entity, {})
        forms[surface] = forms.get(surface, 0) + 1

    def label(self, entity: str) -> str:
        """The most frequent surface form; ties go to the alphabetically first (worked out once per
        entity: a hub object such as Q30 has thousands of forms and is the object of thousands of facts)."""
        label = self.labels.get(entity)
        if label is None:
            label = self.labels[entity] = min(self.surfaces[entity].items(), key=lambda form: (-form[1], form[0]))[0]
        return label


def _required(document: dict, key: str):
    if key not in document:
        raise TrexRawError(f"missing field {key!r}")
    return document[key]


def _docid(document) -> str:
    docid = document.get("docid") if isinstance(document, dict) else None
    return f" (docid {docid})" if isinstance(docid, (str, int)) else ""


# --- sampling and rows ---------------------------------------------------------------------


def _id_number(entity: str) -> int:
    return int(entity[1:])


def fact_order(fact: tuple[str, str]) -> tuple[int, int]:
    """Facts by subject, then object, in Wikidata's numeric order (Q2 before Q10)."""
    return _id_number(fact[0]), _id_number(fact[1])


def relation_order(relation: str) -> tuple[int, str]:
    digits = relation[1:]
    return (int(digits) if digits.isdigit() else sys.maxsize), relation


def sample_facts(candidates: list[tuple[str, str]], relation: str, seed: int, k: int) -> list[tuple[str, str]]:
    """At most ``k`` facts, seeded by (seed, relation), drawn from and returned in ``fact_order``."""
    ordered = sorted(candidates, key=fact_order)
    if len(ordered) <= k:
        return ordered
    return sorted(random.Random(f"{seed}:{relation}").sample(ordered, k), key=fact_order)


def fact_uuid(relation: str, subject: str, obj: str) -> str:
    return str(uuid.uuid5(UUID_NAMESPACE, f"{CORPUS}/{relation}/{subject}/{obj}"))


def relation_rows(collected: FactCollector, relation: str, meta: dict, common_vocab: set[str], *, seed: int,
                  max_per_relation: int, stats: dict) -> list[dict]:
    facts = collected.facts[relation]
    candidates = [fact for fact in facts if collected.label(fact[1]) in common_vocab]
    sampled = sample_facts(candidates, relation, seed, max_per_relation)
    stats.update(facts=len(facts), candidates=len(candidates), sampled=len(sampled))
    subjects = {subject for subject, _ in sampled}
    objects_of: dict[str, set[str]] = {}
    for subject, obj in facts:
        if subject in subjects:
            objects_of.setdefault(subject, set()).add(collected.label(obj))
    rows = []
    for lineno, (subject, obj) in enumerate(sampled, start=1):
        member_file, evidences = facts[(subject, obj)]
        sub_label = collected.label(subject)
        rows.append(make_row(
            CORPUS, relation, Path(member_file), lineno,
            sub_label=sub_label,
            obj_label=collected.label(obj),
            masked_sentences=[fill_template(meta["template"], sub_label)],
            template=meta["template"],
            relation_label=meta.get("label"),
            relation_type=meta.get("type"),
            sub_uri=subject,
            obj_uri=obj,
            uuid=fact_uuid(relation, subject, obj),
            valid_objects=sorted(objects_of[subject]),
            evidences=list(evidences),
        ))
    return rows


def every_object(collected: FactCollector) -> pd.DataFrame:
    """OBJECTS_SCHEMA rows: each counted (relation, subject, object) with the object's label, by
    relation (numeric order), then (subject, object) id."""
    records = [
        (relation, subject, obj, collected.label(obj))
        for relation in sorted(collected.facts, key=relation_order)
        for subject, obj in sorted(collected.facts[relation], key=fact_order)
    ]
    return pd.DataFrame.from_records(records, columns=OBJECTS_SCHEMA.names)


def build_trex_raw(trex: Path, relations_path: Path, common_vocab_path: Path, *, seed: int,
                   max_per_relation: int = 1000, max_evidences: int = 10, stats: dict | None = None) -> pd.DataFrame:
    """The ``trex_raw`` dataset; ``build_trex_raw_with_objects`` also returns every object."""
    return build_trex_raw_with_objects(trex, relations_path, common_vocab_path, seed=seed,
                                       max_per_relation=max_per_relation, max_evidences=max_evidences, stats=stats)[0]


def build_trex_raw_with_objects(trex: Path, relations_path: Path, common_vocab_path: Path, *, seed: int,
                                max_per_relation: int = 1000, max_evidences: int = 10, stats: dict | None = None
                                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``trex_raw`` dataset (release SCHEMA rows) from ``TREx.zip`` or a folder of its JSON files,
    and ``every_object`` of the same pass.

    Rows come relation by relation (numeric order of relations.jsonl's ids), each relation's sample
    in (subject, object) id order; ``lineno`` is the position in that sample. ``stats``, when
    given, is filled with the counts to log: members, documents, triples, skipped triples by
    reason, evidences masked by search, and per relation ``aligned_triples``, ``facts``,
    ``candidates`` (facts whose object label is in the common vocabulary) and ``sampled``.
    """
    if max_per_relation < 1 or max_evidences < 1:
        raise ValueError(f"max_per_relation and max_evidences must be positive, got {max_per_relation}, {max_evidences}")
    relations = load_relations(relations_path)
    common_vocab = load_common_vocab(common_vocab_path)
    # LAMA's T-REx has 41 relations: relations.jsonl lists five more that it has no facts for.
    order = sorted((r for r in relations if r not in RELATIONS_WITHOUT_TREX), key=relation_order)
    collected = FactCollector(order, max_evidences)
    with gc_paused():  # a parsed member is millions of containers and no cycles: see io.gc_paused
        for member, documents in iter_members(trex):
            collected.add_member(Path(trex), member, documents)
            del documents  # let the member go before the next one is parsed
    per_relation = {relation: {"aligned_triples": collected.aligned[relation]} for relation in order}
    rows = []
    for relation in order:
        rows += relation_rows(collected, relation, relations[relation], common_vocab, seed=seed,
                              max_per_relation=max_per_relation, stats=per_relation[relation])
    if stats is not None:
        stats.update(collected.counts, skipped=dict(collected.skipped), relations=per_relation)
    facts = facts_frame(rows, common_vocab, f"{trex}: no raw T-REx facts of the listed relations with common-vocabulary objects")
    return facts, every_object(collected)
