"""Aggregate BLiMP pair decisions into the paper's accuracies: per paradigm, per category (the mean
of its paradigms) and overall (the mean of all paradigms)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from lmprobes.suites.blimp.paradigms import CATEGORIES

TALLY_COLUMNS = ["n_pairs", "n_correct"]


def paradigm_tallies(scores: pd.DataFrame, keys: Sequence[str] = ("model", "method")) -> pd.DataFrame:
    """Each paradigm's kept pairs and how many of them are correct, per ``keys``: what the accuracies
    take of a score frame. Tallies add up, so the tables job reduces each score file to its own
    (one line per system and paradigm) and never holds the pairs of all files at once."""
    kept = scores[scores["kept"].astype(bool)]
    correct = kept["correct"].astype(bool)
    group = [kept[key] for key in (*keys, "paradigm", "category")]
    tallies = correct.groupby(group, sort=True).agg(n_pairs="size", n_correct="sum").reset_index()
    return tallies.astype({"n_pairs": "int64", "n_correct": "int64"})


def paradigm_accuracy(scores: pd.DataFrame, keys: Sequence[str] = ("model", "method")) -> pd.DataFrame:
    """Accuracy (fraction correct) of each paradigm over its kept pairs, per ``keys``; ``scores``
    holds pair decisions or their ``paradigm_tallies`` (of one frame, or of several concatenated)."""
    if set(TALLY_COLUMNS) <= set(scores.columns):
        group = [*keys, "paradigm", "category"]
        out = scores.groupby(group, sort=True)[TALLY_COLUMNS].sum().reset_index()
    else:
        out = paradigm_tallies(scores, keys)
    out["accuracy"] = out["n_correct"] / out["n_pairs"]
    return out


def category_accuracy(paradigms: pd.DataFrame, keys: Sequence[str] = ("model", "method")) -> pd.DataFrame:
    """Each category's mean of its paradigm accuracies, categories in the paper's order."""
    out = _mean_of_paradigms(paradigms, [*keys, "category"])
    order = {category: i for i, category in enumerate(CATEGORIES)}
    out["_order"] = out["category"].map(lambda c: order.get(c, len(order)))
    return out.sort_values([*keys, "_order", "category"], kind="stable").drop(columns="_order").reset_index(drop=True)


def overall(paradigms: pd.DataFrame, keys: Sequence[str] = ("model", "method")) -> pd.DataFrame:
    """The headline number: the mean of the paradigm accuracies (not of the category means)."""
    return _mean_of_paradigms(paradigms, list(keys))


def _mean_of_paradigms(paradigms: pd.DataFrame, group: list[str]) -> pd.DataFrame:
    if not group:
        return pd.DataFrame([{"n_paradigms": len(paradigms), "accuracy": paradigms["accuracy"].mean()}])
    grouped = paradigms.groupby(group, sort=True)["accuracy"]
    return grouped.agg(n_paradigms="size", accuracy="mean").reset_index()
