"""The LAMA release (data.zip) -> one row per fact, with the released code's filters as columns.

Model-independent decisions of the original evaluation are made here and recorded per row, never
by dropping rows: the Google-RE judgment filter (more "no" than "yes", where every answer that is
not "yes", such as "skip", counts as "no"), the 100-word limit on the masked sentences, membership
of the object in the common vocabulary, and the (subject, object)
dedupe of the template-queried corpora (T-REx, Google-RE), which LAMA applies after filtering.
Model-dependent filters (single-token object) are decided at scoring time.

Every field read is type-checked (labels and ids are strings, sentence and alias fields lists of
strings, judgments a list of objects): a wrong type raises ReleaseError naming the file and line,
here rather than as a TypeError in a template or when the table is written.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import pandas as pd
import pyarrow as pa

from lmprobes.io import parse_json_object, utf8_lines

log = logging.getLogger(__name__)

CORPORA = ("google_re", "trex", "conceptnet", "squad")
MASK = "[MASK]"
MAX_WORDS = 100
RELATION_ID = re.compile(r"P[0-9]+")  # names a T-REx file: no other characters allowed
# Hard-coded in the released code (they are not in relations.jsonl).
GOOGLE_RE_TEMPLATES = {
    "place_of_birth": "[X] was born in [Y] .",
    "date_of_birth": "[X] (born [Y]).",
    "place_of_death": "[X] died in [Y] .",
}
# The release T-REx facts under each template of their relation (``paraphrases``): built by its own
# rule, never by ``build_corpus``; template-queried, so deduplicated per template.
PARAPHRASE_CORPUS = "trex_paraphrases"
TEMPLATE_CORPORA = ("google_re", "trex", "trex_raw", "wikidata_fresh", PARAPHRASE_CORPUS)
SUBJECTLESS_CORPORA = ("squad",)  # sub_label is "Squad" on every line
SENTENCE_FILES = {"conceptnet": Path("ConceptNet/test.jsonl"), "squad": Path("Squad/test.jsonl")}
# Listed in relations.jsonl, but the release has no T-REx file for them; any other missing file is
# a partly extracted release, whose T-REx average would silently run over fewer relations.
RELATIONS_WITHOUT_TREX = frozenset({"P166", "P69", "P54", "P1923", "P102"})
# A relation's ``type`` in relations.jsonl: T-REx is reported per type, so a type outside these would
# count in the Total and in no row of its own.
RELATION_TYPES = ("1-1", "N-1", "N-M")

SCHEMA = pa.schema(
    [
        pa.field("row_id", pa.string()),
        pa.field("corpus", pa.string()),
        pa.field("relation", pa.string()),
        pa.field("relation_label", pa.string()),
        pa.field("relation_type", pa.string()),
        pa.field("template", pa.string()),
        pa.field("sub_label", pa.string()),
        pa.field("obj_label", pa.string()),
        pa.field("sub_uri", pa.string()),
        pa.field("obj_uri", pa.string()),
        pa.field("uuid", pa.string()),
        pa.field("query", pa.string()),
        pa.field("masked_sentences", pa.list_(pa.string())),
        # Aliases and every valid object of (subject, relation), where the source has them
        # (Google-RE aliases; Wikidata for wikidata_fresh); null otherwise.
        pa.field("sub_aliases", pa.list_(pa.string())),
        pa.field("obj_aliases", pa.list_(pa.string())),
        pa.field("valid_objects", pa.list_(pa.string())),
        # Source sentences that state the fact, object masked (trex_raw, conceptnet_gen); null otherwise.
        pa.field("evidences", pa.list_(pa.string())),
        pa.field("n_words", pa.int32()),
        pa.field("judgments_yes", pa.int32()),
        pa.field("judgments_no", pa.int32()),
        pa.field("judgment_rejected", pa.bool_()),
        pa.field("too_long", pa.bool_()),
        pa.field("in_common_vocab", pa.bool_()),
        pa.field("duplicate", pa.bool_()),
        pa.field("source_file", pa.string()),
        pa.field("source_line", pa.int32()),
    ]
)


class ReleaseError(ValueError):
    """A malformed release file; the message names the file and line."""


def read_jsonl(path: Path) -> Iterator[tuple[int, dict]]:
    for lineno, line in utf8_lines(path, ReleaseError):
        if line.strip():
            yield lineno, parse_json_object(line, f"{path}:{lineno}", ReleaseError)


def _field(path: Path, lineno: int, record: dict, key: str, kind: type = str):
    """A required field of type ``kind`` (a list means a list of strings)."""
    if key not in record:
        raise ReleaseError(f"{path}:{lineno}: missing field {key!r}")
    return _typed(path, lineno, key, record[key], kind)


def _optional(path: Path, lineno: int, record: dict, *keys: str, kind: type = str):
    """The first of ``keys`` present and not null, of type ``kind``; None if there is none."""
    for key in keys:
        if record.get(key) is not None:
            return _typed(path, lineno, key, record[key], kind)
    return None


def _typed(path: Path, lineno: int, key: str, value, kind: type):
    wrong = not isinstance(value, kind) or (kind is list and not all(isinstance(item, str) for item in value))
    if wrong:
        expected = "list of strings" if kind is list else kind.__name__
        raise ReleaseError(f"{path}:{lineno}: field {key!r} should be a {expected}, got {value!r:.80}")
    return value


def _judgments(path: Path, lineno: int, record: dict) -> list[dict]:
    if "judgments" not in record:
        raise ReleaseError(f"{path}:{lineno}: missing field 'judgments'")
    judgments = record["judgments"]
    if not isinstance(judgments, list) or not all(isinstance(j, dict) for j in judgments):
        raise ReleaseError(f"{path}:{lineno}: field 'judgments' should be a list of objects, got {judgments!r:.80}")
    return judgments


def load_relations(path: Path) -> dict[str, dict]:
    relations = {}
    for lineno, record in read_jsonl(path):
        template = _field(path, lineno, record, "template")
        if "[X]" not in template or "[Y]" not in template:
            raise ReleaseError(f"{path}:{lineno}: template {template!r} lacks [X] or [Y]")
        _optional(path, lineno, record, "label")
        relation = _field(path, lineno, record, "relation")
        if not RELATION_ID.fullmatch(relation):
            raise ReleaseError(f"{path}:{lineno}: relation {relation!r} is not a Wikidata property id (P<digits>)")
        kind = _optional(path, lineno, record, "type")
        if kind is not None and kind not in RELATION_TYPES:
            raise ReleaseError(f"{path}:{lineno}: relation {relation} has type {kind!r}, not one of "
                               f"{', '.join(RELATION_TYPES)}")
        if relation in relations:
            raise ReleaseError(f"{path}:{lineno}: relation {relation} is listed twice")
        relations[relation] = record
    if not relations:
        raise ReleaseError(f"{path}: no relations")
    return relations


def load_common_vocab(path: Path) -> set[str]:
    vocab = {line.strip() for _, line in utf8_lines(path, ReleaseError) if line.strip()}
    if not vocab:
        raise ReleaseError(f"{path}: empty common vocabulary")
    return vocab


def fill_template(template: str, subject: str) -> str:
    """LAMA's query: the subject for [X], the mask for [Y]; spacing kept (``[Y] .``).

    Template and subject are stripped first, as the released ``parse_template`` call does.
    """
    return template.strip().replace("[X]", subject.strip()).replace("[Y]", MASK)


def valid_objects(facts: pd.DataFrame) -> dict[tuple[str, str], set[str]]:
    """Every valid object label of each (relation, subject): the dataset's own facts plus the
    source's ``valid_objects`` list where the dataset has one (Wikidata, raw T-REx). SQuAD's
    subject is a placeholder ("Squad"): its facts share no subject, so none is another's valid object."""
    valid: dict[tuple[str, str], set[str]] = {}
    listed = facts["valid_objects"] if "valid_objects" in facts else [None] * len(facts)
    corpora = facts["corpus"] if "corpus" in facts else [None] * len(facts)
    for corpus, relation, subject, obj, more in zip(corpora, facts["relation"], facts["sub_label"], facts["obj_label"],
                                                    listed):
        if corpus in SUBJECTLESS_CORPORA:
            continue
        labels = valid.setdefault((relation, subject), set())
        labels.add(obj)
        if more is not None:
            labels.update(more)
    return valid


