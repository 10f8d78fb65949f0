"""oLMpics learning-curve summaries: seed means, WS, MAX and LANGSENSE (Talmor et al. 2020, §3.2-3.3).

Input is one row per trained run (``schema.CURVE_SCHEMA``): task, flavour, variant (``standard``,
``no_lang``, ``perturbed_lang``), model, setting (``mlp_mlm``, ``linear``, ``mc_qa``, ``mlm_baseline``,
``esim``), n_train, seed and the dev accuracy in percent. A *curve* is the seed-mean accuracy per N of one
(task, flavour, variant, model, setting), given to the summaries as a mapping N -> mean accuracy.

Conventions (the paper states the 7-point case only; the rest are ours, chosen to stay close to it):

- WS is the weighted mean of the curve with the paper's linearly decreasing weights
  ``WS_WEIGHTS`` for ``PAPER_N`` (footnote 3). Weights are always renormalised over the N a curve has,
  so a curve on a subset of ``PAPER_N`` (Always-Never has 1,004 training rows, so no 2K/4K points) gets
  the weights of its N scaled to sum to 1. A curve with an N outside ``PAPER_N`` needs explicit weights.
- ``linear_weights(ns)`` extends the paper's shape to any grid: weight ∝ 0.23 - 0.18·t, t = rank/(k-1)
  over the sorted N, i.e. the straight line through the paper's first six weights, from 0.23 at the
  smallest N to 0.05 at the largest (the paper rounds its last weight up to 0.07 so that the seven sum
  to 1). ``curve_weights`` picks the paper's weights when the grid fits in ``PAPER_N`` and this shape
  otherwise (the demo's small grids, e.g. N = 8, 16).
- MAX is the best seed-mean accuracy on the curve (not the best single seed).
- LANGSENSE is WS of the per-N differences standard - control, each clipped at 0 ("rounding negative
  numbers to zero"), over the N both curves have, with the weights of the standard curve's grid.
- Seed spread is the sample standard deviation (ddof 1): NaN for a single seed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

PAPER_N = (62, 125, 250, 500, 1000, 2000, 4000)
WS_WEIGHTS = (0.23, 0.20, 0.17, 0.14, 0.11, 0.08, 0.07)
PAPER_WEIGHTS = dict(zip(PAPER_N, WS_WEIGHTS))
# The paper's linear part runs from 0.23 down by 0.03 per step: 0.05 at the seventh point.
LINEAR_FIRST, LINEAR_LAST = 0.23, 0.05

CURVE_KEYS = ["task", "flavour", "variant", "model", "setting"]
POINT_KEYS = CURVE_KEYS + ["n_train"]
REQUIRED_COLUMNS = POINT_KEYS + ["seed", "accuracy"]
CONTROLS = {"langsense_pert": "perturbed_lang", "langsense_nolang": "no_lang"}
SUMMARY_COLUMNS = ["task", "flavour", "model", "setting", "ws", "max", "langsense_pert", "langsense_nolang",
                   "n_seeds", "ns", "weighting"]


class CurveError(ValueError):
    """Learning-curve rows or a curve that cannot be summarised; the message names the curve."""


def linear_weights(ns: Iterable[int]) -> dict[int, float]:
    """The paper's linearly decreasing weight shape over any grid of N, summing to 1."""
    grid = sorted({int(n) for n in ns})
    if not grid:
        raise CurveError("linear_weights: no N given")
    if len(grid) == 1:
        return {grid[0]: 1.0}
    raw = [LINEAR_FIRST - (LINEAR_FIRST - LINEAR_LAST) * rank / (len(grid) - 1) for rank in range(len(grid))]
    total = sum(raw)
    return {n: w / total for n, w in zip(grid, raw)}


def curve_weights(ns: Iterable[int]) -> tuple[dict[int, float], str]:
    """The weights for a grid and their name: ``paper``, ``paper_renormalised`` or ``linear``."""
    grid = {int(n) for n in ns}
    if grid <= set(PAPER_N):
        return dict(PAPER_WEIGHTS), "paper" if grid == set(PAPER_N) else "paper_renormalised"
    return linear_weights(grid), "linear"


