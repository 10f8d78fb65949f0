"""The learning-curve report: Tables 2-11 and Table 12's medals beside the paper's, one figure per task and
the MC-MLM vs MC-QA figures, from the curve files and the zero-shot scores (torch-free)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

import pandas as pd

from lmprobes.io import read_metadata, read_parquet
from lmprobes.suites.olmpics.curve_plots import plot_learning_curves, plot_setup_comparison
from lmprobes.suites.olmpics.learning_tables import single_hop_note, write_learning_tables
from lmprobes.suites.olmpics.tables import read_published, zero_shot_accuracy


def _has_mc_qa_runs(frame: pd.DataFrame, task: str) -> bool:
    return bool(((frame["task"] == task) & (frame["setting"] == "mc_qa")).any())


def make_learning_tables(curves: Sequence[Path], zero_shot: Sequence[Path], published: Path, tables: Sequence[Path],
                         figures: Sequence[Path], *, tasks: Sequence[str], comparison_figures: Sequence[Path] = (),
                         comparison_tasks: Sequence[str] = (), stand_ins: Collection[str] = (),
                         models: Sequence[str] = ()) -> None:
    """Tables 2-11 and the medals of Table 12 beside the paper's; one learning-curve figure per task and one
    MC-MLM vs MC-QA figure (Figure 2D) per compared task; ``stand_ins``: the tiny models and configured
    stand-ins (baselines included), named in each figure that shows them; ``models``: the configured
    models, in order, which number their colours in every figure."""
    frames = [read_parquet(path) for path in curves]
    every = pd.concat(frames, ignore_index=True)
    trained, untrained = every[every["n_train"] > 0], every[every["n_train"] == 0]
    scores = [read_parquet(path) for path in zero_shot]
    accuracy = zero_shot_accuracy(pd.concat(scores, ignore_index=True)) if scores else pd.DataFrame(
        columns=["task", "flavour", "model", "method", "accuracy"])
    baseline = untrained[untrained["variant"] == "standard"].groupby(["task", "flavour", "model"], as_index=False)[
        "accuracy"].mean().assign(method="mc_mlm")
    accuracy = pd.concat([accuracy[["task", "flavour", "model", "method", "accuracy"]], baseline], ignore_index=True)
    out_dir = Path(tables[0]).parent
    encyclopedic = [path for path, frame in zip(curves, frames, strict=True)
                    if _has_mc_qa_runs(frame, "encyclopedic_composition")]
    notes = {"encyclopedic_composition": single_hop_note([read_metadata(path).get("single_hop_items")
                                                          for path in encyclopedic])} if encyclopedic else {}
    write_learning_tables(trained, accuracy, read_published(published), out_dir, task_notes=notes)
    for task, figure in zip(tasks, figures, strict=True):
        plot_learning_curves(trained, figure, task, zero_shot=accuracy, stand_ins=stand_ins, model_order=models)
    for task, figure in zip(comparison_tasks, comparison_figures, strict=True):
        plot_setup_comparison(trained, figure, task, zero_shot=accuracy, stand_ins=stand_ins, model_order=models)
