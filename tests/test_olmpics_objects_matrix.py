"""oLMpics Table 4: the objects grid items, the prediction matrix and the paper's transcribed matrix."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pandas as pd
import pytest

from lmprobes.suites.olmpics.generate_objects import DEV_OBJECTS, read_sizes
from lmprobes.suites.olmpics.objects_matrix import (
    TABLE4_OBJECTS,
    TABLE4_RANKS,
    ObjectsMatrixError,
    objects_grid_items,
    objects_matrix,
    read_objects_matrix,
    write_objects_matrix,
)
from lmprobes.suites.olmpics.schema import SCHEMA
from lmprobes.suites.olmpics.zeroshot import score_zero_shot

ROOT = Path(__file__).parents[1]
PAPER = ROOT / "resources" / "olmpics" / "table4_paper.csv"
DOQ = Path(__file__).parent / "data" / "olmpics_sources" / "doq_noun_excerpt.tsv"
SIZES = {"ant": 0.004, "cup": 0.1, "car": 4.0, "moon": 3.5e6}


def test_grid_items_are_every_ordered_pair_with_answers_from_sizes() -> None:
    items = objects_grid_items(list(SIZES), sizes=SIZES)
    pairs = list(itertools.permutations(SIZES, 2))
    assert list(items.columns) == SCHEMA.names and len(items) == len(pairs) == 12
    assert [tuple(json.loads(a).values()) for a in items["arguments"]] == pairs
    assert list(items["stem"]) == [f"The size of a {x} is usually much [MASK] than the size of a {y} ." for x, y in pairs]
    gold = [choices[answer] for choices, answer in zip(items["choices"], items["answer"])]
    assert gold == ["larger" if SIZES[x] > SIZES[y] else "smaller" for x, y in pairs]
    assert {tuple(c) for c in items["choices"]} == {("larger", "smaller")}
    assert set(items["variant"]) == {"objects_grid"} and set(items["template_id"]) == {"objects_grid"}
    assert set(items["split"]) == {"dev"} and set(items["flavour"]) == {"generated"}
    assert list(items["row"]) == list(range(1, 13)) and items["row_id"].is_unique and items["id"].is_unique
    assert items["seed"].isna().all()
    pd.testing.assert_frame_equal(items, objects_grid_items(list(SIZES), sizes=SIZES))


def test_doq_sizes_order_the_objects_and_are_recorded() -> None:
    objects = ["sun", "pen", "city", "laptop"]
    sizes = read_sizes(DOQ, set(objects))
    items = objects_grid_items(objects, sizes=sizes)
    first = items.iloc[0]
    assert json.loads(first["arguments"]) == {"x": "sun", "y": "pen"}
    assert first["choices"][first["answer"]] == "larger"
    provenance = json.loads(first["provenance"])
    assert provenance["x"] == {"size": sizes["sun"].median, "doq_line": sizes["sun"].line}
    with pytest.raises(ObjectsMatrixError, match="no size for object.*nail"):
        objects_grid_items(TABLE4_OBJECTS, sizes=read_sizes(DOQ, set(TABLE4_OBJECTS)))


@pytest.mark.parametrize(("objects", "sizes", "message"), [
    (["cup", "mug"], {"cup": 1.0, "mug": 1.0}, "'cup' and 'mug' have the same size"),
    (["cup", "car", "cup"], SIZES, "more than once: cup"),
    (["cup"], SIZES, "at least two"),
    (["cup", "car"], {"cup": float("nan"), "car": 1.0}, "'cup': size nan"),
])
def test_bad_objects_or_sizes_are_refused(objects, sizes, message) -> None:
    with pytest.raises(ObjectsMatrixError, match=message):
        objects_grid_items(objects, sizes=sizes)


def test_default_objects_are_the_papers_dev_objects_in_its_order() -> None:
    assert set(TABLE4_OBJECTS) <= set(DEV_OBJECTS)
    assert list(read_objects_matrix(PAPER).index) == list(TABLE4_OBJECTS)
    assert len(objects_grid_items(sizes=TABLE4_RANKS)) == 8 * 7


def hand_scores(items: pd.DataFrame) -> tuple[pd.DataFrame, dict[tuple[str, str], str | None]]:
    """A "model" saying larger when x has the longer name; one item skipped, one never scored; a second
    model's rows that must not leak in. Returns the score rows and the expected cells."""
    records, expected = [], {}
    for item in items.itertuples():
        x, y = json.loads(item.arguments).values()
        if (x, y) == ("moon", "ant"):
            continue
        kept = (x, y) != ("car", "cup")
        word = ("larger" if len(x) > len(y) else "smaller") if kept else None
        expected[(x, y)] = word
        records.append({"row_id": item.row_id, "model": "m", "method": "mc_mlm", "kept": kept, "prediction": word})
        records.append({"row_id": item.row_id, "model": "other", "method": "mc_mlm", "kept": True,
                        "prediction": "larger"})
    records.append({"row_id": "age_comparison:release:standard:dev:1", "model": "m", "method": "mc_mlm",
                    "kept": True, "prediction": "older"})
    return pd.DataFrame(records), expected


