"""LaTeX booktabs writer: exact output, escaping, missing values, and write_table's .tex sibling (and
its parts, for a table with more system columns than a page holds)."""

from __future__ import annotations

import itertools
import random
import re

import numpy as np
import pandas as pd
import pytest

from lmprobes.io import MAX_SYSTEM_COLUMNS, SystemColumns, column_parts, to_markdown, write_table
from lmprobes.report.latex import LatexTableError, escape, note_tables, prose_note, to_booktabs


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
    # pdfLaTeX's default (OT1) text font prints these as ¡ ¿ and an em dash: Ettinger's Table 8 bins "<=.17"
    ("<", r"\textless{}"), (">", r"\textgreater{}"), ("|", r"\textbar{}"),
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


def test_prose_note_list_items_are_kept_apart_by_semicolons():
    """BLiMP Table 3's coverage list read "... NPI licensing 6 of 7 - tiny-bert (...): ..." in the footnote."""
    note = "\nParadigms scored:\n\n- a (x): overall 59 of 67\n- b-c (y): binding 5 of 7\n\nAfter.\n"
    assert prose_note(note) == "Paradigms scored:\n\na (x): overall 59 of 67;\nb-c (y): binding 5 of 7\n\nAfter."
    assert escape(prose_note(note)) == "Paradigms scored:  a (x): overall 59 of 67; b-c (y): binding 5 of 7  After."


def test_write_table_tex_note_is_the_prose_only(tmp_path):
    frame = pd.DataFrame({"a": [1]})
    write_table(frame, tmp_path / "n.csv", tmp_path / "n.md", note="\nKeep this.\n\n| x |\n|---|\n| 2 |\n")
    assert r"\par\smallskip{\footnotesize Keep this.\par}" in (tmp_path / "n.tex").read_text().splitlines()
    assert "| x |" in (tmp_path / "n.md").read_text()


def test_write_table_tex_has_the_notes_markdown_tables(tmp_path):
    """The sections of a note (oLMpics' per-task learning-curve tables, the paper's Table 4 grid) are in
    the LaTeX too, not only in the Markdown: each a table captioned by its heading, its prose below."""
    note = ("\nAccuracy (%) on dev.\n\n### Table 2: Age (chance 50.0%)\n\n| System | WS | n | pert |\n|---|---|---|---|\n"
            "| RoBERTa-L (paper) | 98.0 | 3 |  |\n| a \\| b | 7.5 | 12 | x |\n\nSeeds: 3.\n\n"
            "### Table 3\n\n| System | WS |\n|---|---|\n| ours | 51.0 |\n")
    write_table(pd.DataFrame({"a": [1]}), tmp_path / "s.csv", tmp_path / "s.md", title="Overview", note=note)
    tex = (tmp_path / "s.tex").read_text()
    assert tex.count(r"\begin{tabular}") == 3
    first, second, third = tex.split(r"\end{table}")[:3]
    assert r"\footnotesize Accuracy (\%) on dev.\par" in first
    assert r"\caption{Table 2: Age (chance 50.0\%)}" in second and r"\begin{tabular}{lrrl}" in second
    assert r"RoBERTa-L (paper) & 98.0 & 3 & -- \\" in second and r"a \textbar{} b & 7.5 & 12 & x \\" in second
    assert r"\footnotesize Seeds: 3.\par" in second
    assert r"\caption{Table 3}" in third and r"ours & 51.0 \\" in third


def test_a_note_table_without_heading_continues_the_title(tmp_path):
    write_table(pd.DataFrame({"a": [1]}), tmp_path / "c.csv", tmp_path / "c.md", title="Grid",
                note="\nCell: a word.\n\n| x | y |\n|---|---|\n| y | - |\n")
    tex = (tmp_path / "c.tex").read_text()
    assert r"\caption{Grid (continued)}" in tex and r"y & - \\" in tex


