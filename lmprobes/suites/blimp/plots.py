"""BLiMP's figures: the data behind each is a pure function of score frames, the drawing is separate.

A system is a reproduced (model, method), labelled ``model (method)``, or a published one,
labelled ``LSTM (paper)``; accuracies are in percent throughout.

- Figure 1: Pearson correlations between systems of their 67 paradigm accuracies.
- Figure 2: accuracy against four properties of a pair: the length of the acceptable sentence
  in words (one bin per length), its per-token perplexity ``exp(-log P(good) / tokens)`` (which
  does not grow with length), ``log P(good)`` (which does), and the confidence
  ``|log P(good) - log P(bad)|``. The last three are cut into equal-count bins (deciles) per
  system, because their scales differ between models; a bin is drawn at its median value.
  Full-sentence methods only: a prefix method's score is not a sentence probability.
- Figure 3: determiner-noun agreement without vs with an adjective between determiner and
  noun (the four paradigms each); subject-verb agreement without an attractor
  (regular_plural_subject_verb_agreement_1, whose verb varies as the attractor paradigms' does)
  vs with a relational-noun or a relative-clause attractor.
- Figure 4: regular vs irregular nouns in determiner-noun agreement (four paradigms each) and
  subject-verb agreement (two each).
- Figure 6: full-sentence vs one-prefix vs two-prefix accuracy per causal model: three phenomena
  that have paradigms of both prefix methods (upper panels; each method over the paradigms it
  can score), and the mean and population sd over all phenomena a method covers (lower panel).
  One bar per configured method, under its name: ``two_prefix_joint`` (the team's analysis code's
  reading) is a bar of its own beside ``two_prefix`` (the prose's).

Each drawing takes ``stand_ins``, the suite's stand-ins: a figure showing one names them in a note
under it (``lmprobes.figures``).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.textpath import text_to_path
from matplotlib.ticker import Formatter, MaxNLocator

from lmprobes.figures import (
    LEGEND_COLUMNS,
    draw_legend,
    legend_groups,
    legend_inches,
    legend_layout,
    legend_rows,
    line_looks,
    plot_style,
    save_png,
    shown_stand_ins,
    system_factors,
)
from lmprobes.suites.blimp.accuracy import category_accuracy, paradigm_accuracy
from lmprobes.suites.blimp.methods import METHODS
from lmprobes.suites.blimp.paradigms import CATEGORY_LABELS
from lmprobes.suites.blimp.tables import system_label

PARADIGM_SYSTEM_COLUMNS = ["system", "source", "model", "method", "paradigm", "category", "accuracy"]
# Figure 1's order of the published systems.
PAPER_ORDER = ("human", "gpt2-large", "TXL", "LSTM", "5-gram")

FIGURE2_VARIABLES = {
    "length": "length of the acceptable sentence (words)",
    "perplexity": "perplexity of the acceptable sentence (per token)",
    "logp_good": "log P(acceptable sentence)",
    "confidence": "confidence |log P(good) - log P(bad)|",
}
FIGURE2_COLUMNS = ["system", "model", "method", "variable", "bin", "x", "accuracy", "n"]
TOKEN_LOGPROBS = ("token_logprobs_good", "token_logprobs_bad")
TOKEN_SUMS = ("n_tokens_good", "logp_good", "logp_bad")  # what Figure 2 takes of them (``token_sums``)

DET_NOUN_PLAIN = (
    "determiner_noun_agreement_1",
    "determiner_noun_agreement_2",
    "determiner_noun_agreement_irregular_1",
    "determiner_noun_agreement_irregular_2",
)
DET_NOUN_ADJECTIVE = (
    "determiner_noun_agreement_with_adjective_1",
    "determiner_noun_agreement_with_adj_2",
    "determiner_noun_agreement_with_adj_irregular_1",
    "determiner_noun_agreement_with_adj_irregular_2",
)
SV_REGULAR = ("regular_plural_subject_verb_agreement_1", "regular_plural_subject_verb_agreement_2")
SV_IRREGULAR = ("irregular_plural_subject_verb_agreement_1", "irregular_plural_subject_verb_agreement_2")

PanelGroups = Mapping[str, Mapping[str, Sequence[str]]]  # panel -> condition -> paradigms

FIGURE3_PANELS: PanelGroups = {
    "determiner-noun agreement": {"no adjective": DET_NOUN_PLAIN, "adjective": DET_NOUN_ADJECTIVE},
    "subject-verb agreement": {
        # Example (3a), "The sisters bake/*bakes.": the verb varies, as in the two attractor paradigms
        # (the _2 paradigms vary the subject). With it the paper's gaps come out: LSTM 20, TXL 5 points.
        "no attractor": ("regular_plural_subject_verb_agreement_1",),
        "relational noun": ("distractor_agreement_relational_noun",),
        "relative clause": ("distractor_agreement_relative_clause",),
    },
}
FIGURE4_PANELS: PanelGroups = {
    "determiner-noun agreement": {
        "regular": (DET_NOUN_PLAIN[0], DET_NOUN_PLAIN[1], DET_NOUN_ADJECTIVE[0], DET_NOUN_ADJECTIVE[1]),
        "irregular": (DET_NOUN_PLAIN[2], DET_NOUN_PLAIN[3], DET_NOUN_ADJECTIVE[2], DET_NOUN_ADJECTIVE[3]),
    },
    "subject-verb agreement": {"regular": SV_REGULAR, "irregular": SV_IRREGULAR},
}
GROUP_COLUMNS = ["panel", "condition", "system", "accuracy", "n_paradigms"]

FIGURE6_PHENOMENA = ("binding", "determiner_noun_agreement", "subject_verb_agreement")
ALL_PHENOMENA = "all phenomena"
FIGURE6_COLUMNS = ["panel", "model", "method", "accuracy", "sd", "n"]


# --- data ----------------------------------------------------------------------------------


def paradigm_systems(scores: pd.DataFrame, published_paradigms: pd.DataFrame | None = None) -> pd.DataFrame:
    """Accuracy (%) per system and paradigm: reproduced systems, then the published ones."""
    ours = paradigm_accuracy(scores).assign(source="reproduction")
    ours["accuracy"] = 100.0 * ours["accuracy"]
    parts = [ours]
    if published_paradigms is not None:
        paper = published_paradigms.assign(source="paper", accuracy=100.0 * published_paradigms["accuracy"])
        parts.append(paper)
    out = pd.concat(parts, ignore_index=True)
    out["system"] = [system_label(m, k, s) for m, k, s in zip(out["model"], out["method"], out["source"])]
    return out[PARADIGM_SYSTEM_COLUMNS]


def system_order(paradigms: pd.DataFrame) -> list[str]:
    """Reproduced systems as they come, then the published ones in Figure 1's order."""
    ours = paradigms.loc[paradigms["source"] == "reproduction", "system"]
    paper = paradigms[paradigms["source"] == "paper"].drop_duplicates("system")
    rank = {model: i for i, model in enumerate(PAPER_ORDER)}
    paper = paper.assign(_rank=paper["model"].map(lambda m: rank.get(m, len(rank)))).sort_values("_rank", kind="stable")
    return list(dict.fromkeys(ours)) + paper["system"].tolist()


