"""Fresh LAMA facts for the T-REx relations, queried from Wikidata (corpus ``wikidata_fresh``).

For each relation of relations.jsonl that has T-REx data, in numeric order:

1. Candidates: one query for a bounded random sample of the relation's truthy statements
   (``sampled_relation_facts_query``: the ``bd:sample`` service, because a full ORDER BY over
   P31 or P17 runs past the service's 60 s limit and a LIMIT without ORDER BY returns statements
   grouped by object). The query does not depend on ``seed``: changing the seed redraws the
   sample from the cached candidates.
2. Subjects with at least one candidate object whose English label is in the common vocabulary
   (LAMA kept objects that its models know as one token), sorted by numeric id; at most
   ``max_per_relation`` of them drawn with ``random.Random(f"{seed}:{relation}")``.
3. Every statement of the relation for the drawn subjects (``relation_facts_query`` restricted to
   at most ``SUBJECTS_PER_QUERY`` subjects a query). A row's object is one of the subject's
   objects with a common-vocab label, drawn with ``random.Random(f"{seed}:{relation}:{subject}")``
   (the smallest id would make the oldest, best-known item the answer of every subject of P530,
   P47 or P1412); ``valid_objects`` lists all its object labels.
4. English aliases of the drawn subjects and of the chosen objects (``aliases_query``, at most
   ``ENTITIES_PER_QUERY`` items a query).

Every query is built from the earlier answers in a fixed order and every answer is cached by the
client, so a rerun over the same cache sends no request and gives the same rows, byte for byte.
"""

from __future__ import annotations

import logging
import random
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

from lmprobes.suites.lama.release import (
    RELATIONS_WITHOUT_TREX,
    facts_frame,
    fill_template,
    load_common_vocab,
    load_relations,
    make_row,
)
from lmprobes.suites.lama.wikidata import (
    Row,
    SparqlClient,
    aliases_query,
    entity_id,
    relation_facts_query,
    sampled_relation_facts_query,
)
from lmprobes.suites.lama.wikidata import facts_frame as wikidata_facts

logger = logging.getLogger("lmprobes.suites.lama.wikidata_fresh")

CORPUS = "wikidata_fresh"
SUBJECTS_PER_QUERY = 200
ENTITIES_PER_QUERY = 200
# Fixed, so that the candidate query (and its cache entry) is the same for every seed.
CANDIDATE_SAMPLE_SEED = 0

Log = Callable[[str], None]


class WikidataFreshError(ValueError):
    """Bad arguments or an answer that lacks a field; the message names the file or the cached answer."""


@dataclass(frozen=True)
class RelationStats:
    candidate_statements: int  # distinct (subject, object) pairs in the sampled candidates
    candidate_subjects: int  # of which have an object in the common vocabulary
    sampled: int
    kept: int  # sampled subjects that still have a common-vocab object among all their statements
    queries: int
    sent: int
    cached: int


class CountingClient:
    """Sends queries through ``client`` and counts which were answered from its cache."""

    def __init__(self, client: SparqlClient) -> None:
        self.client = client
        self.sent = 0
        self.cached = 0

    def query(self, sparql: str) -> list[Row]:
        if self.client.cache_path(sparql).is_file():
            self.cached += 1
        else:
            self.sent += 1
        return self.client.query(sparql)

    def answer_name(self, sparql: str) -> str:
        return str(self.client.cache_path(sparql))


# ---------------------------------------------------------------------------------------------
# The dataset


def build_wikidata_fresh(client: SparqlClient, relations_path: Path, common_vocab_path: Path, **options) -> pd.DataFrame:
    """The ``wikidata_fresh`` dataset: one row per sampled (subject, relation), in SCHEMA order,
    relations in numeric order, rows by subject id within a relation (options: see
    ``wikidata_fresh_with_stats``)."""
    frame, _ = wikidata_fresh_with_stats(client, relations_path, common_vocab_path, **options)
    return frame


