"""BLiMP Tables 3 and 4: the published numbers as the paper prints them, and the aggregation
checked against plain loops over hand-made score frames."""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
import pytest
import yaml

from lmprobes.io import MAX_SYSTEM_COLUMNS
from lmprobes.suites.blimp import tables as T
from lmprobes.suites.blimp.paradigms import CATEGORIES, CATEGORY_LABELS, PARADIGM_CATEGORY, PARADIGMS, TABLE4_ORDER

RESOURCES = Path(__file__).resolve().parents[1] / "resources" / "blimp"
# Table 3 of the corrected 2021 paper, typed from the paper: overall, then the 12 phenomena.
PAPER_TABLE3 = {
    "5-gram": [61.2, 47.9, 71.9, 64.4, 68.5, 70.0, 36.9, 60.2, 79.5, 57.2, 45.5, 53.5, 60.3],
    "LSTM": [69.8, 91.7, 73.2, 73.5, 67.0, 85.4, 67.6, 73.9, 89.1, 46.6, 51.7, 64.5, 80.1],
    "TXL": [69.6, 94.1, 72.2, 74.7, 71.5, 83.0, 77.2, 66.6, 78.2, 48.4, 55.2, 69.3, 76.0],
    "gpt2-large": [83.0, 99.3, 81.8, 80.9, 81.9, 95.8, 89.3, 81.3, 91.9, 72.7, 76.8, 79.0, 86.4],
    "human": [88.6, 97.5, 90.0, 87.3, 83.9, 92.2, 85.0, 86.9, 97.0, 84.9, 88.1, 86.6, 90.9],
}
# Table 4 cells whose printed percent is not the rounded per-paradigm result (resources/blimp/README.md).
TABLE4_MISPRINTS = {
    ("transitive", "gpt2-large"), ("principle_A_domain_1", "gpt2-large"),
    *((p, m) for p in ("determiner_noun_agreement_irregular_1", "determiner_noun_agreement_irregular_2")
      for m in ("5-gram", "LSTM", "TXL", "gpt2-large")),
    ("irregular_plural_subject_verb_agreement_1", "human"), ("irregular_plural_subject_verb_agreement_2", "human"),
}


@pytest.fixture(scope="module")
def published() -> pd.DataFrame:
    return T.read_published(RESOURCES / "published.csv")


@pytest.fixture(scope="module")
def published_paradigms() -> pd.DataFrame:
    return T.read_published_paradigms(RESOURCES / "published_paradigms.csv")


# --- published numbers ---------------------------------------------------------------------


def test_published_table3_is_the_papers(published) -> None:
    paper = published[published["reference"] == "warstadt2020"]
    for model, values in PAPER_TABLE3.items():
        rows = paper[paper["model"] == model]
        assert rows["column"].tolist() == ["overall", *CATEGORIES]
        assert rows["value"].tolist() == values
    assert set(paper["model"]) == {*PAPER_TABLE3, "human_aggregate"}
    assert paper.loc[paper["model"] == "human_aggregate", "value"].tolist() == [96.4]
    assert paper.loc[paper["model"] == "gpt2-large", "method"].unique().tolist() == ["blimp_paper"]
    others = published[published["reference"] != "warstadt2020"]
    assert set(others["column"]) == {"overall"} and set(others["reference"]) == {"salazar2020", "kauf2023"}


def test_published_paradigms_cover_the_release_and_reproduce_table3(published_paradigms) -> None:
    pp = published_paradigms
    for model in PAPER_TABLE3:
        mine = pp[pp["model"] == model]
        assert sorted(mine["paradigm"]) == sorted(PARADIGMS)
        assert all(PARADIGM_CATEGORY[p] == c for p, c in zip(mine["paradigm"], mine["category"]))
        accuracies = dict(zip(mine["paradigm"], mine["accuracy"]))
        overall = 100 * sum(accuracies.values()) / len(accuracies)
        assert overall == pytest.approx(PAPER_TABLE3[model][0], abs=0.05)
        for category, printed in zip(CATEGORIES, PAPER_TABLE3[model][1:]):
            members = [a for p, a in accuracies.items() if PARADIGM_CATEGORY[p] == category]
            assert 100 * sum(members) / len(members) == pytest.approx(printed, abs=0.1)


