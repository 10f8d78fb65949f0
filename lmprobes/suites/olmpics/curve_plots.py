"""oLMpics learning curves with their controls, as small multiples (Figures 1, 2 and 4 style), and the
MC-MLM against MC-QA comparison of Figure 2D.

One panel per model (shared y; five to a row, as the paper's five models): dev accuracy (%, mean over seeds)
against the number of training examples N on a log2 axis with a tick at every N. In each panel the standard curve is solid, NO LANG
dashed and PERTURBED LANG dotted, in the model's colour, with a ±1 std band over seeds (none for a
single seed); the task's baseline (MLM-BASELINE for the MC-MLM ``mlp_mlm`` setting, ESIM for MC-QA)
is grey and chance a thin black line; the legend, in the first panel, keys each variant any panel draws
in black (no model's colour). Given the zero-shot accuracies, an MC-MLM standard curve (and the
MLM-BASELINE's, untrained) starts at its zero-shot point, at a tick "0" one log2 step left of the
smallest N, as the paper's curves do ("learning curves (including zero-shot)", Figure 1); MC-QA has
none (its head cannot be pre-trained, Section 3.3). Figure 2D puts every model on one axis: its
MLP_MLM curve solid and its MC-QA curve dashed, in its colour, standard variant (past ten models a colour
comes back with another marker). A model has one colour in every figure of the suite: its place in
``model_order`` (the config's ``learning_curves.models``), not among the models a figure happens to draw
(``model_looks``). The PNGs carry no
software/date metadata, so the same curves give the same bytes; a figure showing one of ``stand_ins`` (a
model, or the baseline drawn in each panel) names them in a note under it (``lmprobes.figures``).
"""

from __future__ import annotations

import textwrap
from collections.abc import Collection, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import NullLocator

from lmprobes.figures import mark_of_pass, save_png, shown_stand_ins
from lmprobes.suites.olmpics.curves import CurveError, seed_means
from lmprobes.suites.olmpics.learning_tables import BASELINE_LABELS, BASELINES, PAPER_MODELS
from lmprobes.suites.olmpics.schema import TASKS

MAIN_SETTING = {"mc_mlm": "mlp_mlm", "mc_qa": "mc_qa"}
BASELINE_SETTING = {"mc_mlm": "mlm_baseline", "mc_qa": "esim"}
VARIANT_STYLES = {"standard": ("-", "standard"), "no_lang": ("--", "no lang"),
                  "perturbed_lang": (":", "perturbed lang")}
BASELINE_COLOUR = "#8c8c8c"
# The legend keys the variants in black, told from chance (black too) by their markers and width: a grey
# key would read as the baseline's.
VARIANT_KEY_COLOUR = "black"
# A curve's line and markers, which the legend's keys repeat.
CURVE_LOOK = {"marker": "o", "markersize": 3, "linewidth": 1.4}
PANEL_COLOURS = plt.get_cmap("tab10").colors
# The learning curves' panels wrap after the paper's five models.
PANELS_PER_ROW = 5
# Figure 2D: a model past the tenth repeats a colour with the next of these markers; the legend takes
# columns of LEGEND_ROWS entries, each past the first widening the figure.
MARKERS = ("o", "s", "^", "D", "v", "P")
LEGEND_ROWS = 24
LEGEND_COLUMN_INCHES = 1.6


def n_label(n: int) -> str:
    """The paper's tick labels: 0 (zero-shot), 62, 125, ..., 1K, 2K, 4K."""
    return f"{n // 1000}K" if n >= 1000 and n % 1000 == 0 else str(n)


