"""Ettinger (2020) diagnostics: the released TSVs -> one Parquet row per probe item.

Items are model-independent: a row holds the left context of the target position and the
target word; the scorer adds ``[MASK] .`` (masked LMs) or scores the next token (causal LMs).
Perturbations follow the paper: CPRAG Shuf / Trunc / Shuf+Trunc (Table 4), ROLE -Obj / -Sub /
-Both (Table 7), built with the regular expressions of the released code.

A TSV is decoded line by line, and each row remembers its line, so that every malformed input
(bytes that are not UTF-8, a row of the wrong width, a bad value) is reported with its file and
line. Item ids are keys: an id given twice is refused, as is a column name given twice in the
header (a row would silently keep only the last of the two values). An id is a number written
without a leading zero, as the released files write them (``1`` and ``01`` would be two items of
one number). A context needs a word (a letter or digit): an empty one would be scored as no context.
"""

from __future__ import annotations

import csv
import math
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa

from lmprobes.io import has_letter_or_digit, utf8_lines

CPRAG_COMPLETIONS = ("expected", "within_category", "between_category")
CPRAG_CONDITIONS = ("orig", "shuf", "trunc", "shuf_trunc")
ROLE_CONDITIONS = ("orig", "obj", "sub", "both")
NEG_CONDITIONS = ("TA", "FA", "TN", "FN")
# Upper edges of the max-cloze bins of Table 8 (applied to the cloze rounded to 2 decimals).
ROLE_CLOZE_BINS = (0.17, 0.23, 0.33, 0.77)
ROLE_CLOZES = ("exp_cloze", "tgt_cloze", "tgt_cloze(strict)")
# Item numbers are sorted as integers; nine digits keep them far inside int64. Canonical ("0", "7",
# never "07"), so that two ids of one number cannot both pass the duplicate check.
ITEM_NUMBER = re.compile(r"0|[1-9][0-9]{0,8}")
ROLE_ITEM = re.compile(rf"({ITEM_NUMBER.pattern})-([ab])")
# NEG-136-SIMP's article slot, filled with "a" or "an" to agree with each target.
ARTICLE_SLOT = "(a|an)"

_COMMON = [
    pa.field("row_id", pa.string()),
    pa.field("item", pa.string()),
    pa.field("condition", pa.string()),
    pa.field("context", pa.string()),
    pa.field("target", pa.string()),
]
CPRAG_SCHEMA = pa.schema(
    _COMMON
    + [
        pa.field("run", pa.int32()),
        pa.field("completion", pa.string()),
        pa.field("expected", pa.list_(pa.string())),
        pa.field("constraint", pa.string()),
    ]
)
ROLE_SCHEMA = pa.schema(
    _COMMON
    + [
        pa.field("pair", pa.string()),
        pa.field("role", pa.string()),
        pa.field("expected", pa.list_(pa.string())),
        pa.field("exp_cloze", pa.float64()),
        pa.field("tgt_cloze", pa.float64()),
        pa.field("tgt_cloze_strict", pa.float64()),
        pa.field("cloze_bin", pa.string()),
    ]
)
NEG_SIMP_SCHEMA = pa.schema(
    _COMMON
    + [
        pa.field("polarity", pa.string()),
        pa.field("truth", pa.bool_()),
        pa.field("expected", pa.list_(pa.string())),
    ]
)
NEG_NAT_SCHEMA = NEG_SIMP_SCHEMA.append(pa.field("licensing", pa.string()))


class DatasetError(ValueError):
    """A malformed source file; the message names the file, and the line where there is one."""


class Row(dict):
    """One TSV row, column name -> field, that knows its line in the file."""

    line: int = 0


def read_tsv(path: Path, dataset: str) -> list[Row]:
    """Rows of a released TSV, after checking the header, every row's width and the item ids."""
    path = Path(path)
    reader = csv.reader((line for _, line in utf8_lines(path, DatasetError)), delimiter="\t", quoting=csv.QUOTE_NONE)
    try:
        rows = list(_checked_rows(path, dataset, reader))
    except csv.Error as err:
        raise DatasetError(f"{path}:{reader.line_num}: not a TSV line ({err})") from None
    if not rows:
        raise DatasetError(f"{path}: no data rows")
    return rows