# Figure 1's r needs this many paradigms scored by both systems (two points give r = ±1 whatever they are);
# the one- and two-prefix methods score disjoint paradigms, so their cell has none.
FIGURE1_MIN_SHARED = 3


def correlation_matrix(paradigms: pd.DataFrame) -> pd.DataFrame:
    """Figure 1: Pearson r between systems over the paradigms both have (systems x systems); NaN where
    they share fewer than ``FIGURE1_MIN_SHARED``."""
    wide = paradigms.pivot_table(index="paradigm", columns="system", values="accuracy", aggfunc="first")
    order = system_order(paradigms)
    matrix = wide.reindex(columns=order).corr(method="pearson", min_periods=FIGURE1_MIN_SHARED)
    matrix.index.name = matrix.columns.name = None
    return matrix


def figure2_rows(scores: pd.DataFrame) -> pd.Series:
    """The score rows Figure 2 shows: kept pairs of the full-sentence methods."""
    sentence_methods = [name for name, m in METHODS.items() if m.kind in ("sentence", "pll")]
    return scores["kept"].astype(bool) & scores["method"].isin(sentence_methods)


def token_sums(scores: pd.DataFrame) -> pd.DataFrame:
    """``scores`` with Figure 2's reductions of the token log-probs in place of the lists
    (``TOKEN_SUMS``): the good sentence's token count and each side's ``math.fsum``, on Figure 2's
    rows (``figure2_rows``; NaN on the others). A frame without the lists is returned as it is.

    From the token log-probs, whatever the method's reduction (``_mean`` scores are per token).
    The tables job reduces each score file as it reads it: one file's lists in memory, not all.
    """
    if not set(TOKEN_LOGPROBS) <= set(scores.columns):
        return scores
    rows = figure2_rows(scores).to_numpy()
    good, bad = (scores.loc[rows, column] for column in TOKEN_LOGPROBS)
    sums = (good.map(len), good.map(math.fsum), bad.map(math.fsum))
    return scores.drop(columns=list(TOKEN_LOGPROBS)).assign(
        **{name: _on_rows(rows, values) for name, values in zip(TOKEN_SUMS, sums, strict=True)})