def test_printed_table4_differs_from_the_results_only_in_known_misprints(published_paradigms) -> None:
    rows = published_paradigms.itertuples()
    differing = {(r.paradigm, r.model) for r in rows if int(r.printed) != int(100 * r.accuracy + 0.5 + 1e-9)}
    assert differing == TABLE4_MISPRINTS


@pytest.mark.parametrize(("content", "message"), [
    ("table,reference,model,method,column,value\ntable3,x,m,,overall,61.2\ntable3,x,m,,islands,50\n",
     r"published.csv:3: unknown column 'islands'"),
    ("table,reference,model,method,column,value\ntable3,x,m,,overall,abc\n", r"published.csv:2: 'abc' is not a number"),
    ("table,reference,model,method,column,value\ntable3,x,m,,overall,161\n", r"published.csv:2: 161.0 is outside"),
    ("table,reference,model,method,column,value\ntable3,x,m,,overall,1\ntable3,x,m,,overall,2\n",
     r"published.csv:3: duplicate entry"),
    ("table,reference,model,column,value\n", r"missing column\(s\) \['method'\]"),
])
def test_bad_published_rows_are_named(tmp_path, content, message) -> None:
    path = tmp_path / "published.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(T.PublishedDataError, match=message):
        T.read_published(path)


def test_bad_published_paradigm_rows_are_named(tmp_path) -> None:
    path = tmp_path / "pp.csv"
    path.write_text("paradigm,category,model,method,accuracy,printed\npassive_1,binding,m,,0.5,50\n", encoding="utf-8")
    with pytest.raises(T.PublishedDataError, match=r"pp.csv:2: passive_1 belongs to argument_structure"):
        T.read_published_paradigms(path)
    path.write_text("paradigm,category,model,method,accuracy,printed\npassive_3,binding,m,,0.5,50\n", encoding="utf-8")
    with pytest.raises(T.PublishedDataError, match=r"pp.csv:2: unknown paradigm 'passive_3'"):
        T.read_published_paradigms(path)


# --- aggregation over score frames ---------------------------------------------------------

SYSTEMS = [("m1", "blimp_paper"), ("m1", "one_prefix"), ("m2", "pll_original")]


def fake_scores(seed: int = 0, all_paradigms_for: tuple[str, str] = ("m2", "pll_original")) -> pd.DataFrame:
    """Random decisions: paradigms of unequal size, some skipped rows; one system has all 67."""
    rng = random.Random(seed)
    subset = [p for i, p in enumerate(PARADIGMS) if i % 4 == 0]
    rows = []
    for model, method in SYSTEMS:
        for paradigm in PARADIGMS if (model, method) == all_paradigms_for else subset:
            for pair in range(rng.randint(1, 7)):
                kept = pair == 0 or rng.random() > 0.15
                rows.append({
                    "row_id": f"{paradigm}:{pair}", "paradigm": paradigm, "category": PARADIGM_CATEGORY[paradigm],
                    "model": model, "method": method, "kept": kept, "skip_reason": "" if kept else "no_one_prefix",
                    "correct": (rng.random() < 0.6) if kept else None,
                })
    frame = pd.DataFrame(rows)
    frame["correct"] = frame["correct"].astype("boolean")
    return frame


def plain_paradigm_accuracy(scores: pd.DataFrame) -> dict[tuple, tuple[float, int]]:
    """(model, method, paradigm) -> (percent correct over kept pairs, kept pairs)."""
    counts: dict[tuple, list[int]] = {}
    for row in scores.itertuples():
        if row.kept:
            cell = counts.setdefault((row.model, row.method, row.paradigm), [0, 0])
            cell[0] += bool(row.correct)
            cell[1] += 1
    return {key: (100.0 * right / n, n) for key, (right, n) in counts.items()}


def cell(tidy: pd.DataFrame, **where) -> pd.Series:
    mask = pd.Series(True, index=tidy.index)
    for column, value in where.items():
        mask &= tidy[column] == value
    rows = tidy[mask]
    assert len(rows) == 1, where
    return rows.iloc[0]


