"""BLiMP's Tables 3 and 4 as pure aggregations over pair scores, with the published numbers beside.

Input: score frames as ``score_pairs`` writes them (several models and methods concatenated), or
their ``accuracy.paradigm_tallies`` (what the tables job reads of each score file).
A system is a (model, method); its paradigm accuracy is the fraction of its kept pairs that are
correct, a category is the mean of its paradigms, and overall is the mean of the paradigm
accuracies (``accuracy.overall``), never the mean of the category means.

Every table is first a tidy frame (``TIDY_COLUMNS``; values in percent; ``n`` is the number of
paradigms averaged in Table 3 and of pairs in Table 4); CSV keeps it tidy, Markdown pivots it to
the paper's layout: Table 3 one line per system, Table 4 one line per paradigm (and a column per
system, in parts of at most ``io.MAX_SYSTEM_COLUMNS`` when there are more, each repeating the published
systems and keeping a model's methods together).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from lmprobes.io import SystemColumns, write_table
from lmprobes.suites.blimp.accuracy import category_accuracy, overall, paradigm_accuracy
from lmprobes.suites.blimp.paradigms import CATEGORIES, CATEGORY_LABELS, PARADIGM_CATEGORY, PARADIGMS, TABLE4_ORDER

TIDY_COLUMNS = ["table", "source", "reference", "model", "method", "category", "paradigm", "value", "n"]
OVERALL = "overall"
TABLE3_COLUMNS = (OVERALL, *CATEGORIES)
TITLES = {
    "table3": "Table 3: BLiMP accuracy (%), overall (mean of the paradigms) and by phenomenon",
    "table4": "Table 4: BLiMP accuracy (%) per paradigm",
}
PUBLISHED_COLUMNS = ["table", "reference", "model", "method", "column", "value"]
PARADIGM_COLUMNS = ["paradigm", "category", "model", "method", "accuracy", "printed"]
TABLE4_LABELS = ("category", "paradigm")  # Table 4's row labels; a column per system follows


class PublishedDataError(ValueError):
    """A malformed published-numbers file; the message names the file and the line."""


# --- published numbers ---------------------------------------------------------------------


def read_published(path: Path) -> pd.DataFrame:
    """``published.csv``: one published Table 3 cell per line (percent)."""
    df = _read_csv(path, PUBLISHED_COLUMNS)
    for line, row in _lines(df):
        if row.table != "table3":
            raise PublishedDataError(f"{path}:{line}: unknown table {row.table!r}; expected 'table3'")
        if row.column not in TABLE3_COLUMNS:
            raise PublishedDataError(f"{path}:{line}: unknown column {row.column!r}; known: {list(TABLE3_COLUMNS)}")
        _check_number(path, line, row.value, 100.0)
    _check_unique(path, df, ["reference", "model", "method", "column"])
    return df.astype({"value": float})


def read_published_paradigms(path: Path) -> pd.DataFrame:
    """``published_paradigms.csv``: one published per-paradigm accuracy (fraction) per line."""
    df = _read_csv(path, PARADIGM_COLUMNS)
    for line, row in _lines(df):
        if row.paradigm not in PARADIGM_CATEGORY:
            raise PublishedDataError(f"{path}:{line}: unknown paradigm {row.paradigm!r}")
        if PARADIGM_CATEGORY[row.paradigm] != row.category:
            raise PublishedDataError(
                f"{path}:{line}: {row.paradigm} belongs to {PARADIGM_CATEGORY[row.paradigm]}, not {row.category!r}"
            )
        _check_number(path, line, row.accuracy, 1.0)
    _check_unique(path, df, ["paradigm", "model", "method"])
    return df.astype({"accuracy": float})


def _read_csv(path: Path, columns: list[str]) -> pd.DataFrame:
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise PublishedDataError(f"{path}: missing column(s) {missing}")
    return df


def _lines(df: pd.DataFrame):
    """(line number in the file, row): line 1 is the header."""
    return zip(range(2, len(df) + 2), df.itertuples(index=False))


def _check_number(path: Path, line: int, text: str, top: float) -> None:
    try:
        value = float(text)
    except ValueError:
        raise PublishedDataError(f"{path}:{line}: {text!r} is not a number") from None
    if not 0.0 <= value <= top:
        raise PublishedDataError(f"{path}:{line}: {value} is outside [0, {top:g}]")


def _check_unique(path: Path, df: pd.DataFrame, keys: list[str]) -> None:
    duplicated = df.duplicated(keys, keep="first")
    if duplicated.any():
        line = int(np.flatnonzero(duplicated.to_numpy())[0]) + 2
        raise PublishedDataError(f"{path}:{line}: duplicate entry for {dict(df.loc[duplicated, keys].iloc[0])}")


# --- tidy tables ---------------------------------------------------------------------------


def table3(scores: pd.DataFrame, published: pd.DataFrame | None = None) -> pd.DataFrame:
    """Overall and per-category accuracy per (model, method); the published rows after them."""
    paradigms = paradigm_accuracy(scores)
    totals = overall(paradigms).assign(category=OVERALL)
    categories = category_accuracy(paradigms)
    ours = pd.concat([totals, categories], ignore_index=True)
    order = {column: i for i, column in enumerate(TABLE3_COLUMNS)}
    ours = ours.assign(_order=ours["category"].map(order)).sort_values(["model", "method", "_order"], kind="stable")
    frame = ours.assign(
        table="table3", source="reproduction", reference="", paradigm="",
        value=100.0 * ours["accuracy"], n=ours["n_paradigms"],
    )
    parts = [frame[TIDY_COLUMNS]]
    if published is not None:
        paper = published.assign(
            table="table3", source="paper", category=published["column"], paradigm="", n=np.nan,
        )
        parts.append(paper[TIDY_COLUMNS])
    return _with_int_counts(pd.concat(parts, ignore_index=True))


def table4(scores: pd.DataFrame, published_paradigms: pd.DataFrame | None = None) -> pd.DataFrame:
    """Accuracy per paradigm and (model, method), paradigms in the paper's order; published after."""
    ours = paradigm_accuracy(scores)
    frame = ours.assign(
        table="table4", source="reproduction", reference="", value=100.0 * ours["accuracy"], n=ours["n_pairs"],
    )
    parts = [_in_paper_order(frame, ["model", "method"])[TIDY_COLUMNS]]
    if published_paradigms is not None:
        paper = published_paradigms.assign(
            table="table4", source="paper", reference="warstadt2020", value=100.0 * published_paradigms["accuracy"],
            n=np.nan,
        )
        parts.append(_in_paper_order(paper, [])[TIDY_COLUMNS])
    return _with_int_counts(pd.concat(parts, ignore_index=True))