def _on_rows(rows: np.ndarray, values: pd.Series) -> np.ndarray:
    """``values`` (one per true entry of ``rows``) at those positions, NaN elsewhere."""
    out = np.full(len(rows), np.nan)
    out[rows] = values.to_numpy(dtype=float)
    return out


def pair_properties(scores: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """Kept full-sentence score rows with the four Figure 2 properties of each pair; ``scores``
    holds the token log-prob lists or their ``token_sums``."""
    scores = token_sums(scores)
    kept = scores[figure2_rows(scores)]
    words = pairs.set_index("row_id")["n_words_good"]
    missing = ~kept["row_id"].isin(words.index)
    if missing.any():
        raise ValueError(f"score row {kept.loc[missing, 'row_id'].iloc[0]!r} has no pair in the dataset")
    n_tokens, logp_good, logp_bad = (kept[name].to_numpy() for name in TOKEN_SUMS)
    return pd.DataFrame({
        "model": kept["model"].to_numpy(),
        "method": kept["method"].to_numpy(),
        "correct": kept["correct"].astype(bool).to_numpy(),
        "length": kept["row_id"].map(words).astype(float).to_numpy(),
        "perplexity": np.exp(-logp_good / n_tokens),
        "logp_good": logp_good,
        "confidence": np.abs(logp_good - logp_bad),
    })


def equal_count_bins(values: pd.Series, bins: int) -> np.ndarray:
    """Bin index 0..bins-1 by rank (ties in row order), as equal in size as ``len`` allows."""
    n = len(values)
    bins = max(1, min(bins, n))
    rank = values.rank(method="first").to_numpy() - 1
    return (rank * bins // n).astype(int)


def binned_accuracy(properties: pd.DataFrame, variable: str, bins: int = 10) -> pd.DataFrame:
    """Accuracy (%) per system (``model (method)``) and bin of ``variable``; ``x`` is the bin's median value."""
    records = []
    for (model, method), group in properties.groupby(["model", "method"], sort=False):
        values = group[variable]
        index = values.to_numpy() if variable == "length" else equal_count_bins(values, bins)
        for b, members in group.groupby(index, sort=True):
            records.append({
                "system": system_label(model, method), "model": model, "method": method, "variable": variable,
                "bin": int(b), "x": float(members[variable].median()), "accuracy": 100.0 * members["correct"].mean(),
                "n": len(members),
            })
    return pd.DataFrame.from_records(records, columns=FIGURE2_COLUMNS)


def figure2_data(scores: pd.DataFrame, pairs: pd.DataFrame, bins: int = 10) -> pd.DataFrame:
    """Figure 2's four panels, one block of rows per variable."""
    return figure2_bins(pair_properties(scores, pairs), bins)


def figure2_bins(properties: pd.DataFrame, bins: int = 10) -> pd.DataFrame:
    """``figure2_data`` from the ``pair_properties`` (of one score frame, or of several concatenated)."""
    frames = [binned_accuracy(properties, variable, bins) for variable in FIGURE2_VARIABLES]
    return pd.concat(frames, ignore_index=True)


def group_means(paradigms: pd.DataFrame, panels: PanelGroups) -> pd.DataFrame:
    """Mean paradigm accuracy (%) per panel, condition and system over the paradigms it has."""
    records = []
    accuracy = {system: rows.set_index("paradigm")["accuracy"] for system, rows in paradigms.groupby("system", sort=False)}
    for system in system_order(paradigms):
        mine = accuracy[system]
        for panel, conditions in panels.items():
            for condition, members in conditions.items():
                present = [p for p in members if p in mine.index]
                if present:
                    records.append({"panel": panel, "condition": condition, "system": system,
                                    "accuracy": float(mine[present].mean()), "n_paradigms": len(present)})
    return pd.DataFrame.from_records(records, columns=GROUP_COLUMNS)


def figure3_data(paradigms: pd.DataFrame) -> pd.DataFrame:
    return group_means(paradigms, FIGURE3_PANELS)


def figure4_data(paradigms: pd.DataFrame) -> pd.DataFrame:
    return group_means(paradigms, FIGURE4_PANELS)


def figure6_data(scores: pd.DataFrame) -> pd.DataFrame:
    """Per causal model and method: the accuracy (%) of each Figure 6 phenomenon, and the mean
    and population sd over every phenomenon the method scores (``n`` phenomena)."""
    causal = [name for name, m in METHODS.items() if m.family == "causal"]
    categories = category_accuracy(paradigm_accuracy(scores[scores["method"].isin(causal)]))
    categories = categories.assign(accuracy=100.0 * categories["accuracy"])
    records = []
    for (model, method), group in categories.groupby(["model", "method"], sort=True):
        by_category = group.set_index("category")["accuracy"]
        for phenomenon in FIGURE6_PHENOMENA:
            if phenomenon in by_category.index:
                records.append({"panel": phenomenon, "model": model, "method": method,
                                "accuracy": float(by_category[phenomenon]), "sd": np.nan, "n": 1})
        records.append({"panel": ALL_PHENOMENA, "model": model, "method": method,
                        "accuracy": float(by_category.mean()), "sd": float(by_category.std(ddof=0)),
                        "n": len(by_category)})
    return pd.DataFrame.from_records(records, columns=FIGURE6_COLUMNS)


# --- drawing -------------------------------------------------------------------------------


def _published(system: str) -> bool:
    """A published system's label (``LSTM (paper)``, ``gpt2-large (blimp_paper, paper)``: ``system_label``)."""
    return system.endswith((" (paper)", ", paper)"))


def _save(fig, out: Path, stand_ins: Collection[str], systems: Iterable[str]) -> Figure:
    """``systems``: the labels drawn; the published ones are no stand-in."""
    ours = [system for system in systems if not _published(system)]
    return save_png(fig, out, dpi=120, stand_ins=shown_stand_ins(stand_ins, ours))


# Figure 1's cells: 0.8 in up to 30 systems (the full config's 25 and the paper's five), then shrinking
# to keep the matrix 24 in wide, down to 0.25 in; r is written in a cell of 0.5 in or more (48 systems).
# The figure grew 0.8 in a system: 185 systems (60 models) drew an 18,000-pixel square, 3 GB and a minute.
FIGURE1_CELL = 0.8
FIGURE1_WIDTH = 24.0
FIGURE1_MIN_CELL = 0.25
FIGURE1_ANNOTATED_CELL = 0.5
FIGURE1_UNDEFINED = "0.8"  # light grey, outside the colour map's red-white-blue


def figure1_cell_inches(systems: int) -> float:
    return max(FIGURE1_MIN_CELL, min(FIGURE1_CELL, FIGURE1_WIDTH / max(systems, 1)))


def figure1(paradigms: pd.DataFrame, out: Path, *, stand_ins: Collection[str] = ()) -> Figure:
    """Heatmap of ``correlation_matrix(paradigms)``, annotated with r to two decimals where the cells
    leave room (``figure1_cell_inches``); a pair without r grey, said so under the matrix."""
    matrix = correlation_matrix(paradigms)
    cell = figure1_cell_inches(len(matrix))
    size = 1.0 + cell * len(matrix)
    fig, ax = plt.subplots(figsize=(size + 1.5, size), constrained_layout=True)
    # cells as quads, not an image: imshow resamples the matrix to the figure's pixels as float64 RGBA
    # (1.7 GB for 75 systems), a mesh draws n^2 rectangles
    edges = np.arange(len(matrix) + 1) - 0.5
    image = ax.pcolormesh(edges, edges, matrix.to_numpy(dtype=float), cmap="RdBu_r", vmin=-1, vmax=1)
    ax.set_xlim(edges[0], edges[-1])
    ax.set_ylim(edges[-1], edges[0])
    ax.set_aspect("equal")
    if matrix.isna().to_numpy().any():  # the mesh leaves such cells out: the axes' background shows
        ax.set_facecolor(FIGURE1_UNDEFINED)
        fig.supxlabel(f"grey: fewer than {FIGURE1_MIN_SHARED} paradigms scored by both systems", fontsize="small")
    ax.set_xticks(range(len(matrix)), matrix.columns, rotation=45, ha="right", fontsize="small")
    ax.set_yticks(range(len(matrix)), matrix.index, fontsize="small")
    if cell >= FIGURE1_ANNOTATED_CELL:
        for (i, j), r in np.ndenumerate(matrix.to_numpy(dtype=float)):
            if not np.isnan(r):
                ax.text(j, i, f"{r:.2f}", ha="center", va="center", fontsize="small",
                        color="white" if abs(r) > 0.6 else "black")
    fig.colorbar(image, ax=ax, label="Pearson r over paradigm accuracies")
    ax.set_title("Correlation of paradigm accuracies")
    return _save(fig, out, stand_ins, matrix.columns)


# Figure 2's looks where its systems do not factor into models and methods: past the tenth line a colour
# comes back with the next of these (line style, marker): 160 differ.
FIGURE2_MARKS = tuple((style, marker) for marker in ("o", "s", "^", "D") for style in ("-", "--", ":", "-."))


def figure2(data: pd.DataFrame, out: Path, *, stand_ins: Collection[str] = ()) -> Figure:
    """Four panels of ``figure2_data``: accuracy against each property, one line per system, coloured by
    model and styled by method (``lmprobes.figures.line_looks``; else ``FIGURE2_MARKS``), a published
    system black; below the panels a legend of the models, then of the methods."""
    systems = list(dict.fromkeys(data["system"]))
    looks = line_looks(systems, system_factors(data), [s for s in systems if _published(s)], FIGURE2_MARKS)
    groups = legend_groups(looks)
    rows = legend_rows(groups, LEGEND_COLUMNS) if looks.factored else 0
    entries = rows * LEGEND_COLUMNS if looks.factored else len(looks.systems)
    fig, axes = plt.subplots(2, 2, figsize=(10, 7 + legend_inches(entries)), constrained_layout=True)
    for ax, (variable, label) in zip(axes.flat, FIGURE2_VARIABLES.items()):
        sub = data[data["variable"] == variable]
        for system, group in sub.groupby("system", sort=False):
            look = looks.systems[system]
            ax.plot(group["x"], group["accuracy"], **plot_style(look, 3), label=system)
        if variable == "perplexity" and (sub["x"] > 0).all() and not sub.empty:
            log_axis(ax)
        if variable == "length":  # whole words: no tick at 2.5 words
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.axhline(50, color="grey", linewidth=0.8, linestyle=":")
        ax.set_ylim(0, 100)
        ax.set_xlabel(label)
        ax.set_ylabel("accuracy (%)")
    if looks.factored:
        draw_legend(fig, legend_layout(groups, rows), loc="outside lower center", fontsize="small")
    else:
        _legend_below(fig, axes.flat[0])
    return _save(fig, out, stand_ins, data["system"])


def log_axis(ax) -> None:
    """A log x axis whose tick labels never run into each other (``LogLabels``)."""
    ax.set_xscale("log")
    decades = ax.xaxis.get_major_formatter()
    ax.xaxis.set_major_formatter(LogLabels(decades))
    ax.xaxis.set_minor_formatter(LogLabels(decades))


# Where two decades fall on a log axis only they are labelled, as matplotlib does; a tick label keeps a
# gap of this many font sizes to the next.
LABELLED_DECADES = 2
LABEL_GAP = 1.0
# Which ticks between decades are labelled first where not all fit: fewer digits, then 5, 2, 3 ... 9.
LEADING_DIGITS = "523467891"


class LogLabels(Formatter):
    """The labels of a log x axis, major and minor ticks alike (``fitting_labels``); ``decades`` is
    matplotlib's formatter of the axis, whose labels it keeps where only decades are labelled."""

    def __init__(self, decades: Formatter):
        self.decades = decades

    def __call__(self, x, pos=None) -> str:
        return plain_number(x)

    def format_ticks(self, values) -> list[str]:
        labels = fitting_labels(self.axis, self.decades)
        return [labels.get(value, "") for value in values]


def fitting_labels(axis, decades: Formatter) -> dict[float, str]:
    """Each labelled tick in view of a log x ``axis`` -> its label, none of which overlap: the decades in
    ``decades``' words (10^2) where two or more are in view, as matplotlib labels them; otherwise (the
    data span less, as the demo's tiny models' perplexities 1,710-2,273) the ticks in plain numbers,
    decades first, then the roundest (``LEADING_DIGITS``), each only where it clears those kept."""
    low, high = sorted(axis.get_view_interval())
    majors = [value for value in axis.get_majorticklocs() if low <= value <= high]
    if len(majors) >= LABELLED_DECADES:
        candidates = dict(zip(majors, decades.format_ticks(majors)))
    else:
        minors = sorted((value for value in axis.get_minorticklocs() if low <= value <= high), key=_roundness)
        candidates = {value: plain_number(value) for value in [*majors, *minors]}
    return _clearing(axis, candidates)


def plain_number(value: float) -> str:
    text = f"{value:g}"
    return f"{value:.0f}" if "e" in text else text


def _roundness(value: float) -> tuple:
    digits = f"{value:.6e}".split("e")[0].replace(".", "").rstrip("0")
    return len(digits), LEADING_DIGITS.index(digits[0]), value


def _clearing(axis, candidates: dict[float, str]) -> dict[float, str]:
    """``candidates`` (in priority order) each kept where its label, centred on its tick, keeps
    ``LABEL_GAP`` to every label kept before it."""
    font = axis.majorTicks[0].label1.get_fontproperties()
    gap = LABEL_GAP * font.get_size_in_points()
    to_points = 72 / axis.figure.dpi
    kept, spans = {}, []
    for value, text in candidates.items():
        if not text:
            continue
        centre = axis.axes.transData.transform((value, 1))[0] * to_points
        half = (text_to_path.get_text_width_height_descent(text, font, ismath=text.count("$") >= 2)[0] + gap) / 2
        if all(centre + half <= start or centre - half >= end for start, end in spans):
            kept[value] = text
            spans.append((centre - half, centre + half))
    return kept


def grouped_bars(data: pd.DataFrame, out: Path, title: str, *, stand_ins: Collection[str] = ()) -> Figure:
    """One panel per ``panel`` of a ``group_means`` frame: bars per system, one per condition."""
    panels = list(dict.fromkeys(data["panel"]))
    width = bars_width(9.0, data["system"].nunique(), margin=2.0)
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, 3.2 * max(len(panels), 1)), constrained_layout=True,
                             squeeze=False)
    for ax, panel in zip(axes[:, 0], panels):
        sub = data[data["panel"] == panel]
        _bars(ax, sub, group="system", bar="condition", value="accuracy")
        ax.set_title(panel)
        ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle(title)
    return _save(fig, out, stand_ins, data["system"])


