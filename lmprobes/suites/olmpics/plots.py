"""oLMpics Figure 3: the age-comparison prediction grids of one model, as heatmaps.

Each panel is one Figure 3 variant (age.py): the cell (a, b) is coloured when the model predicts
``older`` for "a ... than b" and left white when it predicts ``younger`` (the paper's colouring);
cells without a scored item (the diagonal, skipped rows) are grey. Panels are laid out as in the
paper: the age template on the left, the birth-year template on the right, the swapped values in
the bottom row. The grid itself is a pure function of the items and their score rows.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Collection, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from lmprobes.figures import save_png, shown_stand_ins
from lmprobes.suites.olmpics.age import FIGURE3_PANELS

GRID_COLUMNS = ["model", "method", "variant", "template_id", "a", "b", "prediction", "gold", "correct"]
PANEL_TITLES = {
    "figure3a_age": "(A) age template, ages",
    "figure3b_birth_year": "(B) birth-year template, years",
    "figure3c_age_with_years": "(C) age template, years",
    "figure3d_birth_year_with_ages": "(D) birth-year template, ages",
}
OLDER_COLOUR = "#1f5fbf"


def age_grid(items: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """One line per scored age item with (a, b) arguments: the prediction and gold answer texts."""
    ages = items[(items["task"] == "age_comparison") & items["template_id"].isin(["age", "birth_year"])]
    columns = ["row_id", "variant", "template_id", "arguments", "choices", "answer"]
    kept = scores[scores["kept"].astype(bool)][["row_id", "model", "method", "prediction", "correct"]]
    merged = kept.merge(ages[columns], on="row_id", how="inner", validate="many_to_one")
    arguments = [json.loads(text) for text in merged["arguments"]]
    grid = merged.assign(
        a=[int(args["a"]) for args in arguments], b=[int(args["b"]) for args in arguments],
        gold=[choices[answer] for choices, answer in zip(merged["choices"], merged["answer"])],
        correct=merged["correct"].astype(bool),
    )
    return grid[GRID_COLUMNS].sort_values(["model", "method", "variant", "a", "b"], kind="stable").reset_index(drop=True)


def grid_matrix(grid: pd.DataFrame) -> tuple[list[int], list[int], np.ndarray]:
    """a values (rows), b values (columns) and 1.0 = older / 0.0 = younger / NaN = no item. The values
    run evenly from the smallest to the largest, a value without items a row or column of NaN, so the
    cells stay under their axis ticks (the drawing spreads the rows over that range)."""
    a_values = evenly_spaced(grid["a"])
    b_values = evenly_spaced(grid["b"])
    matrix = np.full((len(a_values), len(b_values)), np.nan)
    row = {a: i for i, a in enumerate(a_values)}
    column = {b: j for j, b in enumerate(b_values)}
    for a, b, prediction in zip(grid["a"], grid["b"], grid["prediction"]):
        matrix[row[a], column[b]] = 1.0 if prediction == "older" else 0.0
    return a_values, b_values, matrix


def evenly_spaced(values: pd.Series) -> list[int]:
    """The values' range from the smallest to the largest in steps of their common step (gcd of gaps)."""
    distinct = sorted({int(v) for v in values})
    step = functools.reduce(math.gcd, np.diff(distinct).tolist(), 0) or 1
    return list(range(distinct[0], distinct[-1] + 1, step))


def plot_figure3(grid: pd.DataFrame, out: str | Path, *, model: str, method: str = "mc_mlm",
                 variants: Sequence[str] = tuple(FIGURE3_PANELS), stand_ins: Collection[str] = ()) -> Figure:
    """The 2 x 2 Figure 3 panels of one (model, method); a variant without items is left empty. A model
    among ``stand_ins`` is named in a note under the panels."""
    mine = grid[(grid["model"] == model) & (grid["method"] == method)]
    fig, axes = plt.subplots(2, 2, figsize=(9, 8.5), squeeze=False)
    for ax, variant in zip(axes.flat, variants):
        _draw_panel(ax, mine[mine["variant"] == variant], PANEL_TITLES.get(variant, variant))
    for ax in list(axes.flat)[len(variants):]:
        ax.axis("off")
    fig.suptitle(f"Age comparison, zero-shot: {model} ({method}); blue = older, white = younger")
    fig.tight_layout()
    return save_png(fig, out, dpi=100, stand_ins=shown_stand_ins(stand_ins, [model]))


def _draw_panel(ax, panel: pd.DataFrame, title: str) -> None:
    if panel.empty:
        ax.set_title(f"{title}\n(no items)", fontsize=9)
        ax.axis("off")
        return
    a_values, b_values, matrix = grid_matrix(panel)
    cmap = ListedColormap(["white", OLDER_COLOUR]).with_extremes(bad="#d9d9d9")
    extent = (b_values[0] - 0.5, b_values[-1] + 0.5, a_values[0] - 0.5, a_values[-1] + 0.5)
    ax.imshow(np.ma.masked_invalid(matrix), cmap=cmap, vmin=0, vmax=1, origin="lower", extent=extent,
              interpolation="nearest", aspect="auto")
    accuracy = 100.0 * panel["correct"].mean()
    ax.set_title(f"{title}\nacc. {accuracy:.1f}% ({len(panel)} items)", fontsize=9)
    ax.set_xlabel("b (second value)")
    ax.set_ylabel("a (first value)")
    for spine in ax.spines.values():
        spine.set_linewidth(0.5)
