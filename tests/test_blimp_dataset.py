"""BLiMP loader on release-format fixtures (real lines of the CC-BY 4.0 release, Warstadt et al. 2020).

The fixtures cover every quirk: the ``syntax/semantics`` field typo and identical pairs
(principle_A_case_2, passive_1), ``s-selection`` and leading spaces in ``two_prefix_word``
(animate_subject_trans), ``dependency_length``, ``crucial_item``, the ``_with_adjective_1`` name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from lmprobes.io import read_parquet, write_parquet
from lmprobes.suites.blimp.dataset import FLAG_KEYS, SCHEMA, BlimpDataError, build_blimp

FIXTURES = Path(__file__).parent / "data" / "blimp"
FILES = sorted(FIXTURES.glob("*.jsonl"))


def raw_records() -> list[dict]:
    return [json.loads(line) for path in FILES for line in path.read_text(encoding="utf-8").splitlines()]


def missing_as_none(value):
    return None if pd.isna(value) else value


@pytest.fixture(scope="module")
def pairs():
    return build_blimp(FILES)


def test_one_row_per_pair_in_paradigm_then_pair_number_order(pairs) -> None:
    raw = raw_records()
    assert len(pairs) == len(raw) == 21
    assert list(pairs.columns) == SCHEMA.names
    expected = sorted((r["UID"], int(r["pairID"])) for r in raw)
    assert list(zip(pairs["paradigm"], pairs["pairID"].astype(int), strict=True)) == expected
    assert pairs["row_id"].tolist() == [f"{uid}:{pid}" for uid, pid in expected]


def test_file_order_does_not_matter(pairs) -> None:
    assert build_blimp(list(reversed(FILES))).equals(pairs)


def test_fields_pass_through_or_are_repaired_as_documented(pairs) -> None:
    by_id = pairs.set_index("row_id")
    for r in raw_records():
        row = by_id.loc[f"{r['UID']}:{r['pairID']}"]
        assert (row.sentence_good, row.sentence_bad) == (r["sentence_good"], r["sentence_bad"])
        assert row.linguistics_term == r["linguistics_term"]
        assert row.field == ("syntax_semantics" if r["field"] == "syntax/semantics" else r["field"])
        assert row.category == ("argument_structure" if r["linguistics_term"] == "s-selection" else r["linguistics_term"])
        assert all(row[key] == r[key] for key in FLAG_KEYS)
        assert missing_as_none(row.two_prefix_word) == (r["two_prefix_word"].strip() if "two_prefix_word" in r else None)
        assert missing_as_none(row.one_prefix_word_good) == r.get("one_prefix_word_good")
        assert row.identical == (r["sentence_good"] == r["sentence_bad"])
        assert row.n_words_good == len(r["sentence_good"].split())
    assert not pairs["two_prefix_word"].dropna().str.startswith(" ").any()


def test_quirks_are_flagged_and_counted(pairs) -> None:
    assert sorted(pairs.loc[pairs["identical"], "row_id"]) == [
        "passive_1:324", "passive_1:810", "principle_A_case_2:105", "principle_A_case_2:287",
    ]
    assert set(pairs.loc[pairs["paradigm"] == "principle_A_case_2", "field"]) == {"syntax_semantics"}
    assert set(pairs.loc[pairs["paradigm"] == "animate_subject_trans", "category"]) == {"argument_structure"}
    assert pairs.attrs["quirks"] == {
        "pairs": 21,
        "field_typo_fixed": 3,
        "two_prefix_word_leading_space_stripped": 2,
        "identical_pairs": 4,
        "word_count_differs": 2,  # animate_subject_trans: "Tina" / "The horse", "Paul" / "The river"
    }


def test_optional_fields(pairs) -> None:
    lengths = pairs.set_index("row_id")["dependency_length"]
    assert lengths.notna().sum() == 2 and lengths["distractor_agreement_relational_noun:0"] == 5
    items = pairs.set_index("row_id")["crucial_item"]
    assert items.dropna().to_dict() == {"superlative_quantifiers_2:0": "at most", "superlative_quantifiers_2:1": "at least"}
    one_prefix = pairs["one_prefix_method"]
    assert pairs.loc[one_prefix, "one_prefix_prefix"].notna().all()
    assert pairs.loc[~one_prefix, "one_prefix_prefix"].isna().all()


def test_parquet_round_trip(pairs, tmp_path) -> None:
    write_parquet(pairs, tmp_path / "blimp.parquet", SCHEMA, {"source": "fixture"})
    back = read_parquet(tmp_path / "blimp.parquet")
    assert back["row_id"].tolist() == pairs["row_id"].tolist()
    assert back["dependency_length"].dropna().tolist() == pairs["dependency_length"].dropna().tolist()


GOOD = json.loads((FIXTURES / "anaphor_gender_agreement.jsonl").read_text().splitlines()[0])


def edited(**changes) -> dict:
    record = {**GOOD, **changes}
    return {k: v for k, v in record.items() if v is not ...}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "invalid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (json.dumps(edited(sentence_bad=...)), r"missing key\(s\) \['sentence_bad'\]"),
        (json.dumps(edited(one_prefix_method="true")), "one_prefix_method must be true or false"),
        (json.dumps(edited(one_prefix_word_bad=...)), "one_prefix_method is true but one_prefix_word_bad is missing"),
        (json.dumps(edited(two_prefix_method=True)), "two_prefix_method is true but two_prefix_prefix_good"),
        (json.dumps(edited(linguistics_term="anaphora")), "unknown linguistics_term 'anaphora'"),
        (json.dumps(edited(linguistics_term="binding")), "belongs to category anaphor_agreement"),
        (json.dumps(edited(field="phonology")), "unknown field 'phonology'"),
        (json.dumps(edited(pairID=7)), "pairID must be a non-empty string"),
        (json.dumps(edited(pairID="a7")), "pairID must be a number"),
        (json.dumps(edited(pairID="000")), r"pairID must be a number \(1-9 digits, no leading zero\).*got '000'"),
        (json.dumps(edited(pairID="01")), "pairID must be a number.*got '01'"),
        (json.dumps(edited(UID="anaphor_gender_agreement_2")), "unknown UID 'anaphor_gender_agreement_2'"),
        (json.dumps(edited(sentence_good=" ")), "sentence_good must be a non-empty string"),
        (json.dumps(edited(UID="anaphor_number_agreement", pairID="1")), "differs from 'anaphor_gender_agreement'"),
        (json.dumps(edited(pairID="0")), "already read at"),
    ],
)
def test_bad_records_name_file_and_line(tmp_path, line, message) -> None:
    path = tmp_path / "anaphor_gender_agreement.jsonl"
    path.write_text(json.dumps(GOOD) + "\n\n" + line + "\n", encoding="utf-8")
    with pytest.raises(BlimpDataError, match=message) as info:
        build_blimp([path])
    assert f"{path}:3" in str(info.value)


def test_empty_inputs(tmp_path) -> None:
    with pytest.raises(BlimpDataError, match="no BLiMP paradigm files"):
        build_blimp([])
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(BlimpDataError, match=f"{empty}: no records"):
        build_blimp([empty])


def test_the_same_file_twice_is_an_error() -> None:
    path = FIXTURES / "passive_1.jsonl"
    with pytest.raises(BlimpDataError, match=rf"{path}:1: pair passive_1:0 already read at {path}:1"):
        build_blimp([path, path])