def test_matrix_cells_are_the_predictions() -> None:
    items = objects_grid_items(list(SIZES), sizes=SIZES)
    scores, expected = hand_scores(items)
    matrix = objects_matrix(items, scores, "m", "mc_mlm")
    assert list(matrix.index) == list(matrix.columns) == list(SIZES)
    for x, y in itertools.product(SIZES, SIZES):
        assert matrix.loc[x, y] == expected.get((x, y)), (x, y)
    assert matrix.loc["moon", "ant"] is None and matrix.loc["car", "cup"] is None and matrix.loc["cup", "cup"] is None
    assert (objects_matrix(items, scores, "other", "mc_mlm").stack().dropna() == "larger").all()
    with pytest.raises(ObjectsMatrixError, match="no score rows for model 'm' with method 'candidates'"):
        objects_matrix(items, scores, "m", "candidates")
    with pytest.raises(ObjectsMatrixError, match="more than one score row"):
        objects_matrix(items, pd.concat([scores, scores]), "m", "mc_mlm")


def test_matrix_from_real_zero_shot_scores(tiny_roberta) -> None:
    items = objects_grid_items(["cup", "car", "moon"], sizes=SIZES)
    scores = score_zero_shot(tiny_roberta, items, progress=False)
    matrix = objects_matrix(items, scores, tiny_roberta.name, "mc_mlm")
    for item, prediction in zip(items.itertuples(), scores["prediction"]):
        args = json.loads(item.arguments)
        assert matrix.loc[args["x"], args["y"]] == prediction
    assert matrix.notna().sum().sum() == 6


def test_written_matrix_reads_back(tmp_path) -> None:
    items = objects_grid_items(list(SIZES), sizes=SIZES)
    matrix = objects_matrix(items, hand_scores(items)[0], "m", "mc_mlm")
    csv_path, md_path = tmp_path / "table4.csv", tmp_path / "table4.md"
    write_objects_matrix(matrix, csv_path, md_path, "Table 4: m")
    pd.testing.assert_frame_equal(read_objects_matrix(csv_path), matrix)
    assert csv_path.read_text().splitlines()[:2] == ["x,ant,cup,car,moon", "ant,,smaller,smaller,smaller"]
    markdown = md_path.read_text().splitlines()
    assert markdown[0] == "## Table 4: m"
    assert markdown[2:5] == ["|  | ant | cup | car | moon |", "|---|---|---|---|---|",
                             "| ant | - | smaller | smaller | smaller |"]
    assert markdown[6:8] == ["| car | smaller |  | - | smaller |", "| moon |  | larger | larger | - |"]


def test_the_latex_leaves_an_unscored_cell_blank_as_its_note_says(tmp_path) -> None:
    """The note (shared with the Markdown) reads "empty: not scored"; the LaTeX printed such a cell as ``--``,
    beside the ``-`` of the diagonal."""
    items = objects_grid_items(list(SIZES), sizes=SIZES)
    matrix = objects_matrix(items, hand_scores(items)[0], "m", "mc_mlm")
    write_objects_matrix(matrix, tmp_path / "table4.csv", tmp_path / "table4.md", "Table 4: m")
    tex = (tmp_path / "table4.tex").read_text()
    assert "empty: not scored" in tex
    assert r"car & smaller &  & - & smaller \\" in tex and r"moon &  & larger & larger & - \\" in tex
    assert "--" not in tex


def test_paper_matrix_agrees_with_the_papers_prose_and_table3() -> None:
    paper = read_objects_matrix(PAPER)
    rank = {obj: i for i, obj in enumerate(TABLE4_OBJECTS)}
    cells = [(x, y, paper.loc[x, y]) for x, y in itertools.permutations(TABLE4_OBJECTS, 2)]
    assert all(word in ("larger", "smaller") for _, _, word in cells)
    assert all(paper.loc[obj, obj] is None for obj in TABLE4_OBJECTS)
    wrong = [(x, y) for x, y, word in cells if word != ("larger" if rank[x] > rank[y] else "smaller")]
    # "errors are concentrated around the diagonal ... and when we compare objects to sun"
    assert all(abs(rank[x] - rank[y]) <= 2 or y == "sun" for x, y in wrong)
    assert all(paper.loc[x, "sun"] == "larger" for x in ("table", "house", "airplane", "city"))
    assert round(100 * (len(cells) - len(wrong)) / len(cells)) == 84  # Table 3: RoBERTa-L zero-shot 84


def test_bad_matrix_file_names_file_and_line(tmp_path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("x,a,b\na,,larger\nb,bigger,\n")
    with pytest.raises(ObjectsMatrixError, match=r"bad.csv, line 3: 'bigger' at \(b, a\)"):
        read_objects_matrix(bad)
    bad.write_text("x,a,b\nb,,larger\na,smaller,\n")
    with pytest.raises(ObjectsMatrixError, match="row objects"):
        read_objects_matrix(bad)