def wikidata_fresh_with_stats(
    client: SparqlClient,
    relations_path: Path,
    common_vocab_path: Path,
    *,
    seed: int,
    max_per_relation: int = 1000,
    candidates_per_relation: int = 20000,
    relations: Sequence[str] | None = None,
    log: Log | None = None,
) -> tuple[pd.DataFrame, dict[str, dict[str, int]]]:
    """``build_wikidata_fresh`` and its per-relation counts (``RelationStats`` as dicts)."""
    _check_positive("max_per_relation", max_per_relation)
    _check_positive("candidates_per_relation", candidates_per_relation)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise WikidataFreshError(f"seed must be an integer, got {seed!r}")
    say = log or logger.info
    metas = select_relations(load_relations(relations_path), relations, relations_path)
    vocab = load_common_vocab(common_vocab_path)
    rows: list[dict] = []
    stats: dict[str, dict[str, int]] = {}
    for relation, meta in metas.items():
        counting = CountingClient(client)
        relation_rows, counts = fresh_relation(
            counting, relation, meta, vocab, seed=seed, max_per_relation=max_per_relation,
            candidates_per_relation=candidates_per_relation,
        )
        rows.extend(relation_rows)
        stats[relation] = asdict(counts)
        say(describe(relation, counts))
    empty = f"{client.endpoint}: no {CORPUS} facts for relations {', '.join(metas)}"
    return facts_frame(rows, vocab, empty), stats


def select_relations(
    known: dict[str, dict], wanted: Sequence[str] | None, relations_path: Path
) -> dict[str, dict]:
    """The requested relations (default: all with T-REx data) in numeric order."""
    if wanted is None:
        chosen = [relation for relation in known if relation not in RELATIONS_WITHOUT_TREX]
    else:
        if isinstance(wanted, str):
            raise WikidataFreshError(f"relations must be a list of ids, got the string {wanted!r}")
        unknown = sorted(set(wanted) - set(known))
        if unknown:
            raise WikidataFreshError(f"{relations_path}: no such relations: {', '.join(unknown)}")
        chosen = list(dict.fromkeys(wanted))
    if not chosen:
        raise WikidataFreshError(f"{relations_path}: no relations to query")
    return {relation: known[relation] for relation in sorted(chosen, key=_relation_number)}


def describe(relation: str, counts: RelationStats) -> str:
    return (
        f"{CORPUS} {relation}: {counts.candidate_statements} candidate statements, "
        f"{counts.candidate_subjects} subjects with a common-vocab object, {counts.sampled} sampled, "
        f"{counts.kept} kept; {counts.queries} queries ({counts.sent} sent, {counts.cached} from cache)"
    )


# ---------------------------------------------------------------------------------------------
# One relation


def fresh_relation(
    client: CountingClient,
    relation: str,
    meta: dict,
    vocab: set[str],
    *,
    seed: int,
    max_per_relation: int,
    candidates_per_relation: int,
) -> tuple[list[dict], RelationStats]:
    candidates = fetch_facts(
        client, sampled_relation_facts_query(relation, limit=candidates_per_relation, sample_seed=CANDIDATE_SAMPLE_SEED)
    )
    eligible = subjects_with_vocab_object(candidates, vocab)
    sample = sample_subjects(eligible, max_per_relation, seed, relation)
    facts = facts_of_subjects(client, relation, sample)
    chosen = chosen_objects(facts, vocab, seed, relation)
    aliases = fetch_aliases(client, [*chosen["subject_id"], *chosen["object_id"]])
    rows = [
        fact_row(relation, meta, lineno, fact, facts, aliases, client.client.endpoint)
        for lineno, fact in enumerate(chosen.itertuples(index=False), start=1)
    ]
    counts = RelationStats(
        candidate_statements=len(candidates),
        candidate_subjects=len(eligible),
        sampled=len(sample),
        kept=len(rows),
        queries=client.sent + client.cached,
        sent=client.sent,
        cached=client.cached,
    )
    return rows, counts


def subjects_with_vocab_object(facts: pd.DataFrame, vocab: set[str]) -> list[str]:
    """Subject ids with at least one object label in the vocabulary, in numeric order."""
    subjects = set(facts.loc[facts["object_label"].isin(vocab), "subject_id"])
    return sorted(subjects, key=_id_number)


def sample_subjects(subjects: Sequence[str], k: int, seed: int, relation: str) -> list[str]:
    """At most ``k`` of ``subjects`` (drawn from their numeric order, seeded per relation),
    returned in numeric order."""
    ordered = sorted(set(subjects), key=_id_number)
    if len(ordered) > k:
        ordered = sorted(random.Random(f"{seed}:{relation}").sample(ordered, k), key=_id_number)
    return ordered