def make_row(corpus, relation, path, lineno, *, sub_label, obj_label, masked_sentences, template=None,
         relation_label=None, relation_type=None, sub_uri=None, obj_uri=None, uuid=None, judgments=None,
         sub_aliases=None, obj_aliases=None, valid_objects=None, evidences=None) -> dict:
    # The released filter counts every answer that is not "yes" (the release has "skip") as "no".
    yes = sum(1 for j in judgments or [] if j.get("judgment") == "yes")
    no = len(judgments or []) - yes
    return {
        "row_id": f"{corpus}:{relation}:{lineno}",
        "corpus": corpus,
        "relation": relation,
        "relation_label": relation_label,
        "relation_type": relation_type,
        "template": template,
        "sub_label": sub_label,
        "obj_label": obj_label,
        "sub_uri": sub_uri,
        "obj_uri": obj_uri,
        "uuid": uuid,
        "query": masked_sentences[0],
        "masked_sentences": masked_sentences,
        "sub_aliases": sub_aliases,
        "obj_aliases": obj_aliases,
        "valid_objects": valid_objects,
        "evidences": evidences,
        "n_words": word_count(masked_sentences),
        "judgments_yes": yes if judgments is not None else None,
        "judgments_no": no if judgments is not None else None,
        "judgment_rejected": judgments is not None and no > yes,
        "source_file": path.name,
        "source_line": lineno,
    }


