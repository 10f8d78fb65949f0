"""Paper-vs-reproduction verdicts: every published number beside ours, with a delta and a verdict.

Conventions:

* Every published number keeps its row (a left join on ``published``); our numbers without a
  published counterpart are dropped. Keys are ``published.KEYS``.
* ``delta = reproduced - published``, in the metric's unit (percentage points for every
  accuracy-like metric, facts or relations for LAMA's dataset sizes).
* ``verdict``: ``within`` when ``|delta| <= tolerance`` (the boundary counts as within; a tiny
  epsilon absorbs binary floating point, e.g. ``0.4 - 0.1``), ``outside`` otherwise, ``missing``
  when there is no reproduced number (no mapped system, suite not run, or NaN).
* ``stand_in`` marks rows whose system is a stand-in, a tiny random-weight model or a system listed
  under ``report.stand_ins`` (the demo): their verdict is computed as any other, but they are not a
  reproduction, every summary and table says so, and the summary counts them apart.
* Tolerances are absolute bands per metric, read from ``resources/report/tolerances.csv``; the
  reasons are in that file and in ``resources/report/README.md``. An unknown metric is an error.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from lmprobes.io import atomic_path, write_text
from lmprobes.report.published import KEYS, SUITES, read_published, read_text_csv, sort_keys
from lmprobes.report.reproduced import lama_protocol_warning, read_reproduced, split_system

VERDICT_COLUMNS = [*KEYS, "model", "metric", "published", "reproduced", "delta", "tolerance", "verdict", "stand_in",
                   "note"]
# within/outside/missing count the numbers mapped to real systems; stand_ins/stand_ins_within those mapped to stand-ins.
SUMMARY_COLUMNS = ["suite", "published", "within", "outside", "missing", "stand_ins", "stand_ins_within", "line"]
VERDICTS = ("within", "outside", "missing")
SUITE_NAMES = {"lama": "LAMA", "blimp": "BLiMP", "olmpics": "oLMpics", "ettinger": "Ettinger"}
STAND_IN_WARNING = "STAND-INS (tiny random-weight models, report.stand_ins): not a reproduction"
TOLERANCE_COLUMNS = ["metric", "unit", "tolerance", "reason"]
# Binary floating point: 0.4 - 0.1 is 0.30000000000000004, so a band of 0.3 needs this much slack.
EPSILON = 1e-9


class VerdictError(ValueError):
    """A tolerance file or a metric that cannot be used; the message names it."""


@dataclass(frozen=True)
class Tolerance:
    metric: str
    unit: str
    tolerance: float
    reason: str


# --- tolerances ----------------------------------------------------------------------------


def read_tolerances(path: Path) -> dict[str, Tolerance]:
    """``metric -> Tolerance`` from the tolerance CSV (absolute bands, in points of ``unit``)."""
    path = Path(path)
    frame = read_text_csv(path, TOLERANCE_COLUMNS, VerdictError, "tolerance file")
    tolerances = {}
    for line, row in zip(range(2, len(frame) + 2), frame.itertuples(index=False)):
        if row.metric in tolerances:
            raise VerdictError(f"{path}:{line}: metric {row.metric!r} given twice")
        tolerances[row.metric] = Tolerance(row.metric, row.unit, _band(path, line, row.tolerance), row.reason)
    return tolerances


def _band(path: Path, line: int, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise VerdictError(f"{path}:{line}: tolerance {text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise VerdictError(f"{path}:{line}: tolerance {value} must be a finite number >= 0")
    return value


def tolerance_of(metric: str, tolerances: dict[str, Tolerance]) -> float:
    if metric not in tolerances:
        raise VerdictError(f"metric {metric!r} has no tolerance; known: {sorted(tolerances)}")
    return tolerances[metric].tolerance


# --- verdicts ------------------------------------------------------------------------------


def verdict(delta: float, tolerance: float) -> str:
    """``within`` / ``outside`` for a number, ``missing`` for NaN."""
    if delta is None or pd.isna(delta):
        return "missing"
    return "within" if abs(delta) <= tolerance + EPSILON else "outside"


def is_stand_in(model: object, tiny_models: set[str]) -> bool:
    """Whether our system (``slug`` or ``slug (method)``) is a stand-in (``tiny_models``: the tiny models and
    ``report.stand_ins``)."""
    return isinstance(model, str) and split_system(model)[0] in tiny_models


def judge(published: pd.DataFrame, reproduced: pd.DataFrame, tolerances: dict[str, Tolerance],
          tiny_models: set[str], systems: dict[str, dict[str, str]] | None = None) -> pd.DataFrame:
    """Every published row with our number, delta, tolerance, verdict and the stand-in flag.

    A row is a stand-in when our system is a stand-in, or, with no number of ours (the suite not
    run), when ``systems`` maps its paper system to one: the demo's LAMA verdicts are all missing,
    and their summary line must still say whose they would be.
    """
    bands = [tolerance_of(metric, tolerances) for metric in published["metric"]]
    ours = reproduced[[*KEYS, "model", "reproduced"]]
    merged = published.merge(ours, on=KEYS, how="left", validate="one_to_one")
    merged["reproduced"] = merged["reproduced"].astype(float)
    merged["tolerance"] = np.asarray(bands, dtype=float)
    merged["delta"] = merged["reproduced"] - merged["published"].astype(float)
    merged["verdict"] = [verdict(d, t) for d, t in zip(merged["delta"], merged["tolerance"])]
    mapped = [(systems or {}).get(suite, {}).get(system) for suite, system in zip(merged["suite"],
                                                                                   merged["paper_system"])]
    merged["stand_in"] = [is_stand_in(m if isinstance(m, str) else planned, tiny_models)
                          for m, planned in zip(merged["model"], mapped)]
    merged["model"] = merged["model"].fillna("")
    merged["note"] = merged["note"].fillna("")
    return merged[VERDICT_COLUMNS].pipe(sort_keys)


# --- summaries -----------------------------------------------------------------------------


def summary_line(verdicts: pd.DataFrame, suite: str) -> str:
    """``LAMA: n of m published numbers reproduced within tolerance (k missing)``, counting the numbers
    mapped to real systems; the stand-ins' own count and the warning follow, never merged into it."""
    rows = verdicts[verdicts["suite"] == suite]
    real, stand_ins = rows[~rows["stand_in"]], rows[rows["stand_in"]]
    line = (f"{SUITE_NAMES.get(suite, suite)}: {_within_of(real)} published numbers reproduced within tolerance "
            f"({_missing(real)} missing)")
    if stand_ins.empty:
        return line
    if real.empty:
        line = f"{SUITE_NAMES.get(suite, suite)}: no published number is mapped to a real system"
    return (f"{line}; stand-ins: {_within_of(stand_ins)} within tolerance ({_missing(stand_ins)} missing) "
            f"— {STAND_IN_WARNING}")


