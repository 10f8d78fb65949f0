"""LaTeX (booktabs) tables for papers, written by hand from a DataFrame.

``to_booktabs`` returns a standalone ``table`` float: ``\\centering``, a ``tabular`` with one column
per frame column, ``\\toprule``/``\\midrule``/``\\bottomrule`` (needs ``\\usepackage{booktabs}``),
caption above the tabular (the usual place for tables) and an optional footnote-sized note below.

Conventions:

* A column is right-aligned (``r``) when its dtype is numeric, or when every non-missing value in it
  is a number (bools are not numbers here); anything else is left-aligned (``l``).
* Floats are written with ``floatfmt`` (as the Markdown tables), integers as they are, bools as
  ``yes``/``no``, missing values (None, NaN, NA) as ``--``, or as ``missing`` says (blank, for a table
  whose note, shared with the Markdown, calls a missing cell blank or empty).
* Every cell, header, caption and note is escaped: ``& % $ # _ { } ~ ^ \\`` become their LaTeX
  spellings, and so do ``< > |`` (pdfLaTeX's default OT1 text font prints them as ``¡ ¿ —``), in a
  single pass (so the backslash of an escape is never escaped again), and line breaks become spaces
  (a row must stay on one line of the tabular).
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
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
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


def format_cell(value: object, floatfmt: str = ".1f", missing: str = MISSING) -> str:
    """One cell as escaped LaTeX text (see the module docstring for the rules)."""
    if _is_missing(value):
        return missing
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
    """The prose of a Markdown note: its lines before the section of its first Markdown table.

    The suites' notes sometimes carry whole Markdown sections (per-task tables after the overview);
    escaped into a footnote they would be noise, so the LaTeX note stops where they begin
    (``note_tables`` gives those tables, which ``io.write_table`` writes as tables of their own).
    A heading before that becomes a line of text ending in a colon. A Markdown list (``- item``
    lines) becomes its items separated by semicolons: a footnote is one paragraph, where the dashes
    would read as hyphens between the items.
    """
    kept: list[str] = []
    after_item = False
    lines = markdown_note.splitlines()
    for line in lines[:_first_table_section(lines)]:
        if line.lstrip().startswith("#"):
            line = _heading_as_text(line.lstrip().lstrip("#").strip())
        is_item = line.lstrip().startswith("- ")
        if is_item:
            if after_item:
                kept[-1] += ";"
            line = line.lstrip()[2:].strip()
        kept.append(line)
        after_item = is_item
    return "\n".join(kept).strip()


def note_tables(markdown_note: str, floatfmt: str = ".1f") -> list[tuple[str, pd.DataFrame, str]]:
    """The Markdown tables of a note (the sections ``prose_note`` leaves out), in order, each as (the
    heading of its section without the ``#``s, or "", with "(i of n)" when the section holds n tables;
    the table; the section's prose, under its last table). A later section without a table adds its
    heading and text to the prose of the table before it.

    A cell that is a number as ``floatfmt`` (or an integer) writes it becomes that number again, so that
    its column is right-aligned and prints the same; an empty cell becomes missing (``--``).
    """
    lines = markdown_note.splitlines()
    tables: list[tuple[str, pd.DataFrame, str]] = []
    for heading, blocks, prose in _sections(lines[_first_table_section(lines):]):
        if not blocks:
            caption, frame, before = tables[-1]
            tables[-1] = (caption, frame, " ".join(filter(None, [before, _heading_as_text(heading), prose])))
            continue
        frames = [_markdown_frame(block, floatfmt) for block in blocks]
        tables += [(f"{heading} ({index} of {len(frames)})" if heading and len(frames) > 1 else heading, frame,
                    prose if index == len(frames) else "") for index, frame in enumerate(frames, start=1)]
    return tables


def _heading_as_text(heading: str) -> str:
    """A heading inside a footnote: its text ending in one colon ("" for none)."""
    return f"{heading.rstrip(':')}:" if heading else ""


def _sections(lines: list[str]) -> list[tuple[str, list[list[str]], str]]:
    """(heading, its Markdown tables as lists of lines, its other text joined) per heading."""
    sections: list[tuple[str, list[list[str]], list[str]]] = [("", [], [])]
    previous = ""
    for line in (line.strip() for line in lines):
        _, blocks, prose = sections[-1]
        if line.startswith("#"):
            sections.append((line.lstrip("#").strip(), [], []))
        elif line.startswith("|"):
            if not previous.startswith("|"):
                blocks.append([])
            blocks[-1].append(line)
        elif line:
            prose.append(line)
        previous = line
    return [(heading, blocks, " ".join(prose)) for heading, blocks, prose in sections if blocks or heading or prose]


def _first_table_section(lines: list[str]) -> int:
    """Where the section of a note's first Markdown table begins: its heading, or the table itself
    when no heading comes before it; the end of the note when it has no table."""
    tables = [index for index, line in enumerate(lines) if line.lstrip().startswith("|")]
    if not tables:
        return len(lines)
    headings = [index for index in range(tables[0]) if lines[index].lstrip().startswith("#")]
    return headings[-1] if headings else tables[0]


_PIPE_RE = re.compile(r"(?<!\\)\|")
_DELIMITER_RE = re.compile(r"\|?(\s*:?-+:?\s*\|)*\s*:?-+:?\s*\|?")


def _markdown_cells(line: str) -> list[str]:
    inner = line.strip().removeprefix("|").removesuffix("|")
    return [cell.strip().replace("\\|", "|") for cell in _PIPE_RE.split(inner)]


def _markdown_frame(block: list[str], floatfmt: str) -> pd.DataFrame:
    """A Markdown table (header, delimiter row, rows) as a frame."""
    body = block[2:] if len(block) > 1 and _DELIMITER_RE.fullmatch(block[1]) else block[1:]
    rows = [[_markdown_value(cell, floatfmt) for cell in _markdown_cells(line)] for line in body]
    return pd.DataFrame(rows, columns=_markdown_cells(block[0]), dtype=object)


def _markdown_value(cell: str, floatfmt: str) -> object:
    if not cell:
        return None
    if re.fullmatch(r"-?\d+", cell):
        return int(cell)
    try:
        number = float(cell)
    except ValueError:
        return cell
    # to_markdown writes a missing number as an empty cell: "nan" or "inf" there is a word someone wrote.
    return number if math.isfinite(number) and format(number, floatfmt) == cell else cell


def _row(cells: list[str]) -> str:
    return " & ".join(cells) + r" \\"


def to_booktabs(frame: pd.DataFrame, caption: str = "", label: str = "", floatfmt: str = ".1f",
                note: str = "", missing: str = MISSING) -> str:
    """``frame`` as a standalone booktabs ``table`` environment (the index is not written); ``missing``:
    what a missing cell reads."""
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
    lines += [_row([format_cell(value, floatfmt, missing) for value in row]) for row in frame.itertuples(index=False)]
    lines += [r"\bottomrule", r"\end{tabular}"]
    if note.strip():
        lines.append(rf"\par\smallskip{{\footnotesize {escape(note.strip())}\par}}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"