def plot_learning_curves(curves: pd.DataFrame, out_png: str | Path, task: str, *, flavour: str = "release",
                         setting: str | None = None, zero_shot: pd.DataFrame | None = None,
                         stand_ins: Collection[str] = (), model_order: Sequence[str] = ()) -> Figure:
    """The learning curves of ``task`` (``setting``: the setup's main one by default), one panel per model
    in its colour (``model_looks``); ``zero_shot`` (``tables.zero_shot_accuracy``'s rows) adds the MC-MLM
    curves' zero-shot points."""
    if task not in TASKS:
        raise CurveError(f"plot_learning_curves: unknown task {task!r}")
    setup = TASKS[task].setup
    setting = setting or MAIN_SETTING[setup]
    means = with_zero_shot(seed_means(curves), zero_shot, task, flavour, setting)
    means = means[(means["task"] == task) & (means["flavour"] == flavour)]
    models = _panel_models(means[means["setting"] == setting])
    if not models:
        raise CurveError(f"plot_learning_curves: no {setting} curves for task {task!r} ({flavour})")
    baseline = means[(means["model"] == BASELINES[setup]) & (means["setting"] == BASELINE_SETTING[setup])
                     & (means["variant"] == "standard")]
    ns = sorted(set(means["n_train"]))
    columns = min(len(models), PANELS_PER_ROW)
    rows = -(-len(models) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.2 * columns + 0.6, 3.4 * rows), sharey=True, squeeze=False)
    looks = model_looks(models, model_order)
    for ax, model in zip(axes.flat, models):
        mine = means[(means["model"] == model) & (means["setting"] == setting)]
        _draw_panel(ax, mine, baseline, looks[model][0], BASELINE_LABELS[BASELINES[setup]], zero_shot_x(ns))
        _format_axes(ax, ns, 100.0 / TASKS[task].n_choices, PAPER_MODELS.get(model, model))
    for ax in axes.flat[len(models):]:
        ax.axis("off")
    for row in axes:
        row[0].set_ylabel("dev accuracy (%)")
    drawn = set(means.loc[means["model"].isin(models) & (means["setting"] == setting), "variant"])
    axes[0][0].legend(handles=_legend_keys(drawn, BASELINE_LABELS[BASELINES[setup]] if len(baseline) else None),
                      fontsize=7, loc="best")
    title = f"{task} ({flavour}), {setting}: learning curves with controls"
    fig.suptitle(textwrap.fill(title, width=40 * columns), fontsize=10)  # one panel: two lines
    fig.tight_layout()
    shown = [*models, *baseline["model"].unique()]
    return save_png(fig, out_png, dpi=100, stand_ins=shown_stand_ins(stand_ins, shown))


SETUP_COMPARISON = (("mlp_mlm", "-", "MC-MLM"), ("mc_qa", "--", "MC-QA"))


