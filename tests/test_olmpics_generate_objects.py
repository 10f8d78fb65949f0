"""Objects comparison from a DoQ per-object excerpt (the real tab-separated, header-less format)."""

from __future__ import annotations

import gzip
import json
import math
import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from lmprobes.suites.olmpics.generate_objects import (
    DEV_OBJECTS,
    TRAIN_OBJECTS,
    DoqError,
    generate_objects_comparison,
    read_sizes,
)
from lmprobes.suites.olmpics.schema import SCHEMA

DOQ = Path(__file__).parent / "data" / "olmpics_sources" / "doq_noun_excerpt.tsv"
STEM = re.compile(r"^The size of a (.+) is usually much \[MASK\] than the size of a (.+) \.$")


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return generate_objects_comparison(DOQ, n_train=20, n_dev=30, seed=2)


@pytest.fixture(scope="module")
def lengths() -> dict[str, float]:
    """First LENGTH median per object, read plainly from the excerpt."""
    found: dict[str, float] = {}
    for line in DOQ.read_text().splitlines():
        obj, _, dim, *_, median, _, _, _ = line.split("\t")
        if dim == "LENGTH":
            found.setdefault(obj, float(median))
    return found


def test_answers_follow_the_medians_and_pairs_cross_buckets(frame: pd.DataFrame, lengths) -> None:
    assert frame.groupby("split").size().to_dict() == {"train": 20, "dev": 30}
    for _, row in frame.iterrows():
        x, y = STEM.match(row["stem"]).groups()
        assert row["choices"][row["answer"]] == ("larger" if lengths[x] > lengths[y] else "smaller")
        assert math.floor(math.log10(lengths[x])) != math.floor(math.log10(lengths[y]))
        assert sorted(row["choices"]) == ["larger", "smaller"]
    pa.Table.from_pandas(frame, schema=SCHEMA, preserve_index=False)


def test_dev_everyday_objects_train_animals_disjoint(frame: pd.DataFrame) -> None:
    objects = {split: set() for split in ("train", "dev")}
    for _, row in frame.iterrows():
        objects[row["split"]] |= set(STEM.match(row["stem"]).groups())
    assert objects["dev"] <= set(DEV_OBJECTS) and objects["train"] <= set(TRAIN_OBJECTS)
    assert not objects["dev"] & objects["train"]
    assert "hat" not in objects["dev"]  # median 0: no order of magnitude
    assert "table lamp" not in objects["dev"]  # in DoQ, not in the list


def test_first_row_of_an_object_counts_and_provenance_names_it(frame: pd.DataFrame) -> None:
    sizes = read_sizes(DOQ, {"car", "dog"})
    assert (sizes["car"].median, sizes["car"].line, sizes["car"].bucket) == (4.5, 10, 0)
    assert sizes["dog"].median == 0.9  # the LENGTH row, not the MASS one
    for _, row in frame.iterrows():
        provenance = json.loads(row["provenance"])
        assert provenance["source"] == "doq" and provenance["dim"] == "LENGTH"
        assert DOQ.read_text().splitlines()[provenance["x"]["line"] - 1].startswith(
            json.loads(row["arguments"])["x"] + "\t")


def cross_bucket_pairs(objects: tuple[str, ...], lengths: dict[str, float]) -> set[frozenset[str]]:
    found = [obj for obj in objects if obj in lengths and lengths[obj] > 0]
    bucket = {obj: math.floor(math.log10(lengths[obj])) for obj in found}
    return {frozenset((x, y)) for x in found for y in found if bucket[x] != bucket[y]}


def test_all_pairs_once_when_fewer_than_asked(lengths) -> None:
    frame = generate_objects_comparison(DOQ, n_train=10_000, n_dev=0, seed=0)
    asked = [frozenset(STEM.match(stem).groups()) for stem in frame["stem"]]
    assert len(asked) == len(set(asked)) and set(asked) == cross_bucket_pairs(TRAIN_OBJECTS, lengths)