def _checked_rows(path: Path, dataset: str, reader) -> Iterator[Row]:
    header = next(reader, None)
    if header is None:
        raise DatasetError(f"{path}: empty file, expected a header with columns {REGISTRY[dataset].columns}")
    missing = [c for c in REGISTRY[dataset].columns if c not in header]
    if missing:
        raise DatasetError(f"{path}:1: missing column(s) {missing}; header is {header}")
    repeated = sorted({c for c in header if header.count(c) > 1})
    if repeated:
        raise DatasetError(f"{path}:1: column(s) {repeated} appear twice in the header")
    first_line: dict[str, int] = {}
    for fields in reader:
        if not any(field.strip() for field in fields):
            continue
        if len(fields) != len(header):
            raise DatasetError(f"{path}:{reader.line_num}: {len(fields)} fields, header has {len(header)}")
        row = Row(zip(header, fields))
        row.line = reader.line_num
        item = row["item"] = row["item"].strip()  # the id as the key and in row_id, spaces aside
        if item in first_line:
            raise DatasetError(f"{path}:{row.line}: item {item!r} already given on line {first_line[item]}")
        first_line[item] = row.line
        yield row


def _require(condition: bool, path: Path, row: Row, message: str) -> None:
    if not condition:
        raise DatasetError(f"{path}:{row.line}: item {row.get('item', '?')!r}: {message}")


def _require_item_number(path: Path, row: Row) -> None:
    _require(ITEM_NUMBER.fullmatch(row["item"].strip()) is not None, path, row,
             "item must be a number (1-9 digits, no leading zero)")


def _require_words(path: Path, row: Row, columns: tuple[str, ...], ignore: str = "") -> None:
    """Each column holds a letter or digit (once ``ignore`` is taken out)."""
    for column in columns:
        text = row[column].replace(ignore, "") if ignore else row[column]
        _require(has_letter_or_digit(text), path, row,
                 f"{column} has no word (no letter or digit), got {row[column]!r}")


# --- CPRAG-102 ---------------------------------------------------------------------------


def shuffle_words(sentence: str, rng: random.Random) -> str:
    """The sentence's words shuffled, its periods removed first and one put back at the end.

    As the released code (``process_fk``: ``re.sub('\\.', '', sent1).split()``, shuffled, then
    ``'. '`` before sentence 2), so the shuffled sentence still ends where sentence 2 begins.
    """
    words = sentence.replace(".", "").split()
    rng.shuffle(words)
    return " ".join(words) + "."


def truncate_to_last_words(sentence: str, n: int = 2) -> str:
    return " ".join(sentence.split()[-n:])


def shuffle_rng(seed: int, item: str, run: int) -> random.Random:
    """One independent, reproducible stream per (item, run)."""
    return random.Random(f"ettinger-cprag:{seed}:{item}:{run}")


def cprag_contexts(row: dict, shuffles: int, seed: int):
    """(condition, run, context) for one CPRAG row: Orig, Trunc, and each seeded Shuf run."""
    s1, s2 = row["context_s1"].strip(), row["context_s2"].strip()
    yield "orig", 0, f"{s1} {s2}"
    yield "trunc", 0, f"{s1} {truncate_to_last_words(s2)}"
    for run in range(shuffles):
        shuffled = shuffle_words(s1, shuffle_rng(seed, row["item"], run))
        yield "shuf", run, f"{shuffled} {s2}"
        yield "shuf_trunc", run, f"{shuffled} {truncate_to_last_words(s2)}"


def build_cprag(path: Path, shuffles: int, seed: int) -> pd.DataFrame:
    records = []
    for row in read_tsv(path, "cprag"):
        _require_item_number(path, row)
        _require_words(path, row, ("context_s1", "context_s2"))
        _require(row["constraint"] in ("H", "L"), path, row, f"constraint must be H or L, got {row['constraint']!r}")
        for col in CPRAG_COMPLETIONS:
            _require(bool(row[col].strip()), path, row, f"empty {col}")
        for condition, run, context in cprag_contexts(row, shuffles, seed):
            for completion in CPRAG_COMPLETIONS:
                records.append(
                    {
                        "row_id": f"{row['item']}:{condition}:{run}:{completion}",
                        "item": row["item"],
                        "condition": condition,
                        "run": run,
                        "context": context,
                        "completion": completion,
                        "target": row[completion].strip(),
                        "expected": [row["expected"].strip()],
                        "constraint": row["constraint"],
                    }
                )
    return _sorted(pd.DataFrame.from_records(records), ["condition", "run", "item", "completion"], CPRAG_CONDITIONS)


# --- ROLE-88 -----------------------------------------------------------------------------


def generic_object(context: str) -> str:
    return re.sub(r"which .* the", "which one the", context)


def generic_subject(context: str) -> str:
    return re.sub(r"which (.*) the .* had", r"which \g<1> the other had", context)