def test_table3_is_the_mean_of_paradigms_and_of_categories_plainly(published) -> None:
    scores = fake_scores()
    tidy = T.table3(scores, published)
    assert list(tidy.columns) == T.TIDY_COLUMNS
    plain = plain_paradigm_accuracy(scores)
    for model, method in SYSTEMS:
        mine = {p: v for (m, k, p), (v, _) in plain.items() if (m, k) == (model, method)}
        total = cell(tidy, source="reproduction", model=model, method=method, category="overall")
        assert total["value"] == pytest.approx(sum(mine.values()) / len(mine))
        assert total["n"] == len(mine)
        for category in CATEGORIES:
            members = [v for p, v in mine.items() if PARADIGM_CATEGORY[p] == category]
            rows = tidy[(tidy["model"] == model) & (tidy["method"] == method) & (tidy["category"] == category)]
            if members:
                assert rows["value"].item() == pytest.approx(sum(members) / len(members))
                assert rows["n"].item() == len(members)
            else:
                assert rows.empty
    ours = tidy[tidy["source"] == "reproduction"]
    assert list(dict.fromkeys(zip(ours["model"], ours["method"]))) == sorted(SYSTEMS)
    assert ours.groupby(["model", "method"])["category"].first().eq("overall").all()
    paper = tidy[tidy["source"] == "paper"]
    assert len(paper) == len(published) and paper["value"].tolist() == published["value"].tolist()
    assert cell(tidy, source="paper", model="LSTM", category="island_effects")["value"] == 46.6


def test_table4_per_paradigm_in_the_papers_order(published_paradigms) -> None:
    scores = fake_scores(seed=1)
    tidy = T.table4(scores, published_paradigms)
    plain = plain_paradigm_accuracy(scores)
    ours = tidy[tidy["source"] == "reproduction"]
    assert len(ours) == len(plain)
    for row in ours.itertuples():
        value, n = plain[(row.model, row.method, row.paradigm)]
        assert row.value == pytest.approx(value) and row.n == n
    m2 = ours[ours["model"] == "m2"]["paradigm"].tolist()
    expected = [p for c in CATEGORIES for p in PARADIGMS if PARADIGM_CATEGORY[p] == c]
    assert sorted(m2) == sorted(expected)
    # The paper prints ..._with_adjective_1 as ..._with_adj_1: fifth of its block, not last.
    block = [p for p in m2 if p.startswith("determiner_noun_agreement")]
    assert block == ["determiner_noun_agreement_1", "determiner_noun_agreement_2",
                     "determiner_noun_agreement_irregular_1", "determiner_noun_agreement_irregular_2",
                     "determiner_noun_agreement_with_adjective_1", "determiner_noun_agreement_with_adj_2",
                     "determiner_noun_agreement_with_adj_irregular_1", "determiner_noun_agreement_with_adj_irregular_2"]
    assert [p for p in m2 if not p.startswith("determiner_noun_agreement")] == [
        p for p in expected if not p.startswith("determiner_noun_agreement")]
    paper = tidy[(tidy["source"] == "paper") & (tidy["model"] == "gpt2-large")].set_index("paradigm")
    assert paper.loc["transitive", "value"] == pytest.approx(86.0)
    assert paper.loc["existential_there_quantifiers_2", "value"] == pytest.approx(42.4)


def test_wide_layouts_hold_the_tidy_values(published, published_paradigms) -> None:
    scores = fake_scores(seed=2)
    tidy3 = T.table3(scores, published)
    wide3 = T.table3_wide(tidy3)
    assert list(wide3.columns) == ["system", "reference", "overall", *(CATEGORY_LABELS[c] for c in CATEGORIES)]
    assert wide3["system"].tolist()[:4] == ["m1 (blimp_paper)", "m1 (one_prefix)", "m2 (pll_original)", "5-gram (paper)"]
    row = wide3.set_index("system").loc["gpt2-large (blimp_paper, paper)"]
    assert [row["overall"], row["NPI licensing"]] == [83.0, 76.8]
    m1 = wide3.set_index("system").loc["m1 (blimp_paper)"]
    assert m1["overall"] == cell(tidy3, source="reproduction", model="m1", method="blimp_paper", category="overall")["value"]

    tidy4 = T.table4(scores, published_paradigms)
    wide4 = T.table4_wide(tidy4)
    assert wide4["paradigm"].tolist() == [p for c in CATEGORIES for p in TABLE4_ORDER if PARADIGM_CATEGORY[p] == c]
    assert list(wide4.columns[:3]) == ["category", "paradigm", "m1 (blimp_paper)"]
    assert wide4.columns[-1] == "human (paper)"
    by_paradigm = wide4.set_index("paradigm")
    assert by_paradigm.loc["passive_1", "category"] == "arg. structure"
    assert by_paradigm.loc["passive_1", "LSTM (paper)"] == pytest.approx(71.9)
    some = cell(tidy4, source="reproduction", model="m2", paradigm="wh_island")
    assert by_paradigm.loc["wh_island", "m2 (pll_original)"] == some["value"]


