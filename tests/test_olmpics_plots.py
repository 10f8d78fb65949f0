"""oLMpics Figure 3 grids from hand-made predictions; the PNG is byte-identical on a second run."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from lmprobes.figures import STAND_IN_NOTE, stand_in_notes
from lmprobes.suites.olmpics.age import figure3_sets
from lmprobes.suites.olmpics.plots import age_grid, grid_matrix, plot_figure3


@pytest.fixture
def figure3() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Items of small grids and a "model" that always says older when a > b, whatever the template."""
    items = pd.DataFrame(figure3_sets(ages=range(20, 25), years=range(1990, 1994)))
    records = []
    for item in items.itertuples():
        args = json.loads(item.arguments)
        prediction = "older" if args["a"] > args["b"] else "younger"
        skipped = (args["a"], args["b"]) == (20, 24)
        records.append({"row_id": item.row_id, "model": "m", "method": "mc_mlm", "kept": not skipped,
                        "prediction": None if skipped else prediction,
                        "correct": None if skipped else prediction == item.choices[item.answer]})
    return items, pd.DataFrame(records)


def test_grid_has_one_line_per_kept_item(figure3) -> None:
    items, scores = figure3
    grid = age_grid(items, scores)
    assert len(grid) == int(scores["kept"].sum())
    panel = grid[grid["variant"] == "figure3b_birth_year"]
    assert panel["correct"].sum() == 0  # value comparison is always wrong on birth years
    assert grid[grid["variant"] == "figure3a_age"]["correct"].all()


def test_matrix_cells_are_the_predictions(figure3) -> None:
    items, scores = figure3
    grid = age_grid(items, scores)
    a_values, b_values, matrix = grid_matrix(grid[grid["variant"] == "figure3d_birth_year_with_ages"])
    assert a_values == b_values == [20, 21, 22, 23, 24]
    expected = np.array([[np.nan if a == b or (a, b) == (20, 24) else float(a > b) for b in b_values] for a in a_values])
    np.testing.assert_array_equal(matrix, expected)


def test_a_value_without_items_keeps_its_row_so_cells_stay_under_their_ticks(figure3) -> None:
    grid = age_grid(*figure3)
    panel = grid[(grid["variant"] == "figure3d_birth_year_with_ages") & (grid["a"] != 22)]
    a_values, _, matrix = grid_matrix(panel)
    assert a_values == [20, 21, 22, 23, 24] and np.isnan(matrix[2]).all()
    assert grid_matrix(panel.assign(a=panel["a"] * 5, b=panel["b"] * 5))[0] == [100, 105, 110, 115, 120]


def test_png_is_byte_identical_twice(figure3, tmp_path) -> None:
    grid = age_grid(*figure3)
    first, second = tmp_path / "one" / "figure3.png", tmp_path / "two" / "figure3.png"
    plot_figure3(grid, first, model="m")
    plot_figure3(grid, second, model="m")
    assert first.stat().st_size > 1000 and first.read_bytes() == second.read_bytes()
    plot_figure3(grid, tmp_path / "partial.png", model="m", variants=["figure3a_age", "standard"])
    assert (tmp_path / "partial.png").read_bytes() != first.read_bytes()


def test_a_stand_ins_grid_names_it_and_another_models_does_not(figure3, tmp_path) -> None:
    grid = age_grid(*figure3)
    assert stand_in_notes(plot_figure3(grid, tmp_path / "m.png", model="m", stand_ins=["m"])) == [STAND_IN_NOTE + "m"]
    assert stand_in_notes(plot_figure3(grid, tmp_path / "real.png", model="m", stand_ins=["tiny-bert"])) == []
