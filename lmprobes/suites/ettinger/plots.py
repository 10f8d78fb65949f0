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

from lmprobes.figures import save_png, shown_stand_ins

PANELS = (("table4", "CPRAG-102"), ("table7", "ROLE-88"), ("table11", "NEG-136-SIMP (TA)"))


def accuracy_figure(tidy: pd.DataFrame, out: Path, *, stand_ins: Collection[str] = ()) -> Figure:
    """One panel per test set: grouped bars of accuracy at k=1 and k=5, sd as error bars (ours and the
    paper's; the HuggingFace rerun's few cells stay in the tables); ``stand_ins``: the suite's stand-ins,
    named in a note where the figure shows one."""
    tidy = tidy[tidy["source"] != "hf_rerun"]
    shown = tidy[tidy["table"].isin([table for table, _ in PANELS]) & (tidy["source"] == "reproduction")]
    fig, axes = plt.subplots(1, len(PANELS), figsize=(5 * len(PANELS), 4), constrained_layout=True)
    for ax, (table, title) in zip(axes, PANELS):
        _panel(ax, tidy[tidy["table"] == table], title)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 4), fontsize="small")
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
        hatch = "//" if name.endswith("(paper)") else None
        ax.bar(x + i * width, s["value"], width, yerr=s["sd"].fillna(0), label=name, hatch=hatch)
    ax.set_xticks(x + width * (len(series) - 1) / 2, categories, rotation=45, ha="right", fontsize="small")
    ax.set_ylim(0, 100)
    ax.set_ylabel("accuracy (%)")
    ax.set_title(title)