def test_no_text_of_a_note_is_dropped_from_the_latex(tmp_path):
    """A section without a table (before the first table, or after one) keeps its heading and text in
    the LaTeX: before the first table's section in the main note, after it in the previous table's."""
    note = ("\nIntro.\n\n### Protocol\n\nFive seeds.\n\n### Table 2\n\n| x |\n|---|\n| 1 |\n\nBelow two.\n\n"
            "### Caveats:\n\nDev set only.\n\n### Table 3\n\n| y |\n|---|\n| 2 |\n")
    assert prose_note(note) == "Intro.\n\nProtocol:\n\nFive seeds."
    assert [(caption, prose) for caption, _, prose in note_tables(note)] == [
        ("Table 2", "Below two. Caveats: Dev set only."), ("Table 3", "")]
    write_table(pd.DataFrame({"a": [1]}), tmp_path / "p.csv", tmp_path / "p.md", title="T", note=note)
    tex = escape(" ".join((tmp_path / "p.tex").read_text().split()))
    assert all(text in tex for text in ("Protocol: Five seeds.", "Below two. Caveats: Dev set only."))


def test_several_tables_in_one_section_are_numbered_in_their_captions():
    note = "### Table 4\n\n| x |\n|---|\n| 1 |\n\nBetween.\n\n| y |\n|---|\n| 2 |\n\nAfter.\n"
    tables = note_tables(note)
    assert [caption for caption, _, _ in tables] == ["Table 4 (1 of 2)", "Table 4 (2 of 2)"]
    assert [list(frame.columns) for _, frame, _ in tables] == [["x"], ["y"]]
    assert tables[-1][2] == "Between. After."


def test_a_pipe_in_a_column_name_survives_markdown_and_latex():
    frame = pd.DataFrame({"P(a|b)": [0.5], "n": [3]})
    markdown = to_markdown(frame, floatfmt=".2f")
    assert markdown.splitlines()[0] == "| P(a\\|b) | n |"
    (_, back, _), = note_tables(f"### Again\n\n{markdown}", floatfmt=".2f")
    assert list(back.columns) == ["P(a|b)", "n"] and back.iloc[0].tolist() == [0.5, 3]


def test_a_pipe_in_a_cell_survives_markdown_and_latex():
    """ROLE-88's expected words are '|'-separated: a bare pipe would split the Markdown cell."""
    frame = pd.DataFrame({"expected": ["avoided|hated"], "n": [2]})
    markdown = to_markdown(frame)
    assert markdown.splitlines()[2] == "| avoided\\|hated | 2 |"
    (_, back, _), = note_tables(f"### Again\n\n{markdown}")
    assert back.iloc[0].tolist() == ["avoided|hated", 2]


def test_a_note_cell_is_a_number_only_where_floatfmt_prints_it_back_the_same():
    """A cell written with more decimals (or as 1e3) stays text: as a number it would print otherwise."""
    (_, frame, _), = note_tables("| x |\n|---|\n| 12.5 |\n| 0.05 |\n| 1e3 |\n| 7 |\n", floatfmt=".1f")
    assert frame["x"].tolist() == [12.5, "0.05", "1e3", 7]
    assert r"0.05 \\" in to_booktabs(frame).splitlines()


def test_a_float32_among_text_is_rounded_in_markdown_as_in_latex():
    """A float32 in an object column (a value taken from a float32 Parquet column) is no Python float."""
    frame = pd.DataFrame({"x": pd.Series([np.float32(2.345), "a"], dtype=object)})
    assert to_markdown(frame).splitlines()[2:] == ["| 2.3 |", "| a |"]
    assert "2.3 \\\\" in to_booktabs(frame)


def test_write_table_without_markdown_frame_uses_the_csv_frame(tmp_path):
    tidy = pd.DataFrame({"model": ["m"], "value": [0.123]})
    write_table(tidy, tmp_path / "a.csv", tmp_path / "a.md", floatfmt=".2f")
    assert (tmp_path / "a.tex").read_text() == to_booktabs(tidy, floatfmt=".2f")


def with_systems(count: int) -> pd.DataFrame:
    """Two row-label columns, then ``count`` system columns."""
    systems = {f"s{i:03d} (m_{i})": [float(i), i + 0.25] for i in range(count)}
    return pd.DataFrame({"category": ["a", "b"], "paradigm": ["p_1", "p_2"], **systems})