def _with_int_counts(tidy: pd.DataFrame) -> pd.DataFrame:
    """``n`` as an integer column, empty for published rows."""
    return tidy.assign(n=tidy["n"].astype("Int64"))


def paradigm_order(paradigm: str) -> tuple[int, int]:
    """Sort key of the paper's Table 4: phenomenon in Table 3's order, then the name the paper prints."""
    category = PARADIGM_CATEGORY.get(paradigm)
    rank = CATEGORIES.index(category) if category in CATEGORIES else len(CATEGORIES)
    return rank, TABLE4_ORDER.index(paradigm) if paradigm in PARADIGM_CATEGORY else len(TABLE4_ORDER)


def _in_paper_order(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    ranks = frame["paradigm"].map(paradigm_order)
    frame = frame.assign(_category=[r[0] for r in ranks], _paradigm=[r[1] for r in ranks])
    return frame.sort_values([*keys, "_category", "_paradigm", "paradigm"], kind="stable")


# --- wide (Markdown) layouts ---------------------------------------------------------------


def system_label(model: str, method: str, source: str = "reproduction") -> str:
    """``gpt2 (blimp_paper)``; a published row adds ``paper`` (``LSTM (paper)``)."""
    parts = [p for p in (method, "paper" if source == "paper" else "") if p]
    return f"{model} ({', '.join(parts)})" if parts else model


def table3_wide(tidy: pd.DataFrame) -> pd.DataFrame:
    """One line per system (reproduction first, then published rows in file order), Table 3's columns."""
    sub = tidy[tidy["table"] == "table3"]
    keys = ["source", "reference", "model", "method"]
    wide = sub.pivot_table(index=keys, columns="category", values="value", aggfunc="first", sort=False)
    wide = wide.reindex(columns=[c for c in TABLE3_COLUMNS if c in wide.columns]).reset_index()
    wide.insert(0, "system", [system_label(m, k, s) for m, k, s in zip(wide["model"], wide["method"], wide["source"])])
    wide = wide.drop(columns=["source", "model", "method"]).rename(columns=CATEGORY_LABELS)
    wide.columns.name = None
    return wide


def table4_wide(tidy: pd.DataFrame) -> pd.DataFrame:
    """One line per paradigm (grouped by phenomenon), one column per system (``TABLE4_LABELS`` first;
    past ``io.MAX_SYSTEM_COLUMNS`` systems the Markdown and LaTeX show it in parts)."""
    sub = tidy[tidy["table"] == "table4"]
    sub = sub.assign(system=[system_label(m, k, s) for m, k, s in zip(sub["model"], sub["method"], sub["source"])])
    systems = list(dict.fromkeys(sub["system"]))
    wide = sub.pivot_table(index=["category", "paradigm"], columns="system", values="value", aggfunc="first")
    wide = wide.reindex(columns=systems).reset_index()
    wide = _in_paper_order(wide, []).drop(columns=["_category", "_paradigm"]).reset_index(drop=True)
    wide["category"] = wide["category"].map(lambda c: CATEGORY_LABELS.get(c, c))
    wide.columns.name = None
    return wide


def table4_columns(tidy: pd.DataFrame) -> SystemColumns:
    """``table4_wide``'s layout for ``write_table``: its row labels, the published systems as the
    references, each reproduced system's model (its methods kept in one part)."""
    systems = tidy.loc[tidy["table"] == "table4", ["model", "method", "source"]].drop_duplicates()
    labels = {system_label(*system): system for system in systems.itertuples(index=False)}
    return SystemColumns(labels=len(TABLE4_LABELS),
                         references=frozenset(label for label, (_, _, source) in labels.items() if source == "paper"),
                         models={label: model for label, (model, _, source) in labels.items() if source != "paper"})


def coverage_note(tidy: pd.DataFrame) -> str:
    """Which reproduced systems cover fewer than the 67 paradigms (their overall is over those), and
    which of their category cells average fewer than the category's paradigms (the prefix methods
    score only the paradigms the release flags for them: one_prefix's island effects is 1 of 8)."""
    sub = tidy[(tidy["table"] == "table3") & (tidy["source"] == "reproduction")]
    sizes = {OVERALL: len(PARADIGMS)} | pd.Series(PARADIGM_CATEGORY).value_counts().to_dict()
    short = sub[sub["n"] < sub["category"].map(sizes)]
    if short.empty:
        return ""
    lines = []
    for (model, method), cells in short.groupby(["model", "method"], sort=False):
        by_category = cells.set_index("category")["n"]
        parts = [f"{CATEGORY_LABELS.get(c, c)} {int(by_category[c])} of {sizes[c]}"
                 for c in (OVERALL, *CATEGORIES) if c in by_category]
        lines.append(f"- {system_label(model, method)}: {', '.join(parts)}")
    return ("\nParadigms scored, where fewer than all (each cell is the mean of those):\n\n"
            + "\n".join(lines) + "\n")


def write_tables(
    scores: pd.DataFrame, published: pd.DataFrame, published_paradigms: pd.DataFrame, out_dir: Path
) -> dict[str, tuple[Path, Path]]:
    """``table3.{csv,md}`` and ``table4.{csv,md}`` under ``out_dir``; returns the paths per table."""
    out_dir = Path(out_dir)
    tidy3, tidy4 = table3(scores, published), table4(scores, published_paradigms)
    paths = {name: (out_dir / f"{name}.csv", out_dir / f"{name}.md") for name in TITLES}
    write_table(tidy3, *paths["table3"], title=TITLES["table3"], markdown_frame=table3_wide(tidy3), note=coverage_note(tidy3))
    write_table(tidy4, *paths["table4"], title=TITLES["table4"], markdown_frame=table4_wide(tidy4),
                systems=table4_columns(tidy4))
    return paths


GENERATED_TITLE = ("Fresh pairs: accuracy (%) on the generated paradigms beside the same paradigms of "
                   "the release, and the difference (generated - release)")
MEAN_ROW = "mean of the paradigms"


def generated_comparison(release: pd.DataFrame, generated: pd.DataFrame) -> pd.DataFrame:
    """Per model, method and generated paradigm: accuracy (%) on the release's pairs and on the
    generated ones, their difference, and pair counts; a ``MEAN_ROW`` per system averages the
    paradigms both have (the release overall's convention: a mean of paradigm accuracies)."""
    keys = ["model", "method", "paradigm", "category"]
    ours = paradigm_accuracy(generated)
    theirs = paradigm_accuracy(release[release["paradigm"].isin(set(generated["paradigm"]))])
    both = theirs.merge(ours, on=keys, suffixes=("_release", "_generated"), how="inner")
    table = both[keys].assign(
        release=100.0 * both["accuracy_release"], generated=100.0 * both["accuracy_generated"],
        n_release=both["n_pairs_release"], n_generated=both["n_pairs_generated"])
    table["difference"] = table["generated"] - table["release"]
    means = (table.groupby(["model", "method"], sort=True)[["release", "generated", "difference"]].mean()
             .reset_index().assign(paradigm=MEAN_ROW, category="", n_release=pd.NA, n_generated=pd.NA))
    table = pd.concat([means, table], ignore_index=True)
    order = {MEAN_ROW: (-1, 0)}
    table["_order"] = table["paradigm"].map(lambda p: order.get(p) or paradigm_order(p))
    table = table.sort_values(["model", "method", "_order"], kind="stable").drop(columns="_order")
    columns = [*keys, "release", "generated", "difference", "n_release", "n_generated"]
    return table[columns].astype({"n_release": "Int64", "n_generated": "Int64"}).reset_index(drop=True)


def generated_wide(tidy: pd.DataFrame) -> pd.DataFrame:
    """One line per system and paradigm, the system named as in Tables 3 and 4."""
    labels = [system_label(m, k) for m, k in zip(tidy["model"], tidy["method"], strict=True)]
    return tidy.assign(system=labels)[["system", "paradigm", "release", "generated", "difference", "n_generated"]]