def word_count(masked_sentences: list[str]) -> int:
    """The words of a fact's masked sentences, as the released code counts them for the length
    filter: all its sentences joined, then split at whitespace."""
    return len(" ".join(masked_sentences).split())


def trex_rows(release: Path, relations: dict[str, dict]) -> Iterator[dict]:
    folder = release / "TREx"
    missing = [f"{r}.jsonl" for r in relations if r not in RELATIONS_WITHOUT_TREX and not (folder / f"{r}.jsonl").exists()]
    if missing:
        raise ReleaseError(f"{folder}: missing from the LAMA release, though relations.jsonl lists them: "
                           f"{', '.join(missing)}")
    for relation, meta in sorted(relations.items(), key=lambda kv: int(kv[0][1:]) if kv[0][1:].isdigit() else 0):
        path = folder / f"{relation}.jsonl"
        if not path.exists():
            continue  # one of RELATIONS_WITHOUT_TREX
        for lineno, record in read_jsonl(path):
            sub = _field(path, lineno, record, "sub_label")
            yield make_row(
                "trex", relation, path, lineno,
                sub_label=sub,
                obj_label=_field(path, lineno, record, "obj_label"),
                masked_sentences=[fill_template(meta["template"], sub)],
                template=meta["template"],
                relation_label=meta.get("label"),
                relation_type=meta.get("type"),
                sub_uri=_optional(path, lineno, record, "sub_uri"),
                obj_uri=_optional(path, lineno, record, "obj_uri"),
                uuid=_optional(path, lineno, record, "uuid"),
            )


def google_re_rows(release: Path) -> Iterator[dict]:
    for relation, template in GOOGLE_RE_TEMPLATES.items():
        path = release / "Google_RE" / f"{relation}_test.jsonl"
        if not path.exists():
            raise ReleaseError(f"{path}: missing from the LAMA release")
        for lineno, record in read_jsonl(path):
            sub = _field(path, lineno, record, "sub_label")
            yield make_row(
                "google_re", relation, path, lineno,
                sub_label=sub,
                obj_label=_field(path, lineno, record, "obj_label"),
                masked_sentences=[fill_template(template, sub)],
                template=template,
                relation_label=relation.replace("_", " "),
                sub_uri=_optional(path, lineno, record, "sub"),
                obj_uri=_optional(path, lineno, record, "obj"),
                uuid=_optional(path, lineno, record, "uuid"),
                judgments=_judgments(path, lineno, record),
                sub_aliases=list(_optional(path, lineno, record, "sub_aliases", kind=list) or []),
                obj_aliases=list(_optional(path, lineno, record, "obj_aliases", kind=list) or []),
            )


def _sentence_rows(corpus: str, path: Path) -> Iterator[dict]:
    several = 0
    for lineno, record in read_jsonl(path):
        sentences = _field(path, lineno, record, "masked_sentences", kind=list)
        if not sentences or not all(MASK in s for s in sentences):
            raise ReleaseError(f"{path}:{lineno}: every masked sentence must contain {MASK}")
        several += len(sentences) > 1
        relation = _field(path, lineno, record, "pred") if corpus == "conceptnet" else "squad"
        yield make_row(
            corpus, relation, path, lineno,
            sub_label=_optional(path, lineno, record, "sub_label", "sub"),
            obj_label=_field(path, lineno, record, "obj_label"),
            masked_sentences=list(sentences),
            uuid=_optional(path, lineno, record, "uuid", "id"),
        )
    if several:
        log.warning("%s: %d lines have more than one masked sentence; each is queried through its first "
                    "(the released connectors read them together: BERT's as segments A and B, RoBERTa's "
                    "concatenated, the left-to-right ones joined by EOS)", path, several)


def with_valid_objects(df: pd.DataFrame, objects: pd.DataFrame) -> pd.DataFrame:
    """Facts with every object ``objects`` (``trex_raw.OBJECTS_SCHEMA``: raw T-REx) gives their
    (relation, subject) in ``valid_objects``, for the filtered rank.

    An object is named by the release's own label where it is an object of the release (the
    Wikidata label LAMA used), else by its raw T-REx label (its most frequent surface form).
    """
    objects = objects[objects["sub_uri"].isin(df["sub_uri"])]  # raw T-REx's millions, the release's subjects
    release_label = df.drop_duplicates("obj_uri").set_index("obj_uri")["obj_label"]
    labels = objects["obj_uri"].map(release_label).fillna(objects["obj_label"])
    valid: dict[tuple[str, str], set[str]] = {}
    for relation, subject, label in zip(objects["relation"], objects["sub_uri"], labels):
        valid.setdefault((relation, subject), set()).add(label)
    return df.assign(valid_objects=[sorted(valid.get((relation, subject), ()))
                                    for relation, subject in zip(df["relation"], df["sub_uri"])])