def test_write_tables_writes_tidy_csv_and_the_papers_layout(tmp_path, published, published_paradigms) -> None:
    scores = fake_scores(seed=3)
    paths = T.write_tables(scores, published, published_paradigms, tmp_path)
    back = pd.read_csv(paths["table3"][0], keep_default_na=False, na_values=[""])
    assert len(back) == len(T.table3(scores, published))
    md = paths["table3"][1].read_text(encoding="utf-8")
    assert md.startswith("## Table 3") and "| system | reference | overall | anaphor agr." in md
    note = md.split("Paradigms scored")[1]
    subset = [p for i, p in enumerate(PARADIGMS) if i % 4 == 0]  # fake_scores' paradigms but m2's
    counts = {c: (sum(PARADIGM_CATEGORY[p] == c for p in subset), sum(PARADIGM_CATEGORY[p] == c for p in PARADIGMS))
              for c in CATEGORIES}
    cells = [f"{CATEGORY_LABELS[c]} {k} of {n}" for c, (k, n) in counts.items() if 0 < k < n]  # 0: a blank cell
    assert f"- m1 (blimp_paper): overall 17 of 67, {', '.join(cells)}\n" in note
    assert "m2 (pll_original)" not in note
    md4 = paths["table4"][1].read_text(encoding="utf-8")
    assert md4.count("\n| ") == 1 + len(PARADIGMS)  # header line + one per paradigm
    again = tmp_path / "again"
    paths2 = T.write_tables(scores, published, published_paradigms, again)
    assert paths2["table4"][0].read_bytes() == paths["table4"][0].read_bytes()


def one_pair_per_paradigm(systems: list[tuple[str, str]]) -> pd.DataFrame:
    """A kept, correct pair of every paradigm for each (model, method)."""
    rows = [{"row_id": f"{paradigm}:0", "paradigm": paradigm, "category": PARADIGM_CATEGORY[paradigm], "model": model,
             "method": method, "kept": True, "skip_reason": "", "correct": True}
            for model, method in systems for paradigm in PARADIGMS]
    return pd.DataFrame(rows).astype({"correct": "boolean"})


def default_config_systems() -> list[tuple[str, str]]:
    """The (model, method) systems BLiMP scores under config.yaml."""
    config = yaml.safe_load((RESOURCES.parents[1] / "config.yaml").read_text(encoding="utf-8"))
    blimp = config["suites"]["blimp"]
    return [(model, method) for model in blimp["models"]
            for method in blimp[f"{config['models'][model]['family']}_methods"]]


def test_the_default_configs_table4_is_one_table_as_the_papers(tmp_path, published, published_paradigms) -> None:
    systems = default_config_systems()
    paper = published_paradigms[["model", "method"]].drop_duplicates()
    assert len(systems) + len(paper) <= MAX_SYSTEM_COLUMNS, "config.yaml's Table 4 would be split in parts"
    paths = T.write_tables(one_pair_per_paradigm(systems), published, published_paradigms, tmp_path)
    md, tex = paths["table4"][1].read_text(encoding="utf-8"), paths["table4"][1].with_suffix(".tex").read_text()
    assert "### Part" not in md and tex.count(r"\begin{table}") == 1
    header = next(line for line in md.splitlines() if line.startswith("| category |"))
    assert header.count(" | ") + 1 == 2 + len(systems) + len(paper)