def facts_of_subjects(client: CountingClient, relation: str, subjects: list[str]) -> pd.DataFrame:
    """Every statement of ``relation`` with one of ``subjects``, sorted by subject then object id."""
    rows: list[Row] = []
    for chunk in chunks(subjects, SUBJECTS_PER_QUERY):
        rows.extend(query_rows(client, relation_facts_query(relation, subjects=chunk), FACT_FIELDS))
    facts = wikidata_facts(rows)
    # The answer should only hold the subjects asked for; anything else is not part of the sample.
    return facts[facts["subject_id"].isin(set(subjects))].reset_index(drop=True)


def chosen_objects(facts: pd.DataFrame, vocab: set[str], seed: int, relation: str) -> pd.DataFrame:
    """Per subject (in the order of ``facts``), one of its facts whose object label is in the
    vocabulary, drawn in object-id order with a generator seeded by the subject."""
    in_vocab = facts[facts["object_label"].isin(vocab)]
    picks = [group.index[random.Random(f"{seed}:{relation}:{subject}").randrange(len(group))]
             for subject, group in in_vocab.groupby("subject_id", sort=False)]
    return in_vocab.loc[picks].reset_index(drop=True)


def fetch_aliases(client: CountingClient, entities: list[str]) -> dict[str, list[str]]:
    """English aliases per item id, sorted and unique (items without aliases are absent)."""
    unique = sorted(set(entities), key=_id_number)
    found: dict[str, set[str]] = {}
    for chunk in chunks(unique, ENTITIES_PER_QUERY):
        for row in query_rows(client, aliases_query(chunk), ("entity", "alias")):
            found.setdefault(entity_id(row["entity"]), set()).add(row["alias"])
    return {entity: sorted(aliases) for entity, aliases in found.items()}


def fact_row(
    relation: str, meta: dict, lineno: int, fact, facts: pd.DataFrame, aliases: dict[str, list[str]], endpoint: str
) -> dict:
    template = meta["template"]
    subject, obj = fact.subject_id, fact.object_id
    row = make_row(
        CORPUS, relation, Path(relation), lineno,
        sub_label=fact.subject_label,
        obj_label=fact.object_label,
        masked_sentences=[fill_template(template, fact.subject_label)],
        template=template,
        relation_label=meta.get("label"),
        relation_type=meta.get("type"),
        sub_uri=subject,
        obj_uri=obj,
        uuid=str(uuid.uuid5(uuid.NAMESPACE_URL, f"lmprobes/{CORPUS}/{relation}/{subject}/{obj}")),
        sub_aliases=aliases.get(subject, []),
        obj_aliases=aliases.get(obj, []),
        valid_objects=sorted(set(facts.loc[facts["subject_id"] == subject, "object_label"])),
    )
    # The facts come from the query service, not from a file.
    row["source_file"] = endpoint
    return row


# ---------------------------------------------------------------------------------------------
# Queries

FACT_FIELDS = ("subject", "subjectLabel", "object", "objectLabel")
ENTITY_FIELDS = ("subject", "object", "entity")


def fetch_facts(client: CountingClient, sparql: str) -> pd.DataFrame:
    return wikidata_facts(query_rows(client, sparql, FACT_FIELDS))


def query_rows(client: CountingClient, sparql: str, fields: tuple[str, ...]) -> list[Row]:
    """The answer's rows, each checked to bind ``fields``, with items where items belong."""
    rows = client.query(sparql)
    for number, row in enumerate(rows, start=1):
        missing = [field for field in fields if field not in row]
        if missing:
            raise WikidataFreshError(
                f"Wikidata answer {client.answer_name(sparql)}: result row {number} lacks {', '.join(missing)}"
            )
        for field in (name for name in ENTITY_FIELDS if name in row):
            try:
                entity_id(row[field])
            except ValueError as error:
                raise WikidataFreshError(
                    f"Wikidata answer {client.answer_name(sparql)}: result row {number}, {field}: {error}"
                ) from None
    return rows


def chunks(items: Sequence[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield list(items[start:start + size])


def _check_positive(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise WikidataFreshError(f"{name} must be a positive integer, got {value!r}")


def _id_number(entity: str) -> int:
    return int(entity[1:])


def _relation_number(relation: str) -> int:
    return int(relation[1:]) if relation[1:].isdigit() else 0
