"""NO LANG and PERTURBED LANG controls of the two MC-QA tasks, on hand-made SCHEMA rows."""

from __future__ import annotations

import json
import random

import pandas as pd
import pytest

from lmprobes.suites.olmpics.controls import NONSENSE, ControlError
from lmprobes.suites.olmpics.controls_qa import parse_property_stem, qa_control_frame, qa_control_row
from lmprobes.suites.olmpics.schema import SCHEMA, make_item


def qa_row(task: str, stem: str, row: int = 1, split: str = "dev", choices=("a", "b", "c"), answer: int = 2,
           **extra) -> dict:
    return make_item(task, "release", "standard", split, row, id=f"id{row}", stem=stem, choices=list(choices),
                     answer=answer, provenance={"file": "x.jsonl", "line": row}, **extra)


def nonsense(seed: int, row_id: str, k: int) -> list[str]:
    """The words the convention draws: random.Random(f"{seed}:{row_id}").sample(NONSENSE, k)."""
    return random.Random(f"{seed}:{row_id}").sample(NONSENSE, k)


@pytest.mark.parametrize(("stem", "parts"), [
    ("what usually used for fun and is usually located at toy store",
     ("UsedFor", "fun", "AtLocation", "toy store")),
    ("what has a property of red and has leaves", ("HasProperty", "red", "HasA", "leaves")),
    ("what is related to rock and roll and is related to music", ("RelatedTo", "rock and roll", "RelatedTo", "music")),
    ("what may cause sleep and has a prerequisite of soap and water",
     ("Causes", "sleep", "HasPrerequisite", "soap and water")),
])
def test_property_stem_parses_into_relations_and_objects(stem, parts):
    parsed = parse_property_stem(qa_row("property_conjunction", stem))
    assert (parsed["relation1"], parsed["object1"], parsed["relation2"], parsed["object2"]) == parts


@pytest.mark.parametrize("stem", [
    "which is related to dog and is related to cat",  # not "what ..."
    "what is related to dog or is related to cat",  # no conjunction
    "what is friendly with dog and is related to cat",  # unknown phrasing
])
def test_unparsable_property_stem_is_an_error_naming_the_row(stem):
    row = qa_row("property_conjunction", stem, row=7)
    with pytest.raises(ControlError, match="property_conjunction:release:standard:dev:7"):
        qa_control_row(row, "no_lang", seed=0)


def test_property_no_lang_keeps_the_two_objects_and_the_choices():
    row = qa_row("property_conjunction", "what is related to rock and roll and is usually located at toy store",
                 choices=("guitar", "doll", "drum"), answer=0)
    control = qa_control_row(row, "no_lang", seed=3)
    assert control["stem"] == "rock and roll toy store"
    assert control["choices"] == ["guitar", "doll", "drum"] and control["answer"] == 0
    assert control["row_id"] == "property_conjunction:release:no_lang:dev:1"
    assert (control["split"], control["row"], control["id"]) == ("dev", 1, "id1")
    assert json.loads(control["arguments"]) == {"relation1": "RelatedTo", "object1": "rock and roll",
                                                "relation2": "AtLocation", "object2": "toy store"}
    assert json.loads(control["provenance"]) == {"file": "x.jsonl", "line": 1, "control": "no_lang",
                                                 "standard_row_id": row["row_id"]}
    assert control["seed"] is None


def test_property_perturbed_replaces_only_the_conjunction_with_the_seeded_word():
    row = qa_row("property_conjunction", "what is related to rock and roll and is usually located at toy store")
    control = qa_control_row(row, "perturbed_lang", seed=3)
    [word] = nonsense(3, row["row_id"], 1)
    assert control["stem"] == f"what is related to rock and roll {word} is usually located at toy store"
    assert json.loads(control["provenance"])["replacements"] == {"and": word}
    assert control["seed"] == 3
    assert control["template_id"] == "property_conjunction/and+perturbed_lang"