def weighted_score(points: Mapping[int, float], weights: Mapping[int, float] | None = None) -> float:
    """WS: the weighted mean of the curve, the weights renormalised over the curve's N."""
    if not points:
        raise CurveError("weighted_score: empty curve")
    weights = PAPER_WEIGHTS if weights is None else weights
    missing = sorted(int(n) for n in points if n not in weights)
    if missing:
        raise CurveError(f"weighted_score: N {missing} have no weight (the paper's N are {list(PAPER_N)}; "
                         "pass weights=linear_weights(ns) for another grid)")
    used = np.array([weights[n] for n in points], dtype=float)
    values = np.array([points[n] for n in points], dtype=float)
    return float(np.dot(used, values) / used.sum())


def max_score(points: Mapping[int, float]) -> float:
    """MAX: the best (seed-mean) accuracy on the curve."""
    if not points:
        raise CurveError("max_score: empty curve")
    return float(max(points.values()))


def language_sensitivity(standard: Mapping[int, float], control: Mapping[int, float],
                         weights: Mapping[int, float] | None = None) -> float:
    """LANGSENSE: WS of max(standard - control, 0) over the N both curves have."""
    common = sorted(set(standard) & set(control))
    if not common:
        raise CurveError(f"language_sensitivity: the curves share no N (standard {sorted(standard)}, "
                         f"control {sorted(control)})")
    gaps = {n: max(standard[n] - control[n], 0.0) for n in common}
    return weighted_score(gaps, weights)


def check_curves(curves: pd.DataFrame) -> None:
    """Raise ``CurveError`` naming the problem: missing columns, repeated runs, accuracy not in percent."""
    missing = [column for column in REQUIRED_COLUMNS if column not in curves.columns]
    if missing:
        raise CurveError(f"learning-curve rows: columns {missing} missing")
    runs = curves.groupby(POINT_KEYS + ["seed"], sort=True).size()
    repeated = runs[runs > 1]
    if len(repeated):
        *point, seed = repeated.index[0]
        raise CurveError(f"learning-curve rows: run {'/'.join(map(str, point))} seed {seed} appears "
                         f"{repeated.iloc[0]} times")
    accuracy = pd.to_numeric(curves["accuracy"], errors="coerce")
    bad = curves[~accuracy.between(0.0, 100.0)]
    if len(bad):
        raise CurveError(f"learning-curve rows: accuracy {bad.iloc[0]['accuracy']} of {_describe(bad.iloc[0])} "
                         "is not a percentage in [0, 100]")


def seed_means(curves: pd.DataFrame) -> pd.DataFrame:
    """Mean, sample std and number of seeds of the accuracy per (task, flavour, variant, model, setting, N)."""
    check_curves(curves)
    grouped = curves.groupby(POINT_KEYS, sort=True)["accuracy"]
    means = grouped.agg(accuracy="mean", std="std", n_seeds="count").reset_index()
    return means.astype({"n_train": int, "n_seeds": int})


def curve_points(means: pd.DataFrame) -> dict[int, float]:
    """One curve of ``seed_means`` as N -> mean accuracy."""
    return {int(n): float(a) for n, a in zip(means["n_train"], means["accuracy"])}


def summarise(curves: pd.DataFrame) -> pd.DataFrame:
    """One row per standard curve (task, flavour, model, setting): WS, MAX and the two LANGSENSE.

    LANGSENSE uses the control curve of the same (task, flavour, model, setting); NaN when it is missing.
    ``n_seeds`` is the fewest seeds behind any point of the standard curve; ``ns`` its N, ``;``-joined.
    """
    means = seed_means(curves)
    by_curve = {key: group for key, group in means.groupby(CURVE_KEYS, sort=True)}
    records = []
    for (task, flavour, variant, model, setting), group in by_curve.items():
        if variant != "standard":
            continue
        points = curve_points(group)
        weights, weighting = curve_weights(points)
        record = {"task": task, "flavour": flavour, "model": model, "setting": setting,
                  "ws": weighted_score(points, weights), "max": max_score(points)}
        for column, control in CONTROLS.items():
            control_group = by_curve.get((task, flavour, control, model, setting))
            record[column] = (np.nan if control_group is None
                              else language_sensitivity(points, curve_points(control_group), weights))
        record.update(n_seeds=int(group["n_seeds"].min()), ns=";".join(str(n) for n in sorted(points)),
                      weighting=weighting)
        records.append(record)
    return pd.DataFrame.from_records(records, columns=SUMMARY_COLUMNS)


def _describe(row: pd.Series) -> str:
    return "/".join(str(row[key]) for key in POINT_KEYS)
