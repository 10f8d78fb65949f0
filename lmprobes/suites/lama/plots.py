"""Figure 2 of the LAMA paper: mean P@k on T-REx for k = 1…100, log x axis."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from lmprobes.figures import SERIES_COLOURS, mark_of_pass, save_png, series_colour, shown_stand_ins

# A line past the tenth repeats a colour with the next of these markers (none on the first ten).
MARKERS = (None, "o", "s", "^", "D", "v")
LEGEND_ROWS = 16
LEGEND_COLUMN_INCHES = 2.4


def precision_curve_figure(curve: pd.DataFrame, out: Path, corpus_label: str = "T-REx", *,
                           stand_ins: Collection[str] = (), shared_facts: bool = False) -> Figure:
    """One line per system (past ten a colour comes back with a marker, ``MARKERS``, and the legend moves
    beside the axes); ``stand_ins``: the suite's stand-ins, named in a note where the figure shows one;
    ``shared_facts``: the curve is over the facts every system keeps, said in the title."""
    systems = curve["system"].nunique()
    # Up to ten lines the legend sits in the axes; past ten, in columns of LEGEND_ROWS to the right.
    columns = -(-systems // LEGEND_ROWS) if systems > SERIES_COLOURS else 0
    fig, ax = plt.subplots(figsize=(6 + LEGEND_COLUMN_INCHES * columns, 4), constrained_layout=True)
    for i, (system, group) in enumerate(curve.groupby("system", sort=True)):
        style = "--" if system == "Freq" else "-"
        ax.plot(group["k"], group["p_at_k"], style, color=series_colour(i), marker=mark_of_pass(i, MARKERS),
                markersize=3, markevery=0.1, label=system)
    ax.set_xscale("log")
    ax.set_xlabel("k")
    ax.set_ylabel("mean P@k (%)")
    ax.set_ylim(0, 100)
    facts = ", shared facts" if shared_facts else ""
    ax.set_title(f"Mean P@k on {corpus_label}{facts} (macro over relations)")
    ax.grid(True, which="both", alpha=0.3)
    if columns:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), ncols=columns)
    elif not curve.empty:
        ax.legend(fontsize="small")
    return save_png(fig, out, dpi=120, stand_ins=shown_stand_ins(stand_ins, curve["system"]))
