"""LaTeX booktabs writer: exact output, escaping, missing values, and write_table's .tex sibling."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lmprobes.io import write_table
from lmprobes.report.latex import LatexTableError, escape, prose_note, to_booktabs


def test_small_frame_exact_text():
    frame = pd.DataFrame({"model": ["bert", "gpt2"], "acc": [81.25, 0.04], "n": [67, 3], "tiny": [True, False]})
    expected = r"""\begin{table}[htbp]
\centering
\caption{BLiMP overall}
\label{tab:blimp}
\begin{tabular}{lrrl}
\toprule
model & acc & n & tiny \\
\midrule
bert & 81.2 & 67 & yes \\
gpt2 & 0.0 & 3 & no \\
\bottomrule
\end{tabular}
\end{table}""" + "\n"
    assert to_booktabs(frame, caption="BLiMP overall", label="tab:blimp") == expected


def test_no_caption_or_label_lines_when_empty_and_floatfmt_applies():
    text = to_booktabs(pd.DataFrame({"x": [1.23456]}), floatfmt=".3f")
    assert r"\caption" not in text and r"\label" not in text
    assert r"1.235 \\" in text.splitlines()


@pytest.mark.parametrize(("raw", "latex"), [
    ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"), ("_", r"\_"), ("{", r"\{"), ("}", r"\}"),
    ("~", r"\textasciitilde{}"), ("^", r"\textasciicircum{}"), ("\\", r"\textbackslash{}"),
])
def test_every_special_character_is_escaped(raw, latex):
    assert escape(f"a{raw}b") == f"a{latex}b"
    text = to_booktabs(pd.DataFrame({f"h{raw}": [f"c{raw}"]}), caption=f"t{raw}")
    assert f"h{latex} \\\\" in text.splitlines()
    assert f"c{latex} \\\\" in text.splitlines()
    assert rf"\caption{{t{latex}}}" in text.splitlines()


def test_escape_is_one_pass_so_backslash_braces_are_not_escaped_twice():
    assert escape(r"\{x}") == r"\textbackslash{}\{x\}"


def test_missing_values_become_dashes_and_keep_column_numeric():
    frame = pd.DataFrame({
        "f": [np.nan, 1.0],
        "f32": np.array([np.nan, 2.0], dtype="float32"),
        "i": pd.array([None, 3], dtype="Int64"),
        "s": [None, "x"],
    })
    body = to_booktabs(frame).splitlines()
    assert r"\begin{tabular}{rrrl}" in body
    assert r"-- & -- & -- & -- \\" in body
    assert r"1.0 & 2.0 & 3 & x \\" in body


def test_cell_with_ampersand_does_not_add_a_column():
    frame = pd.DataFrame({"a": ["x & y"], "b": ["50%"]})
    row = next(line for line in to_booktabs(frame).splitlines() if line.startswith("x"))
    # Two columns means exactly one unescaped separator.
    unescaped = row.replace(r"\&", "").count("&")
    assert unescaped == 1
    assert row == r"x \& y & 50\% \\"


def test_line_breaks_in_cells_and_note_stay_on_one_line():
    text = to_booktabs(pd.DataFrame({"a": ["one\ntwo"]}), note="\nfirst\nsecond_line\n")
    assert r"one two \\" in text.splitlines()
    assert r"\par\smallskip{\footnotesize first second\_line\par}" in text.splitlines()


def test_alignment_numeric_dtype_or_all_numbers_right_else_left():
    frame = pd.DataFrame({"mixed": pd.Series([1, "x"], dtype=object), "numbers": pd.Series([1, None], dtype=object),
                          "all_nan": [np.nan, np.nan], "empty_text": pd.Series([None, None], dtype=object)})
    assert r"\begin{tabular}{lrrl}" in to_booktabs(frame).splitlines()


def test_deterministic():
    frame = pd.DataFrame({"a": ["x", "y"], "b": [0.5, 0.25]})
    assert to_booktabs(frame, "c", "t") == to_booktabs(frame.copy(), "c", "t")


def test_bad_label_is_refused():
    with pytest.raises(LatexTableError, match="label"):
        to_booktabs(pd.DataFrame({"a": [1]}), label="tab one}")


def test_frame_without_columns_says_no_data():
    lines = to_booktabs(pd.DataFrame(index=range(3)), caption="empty").splitlines()
    assert lines[lines.index(r"\midrule") + 1:lines.index(r"\bottomrule")] == [r"(no data) \\"]
    assert r"\begin{tabular}{l}" in lines


def test_prose_note_stops_at_markdown_tables_and_headings():
    note = "\nAccuracy (%) on dev.\nSecond line.\n\n### Table 2\n\n| a |\n|---|\n| 1 |\n"
    assert prose_note(note) == "Accuracy (%) on dev.\nSecond line."
    assert prose_note("| a |\n") == ""


def test_write_table_writes_tex_of_markdown_layout(tmp_path):
    tidy = pd.DataFrame({"model": ["m"], "metric": ["acc"], "value": [0.5]})
    wide = pd.DataFrame({"model": ["m"], "acc": [50.0]})
    write_table(tidy, tmp_path / "t.csv", tmp_path / "t.md", title="My_title", markdown_frame=wide, note="n")
    tex = (tmp_path / "t.tex").read_text()
    assert tex == to_booktabs(wide, caption="My_title", note="n")
    assert r"\caption{My\_title}" in tex
    assert (tmp_path / "t.md").read_text() == "## My_title\n\n| model | acc |\n|---|---|\n| m | 50.0 |\nn"


def test_write_table_tex_note_is_the_prose_only(tmp_path):
    frame = pd.DataFrame({"a": [1]})
    write_table(frame, tmp_path / "n.csv", tmp_path / "n.md", note="\nKeep this.\n\n| x |\n|---|\n| 2 |\n")
    assert r"\par\smallskip{\footnotesize Keep this.\par}" in (tmp_path / "n.tex").read_text().splitlines()
    assert "| x |" in (tmp_path / "n.md").read_text()


def test_write_table_without_markdown_frame_uses_the_csv_frame(tmp_path):
    tidy = pd.DataFrame({"model": ["m"], "value": [0.123]})
    write_table(tidy, tmp_path / "a.csv", tmp_path / "a.md", floatfmt=".2f")
    assert (tmp_path / "a.tex").read_text() == to_booktabs(tidy, floatfmt=".2f")
