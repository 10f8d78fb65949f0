"""The oLMpics release (``<stem>_{train,dev}.jsonl[.gz]``) -> SCHEMA rows, one per line, in file order.

A record is ``{"answerKey": "A", "id": ..., "question": {"stem": ..., "choices": [{"label", "text"}]}}``.
``answerKey`` becomes the index of its label among the choices (the original readers do the same).
Ids are not unique, so rows are keyed by (task, split, row number); the id is kept as a column and
the file name and line go into ``provenance``. Stems are kept exactly as released (some end with a
space; scoring strips it). Age and multi-hop stems that match their generator's template also get
the template id and its arguments, so the release can be drawn on the same age grids as generated
items.

Lines are decoded one by one and parsed strictly (``lmprobes.io``: a key given twice in one
record, or NaN, is an error), so bytes that are not UTF-8 and a gzip file cut short are reported
with their line, like any malformed record. A file without a single record is an error too (a
failed or truncated download), not an empty task. A choice text needs a letter or digit (an empty
one fails in scoring, a blank one is scored as if it were a word), and the choices of one item
differ (the same text twice would be a tie under every method); no released item breaks either.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pandas as pd

from lmprobes.io import has_letter_or_digit, parse_json_object, utf8_lines
from lmprobes.suites.olmpics.schema import MASK, SCHEMA, SPLITS, TASKS, make_item

FLAVOUR = "release"
VARIANT = "standard"

# The release's own phrasings of the two deterministic tasks (see age.py for the generators).
RELEASE_TEMPLATES = {
    "age_comparison": (
        "age",
        re.compile(r"A (?P<a>\d+) year old person age is \[MASK\] than a (?P<b>\d+) year old person \."),
    ),
    "multihop_composition": (
        "multihop",
        re.compile(
            r"When comparing a (?P<a>\d+) year old, a (?P<b>\d+) year old and a (?P<c>\d+) year old, "
            r"the \[MASK\] is oldest ?"
        ),
    ),
}


class ReleaseError(ValueError):
    """A malformed release file or record; the message names the file and line."""


def release_file_name(task: str, split: str, *, gz: bool = True) -> str:
    """``<stem>_<split>.jsonl.gz`` as published (``gz=False``: the uncompressed copy)."""
    _check_task_split(task, split)
    return f"{TASKS[task].release_stem}_{split}.jsonl" + (".gz" if gz else "")


def read_release(path: str | Path, task: str, split: str) -> list[dict]:
    """SCHEMA rows of one release file (plain or gzip JSON lines), numbered from 1 in file order."""
    _check_task_split(task, split)
    path = Path(path)
    rows = []
    for lineno, record in _records(path):
        rows.append(_item(path, lineno, record, task, split, row=len(rows) + 1))
    if not rows:
        raise ReleaseError(f"{path}: no records")
    return rows


def build_release(files: Mapping[tuple[str, str], str | Path]) -> pd.DataFrame:
    """All given release files as one frame in SCHEMA order: tasks in TASKS order, train before dev."""
    for task, split in files:
        _check_task_split(task, split)
    order = [(task, split) for task in TASKS for split in SPLITS if (task, split) in files]
    rows = [row for key in order for row in read_release(files[key], *key)]
    frame = pd.DataFrame.from_records(rows, columns=SCHEMA.names)
    return frame.astype({"row": "int32", "answer": "int32", "seed": "Int64"})


def _check_task_split(task: str, split: str) -> None:
    if task not in TASKS:
        raise ReleaseError(f"unknown oLMpics task {task!r}; choose one of {list(TASKS)}")
    if split not in SPLITS:
        raise ReleaseError(f"unknown split {split!r}; choose one of {list(SPLITS)}")


def _records(path: Path) -> Iterator[tuple[int, dict]]:
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        for lineno, line in utf8_lines(path, ReleaseError, opener):
            if line.strip():
                yield lineno, parse_json_object(line, f"{path}:{lineno}", ReleaseError)
    except OSError as err:  # the file itself (missing, unreadable); bad content is a ReleaseError already
        raise ReleaseError(f"{path}: cannot read ({err})") from None


def _item(path: Path, lineno: int, record: dict, task: str, split: str, row: int) -> dict:
    where = f"{path}:{lineno}"
    question = _field(where, record, "question", dict)
    stem = _field(where, question, "stem", str)
    labels, texts = _choices(where, _field(where, question, "choices", list))
    answer_key = _field(where, record, "answerKey", str)
    if answer_key not in labels:
        raise ReleaseError(f"{where}: answerKey {answer_key!r} is not one of the labels {labels}")
    expected = TASKS[task].n_choices
    if len(texts) != expected:
        raise ReleaseError(f"{where}: {len(texts)} choices, but {task} has {expected}")
    if TASKS[task].setup == "mc_mlm" and stem.count(MASK) != 1:
        raise ReleaseError(f"{where}: an MC-MLM stem needs exactly one {MASK}: {stem!r}")
    template_id, arguments = _template(task, stem)
    return make_item(
        task, FLAVOUR, VARIANT, split, row,
        id=str(_field(where, record, "id", str)), stem=stem, choices=texts, answer=labels.index(answer_key),
        template_id=template_id, arguments=arguments,
        provenance={"file": path.name, "line": lineno, "labels": labels},
    )


def _field(where: str, record: dict, key: str, kind: type):
    if key not in record:
        raise ReleaseError(f"{where}: missing field {key!r}")
    value = record[key]
    if not isinstance(value, kind):
        raise ReleaseError(f"{where}: field {key!r} should be a {kind.__name__}, got {type(value).__name__}")
    return value


def _choices(where: str, choices: list) -> tuple[list[str], list[str]]:
    labels, texts = [], []
    for index, choice in enumerate(choices):
        if not isinstance(choice, dict):
            raise ReleaseError(f"{where}: choice {index} is not an object")
        labels.append(_field(where, choice, "label", str))
        texts.append(_field(where, choice, "text", str))
    if len(set(labels)) != len(labels):
        raise ReleaseError(f"{where}: repeated choice labels {labels}")
    _check_choice_texts(where, labels, texts)
    return labels, texts


def _check_choice_texts(where: str, labels: list[str], texts: list[str]) -> None:
    label_of: dict[str, str] = {}
    for label, text in zip(labels, texts, strict=True):
        if not has_letter_or_digit(text):
            raise ReleaseError(f"{where}: choice {label!r} must contain a letter or digit, got {text!r}")
        word = text.strip()
        if word in label_of:
            raise ReleaseError(f"{where}: choices {label_of[word]!r} and {label!r} are both {word!r}; "
                               "every method would score them as a tie")
        label_of[word] = label


def _template(task: str, stem: str) -> tuple[str, dict]:
    if task not in RELEASE_TEMPLATES:
        return "", {}
    template_id, pattern = RELEASE_TEMPLATES[task]
    match = pattern.fullmatch(stem)
    if match is None:
        return "", {}
    return template_id, {name: int(value) for name, value in match.groupdict().items()}


def check_release_manifest(path: Path, rows: Sequence[tuple[int, dict]]) -> None:
    """The rows (with their line numbers) of a release manifest (``pipeline.read_release_manifest``): at
    least one; each a known task, a split of SPLITS, a file name and a 64-character sha256; each (task,
    split) once, since ``build_release`` keys the files by it and would silently keep the last."""
    if not rows:
        raise ReleaseError(f"{path}: no release files listed; expected a header and one row per file")
    first_line: dict[tuple[str, str], int] = {}
    for line, row in rows:
        _check_manifest_row(path, line, row)
        key = (row["task"], row["split"])
        if key in first_line:
            raise ReleaseError(f"{path}:{line}: {key[0]} {key[1]} is already listed on line {first_line[key]}")
        first_line[key] = line


def _check_manifest_row(path: Path, line: int, row: dict) -> None:
    if row.get("task") not in TASKS or len(row.get("sha256") or "") != 64 or not row.get("file"):
        raise ReleaseError(f"{path}:{line}: expected a known task, a split, a file name and a 64-hex sha256, got {row}")
    if row.get("split") not in SPLITS:
        raise ReleaseError(f"{path}:{line}: split {row.get('split')!r} is not one of {list(SPLITS)}")