def _within_of(rows: pd.DataFrame) -> str:
    return f"{int((rows['verdict'] == 'within').sum())} of {len(rows)}"


def _missing(rows: pd.DataFrame) -> int:
    return int((rows["verdict"] == "missing").sum())


def suite_summary(verdicts: pd.DataFrame) -> pd.DataFrame:
    """One line per suite (the four in their usual order, then any other): counts and the summary line."""
    suites = [s for s in SUITES if s in set(verdicts["suite"])] + sorted(set(verdicts["suite"]) - set(SUITES))
    records = []
    for suite in suites:
        rows = verdicts[verdicts["suite"] == suite]
        stand_ins = rows[rows["stand_in"]]
        counts = rows.loc[~rows["stand_in"], "verdict"].value_counts()
        records.append({"suite": suite, "published": len(rows), **{v: int(counts.get(v, 0)) for v in VERDICTS},
                        "stand_ins": len(stand_ins), "stand_ins_within": int((stand_ins["verdict"] == "within").sum()),
                        "line": summary_line(verdicts, suite)})
    return pd.DataFrame.from_records(records, columns=SUMMARY_COLUMNS)


# --- writing -------------------------------------------------------------------------------


def readable(verdicts: pd.DataFrame) -> pd.DataFrame:
    """The Markdown/LaTeX layout: no suite column, the stand-in flag only when it is set somewhere, and
    each delta with the decimals that tell it from its band (``shown_delta``)."""
    shown = verdicts.drop(columns=["suite"])
    shown["delta"] = [shown_delta(d, t) for d, t in zip(shown["delta"], shown["tolerance"])]
    if not shown["stand_in"].any():
        shown = shown.drop(columns=["stand_in"])
    return shown


def shown_delta(delta: float, tolerance: float) -> str:
    """``delta`` to 2 decimals, or as many more (up to 6) as it takes not to print the band itself when
    it is outside it (15.904 - 14.9 = 1.004 against 1.00 reads 1.004, not 1.00)."""
    if pd.isna(delta):
        return ""
    for decimals in range(2, 7):
        text = f"{delta:.{decimals}f}"
        if abs(delta) <= tolerance + EPSILON or abs(float(text)) > tolerance:
            return text
    return text


