"""Paper-vs-reproduction verdicts: verdict logic on hand-made values, the published and reproduced
readers against plain counts and hand-made suite tables, and the written files."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmprobes.report.published import KEYS, PublishedError, read_published
from lmprobes.report.reproduced import ReproducedError, read_reproduced
from lmprobes.report.verdicts import (
    STAND_IN_WARNING,
    Tolerance,
    VerdictError,
    judge,
    make_verdicts,
    read_tolerances,
    readable,
    shown_delta,
    suite_summary,
    summary_line,
    write_verdicts,
)

ROOT = Path(__file__).resolve().parents[1]
RESOURCES = ROOT / "resources"
TOLERANCES = {"acc": Tolerance("acc", "percent", 1.0, "test"), "fine": Tolerance("fine", "percent", 0.3, "test")}


def published_frame(rows: list[tuple]) -> pd.DataFrame:
    """(item, paper_system, metric, published) rows of a made-up suite ``lama`` table ``t``."""
    return pd.DataFrame([{"suite": "lama", "table": "t", "item": item, "column": "c", "paper_system": system,
                          "metric": metric, "published": value, "note": ""} for item, system, metric, value in rows])


def reproduced_frame(rows: list[tuple]) -> pd.DataFrame:
    """(item, paper_system, model, reproduced) rows matching ``published_frame``'s keys."""
    return pd.DataFrame([{"suite": "lama", "table": "t", "item": item, "column": "c", "paper_system": system,
                          "model": model, "reproduced": value} for item, system, model, value in rows])


@pytest.fixture
def judged() -> pd.DataFrame:
    published = published_frame([
        ("a_within", "P", "acc", 50.0), ("b_above", "P", "acc", 50.0), ("c_below", "P", "acc", 50.0),
        ("d_boundary", "P", "acc", 50.0), ("e_float_boundary", "P", "fine", 0.1), ("f_nan", "P", "acc", 50.0),
        ("g_absent", "P", "acc", 50.0), ("h_tiny", "Q", "acc", 10.0),
    ])
    reproduced = reproduced_frame([
        ("a_within", "P", "gpt2", 50.6), ("b_above", "P", "gpt2", 51.5), ("c_below", "P", "gpt2", 48.0),
        ("d_boundary", "P", "gpt2", 49.0), ("e_float_boundary", "P", "gpt2", 0.4), ("f_nan", "P", "gpt2", np.nan),
        ("h_tiny", "Q", "tiny-bert (pll_original)", 10.0),
        ("z_unpublished", "P", "gpt2", 1.0),
    ])
    return judge(published, reproduced, TOLERANCES, {"tiny-bert"}).set_index("item")


def test_verdicts_on_hand_made_values(judged):
    expected = {"a_within": "within", "b_above": "outside", "c_below": "outside", "d_boundary": "within",
                "e_float_boundary": "within", "f_nan": "missing", "g_absent": "missing", "h_tiny": "within"}
    assert judged["verdict"].to_dict() == expected
    assert judged.loc["b_above", "delta"] == pytest.approx(1.5)
    assert judged.loc["c_below", "delta"] == pytest.approx(-2.0)
    assert judged.loc["d_boundary", "delta"] == pytest.approx(-1.0)
    assert math.isnan(judged.loc["g_absent", "delta"]) and judged.loc["g_absent", "model"] == ""
    assert judged.loc["e_float_boundary", "tolerance"] == 0.3


def test_unpublished_reproduced_rows_are_dropped_and_every_published_row_stays(judged):
    assert "z_unpublished" not in judged.index
    assert len(judged) == 8


def test_stand_in_flag_marks_tiny_models_only(judged):
    assert judged["stand_in"].to_dict() == {item: item == "h_tiny" for item in judged.index}


def test_unknown_metric_is_an_error_naming_it():
    published = published_frame([("a", "P", "no_such_metric", 1.0)])
    with pytest.raises(VerdictError, match="no_such_metric"):
        judge(published, reproduced_frame([]), TOLERANCES, set())


def test_summary_line_text(judged):
    verdicts = judged.reset_index()
    assert summary_line(verdicts, "lama") == (
        "LAMA: 3 of 7 published numbers reproduced within tolerance (2 missing); stand-ins: 1 of 1 within "
        f"tolerance (0 missing) — {STAND_IN_WARNING}"), "a stand-in's verdict is never counted as a reproduction"
    assert summary_line(verdicts[verdicts["stand_in"]], "lama") == (
        "LAMA: no published number is mapped to a real system; stand-ins: 1 of 1 within tolerance (0 missing) "
        f"— {STAND_IN_WARNING}")
    real = verdicts[~verdicts["stand_in"]]
    assert summary_line(real, "lama") == "LAMA: 3 of 7 published numbers reproduced within tolerance (2 missing)"
    summary = suite_summary(verdicts).iloc[0]
    assert (summary["within"], summary["outside"], summary["missing"]) == (3, 2, 2)
    assert (summary["stand_ins"], summary["stand_ins_within"], summary["published"]) == (1, 1, 8)


