"""BLiMP loader on release-format fixtures (real lines of the CC-BY 4.0 release, Warstadt et al. 2020).

The fixtures cover every quirk: the ``syntax/semantics`` field typo and identical pairs
(principle_A_case_2, passive_1), ``s-selection`` and leading spaces in ``two_prefix_word``
(animate_subject_trans), ``dependency_length``, ``crucial_item``, the ``_with_adjective_1`` name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from lmprobes.io import read_parquet, write_parquet
from lmprobes.suites.blimp.dataset import FLAG_KEYS, SCHEMA, BlimpDataError, build_blimp
from lmprobes.suites.blimp.pipeline import read_release_manifest
from lmprobes.suites.blimp.scoring import score_pairs

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


def test_pairs_sort_by_pair_number_not_by_its_text(tmp_path) -> None:
    path = tmp_path / "anaphor_gender_agreement.jsonl"
    path.write_text("".join(json.dumps(edited(pairID=pid)) + "\n" for pid in ("10", "2", "0", "100")), encoding="utf-8")
    assert build_blimp([path])["row_id"].tolist() == [f"anaphor_gender_agreement:{pid}" for pid in (0, 2, 10, 100)]


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


# Texts with no letter or digit, which a tokenizer may drop entirely (a zero-width space, a BOM, a soft
# hyphen, a control character, a lone combining accent): a sentence of no token scores 0.0 and "wins".
NO_WORD = ["\u200b", "\ufeff", "\u00ad", "\x07", "\u0301", " \u200b ", "..."]


def one_bad_line(tmp_path: Path, record: dict) -> Path:
    path = tmp_path / "anaphor_gender_agreement.jsonl"
    path.write_text(json.dumps(GOOD) + "\n" + json.dumps(record) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("key", ["sentence_good", "sentence_bad"])
@pytest.mark.parametrize("text", NO_WORD)
def test_a_sentence_without_a_letter_or_digit_is_refused(tmp_path, key, text) -> None:
    path = one_bad_line(tmp_path, edited(pairID="1", **{key: text}))
    with pytest.raises(BlimpDataError, match=re.escape(f"{path}:2: {key} must contain a letter or digit, got {text!r}")):
        build_blimp([path])


@pytest.mark.parametrize("key", ["one_prefix_prefix", "one_prefix_word_good", "one_prefix_word_bad"])
def test_a_scored_prefix_field_without_a_letter_or_digit_is_refused(tmp_path, key) -> None:
    path = one_bad_line(tmp_path, edited(pairID="1", **{key: "\u200b"}))
    with pytest.raises(BlimpDataError, match=re.escape(f"{path}:2: one_prefix_method is true but {key}")):
        build_blimp([path])


def test_a_sentence_of_digits_only_is_accepted(tmp_path) -> None:
    path = one_bad_line(tmp_path, edited(pairID="1", sentence_good="1984."))
    assert build_blimp([path])["sentence_good"].tolist()[1] == "1984."


def test_a_pair_with_a_sentence_of_no_scored_token_is_skipped(tiny_bert) -> None:
    """The scorer's guard behind the builder's check (frames built in code skip the builder): a
    sentence with no scored token would score 0.0, more than any real sentence, and always win."""
    pairs = build_blimp([FIXTURES / "anaphor_gender_agreement.jsonl"]).head(3).reset_index(drop=True)
    pairs.loc[1, "sentence_good"] = "\u200b"
    pairs.loc[2, "sentence_bad"] = "\u200b"  # either side counts
    assert tiny_bert.tokenizer("\u200b", add_special_tokens=False)["input_ids"] == []
    for method in ("pll_original", "pll_original_mean"):
        scores = score_pairs(tiny_bert, pairs, method, progress=False)
        assert scores["kept"].tolist() == [True, False, False], method
        assert scores["skip_reason"].tolist() == ["", "no_scored_token", "no_scored_token"], method
        for row in (1, 2):
            assert pd.isna(scores.loc[row, "correct"]), (method, row)
            assert pd.isna(scores.loc[row, "score_good"]) and pd.isna(scores.loc[row, "score_bad"]), (method, row)


def write_manifest(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "release.tsv"
    path.write_text(text, encoding="utf-8")
    return path


SHA = "ab" * 32


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("uid\tsha256\tbytes\n", "", "no paradigm files listed"),
        ("", "", "no paradigm files listed"),
        (f"uid\tsha256\tbytes\npassive_1\t{SHA}\t1\npassive_2\t{SHA}\t1\npassive_1\t{SHA}\t1\n", ":4",
         "paradigm 'passive_1' is already listed on line 2"),
        (f"uid\tsha256\tbytes\npassive_1\t{SHA}\t1\n\npassive_2\tab\t1\n", ":4", "expected a paradigm uid"),
    ],
)
def test_a_bad_release_manifest_names_itself_and_the_line(tmp_path, text, where, message) -> None:
    path = write_manifest(tmp_path, text)
    with pytest.raises(BlimpDataError, match=re.escape(f"{path}{where}: {message}")):
        read_release_manifest(path)


def test_the_committed_release_manifests_list_the_67_paradigms() -> None:
    root = Path(__file__).parent.parent / "resources"
    for manifest in (root / "blimp" / "release.tsv", root / "demo" / "blimp_release.tsv"):
        assert len({row["uid"] for row in read_release_manifest(manifest)}) == 67, manifest
