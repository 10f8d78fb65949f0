"""BLiMP release files (one JSON record per line, one file per paradigm) -> one row per minimal pair.

Loader quirks of the release (spec/BLIMP.md), handled here:
- ``field`` is spelt ``syntax/semantics`` in principle_A_case_2: normalised to ``syntax_semantics``;
- ``linguistics_term`` has 13 values: ``s-selection`` is folded into ``argument_structure`` in
  ``category`` (the paper's 12 phenomena); the raw term is kept;
- 1,134 ``two_prefix_word`` values carry a leading space: prefix fields are stripped;
- 7 pairs have identical good and bad sentences: flagged in ``identical``;
- the first determiner-with-adjective paradigm is ``..._with_adjective_1``, its siblings
  ``..._with_adj_...``: the UID is taken as written, never derived.

Records are parsed strictly (``lmprobes.io.loads_strict``: a key given twice in one record, or NaN,
is an error) from lines decoded one by one, so every malformed input names its file and line. A
scored text (a sentence, or a prefix-method field whose flag is true) needs a letter or digit: text
such as a zero-width space tokenizes to nothing, and a sentence of no token scores 0.0 and always wins.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pyarrow as pa

from lmprobes.io import has_letter_or_digit, loads_strict, utf8_lines
from lmprobes.suites.blimp.paradigms import FIELD_FIXES, FIELDS, PARADIGM_CATEGORY, TERM_CATEGORY

SENTENCE_KEYS = ("sentence_good", "sentence_bad")
TEXT_KEYS = (*SENTENCE_KEYS, "field", "linguistics_term", "UID", "pairID")
FLAG_KEYS = ("simple_LM_method", "one_prefix_method", "two_prefix_method", "lexically_identical")
ONE_PREFIX_KEYS = ("one_prefix_prefix", "one_prefix_word_good", "one_prefix_word_bad")
TWO_PREFIX_KEYS = ("two_prefix_prefix_good", "two_prefix_prefix_bad", "two_prefix_word")
# Sorted as an integer, so canonical ("0", "7", never "07"): "0" and "000" would be two pairs.
PAIR_ID = re.compile(r"0|[1-9][0-9]{0,8}")
PREFIX_KEYS = {"one_prefix_method": ONE_PREFIX_KEYS, "two_prefix_method": TWO_PREFIX_KEYS}

SCHEMA = pa.schema(
    [
        pa.field("row_id", pa.string()),  # "<paradigm>:<pairID>"
        pa.field("paradigm", pa.string()),
        pa.field("category", pa.string()),
        pa.field("field", pa.string()),
        pa.field("linguistics_term", pa.string()),
        pa.field("pairID", pa.string()),
        pa.field("sentence_good", pa.string()),
        pa.field("sentence_bad", pa.string()),
        pa.field("n_words_good", pa.int32()),
        pa.field("n_words_bad", pa.int32()),
        pa.field("identical", pa.bool_()),
        *(pa.field(key, pa.bool_()) for key in FLAG_KEYS),
        *(pa.field(key, pa.string()) for key in ONE_PREFIX_KEYS + TWO_PREFIX_KEYS),
        pa.field("dependency_length", pa.int32()),
        pa.field("crucial_item", pa.string()),
    ]
)


class BlimpDataError(ValueError):
    """A malformed release file; the message names the file and the line."""


def build_blimp(files: Sequence[Path]) -> pd.DataFrame:
    """One row per minimal pair of the given paradigm files, sorted by paradigm then pair number.

    Columns follow ``SCHEMA``. ``df.attrs["quirks"]`` counts what was repaired or flagged.
    """
    if not files:
        raise BlimpDataError("no BLiMP paradigm files given")
    records = [record for path in files for record in read_paradigm(Path(path))]
    _check_unique_pairs(records)
    records.sort(key=lambda r: (r["paradigm"], int(r["pairID"])))
    df = pd.DataFrame.from_records([{name: r[name] for name in SCHEMA.names} for r in records])
    df = df.astype({"n_words_good": "int32", "n_words_bad": "int32", "dependency_length": "Int32"})
    df.attrs["quirks"] = quirk_counts(records)
    return df


def read_paradigm(path: Path) -> list[dict]:
    """The parsed records of one paradigm file (blank lines skipped); every line has the same UID."""
    records = []
    for lineno, line in utf8_lines(path, BlimpDataError):
        if line.strip():
            records.append(parse_record(load_json(line, path, lineno), path, lineno))
    if not records:
        raise BlimpDataError(f"{path}: no records")
    first = records[0]
    for record in records:
        if record["paradigm"] != first["paradigm"]:
            raise BlimpDataError(
                f"{record['_where']}: UID {record['paradigm']!r} differs from {first['paradigm']!r} "
                f"at {first['_where']}; a file holds one paradigm"
            )
    return records


def parse_record(raw: object, path: Path, lineno: int) -> dict:
    """A validated, normalised row from one JSON record."""
    where = f"{path}:{lineno}"
    if not isinstance(raw, dict):
        raise BlimpDataError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    _check_types(raw, where)
    _check_sentences(raw, where)
    record = {key: raw[key] for key in TEXT_KEYS + FLAG_KEYS}
    for flag, keys in PREFIX_KEYS.items():
        for key in keys:
            record[key] = _prefix_field(raw, key, flag, where)
    record["_leading_space"] = raw.get("two_prefix_word", "").startswith(" ")
    record["_field_fixed"] = raw["field"] in FIELD_FIXES
    record.update(
        _where=where,
        row_id=f"{raw['UID']}:{raw['pairID']}",
        paradigm=raw["UID"],
        category=_category(raw, where),
        field=_field(raw["field"], where),
        n_words_good=len(raw["sentence_good"].split()),
        n_words_bad=len(raw["sentence_bad"].split()),
        identical=raw["sentence_good"] == raw["sentence_bad"],
        dependency_length=raw.get("dependency_length"),
        crucial_item=raw.get("crucial_item"),
    )
    return record


def quirk_counts(records: Sequence[dict]) -> dict[str, int]:
    return {
        "pairs": len(records),
        "field_typo_fixed": sum(r["_field_fixed"] for r in records),
        "two_prefix_word_leading_space_stripped": sum(r["_leading_space"] for r in records),
        "identical_pairs": sum(r["identical"] for r in records),
        "word_count_differs": sum(r["n_words_good"] != r["n_words_bad"] for r in records),
    }


def load_json(line: str, path: Path, lineno: int) -> object:
    try:
        return loads_strict(line)
    except ValueError as err:
        raise BlimpDataError(f"{path}:{lineno}: invalid JSON ({err})") from None


def _check_types(raw: dict, where: str) -> None:
    missing = [key for key in TEXT_KEYS + FLAG_KEYS if key not in raw]
    if missing:
        raise BlimpDataError(f"{where}: missing key(s) {missing}")
    for key in TEXT_KEYS:
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise BlimpDataError(f"{where}: {key} must be a non-empty string, got {raw[key]!r}")
    for key in FLAG_KEYS:
        if not isinstance(raw[key], bool):
            raise BlimpDataError(f"{where}: {key} must be true or false, got {raw[key]!r}")
    if not PAIR_ID.fullmatch(raw["pairID"]):
        raise BlimpDataError(
            f"{where}: pairID must be a number (1-9 digits, no leading zero) written as a string, got {raw['pairID']!r}"
        )
    length = raw.get("dependency_length")
    if length is not None and (isinstance(length, bool) or not isinstance(length, int) or not 0 <= length < 2**31):
        raise BlimpDataError(f"{where}: dependency_length must be an integer from 0 to 2**31 - 1, got {length!r}")
    if raw.get("crucial_item") is not None and not isinstance(raw["crucial_item"], str):
        raise BlimpDataError(f"{where}: crucial_item must be a string, got {raw['crucial_item']!r}")


def _check_sentences(raw: dict, where: str) -> None:
    for key in SENTENCE_KEYS:
        if not has_letter_or_digit(raw[key]):
            raise BlimpDataError(f"{where}: {key} must contain a letter or digit, got {raw[key]!r}")


def _prefix_field(raw: dict, key: str, flag: str, where: str) -> str | None:
    """A prefix-method field, stripped; required (with a letter or digit) when its method flag is true."""
    value = raw.get(key)
    if value is not None and not isinstance(value, str):
        raise BlimpDataError(f"{where}: {key} must be a string, got {value!r}")
    value = value.strip() if value is not None else None
    if raw[flag] and not has_letter_or_digit(value or ""):
        raise BlimpDataError(f"{where}: {flag} is true but {key} is missing or has no letter or digit, got {value!r}")
    return value


def _category(raw: dict, where: str) -> str:
    uid, term = raw["UID"], raw["linguistics_term"]
    if uid not in PARADIGM_CATEGORY:
        raise BlimpDataError(f"{where}: unknown UID {uid!r}; not one of the {len(PARADIGM_CATEGORY)} BLiMP paradigms")
    if term not in TERM_CATEGORY:
        raise BlimpDataError(f"{where}: unknown linguistics_term {term!r}; known: {sorted(TERM_CATEGORY)}")
    category = TERM_CATEGORY[term]
    published = PARADIGM_CATEGORY[uid]
    if published != category:
        raise BlimpDataError(f"{where}: {uid} belongs to category {published}, but linguistics_term says {term!r}")
    return category


def _field(value: str, where: str) -> str:
    value = FIELD_FIXES.get(value, value)
    if value not in FIELDS:
        raise BlimpDataError(f"{where}: unknown field {value!r}; known: {list(FIELDS)}")
    return value


def _check_unique_pairs(records: Sequence[dict]) -> None:
    seen: dict[str, str] = {}
    for record in records:
        if record["row_id"] in seen:
            raise BlimpDataError(
                f"{record['_where']}: pair {record['row_id']} already read at {seen[record['row_id']]}; "
                "is a paradigm file given twice?"
            )
        seen[record["row_id"]] = record["_where"]


def check_release_manifest(path: Path, rows: Sequence[tuple[int, dict]]) -> None:
    """The rows (with their line numbers) of a release manifest (``pipeline.read_release_manifest``): at
    least one, each a paradigm uid and a 64-character sha256, each uid once."""
    if not rows:
        raise BlimpDataError(f"{path}: no paradigm files listed; expected a header and one row per paradigm")
    first_line: dict[str, int] = {}
    for line, row in rows:
        if not row.get("uid") or len(row.get("sha256") or "") != 64:
            raise BlimpDataError(f"{path}:{line}: expected a paradigm uid and a 64-hex sha256, got {row}")
        if row["uid"] in first_line:
            raise BlimpDataError(f"{path}:{line}: paradigm {row['uid']!r} is already listed on line {first_line[row['uid']]}")
        first_line[row["uid"]] = line
