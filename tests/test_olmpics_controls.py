"""NO LANG and PERTURBED LANG controls of hand-made MC-MLM items (release and generated rows)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from lmprobes.suites.olmpics.controls import NONSENSE, ControlError, control_frame
from lmprobes.suites.olmpics.release import build_release
from lmprobes.suites.olmpics.schema import SCHEMA, make_item

DATA = Path(__file__).parent / "data" / "olmpics"


def item(task: str, row: int, stem: str, choices: list[str], answer: int, flavour: str = "release", **extra) -> dict:
    return make_item(task, flavour, "standard", "dev", row, id=f"id{row}", stem=stem, choices=choices, answer=answer,
                     **extra)


ROWS = [
    item("age_comparison", 1, "A 24 year old person age is [MASK] than a 55 year old person .", ["younger", "older"], 0),
    item("multihop_composition", 2, "When comparing a 31 year old, a 23 year old and a 30 year old, the [MASK] is oldest ",
         ["first", "second", "third"], 0),
    item("objects_comparison", 3, "The size of a size chart is usually much [MASK] than the size of a sun .",
         ["larger", "smaller"], 1, flavour="generated", template_id="objects_comparison/size",
         arguments={"x": "size chart", "y": "sun"}, seed=9),
    item("antonym_negation", 4, "It was [MASK] hot , it was really cold .", ["not", "really"], 0),
    item("antonym_negation", 5, "He was [MASK] ready to rest, He was really ready to repose.", ["really", "not"], 0),
    item("taxonomy_conjunction", 6, "A ferry and a floatplane are both a type of [MASK] ", ["vehicle", "airplane", "boat"], 0),
    item("always_never", 7, "A chicken [MASK] has a horn .", ["never", "rarely", "sometimes", "often", "always"], 0),
    item("always_never", 8, "A dish with pasta [MASK] contains pork .", ["sometimes", "never", "always", "often", "rarely"], 0),
    item("always_never", 9, "meat is [MASK] part of a elephant's diet .", ["never", "sometimes", "always", "often", "rarely"], 0),
    item("always_never", 10, "stool is [MASK] placed in the box .", ["never", "sometimes", "always", "often", "rarely"], 0),
    item("always_never", 11, "A pig is [MASK] smaller than a cat .", ["rarely", "always", "never", "often", "sometimes"], 0),
    item("property_conjunction", 12, "what is related to passenger and is usually located at water",
         ["boat", "fish", "bus"], 0),
]
FRAME = pd.DataFrame.from_records(ROWS, columns=SCHEMA.names)

NO_LANG = {
    1: ("24 [MASK] 55", ["ya", "blah"]),
    2: ("31 23 30 [MASK]", ["blah", "ya", "foo"]),
    3: ("size chart [MASK] sun", ["blah", "ya"]),
    4: ("[MASK] hot cold", ["blah", "ya"]),
    5: ("[MASK] rest repose", ["ya", "blah"]),
    6: ("ferry floatplane [MASK]", ["vehicle", "airplane", "boat"]),
    7: ("chicken [MASK] horn", ["woo", "snap", "foo", "ya", "blah"]),
    8: ("pasta [MASK] pork", ["foo", "woo", "blah", "ya", "snap"]),
    9: ("meat [MASK] elephant", ["woo", "foo", "blah", "ya", "snap"]),
    10: ("stool [MASK] box", ["woo", "foo", "blah", "ya", "snap"]),
    11: ("pig [MASK] smaller cat", ["snap", "blah", "woo", "ya", "foo"]),
}
# PERTURBED LANG: the stem with each key word as {key word}.
PERTURBED = {
    1: "A 24 year old person {age} is [MASK] {than} a 55 year old person .",
    2: "When {comparing} a 31 year old, a 23 year old and a 30 year old, the [MASK] is {oldest} ",
    3: "The {size} of a size chart is usually much [MASK] {than} the {size} of a sun .",
    4: "It was [MASK] hot , it was {really} cold .",
    5: "He was [MASK] ready to rest, He was {really} ready to repose.",
    6: "A ferry {and} a floatplane are {both} a type of [MASK] ",
    7: "A chicken [MASK] {has} a horn .",
    8: "A dish with pasta [MASK] {contains} pork .",
    9: "meat is [MASK] {part} of a elephant's {diet} .",
    10: "stool is [MASK] {placed} in the box .",
    11: "A pig is [MASK] smaller {than} a cat .",
}


@pytest.fixture(scope="module")
def controls() -> pd.DataFrame:
    return control_frame(FRAME, seed=17)


def rows_of(controls: pd.DataFrame, variant: str) -> dict[int, dict]:
    return {row["row"]: row for row in controls[controls["variant"] == variant].to_dict("records")}


def test_every_mc_mlm_row_gets_both_controls_and_mc_qa_none(controls: pd.DataFrame) -> None:
    pa.Table.from_pandas(controls, schema=SCHEMA, preserve_index=False)
    assert sorted(controls["row"].unique()) == list(range(1, 12))
    assert controls.groupby("variant").size().to_dict() == {"no_lang": 11, "perturbed_lang": 11}
    for _, row in controls.iterrows():
        standard = FRAME.iloc[row["row"] - 1]
        assert row["row_id"] == f"{standard['task']}:{standard['flavour']}:{row['variant']}:dev:{row['row']}"
        assert (row["id"], row["answer"], row["flavour"]) == (standard["id"], standard["answer"], standard["flavour"])
        assert json.loads(row["provenance"])["standard_row_id"] == standard["row_id"]


def test_no_lang_keeps_arguments_and_mask_and_relabels_fixed_answers(controls: pd.DataFrame) -> None:
    no_lang = rows_of(controls, "no_lang")
    assert {number: (row["stem"], row["choices"]) for number, row in no_lang.items()} == NO_LANG
    # the paper's mapping: older -> blah, younger -> ya
    assert json.loads(no_lang[1]["provenance"])["answer_labels"] == {"older": "blah", "younger": "ya"}
    assert no_lang[3]["seed"] == 9 and pd.isna(no_lang[1]["seed"])


def test_perturbed_lang_replaces_key_words_outside_the_arguments(controls: pd.DataFrame) -> None:
    perturbed = rows_of(controls, "perturbed_lang")
    for number, expected in PERTURBED.items():
        row = perturbed[number]
        replacements = json.loads(row["provenance"])["replacements"]
        assert set(replacements.values()) <= set(NONSENSE) and len(set(replacements.values())) == len(replacements)
        assert row["stem"] == expected.format(**replacements), number
        assert row["choices"] == FRAME.iloc[number - 1]["choices"]
        assert row["seed"] == 17
    assert json.loads(perturbed[1]["provenance"])["replacements"].keys() == {"age", "than"}


def test_same_seed_same_controls_other_seed_other_words(controls: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(controls, control_frame(FRAME, seed=17))
    other = rows_of(control_frame(FRAME, ["perturbed_lang"], seed=18), "perturbed_lang")
    assert [row["stem"] for row in other.values()] != [row["stem"] for row in rows_of(controls, "perturbed_lang").values()]


@pytest.mark.parametrize(("task", "name"), [("age_comparison", "number_comparison_age_compare_masked_dev.jsonl"),
                                            ("multihop_composition", "compositional_comparison_dev.jsonl")])
def test_controls_of_release_age_rows_keep_their_numeric_arguments(task: str, name: str) -> None:
    standard = build_release({(task, "dev"): DATA / name})
    controls = control_frame(standard, seed=0)
    arguments = dict(zip(standard["row"], standard["arguments"]))
    assert all(values and all(isinstance(value, int) for value in values.values())
               for values in map(json.loads, arguments.values()))
    assert len(controls) == 2 * len(standard)
    for row in controls.to_dict("records"):
        assert json.loads(row["arguments"]) == json.loads(arguments[row["row"]]), row["row_id"]  # 41, not "41"


def test_a_stem_no_template_matches_is_named() -> None:
    odd = pd.DataFrame.from_records(
        [item("age_comparison", 1, "Is 24 [MASK] than 55?", ["younger", "older"], 0)], columns=SCHEMA.names)
    with pytest.raises(ControlError, match=re.escape("age_comparison:release:standard:dev:1: stem 'Is 24 [MASK] than 55?'")):
        control_frame(odd)
    with pytest.raises(ValueError, match="variant must be one of"):
        control_frame(FRAME, ["no_language"])


def test_perturbed_lang_draws_each_items_nonsense_words_anew() -> None:
    """Seeded per item: the rows of one task do not all get the same replacements."""
    standard = build_release({("age_comparison", "dev"): DATA / "number_comparison_age_compare_masked_dev.jsonl"})
    perturbed = control_frame(standard, ["perturbed_lang"], seed=0)
    drawn = {tuple(json.loads(provenance)["replacements"].values()) for provenance in perturbed["provenance"]}
    assert len(perturbed) >= 10 and len(drawn) > 1
