"""Paraphrase robustness: the release T-REx facts, each under every template of its relation.

Templates of a relation, numbered by ``template_id``: 0 is LAMA's own (relations.jsonl, spaced as
LAMA writes it, ``[X] was born in [Y] .``), then ParaRel's patterns (Elazar et al. 2021, TACL,
"Measuring and Improving Consistency in Pretrained Language Models") in file order, kept as written
(``[X] was born in [Y].``). A template equal to an earlier one once whitespace is normalised
(``template_key``: runs of whitespace are one space, none before punctuation) is dropped, so
ParaRel's copy of LAMA's own template does not count twice. Relations without a ParaRel file keep
LAMA's template only.

The dataset (``PARAPHRASE_SCHEMA``: the release corpora's columns, plus ``template_id`` and
``fact_id``, the row id of the fact in the ``trex`` corpus) has one row per (fact, template), each
fact's templates one after another, in release order. Facts are read and filtered by the ``trex``
corpus' own code (``release.trex_rows``, ``release.facts_frame``): queries are filled as LAMA fills
them (``fill_template``), and the filter flags are LAMA's, the (subject, object) dedupe decided per
template, so every template of a relation keeps the same facts.

ParaRel's format, as read here (the one place that states it; ``read_pararel_file``):

- a folder of JSON-lines files, ``data/pattern_data/graphs_json/`` in the repository
  (``PARAREL_FOLDER``; GitHub's archive puts it under one top folder, ``pararel-<commit>/``);
- one file per relation, named by its Wikidata property id (``P19.jsonl``), which must be a
  relation of LAMA's relations.jsonl; files not ending in ``.jsonl`` are ignored;
- one JSON object per line, with a string field ``pattern`` holding ``[X]`` (the subject) and
  ``[Y]`` (the object) exactly once each, and no ``[MASK]``; its other fields (``lemma``,
  ``extended_lemma``, ``tense`` in the files seen) are not read, but a ``relation`` field, where
  there is one, must name the file's relation. Blank lines are skipped; a file without patterns is
  refused.

Every violation raises ``ParaphraseError`` naming the file (and the line, for a line's fault).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Iterator
from pathlib import Path, PurePosixPath

import pandas as pd
import pyarrow as pa

from lmprobes.io import parse_json_object, utf8_lines
from lmprobes.suites.lama.release import (
    MASK,
    PARAPHRASE_CORPUS,
    RELATION_ID,
    SCHEMA,
    ReleaseError,
    facts_frame,
    fill_template,
    load_common_vocab,
    load_relations,
    trex_rows,
    word_count,
)

log = logging.getLogger("lmprobes.lama")

CORPUS = PARAPHRASE_CORPUS
# ParaRel's layout and format (see the module docstring).
PARAREL_FOLDER = "data/pattern_data/graphs_json"
PARAREL_SUFFIX = ".jsonl"
PATTERN_FIELD = "pattern"
RELATION_FIELD = "relation"
SUBJECT, OBJECT = "[X]", "[Y]"
# ``spacing``: ParaRel's patterns as written, or with a space between the object and punctuation right
# after it (LAMA's convention, ``[Y] .``): the released BERT connector reads ``[MASK].`` as ``[MASK] ##.``.
SPACINGS = ("as_written", "lama")
_GLUED_TO_OBJECT = re.compile(re.escape(OBJECT) + r"(?=[.,;:!?])")
_SPACE_BEFORE_PUNCTUATION = re.compile(r" (?=[.,;:!?])")

PARAPHRASE_SCHEMA = pa.schema([
    *SCHEMA,
    pa.field("template_id", pa.int32()),  # 0: LAMA's own template; 1, 2, ...: ParaRel's, in file order
    pa.field("fact_id", pa.string()),  # the fact's row id in the trex corpus (trex:<relation>:<line>)
])


class ParaphraseError(ReleaseError):
    """A malformed paraphrase file; the message names the file and line."""


def template_key(template: str) -> str:
    """What two templates must share to be one: whitespace runs as one space, none at either end or
    before punctuation (``[X] was born in [Y] .`` and ``[X] was born in  [Y].`` are one template)."""
    return _SPACE_BEFORE_PUNCTUATION.sub("", " ".join(template.split()))


def check_pattern(pattern: str, where: str) -> None:
    for placeholder in (SUBJECT, OBJECT):
        if pattern.count(placeholder) != 1:
            raise ParaphraseError(f"{where}: pattern {pattern!r} should hold {placeholder} exactly once, "
                                  f"not {pattern.count(placeholder)} times")
    if MASK in pattern:
        raise ParaphraseError(f"{where}: pattern {pattern!r} holds {MASK}; the object is [Y]")


def read_pararel_file(path: Path, relations: Collection[str]) -> tuple[str, list[str]]:
    """A ParaRel relation file -> (relation id, its patterns in file order)."""
    path = Path(path)
    relation = path.name[: -len(PARAREL_SUFFIX)] if path.name.endswith(PARAREL_SUFFIX) else ""
    if not RELATION_ID.fullmatch(relation):
        raise ParaphraseError(f"{path}: not a ParaRel relation file (expected a Wikidata property id and "
                              f"{PARAREL_SUFFIX}, such as P19{PARAREL_SUFFIX})")
    if relation not in relations:
        raise ParaphraseError(f"{path}: unknown relation {relation}: LAMA's relations.jsonl does not list it")
    patterns = []
    for lineno, line in utf8_lines(path, ParaphraseError):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        record = parse_json_object(line, where, ParaphraseError)
        if PATTERN_FIELD not in record:
            raise ParaphraseError(f"{where}: missing field {PATTERN_FIELD!r}")
        pattern = record[PATTERN_FIELD]
        if not isinstance(pattern, str):
            raise ParaphraseError(f"{where}: field {PATTERN_FIELD!r} should be a str, got {pattern!r:.80}")
        if RELATION_FIELD in record and record[RELATION_FIELD] != relation:
            raise ParaphraseError(f"{where}: relation {record[RELATION_FIELD]!r:.40} in a file of relation {relation}")
        check_pattern(pattern, where)
        patterns.append(pattern)
    if not patterns:
        raise ParaphraseError(f"{path}: no patterns")
    return relation, patterns


def load_pararel(folder: Path, relations: Collection[str]) -> dict[str, list[str]]:
    """Every relation file of a ParaRel folder -> {relation: patterns}, relations by id."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ParaphraseError(f"{folder}: no such folder")
    files = sorted(p for p in folder.iterdir() if p.name.endswith(PARAREL_SUFFIX) and p.is_file())
    if not files:
        raise ParaphraseError(f"{folder}: no ParaRel relation files (*{PARAREL_SUFFIX})")
    patterns = dict(read_pararel_file(path, relations) for path in files)
    return dict(sorted(patterns.items(), key=lambda kv: int(kv[0][1:])))


