"""Per-model summary and leaderboard: every picked value against hand-written suite tables."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmprobes.report.latex import escape
from lmprobes.report.models import (
    LEADERBOARD_COLUMNS,
    ModelSummaryError,
    input_tables,
    leaderboard,
    make_model_summary,
    model_summary,
    models_latex,
    models_markdown,
    win_rates,
    write_model_summary,
)

LAMA_COLUMNS = ["source", "corpus", "row", "system", "model", "method", "p1", "n_facts", "n_kept", "n_relations"]
BLIMP_COLUMNS = ["table", "source", "reference", "model", "method", "category", "paradigm", "value", "n"]
ZERO_COLUMNS = ["table", "task", "source", "flavour", "system", "model", "method", "accuracy", "chance", "n_items",
                "n_kept", "n_multi_piece", "n_ties"]
CURVE_COLUMNS = ["table", "task", "setup", "source", "flavour", "model", "system", "zero_shot", "mlp_ws", "mlp_max",
                 "linear_ws", "linear_max", "mc_qa_ws", "mc_qa_max", "langsense_pert", "langsense_nolang", "chance",
                 "n_seeds", "ns"]
ETTINGER_COLUMNS = ["table", "source", "model", "row", "column", "value", "sd", "n", "unscorable"]


def write_csv(path: Path, columns: list[str], rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame.from_records(rows).reindex(columns=columns).to_csv(path, index=False)


def lama_rows() -> list[dict]:
    def row(corpus, line, system, model, method, p1, source="reproduction"):
        return {"source": source, "corpus": corpus, "row": line, "system": system, "model": model, "method": method,
                "p1": p1, "n_facts": 10, "n_kept": 9, "n_relations": 3}
    return [
        row("google_re", "birth-place", "bert", "bert", "masked", 99.0),
        row("google_re", "Total", "bert", "bert", "masked", 11.5),
        row("trex", "1-1", "bert", "bert", "masked", 70.0),
        row("trex", "Total", "bert", "bert", "masked", 30.0),
        row("trex", "Total", "Freq", "Freq", "freq", 22.0),
        row("trex", "Total", "gpt2 (left_context)", "gpt2", "left_context", 5.0),
        row("trex", "Total", "gpt2 (candidates)", "gpt2", "candidates", 9.0),
        row("google_re", "Total", "gpt2 (candidates)", "gpt2", "candidates", 3.0),
        row("trex", "Total", "Bb (paper)", "bert-base-cased", "masked", 31.1, source="paper"),
        row("trex_raw", "Total", "bert", "bert", "masked", 20.0),
        # Model and method come from their columns, never parsed out of the display label.
        row("trex", "Total", "RoBERTa (ours)", "roberta-v2", "masked", 4.0),
    ]


def blimp_rows() -> list[dict]:
    def row(model, method, category, value, source="reproduction"):
        return {"table": "table3", "source": source, "reference": "", "model": model, "method": method,
                "category": category, "paradigm": "", "value": value, "n": 67}
    return [
        row("gpt2", "lmeval04", "overall", 70.0),
        row("gpt2", "blimp_paper", "overall", 80.0),
        row("gpt2", "blimp_paper", "anaphor_agreement", 90.0),
        row("bert", "pll_within_word_l2r", "overall", 60.0),
        row("gpt2", "", "overall", 81.5, source="paper"),
    ]


def zero_rows() -> list[dict]:
    def row(task, model, method, accuracy, flavour="release", source="reproduction"):
        return {"table": "t", "task": task, "source": source, "flavour": flavour, "system": model, "model": model,
                "method": method, "accuracy": accuracy, "chance": 50.0, "n_items": 24, "n_kept": 24,
                "n_multi_piece": 0, "n_ties": 0}
    return [
        row("always_never", "bert", "mc_mlm", 20.0),
        row("age_comparison", "bert", "mc_mlm", 60.0),
        row("age_comparison", "bert", "candidates", 99.0),
        row("age_comparison", "bert", "mc_mlm", 55.0, flavour="generated"),
        row("age_comparison", "gpt2", "candidates", 52.0),
        row("age_comparison", "roberta-large", "mc_mlm", 98.0, source="paper"),
    ]


def curve_rows() -> list[dict]:
    def row(task, model, **values):
        return {"table": "t", "task": task, "setup": "s", "source": "reproduction", "flavour": "release",
                "model": model, "system": model, "chance": 50.0, "n_seeds": 1, "ns": "8;16", **values}
    return [
        row("property_conjunction", "bert", mc_qa_ws=40.0, mc_qa_max=45.0),
        row("age_comparison", "bert", zero_shot=60.0, mlp_ws=70.0, mlp_max=80.0),
        row("age_comparison", "mlm_baseline", mlp_ws=11.0, mlp_max=12.0),
        {**row("age_comparison", "bert", mlp_ws=61.0, mlp_max=62.0), "flavour": "generated"},
    ]


def ettinger_rows(table: str, cells: list[tuple[str, str, float]], model: str = "bert") -> list[dict]:
    return [{"table": table, "source": "reproduction", "model": model, "row": row, "column": column, "value": value,
             "n": 34, "unscorable": 0} for row, column, value in cells]


@pytest.fixture
def tables(tmp_path) -> Path:
    root = tmp_path / "tables"
    write_csv(root / "lama" / "table2.csv", LAMA_COLUMNS, lama_rows())
    write_csv(root / "blimp" / "table3.csv", BLIMP_COLUMNS, blimp_rows())
    write_csv(root / "olmpics" / "zero_shot.csv", ZERO_COLUMNS, zero_rows())
    write_csv(root / "olmpics" / "learning_curves.csv", CURVE_COLUMNS, curve_rows())
    paper = [{"table": "table4", "source": "paper", "model": "bert", "row": "k=1", "column": "Orig", "value": 23.5}]
    write_csv(root / "ettinger" / "table4.csv", ETTINGER_COLUMNS,
              ettinger_rows("table4", [("k=1", "Orig", 10.0), ("k=5", "Orig", 30.0), ("k=5", "Shuf", 99.0)]) + paper)
    write_csv(root / "ettinger" / "table7.csv", ETTINGER_COLUMNS,
              ettinger_rows("table7", [("k=1", "Orig", 5.0), ("k=5", "Orig", 15.0)]))
    write_csv(root / "ettinger" / "table12.csv", ETTINGER_COLUMNS, ettinger_rows(
        "table12", [("", "Affirmative", 100.0), ("", "Negative", 0.0), ("", "Affirmative w/ .01 thresh", 3.0)]))
    return root


MODELS = ["bert", "gpt2", "tiny-x"]


def cell(summary: pd.DataFrame, model: str, name: str):
    return summary.set_index("model").loc[model, name]


def test_every_picked_value_matches_the_hand_written_table(tables):
    summary = model_summary(tables, MODELS, {"tiny-x"})
    expected = {
        ("bert", "lama: method"): "masked",
        ("bert", "lama: P@1 google_re"): 11.5,
        ("bert", "lama: P@1 trex"): 30.0,
        ("bert", "lama: P@1 trex_raw"): 20.0,
        ("gpt2", "lama: method"): "left_context",
        ("gpt2", "lama: P@1 trex"): 5.0,
        ("gpt2", "blimp: method"): "blimp_paper",
        ("gpt2", "blimp: overall"): 80.0,
        ("gpt2", "blimp: anaphor_agreement"): 90.0,
        ("bert", "blimp: method"): "pll_within_word_l2r",
        ("bert", "blimp: overall"): 60.0,
        ("bert", "olmpics: method"): "mc_mlm",
        ("bert", "olmpics: zero-shot age_comparison"): 60.0,
        ("bert", "olmpics: zero-shot always_never"): 20.0,
        ("bert", "olmpics: zero-shot age_comparison [generated]"): 55.0,
        ("gpt2", "olmpics: method"): "candidates",
        ("gpt2", "olmpics: zero-shot age_comparison"): 52.0,
        ("bert", "olmpics: age_comparison MLP WS"): 70.0,
        ("bert", "olmpics: age_comparison MLP MAX"): 80.0,
        ("bert", "olmpics: property_conjunction MC-QA WS"): 40.0,
        ("bert", "olmpics: property_conjunction MC-QA MAX"): 45.0,
        ("bert", "ettinger: CPRAG acc@1"): 10.0,
        ("bert", "ettinger: CPRAG acc@5"): 30.0,
        ("bert", "ettinger: ROLE acc@1"): 5.0,
        ("bert", "ettinger: ROLE acc@5"): 15.0,
        ("bert", "ettinger: NEG-SIMP aff. sensitivity"): 100.0,
        ("bert", "ettinger: NEG-SIMP neg. sensitivity"): 0.0,
    }
    for (model, name), value in expected.items():
        assert cell(summary, model, name) == value, (model, name)
    assert summary["model"].tolist() == MODELS
    assert summary["stand_in"].tolist() == [False, False, True]



# Each Ettinger metric and the one cell (table, row, column) of the tidy tables it reports.
ETTINGER_CELLS = {
    "CPRAG acc@1": ("table4", "k=1", "Orig"),
    "CPRAG acc@5": ("table4", "k=5", "Orig"),
    "ROLE acc@1": ("table7", "k=1", "Orig"),
    "ROLE acc@5": ("table7", "k=5", "Orig"),
    "NEG-SIMP aff. acc@1": ("table11", "k=1", "Accuracy"),
    "NEG-SIMP aff. acc@5": ("table11", "k=5", "Accuracy"),
    "CPRAG sensitivity": ("table5", "", "Prefer good"),
    "ROLE sensitivity": ("table9", "", "Prefer good"),
    "NEG-SIMP aff. sensitivity": ("table12", "", "Affirmative"),
    "NEG-SIMP neg. sensitivity": ("table12", "", "Negative"),
    "NEG-NAT aff. NT": ("table14", "", "Aff. NT"),
    "NEG-NAT neg. NT": ("table14", "", "Neg. NT"),
    "NEG-NAT aff. LN": ("table14", "", "Aff. LN"),
    "NEG-NAT neg. LN": ("table14", "", "Neg. LN"),
}
# Cells no metric reads, written beside them so that a metric reading the wrong cell gets a value of its own.
ETTINGER_DECOYS = [("table4", "k=1", "Shuf"), ("table4", "k=5", "Trunc"), ("table7", "k=1", "-Obj"),
                   ("table5", "", "w/ .01 thresh"), ("table9", "", "w/ .01 thresh"),
                   ("table12", "", "Affirmative w/ .01 thresh"), ("table12", "", "Negative w/ .01 thresh")]


def test_every_ettinger_metric_reads_its_own_cell(tmp_path):
    cells = list(ETTINGER_CELLS.values()) + ETTINGER_DECOYS
    value_of = {cell: float(10 * index + 1) for index, cell in enumerate(cells)}  # every cell a distinct value
    for table in dict.fromkeys(table for table, _, _ in cells):
        ours = ettinger_rows(table, [(row, column, value_of[table, row, column])
                                     for t, row, column in cells if t == table])
        paper = [{**row, "source": "paper", "value": row["value"] + 0.5} for row in ours]
        write_csv(tmp_path / "ettinger" / f"{table}.csv", ETTINGER_COLUMNS, ours + paper)
    summary = model_summary(tmp_path, ["bert"], set())
    assert sorted(name for name in summary.columns if name.startswith("ettinger: ")) == \
        sorted(f"ettinger: {metric}" for metric in ETTINGER_CELLS)
    for metric, where in ETTINGER_CELLS.items():
        assert cell(summary, "bert", f"ettinger: {metric}") == value_of[where], metric


def test_a_model_without_a_preferred_method_gets_its_alphabetically_first(tmp_path):
    rows = [{"table": "table3", "source": "reproduction", "reference": "", "model": "gpt2", "method": method,
             "category": "overall", "paradigm": "", "value": value, "n": 67}
            for method, value in (("two_prefix_joint", 70.0), ("lmeval04_mean", 60.0), ("one_prefix_mean", 50.0))]
    write_csv(tmp_path / "blimp" / "table3.csv", BLIMP_COLUMNS, rows)
    summary = model_summary(tmp_path, ["gpt2"], set())
    assert cell(summary, "gpt2", "blimp: method") == "lmeval04_mean"
    assert cell(summary, "gpt2", "blimp: overall") == 60.0


def test_lama_model_and_method_are_read_from_their_columns(tables):
    summary = model_summary(tables, ["roberta-v2"], set())
    assert cell(summary, "roberta-v2", "lama: method") == "masked"
    assert cell(summary, "roberta-v2", "lama: P@1 trex") == 4.0


def test_unscored_cells_are_nan_and_unread_metrics_absent(tables):
    summary = model_summary(tables, MODELS, set())
    assert math.isnan(cell(summary, "gpt2", "lama: P@1 google_re"))  # only its non-preferred method has it
    assert math.isnan(cell(summary, "bert", "blimp: anaphor_agreement"))
    assert math.isnan(cell(summary, "gpt2", "ettinger: CPRAG acc@5"))
    assert summary.set_index("model").loc["tiny-x"].drop(["stand_in"]).replace("", np.nan).isna().all()
    assert "ettinger: NEG-SIMP aff. acc@1" not in summary.columns  # table11 was not written
    assert not any("LINEAR" in name for name in summary.columns)  # no linear curve trained
    assert not any("mlm_baseline" in str(v) for v in summary["model"])


def test_column_order_follows_suites_and_paper(tables):
    names = model_summary(tables, MODELS, set()).columns.tolist()
    suites = [name.split(": ")[0] for name in names[2:]]
    assert suites == sorted(suites, key=["lama", "blimp", "olmpics", "ettinger"].index)
    lama = [n for n in names if n.startswith("lama: P@1")]
    assert lama == ["lama: P@1 google_re", "lama: P@1 trex", "lama: P@1 trex_raw"]
    olmpics = [n for n in names if n.startswith("olmpics: ")]
    assert olmpics == ["olmpics: method", "olmpics: zero-shot age_comparison",
                       "olmpics: zero-shot age_comparison [generated]", "olmpics: zero-shot always_never",
                       "olmpics: age_comparison MLP WS", "olmpics: age_comparison MLP MAX",
                       "olmpics: age_comparison MLP WS [generated]", "olmpics: age_comparison MLP MAX [generated]",
                       "olmpics: property_conjunction MC-QA WS", "olmpics: property_conjunction MC-QA MAX"]


def test_leaderboard_headlines_mean_and_rank(tables):
    board = leaderboard(model_summary(tables, MODELS, {"tiny-x"}))
    assert board.columns.tolist() == LEADERBOARD_COLUMNS
    board = board.set_index("model")
    bert_headlines = [(11.5 + 30.0 + 20.0) / 3, 60.0, (60.0 + 20.0) / 2, (10.0 + 30.0 + 5.0 + 15.0) / 4]
    gpt2_headlines = [5.0, 80.0, 52.0]
    assert board.loc["bert", ["lama_p1", "blimp_overall", "olmpics_zero_shot", "ettinger_accuracy"]].tolist() == \
        pytest.approx(bert_headlines)
    assert board.loc["bert", "mean"] == pytest.approx(sum(bert_headlines) / 4)
    assert board.loc["gpt2", "mean"] == pytest.approx(sum(gpt2_headlines) / 3)
    assert math.isnan(board.loc["gpt2", "ettinger_accuracy"])
    assert board["n_suites"].to_dict() == {"gpt2": 3, "bert": 4, "tiny-x": 0}
    assert board.index.tolist() == ["gpt2", "bert", "tiny-x"]
    assert board.loc["gpt2", "rank"] == 1 and board.loc["bert", "rank"] == 2
    assert board.loc["tiny-x", "rank"] is pd.NA


def summary_of(blimp: dict[str, float], lama: dict[str, float] | None = None) -> pd.DataFrame:
    models = list(blimp)
    frame = pd.DataFrame({"model": models, "stand_in": False, "blimp: overall": [blimp[m] for m in models]})
    if lama is not None:
        frame["lama: P@1 trex"] = [lama.get(m, np.nan) for m in models]
    return frame


def test_ties_are_broken_by_model_name():
    board = leaderboard(summary_of({"b": 50.0, "c": 60.0, "a": 50.0}))
    assert board["model"].tolist() == ["c", "a", "b"]
    assert board["rank"].tolist() == [1, 2, 3]
    assert board["win_rate"].tolist() == [100.0, 25.0, 25.0], "a tie counts half"


def test_a_model_run_on_an_easier_suite_alone_does_not_rank_first():
    """As the full config runs distilbert-base-cased: BLiMP alone, whose accuracies dwarf LAMA's P@1. It
    loses on BLiMP to both others, so its win rate is 0 though its mean is the highest."""
    board = leaderboard(summary_of({"bert": 85.0, "gpt2": 82.0, "distil": 78.0},
                                   lama={"bert": 30.0, "gpt2": 10.0})).set_index("model")
    assert board.loc["distil", "mean"] > board.loc["bert", "mean"] > board.loc["gpt2", "mean"]
    # bert: beats both on BLiMP (100) and gpt2 on LAMA (100); gpt2: distil on BLiMP (50), nobody on LAMA (0)
    assert board["win_rate"].to_dict() == {"bert": 100.0, "gpt2": 25.0, "distil": 0.0}
    assert board.index.tolist() == ["bert", "gpt2", "distil"]


def test_win_rates_compare_only_models_that_ran_a_suite_and_one_alone_comes_after():
    values = pd.DataFrame({"blimp_overall": [70.0, 60.0, np.nan, np.nan], "lama_p1": [10.0, 20.0, np.nan, 5.0]},
                          index=["a", "b", "c", "d"])
    rates = win_rates(values)
    # a: BLiMP 100 (beats b), LAMA 50 (beats d, not b); b: 0 and 100; d: LAMA 0; c ran nothing
    assert rates.round(6).to_dict() == pytest.approx({"a": 75.0, "b": 50.0, "c": float("nan"), "d": 0.0},
                                                     nan_ok=True)
    alone = leaderboard(summary_of({"x": 40.0, "y": 30.0, "z": np.nan}, lama={"z": 99.0})).set_index("model")
    # z shares no suite with another model: no win rate, ranked after those that have one (its mean is the highest)
    assert alone.index.tolist() == ["x", "y", "z"] and math.isnan(alone.loc["z", "win_rate"])
    assert alone.loc["z", "rank"] == 3


def test_missing_suite_does_not_count_as_zero():
    board = leaderboard(summary_of({"x": 40.0, "y": 30.0}, lama={"y": 100.0})).set_index("model")
    assert board.loc["x", "mean"] == 40.0 and board.loc["x", "n_suites"] == 1
    assert board.loc["y", "mean"] == 65.0 and board.loc["y", "n_suites"] == 2
    assert math.isnan(board.loc["x", "lama_p1"]) and math.isnan(board.loc["x", "olmpics_zero_shot"])


def test_files_banner_long_csv_and_determinism(tables, tmp_path):
    summary = model_summary(tables, MODELS, {"tiny-x", "gpt2"})
    first = write_model_summary(summary, leaderboard(summary), tmp_path / "a")
    second = write_model_summary(summary, leaderboard(summary), tmp_path / "b")
    names = ["models.csv", "models.md", "models.tex", "leaderboard.csv", "leaderboard.md", "leaderboard.tex"]
    assert [p.name for p in first] == names
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes()
    # gpt2 is no tiny model: a report.stand_ins one (the rule passes both kinds)
    banner = ("Numbers from stand-ins (gpt2, tiny-x: tiny random-weight models, or systems listed under "
              "report.stand_ins): they test the pipeline, they are not a reproduction.")
    assert (tmp_path / "a" / "models.md").read_text().splitlines()[0] == f"**{banner}**"
    assert (tmp_path / "a" / "leaderboard.md").read_text().splitlines()[0] == f"**{banner}**"
    assert escape(banner) in (tmp_path / "a" / "models.tex").read_text()
    long = pd.read_csv(tmp_path / "a" / "models.csv", keep_default_na=False)
    assert long.columns.tolist() == ["model", "suite", "metric", "method", "value", "stand_in"]
    by_key = long.set_index(["model", "suite", "metric"])
    assert by_key.loc[("bert", "lama", "P@1 trex"), "value"] == 30.0
    assert by_key.loc[("bert", "lama", "P@1 trex"), "method"] == "masked"
    assert by_key.loc[("bert", "olmpics", "zero-shot age_comparison"), "method"] == "mc_mlm"
    assert by_key.loc[("bert", "olmpics", "age_comparison MLP WS"), "method"] == ""
    assert by_key.loc[("gpt2", "blimp", "overall"), "stand_in"]
    assert not by_key.loc[("bert", "blimp", "overall"), "stand_in"]
    assert not (long["model"] == "tiny-x").any()  # nothing scored: no rows
    assert len(long) == int(summary.drop(columns=["model", "stand_in"]).select_dtypes("number").notna().sum().sum())


def markdown_block(text: str, title: str) -> pd.DataFrame:
    """The Markdown table under ``## title`` read back as strings."""
    lines = text.split(f"\n## {title}\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    cells = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines]
    return pd.DataFrame(cells[2:], columns=cells[0])


def test_a_suites_block_leaves_out_the_models_it_did_not_score(tables):
    """gpt2 has no Ettinger numbers and tiny-x none at all: the printed blocks skip them (the summary
    frame, which the leaderboard ranks, keeps every model)."""
    summary = model_summary(tables, MODELS, set())
    text = models_markdown(summary)
    assert markdown_block(text, "Ettinger")["model"].tolist() == ["bert"]
    assert markdown_block(text, "BLiMP")["model"].tolist() == ["bert", "gpt2"]
    assert markdown_block(text, "oLMpics: zero-shot")["model"].tolist() == ["bert", "gpt2"]
    assert "tiny-x" not in models_latex(summary)
    assert set(summary["model"]) == set(MODELS)


def test_olmpics_prints_zero_shot_by_task_and_curves_by_model_and_task(tables):
    summary = model_summary(tables, MODELS, set())
    text = models_markdown(summary)
    assert "\n## oLMpics\n" not in text
    zero = markdown_block(text, "oLMpics: zero-shot").set_index("model")
    assert zero.columns.tolist() == ["stand_in", "method", "age_comparison", "age_comparison [generated]", "always_never"]
    assert zero.loc["bert", ["method", "age_comparison", "always_never"]].tolist() == ["mc_mlm", "60.0", "20.0"]
    assert zero.loc["gpt2", ["method", "age_comparison"]].tolist() == ["candidates", "52.0"]
    curves = markdown_block(text, "oLMpics: learning curves")
    assert curves.columns.tolist() == ["model", "stand_in", "task", "MLP WS", "MLP MAX", "MC-QA WS", "MC-QA MAX"]
    # One line per (model, task) with a curve; every value is the summary's cell.
    assert curves[["model", "task"]].values.tolist() == [
        ["bert", "age_comparison"], ["bert", "age_comparison [generated]"], ["bert", "property_conjunction"]]
    for line in curves.to_dict("records"):
        for label in ("MLP WS", "MLP MAX", "MC-QA WS", "MC-QA MAX"):
            task, flavour = (line["task"].split(" [") + [""])[:2]
            name = f"olmpics: {task} {label}" + (f" [{flavour}" if flavour else "")
            value = cell(summary, line["model"], name) if name in summary.columns else math.nan
            assert line[label] == ("" if math.isnan(value) else f"{value:.1f}"), (line["model"], name)
    latex = models_latex(summary)
    assert "\\label{tab:models-olmpics-zero-shot}" in latex and "\\label{tab:models-olmpics-learning-curves}" in latex


def test_no_banner_without_stand_ins(tables, tmp_path):
    summary = model_summary(tables, ["bert"], set())
    write_model_summary(summary, leaderboard(summary), tmp_path)
    assert "stand-ins" not in (tmp_path / "models.md").read_text()
    assert (tmp_path / "models.md").read_text().startswith("# Per-model summary")


def test_lama_on_the_shared_fact_set_is_said_on_the_summary_and_the_leaderboard(tables, tmp_path):
    make_model_summary(tables, MODELS, set(), tmp_path / "own")
    table2 = pd.read_csv(tables / "lama" / "table2.csv")
    table2.assign(fact_set="shared").to_csv(tables / "lama" / "table2.csv", index=False)
    make_model_summary(tables, MODELS, set(), tmp_path / "shared")
    make_model_summary(tables, MODELS, set(), tmp_path / "no_lama", suites=("blimp",))
    note = "LAMA's numbers here are on the shared fact set (suites.lama.fact_set: shared)"
    for name in ("models.md", "models.tex", "leaderboard.md", "leaderboard.tex"):
        written = note.replace("_", "\\_") if name.endswith(".tex") else note
        assert written in (tmp_path / "shared" / name).read_text(), name
        assert written not in (tmp_path / "own" / name).read_text(), name
        assert written not in (tmp_path / "no_lama" / name).read_text(), name
    for name in ("models.csv", "leaderboard.csv"):  # the numbers are those of the table either way
        assert (tmp_path / "own" / name).read_bytes() == (tmp_path / "shared" / name).read_bytes()


def test_suites_not_run_are_not_read(tables):
    summary = model_summary(tables, MODELS, set(), suites=("blimp",))
    assert {name.split(": ")[0] for name in summary.columns[2:]} == {"blimp"}
    assert input_tables(tables, ("blimp", "olmpics")) == [
        tables / "blimp" / "table3.csv", tables / "olmpics" / "zero_shot.csv", tables / "olmpics" / "learning_curves.csv"]


def test_tables_this_run_does_not_make_are_not_read(tables, tmp_path):
    """oLMpics runs zero-shot alone now (learning_curves.models: []): the learning-curve table of an
    earlier run is still there, but is not among the rule's inputs, so its curves are not shown; the
    same for a LAMA run that makes no Table 2 (the paraphrase corpus alone) and its shared-set note."""
    pd.read_csv(tables / "lama" / "table2.csv").assign(fact_set="shared").to_csv(tables / "lama" / "table2.csv",
                                                                                  index=False)
    made = [tables / "olmpics" / "zero_shot.csv", tables / "blimp" / "table3.csv"]
    summary = model_summary(tables, MODELS, set(), table_files=[str(path) for path in made])
    names = summary.columns[2:].tolist()
    assert {name.split(": ")[0] for name in names} == {"blimp", "olmpics"}
    assert "olmpics: zero-shot age_comparison" in names
    assert not [name for name in names if name.endswith(("WS", "MAX"))]
    make_model_summary(tables, MODELS, set(), tmp_path, table_files=made)
    assert "shared fact set" not in (tmp_path / "models.md").read_text()
    assert "learning curves" not in (tmp_path / "models.md").read_text()


def test_missing_table_files_leave_the_suite_out(tmp_path):
    summary = model_summary(tmp_path, ["m"], {"m"})
    assert summary.columns.tolist() == ["model", "stand_in"]
    board = leaderboard(summary)
    assert board["n_suites"].tolist() == [0] and board["rank"].isna().all()


def test_bad_tables_are_named(tables):
    path = tables / "blimp" / "table3.csv"
    write_csv(path, BLIMP_COLUMNS, blimp_rows() + blimp_rows()[1:2])
    with pytest.raises(ModelSummaryError, match=r"blimp.*'overall' of model 'gpt2' appears twice"):
        model_summary(tables, MODELS, set())
    write_csv(path, BLIMP_COLUMNS, [{**blimp_rows()[0], "value": "n/a"}])
    with pytest.raises(ModelSummaryError, match=r"table3\.csv: value 'n/a' is not a number"):
        model_summary(tables, MODELS, set())
    write_csv(path, [c for c in BLIMP_COLUMNS if c != "method"], blimp_rows())
    with pytest.raises(ModelSummaryError, match=r"table3\.csv: column\(s\) \['method'\] missing"):
        model_summary(tables, MODELS, set())
    with pytest.raises(ModelSummaryError, match="unknown suite"):
        model_summary(tables, MODELS, set(), suites=("glue",))
    with pytest.raises(ModelSummaryError, match="listed twice"):
        model_summary(tables, ["bert", "bert"], set())