def figure3(paradigms: pd.DataFrame, out: Path, *, stand_ins: Collection[str] = ()) -> Figure:
    return grouped_bars(figure3_data(paradigms), out, "Agreement with an intervening adjective or attractor",
                        stand_ins=stand_ins)


def figure4(paradigms: pd.DataFrame, out: Path, *, stand_ins: Collection[str] = ()) -> Figure:
    return grouped_bars(figure4_data(paradigms), out, "Regular vs irregular agreement", stand_ins=stand_ins)


def figure6(data: pd.DataFrame, out: Path, *, stand_ins: Collection[str] = ()) -> Figure:
    """``figure6_data``: upper panels the three phenomena, lower panel mean ± sd over all."""
    upper = [p for p in FIGURE6_PHENOMENA if (data["panel"] == p).any()] or list(FIGURE6_PHENOMENA[:1])
    panel_width = bars_width(4.0, data["model"].nunique(), margin=0.8)
    fig, axes = plt.subplot_mosaic([upper, [ALL_PHENOMENA] * len(upper)], figsize=(panel_width * len(upper), 7),
                                   constrained_layout=True)
    for panel in [*upper, ALL_PHENOMENA]:
        sub = data[data["panel"] == panel]
        _bars(axes[panel], sub, group="model", bar="method", value="accuracy", error="sd" if panel == ALL_PHENOMENA else None)
        axes[panel].set_title(CATEGORY_LABELS.get(panel, panel))
    _legend_below(fig, axes[ALL_PHENOMENA])
    return _save(fig, out, stand_ins, data["model"])