def test_column_parts_split_past_the_limit_into_near_equal_parts_each_led_by_the_row_labels():
    frame, labels = with_systems(185), SystemColumns(2)  # BLiMP's Table 4 at 60 models
    parts = column_parts(frame, labels)
    assert [part.shape[1] - 2 for part in parts] == [27, 27, 27, 26, 26, 26, 26]
    assert all(list(part.columns[:2]) == ["category", "paradigm"] for part in parts)
    pd.testing.assert_frame_equal(pd.concat([part.iloc[:, 2:] for part in parts], axis=1), frame.iloc[:, 2:])
    assert [part.shape[1] - 2 for part in column_parts(with_systems(MAX_SYSTEM_COLUMNS + 1), labels)] == [16, 15]
    whole = with_systems(MAX_SYSTEM_COLUMNS)
    assert len(column_parts(whole, labels)) == 1 and column_parts(whole, labels)[0] is whole


def test_column_parts_take_columns_by_place_a_system_named_like_a_row_label_once():
    """A system column may share a row label's name (``lama.tables.row_label_count``: it counts for nothing
    there); each part holds the row labels once and each of its systems once, as the whole table does."""
    systems = ["Freq", *(f"m{i:02d}" for i in range(30)), "facts"]
    frame = pd.DataFrame([["T-REx", 9, *range(len(systems))]], columns=["corpus", "facts", *systems])
    parts = column_parts(frame, SystemColumns(2, frozenset({"Freq"})))
    assert [part.shape[1] for part in parts] == [2 + 1 + 16, 2 + 1 + 15]
    assert list(parts[1].columns) == ["corpus", "facts", "Freq", *(f"m{i:02d}" for i in range(16, 30)), "facts"]
    assert [part.iloc[0, :3].tolist() for part in parts] == [["T-REx", 9, 0]] * 2
    pd.testing.assert_frame_equal(pd.concat([parts[0].iloc[:, 2:], *(part.iloc[:, 3:] for part in parts[1:])], axis=1),
                                  frame.iloc[:, 2:])


def with_models(widths: dict[str, int], before: tuple[str, ...] = (), after: tuple[str, ...] = ()):
    """Two row-label columns, the ``before`` references, each model's ``widths[model]`` method columns
    (``model (k0)``, ...), the ``after`` references; and its layout."""
    systems = [*before, *(f"{model} (k{k})" for model, width in widths.items() for k in range(width)), *after]
    frame = pd.DataFrame({"category": ["a"], "paradigm": ["p_1"], **{s: [float(i)] for i, s in enumerate(systems)}})
    models = {f"{model} (k{k})": model for model, width in widths.items() for k in range(width)}
    return frame, SystemColumns(2, frozenset((*before, *after)), models)


def models_by_part(parts: list[pd.DataFrame], layout: SystemColumns) -> list[list[str]]:
    return [list(dict.fromkeys(layout.models[c] for c in part.columns if c in layout.models)) for part in parts]


def test_column_parts_repeat_the_references_where_the_whole_table_has_them():
    frame, layout = with_models({f"m{i:02d}": 1 for i in range(40)}, ("Freq",), ("A (paper)", "B (paper)"))
    parts = column_parts(frame, layout)
    # 40 configured systems, 27 a part beside the 3 references: 2 parts of 20, each 30 columns at most
    assert [list(part.columns[:3]) for part in parts] == [["category", "paradigm", "Freq"]] * 2
    assert [list(part.columns[-2:]) for part in parts] == [["A (paper)", "B (paper)"]] * 2
    assert [part.shape[1] - 2 for part in parts] == [23, 23]
    configured = [c for part in parts for c in part.columns[3:-2]]
    assert configured == list(frame.columns[3:-2]), "every configured system once, in order"
    # 28 configured and the 3: 31 columns, 2 parts; 27 and the 3: one table, as before
    assert [p.shape[1] - 2 for p in column_parts(*with_models(dict.fromkeys("abcdefghijklmnopqrstuvwxyzAB", 1),
                                                                ("Freq",), ("A (paper)", "B (paper)")))] == [17, 17]
    whole, layout = with_models(dict.fromkeys("abcdefghijklmnopqrstuvwxyzA", 1), ("Freq",), ("A (paper)", "B (paper)"))
    assert column_parts(whole, layout)[0] is whole


