"""Figure 2 of the LAMA paper: mean P@k on T-REx for k = 1…100, log x axis."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from lmprobes.figures import save_png, shown_stand_ins


def precision_curve_figure(curve: pd.DataFrame, out: Path, corpus_label: str = "T-REx", *,
                           stand_ins: Collection[str] = (), shared_facts: bool = False) -> Figure:
    """One line per system; ``stand_ins``: the suite's stand-ins, named in a note where the figure shows one;
    ``shared_facts``: the curve is over the facts every system keeps, said in the title."""
    fig, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
    for system, group in curve.groupby("system", sort=True):
        style = "--" if system == "Freq" else "-"
        ax.plot(group["k"], group["p_at_k"], style, label=system)
    ax.set_xscale("log")
    ax.set_xlabel("k")
    ax.set_ylabel("mean P@k (%)")
    ax.set_ylim(0, 100)
    facts = ", shared facts" if shared_facts else ""
    ax.set_title(f"Mean P@k on {corpus_label}{facts} (macro over relations)")
    ax.grid(True, which="both", alpha=0.3)
    if not curve.empty:
        ax.legend(fontsize="small")
    return save_png(fig, out, dpi=120, stand_ins=shown_stand_ins(stand_ins, curve["system"]))
