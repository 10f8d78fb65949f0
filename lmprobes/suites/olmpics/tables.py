"""The zero-shot column of oLMpics Tables 2, 3, 5, 7, 9 and 11, with the published numbers beside.

Accuracy is the percentage of correct predictions over the scored (kept) items of the dev split
of the standard variant; rows skipped for an unknown choice are counted (``n_items`` against
``n_kept``) but not scored. A reproduced system is ``model`` for the original MC-MLM method and
``model (method)`` otherwise, on the release; items generated from sources are separate systems
marked ``[generated]``; published systems are the paper's rows (``RoBERTa-L (paper)``) and
the HuggingFace rerun of RoBERTa-L (``RoBERTa-L (HF)``), read from ``resources/olmpics/published.csv``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from lmprobes.io import write_table
from lmprobes.suites.olmpics.learning_tables import BASELINE_LABELS, LEGACY_MODEL_NAMES
from lmprobes.suites.olmpics.schema import TASKS

# The paper's zero-shot tables, in the paper's order, and the short column titles of the Markdown.
ZERO_SHOT_TABLES = {
    "age_comparison": ("table2", "Age (T2)"),
    "objects_comparison": ("table3", "Objects (T3)"),
    "always_never": ("table5", "Always-Never (T5)"),
    "antonym_negation": ("table7", "Antonym neg. (T7)"),
    "taxonomy_conjunction": ("table9", "Taxonomy conj. (T9)"),
    "multihop_composition": ("table11", "Multi-hop (T11)"),
}
ZERO_SHOT_COLUMNS = ["table", "task", "source", "flavour", "system", "model", "method", "accuracy", "chance", "n_items",
                     "n_kept", "n_multi_piece", "n_ties"]
ZERO_SHOT_COUNTS = ("n_items", "n_kept", "n_multi_piece", "n_ties")
SOURCE_ORDER = {"reproduction": 0, "paper": 1, "hf_reproduction": 2}


def system_name(model: str, method: str, flavour: str = "release") -> str:
    name = model if method == "mc_mlm" else f"{model} ({method})"
    return name if flavour == "release" else f"{name} [{flavour}]"


def read_published(path: str | Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype={"value": float})


def zero_shot_accuracy(scores: pd.DataFrame, *, split: str = "dev", variant: str = "standard") -> pd.DataFrame:
    """Reproduced rows: accuracy (%) per (task, flavour, model, method) over the kept items of ``split``."""
    chosen = scores[(scores["split"] == split) & (scores["variant"] == variant)
                    & scores["task"].isin(list(ZERO_SHOT_TABLES))]
    records = []
    keys = ["task", "flavour", "model", "method"]
    for (task, flavour, model, method), group in chosen.groupby(keys, sort=True):
        kept = group[group["kept"].astype(bool)]
        records.append({
            "table": ZERO_SHOT_TABLES[task][0], "task": task, "source": "reproduction", "flavour": flavour,
            "system": system_name(model, method, flavour), "model": model, "method": method,
            "accuracy": 100.0 * kept["correct"].astype(bool).mean() if len(kept) else np.nan,
            "chance": 100.0 / TASKS[task].n_choices, "n_items": len(group), "n_kept": len(kept),
            "n_multi_piece": int((kept["n_multi_piece"] > 0).sum()), "n_ties": int(kept["tie"].astype(bool).sum()),
        })
    frame = pd.DataFrame.from_records(records, columns=ZERO_SHOT_COLUMNS)
    return frame.loc[_model_order(frame, ["task"])].reset_index(drop=True)


def _model_order(frame: pd.DataFrame, first: list[str]) -> pd.Index:
    """``frame``'s index sorted by ``first``, then model and method, a system's release flavour before
    its generated one (so that the two read as a pair)."""
    keyed = frame.assign(generated=frame["flavour"] != "release")
    return keyed.sort_values([*first, "model", "method", "generated"], kind="stable").index


def published_rows(published: pd.DataFrame) -> pd.DataFrame:
    """The published zero-shot numbers in the tidy layout of ``zero_shot_accuracy``; the baseline is
    named as in ``learning_curves.csv`` (``mlm_baseline``, ``MLM-Baseline (paper)``), so the two join."""
    paper = published[(published["column"] == "zero_shot") & published["task"].isin(list(ZERO_SHOT_TABLES))]
    models = paper["model"].replace(LEGACY_MODEL_NAMES)
    labels = [BASELINE_LABELS.get(model, label) for model, label in zip(models, paper["paper_label"])]
    systems = [f"{label} (paper)" if source == "paper" else label for label, source in zip(labels, paper["source"])]
    return pd.DataFrame({
        "table": paper["table"], "task": paper["task"], "source": paper["source"], "flavour": "release",
        "system": systems, "model": models, "method": "mc_mlm", "accuracy": paper["value"].astype(float),
        "chance": [100.0 / TASKS[t].n_choices for t in paper["task"]],
    }).reindex(columns=ZERO_SHOT_COLUMNS).reset_index(drop=True)


def zero_shot_table(scores: pd.DataFrame, published: pd.DataFrame, **filters) -> pd.DataFrame:
    """Tidy: the reproduced rows, then the published ones, tasks in the paper's table order."""
    tidy = pd.concat([zero_shot_accuracy(scores, **filters), published_rows(published)], ignore_index=True)
    tidy = tidy.astype(dict.fromkeys(ZERO_SHOT_COUNTS, "Int64"))  # counts, not floats, beside the paper's gaps
    order = {task: i for i, task in enumerate(ZERO_SHOT_TABLES)}
    keys = pd.DataFrame({"t": tidy["task"].map(order), "s": tidy["source"].map(SOURCE_ORDER)})
    return tidy.loc[keys.sort_values(["t", "s"], kind="stable").index].reset_index(drop=True)


def zero_shot_wide(tidy: pd.DataFrame) -> pd.DataFrame:
    """The paper's layout turned sideways: one line per system, one column per table; ours first, by model
    (``_model_order``), then the paper's and the rerun's in the paper's order."""
    ours = tidy["source"] == "reproduction"
    published = tidy[~ours].sort_values("source", key=_source_rank, kind="stable")
    systems = list(dict.fromkeys([*tidy.loc[_model_order(tidy[ours], []), "system"], *published["system"]]))
    wide = tidy.pivot_table(index="system", columns="task", values="accuracy", aggfunc="first", dropna=False)
    wide = wide.reindex(index=systems, columns=list(ZERO_SHOT_TABLES))
    wide.columns = [ZERO_SHOT_TABLES[task][1] for task in wide.columns]
    return wide.reset_index().rename(columns={"system": "System"})


def write_zero_shot(tidy: pd.DataFrame, csv_path, md_path) -> None:
    generated = ("[generated]: the task's dev items generated from sources by this workflow, not the paper's "
                 "data; " if (tidy["flavour"] == "generated").any() else "")
    note = ("\nAccuracy (%) on the dev split, zero-shot (no training). Reproduced systems first; "
            f"{generated}(paper): Talmor et al. 2020; RoBERTa-L (HF): the HuggingFace rerun. Items scored / read, "
            "multi-piece items and ties are in the CSV.\n")
    write_table(tidy, csv_path, md_path, title="oLMpics zero-shot (Tables 2, 3, 5, 7, 9, 11)",
                markdown_frame=zero_shot_wide(tidy), note=note)


def _source_rank(source: pd.Series) -> pd.Series:
    return source.map(SOURCE_ORDER)