def test_column_parts_keep_a_models_methods_in_one_part():
    frame, layout = with_models({f"m{i:02d}": 4 for i in range(16)})  # 64 columns: 3 parts
    parts = column_parts(frame, layout)
    assert [part.shape[1] - 2 for part in parts] == [24, 20, 20], "6, 5 and 5 models (21-22 would cut one)"
    assert [len(models) for models in models_by_part(parts, layout)] == [6, 5, 5]
    mixed, layout = with_models({"a": 5, "b": 1, "c": 9, "d": 9, "e": 2, "f": 7, "g": 3})
    assert models_by_part(column_parts(mixed, layout, most=12), layout) == [["a", "b"], ["c"], ["d", "e"], ["f", "g"]]


def test_column_parts_are_the_fewest_and_the_most_even_that_keep_models_whole():
    rng = random.Random(7)
    for _ in range(200):
        widths = [rng.randint(1, 6) for _ in range(rng.randint(2, 9))]
        most = rng.randint(max(widths), 14)
        frame, layout = with_models({f"m{i}": width for i, width in enumerate(widths)})
        if sum(widths) <= most:
            continue
        parts = column_parts(frame, layout, most)
        assert sum(map(len, models_by_part(parts, layout))) == len(widths), "no model in two parts"
        got = [part.shape[1] - 2 for part in parts]
        splits = [[sum(widths[a:b]) for a, b in zip((0, *cuts), (*cuts, len(widths)))]
                  for count in range(len(widths)) for cuts in itertools.combinations(range(1, len(widths)), count)]
        fitting = [split for split in splits if max(split) <= most]
        fewest = min(map(len, fitting))
        best = min((sum(w * w for w in split), [-w for w in split]) for split in fitting if len(split) == fewest)
        assert got == [-w for w in best[1]], (widths, most)


def test_a_model_wider_than_a_part_gets_parts_of_its_own():
    """Its methods are split only then, in the fewest near-equal parts, each beside the references;
    the models before and after it are parted apart."""
    frame, layout = with_models({"a": 2, "b": 2, "wide": 50, "c": 3}, after=("P (paper)",))
    parts = column_parts(frame, layout)  # 29 configured columns a part
    assert models_by_part(parts, layout) == [["a", "b"], ["wide"], ["wide"], ["c"]]
    assert [part.shape[1] - 2 for part in parts] == [5, 26, 26, 4]
    assert all(part.columns[-1] == "P (paper)" for part in parts)
    assert [c for part in parts[1:3] for c in part.columns[2:-1]] == [f"wide (k{k})" for k in range(50)]


def test_markdown_parts_count_the_configured_systems_and_say_what_each_repeats(tmp_path):
    frame, layout = with_models({f"m{i:02d}": 2 for i in range(14)}, ("Freq",), ("A (paper)", "B (paper)"))
    write_table(frame, tmp_path / "a.csv", tmp_path / "a.md", title="T", systems=layout)
    md = (tmp_path / "a.md").read_text()
    assert [line for line in md.splitlines() if line.startswith("#")] == [
        "## T", "### Part 1 of 2: systems 1-14 of 28, with the 3 reference columns",
        "### Part 2 of 2: systems 15-28 of 28, with the 3 reference columns"]
    assert md.count("| category | paradigm | Freq | ") == 2 and md.count("| A (paper) | B (paper) |\n") == 2


def test_write_table_keeps_a_table_of_30_systems_references_included_whole_and_its_bytes(tmp_path):
    frame, layout = with_models({f"m{i:02d}": 3 for i in range(9)}, ("Freq",), ("A (paper)", "B (paper)"))
    write_table(frame, tmp_path / "a.csv", tmp_path / "a.md", title="T", note="\nn\n", systems=layout)
    write_table(frame, tmp_path / "b.csv", tmp_path / "b.md", title="T", note="\nn\n")
    for ext in ("csv", "md", "tex"):
        assert (tmp_path / f"a.{ext}").read_bytes() == (tmp_path / f"b.{ext}").read_bytes(), ext