@pytest.mark.parametrize(("text", "message"), [
    ("metric,unit,tolerance,reason\nacc,percent,-1,x\n", r"tolerances\.csv:2: tolerance -1.0 must be a finite number >= 0"),
    ("metric,unit,tolerance,reason\nacc,percent,wide,x\n", r"tolerances\.csv:2: tolerance 'wide' is not a number"),
    ("metric,unit,tolerance,reason\nacc,percent,1,x\nacc,percent,2,y\n", r"tolerances\.csv:3: metric 'acc' given twice"),
    ("metric,tolerance\nacc,1\n", "missing column"),
    # A band of inf would put every number within tolerance, one of NaN every number outside.
    ("metric,unit,tolerance,reason\nacc,percent,1,x\nfine,percent,inf,y\n", r"tolerances\.csv:3: tolerance inf must be"),
    ("metric,unit,tolerance,reason\nacc,percent,nan,x\n", r"tolerances\.csv:2: tolerance nan must be"),
])
def test_bad_tolerance_file_is_an_error_naming_the_line(tmp_path, text, message):
    path = tmp_path / "tolerances.csv"
    path.write_text(text)
    with pytest.raises(VerdictError, match=message):
        read_tolerances(path)


# --- the committed resources ----------------------------------------------------------------


def plain_rows(name: str) -> list[dict]:
    with open(RESOURCES / name, newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


def plain_count() -> int:
    """Published numbers counted straight from the resource files."""
    lama = plain_rows("lama/published.csv")
    facts = {(r["corpus"], r["row"]) for r in lama if r["n_facts"]}
    relations = {(r["corpus"], r["row"]) for r in lama if r["n_relations"]}
    ettinger = plain_rows("ettinger/published.csv")
    return (len(lama) + len(facts) + len(relations)
            + len(plain_rows("blimp/published.csv")) + 2 * len(plain_rows("blimp/published_paradigms.csv"))
            + len(plain_rows("olmpics/published.csv"))
            + len(ettinger) + sum(1 for r in ettinger if r["sd"]))


def test_every_published_number_is_read():
    published = read_published(RESOURCES)
    assert len(published) == plain_count()
    assert not published.duplicated(KEYS).any()
    assert published["published"].notna().all()


def test_every_published_row_appears_in_the_verdicts_of_an_empty_run():
    published = read_published(RESOURCES)
    tolerances = read_tolerances(RESOURCES / "report" / "tolerances.csv")
    verdicts = judge(published, read_reproduced(Path("/nonexistent"), {}), tolerances, set())
    assert len(verdicts) == len(published)
    assert set(verdicts["verdict"]) == {"missing"}
    assert verdicts[KEYS].equals(published[KEYS])


def test_a_suite_not_run_is_still_flagged_as_stand_in_when_tiny_models_stand_for_its_systems():
    """The demo maps LAMA's BERTs to tiny-bert but runs no LAMA: all missing, and the line still warns."""
    published = read_published(RESOURCES)
    tolerances = read_tolerances(RESOURCES / "report" / "tolerances.csv")
    systems = {"lama": {"Freq": "Freq", "bert-base-cased": "tiny-bert", "bert-large-cased": "tiny-bert"}}
    verdicts = judge(published, read_reproduced(Path("/nonexistent"), systems), tolerances, {"tiny-bert"}, systems)
    lama = verdicts[verdicts["suite"] == "lama"]
    assert set(lama["verdict"]) == {"missing"}
    assert set(lama.loc[lama["stand_in"], "paper_system"]) == {"bert-base-cased", "bert-large-cased"}
    assert summary_line(verdicts, "lama").endswith(STAND_IN_WARNING)
    assert not summary_line(verdicts, "blimp").endswith(STAND_IN_WARNING), "no tiny model stands in for BLiMP's"


def test_published_values_spot_checks():
    published = read_published(RESOURCES).set_index(KEYS)["published"]
    assert published[("lama", "table2", "trex/Total", "#Facts", "(dataset)")] == 34039
    assert published[("blimp", "table4", "adjunct_island", "accuracy", "5-gram")] == pytest.approx(47.9)
    assert published[("blimp", "table4", "adjunct_island", "printed", "5-gram")] == 48
    # Quoted from Salazar et al.: same key as the reproduced reader gives gpt2 (salazar) below.
    assert published[("blimp", "table3", "overall", "accuracy", "gpt2-medium (salazar)")] == 82.6
    assert published[("ettinger", "table4", "k=1", "Shuf (sd)", "bert-base-uncased")] == 3.1
    assert published[("ettinger", "table5", "CPRAG-102", "Prefer good", "bert-base-uncased")] == 73.5
    assert published[("olmpics", "table2", "age_comparison", "zero_shot", "mlm_baseline")] == 49
    assert published[("olmpics", "table2", "age_comparison", "zero_shot", "roberta-large (HF)")] == 98.6
    # spec/ETTINGER.md's HuggingFace rerun: a system of its own beside the paper's 35.3.
    assert published[("ettinger", "table4", "k=1", "Orig", "bert-large-uncased (HF)")] == 32.4
    assert published[("ettinger", "table4", "k=1", "Orig", "bert-large-uncased")] == 35.3


# The band each Ettinger table is judged by (resources/report/tolerances.csv gives the tables in its reasons).
ETTINGER_METRICS = {"table4": "ettinger_accuracy", "table5": "ettinger_sensitivity", "table7": "ettinger_accuracy",
                    "table8": "ettinger_accuracy_small", "table9": "ettinger_sensitivity",
                    "table11": "ettinger_accuracy_small", "table12": "ettinger_sensitivity_exact",
                    "table14": "ettinger_sensitivity_nat"}

# The item of an Ettinger table without rows: its dataset.
ETTINGER_ITEMS = {"table4": "CPRAG-102", "table5": "CPRAG-102", "table7": "ROLE-88", "table8": "ROLE-88",
                  "table9": "ROLE-88", "table11": "NEG-136-SIMP", "table12": "NEG-136-SIMP", "table14": "NEG-136-NAT"}


def expected_metric(suite: str, table: str, column: str) -> str | None:
    if suite == "ettinger":
        if column.endswith(" (sd)"):
            return "ettinger_sd"
        if table == "table12" and column.endswith("thresh"):  # Section 9.2's text, not Table 12's cells
            return "ettinger_sensitivity_text"
        return ETTINGER_METRICS[table]
    if suite == "olmpics":
        if column == "zero_shot":
            return "olmpics_zero_shot"
        if column.startswith("langsense_"):
            return "olmpics_langsense"
        return "olmpics_" + column.rsplit("_", 1)[1]  # mlp_ws, linear_max, mc_qa_ws, ...
    return None


def test_each_published_number_is_judged_by_its_tables_band():
    """A cell given another metric is judged against another band (Table 5's thresholded column is not Section
    9.2's text, Table 11's 18 items are not Table 4's 34)."""
    published = read_published(RESOURCES)
    for suite in ("ettinger", "olmpics"):
        rows = published[published["suite"] == suite]
        expected = [expected_metric(suite, t, c) for t, c in zip(rows["table"], rows["column"])]
        assert rows["metric"].tolist() == expected, suite


def test_published_notes_name_where_a_number_comes_from():
    published = read_published(RESOURCES).set_index(KEYS)
    for row in plain_rows("blimp/published.csv"):
        system = f"{row['model']} ({row['method']})" if row["method"] else row["model"]
        note = published.loc[("blimp", row["table"], row["column"], "accuracy", system), "note"]
        assert note == ("" if row["reference"] == "warstadt2020" else row["reference"]), system
    for row in plain_rows("ettinger/published.csv"):
        system = row["model"] + (" (HF)" if row["source"] == "hf_rerun" else "")
        note = published.loc[("ettinger", row["table"], row["row"] or ETTINGER_ITEMS[row["table"]], row["column"],
                              system), "note"]
        assert (note == "HuggingFace rerun of the original code, not the paper") == (row["source"] == "hf_rerun")



def test_table4_misprints_are_the_cells_whose_printed_integer_is_not_the_result_rounded_half_up():
    """resources/blimp/README.md lists 12; rounding half to even would flag the cells ending in .5 too."""
    from decimal import ROUND_HALF_UP, Decimal

    rows = plain_rows("blimp/published_paradigms.csv")
    misprinted = {(r["paradigm"], f"{r['model']} ({r['method']})" if r["method"] else r["model"]) for r in rows
                  if (100 * Decimal(r["accuracy"])).quantize(Decimal(1), ROUND_HALF_UP) != Decimal(r["printed"])}
    published = read_published(RESOURCES)
    printed = published[(published["table"] == "table4") & (published["column"] == "printed")]
    flagged = printed[printed["note"].str.startswith("misprint in Table 4")]
    assert set(zip(flagged["item"], flagged["paper_system"])) == misprinted and len(misprinted) == 12


def test_published_tables_are_in_numeric_order():
    published = read_published(RESOURCES)
    for suite in ("ettinger", "olmpics"):
        tables = list(dict.fromkeys(published.loc[published["suite"] == suite, "table"]))
        assert tables == sorted(tables, key=lambda table: int(table.removeprefix("table"))), suite


def test_bad_published_number_names_file_and_line(tmp_path):
    for suite in ("lama", "blimp", "olmpics", "ettinger"):
        (tmp_path / suite).mkdir()
    for name in ("lama/published.csv", "blimp/published.csv", "blimp/published_paradigms.csv",
                 "olmpics/published.csv"):
        (tmp_path / name).write_text((RESOURCES / name).read_text())
    lines = (RESOURCES / "ettinger/published.csv").read_text().splitlines()
    lines[3] = lines[3].replace("14.1", "fourteen")
    (tmp_path / "ettinger/published.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(PublishedError, match=r"ettinger/published.csv:4: 'fourteen'"):
        read_published(tmp_path)
    lines = (RESOURCES / "ettinger/published.csv").read_text().splitlines()
    lines[5] = lines[5].removesuffix(",paper") + ",papre"
    (tmp_path / "ettinger/published.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(PublishedError, match=r"ettinger/published.csv:6: unknown source 'papre'"):
        read_published(tmp_path)


def copied_published(folder: Path, edit: dict[str, object]) -> Path:
    """The published-numbers files in ``folder``; ``edit[name]``: lines -> lines, or None to leave the file out."""
    names = ("lama/published.csv", "blimp/published.csv", "blimp/published_paradigms.csv", "olmpics/published.csv",
             "ettinger/published.csv")
    for name in names:
        (folder / name).parent.mkdir(exist_ok=True)
        change = edit.get(name, lambda lines: lines)
        if change is not None:
            lines = (RESOURCES / name).read_text().splitlines()
            (folder / name).write_text("\n".join(change(lines)) + "\n")
    return folder


@pytest.mark.parametrize(("edit", "message"), [
    ({"ettinger/published.csv": None}, r"ettinger/published.csv: published-numbers file not found$"),
    ({"olmpics/published.csv": lambda lines: [*lines[:3], lines[3].replace(",zero_shot,", ",zero-shot,"), *lines[4:]]},
     r"olmpics/published.csv:4: unknown column 'zero-shot'$"),
    ({"ettinger/published.csv": lambda lines: [*lines, lines[1]]},
     (r"^published numbers: duplicate key \{'suite': 'ettinger', 'table': 'table4', 'item': 'k=1', 'column': 'Orig', "
      r"'paper_system': 'bert-base-uncased'\}$")),
])
def test_a_bad_published_numbers_file_is_named(tmp_path, edit, message):
    with pytest.raises(PublishedError, match=message):
        read_published(copied_published(tmp_path, edit))


# --- reading our numbers from hand-made suite tables ----------------------------------------


def write_csv(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(path, index=False)


@pytest.fixture
def tables(tmp_path) -> Path:
    root = tmp_path / "tables"
    write_csv(root / "lama/table2.csv", [
        {"source": "reproduction", "corpus": "trex", "row": "Total", "system": "Freq", "model": "Freq", "method": "freq",
         "p1": 8.5, "n_facts": 40, "n_kept": 30, "n_relations": 2},
        {"source": "reproduction", "corpus": "trex", "row": "Total", "system": "bert-base-cased",
         "model": "bert-base-cased", "method": "masked", "p1": 31.0, "n_facts": 40, "n_kept": 29, "n_relations": 2},
        {"source": "paper", "corpus": "trex", "row": "Total", "system": "Bb (paper)", "model": "bert-base-cased",
         "method": "masked", "p1": 31.1, "n_facts": 34039, "n_kept": None, "n_relations": 41},
        {"source": "reproduction", "corpus": "google_re", "row": "death-place", "system": "Freq", "model": "Freq",
         "method": "freq", "p1": 6.8, "n_facts": 766, "n_kept": 765, "n_relations": 1},
    ])
    blimp = {"table": "table3", "source": "reproduction", "reference": "", "paradigm": "", "n": 67}
    write_csv(root / "blimp/table3.csv", [
        {**blimp, "model": "gpt2", "method": "blimp_paper", "category": "overall", "value": 80.0},
        {**blimp, "model": "gpt2", "method": "salazar", "category": "overall", "value": 81.0},
        {**blimp, "model": "5-gram", "method": "", "category": "overall", "value": 61.2, "source": "paper"},
    ])
    write_csv(root / "blimp/table4.csv", [
        {**blimp, "table": "table4", "model": "gpt2", "method": "blimp_paper", "category": "island_effects",
         "paradigm": "adjunct_island", "value": 90.0, "n": 1000},
    ])
    zero = {"table": "table2", "task": "age_comparison", "source": "reproduction", "flavour": "release"}
    write_csv(root / "olmpics/zero_shot.csv", [
        {**zero, "model": "roberta-large", "method": "mc_mlm", "accuracy": 97.0},
        {**zero, "model": "roberta-large", "method": "candidates", "accuracy": 60.0},
        {**zero, "flavour": "generated", "model": "roberta-large", "method": "mc_mlm", "accuracy": 10.0},
    ])
    curve = {"table": "table2", "task": "age_comparison", "setup": "mc_mlm", "source": "reproduction",
             "flavour": "release"}
    write_csv(root / "olmpics/learning_curves.csv", [
        {**curve, "model": "roberta-large", "zero_shot": 96.0, "mlp_ws": 95.0, "mlp_max": 99.0},
        {**curve, "model": "mlm_baseline", "zero_shot": 48.0, "mlp_ws": 57.0, "mlp_max": None},
    ])
    ettinger = {"source": "reproduction", "model": "bert-base-uncased", "n": 34, "unscorable": 0}
    write_csv(root / "ettinger/table4.csv", [
        {**ettinger, "table": "table4", "row": "k=1", "column": "Orig", "value": 23.5, "sd": None},
        {**ettinger, "table": "table4", "row": "k=1", "column": "Shuf", "value": 14.0, "sd": 2.5},
    ])
    write_csv(root / "ettinger/table5.csv", [
        {**ettinger, "table": "table5", "row": None, "column": "Prefer good", "value": 70.0, "sd": None},
    ])
    return root


SYSTEMS = {
    "lama": {"Freq": "Freq", "bert-base-cased": "bert-base-cased"},
    "blimp": {"gpt2-large (blimp_paper)": "gpt2", "gpt2-medium (salazar)": "gpt2"},
    "olmpics": {"roberta-large": "roberta-large", "roberta-large (HF)": "roberta-large", "mlm_baseline": "mlm_baseline"},
    "ettinger": {"bert-base-uncased": "bert-base-uncased"},
}


def test_reproduced_numbers_from_suite_tables(tables):
    ours = read_reproduced(tables, SYSTEMS).set_index(KEYS)["reproduced"]
    expected = {
        ("lama", "table2", "trex/Total", "P@1", "Freq"): 8.5,
        ("lama", "table2", "trex/Total", "P@1", "bert-base-cased"): 31.0,
        # T-REx's #Facts is the lines read (the paper counts before the template dedupe), others' the facts kept.
        ("lama", "table2", "trex/Total", "#Facts", "(dataset)"): 40,
        ("lama", "table2", "google_re/death-place", "P@1", "Freq"): 6.8,
        ("lama", "table2", "google_re/death-place", "#Facts", "(dataset)"): 765,
        ("lama", "table2", "google_re/death-place", "#Rel", "(dataset)"): 1,
        ("lama", "table2", "trex/Total", "#Rel", "(dataset)"): 2,
        ("blimp", "table3", "overall", "accuracy", "gpt2-large (blimp_paper)"): 80.0,
        ("blimp", "table3", "overall", "accuracy", "gpt2-medium (salazar)"): 81.0,
        ("blimp", "table4", "adjunct_island", "accuracy", "gpt2-large (blimp_paper)"): 90.0,
        ("blimp", "table4", "adjunct_island", "printed", "gpt2-large (blimp_paper)"): 90.0,
        ("olmpics", "table2", "age_comparison", "zero_shot", "roberta-large"): 97.0,
        ("olmpics", "table2", "age_comparison", "zero_shot", "roberta-large (HF)"): 97.0,
        ("olmpics", "table2", "age_comparison", "mlp_ws", "roberta-large"): 95.0,
        ("olmpics", "table2", "age_comparison", "mlp_max", "roberta-large"): 99.0,
        ("olmpics", "table2", "age_comparison", "mlp_ws", "roberta-large (HF)"): 95.0,
        ("olmpics", "table2", "age_comparison", "mlp_max", "roberta-large (HF)"): 99.0,
        ("olmpics", "table2", "age_comparison", "zero_shot", "mlm_baseline"): 48.0,
        ("olmpics", "table2", "age_comparison", "mlp_ws", "mlm_baseline"): 57.0,
        ("ettinger", "table4", "k=1", "Orig", "bert-base-uncased"): 23.5,
        ("ettinger", "table4", "k=1", "Shuf", "bert-base-uncased"): 14.0,
        ("ettinger", "table4", "k=1", "Shuf (sd)", "bert-base-uncased"): 2.5,
        ("ettinger", "table5", "CPRAG-102", "Prefer good", "bert-base-uncased"): 70.0,
    }
    assert ours.to_dict() == expected


def test_lama_verdicts_warn_when_table_2_is_on_the_shared_fact_set(tables, tmp_path):
    pytest.importorskip("lmprobes.report.latex")
    make_verdicts(RESOURCES, tables, SYSTEMS, set(), tmp_path / "own")
    table2 = pd.read_csv(tables / "lama/table2.csv")
    table2["fact_set"] = table2["source"].map({"reproduction": "shared"})
    table2.to_csv(tables / "lama/table2.csv", index=False)
    make_verdicts(RESOURCES, tables, SYSTEMS, set(), tmp_path / "shared")
    warning = "**WARNING: LAMA's numbers here are on the shared fact set (suites.lama.fact_set: shared)"
    assert warning not in (tmp_path / "own/lama.md").read_text()
    assert warning in (tmp_path / "shared/lama.md").read_text()
    assert "WARNING: LAMA's numbers here are on the shared fact set" in (tmp_path / "shared/lama.tex").read_text()
    assert "shared fact set" not in (tmp_path / "shared/blimp.md").read_text()
    for name in ("lama.csv", "summary.csv"):  # the numbers are the table's either way
        assert (tmp_path / "own" / name).read_bytes() == (tmp_path / "shared" / name).read_bytes()


def test_unmapped_systems_and_absent_tables_give_no_rows(tables):
    assert read_reproduced(tables, {"lama": {}}).query("suite == 'lama'")["paper_system"].tolist() == [
        "(dataset)"] * 4
    (tables / "blimp/table3.csv").unlink()
    ours = read_reproduced(tables, SYSTEMS)
    assert set(ours.loc[ours["suite"] == "blimp", "table"]) == {"table4"}


def test_tables_this_run_does_not_make_are_not_read(tables, caplog):
    """A table left by an earlier run with other suites (LAMA here) gives no numbers: its verdicts stay
    missing, as for a suite not run; the log says which of the two it was."""
    made = [path for path in tables.rglob("*.csv") if path.parent.name != "lama"]
    assert not (tables / "ettinger/table14.csv").exists()
    ours = read_reproduced(tables, SYSTEMS, inputs=[str(path) for path in made])
    assert "lama/table2.csv: no suite of this run makes it (the file there, left by an earlier run, is not read)" \
        in caplog.text
    assert "ettinger/table14.csv: no suite of this run makes it; its published numbers stay missing" in caplog.text
    assert "lama" not in set(ours["suite"]) and {"blimp", "olmpics", "ettinger"} <= set(ours["suite"])
    pd.testing.assert_frame_equal(ours[ours["suite"] != "lama"].reset_index(drop=True),
                       read_reproduced(tables, SYSTEMS).query("suite != 'lama'").reset_index(drop=True))


@pytest.mark.parametrize(("systems", "message"), [
    (["blimp"], r"report systems: expected a mapping of suite -> \{paper system: model\}, got \['blimp'\]"),
    ({"blimp": ["gpt2"]}, r"report systems\.blimp: expected a mapping, got \['gpt2'\]"),
    ({"lamma": {}}, "unknown suite 'lamma'"),
    ({"blimp": {"LSTM": "gpt2"}}, "name the scoring method"),
    ({"ettinger": {"bert-base-uncased": 3}}, "expected a model slug"),
])
def test_bad_systems_are_errors_naming_the_entry(tables, systems, message):
    with pytest.raises(ReproducedError, match=message):
        read_reproduced(tables, systems)


def test_malformed_suite_table_names_the_file(tables):
    write_csv(tables / "lama/table2.csv", [{"source": "reproduction", "corpus": "trex"}])
    with pytest.raises(ReproducedError, match=r"lama/table2.csv: missing column"):
        read_reproduced(tables, SYSTEMS)


def test_only_reproduction_rows_are_read(tables):
    """A suite table prints the paper's numbers (and Ettinger's HuggingFace rerun) beside ours, under the
    same model: they are not our numbers."""
    rows = pd.read_csv(tables / "ettinger/table4.csv")
    others = rows.iloc[:1].assign(value=[35.3]), rows.iloc[:1].assign(value=[32.4])
    pd.concat([others[0].assign(source="paper"), rows, others[1].assign(source="hf_rerun")]).to_csv(
        tables / "ettinger/table4.csv", index=False)
    ours = read_reproduced(tables, SYSTEMS).set_index(KEYS)["reproduced"]
    assert ours[("ettinger", "table4", "k=1", "Orig", "bert-base-uncased")] == 23.5


def test_olmpics_reads_the_release_items_and_a_tasks_own_setup_first(tmp_path):
    """Generated items are not the paper's, whichever line comes first; a column two setups share
    (LANGSENSE) comes from the task's own setup (age_comparison: MC-MLM), the other setup only fills
    what it lacks; a system with a zero-shot method gets no learning-curve numbers."""
    zero = {"table": "table2", "task": "age_comparison", "source": "reproduction", "model": "roberta-large",
            "method": "mc_mlm"}
    write_csv(tmp_path / "olmpics/zero_shot.csv", [{**zero, "flavour": "generated", "accuracy": 10.0},
                                                    {**zero, "flavour": "release", "accuracy": 97.0},
                                                    {**zero, "flavour": "release", "method": "candidates", "accuracy": 60.0}])
    curve = {"table": "table2", "task": "age_comparison", "source": "reproduction", "model": "roberta-large"}
    write_csv(tmp_path / "olmpics/learning_curves.csv", [
        {**curve, "setup": "mc_mlm", "flavour": "generated", "mlp_ws": 1.0, "langsense_pert": 1.0},
        {**curve, "setup": "mc_qa", "flavour": "release", "mc_qa_ws": 70.0, "langsense_pert": 5.0},
        {**curve, "setup": "mc_mlm", "flavour": "release", "mlp_ws": 95.0, "langsense_pert": 20.0},
    ])
    systems = {"roberta-large": "roberta-large", "roberta-large (HF)": "roberta-large (candidates)"}
    ours = read_reproduced(tmp_path, {"olmpics": systems}).set_index(["paper_system", "column"])["reproduced"]
    assert ours["roberta-large"].to_dict() == {"zero_shot": 97.0, "mlp_ws": 95.0, "mc_qa_ws": 70.0, "langsense_pert": 20.0}
    # A method names a zero-shot scorer: the learning curves (trained with MC-MLM) are not its.
    assert ours["roberta-large (HF)"].to_dict() == {"zero_shot": 60.0}


def test_a_blimp_method_named_in_systems_overrides_the_papers(tables):
    """``gpt2 (salazar)`` standing for the paper's ``gpt2-large (blimp_paper)`` is compared by its own method."""
    ours = read_reproduced(tables, {"blimp": {"gpt2-large (blimp_paper)": "gpt2 (salazar)"}}).set_index(KEYS)
    assert ours.loc[("blimp", "table3", "overall", "accuracy", "gpt2-large (blimp_paper)"), "reproduced"] == 81.0


# --- written files --------------------------------------------------------------------------


def test_written_files_are_complete_deterministic_and_warn_about_stand_ins(tmp_path, judged):
    pytest.importorskip("lmprobes.report.latex")
    verdicts = judged.reset_index()
    first = write_verdicts(verdicts, tmp_path / "a", TOLERANCES)
    write_verdicts(verdicts.sample(frac=1.0, random_state=3), tmp_path / "b", TOLERANCES)
    assert sorted(p.name for p in first) == sorted(f"{s}.{e}" for s in ("lama", "summary") for e in ("csv", "md", "tex"))
    for path in first:
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes()
    markdown = (tmp_path / "a/lama.md").read_text()
    assert summary_line(verdicts, "lama") in markdown
    assert f"**WARNING: {STAND_IN_WARNING}" in markdown
    back = pd.read_csv(tmp_path / "a/lama.csv", keep_default_na=False, na_values=[""])
    assert back["item"].tolist() == sorted(verdicts["item"])
    assert back.set_index("item").loc["b_above", "reproduced"] == 51.5
    assert "\\toprule" in (tmp_path / "a/lama.tex").read_text()
    summary = pd.read_csv(tmp_path / "a/summary.csv")
    assert summary[["within", "outside", "missing", "stand_ins"]].iloc[0].tolist() == [3, 2, 2, 1]


def test_every_suite_gets_its_files(tmp_path, judged):
    pytest.importorskip("lmprobes.report.latex")
    verdicts = judged.reset_index()
    suites = ("lama", "blimp", "olmpics", "ettinger")
    written = write_verdicts(pd.concat([verdicts.assign(suite=s) for s in suites], ignore_index=True), tmp_path)
    assert sorted(p.name for p in written) == sorted(f"{s}.{e}" for s in (*suites, "summary") for e in ("csv", "md", "tex"))
    assert pd.read_csv(tmp_path / "summary.csv")["suite"].tolist() == list(suites)


def test_the_stand_in_column_is_shown_where_a_stand_in_is(judged):
    """The column tells a stand-in's row from a reproduction's in the Markdown and LaTeX tables."""
    verdicts = judged.reset_index()
    assert readable(verdicts).set_index("item")["stand_in"].to_dict() == verdicts.set_index("item")["stand_in"].to_dict()
    assert "stand_in" not in readable(verdicts[~verdicts["stand_in"]]).columns


def test_a_delta_is_printed_with_the_decimals_that_tell_it_from_its_band():
    """15.904 against 14.9 is 1.004 outside a band of 1.00: two decimals would print the band itself."""
    assert [shown_delta(d, 1.0) for d in (15.904 - 14.9, 15.9 - 14.9, -0.25, -1.0004, np.nan)] == [
        "1.004", "1.00", "-0.25", "-1.0004", ""]
    published = published_frame([("x", "P", "acc", 14.9)])
    verdicts = judge(published, reproduced_frame([("x", "P", "gpt2", 15.904)]), TOLERANCES, set())
    assert verdicts["verdict"].tolist() == ["outside"] and readable(verdicts)["delta"].tolist() == ["1.004"]


def test_neg_simp_table12_allows_no_item_off():
    # spec/ETTINGER.md: exact agreement on NEG-136-SIMP (100 / 0) is not negotiable; one item is 5.6 points.
    published = read_published(RESOURCES)
    table12 = published[(published["suite"] == "ettinger") & (published["table"] == "table12")]
    table12 = table12[~table12["column"].str.endswith("thresh")]
    assert set(table12["metric"]) == {"ettinger_sensitivity_exact"} and len(table12) == 4
    tolerances = read_tolerances(RESOURCES / "report" / "tolerances.csv")
    exact = table12.assign(model=table12["paper_system"], reproduced=table12["published"])
    exact = exact.drop(columns=["metric", "published", "note"])
    assert set(judge(table12, exact, tolerances, set())["verdict"]) == {"within"}
    one_item_off = exact.assign(reproduced=exact["reproduced"].map({100.0: 100 * 17 / 18, 0.0: 100 * 1 / 18}))
    assert set(judge(table12, one_item_off, tolerances, set())["verdict"]) == {"outside"}


def test_neg_simp_thresholded_numbers_come_from_the_text_within_one_item():
    """Section 9.2: with the .01 threshold all affirmative items but one pass for BERT-base."""
    published = read_published(RESOURCES)
    text = published[(published["table"] == "table12") & published["column"].str.endswith("thresh")]
    values = text.set_index(["paper_system", "column"])["published"]
    assert values["bert-base-uncased", "Affirmative w/ .01 thresh"] == pytest.approx(100 * 17 / 18, abs=0.05)
    assert values["bert-large-uncased", "Affirmative w/ .01 thresh"] == 100.0
    assert (values.xs("Negative w/ .01 thresh", level="column") == 0.0).all()
    assert set(text["metric"]) == {"ettinger_sensitivity_text"} and set(text["note"]) == {"from Section 9.2's text, not a table cell"}
    tolerances = read_tolerances(RESOURCES / "report" / "tolerances.csv")
    mine = text.assign(model=text["paper_system"], reproduced=text["published"]).drop(columns=["metric", "published", "note"])
    one_item = mine.assign(reproduced=mine["reproduced"] + 100 / 18 * (mine["reproduced"] < 100))
    assert set(judge(text, one_item, tolerances, set())["verdict"]) == {"within"}
    two_items = mine.assign(reproduced=mine["reproduced"] - 200 / 18 * (mine["reproduced"] > 0))
    assert "outside" in set(judge(text, two_items, tolerances, set())["verdict"])


def test_summary_tex_note_keeps_the_suites_lines_apart(tmp_path, judged):
    """The footnote is one paragraph: joined by a bare space, one suite's line ran on into the next's."""
    verdicts = judged.reset_index()
    write_verdicts(pd.concat([verdicts, verdicts.assign(suite="blimp")], ignore_index=True), tmp_path, TOLERANCES)
    assert "not a reproduction; BLiMP: 3 of 7" in (tmp_path / "summary.tex").read_text()