def test_no_split_asks_about_a_pair_twice_and_both_orders_occur(lengths) -> None:
    """The release's 500 dev items are 500 distinct pairs: none is asked again, reversed or not."""
    n_train, n_dev = len(cross_bucket_pairs(TRAIN_OBJECTS, lengths)), len(cross_bucket_pairs(DEV_OBJECTS, lengths))
    frame = generate_objects_comparison(DOQ, n_train=n_train, n_dev=n_dev, seed=5)
    for split, n in (("train", n_train), ("dev", n_dev)):
        ordered = [STEM.match(stem).groups() for stem in frame[frame["split"] == split]["stem"]]
        assert len(ordered) == n and len({frozenset(pair) for pair in ordered}) == n
        assert {x < y for x, y in ordered} == {True, False}  # the order is drawn, not the name order


@pytest.mark.parametrize("line, problem", [
    ("pen\tpen\tLENGTH\t0.1\t0.1\n", "5 tab-separated fields, expected 10"),
    ("pen\tpen\tLENGTH\t0.1\t0.1\t0.1\tabout 1\t0.1\t0.1\t0.1\n", "median 'about 1' is not a number"),
])
def test_malformed_lines_are_named(tmp_path: Path, line: str, problem: str) -> None:
    path = tmp_path / "noun.tsv"
    path.write_text(DOQ.read_text() + line)
    with pytest.raises(DoqError, match=rf"noun.tsv, line 39: {re.escape(problem)}"):
        generate_objects_comparison(path, n_train=1, n_dev=1, seed=0)


@pytest.mark.parametrize("damage", ["latin-1", "cut gzip"])
def test_unreadable_bytes_are_an_error_naming_the_file(tmp_path: Path, damage: str) -> None:
    text = DOQ.read_bytes()
    if damage == "latin-1":
        path, data = tmp_path / "noun.tsv", text + "p\u00f6t\tp\u00f6t\tLENGTH\t1\t1\t1\t1\t1\t1\t1\n".encode("latin-1")
    else:
        path, data = tmp_path / "noun.tsv.gz", gzip.compress(text, mtime=0)[:-20]
    path.write_bytes(data)
    with pytest.raises(DoqError, match=rf"{re.escape(path.name)}, after line \d+: cannot read"):
        generate_objects_comparison(path, n_train=1, n_dev=1, seed=0)


def test_blank_lines_are_skipped_and_later_lines_keep_their_numbers(tmp_path: Path) -> None:
    path = tmp_path / "noun.tsv"
    path.write_text(DOQ.read_text() + "\n  \n")
    pd.testing.assert_frame_equal(generate_objects_comparison(path, n_train=20, n_dev=30, seed=2),
                                  generate_objects_comparison(DOQ, n_train=20, n_dev=30, seed=2))
    path.write_text(DOQ.read_text() + "\n" + "pen\tpen\tLENGTH\t0.1\n")
    with pytest.raises(DoqError, match=r"noun.tsv, line 40: 4 tab-separated fields"):
        generate_objects_comparison(path, n_train=1, n_dev=1, seed=0)


def test_same_seed_same_frame_other_seed_other_items(frame: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(frame, generate_objects_comparison(DOQ, n_train=20, n_dev=30, seed=2))
    assert list(generate_objects_comparison(DOQ, n_train=20, n_dev=30, seed=3)["stem"]) != list(frame["stem"])


def test_an_object_in_both_lists_is_asked_about_in_dev_only() -> None:
    frame = generate_objects_comparison(DOQ, n_train=10_000, n_dev=10_000, seed=0,
                                        train_objects=(*TRAIN_OBJECTS, "car", "pen"))
    objects = {split: {obj for stem in group["stem"] for obj in STEM.match(stem).groups()}
               for split, group in frame.groupby("split")}
    assert {"car", "pen"} <= objects["dev"] and not {"car", "pen"} & objects["train"]
