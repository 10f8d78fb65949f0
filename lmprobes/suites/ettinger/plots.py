"""Figures: accuracy per condition and model, reproduction beside the paper."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure

from lmprobes.figures import LEGEND_COLUMNS, legend_inches, mark_of_pass, save_png, series_colour, shown_stand_ins

PANELS = (("table4", "CPRAG-102"), ("table7", "ROLE-88"), ("table11", "NEG-136-SIMP (TA)"))
PAPER_HATCH = "//"
# The paper's bars of a model: its colour this far towards white, hatched and edged in the colour itself.
PAPER_TINT = 0.55
# A model past the tenth repeats a colour with the next of these hatches (its paper bars add "//").
HATCHES = (None, "..", "xx", "oo", "++", "--")
# A panel is 5 in wide, wider where its bars (series x conditions) need more than 0.045 in each.
PANEL_INCHES = 5.0
BAR_INCHES = 0.045


def accuracy_figure(tidy: pd.DataFrame, out: Path, *, stand_ins: Collection[str] = ()) -> Figure:
    """One panel per test set: grouped bars of accuracy at k=1 and k=5, sd as error bars (ours and the
    paper's; the HuggingFace rerun's few cells stay in the tables); ``stand_ins``: the suite's stand-ins,
    named in a note where the figure shows one. Past ten models a colour comes back with a hatch of its own
    (``HATCHES``), and a panel widens with its bars (``BAR_INCHES``) and the figure with its legend.

    A colour per model, in every panel: the paper's bars of a model (``with_published`` pairs a paper line
    with our model of its name, as the tables do) take our bars' colour, lighter and hatched (``bar_look``),
    and sit just before them, so that a model's two read as a pair."""
    tidy = tidy[tidy["source"] != "hf_rerun"]
    drawn = tidy[tidy["table"].isin([table for table, _ in PANELS])]
    shown = drawn[drawn["source"] == "reproduction"]
    series = len(drawn.drop_duplicates(["model", "source"]))
    categories = max((len(rows.drop_duplicates(["row", "column"])) for _, rows in drawn.groupby("table")), default=0)
    width = max(PANEL_INCHES, BAR_INCHES * series * categories + 0.5)
    columns = int(LEGEND_COLUMNS * width / PANEL_INCHES)  # a wider figure, a wider legend
    fig, axes = plt.subplots(1, len(PANELS), figsize=(width * len(PANELS), 4 + legend_inches(series, columns)),
                             constrained_layout=True)
    colours = model_colours(drawn)
    for ax, (table, title) in zip(axes, PANELS):
        _panel(ax, tidy[tidy["table"] == table], title, colours)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), columns), fontsize="small")
    return save_png(fig, out, dpi=120, stand_ins=shown_stand_ins(stand_ins, shown["model"]))


def _panel(ax, sub: pd.DataFrame, title: str, colours: dict[str, int]) -> None:
    paper = sub["source"] == "paper"
    sub = sub.assign(series=sub["model"] + np.where(paper, " (paper)", ""), category=sub["row"] + " " + sub["column"])
    categories = list(dict.fromkeys(sub["category"]))
    series = list(dict.fromkeys(zip(sub["series"], sub["model"], paper)))
    width = 0.8 / max(len(series), 1)
    x = np.arange(len(categories))
    for i, (name, model, published) in enumerate(series):
        s = sub[sub["series"] == name].set_index("category").reindex(categories)
        look = bar_look(colours[model], published)
        ax.bar(x + i * width, s["value"], width, yerr=s["sd"].fillna(0), label=name, **look)
        _label_zero_bars(ax, x + i * width, s["value"], look.get("edgecolor", look.get("color")))
    ax.set_xticks(x + width * (len(series) - 1) / 2, categories, rotation=45, ha="right", fontsize="small")
    ax.set_ylim(0, 100)
    ax.set_ylabel("accuracy (%)")
    ax.set_title(title)


def _label_zero_bars(ax, xs: np.ndarray, values: pd.Series, colour) -> None:
    """A "0" in the series' colour over each bar of accuracy 0, which draws nothing and would otherwise read
    as a cell the model was not scored on."""
    for x in xs[(values == 0).to_numpy()]:
        ax.annotate("0", (x, 0), xytext=(0, 1), textcoords="offset points", ha="center", va="bottom",
                    fontsize="xx-small", color=colour)


def model_colours(drawn: pd.DataFrame) -> dict[str, int]:
    """Each model's colour index: ours in order of appearance, then the paper's systems without one of ours."""
    ours = drawn.loc[drawn["source"] == "reproduction", "model"]
    return {model: i for i, model in enumerate(dict.fromkeys([*ours, *drawn["model"]]))}


def bar_look(index: int, paper: bool) -> dict:
    """The bars of the ``index``-th model: its colour (and past ten a hatch, ``HATCHES``); the paper's the same
    colour lighter (``PAPER_TINT``), hatched ``PAPER_HATCH`` and edged in the colour."""
    colour, hatch = series_colour(index), mark_of_pass(index, HATCHES)
    if not paper:
        return {"hatch": hatch, "color": colour}
    tint = [channel + PAPER_TINT * (1 - channel) for channel in to_rgb(colour)]
    return {"hatch": PAPER_HATCH + (hatch or ""), "facecolor": tint, "edgecolor": colour, "linewidth": 0.8}
