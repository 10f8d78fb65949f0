"""LaTeX (booktabs) tables for papers, written by hand from a DataFrame.

``to_booktabs`` returns a standalone ``table`` float: ``\\centering``, a ``tabular`` with one column
per frame column, ``\\toprule``/``\\midrule``/``\\bottomrule`` (needs ``\\usepackage{booktabs}``),
caption above the tabular (the usual place for tables) and an optional footnote-sized note below.

Conventions:

* A column is right-aligned (``r``) when its dtype is numeric, or when every non-missing value in it
  is a number (bools are not numbers here); anything else is left-aligned (``l``).
* Floats are written with ``floatfmt`` (as the Markdown tables), integers as they are, bools as
  ``yes``/``no``, missing values (None, NaN, NA) as ``--``.
* Every cell, header, caption and note is escaped: ``& % $ # _ { } ~ ^ \\`` become their LaTeX
  spellings in a single pass (so the backslash of an escape is never escaped again), and line breaks
  become spaces (a row must stay on one line of the tabular).
* Non-ASCII text (``±``, ``✓``) is written as it is: the output is UTF-8 (LuaLaTeX/XeLaTeX, or
  pdfLaTeX with a declaration for each such character).
* The label is written as given; it may hold only letters, digits and ``: _ . - /`` (characters a
  ``\\ref`` can carry without escaping), anything else is refused.
* A frame without columns (nothing to show) becomes a one-cell table reading ``(no data)``.

pandas' ``Styler.to_latex`` is not used: it needs jinja2 at run time, and its escaping depends on the
pandas version; this module needs pandas alone and its output depends on the frame alone.
"""

from __future__ import annotations

import math
import numbers
import re

import numpy as np
import pandas as pd

MISSING = "--"
NO_DATA = "(no data)"

_SPECIAL = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}
_SPECIAL_RE = re.compile("|".join(re.escape(char) for char in _SPECIAL))
_LABEL_RE = re.compile(r"[A-Za-z0-9:_./-]*")


class LatexTableError(ValueError):
    """A frame or option that cannot become a LaTeX table."""


def escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped and line breaks turned into spaces."""
    flat = " ".join(str(text).splitlines())
    return _SPECIAL_RE.sub(lambda match: _SPECIAL[match.group(0)], flat)


def _is_missing(value: object) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral) and math.isnan(float(value))


def _is_bool(value: object) -> bool:
    return isinstance(value, (bool, np.bool_))


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Number) and not _is_bool(value)


def format_cell(value: object, floatfmt: str = ".1f") -> str:
    """One cell as escaped LaTeX text (see the module docstring for the rules)."""
    if _is_missing(value):
        return MISSING
    if _is_bool(value):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return escape(format(float(value), floatfmt))
    return escape(str(value))


def column_alignment(values: pd.Series) -> str:
    """``r`` for a numeric column or one whose non-missing values are all numbers, else ``l``."""
    if pd.api.types.is_numeric_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype):
        return "r"
    present = [value for value in values.tolist() if not _is_missing(value)]
    return "r" if present and all(_is_number(value) for value in present) else "l"


def prose_note(markdown_note: str) -> str:
    """The prose of a Markdown note: its lines before the first Markdown table or heading.

    The suites' notes sometimes carry whole Markdown sections (per-task tables after the overview);
    escaped into a footnote they would be noise, so the LaTeX note stops where they begin.
    """
    kept = []
    for line in markdown_note.splitlines():
        if line.lstrip().startswith(("|", "#")):
            break
        kept.append(line)
    return "\n".join(kept).strip()


def _row(cells: list[str]) -> str:
    return " & ".join(cells) + r" \\"


def to_booktabs(frame: pd.DataFrame, caption: str = "", label: str = "", floatfmt: str = ".1f",
                note: str = "") -> str:
    """``frame`` as a standalone booktabs ``table`` environment (the index is not written)."""
    if not _LABEL_RE.fullmatch(label):
        raise LatexTableError(f"LaTeX label {label!r}: use only letters, digits and ': _ . - /'")
    if frame.shape[1] == 0:  # e.g. a comparison with nothing to compare: say so rather than fail the rule
        frame = pd.DataFrame({"": [NO_DATA]})
    columns = [frame.iloc[:, position] for position in range(frame.shape[1])]
    spec = "".join(column_alignment(column) for column in columns)
    lines = [r"\begin{table}[htbp]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{escape(caption)}}}")
    if label:
        lines.append(rf"\label{{{label}}}")
    lines += [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", _row([escape(str(name)) for name in frame.columns]),
              r"\midrule"]
    lines += [_row([format_cell(value, floatfmt) for value in row]) for row in frame.itertuples(index=False)]
    lines += [r"\bottomrule", r"\end{tabular}"]
    if note.strip():
        lines.append(rf"\par\smallskip{{\footnotesize {escape(note.strip())}\par}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"