def plot_setup_comparison(curves: pd.DataFrame, out_png: str | Path, task: str, *,
                          flavour: str = "release", zero_shot: pd.DataFrame | None = None,
                          stand_ins: Collection[str] = (), model_order: Sequence[str] = ()) -> Figure:
    """Figure 2D: the MLP_MLM and MC-QA curves of an MC-MLM ``task``, standard variant, every model on one axis
    in its colour and marker (``model_looks``; MLP_MLM from its zero-shot point when ``zero_shot`` gives it)."""
    means = setup_comparison_curves(curves, task, flavour)
    means = with_zero_shot(means, zero_shot, task, flavour, "mlp_mlm")
    models = _panel_models(means)
    entries = len(SETUP_COMPARISON) * len(models) + 1  # and chance
    columns = -(-entries // LEGEND_ROWS)
    fig, ax = plt.subplots(figsize=(7.4 + LEGEND_COLUMN_INCHES * (columns - 1), 3.8))
    looks = model_looks(models, model_order)
    for model in models:
        colour, marker = looks[model]
        for setting, style, label in SETUP_COMPARISON:
            curve = means[(means["model"] == model) & (means["setting"] == setting)].sort_values("n_train")
            _draw_curve(ax, curve, colour, style, f"{PAPER_MODELS.get(model, model)} {label}",
                        zero_shot_x(means["n_train"]), marker=marker)
    _format_axes(ax, sorted(set(means["n_train"])), 100.0 / TASKS[task].n_choices,
                 f"{task} ({flavour}): MC-MLM (MLP_MLM) vs MC-QA")
    ax.set_ylabel("dev accuracy (%)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), ncols=columns)
    fig.tight_layout()
    return save_png(fig, out_png, dpi=100, stand_ins=shown_stand_ins(stand_ins, models))


def setup_comparison_curves(curves: pd.DataFrame, task: str, flavour: str = "release") -> pd.DataFrame:
    """The seed means Figure 2D draws: standard-variant MLP_MLM and MC-QA points of the models that have both."""
    if task not in TASKS or TASKS[task].setup != "mc_mlm":
        raise CurveError(f"plot_setup_comparison: {task!r} is not an MC-MLM task")
    means = seed_means(curves)
    means = means[(means["task"] == task) & (means["flavour"] == flavour) & (means["variant"] == "standard")
                  & means["setting"].isin([setting for setting, _, _ in SETUP_COMPARISON])]
    both = means.groupby("model")["setting"].nunique() == len(SETUP_COMPARISON)
    means = means[means["model"].isin(both[both].index)]
    if means.empty:
        raise CurveError(f"plot_setup_comparison: no model has both mlp_mlm and mc_qa curves for {task!r} ({flavour})")
    return means.reset_index(drop=True)


def with_zero_shot(means: pd.DataFrame, zero_shot: pd.DataFrame | None, task: str, flavour: str,
                   setting: str) -> pd.DataFrame:
    """``means`` (``seed_means``) with each model's MC-MLM zero-shot accuracy as the N = 0 point of its
    standard ``mlp_mlm`` curve, and the MLM-BASELINE's as its own (the untrained head); unchanged for
    another setting or without ``zero_shot``. Only models with a curve get a point."""
    if zero_shot is None or setting != MAIN_SETTING["mc_mlm"]:
        return means
    baseline = BASELINES["mc_mlm"]
    rows = zero_shot[(zero_shot["task"] == task) & (zero_shot["flavour"] == flavour)
                     & (zero_shot["method"] == "mc_mlm") & zero_shot["model"].isin(set(means["model"]))]
    if rows.empty:  # concatenated, an empty frame's object columns would turn the accuracies to objects
        return means
    settings = [BASELINE_SETTING["mc_mlm"] if model == baseline else setting for model in rows["model"]]
    start = pd.DataFrame({"task": task, "flavour": flavour, "variant": "standard", "model": rows["model"],
                          "setting": settings, "n_train": 0, "accuracy": rows["accuracy"], "std": float("nan"),
                          "n_seeds": 1})
    return pd.concat([means, start.reindex(columns=means.columns)], ignore_index=True)


def _panel_models(means: pd.DataFrame) -> list[str]:
    """The models with a curve, the paper's five first in the paper's order, baselines left out."""
    models = sorted(set(means["model"]) - set(BASELINE_LABELS))
    paper_order = list(PAPER_MODELS)
    return sorted(models, key=lambda m: (paper_order.index(m) if m in paper_order else len(paper_order), m))


def model_looks(models: Sequence[str], order: Sequence[str] = ()) -> dict[str, tuple]:
    """Each of ``models``' (colour, Figure 2D marker): the i-th of ``order`` (the suite's models, in the
    config's order) takes the i-th colour, so a model looks the same in every figure, and appending a
    model to the config recolours none; models ``order`` lacks follow it, as drawn."""
    numbers = {model: i for i, model in enumerate(dict.fromkeys([*order, *models]))}
    return {model: (PANEL_COLOURS[numbers[model] % len(PANEL_COLOURS)], mark_of_pass(numbers[model], MARKERS))
            for model in models}


def _draw_panel(ax, mine: pd.DataFrame, baseline: pd.DataFrame, colour, baseline_label: str, zero_x: float) -> None:
    for variant, (style, label) in VARIANT_STYLES.items():
        curve = mine[mine["variant"] == variant].sort_values("n_train")
        if len(curve):
            _draw_curve(ax, curve, colour, style, label, zero_x)
    if len(baseline):
        _draw_curve(ax, baseline.sort_values("n_train"), BASELINE_COLOUR, "-", baseline_label, zero_x)


def _legend_keys(variants: Collection[str], baseline_label: str | None) -> list[Line2D]:
    """The key of every variant some panel draws (the first panel may lack one), in no model's colour,
    since each panel draws in its own model's; then the baseline and chance as drawn."""
    keys = [Line2D([], [], color=VARIANT_KEY_COLOUR, linestyle=style, label=label, **CURVE_LOOK)
            for variant, (style, label) in VARIANT_STYLES.items() if variant in variants]
    if baseline_label is not None:
        keys.append(Line2D([], [], color=BASELINE_COLOUR, label=baseline_label, **CURVE_LOOK))
    return [*keys, Line2D([], [], color="black", linewidth=0.6, label="chance")]


def _draw_curve(ax, curve: pd.DataFrame, colour, style: str, label: str, zero_x: float, marker: str = "o") -> None:
    n, mean, spread = _positions(curve["n_train"], zero_x), curve["accuracy"], curve["std"].fillna(0.0)
    ax.plot(n, mean, linestyle=style, color=colour, label=label, **{**CURVE_LOOK, "marker": marker})
    ax.fill_between(n, mean - spread, mean + spread, color=colour, alpha=0.15, linewidth=0)


def zero_shot_x(ns) -> float:
    """Where N = 0 (zero-shot) sits on the log2 axis: one step left of the smallest N trained on."""
    return min((n for n in ns if n > 0), default=2) / 2


def _positions(ns: pd.Series, zero_x: float) -> pd.Series:
    return ns.astype(float).where(ns > 0, zero_x)


def _format_axes(ax, ns: list[int], chance: float, title: str) -> None:
    ax.axhline(chance, color="black", linewidth=0.6, label="chance")
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(_positions(pd.Series(ns), zero_shot_x(ns))))
    ax.set_xticklabels([n_label(n) for n in ns], fontsize=7)
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("training examples N")
    ax.set_title(title, fontsize=9)
    ax.grid(axis="y", linewidth=0.3)