# Inches of axis a group of bars needs under its label (rotated 30 degrees): 0.3, or the labels run together.
GROUP_INCHES = 0.3


def bars_width(width: float, groups: int, margin: float) -> float:
    """A bar figure's (or panel's) width: ``width``, or wider where its ``groups`` need more than
    ``GROUP_INCHES`` each beside ``margin`` inches of labels and legend."""
    return max(width, GROUP_INCHES * groups + margin)


def _bars(ax, sub: pd.DataFrame, group: str, bar: str, value: str, error: str | None = None) -> None:
    groups = list(dict.fromkeys(sub[group]))
    kinds = list(dict.fromkeys(sub[bar]))
    width = 0.8 / max(len(kinds), 1)
    x = np.arange(len(groups))
    for i, kind in enumerate(kinds):
        rows = sub[sub[bar] == kind].set_index(group).reindex(groups)
        yerr = rows[error].fillna(0).to_numpy() if error else None
        ax.bar(x + i * width, rows[value].to_numpy(), width, yerr=yerr, label=kind, capsize=2)
    ax.set_xticks(x + width * (len(kinds) - 1) / 2, groups, rotation=30, ha="right", fontsize="small")
    ax.axhline(50, color="grey", linewidth=0.8, linestyle=":")
    ax.set_ylim(0, 100)
    ax.set_ylabel("accuracy (%)")


def _legend_below(fig, ax) -> None:
    handles, labels = ax.get_legend_handles_labels()
    if labels:
        fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), LEGEND_COLUMNS), fontsize="small")
