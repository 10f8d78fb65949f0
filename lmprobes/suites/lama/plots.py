"""Figure 2 of the LAMA paper: mean P@k on T-REx for k = 1…100, log x axis."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from lmprobes.io import atomic_path


def precision_curve_figure(curve: pd.DataFrame, out: Path, corpus_label: str = "T-REx") -> None:
    fig, ax = plt.subplots(figsize=(6, 4), constrained_layout=True)
    for system, group in curve.groupby("system", sort=True):
        style = "--" if system == "Freq" else "-"
        ax.plot(group["k"], group["p_at_k"], style, label=system)
    ax.set_xscale("log")
    ax.set_xlabel("k")
    ax.set_ylabel("mean P@k (%)")
    ax.set_ylim(0, 100)
    ax.set_title(f"Mean P@k on {corpus_label} (macro over relations)")
    ax.grid(True, which="both", alpha=0.3)
    if not curve.empty:
        ax.legend(fontsize="small")
    with atomic_path(out) as tmp:
        fig.savefig(tmp, format="png", dpi=120, metadata={"Software": None})
    plt.close(fig)