def pararel_folder(extracted: Path, folder: str = PARAREL_FOLDER) -> Path:
    """``folder`` inside an extracted ParaRel archive: at its root, or under its one top folder
    (GitHub's archives put the repository under ``<name>-<commit>/``)."""
    extracted = Path(extracted)
    relative = PurePosixPath(folder)
    if relative.is_absolute() or ".." in relative.parts:
        raise ValueError(f"{folder!r}: the ParaRel folder must be a relative path inside the archive")
    candidates = [extracted / relative]
    if extracted.is_dir():
        candidates += [top / relative for top in sorted(extracted.iterdir()) if top.is_dir()]
    found = [candidate for candidate in candidates if candidate.is_dir()]
    if len(found) != 1:
        where = "none" if not found else ", ".join(map(str, found))
        raise ParaphraseError(f"{extracted}: expected one {folder}/ at its root or under one top folder, found {where}")
    return found[0]


def relation_templates(relations: dict[str, dict], paraphrases: dict[str, list[str]], *,
                       spacing: str = "as_written") -> dict[str, list[str]]:
    """Each relation's templates: LAMA's first, then its paraphrases not equal to an earlier one
    (``template_key``); ``spacing="lama"`` first puts a space between [Y] and the punctuation after it."""
    if spacing not in SPACINGS:
        raise ValueError(f"unknown paraphrase spacing {spacing!r}; choose one of {SPACINGS}")
    templates = {}
    for relation, meta in relations.items():
        patterns = paraphrases.get(relation, [])
        if spacing == "lama":
            patterns = [_GLUED_TO_OBJECT.sub(f"{OBJECT} ", pattern) for pattern in patterns]
        distinct: dict[str, str] = {}
        for template in [meta["template"], *patterns]:
            distinct.setdefault(template_key(template), template)
        templates[relation] = list(distinct.values())
    return templates


def paraphrase_rows(release: Path, relations: dict[str, dict], templates: dict[str, list[str]]) -> Iterator[dict]:
    """The trex corpus' rows (``trex_rows``), each once per template of its relation."""
    for fact in trex_rows(release, relations):
        for template_id, template in enumerate(templates[fact["relation"]]):
            query = fill_template(template, fact["sub_label"])
            yield {
                **fact,
                "row_id": f"{CORPUS}:{fact['relation']}:{fact['source_line']}:{template_id}",
                "corpus": CORPUS,
                "template": template,
                "template_id": template_id,
                "fact_id": fact["row_id"],
                "query": query,
                "masked_sentences": [query],
                "n_words": word_count([query]),
            }


def build_paraphrases(release: Path, relations_path: Path, common_vocab_path: Path, pararel: Path, *,
                      folder: str = PARAREL_FOLDER, spacing: str = "as_written", stats: dict | None = None
                      ) -> pd.DataFrame:
    """The paraphrase dataset (``PARAPHRASE_SCHEMA``) from the release folder (``data/``) and an
    extracted ParaRel archive; ``stats`` receives the templates of each relation and what was dropped."""
    relations = load_relations(relations_path)
    folder_path = pararel_folder(pararel, folder)
    paraphrases = load_pararel(folder_path, relations)
    templates = relation_templates(relations, paraphrases, spacing=spacing)
    df = facts_frame(paraphrase_rows(Path(release), relations, templates), load_common_vocab(common_vocab_path),
                     f"{relations_path}: no T-REx facts found", schema=PARAPHRASE_SCHEMA)
    if stats is not None:
        with_facts = list(dict.fromkeys(df["relation"]))
        stats.update(
            pararel_relations=len(paraphrases),
            pararel_patterns=sum(map(len, paraphrases.values())),
            # ParaRel patterns dropped as equal to an earlier template (LAMA's own among them)
            repeated_patterns={r: len(p) + 1 - len(templates[r]) for r, p in paraphrases.items()},
            relations_without_paraphrases=[r for r in with_facts if r not in paraphrases],
            templates={r: templates[r] for r in with_facts},
        )
        log.info("%s: %d of %d T-REx relations with facts have ParaRel patterns (%s); %d rows",
                 CORPUS, len(with_facts) - len(stats["relations_without_paraphrases"]), len(with_facts),
                 folder_path, len(df))
    return df