ROLE_PERTURBATIONS = {
    "orig": lambda c: c,
    "obj": generic_object,
    "sub": generic_subject,
    "both": lambda c: generic_subject(generic_object(c)),
}


def cloze_bin(max_cloze: float) -> str:
    rounded = round(max_cloze, 2)
    for edge in ROLE_CLOZE_BINS:
        if rounded <= edge:
            return f"<={edge:.2f}"
    return f">{ROLE_CLOZE_BINS[-1]:.2f}"


def _role_clozes(path: Path, row: Row) -> list[float]:
    """The row's cloze values, each a probability: a percentage (35.0) would silently empty Table 8's bins."""
    try:
        clozes = [float(row[c]) for c in ROLE_CLOZES]
    except ValueError as err:
        raise DatasetError(f"{path}:{row.line}: item {row['item']!r}: cloze value is not a number ({err})") from None
    _require(all(math.isfinite(c) for c in clozes), path, row, f"cloze values must be finite, got {clozes}")
    for column, cloze in zip(ROLE_CLOZES, clozes):
        _require(0 <= cloze <= 1, path, row, f"{column} must be a probability from 0 to 1, got {cloze}")
    return clozes


def _parse_role_row(path: Path, row: Row) -> dict:
    match = ROLE_ITEM.fullmatch(row["item"].strip())
    _require(match is not None, path, row, "item must look like '61-a' or '61-b' (a pair number without a leading zero)")
    _require_words(path, row, ("context",))
    clozes = _role_clozes(path, row)
    _require(bool(row["target"].split()), path, row, "empty target")
    expected = [alt.split()[0] for alt in row["expected"].split("|") if alt.split()]
    _require(bool(expected), path, row, f"empty expected (no non-empty alternative in {row['expected']!r})")
    return {
        "item": row["item"].strip(),
        "pair": match.group(1),
        "role": match.group(2),
        "context": " ".join(row["context"].split()),
        # Released code: the target is the first word; a multiword alternative counts by its first word.
        "target": row["target"].split()[0],
        "expected": expected,
        "exp_cloze": clozes[0],
        "tgt_cloze": clozes[1],
        "tgt_cloze_strict": clozes[2],
    }


def _check_one_target_per_pair(path: Path, rows: list, parsed: list[dict]) -> None:
    """ROLE compares one target verb in a pair's two contexts: a pair whose sentences name different
    targets would be compared as if they did not."""
    first: dict[str, str] = {}
    for row, p in zip(rows, parsed):
        target = first.setdefault(p["pair"], p["target"])
        if p["target"] != target:
            raise DatasetError(f"{path}:{row.line}: pair {p['pair']}'s sentences name different targets "
                               f"({target!r} and {p['target']!r}); ROLE scores one target in both contexts")


def build_role(path: Path) -> pd.DataFrame:
    rows = read_tsv(path, "role")
    parsed = [_parse_role_row(path, row) for row in rows]
    roles_by_pair: dict[str, set] = {}
    for p in parsed:
        roles_by_pair.setdefault(p["pair"], set()).add(p["role"])
    incomplete = sorted(pair for pair, roles in roles_by_pair.items() if roles != {"a", "b"})
    if incomplete:
        line = next(row.line for row, p in zip(rows, parsed) if p["pair"] == incomplete[0])
        raise DatasetError(f"{path}:{line}: pairs without both an a and a b sentence: {incomplete}")
    _check_one_target_per_pair(path, rows, parsed)
    records = []
    for p in parsed:
        for condition, perturb in ROLE_PERTURBATIONS.items():
            records.append(
                {
                    **p,
                    "row_id": f"{p['item']}:{condition}",
                    "condition": condition,
                    "context": perturb(p["context"]),
                    "cloze_bin": cloze_bin(p["exp_cloze"]),
                }
            )
    df = pd.DataFrame.from_records(records)
    df["pair_num"] = df["pair"].astype(int)
    df = _sorted(df, ["condition", "pair_num", "role"], ROLE_CONDITIONS)
    return df.drop(columns="pair_num")


# --- NEG-136 -----------------------------------------------------------------------------


def indefinite_article(word: str) -> str:
    """The released code's rule: 'an' before a vowel letter."""
    return "an" if re.match("[aeiou]", word) else "a"


def neg_conditions(row: dict):
    """(condition, polarity, truth, context, target, true target of that context)."""
    aff, neg = row["context_aff"].strip(), row["context_neg"].strip()
    t_aff, t_neg = row["target_aff"].strip(), row["target_neg"].strip()
    yield "TA", "aff", True, aff, t_aff, t_aff
    yield "FA", "aff", False, aff, t_neg, t_aff
    yield "TN", "neg", True, neg, t_neg, t_neg
    yield "FN", "neg", False, neg, t_aff, t_neg


