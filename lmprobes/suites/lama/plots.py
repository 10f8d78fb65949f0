"""Figure 2 of the LAMA paper: mean P@k on T-REx for k = 1…100, log x axis."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from lmprobes.figures import (
    SERIES_COLOURS,
    draw_legend,
    legend_groups,
    legend_layout,
    line_looks,
    plot_style,
    save_png,
    shown_stand_ins,
    system_factors,
)
from lmprobes.suites.lama.tables import FREQ, PAPER_SYSTEMS

# Where the systems do not factor into models and methods: a line past the tenth repeats a colour with the
# next of these markers (none on the first ten).
MARKERS = (None, "o", "s", "^", "D", "v")
LEGEND_ROWS = 16
LEGEND_COLUMN_INCHES = 2.4
# Drawn as references, in black: the Freq baseline and the paper's systems.
REFERENCES = (FREQ, *PAPER_SYSTEMS.values())


def precision_curve_figure(curve: pd.DataFrame, out: Path, corpus_label: str = "T-REx", *,
                           stand_ins: Collection[str] = (), shared_facts: bool = False) -> Figure:
    """One line per system, coloured by model and styled by method (``lmprobes.figures.line_looks``), Freq
    and the paper's systems black, with a legend of the models, then of the methods, beside the axes;
    systems that do not factor take a colour each (past ten a colour comes back with a marker,
    ``MARKERS``, and the legend moves beside the axes). ``stand_ins``: the suite's stand-ins, named in a
    note where the figure shows one; ``shared_facts``: the curve is over the facts every system keeps,
    said in the title."""
    looks = line_looks(sorted(set(curve["system"])), system_factors(curve), REFERENCES,
                       [("-", marker) for marker in MARKERS])
    systems = len(looks.systems)
    if looks.factored:
        layout = legend_layout(legend_groups(looks), LEGEND_ROWS)
        columns = layout.columns
    else:  # up to ten lines the legend sits in the axes; past ten, in columns of LEGEND_ROWS to the right
        columns = -(-systems // LEGEND_ROWS) if systems > SERIES_COLOURS else 0
    fig, ax = plt.subplots(figsize=(6 + LEGEND_COLUMN_INCHES * columns, 4), constrained_layout=True)
    for system, group in curve.groupby("system", sort=True):
        look = looks.systems[system]
        ax.plot(group["k"], group["p_at_k"], **plot_style(look, 3), markevery=0.1, label=system)
    ax.set_xscale("log")
    ax.set_xlabel("k")
    ax.set_ylabel("mean P@k (%)")
    ax.set_ylim(0, 100)
    facts = ", shared facts" if shared_facts else ""
    ax.set_title(f"Mean P@k on {corpus_label}{facts} (macro over relations)")
    ax.grid(True, which="both", alpha=0.3)
    beside = {"fontsize": "small", "loc": "upper left", "bbox_to_anchor": (1.01, 1.0)}
    if looks.factored:
        draw_legend(ax, layout, **beside)
    elif columns:
        ax.legend(ncols=columns, **beside)
    elif not curve.empty:
        ax.legend(fontsize="small")
    return save_png(fig, out, dpi=120, stand_ins=shown_stand_ins(stand_ins, curve["system"]))
