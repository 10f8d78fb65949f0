"""oLMpics Figure 3 grids from hand-made predictions; the PNG is byte-identical on a second run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmprobes.figures import STAND_IN_NOTE, stand_in_notes
from lmprobes.suites.olmpics.age import figure3_sets
from lmprobes.suites.olmpics.plots import age_grid, grid_matrix, plot_figure3

RESOURCES = Path(__file__).resolve().parents[1] / "resources" / "olmpics"
PUBLISHED = RESOURCES / "published.csv"
PAPER_TABLE4 = RESOURCES / "table4_paper.csv"


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


def test_the_tables_job_holds_one_models_grid_scores_at_a_time(figure3, tmp_path, monkeypatch) -> None:
    """Figure 3 and Table 4 of each model from that model's grid score rows alone, whichever files hold them
    (60 models' rows together took 2.6 GB); each model's figure and table as drawn from every model's rows."""
    from lmprobes.suites.olmpics import pipeline
    from lmprobes.suites.olmpics import plots as olmpics_plots
    from lmprobes.suites.olmpics.objects_matrix import TABLE4_OBJECTS, objects_grid_items

    ages, age_scores = figure3
    objects = objects_grid_items(sizes={obj: 10.0 ** i for i, obj in enumerate(TABLE4_OBJECTS)})
    items = pd.concat([ages, objects], ignore_index=True)
    object_scores = pd.DataFrame({"row_id": objects["row_id"], "model": "m", "method": "mc_mlm", "kept": True,
                                  "prediction": "larger", "correct": objects["answer"] == 0})
    one = pd.concat([age_scores, object_scores], ignore_index=True).merge(
        items[["row_id", "task", "flavour", "variant", "split"]], on="row_id")
    one = one.assign(n_multi_piece=0, tie=False, correct=one["correct"].astype(bool))
    two = one.assign(model="n", prediction=one["prediction"].map({"older": "younger", "younger": "older"}).fillna(
        one["prediction"]))
    (tmp_path / "in").mkdir()
    items.to_parquet(tmp_path / "in" / "grids.parquet")
    paths = [tmp_path / "in" / "m_ages.parquet", tmp_path / "in" / "n_and_m_objects.parquet"]
    is_age = one["task"] == "age_comparison"
    one[is_age].to_parquet(paths[0])
    pd.concat([two, one[~is_age]]).to_parquet(paths[1])  # m's rows in two files, one shared with n
    seen = []

    def recording_age_grid(items, scores):
        seen.append(sorted(set(scores["model"])))
        return age_grid(items, scores)

    def run(out):
        pipeline.make_tables(tmp_path / "in" / "grids.parquet", paths, paths, PUBLISHED, PAPER_TABLE4, out,
                             [out / "figure3_m.png", out / "figure3_n.png"], ["m", "n"])
        return {path.name: path.read_bytes() for path in sorted(out.iterdir())}

    written = run(tmp_path / "lean")
    monkeypatch.setattr(olmpics_plots, "age_grid", recording_age_grid)
    run(tmp_path / "seen")
    assert seen == [["m"], ["n"]]
    grid = age_grid(items, pd.concat([one, two], ignore_index=True))
    for model in ("m", "n"):
        plot_figure3(grid, tmp_path / f"whole_{model}.png", model=model)
        assert written[f"figure3_{model}.png"] == (tmp_path / f"whole_{model}.png").read_bytes()
    assert "larger" in written["table4_m.csv"].decode() and written["table4_m.csv"] == written["table4_n.csv"]
    tex = written["table4_m.tex"].decode()  # the paper's grid, promised "below" by the caption, is in the LaTeX too
    assert r"\caption{The paper's Table 4: RoBERTa-L}" in tex and tex.count(r"\begin{tabular}") == 2
    assert r"nail & - & smaller & smaller & smaller & smaller & smaller & smaller & smaller \\" in tex