def _require_simp_article(path: Path, row: Row) -> None:
    for col in ("context_aff", "context_neg"):
        context = row[col].rstrip()
        _require(
            context.endswith(ARTICLE_SLOT) and context.count(ARTICLE_SLOT) == 1,
            path, row, f"SIMP {col} must end with '{ARTICLE_SLOT}' and hold it once, got {row[col]!r}",
        )


def build_neg(path: Path, dataset: str) -> pd.DataFrame:
    records = []
    for row in read_tsv(path, dataset):
        _require_item_number(path, row)
        _require_words(path, row, ("context_aff", "context_neg"), ignore=ARTICLE_SLOT)
        for col in ("target_aff", "target_neg"):
            _require(bool(row[col].strip()), path, row, f"empty {col}")
        if dataset == "neg_nat":
            _require(row["licensing"].strip() in ("Y", "N"), path, row, "licensing must be Y or N")
        if dataset == "neg_simp":
            _require_simp_article(path, row)
        for condition, polarity, truth, context, target, true_target in neg_conditions(row):
            if dataset == "neg_simp":
                context = context.replace(ARTICLE_SLOT, indefinite_article(target))
            record = {
                "row_id": f"{row['item']}:{condition}",
                "item": row["item"],
                "condition": condition,
                "polarity": polarity,
                "truth": truth,
                "context": " ".join(context.split()),
                "target": target,
                "expected": [true_target],
            }
            if dataset == "neg_nat":
                record["licensing"] = row["licensing"].strip()
            records.append(record)
    df = pd.DataFrame.from_records(records)
    df["item_num"] = df["item"].astype(int)
    return _sorted(df, ["item_num", "condition"], None, NEG_CONDITIONS).drop(columns="item_num")


# --- shared ------------------------------------------------------------------------------


def _sorted(df: pd.DataFrame, keys: list[str], first_order=None, second_order=None) -> pd.DataFrame:
    """Deterministic row order, with categorical columns in their documented order."""
    df = df.copy()
    if first_order is not None:
        df[keys[0]] = pd.Categorical(df[keys[0]], categories=list(first_order), ordered=True)
    if second_order is not None:
        df[keys[1]] = pd.Categorical(df[keys[1]], categories=list(second_order), ordered=True)
    if "item" in keys:
        df["_item_num"] = df["item"].astype(int)
        keys = ["_item_num" if k == "item" else k for k in keys]
    df = df.sort_values(keys, kind="stable").reset_index(drop=True)
    for col in df.columns:
        if isinstance(df[col].dtype, pd.CategoricalDtype):
            df[col] = df[col].astype(str)
    return df.drop(columns=[c for c in ("_item_num",) if c in df.columns])


@dataclass(frozen=True)
class EttingerDataset:
    """A released TSV: the columns its header must hold, the Parquet schema of its rows, and the
    builder of those rows, called as ``build(path, shuffles, seed)``."""

    columns: tuple[str, ...]
    schema: pa.Schema
    build: Callable[[Path, int, int], pd.DataFrame]


# The one place a dataset is declared: its name is also its output file and its key under
# ``suites.ettinger.sources`` in the config.
REGISTRY: dict[str, EttingerDataset] = {
    "cprag": EttingerDataset(
        ("item", "context_s1", "context_s2", "expected", "within_category", "between_category", "constraint"),
        CPRAG_SCHEMA, build_cprag,
    ),
    "role": EttingerDataset(
        ("item", "context", "expected", "exp_cloze", "target", "tgt_cloze", "tgt_cloze(strict)"),
        ROLE_SCHEMA, lambda path, shuffles, seed: build_role(path),
    ),
    "neg_simp": EttingerDataset(
        ("item", "context_aff", "context_neg", "target_aff", "target_neg"),
        NEG_SIMP_SCHEMA, lambda path, shuffles, seed: build_neg(path, "neg_simp"),
    ),
    "neg_nat": EttingerDataset(
        ("item", "context_aff", "context_neg", "target_aff", "target_neg", "licensing"),
        NEG_NAT_SCHEMA, lambda path, shuffles, seed: build_neg(path, "neg_nat"),
    ),
}
DATASETS = tuple(REGISTRY)


def build_dataset(dataset: str, path: Path, *, shuffles: int = 100, seed: int = 1234) -> pd.DataFrame:
    if dataset not in REGISTRY:
        raise ValueError(f"unknown Ettinger dataset {dataset!r}; choose one of {DATASETS}")
    return REGISTRY[dataset].build(path, shuffles, seed)