def suite_markdown(verdicts: pd.DataFrame, suite: str, tolerances: dict[str, Tolerance] | None = None,
                   warning: str = "") -> str:
    """``warning``: a line on how the suite's numbers were computed, shown in bold under the summary."""
    from lmprobes.io import to_markdown

    rows = verdicts[verdicts["suite"] == suite]
    parts = [f"## {SUITE_NAMES.get(suite, suite)}: paper vs reproduction\n", f"{summary_line(verdicts, suite)}\n"]
    if warning:
        parts.append(f"**WARNING: {warning}.**\n")
    if rows["stand_in"].any():
        parts.append(f"**WARNING: {STAND_IN_WARNING}. Numbers marked stand_in come from stand-ins (tiny "
                     "random-weight models, and the systems report.stand_ins names: the offline demo); their "
                     "verdicts only exercise the pipeline.**\n")
    parts.append(_tolerance_note(rows, tolerances))
    parts.append(to_markdown(readable(rows), floatfmt=".2f"))
    return "\n".join(p for p in parts if p)


def _tolerance_note(rows: pd.DataFrame, tolerances: dict[str, Tolerance] | None) -> str:
    if not tolerances:
        return ""
    lines = [f"- `{m}`: ±{tolerances[m].tolerance:g} {tolerances[m].unit}" for m in sorted(set(rows["metric"]))]
    return "Tolerance bands (|delta| <= band is within; reasons in resources/report/tolerances.csv):\n\n" + \
        "\n".join(lines) + "\n"


def summary_markdown(summary: pd.DataFrame) -> str:
    from lmprobes.io import to_markdown

    lines = "\n".join(f"- {line}" for line in summary["line"])
    return f"## Paper vs reproduction: summary\n\n{lines}\n\n" + to_markdown(summary.drop(columns=["line"]))


def _write_csv(frame: pd.DataFrame, path: Path) -> None:
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False, lineterminator="\n")


def write_verdicts(verdicts: pd.DataFrame, out_dir: Path, tolerances: dict[str, Tolerance] | None = None,
                   warnings: Mapping[str, str] | None = None) -> list[Path]:
    """Per suite ``<suite>.{csv,md,tex}`` and ``summary.{csv,md,tex}`` under ``out_dir``; returns the paths.
    ``warnings``: per suite, a line on how its numbers were computed, in its Markdown and LaTeX note."""
    from lmprobes.report.latex import to_booktabs  # written alongside this module; only the writer needs it

    out_dir = Path(out_dir)
    verdicts = verdicts.pipe(sort_keys)
    written = []
    for suite in [s for s in SUITES if s in set(verdicts["suite"])]:
        rows = verdicts[verdicts["suite"] == suite]
        _write_csv(rows, out_dir / f"{suite}.csv")
        warning = (warnings or {}).get(suite, "")
        write_text(suite_markdown(verdicts, suite, tolerances, warning), out_dir / f"{suite}.md")
        note = " ".join(filter(None, [summary_line(verdicts, suite), f"WARNING: {warning}." if warning else ""]))
        latex = to_booktabs(readable(rows), caption=f"{SUITE_NAMES[suite]}: paper vs reproduction",
                            label=f"tab:verdicts-{suite}", floatfmt=".2f", note=note)
        write_text(latex, out_dir / f"{suite}.tex")
        written += [out_dir / f"{suite}.{ext}" for ext in ("csv", "md", "tex")]
    summary = suite_summary(verdicts)
    _write_csv(summary, out_dir / "summary.csv")
    write_text(summary_markdown(summary), out_dir / "summary.md")
    write_text(to_booktabs(summary.drop(columns=["line"]), caption="Paper vs reproduction: published numbers "
                           "within tolerance, per suite", label="tab:verdicts-summary", floatfmt=".0f",
                           note="; ".join(summary["line"])), out_dir / "summary.tex")
    return written + [out_dir / f"summary.{ext}" for ext in ("csv", "md", "tex")]


def make_verdicts(resources: Path, tables: Path, systems: dict[str, dict[str, str]], tiny_models: set[str],
                  out_dir: Path, tolerances_path: Path | None = None,
                  table_files: Collection[str | Path] | None = None) -> pd.DataFrame:
    """Read the published and reproduced numbers, judge them, write every verdict table; returns the
    verdicts. ``table_files``: the suite tables this run makes; others under ``tables`` are not read."""
    resources = Path(resources)
    tolerances = read_tolerances(tolerances_path or resources / "report" / "tolerances.csv")
    reproduced = read_reproduced(tables, systems, inputs=table_files)
    verdicts = judge(read_published(resources), reproduced, tolerances, set(tiny_models), systems)
    write_verdicts(verdicts, out_dir, tolerances, {"lama": lama_protocol_warning(tables, table_files)})
    return verdicts
