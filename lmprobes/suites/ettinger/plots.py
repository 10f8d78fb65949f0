"""Figures: accuracy per condition and model, reproduction beside the paper."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from lmprobes.figures import LEGEND_COLUMNS, legend_inches, mark_of_pass, save_png, series_colour, shown_stand_ins

PANELS = (("table4", "CPRAG-102"), ("table7", "ROLE-88"), ("table11", "NEG-136-SIMP (TA)"))
PAPER_HATCH = "//"
# A reproduced series past the tenth repeats a colour with the next of these hatches (the paper's is "//").
HATCHES = (None, "..", "xx", "oo", "++", "--")
# A panel is 5 in wide, wider where its bars (series x conditions) need more than 0.045 in each.
PANEL_INCHES = 5.0
BAR_INCHES = 0.045


def accuracy_figure(tidy: pd.DataFrame, out: Path, *, stand_ins: Collection[str] = ()) -> Figure:
    """One panel per test set: grouped bars of accuracy at k=1 and k=5, sd as error bars (ours and the
    paper's; the HuggingFace rerun's few cells stay in the tables); ``stand_ins``: the suite's stand-ins,
    named in a note where the figure shows one. Past ten series a colour comes back with a hatch of its own
    (``HATCHES``), and a panel widens with its bars (``BAR_INCHES``) and the figure with its legend."""
    tidy = tidy[tidy["source"] != "hf_rerun"]
    drawn = tidy[tidy["table"].isin([table for table, _ in PANELS])]
    shown = drawn[drawn["source"] == "reproduction"]
    series = len(drawn.drop_duplicates(["model", "source"]))
    categories = max((len(rows.drop_duplicates(["row", "column"])) for _, rows in drawn.groupby("table")), default=0)
    width = max(PANEL_INCHES, BAR_INCHES * series * categories + 0.5)
    columns = int(LEGEND_COLUMNS * width / PANEL_INCHES)  # a wider figure, a wider legend
    fig, axes = plt.subplots(1, len(PANELS), figsize=(width * len(PANELS), 4 + legend_inches(series, columns)),
                             constrained_layout=True)
    for ax, (table, title) in zip(axes, PANELS):
        _panel(ax, tidy[tidy["table"] == table], title)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), columns), fontsize="small")
    return save_png(fig, out, dpi=120, stand_ins=shown_stand_ins(stand_ins, shown["model"]))


def _panel(ax, sub: pd.DataFrame, title: str) -> None:
    sub = sub.assign(
        series=sub["model"] + np.where(sub["source"] == "paper", " (paper)", ""),
        category=sub["row"] + " " + sub["column"],
    )
    categories = list(dict.fromkeys(sub["category"]))
    series = list(dict.fromkeys(sub["series"]))
    width = 0.8 / max(len(series), 1)
    x = np.arange(len(categories))
    for i, name in enumerate(series):
        s = sub[sub["series"] == name].set_index("category").reindex(categories)
        hatch = PAPER_HATCH if name.endswith("(paper)") else mark_of_pass(i, HATCHES)
        ax.bar(x + i * width, s["value"], width, yerr=s["sd"].fillna(0), label=name, hatch=hatch, color=series_colour(i))
    ax.set_xticks(x + width * (len(series) - 1) / 2, categories, rotation=45, ha="right", fontsize="small")
    ax.set_ylim(0, 100)
    ax.set_ylabel("accuracy (%)")
    ax.set_title(title)