def mark_filters(df: pd.DataFrame, common_vocab: set[str]) -> pd.DataFrame:
    """Common-vocab and length flags, then the dedupe among facts that pass the filters.

    The dedupe key is (corpus, relation, template, subject, object): every template-queried corpus
    but ``PARAPHRASE_CORPUS`` has one template per relation, so the template changes nothing there,
    and there each template keeps the same facts that LAMA's (subject, object) dedupe keeps.
    """
    df = df.assign(
        in_common_vocab=df["obj_label"].isin(common_vocab),
        too_long=df["n_words"] > MAX_WORDS,
    )
    passes = df["in_common_vocab"] & ~df["too_long"] & ~df["judgment_rejected"]
    dedupe = df["corpus"].isin(TEMPLATE_CORPORA) & passes
    first = ~df[dedupe].duplicated(["corpus", "relation", "template", "sub_label", "obj_label"], keep="first")
    df["duplicate"] = False
    df.loc[first.index[~first], "duplicate"] = True
    return df


def lowercased(df: pd.DataFrame, common_vocab: set[str]) -> pd.DataFrame:
    """The facts as the released code's ``lowercase`` mode sees them, with ``common_vocab`` the
    lowercased common vocabulary (``common_vocab_lowercased.txt``).

    ``lowercase_samples``: labels lowercased, masked sentences lowercased with the mask restored;
    template corpora are queried through the template (not lowercased) with the lowercased subject.
    The filters are then decided again on the lowercased facts, the dedupe included.
    """
    lower = df.assign(sub_label=df["sub_label"].str.lower(), obj_label=df["obj_label"].str.lower())
    if "valid_objects" in df:
        lower["valid_objects"] = [None if v is None else [o.lower() for o in v] for v in df["valid_objects"]]
    templates = df["template"] if "template" in df else [None] * len(df)
    lower["query"] = [
        fill_template(template, subject) if isinstance(template, str) else query.lower().replace(MASK.lower(), MASK)
        for template, subject, query in zip(templates, lower["sub_label"], df["query"])
    ]
    return mark_filters(lower, common_vocab)


def build_corpus(corpus: str, release: Path, relations_path: Path, common_vocab_path: Path) -> pd.DataFrame:
    """One row per line of the corpus' release files, in release order."""
    release = Path(release)
    if corpus == "trex":
        rows = trex_rows(release, load_relations(relations_path))
    elif corpus == "google_re":
        rows = google_re_rows(release)
    elif corpus in SENTENCE_FILES:
        rows = _sentence_rows(corpus, release / SENTENCE_FILES[corpus])
    else:
        raise ValueError(f"unknown LAMA corpus {corpus!r}; choose one of {CORPORA}")
    return facts_frame(rows, load_common_vocab(common_vocab_path), f"{_source(corpus, release, relations_path)}: "
                       f"no {corpus} facts found")


def _source(corpus: str, release: Path, relations_path: Path) -> Path:
    """What a corpus' facts are read through: its file, its folder, or (T-REx) the relations listed."""
    if corpus == "trex":
        return Path(relations_path)
    if corpus == "google_re":
        return release / "Google_RE"
    return release / SENTENCE_FILES[corpus]


FILTER_COLUMNS = ("in_common_vocab", "too_long", "duplicate")


def facts_frame(rows: Iterable[dict], common_vocab: set[str], empty_message: str,
                schema: pa.Schema = SCHEMA) -> pd.DataFrame:
    """Rows built by ``make_row`` (any corpus, released or generated) -> the dataset in ``schema``
    order (SCHEMA, or one that extends it), with the model-independent filter flags."""
    columns = [name for name in schema.names if name not in FILTER_COLUMNS]
    df = pd.DataFrame.from_records(list(rows), columns=columns)
    if df.empty:
        raise ReleaseError(empty_message)
    return mark_filters(df, common_vocab)[schema.names]


def filter_counts(df: pd.DataFrame) -> dict[str, int]:
    """Facts each model-independent filter removes, attributed in the released code's order:
    sentence length, then common vocabulary, then Google-RE judgments, then the dedupe."""
    long = df["too_long"]
    outside = ~long & ~df["in_common_vocab"]
    rejected = ~long & df["in_common_vocab"] & df["judgment_rejected"]
    return {
        "lines": len(df),
        "too_long": int(long.sum()),
        "not_in_common_vocab": int(outside.sum()),
        "judgment_rejected": int(rejected.sum()),
        "duplicate": int(df["duplicate"].sum()),
    }