def test_write_table_keeps_a_table_of_up_to_30_systems_whole_and_its_bytes(tmp_path):
    """The default config's BLiMP Table 4: 25 systems and the paper's 5, as before parts existed."""
    frame = with_systems(MAX_SYSTEM_COLUMNS)
    write_table(frame, tmp_path / "a.csv", tmp_path / "a.md", title="T", note="\nn\n", systems=SystemColumns(2))
    write_table(frame, tmp_path / "b.csv", tmp_path / "b.md", title="T", note="\nn\n")
    for ext in ("csv", "md", "tex"):
        assert (tmp_path / f"a.{ext}").read_bytes() == (tmp_path / f"b.{ext}").read_bytes(), ext
    assert "Part" not in (tmp_path / "a.md").read_text() and "part" not in (tmp_path / "a.tex").read_text()


def test_write_table_shows_more_systems_in_parts_each_a_whole_table(tmp_path):
    frame = with_systems(61)
    tidy = frame.melt(id_vars=["category", "paradigm"], var_name="system")
    write_table(tidy, tmp_path / "w.csv", tmp_path / "w.md", title="Table 4: wide", markdown_frame=frame,
                note="\nA note.\n", systems=SystemColumns(2))
    assert (tmp_path / "w.csv").read_text() == tidy.to_csv(index=False, lineterminator="\n"), "the CSV stays one file"
    md = (tmp_path / "w.md").read_text()
    headings = [line for line in md.splitlines() if line.startswith("#")]
    assert headings == ["## Table 4: wide", "### Part 1 of 3: systems 1-21 of 61", "### Part 2 of 3: systems 22-41 of 61",
                        "### Part 3 of 3: systems 42-61 of 61"]
    headers = [line for line in md.splitlines() if line.startswith("| category | paradigm |")]
    assert [line.count(" | ") - 1 for line in headers] == [21, 20, 20]
    assert md.count("\n| a | p_1 |") == 3 and md.endswith("| b | p_2 | " + " | ".join(
        f"{i + 0.25:.1f}" for i in range(41, 61)) + " |\n\nA note.\n")

    tex = (tmp_path / "w.tex").read_text()
    tables = tex.split("\n\\begin{table}")
    assert len(tables) == 3 and tex.count(r"\begin{table}") == tex.count(r"\end{table}") == 3
    for index, (table, systems) in enumerate(zip(tables, (21, 20, 20)), start=1):
        assert table.count(r"\begin{tabular}") == table.count(r"\end{tabular}") == 1
        assert rf"\caption{{Table 4: wide (part {index} of 3)}}" in table
        spec = re.search(r"\\begin\{tabular\}\{(\w+)\}", table).group(1)
        assert spec == "ll" + "r" * systems
        rows = [line for line in table.splitlines() if line.endswith(r" \\")]
        assert len(rows) == 3 and all(row.count(" & ") == len(spec) - 1 for row in rows)
        assert (r"\footnotesize A note." in table) == (index == 3), "the note under the last part only"


def test_a_nan_or_inf_word_in_a_note_stays_text():
    """Markdown writes a missing number as an empty cell, so a cell reading "nan" is text (a word, as
    in a vocabulary list), not a missing value, and "inf" is no number."""
    (_, frame, _), = note_tables("| word | n |\n|---|---|\n| nan | 1 |\n| inf | 2 |\n|  | 3 |\n")
    assert frame["word"].tolist() == ["nan", "inf", None]
    assert [line for line in to_booktabs(frame).splitlines() if line.endswith(r"\\")][1:] == [
        r"nan & 1 \\", r"inf & 2 \\", r"-- & 3 \\"]


def test_bools_read_yes_and_no_in_markdown_as_in_latex():
    """The verdicts' and leaderboard's flags (a bool column, and bools among text) print alike in both."""
    frame = pd.DataFrame({"stand_in": [True, False], "mixed": pd.Series([np.True_, "n/a"], dtype=object)})
    assert to_markdown(frame).splitlines()[2:] == ["| yes | yes |", "| no | n/a |"]
    assert [line for line in to_booktabs(frame).splitlines() if line.endswith(r"\\")][1:] == [
        r"yes & yes \\", r"no & n/a \\"]
