"""Age comparison, multi-hop and Figure 3 generators, checked against release lines and plain rules."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from lmprobes.suites.olmpics import age
from lmprobes.suites.olmpics.schema import SCHEMA

DATA = Path(__file__).parent / "data" / "olmpics"
AGE_STEM = "number_comparison_age_compare_masked"


def release_lines(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]


def numbers(stem: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", stem))


def gold(record: dict) -> str:
    return {c["label"]: c["text"] for c in record["question"]["choices"]}[record["answerKey"]]


@pytest.mark.parametrize(("split", "size"), [("train", 4032), ("dev", 500)])
def test_generated_age_items_are_the_release_items_in_order(split, size) -> None:
    rows = age.age_comparison(split)
    assert len(rows) == size
    head = release_lines(f"{AGE_STEM}_{split}.jsonl")
    tail = release_lines(f"{AGE_STEM}_{split}.tail.jsonl")
    for generated, released in zip(rows[: len(head)] + rows[-len(tail):], head + tail, strict=True):
        assert (generated["stem"], generated["choices"][generated["answer"]]) == (released["question"]["stem"], gold(released))
        assert tuple(json.loads(generated["arguments"]).values()) == numbers(released["question"]["stem"])


def test_age_pairs_are_all_ordered_pairs_of_their_range() -> None:
    assert age.age_pairs("train") == list(itertools.permutations(range(41, 105), 2))
    assert age.age_pairs("dev") == list(itertools.permutations(range(15, 38), 2))[:500]
    for row in age.age_comparison("dev"):
        a, b = json.loads(row["arguments"]).values()
        assert row["choices"][row["answer"]] == ("younger" if a < b else "older")
        assert row["seed"] is None and row["template_id"] == "age" and set(row) == set(SCHEMA.names)


def test_a_seed_shuffles_choice_order_but_not_answers() -> None:
    fixed, shuffled = age.age_comparison("dev"), age.age_comparison("dev", seed=3)
    assert {tuple(r["choices"]) for r in fixed} == {("younger", "older")}
    assert {tuple(r["choices"]) for r in shuffled} == {("younger", "older"), ("older", "younger")}
    assert [r["choices"][r["answer"]] for r in fixed] == [r["choices"][r["answer"]] for r in shuffled]
    assert shuffled == age.age_comparison("dev", seed=3)


@pytest.mark.parametrize(("split", "low", "high", "size"), [("dev", 15, 37, 500), ("train", 41, 105, 5000)])
def test_multihop_items_follow_the_release_rules(split, low, high, size) -> None:
    rows = age.multihop_composition(split, seed=1)
    assert len(rows) == size and rows == age.multihop_composition(split, seed=1)
    assert rows != age.multihop_composition(split, seed=2)
    released_stem = release_lines(f"compositional_comparison_{split}.jsonl")[0]["question"]["stem"]
    seen = set()
    for row in rows:
        ages = numbers(row["stem"])
        seen.update(ages)
        assert ages == tuple(json.loads(row["arguments"]).values())
        assert ages.count(max(ages)) == 1
        assert row["choices"][row["answer"]] == ("first", "second", "third")[ages.index(max(ages))]
        assert sorted(row["choices"]) == ["first", "second", "third"] and row["seed"] == 1
        assert re.sub(r"\d+", "N", row["stem"]) == re.sub(r"\d+", "N", released_stem)
    assert min(seen) == low and max(seen) == high


# Measured on the release's compositional_comparison files (5,000 train and 500 dev items): the mean
# oldest age, the mean gap between the oldest and the youngest, the lowest oldest age.
RELEASE_MULTIHOP = {"train": (74.8, 23.0, 44), "dev": (27.3, 8.5, 17)}


@pytest.mark.parametrize("split", ["train", "dev"])
def test_multihop_ages_are_distributed_as_the_release_ones(split) -> None:
    """The oldest is drawn first over its range, the others below it: not three uniform ages."""
    mean_oldest, mean_gap, lowest_oldest = RELEASE_MULTIHOP[split]
    triples = [numbers(row["stem"]) for row in age.multihop_composition(split, seed=0)]
    oldest = [max(ages) for ages in triples]
    assert abs(sum(oldest) / len(oldest) - mean_oldest) < 0.1 * mean_oldest
    assert abs(sum(max(ages) - min(ages) for ages in triples) / len(triples) - mean_gap) < 0.15 * mean_gap
    assert min(oldest) == lowest_oldest
    positions = Counter(ages.index(max(ages)) for ages in triples)
    assert all(abs(count - len(triples) / 3) < 0.1 * len(triples) / 3 for count in positions.values())


def test_figure3_panels_cover_the_value_grids_with_template_answers() -> None:
    rows = age.figure3_sets(ages=range(20, 24), years=range(1990, 1993))
    by_variant: dict[str, list[dict]] = {}
    for row in rows:
        by_variant.setdefault(row["variant"], []).append(row)
    assert {v: len(r) for v, r in by_variant.items()} == {
        "figure3a_age": 12, "figure3b_birth_year": 6, "figure3c_age_with_years": 6, "figure3d_birth_year_with_ages": 12}
    year = by_variant["figure3b_birth_year"][0]
    assert year["stem"] == "A person born in 1990 is [MASK] than me in age, If i was born in 1991 ."
    assert year["choices"][year["answer"]] == "older"  # born earlier
    swapped = by_variant["figure3c_age_with_years"][0]
    assert swapped["stem"] == "A 1990 year old person age is [MASK] than a 1991 year old person ."
    assert swapped["choices"][swapped["answer"]] == "younger"
    for panel in by_variant.values():
        assert [r["row"] for r in panel] == list(range(1, len(panel) + 1))
        assert all(r["split"] == "dev" and r["flavour"] == "generated" for r in panel)
    assert rows == age.figure3_sets(ages=range(20, 24), years=range(1990, 1993))
    assert len({r["row_id"] for r in rows}) == len(rows)


def test_equal_values_have_no_answer() -> None:
    with pytest.raises(ValueError, match="equal values"):
        age.age_answer("age", 30, 30)
    with pytest.raises(ValueError, match="unknown age template"):
        age.age_answer("height", 30, 31)
