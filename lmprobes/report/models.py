"""Per-model summary across the four suites and a leaderboard (issue 7, item 3).

Inputs are the suites' tidy table CSVs under ``<tables>/<suite>/`` (``INPUTS``); only their
``reproduction`` rows are read (the paper's rows belong to the verdict tables). A table that is
absent, or that this run does not make (left by an earlier run: the rule passes the tables it makes),
means the suite, or that part of it, was not run: its metrics are left out, and the models get NaN
in the leaderboard. A model a suite did not score gets NaN in that suite's columns: no record in the CSV, no
line in that suite's printed block (Markdown, LaTeX). Nothing is recomputed:
every number is a cell of a suite table, so the summary agrees with the suite tables by construction.

Summary layout: one row per model slug (in the order given), ``stand_in`` (True for a tiny
random-weight model or a model listed under ``report.stand_ins``), then per suite (LAMA, BLiMP, oLMpics, Ettinger) its columns, each named
``"<suite>: <metric>"``; values are percent. Where a suite scores a model with several methods the
summary shows one, the first of ``METHOD_PREFERENCE`` that the table has for the model (else the
alphabetically first), and names it in the column ``"<suite>: method"``:

- LAMA (``lama/table2.csv``): ``P@1 <corpus>``, the paper's Table 2 mean P@1, i.e. the ``Total``
  row of each corpus scored, generated corpora included (macro over relations, but a mean over facts
  for ConceptNet, SQuAD and conceptnet_gen, as the released run scores each of their files as one
  relation: ``lama.tables.PER_FACT_CORPORA``). Method: a masked model's own protocol (``masked``), else ``left_context`` (LAMA's causal connector), else
  ``candidates``.
- BLiMP (``blimp/table3.csv``): ``overall`` (mean of the paradigms) and the 12 categories of
  Table 3. Method: ``blimp_paper`` for causal models and ``pll_original`` for masked ones (the
  paper's and Salazar et al.'s), then the others.
- oLMpics: ``zero-shot <task>`` from ``olmpics/zero_shot.csv`` (method ``mc_mlm``, else
  ``candidates``), and ``<task> MLP WS`` / ``MLP MAX`` / ``LINEAR WS`` / ``LINEAR MAX`` /
  ``MC-QA WS`` / ``MC-QA MAX`` from ``olmpics/learning_curves.csv`` where a curve was trained
  (those have no method: the method column applies to the zero-shot metrics only). Items generated
  from sources add `` [<flavour>]`` to the metric.
- Ettinger (``ettinger/table*.csv``, ``ETTINGER_METRICS``): top-1 and top-5 accuracy of the
  unperturbed CPRAG-102 and ROLE-88 items and of NEG-136-SIMP affirmatives (Tables 4, 7, 11), and
  the sensitivity tests without threshold: CPRAG and ROLE "prefer good" (Tables 5, 9), NEG-136-SIMP
  affirmative/negative (Table 12), NEG-136-NAT by licensing and polarity (Table 14).

The CSV is the summary as long records. The Markdown and LaTeX files print one table per suite,
oLMpics two: its zero-shot accuracies (one column per task) and its learning-curve metrics, one line
per (model, task) with a column per curve metric.

Leaderboard rule: one headline per suite, each the mean of what the model has of

- LAMA: ``P@1`` over the corpora present; BLiMP: ``overall``; oLMpics: the release zero-shot
  accuracies over the tasks present; Ettinger: its six accuracies (``ETTINGER_ACCURACY``);

then ``n_suites`` = how many there are (a missing suite does not count, it is not a zero), ``mean`` =
the mean of the headlines present, and ``win_rate`` (HELM's mean win rate): in each suite, the share
of the other models with that headline whose headline this model's exceeds (a tie counts half), in
percent, averaged over the suites where the model meets at least one other. ``rank`` 1, 2, ... goes by
``win_rate`` descending (a model that meets no other comes after those that do), then ``mean``, then
the model's name; a model with no headline at all has no rank and comes last.

Why the win rate ranks, not the mean: models run on different suites (the full config runs
distilbert-base-cased on BLiMP alone, and BLiMP's accuracies are far higher than Ettinger's or LAMA's
P@1), and a mean over different suites ranks the suites' difficulty, not the models. A win rate only
ever compares two models on a suite both ran. Across runs with other models it is not comparable.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from lmprobes.io import atomic_path, to_markdown, write_text
from lmprobes.report.latex import to_booktabs
from lmprobes.report.reproduced import lama_protocol_warning, made_by_this_run
from lmprobes.suites.blimp.paradigms import CATEGORIES
from lmprobes.suites.lama.release import CORPORA as LAMA_CORPORA
from lmprobes.suites.olmpics.learning_tables import LEARNING_TABLES
from lmprobes.suites.olmpics.tables import ZERO_SHOT_TABLES

SUITES = ("lama", "blimp", "olmpics", "ettinger")
SUITE_TITLES = {"lama": "LAMA", "blimp": "BLiMP", "olmpics": "oLMpics", "ettinger": "Ettinger"}
INPUTS = {
    "lama": ("table2.csv",),
    "blimp": ("table3.csv",),
    "olmpics": ("zero_shot.csv", "learning_curves.csv"),
    "ettinger": ("table4.csv", "table7.csv", "table11.csv", "table5.csv", "table9.csv", "table12.csv", "table14.csv"),
}
METHOD_PREFERENCE = {
    "lama": ("masked", "left_context", "candidates"),
    "blimp": ("blimp_paper", "pll_original", "lmeval04", "salazar", "pll_within_word_l2r", "one_prefix", "two_prefix"),
    "olmpics": ("mc_mlm", "candidates"),
}
# Within a suite, the metrics a method applies to start with this ("" = all of them).
METHOD_SCOPE = {"lama": "", "blimp": "", "olmpics": "zero-shot "}
METHOD = "method"
STAND_IN = "stand_in"
CURVE_LABELS = {"mlp_ws": "MLP WS", "mlp_max": "MLP MAX", "linear_ws": "LINEAR WS", "linear_max": "LINEAR MAX",
                "mc_qa_ws": "MC-QA WS", "mc_qa_max": "MC-QA MAX"}
# (table, row, column of the Ettinger tidy table) -> metric.
ETTINGER_METRICS = {
    ("table4", "k=1", "Orig"): "CPRAG acc@1",
    ("table4", "k=5", "Orig"): "CPRAG acc@5",
    ("table7", "k=1", "Orig"): "ROLE acc@1",
    ("table7", "k=5", "Orig"): "ROLE acc@5",
    ("table11", "k=1", "Accuracy"): "NEG-SIMP aff. acc@1",
    ("table11", "k=5", "Accuracy"): "NEG-SIMP aff. acc@5",
    ("table5", "", "Prefer good"): "CPRAG sensitivity",
    ("table9", "", "Prefer good"): "ROLE sensitivity",
    ("table12", "", "Affirmative"): "NEG-SIMP aff. sensitivity",
    ("table12", "", "Negative"): "NEG-SIMP neg. sensitivity",
    ("table14", "", "Aff. NT"): "NEG-NAT aff. NT",
    ("table14", "", "Neg. NT"): "NEG-NAT neg. NT",
    ("table14", "", "Aff. LN"): "NEG-NAT aff. LN",
    ("table14", "", "Neg. LN"): "NEG-NAT neg. LN",
}
ETTINGER_ACCURACY = tuple(metric for metric in ETTINGER_METRICS.values() if " acc@" in metric)
HEADLINES = {"lama": "lama_p1", "blimp": "blimp_overall", "olmpics": "olmpics_zero_shot",
             "ettinger": "ettinger_accuracy"}
LEADERBOARD_COLUMNS = ["rank", "model", STAND_IN, *HEADLINES.values(), "win_rate", "mean", "n_suites"]
LONG_COLUMNS = ["model", "suite", "metric", "method", "value", STAND_IN]
RECORD_COLUMNS = ["model", "suite", "metric", "method", "value"]


# Reads one suite table's reproduction rows given its path, the columns it must have and its numeric ones.
TableReader = Callable[[Path, list[str], list[str]], "pd.DataFrame | None"]


class ModelSummaryError(ValueError):
    """A suite table the summary cannot read; the message names the file."""


def column(suite: str, metric: str) -> str:
    return f"{suite}: {metric}"


def input_tables(tables: Path, suites: tuple[str, ...] = SUITES) -> list[Path]:
    """Every table file the summary reads for ``suites`` (the rule's inputs)."""
    return [Path(tables) / suite / name for suite in suites for name in INPUTS[suite]]


# --- reading the suite tables ---------------------------------------------------------------


def _read(path: Path, columns: list[str], numeric: list[str],
          inputs: Collection[str | Path] | None = None) -> pd.DataFrame | None:
    """The reproduction rows of one tidy table, or None when the file is absent or, with ``inputs`` (the
    tables this run makes), not among them: a file left by an earlier run is not read."""
    if not path.exists() or not made_by_this_run(path, inputs):
        return None
    # Only an empty cell is missing: a model called "NA" stays a name.
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [name for name in ["source", *columns, *numeric] if name not in frame.columns]
    if missing:
        raise ModelSummaryError(f"{path}: column(s) {missing} missing")
    frame = frame[frame["source"] == "reproduction"].copy()
    for name in numeric:
        values = pd.to_numeric(frame[name].replace("", np.nan), errors="coerce")
        bad = values.isna() & (frame[name] != "")
        if bad.any():
            raise ModelSummaryError(f"{path}: {name} {frame.loc[bad, name].iloc[0]!r} is not a number")
        frame[name] = values.astype(float)
    return frame


def _records(frame: pd.DataFrame, suite: str, metric: pd.Series, method: pd.Series | str, value: str) -> pd.DataFrame:
    return pd.DataFrame({"model": frame["model"], "suite": suite, "metric": metric, "method": method,
                         "value": frame[value]}).reindex(columns=RECORD_COLUMNS)


def _preferred_method(methods: set[str], suite: str) -> str:
    for method in METHOD_PREFERENCE[suite]:
        if method in methods:
            return method
    return min(methods)


def _one_method_per_model(frame: pd.DataFrame, suite: str) -> pd.DataFrame:
    """The rows of each model's preferred method (see the module docstring)."""
    chosen = {model: _preferred_method(set(group["method"]), suite) for model, group in frame.groupby("model")}
    return frame[frame["method"] == frame["model"].map(chosen)]


def _flavoured(metric: pd.Series, flavour: pd.Series) -> pd.Series:
    suffix = flavour.map(lambda name: "" if name == "release" else f" [{name}]")
    return metric + suffix


def lama_records(tables: Path, read: TableReader = _read) -> pd.DataFrame | None:
    path = Path(tables) / "lama" / "table2.csv"
    frame = read(path, ["corpus", "row", "model", "method"], ["p1"])
    if frame is None:
        return None
    frame = frame[(frame["row"] == "Total") & (frame["method"] != "freq")]
    frame = _one_method_per_model(frame, "lama")
    order = {corpus: i for i, corpus in enumerate(LAMA_CORPORA)}
    frame = frame.assign(_order=frame["corpus"].map(lambda c: (order.get(c, len(order)), c)))
    frame = frame.sort_values("_order", kind="stable")
    return _records(frame, "lama", "P@1 " + frame["corpus"], frame["method"], "p1")


def blimp_records(tables: Path, read: TableReader = _read) -> pd.DataFrame | None:
    frame = read(Path(tables) / "blimp" / "table3.csv", ["model", "method", "category"], ["value"])
    if frame is None:
        return None
    frame = _one_method_per_model(frame, "blimp")
    order = {category: i for i, category in enumerate(("overall", *CATEGORIES))}
    frame = frame.assign(_order=frame["category"].map(lambda c: (order.get(c, len(order)), c)))
    frame = frame.sort_values("_order", kind="stable")
    return _records(frame, "blimp", frame["category"], frame["method"], "value")


def olmpics_records(tables: Path, read: TableReader = _read) -> pd.DataFrame | None:
    """Zero-shot metrics first (the paper's table order), then each task's curve metrics together."""
    folder = Path(tables) / "olmpics"
    zero = read(folder / "zero_shot.csv", ["task", "flavour", "model", "method"], ["accuracy"])
    curves = read(folder / "learning_curves.csv", ["task", "flavour", "model"], list(CURVE_LABELS))
    parts = []
    if zero is not None:
        zero = _one_method_per_model(zero, "olmpics")
        metric = _flavoured("zero-shot " + zero["task"], zero["flavour"])
        records = _records(zero, "olmpics", metric, zero["method"], "accuracy")
        parts.append(records.assign(_key=_olmpics_keys(zero, 0, ZERO_SHOT_TABLES, 0)))
    if curves is not None:
        for position, (name, label) in enumerate(CURVE_LABELS.items()):
            rows = curves[curves[name].notna()]
            records = _records(rows, "olmpics", _flavoured(rows["task"] + f" {label}", rows["flavour"]), "", name)
            parts.append(records.assign(_key=_olmpics_keys(rows, 1, LEARNING_TABLES, position)))
    if not parts:
        return None
    frame = pd.concat(parts, ignore_index=True)
    return frame.sort_values("_key", kind="stable").drop(columns="_key").reset_index(drop=True)


def _olmpics_keys(rows: pd.DataFrame, block: int, tasks: dict, position: int) -> list[tuple]:
    """Sort keys: block (zero-shot, curves), task in the paper's order, release before generated, column."""
    rank = {task: i for i, task in enumerate(tasks)}
    return [(block, rank.get(task, len(rank)), task, flavour != "release", flavour, position)
            for task, flavour in zip(rows["task"], rows["flavour"])]


def ettinger_records(tables: Path, read: TableReader = _read) -> pd.DataFrame | None:
    folder = Path(tables) / "ettinger"
    frames = {}
    for table in dict.fromkeys(key[0] for key in ETTINGER_METRICS):
        frame = read(folder / f"{table}.csv", ["model", "row", "column"], ["value"])
        if frame is not None:
            frames[table] = frame
    if not frames:
        return None
    parts = []
    for (table, row, name), metric in ETTINGER_METRICS.items():
        if table in frames:
            frame = frames[table]
            rows = frame[(frame["row"] == row) & (frame["column"] == name)]
            parts.append(_records(rows, "ettinger", metric, "", "value"))
    return pd.concat(parts, ignore_index=True)


SUITE_READERS = {"lama": lama_records, "blimp": blimp_records, "olmpics": olmpics_records,
                 "ettinger": ettinger_records}


# --- the summary ----------------------------------------------------------------------------


def summary_records(tables: Path, models: list[str], suites: tuple[str, ...] = SUITES,
                    table_files: Collection[str | Path] | None = None) -> pd.DataFrame:
    """Long records (model, suite, metric, method, value) of ``models``, suites in ``SUITES`` order.
    ``table_files``: the suite tables this run makes; another file under ``tables`` is not read."""
    unknown = sorted(set(suites) - set(SUITES))
    if unknown:
        raise ModelSummaryError(f"unknown suite(s) {unknown}; known: {list(SUITES)}")
    read = functools.partial(_read, inputs=None if table_files is None else {Path(p) for p in table_files})
    parts = []
    for suite in (s for s in SUITES if s in suites):
        records = SUITE_READERS[suite](Path(tables), read)
        if records is None:
            continue
        records = records[records["model"].isin(models)]
        repeated = records[records.duplicated(["model", "metric"])]
        if len(repeated):
            first = repeated.iloc[0]
            raise ModelSummaryError(f"{Path(tables) / suite}: {first.metric!r} of model {first.model!r} appears twice")
        parts.append(records)
    if not parts:
        return pd.DataFrame(columns=RECORD_COLUMNS)
    return pd.concat(parts, ignore_index=True)


def model_summary(tables: Path, models: list[str], tiny_models: set[str],
                  suites: tuple[str, ...] = SUITES, table_files: Collection[str | Path] | None = None) -> pd.DataFrame:
    """One row per model slug, ``stand_in``, then ``"<suite>: <metric>"`` columns (module docstring).

    Only the tables of ``suites`` are read, and with ``table_files`` (the tables this run makes) only
    those: a stale table of a suite, or of a part of a suite (oLMpics' learning curves), that the run
    left out is ignored.
    """
    if len(set(models)) != len(models):
        raise ModelSummaryError(f"models listed twice: {sorted({m for m in models if models.count(m) > 1})}")
    records = summary_records(tables, models, suites, table_files)
    summary = pd.DataFrame({"model": list(models), STAND_IN: [m in tiny_models for m in models]})
    columns: dict[str, pd.Series] = {}
    for suite in SUITES:
        sub = records[records["suite"] == suite]
        if sub.empty:
            continue
        if suite in METHOD_SCOPE:
            methods = sub[sub["method"] != ""].groupby("model")["method"].first()
            columns[column(suite, METHOD)] = summary["model"].map(methods).fillna("")
        for metric in dict.fromkeys(sub["metric"]):
            values = sub[sub["metric"] == metric].set_index("model")["value"]
            columns[column(suite, metric)] = summary["model"].map(values).astype(float)
    return pd.concat([summary, pd.DataFrame(columns, index=summary.index)], axis=1)


def suite_columns(summary: pd.DataFrame, suite: str) -> list[str]:
    """The summary's columns of one suite, method first."""
    return [name for name in summary.columns if name.startswith(f"{suite}: ")]


def metric_columns(summary: pd.DataFrame, suite: str) -> list[str]:
    return [name for name in suite_columns(summary, suite) if name != column(suite, METHOD)]


def summary_long(summary: pd.DataFrame) -> pd.DataFrame:
    """The summary as tidy rows (model, suite, metric, method, value, stand_in); NaN cells are left out."""
    records = []
    for row in summary.to_dict("records"):
        for suite in SUITES:
            method = row.get(column(suite, METHOD), "")
            for name in metric_columns(summary, suite):
                metric = name.split(": ", 1)[1]
                if pd.isna(row[name]):
                    continue
                scoped = suite in METHOD_SCOPE and metric.startswith(METHOD_SCOPE[suite])
                records.append({"model": row["model"], "suite": suite, "metric": metric,
                                "method": method if scoped else "", "value": float(row[name]),
                                STAND_IN: bool(row[STAND_IN])})
    return pd.DataFrame.from_records(records, columns=LONG_COLUMNS)


# --- the leaderboard ------------------------------------------------------------------------


def _headline_columns(summary: pd.DataFrame, suite: str) -> list[str]:
    metrics = metric_columns(summary, suite)
    if suite == "lama":
        return [name for name in metrics if name.startswith("lama: P@1 ")]
    if suite == "blimp":
        return [name for name in metrics if name == column("blimp", "overall")]
    if suite == "olmpics":
        return [name for name in metrics if name.startswith("olmpics: zero-shot ") and not name.endswith("]")]
    return [column("ettinger", metric) for metric in ETTINGER_ACCURACY if column("ettinger", metric) in metrics]


def headlines(summary: pd.DataFrame) -> pd.DataFrame:
    """One headline column per suite: the mean of the model's values in it (NaN when it has none)."""
    frame = pd.DataFrame(index=summary.index)
    for suite, name in HEADLINES.items():
        chosen = _headline_columns(summary, suite)
        frame[name] = summary[chosen].mean(axis=1, skipna=True) if chosen else np.nan
    return frame.astype(float)


def win_rates(values: pd.DataFrame) -> pd.Series:
    """Each row's mean win rate (%) over the columns (suites): in a column, the share of the other rows
    with a value that its value exceeds, a tie counting half; NaN where it meets no other row."""
    per_suite = pd.DataFrame(index=values.index, dtype=float)
    for suite, column in values.items():
        others = column.notna().sum() - 1
        if others < 1:
            continue
        below = column.rank(method="average") - 1  # ties share their ranks: each tie counts half
        per_suite[suite] = 100 * below / others
    return per_suite.mean(axis=1, skipna=True).reindex(values.index)


def leaderboard(summary: pd.DataFrame) -> pd.DataFrame:
    """Models ranked by their mean win rate over the suites, then the mean of their headlines (rule
    in the module docstring)."""
    board = pd.concat([summary[["model", STAND_IN]], headlines(summary)], axis=1)
    values = board[list(HEADLINES.values())]
    board["n_suites"] = values.notna().sum(axis=1).astype("int64")
    board["mean"] = values.mean(axis=1, skipna=True)
    board["win_rate"] = win_rates(values)
    # NaN last in each key: no win rate (meets no other model) after a win rate, no headline after all
    board = board.sort_values(["win_rate", "mean", "model"], ascending=[False, False, True], na_position="last",
                              kind="stable", ignore_index=True)
    ranks = pd.Series(range(1, len(board) + 1), dtype="Int64")
    board["rank"] = ranks.where(board["mean"].notna(), pd.NA)
    return board[LEADERBOARD_COLUMNS]


# --- files ----------------------------------------------------------------------------------


def stand_in_banner(summary: pd.DataFrame) -> str:
    """The warning line for the stand-ins (tiny random-weight models, report.stand_ins), or "" when there is none."""
    stand_ins = summary.loc[summary[STAND_IN].astype(bool), "model"].tolist()
    if not stand_ins:
        return ""
    return (f"Numbers from stand-ins ({', '.join(stand_ins)}: tiny random-weight models, or systems listed under "
            "report.stand_ins): they test the pipeline, they are not a reproduction.")


def suite_frame(summary: pd.DataFrame, suite: str) -> pd.DataFrame:
    """One suite's block of the wide summary, headed by model and stand-in, short column names."""
    chosen = suite_columns(summary, suite)
    frame = summary[["model", STAND_IN, *chosen]]
    return frame.rename(columns={name: name.split(": ", 1)[1] for name in chosen})


def suite_blocks(summary: pd.DataFrame, suite: str) -> list[tuple[str, str, pd.DataFrame]]:
    """The printed tables of one suite as (key, title, frame); none when the suite has no column.

    oLMpics prints two: the zero-shot accuracies (one column per task) and the learning-curve
    metrics with one row per (model, task), so neither grows a column per task and curve metric.
    """
    if not suite_columns(summary, suite):
        return []
    title = SUITE_TITLES[suite]
    frame = suite_frame(summary, suite)
    metrics = [name for name in frame.columns[2:] if name != METHOD]
    if suite != "olmpics":
        return [(suite, title, _scored_rows(frame, metrics))]
    curves = {name: parsed for name in metrics if (parsed := _curve_metric(name))}
    zero_names = [name for name in metrics if name not in curves]
    blocks = []
    if zero_names:
        zero = _scored_rows(frame[["model", STAND_IN, *[METHOD] * (METHOD in frame.columns), *zero_names]], zero_names)
        blocks.append((f"{suite}-zero-shot", f"{title}: zero-shot",
                       zero.rename(columns=lambda name: name.removeprefix("zero-shot "))))
    if curves:
        blocks.append((f"{suite}-learning-curves", f"{title}: learning curves", _curves_by_task(frame, curves)))
    return blocks


def _scored_rows(frame: pd.DataFrame, values: list[str]) -> pd.DataFrame:
    """The models with a value in ``values``: a printed block leaves out the models its suite did not score."""
    return frame[frame[values].notna().any(axis=1)]


def _curve_metric(name: str) -> tuple[str, str] | None:
    """``age_comparison MLP WS [generated]`` -> (``age_comparison [generated]``, ``MLP WS``), else None
    (the inverse of how ``olmpics_records`` names a curve metric)."""
    base, bracket, flavour = name.partition(" [")
    for label in CURVE_LABELS.values():
        if base.endswith(f" {label}"):
            return base.removesuffix(f" {label}") + bracket + flavour, label
    return None


def _curves_by_task(frame: pd.DataFrame, curves: dict[str, tuple[str, str]]) -> pd.DataFrame:
    """Curve metrics (column -> (task, label)) as rows (model, stand_in, task), a column per label present."""
    tasks = list(dict.fromkeys(task for task, _ in curves.values()))
    present = {label for _, label in curves.values()}
    labels = [label for label in CURVE_LABELS.values() if label in present]
    records = []
    for row in frame.to_dict("records"):
        for task in tasks:
            values = {label: row[name] for name, (got, label) in curves.items() if got == task}
            if any(pd.notna(value) for value in values.values()):
                records.append({"model": row["model"], STAND_IN: row[STAND_IN], "task": task, **values})
    return pd.DataFrame.from_records(records, columns=["model", STAND_IN, "task", *labels])


def banner_of(summary: pd.DataFrame, notes: Sequence[str] = ()) -> str:
    """The stand-in warning and the ``notes`` on how numbers were computed, one line, or ""."""
    return " ".join(filter(None, [stand_in_banner(summary), *notes]))


def models_markdown(summary: pd.DataFrame, notes: Sequence[str] = ()) -> str:
    banner = banner_of(summary, notes)
    parts = [f"**{banner}**\n\n" if banner else "", "# Per-model summary across suites\n\n"]
    parts.append("Values in percent; one method per model and suite (the `method` column), see "
                 "lmprobes/report/models.py for which numbers are picked.\n")
    for suite in SUITES:
        for _, title, frame in suite_blocks(summary, suite):
            parts.append(f"\n## {title}\n\n{to_markdown(frame)}")
    return "".join(parts)


def models_latex(summary: pd.DataFrame, notes: Sequence[str] = ()) -> str:
    banner = banner_of(summary, notes)
    tables = [
        to_booktabs(frame, caption=f"{title}: per-model summary (%)", label=f"tab:models-{key}", note=banner)
        for suite in SUITES for key, title, frame in suite_blocks(summary, suite)
    ]
    return "\n".join(tables) if tables else to_booktabs(summary[["model", STAND_IN]], caption="Models",
                                                         label="tab:models", note=banner)


def leaderboard_markdown(board: pd.DataFrame, banner: str) -> str:
    heading = (f"**{banner}**\n\n" if banner else "") + "# Leaderboard\n\n"
    rule = ("Suite headlines: LAMA mean P@1 over corpora, BLiMP overall, oLMpics mean zero-shot accuracy, "
            "Ettinger mean accuracy. Rank by win rate (in each suite, the share of the other models that ran it "
            "whose headline a model's exceeds, a tie counting half, averaged over the suites it shares with "
            "another), then by the mean of its headlines, then by name. Only a suite two models both ran "
            "compares them.\n\n")
    return heading + rule + to_markdown(board)


def write_model_summary(summary: pd.DataFrame, board: pd.DataFrame, out_dir: Path,
                        notes: Sequence[str] = ()) -> list[Path]:
    """models.{csv,md,tex} and leaderboard.{csv,md,tex} under ``out_dir``; returns the paths written.
    ``notes``: lines on how numbers were computed, shown in bold beside the stand-in warning."""
    out_dir = Path(out_dir)
    banner = banner_of(summary, notes)
    paths = {name: out_dir / name for name in ("models.csv", "models.md", "models.tex", "leaderboard.csv",
                                                "leaderboard.md", "leaderboard.tex")}
    _write_csv(summary_long(summary), paths["models.csv"])
    write_text(models_markdown(summary, notes), paths["models.md"])
    write_text(models_latex(summary, notes), paths["models.tex"])
    _write_csv(board, paths["leaderboard.csv"])
    write_text(leaderboard_markdown(board, banner), paths["leaderboard.md"])
    write_text(to_booktabs(board, caption="Leaderboard (%)", label="tab:leaderboard", note=banner),
               paths["leaderboard.tex"])
    return list(paths.values())


def _write_csv(frame: pd.DataFrame, path: Path) -> None:
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False, lineterminator="\n")


def make_model_summary(tables: Path, models: list[str], tiny_models: set[str], out_dir: Path,
                       suites: tuple[str, ...] = SUITES,
                       table_files: Collection[str | Path] | None = None) -> list[Path]:
    """Read the suite tables (only ``table_files``, the ones this run makes, when given), write the
    summary and the leaderboard (what the rule script calls)."""
    summary = model_summary(tables, models, tiny_models, suites, table_files)
    notes = [lama_protocol_warning(tables, table_files)] if "lama" in suites else []
    return write_model_summary(summary, leaderboard(summary), out_dir, notes)