@pytest.mark.parametrize(("stem", "template", "entity", "keys", "perturbed"), [
    ("when did the band where Park Woojin played first form?", "band_inception", "Park Woojin",
     ("band", "played", "form"), "when did the {0} where Park Woojin {1} first {2}?"),
    ("who is the spouse of the actor that played in The Band Played On?", "film_spouse", "The Band Played On",
     ("spouse", "actor", "played"), "who is the {0} of the {1} that {2} in The Band Played On?"),
    ("where is the headquarters of the company that G. G. Ponnambalam established located?", "company_headquarters",
     "G. G. Ponnambalam", ("headquarters", "company", "established"),
     "where is the {0} of the {1} that G. G. Ponnambalam {2} located?"),
])
def test_encyclopedic_controls_keep_the_entity_and_replace_the_template_key_words(stem, template, entity, keys,
                                                                                  perturbed):
    row = qa_row("encyclopedic_composition", stem, row=4, split="train", choices=("1962", "1964", "1961"))
    no_lang = qa_control_row(row, "no_lang", seed=1)
    assert no_lang["stem"] == entity
    assert no_lang["template_id"] == f"{template}+no_lang"
    assert json.loads(no_lang["arguments"]) == {"entity": entity}
    control = qa_control_row(row, "perturbed_lang", seed=1)
    words = nonsense(1, row["row_id"], 3)
    assert len(set(words)) == 3
    assert control["stem"] == perturbed.format(*words)
    assert json.loads(control["provenance"])["replacements"] == dict(zip(keys, words))
    assert control["choices"] == ["1962", "1964", "1961"]


def test_encyclopedic_controls_keep_the_standard_arguments_as_they_are():
    row = qa_row("encyclopedic_composition", "who is the spouse of the actor that played in 1917?",
                 arguments={"entity": 1917, "bridge": "Q1"})
    for variant in ("no_lang", "perturbed_lang"):
        assert json.loads(qa_control_row(row, variant, seed=0)["arguments"]) == {"entity": 1917, "bridge": "Q1"}


def test_unknown_encyclopedic_template_is_an_error_naming_the_row():
    row = qa_row("encyclopedic_composition", "who founded the band where Orelsan played?", row=9)
    with pytest.raises(ControlError, match="encyclopedic_composition:release:standard:dev:9"):
        qa_control_row(row, "perturbed_lang", seed=0)


def test_control_frame_covers_standard_mc_qa_rows_only_and_is_deterministic():
    rows = [
        qa_row("property_conjunction", "what is related to dog and is related to cat", row=1, split="train"),
        qa_row("property_conjunction", "what may cause sleep and usually used for entertainment", row=1),
        qa_row("encyclopedic_composition", "when did the band where Orelsan played first form?", row=1),
        make_item("age_comparison", "release", "standard", "dev", 1, id="x",
                  stem="A 15 year old person age is [MASK] than a 16 year old person .",
                  choices=["younger", "older"], answer=0),
    ]
    frame = pd.DataFrame.from_records(rows, columns=SCHEMA.names)
    first = qa_control_frame(frame, seed=5)
    assert list(first.columns) == SCHEMA.names
    assert list(first["variant"]) == ["no_lang"] * 3 + ["perturbed_lang"] * 3
    assert set(first["task"]) == {"property_conjunction", "encyclopedic_composition"}
    assert list(first["split"]) == ["train", "dev", "dev"] * 2
    pd.testing.assert_frame_equal(first, qa_control_frame(frame, seed=5))
    other = qa_control_frame(frame, ["perturbed_lang"], seed=6)
    assert len(other) == 3
    # a control row of a control frame is never controlled again
    assert qa_control_frame(first, seed=5).empty


def test_unknown_variant_is_an_error():
    frame = pd.DataFrame.from_records([qa_row("property_conjunction", "what has dog and has cat")],
                                      columns=SCHEMA.names)
    with pytest.raises(ValueError, match="variant"):
        qa_control_frame(frame, ["no_language"])