def part_columns(md: str) -> list[list[str]]:
    """The system columns of each part of a Table 4 Markdown, by their headers."""
    return [line.strip("| ").split(" | ")[2:] for line in md.splitlines() if line.startswith("| category |")]


def paper_columns(published_paradigms) -> list[str]:
    systems = published_paradigms[["model", "method"]].drop_duplicates()
    return [T.system_label(model, method, "paper") for model, method in systems.itertuples(index=False)]


def models_in(columns: list[str], published_paradigms) -> list[str]:
    """The models of a part's reproduced columns (``model (method)``), in order."""
    paper = paper_columns(published_paradigms)
    return list(dict.fromkeys(column.split(" (")[0] for column in columns if column not in paper))


def test_table4_of_many_systems_is_shown_in_parts_and_its_csv_stays_tidy(tmp_path, published, published_paradigms):
    """26 systems and the paper's 5: each part repeats the paper's columns, last, as the whole table."""
    systems = [(f"m{i:02d}", method) for i in range(13) for method in ("pll_original", "pll_within_word_l2r")]
    paths = T.write_tables(one_pair_per_paradigm(systems), published, published_paradigms, tmp_path)
    md = paths["table4"][1].read_text(encoding="utf-8")
    assert [line for line in md.splitlines() if line.startswith("### ")] == [
        "### Part 1 of 2: systems 1-14 of 26, with the 5 reference columns",
        "### Part 2 of 2: systems 15-26 of 26, with the 5 reference columns"]
    for part in md.split("### ")[1:]:
        lines = [line for line in part.splitlines() if line.startswith("| ")]
        assert lines[0].startswith("| category | paradigm | ") and len(lines) == 1 + len(PARADIGMS)
    parts = part_columns(md)
    assert [columns[-5:] for columns in parts] == [paper_columns(published_paradigms)] * 2
    assert [columns[:-5] for columns in parts] == [[T.system_label(*system) for system in systems[:14]],
                                                   [T.system_label(*system) for system in systems[14:]]]
    tex = paths["table4"][1].with_suffix(".tex").read_text()
    assert tex.count(r"\begin{tabular}") == tex.count(r"\end{tabular}") == 2
    assert r"\caption{Table 4: BLiMP accuracy (\%) per paradigm (part 2 of 2)}" in tex
    back = pd.read_csv(paths["table4"][0], keep_default_na=False, na_values=[""])
    assert list(back.columns) == T.TIDY_COLUMNS and len(back) == (len(systems) + 5) * len(PARADIGMS)
    assert paths["table3"][1].read_text(encoding="utf-8").count("\n| m") == len(systems), "Table 3: a line each"


def test_table4_parts_keep_each_models_methods_together(tmp_path, published, published_paradigms):
    """9 causal models of 3 presets and the paper's 5: 32 columns; 16 a part would cut m05's presets."""
    systems = [(f"m{i:02d}", method) for i in range(9) for method in ("blimp_paper", "lmeval04", "salazar")]
    md = T.write_tables(one_pair_per_paradigm(systems), published, published_paradigms, tmp_path)["table4"][1]
    parts = [models_in(columns, published_paradigms) for columns in part_columns(md.read_text(encoding="utf-8"))]
    assert parts == [["m00", "m01", "m02", "m03", "m04"], ["m05", "m06", "m07", "m08"]]


def test_table4_gives_a_model_of_more_methods_than_a_part_holds_parts_of_its_own(tmp_path, published,
                                                                               published_paradigms):
    """27 methods of one model, beside 2 of a model before it and 2 after: 25 a part beside the paper's
    5, so that model alone fills two parts (14 and 13 methods), the others one each."""
    methods = [f"method_{k:02d}" for k in range(27)]
    systems = [("a", "x"), ("a", "y"), *(("wide", method) for method in methods), ("z", "x"), ("z", "y")]
    md = T.write_tables(one_pair_per_paradigm(systems), published, published_paradigms, tmp_path)["table4"][1]
    parts = part_columns(md.read_text(encoding="utf-8"))
    assert [models_in(columns, published_paradigms) for columns in parts] == [["a"], ["wide"], ["wide"], ["z"]]
    assert [len(columns) - 5 for columns in parts] == [2, 14, 13, 2]
    assert all(columns[-5:] == paper_columns(published_paradigms) for columns in parts)
