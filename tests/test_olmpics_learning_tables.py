"""oLMpics learning-curve tables from hand-made curves, the published learning-curve cells, and the plots."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmprobes.figures import STAND_IN_NOTE, stand_in_notes
from lmprobes.suites.olmpics.curve_plots import (
    VARIANT_KEY_COLOUR,
    model_looks,
    n_label,
    plot_learning_curves,
    plot_setup_comparison,
    setup_comparison_curves,
    with_zero_shot,
    zero_shot_x,
)
from lmprobes.suites.olmpics.curves import CurveError, seed_means
from lmprobes.suites.olmpics.learning_tables import (
    LEARNING_TABLES,
    PAPER_MODELS,
    comparison,
    learning_table,
    medal_table,
    published_learning_rows,
    single_hop_note,
    write_learning_tables,
)
from lmprobes.suites.olmpics.tables import read_published

PUBLISHED = Path(__file__).resolve().parents[1] / "resources" / "olmpics" / "published.csv"
W62, W125 = 0.23, 0.20  # the paper's weights of N = 62 and 125


def runs(task: str, model: str, setting: str, variant: str, accuracies: dict[int, list[float]],
         flavour: str = "release") -> list[dict]:
    return [{"task": task, "flavour": flavour, "variant": variant, "model": model, "setting": setting, "n_train": n,
             "seed": seed, "accuracy": accuracy, "n_dev": 100, "epoch": 2}
            for n, per_seed in accuracies.items() for seed, accuracy in enumerate(per_seed)]


def ws(a62: float, a125: float) -> float:
    return (W62 * a62 + W125 * a125) / (W62 + W125)


@pytest.fixture(scope="module")
def curves() -> pd.DataFrame:
    age, prop = "age_comparison", "property_conjunction"
    rows = runs(age, "roberta-large", "mlp_mlm", "standard", {62: [90.0, 100.0], 125: [100.0, 100.0]})
    rows += runs(age, "roberta-large", "mlp_mlm", "no_lang", {62: [50.0, 50.0], 125: [60.0, 60.0]})
    rows += runs(age, "roberta-large", "mlp_mlm", "perturbed_lang", {62: [99.0], 125: [90.0]})
    rows += runs(age, "roberta-large", "linear", "standard", {62: [70.0], 125: [80.0]})
    rows += runs(age, "roberta-large", "linear", "no_lang", {62: [10.0], 125: [10.0]})  # not the table's LANGSENSE
    rows += runs(age, "mlm_baseline", "mlm_baseline", "standard", {62: [55.0], 125: [65.0]})
    rows += runs(age, "mlm_baseline", "mlm_baseline", "no_lang", {62: [50.0], 125: [70.0]})
    rows += runs(age, "tiny-bert", "mlp_mlm", "standard", {62: [52.0], 125: [54.0]}, flavour="generated")
    rows += runs(prop, "roberta-large", "mc_qa", "standard", {62: [40.0, 50.0], 125: [60.0, 70.0]})
    rows += runs(prop, "roberta-large", "mc_qa", "no_lang", {62: [35.0, 35.0], 125: [65.0, 65.0]})
    rows += runs(prop, "esim_baseline", "esim", "standard", {62: [36.0], 125: [40.0]})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def zero_shot() -> pd.DataFrame:
    return pd.DataFrame([
        {"task": "age_comparison", "flavour": "release", "model": "roberta-large", "method": "mc_mlm", "accuracy": 97.5},
        {"task": "age_comparison", "flavour": "release", "model": "roberta-large", "method": "candidates",
         "accuracy": 10.0},  # another method: not the paper's zero-shot column
        {"task": "age_comparison", "flavour": "release", "model": "mlm_baseline", "method": "mc_mlm", "accuracy": 50.0},
    ])


@pytest.fixture(scope="module")
def published() -> pd.DataFrame:
    return read_published(PUBLISHED)


def test_reproduced_rows_are_the_curve_summaries(curves, zero_shot, published) -> None:
    tidy = learning_table(curves, zero_shot, published)
    ours = tidy[tidy["source"] == "reproduction"].set_index(["task", "flavour", "model"])
    roberta = ours.loc[("age_comparison", "release", "roberta-large")]
    assert roberta["system"] == "RoBERTa-L" and roberta["table"] == "table2" and roberta["chance"] == 50.0
    assert roberta["zero_shot"] == 97.5
    assert roberta["mlp_ws"] == pytest.approx(ws(95.0, 100.0)) and roberta["mlp_max"] == 100.0
    assert roberta["linear_ws"] == pytest.approx(ws(70.0, 80.0)) and roberta["linear_max"] == 80.0
    assert roberta["langsense_nolang"] == pytest.approx(ws(45.0, 40.0))  # from MLP_MLM, not LINEAR
    assert roberta["langsense_pert"] == pytest.approx(ws(0.0, 10.0))  # 95 - 99 clipped to 0
    assert (roberta["n_seeds"], roberta["ns"]) == (2, "62;125")  # the standard curve's (perturbed has one seed)
    baseline = ours.loc[("age_comparison", "release", "mlm_baseline")]
    assert baseline["system"] == "MLM-Baseline" and baseline["zero_shot"] == 50.0
    assert baseline["mlp_ws"] == pytest.approx(ws(55.0, 65.0)) and baseline["mlp_max"] == 65.0
    assert baseline["langsense_nolang"] == pytest.approx(ws(5.0, 0.0)) and np.isnan(baseline["langsense_pert"])
    tiny = ours.loc[("age_comparison", "generated", "tiny-bert")]
    assert tiny["system"] == "tiny-bert [generated]" and np.isnan(tiny["zero_shot"])
    qa = ours.loc[("property_conjunction", "release", "roberta-large")]
    assert qa["mc_qa_ws"] == pytest.approx(ws(45.0, 65.0)) and qa["mc_qa_max"] == 65.0
    assert qa["langsense_nolang"] == pytest.approx(ws(10.0, 0.0)) and np.isnan(qa["zero_shot"])
    assert np.isnan(qa["mlp_ws"]) and qa["chance"] == pytest.approx(100 / 3)
    esim = ours.loc[("property_conjunction", "release", "esim_baseline")]
    assert esim["system"] == "ESIM-Baseline" and esim["mc_qa_ws"] == pytest.approx(ws(36.0, 40.0))


def test_table_order_is_task_then_ours_then_the_papers(curves, zero_shot, published) -> None:
    tidy = learning_table(curves, zero_shot, published)
    assert tidy["task"].drop_duplicates().tolist() == list(LEARNING_TABLES)
    age = tidy[tidy["task"] == "age_comparison"]
    assert age["system"].tolist() == ["RoBERTa-L", "MLM-Baseline", "tiny-bert [generated]", "RoBERTa-L (paper)",
                                      "BERT-WWM (paper)", "BERT-L (paper)", "RoBERTa-B (paper)", "BERT-B (paper)",
                                      "MLM-Baseline (paper)"]
    # Table 2 lists RoBERTa-B before BERT-B; Tables 3, 5 and 7-11 list BERT-B first.
    objects = tidy[(tidy["task"] == "objects_comparison") & (tidy["source"] == "paper")]
    assert objects["system"].tolist()[3:5] == ["BERT-B (paper)", "RoBERTa-B (paper)"]


def test_published_learning_cells_are_read_as_the_paper_prints_them(published) -> None:
    zero = published[published["column"] == "zero_shot"]
    assert len(zero) == 42 and zero["note"].isna().all()  # the zero-shot rows, unchanged
    assert published["note"].notna().sum() == 16  # OCR glyphs read as digits
    paper = published_learning_rows(published).set_index(["task", "model"])
    assert len(paper) == 48  # 8 tables x (5 LMs + a baseline)
    assert paper.loc[("age_comparison", "bert-large-uncased-whole-word-masking"),
                     ["zero_shot", "mlp_ws", "mlp_max", "linear_ws", "linear_max", "langsense_pert",
                      "langsense_nolang"]].tolist() == [70, 82, 100, 69, 85, 13, 15]
    baseline = paper.loc[("age_comparison", "mlm_baseline")]  # zero-shot from the "mlm-baseline" rows
    assert [baseline["zero_shot"], baseline["mlp_ws"], baseline["mlp_max"]] == [49, 58, 79]
    assert np.isnan(baseline["linear_ws"]) and np.isnan(baseline["langsense_nolang"])
    esim = paper.loc[("encyclopedic_composition", "esim_baseline")]
    assert [esim["mc_qa_ws"], esim["mc_qa_max"], esim["langsense_pert"]] == [49, 54, 3]
    assert np.isnan(paper.loc[("always_never", "roberta-large"), "langsense_pert"])  # unreadable glyph: absent
    assert paper.loc[("property_conjunction", "bert-large-uncased"), ["langsense_pert", "langsense_nolang"]] \
        .tolist() == [2, 5]
    glyphs = published[published["note"].notna()].set_index(["table", "paper_label", "column"])
    assert glyphs.loc[("table2", "BERT-L", "langsense_nolang"), "value"] == 0
    assert glyphs.loc[("table11", "RoBERTa-L", "langsense_nolang"), "note"] \
        == "ocr glyph $\\mathfrak{D}_{\\mathfrak{p}}$ read as 2"
    learning = published[published["column"] != "zero_shot"]
    assert len(learning) == 215 and not learning.duplicated(["table", "model", "column"]).any()


def test_comparison_is_reproduced_minus_paper(curves, zero_shot, published) -> None:
    rows = comparison(learning_table(curves, zero_shot, published)).set_index(["task", "model"])
    assert ("age_comparison", "tiny-bert") not in rows.index  # no paper row
    roberta = rows.loc[("age_comparison", "roberta-large")]
    assert roberta["d_zero_shot"] == pytest.approx(97.5 - 98)
    assert roberta["d_mlp_ws"] == pytest.approx(ws(95.0, 100.0) - 98)
    assert np.isnan(roberta["d_mc_qa_ws"])
    assert rows.loc[("property_conjunction", "esim_baseline"), "d_mc_qa_max"] == pytest.approx(40.0 - 49)


def test_the_comparison_latex_leaves_a_cell_without_a_number_blank(curves, zero_shot, published, tmp_path) -> None:
    """As its note says ("a blank cell has no number on one side"): the LaTeX printed those cells as ``--``."""
    write_learning_tables(curves, zero_shot, published, tmp_path)
    markdown = (tmp_path / "learning_curves_comparison.md").read_text()
    tex = (tmp_path / "learning_curves_comparison.tex").read_text()
    assert "a blank cell has no number on one side" in markdown and "a blank cell has no number on one side" in tex
    assert "|  |" in markdown, "the fixture has cells without a number"
    assert "&  &" in tex and "--" not in tex


def test_written_tables_and_medals(curves, zero_shot, published, tmp_path) -> None:
    paths = write_learning_tables(curves, zero_shot, published, tmp_path / "a")
    assert [p.name for p in paths] == ["learning_curves.csv", "learning_curves.md", "learning_curves_comparison.csv",
                                       "learning_curves_comparison.md", "table12_medals.csv", "table12_medals.md"]
    tidy = pd.read_csv(tmp_path / "a" / "learning_curves.csv")
    assert tidy["mlp_ws"].tolist() == pytest.approx(learning_table(curves, zero_shot, published)["mlp_ws"].tolist(),
                                                    nan_ok=True)
    markdown = (tmp_path / "a" / "learning_curves.md").read_text()
    assert "### Table 8: Property conjunction (MC-QA, chance 33.3%)" in markdown
    assert "| RoBERTa-L | 97.5 | 97.3 | 100.0 | 74.7 | 80.0 | 4.7 | 42.7 |\n| RoBERTa-L (paper) | 98.0 |" in markdown
    medals = pd.read_csv(tmp_path / "a" / "table12_medals.csv").set_index(["task", "source", "model"])
    # ours: score 97.5 (zero-shot), bar max(50, baseline 59.7) + 5, high bar 80, LANGSENSE nolang 42.7
    assert medals.loc[("age_comparison", "reproduction", "roberta-large"), "medal"] == "success"
    # WS 54.3 vs ESIM 37.9 + 5, below the high bar 73.3: partial; ESIM gets no medal
    assert medals.loc[("property_conjunction", "reproduction", "roberta-large"), "medal"] == "partial"
    assert ("property_conjunction", "reproduction", "esim_baseline") not in medals.index
    assert medals.loc[("always_never", "paper", "roberta-large"), "medal"] == "fail"  # WS 44 < baseline 46 + 5
    medal_md = (tmp_path / "a" / "table12_medals.md").read_text()
    # columns: ours (RoBERTa-L, tiny-bert [generated]: 52.9 < chance 50 + 5), then the paper's five
    assert "| Age comparison | ✓ | ✗ | ✓ | ✓ | ✗ | ~ | ✗ |" in medal_md
    write_learning_tables(curves, zero_shot, published, tmp_path / "b")
    for path in paths:
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes()


def test_a_generated_flavours_medal_is_measured_against_the_baseline_of_its_flavour(curves, zero_shot,
                                                                                    published) -> None:
    """The baseline's WS on the release items is no bar for the generated ones: without a generated baseline
    the reference is chance (WS 58 >= 50 + 5: partial, where the release baseline's 59.7 + 5 would fail it)."""
    generated = runs("age_comparison", "m", "mlp_mlm", "standard", {62: [58.0], 125: [58.0]}, flavour="generated")
    baseline = runs("age_comparison", "mlm_baseline", "mlm_baseline", "standard", {62: [56.0], 125: [56.0]},
                    flavour="generated")
    for extra, baseline_ws, medal in ((generated, np.nan, "partial"), (generated + baseline, 56.0, "fail")):
        tidy = learning_table(pd.concat([curves, pd.DataFrame(extra)], ignore_index=True), zero_shot, published)
        row = medal_table(tidy).set_index(["source", "flavour", "model"]).loc[("reproduction", "generated", "m")]
        assert row["baseline_ws"] == pytest.approx(baseline_ws, nan_ok=True) and row["medal"] == medal
        assert row["reference"] == pytest.approx(max(50.0, np.nan_to_num(baseline_ws)))


def test_zero_shot_duplicates_are_an_error(curves, zero_shot, published) -> None:
    with pytest.raises(CurveError, match="age_comparison/release/roberta-large appears 2 times"):
        learning_table(curves, pd.concat([zero_shot, zero_shot.iloc[:1]]), published)


def test_plot_is_written_and_byte_identical(curves, tmp_path) -> None:
    first, second = tmp_path / "one.png", tmp_path / "two.png"
    plot_learning_curves(curves, first, "age_comparison")
    plot_learning_curves(curves, second, "age_comparison")
    assert first.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and first.read_bytes() == second.read_bytes()
    plot_learning_curves(curves, tmp_path / "qa.png", "property_conjunction")
    assert (tmp_path / "qa.png").stat().st_size > 0
    with pytest.raises(CurveError, match="no mlp_mlm curves for task 'always_never'"):
        plot_learning_curves(curves, tmp_path / "none.png", "always_never")
    assert [n_label(n) for n in (62, 500, 1000, 4000, 1500)] == ["62", "500", "1K", "4K", "1500"]


def test_mc_mlm_curves_start_at_their_zero_shot_point(curves, zero_shot, tmp_path) -> None:
    """The paper's curves include zero-shot (Figure 1): the standard MLP_MLM curve of each model and the
    MLM-BASELINE's get N = 0 from the zero-shot accuracies, drawn at a tick "0" left of the grid."""
    accuracies = zero_shot
    means = with_zero_shot(seed_means(curves), accuracies, "age_comparison", "release", "mlp_mlm")
    start = means[means["n_train"] == 0].set_index(["model", "setting"])
    # RoBERTa-L's MC-MLM zero-shot (not its candidates score), the baseline's untrained head
    assert start["accuracy"].to_dict() == {("roberta-large", "mlp_mlm"): 97.5, ("mlm_baseline", "mlm_baseline"): 50.0}
    assert set(start["variant"]) == {"standard"}
    assert with_zero_shot(seed_means(curves), accuracies, "age_comparison", "release", "linear").equals(
        seed_means(curves))  # only the MC-MLM setting starts at zero-shot
    assert zero_shot_x([0, 62, 125]) == 31
    plot_learning_curves(curves, tmp_path / "zero.png", "age_comparison", zero_shot=accuracies)
    plot_learning_curves(curves, tmp_path / "plain.png", "age_comparison")
    assert (tmp_path / "zero.png").read_bytes() != (tmp_path / "plain.png").read_bytes()


def test_zero_shot_scores_without_the_task_leave_the_curves_float_and_drawable(curves, tmp_path) -> None:
    """No zero-shot row for the task (its models scored no MC-MLM zero-shot): an empty table of
    accuracies is all object columns, which once turned every accuracy into an object and broke the plot."""
    from lmprobes.suites.olmpics.tables import zero_shot_accuracy

    empty = zero_shot_accuracy(pd.DataFrame(columns=["split", "variant", "task", "flavour", "model", "method", "kept",
                                                     "correct", "n_multi_piece", "tie"]))
    assert empty.empty and empty["accuracy"].dtype == object
    means = with_zero_shot(seed_means(curves), empty, "age_comparison", "release", "mlp_mlm")
    assert means["accuracy"].dtype == float and means.equals(seed_means(curves))
    plot_learning_curves(curves, tmp_path / "empty.png", "age_comparison", zero_shot=empty)
    assert (tmp_path / "empty.png").read_bytes() == plot_bytes(curves, tmp_path)


def plot_bytes(curves, tmp_path) -> bytes:
    plot_learning_curves(curves, tmp_path / "plain.png", "age_comparison")
    return (tmp_path / "plain.png").read_bytes()


@pytest.fixture(scope="module")
def with_mc_qa_on_age(curves) -> pd.DataFrame:
    """Figure 2D's extra runs: MC-QA on age comparison (standard variant) for RoBERTa-L only."""
    extra = runs("age_comparison", "roberta-large", "mc_qa", "standard", {62: [60.0, 70.0], 125: [80.0, 90.0]})
    return pd.concat([curves, pd.DataFrame(extra)], ignore_index=True)


def test_mc_qa_on_an_mc_mlm_task_fills_its_own_columns_only(with_mc_qa_on_age, curves, zero_shot, published,
                                                            tmp_path) -> None:
    tidy = learning_table(with_mc_qa_on_age, zero_shot, published)
    before = learning_table(curves, zero_shot, published)
    key = (tidy["source"] == "reproduction") & (tidy["task"] == "age_comparison") & (tidy["model"] == "roberta-large")
    row = tidy[key].iloc[0]
    assert row["mc_qa_ws"] == pytest.approx(ws(65.0, 85.0)) and row["mc_qa_max"] == 85.0
    others = [c for c in tidy.columns if c not in ("mc_qa_ws", "mc_qa_max")]
    pd.testing.assert_frame_equal(tidy[others], before[others])  # LANGSENSE stays MLP_MLM's
    write_learning_tables(with_mc_qa_on_age, zero_shot, published, tmp_path)
    markdown = (tmp_path / "learning_curves.md").read_text()
    table2 = markdown[markdown.index("### Table 2"):markdown.index("### Table 3")]
    assert "| System | Zero-shot | MLP WS | MLP MAX | LINEAR WS | LINEAR MAX | pert | nolang | MC-QA WS | MC-QA MAX |" \
        in table2
    assert "| RoBERTa-L | 97.5 | 97.3 | 100.0 | 74.7 | 80.0 | 4.7 | 42.7 | 74.3 | 85.0 |" in table2
    assert "MC-QA WS" not in markdown.replace(table2, "")


def test_langsense_is_the_main_settings_even_for_a_model_without_its_curves(curves, zero_shot, published) -> None:
    """A model trained with LINEAR alone: its LINEAR control gives its row no LANGSENSE (the tables' LANGSENSE
    is MLP_MLM's), whichever setting the curves list first."""
    extra = runs("age_comparison", "bert-base-uncased", "linear", "standard", {62: [70.0], 125: [80.0]})
    extra += runs("age_comparison", "bert-base-uncased", "linear", "no_lang", {62: [10.0], 125: [10.0]})
    tidy = learning_table(pd.concat([curves, pd.DataFrame(extra)], ignore_index=True), zero_shot, published)
    row = tidy[(tidy["source"] == "reproduction") & (tidy["model"] == "bert-base-uncased")].iloc[0]
    assert row["linear_ws"] == pytest.approx(ws(70.0, 80.0)) and np.isnan(row["mlp_ws"])
    assert np.isnan(row["langsense_nolang"]) and np.isnan(row["langsense_pert"])
    assert (row["n_seeds"], row["ns"]) == (1, "62;125"), "its seeds and N are its LINEAR curve's"


def test_setup_comparison_draws_the_seed_means_of_models_with_both_setups(with_mc_qa_on_age, curves,
                                                                          tmp_path) -> None:
    plain = {}
    for row in with_mc_qa_on_age.itertuples():
        if row.task == "age_comparison" and row.flavour == "release" and row.variant == "standard":
            plain.setdefault((row.model, row.setting, row.n_train), []).append(row.accuracy)
    drawn = setup_comparison_curves(with_mc_qa_on_age, "age_comparison")
    points = {(m, s, n): a for m, s, n, a in zip(drawn["model"], drawn["setting"], drawn["n_train"], drawn["accuracy"])}
    # RoBERTa-L has both setups; the MLM baseline and the generated tiny-bert have no MC-QA curve
    assert set(points) == {key for key in plain if key[0] == "roberta-large" and key[1] in ("mlp_mlm", "mc_qa")}
    for key, value in points.items():
        assert value == pytest.approx(sum(plain[key]) / len(plain[key]))
    first, second = tmp_path / "one.png", tmp_path / "two.png"
    plot_setup_comparison(with_mc_qa_on_age, first, "age_comparison")
    plot_setup_comparison(with_mc_qa_on_age, second, "age_comparison")
    assert first.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and first.read_bytes() == second.read_bytes()
    with pytest.raises(CurveError, match="no model has both mlp_mlm and mc_qa curves for 'age_comparison'"):
        plot_setup_comparison(curves, tmp_path / "none.png", "age_comparison")
    with pytest.raises(CurveError, match="'property_conjunction' is not an MC-MLM task"):
        plot_setup_comparison(with_mc_qa_on_age, tmp_path / "qa.png", "property_conjunction")


def test_the_overview_says_its_counts_are_systems(curves, zero_shot, published, tmp_path) -> None:
    """The overview counts each table's rows; under "Accuracy (%)" a bare "Reproduced | 3" read as 3%."""
    write_learning_tables(curves, zero_shot, published, tmp_path)
    header = (tmp_path / "learning_curves.md").read_text().splitlines()[2]
    assert header == "| Table | Task | Setup | Chance | Reproduced systems | Paper systems |"


def test_a_task_note_follows_its_table(curves, zero_shot, published, tmp_path) -> None:
    note = single_hop_note([10, 10])
    write_learning_tables(curves, zero_shot, published, tmp_path, task_notes={"property_conjunction": note})
    markdown = (tmp_path / "learning_curves.md").read_text()
    section = markdown.split("### Table 8: Property conjunction")[1].split("###")[0]
    assert section.rstrip().endswith(note) and markdown.count(note) == 1


def test_the_latex_has_each_tasks_table_not_only_the_overview(curves, zero_shot, published, tmp_path) -> None:
    note = single_hop_note([10, 10])
    write_learning_tables(curves, zero_shot, published, tmp_path, task_notes={"property_conjunction": note})
    tex = (tmp_path / "learning_curves.tex").read_text()
    assert r"\caption{Table 2: Age comparison (MC-MLM, chance 50.0\%)}" in tex
    assert r"RoBERTa-L & 97.5 & 97.3 & 100.0 & 74.7 & 80.0 & 4.7 & 42.7 \\" in tex
    table8 = tex.split(r"\caption{Table 8: Property conjunction (MC-QA, chance 33.3\%)}")[1].split(r"\end{table}")[0]
    assert "single-hop facts" in table8


def test_the_single_hop_note_says_how_the_encyclopedic_runs_began() -> None:
    assert "first fine-tuned on 1,234 single-hop facts" in single_hop_note([1234, 1234])
    assert "without the paper's first stage" in single_hop_note([None, None])
    assert "rerun them alike" in single_hop_note([1234, None])


def test_a_curve_figure_names_the_stand_ins_it_draws(curves, with_mc_qa_on_age, tmp_path) -> None:
    """The task's baseline is drawn in every panel of the learning curves, not in Figure 2D; the generated
    tiny-bert curve is not on the release figure."""
    stand_ins = ["mlm_baseline", "esim_baseline", "tiny-bert"]
    age = plot_learning_curves(curves, tmp_path / "age.png", "age_comparison", stand_ins=stand_ins)
    assert stand_in_notes(age) == [STAND_IN_NOTE + "mlm_baseline"]
    qa = plot_learning_curves(curves, tmp_path / "qa.png", "property_conjunction", stand_ins=stand_ins)
    assert stand_in_notes(qa) == [STAND_IN_NOTE + "esim_baseline"]
    real = plot_learning_curves(curves, tmp_path / "real.png", "age_comparison", stand_ins=["tiny-bert"])
    assert stand_in_notes(real) == []
    both = plot_setup_comparison(with_mc_qa_on_age, tmp_path / "2d.png", "age_comparison",
                                 stand_ins=["roberta-large", "mlm_baseline"])
    assert stand_in_notes(both) == [STAND_IN_NOTE + "roberta-large"]
    assert stand_in_notes(plot_setup_comparison(with_mc_qa_on_age, tmp_path / "2d_real.png", "age_comparison",
                                                stand_ins=["mlm_baseline"])) == []


def test_learning_curve_panels_wrap_after_five_models(curves, tmp_path) -> None:
    """The paper's five models in one row, as before; the seventh starts a second row, not a 23-inch strip."""
    extra = [runs("age_comparison", f"m{i}", "mlp_mlm", "standard", {62: [50.0 + i], 125: [60.0]}) for i in range(6)]
    many = pd.concat([curves, pd.DataFrame([row for rows in extra for row in rows])], ignore_index=True)
    fig = plot_learning_curves(many, tmp_path / "seven.png", "age_comparison")
    drawn = [ax for ax in fig.axes if ax.axison]
    assert len(drawn) == 7 and len(fig.axes) == 10
    assert fig.get_size_inches() == pytest.approx((3.2 * 5 + 0.6, 3.4 * 2))
    assert len({round(ax.get_position().y0, 3) for ax in drawn}) == 2


def test_setup_comparison_tells_twelve_models_apart(with_mc_qa_on_age, tmp_path) -> None:
    extra = [runs("age_comparison", f"m{i:02d}", setting, "standard", {62: [50.0 + i], 125: [60.0 + i]})
             for i in range(11) for setting in ("mlp_mlm", "mc_qa")]
    many = pd.concat([with_mc_qa_on_age, pd.DataFrame([row for rows in extra for row in rows])], ignore_index=True)
    fig = plot_setup_comparison(many, tmp_path / "twelve.png", "age_comparison")
    lines = [line for line in fig.axes[0].get_lines() if line.get_label() != "chance"]
    looks = [(line.get_color(), line.get_linestyle(), line.get_marker()) for line in lines]
    assert len(looks) == len(set(looks)) == 24


def test_a_model_keeps_its_colour_in_every_figure(with_mc_qa_on_age, tmp_path) -> None:
    """Numbered in the config's order, not among the models a figure draws: BERT-L has no MC-QA curve, so
    Figure 2D, numbering its own, gave BERT-B the second colour and the learning curves the third."""
    extra = [runs("age_comparison", model, setting, "standard", {62: [50.0], 125: [60.0]})
             for model, settings in (("bert-large-uncased", ["mlp_mlm"]), ("bert-base-uncased", ["mlp_mlm", "mc_qa"]))
             for setting in settings]
    curves = pd.concat([with_mc_qa_on_age, pd.DataFrame([row for rows in extra for row in rows])], ignore_index=True)
    order = ["roberta-large", "bert-large-uncased", "bert-base-uncased"]
    panels = plot_learning_curves(curves, tmp_path / "curves.png", "age_comparison", model_order=order)
    comparison = plot_setup_comparison(curves, tmp_path / "2d.png", "age_comparison", model_order=order)
    in_panels = {ax.get_title(): next(line.get_color() for line in ax.get_lines() if line.get_label() == "standard")
                 for ax in panels.axes if ax.axison}
    in_comparison = {line.get_label().rsplit(" ", 1)[0]: line.get_color() for line in comparison.axes[0].get_lines()
                     if line.get_label() != "chance"}
    assert set(in_comparison) == {"RoBERTa-L", "BERT-B"}
    assert {model: in_panels[model] for model in in_comparison} == in_comparison
    assert len(set(in_panels.values())) == 3
    # a model appended to the config recolours none of the others
    before = model_looks(["bert-base-uncased", "roberta-large"], order)
    assert model_looks(["bert-base-uncased", "roberta-large"], [*order, "albert-base-v2"]) == before


def test_medals_of_many_systems_are_shown_in_parts_led_by_the_task(curves, zero_shot, published, tmp_path) -> None:
    """Ours (RoBERTa-L, tiny-bert [generated] and 30 more) and the paper's five: 37 columns, two parts of
    16 of ours, each with the paper's five after them, as in the whole table."""
    extra = [runs("age_comparison", f"m{i:02d}", "mlp_mlm", "standard", {62: [50.0], 125: [60.0]}) for i in range(30)]
    many = pd.concat([curves, pd.DataFrame([row for rows in extra for row in rows])], ignore_index=True)
    write_learning_tables(many, zero_shot, published, tmp_path)
    md = (tmp_path / "table12_medals.md").read_text()
    assert [line for line in md.splitlines() if line.startswith("### ")] == [
        "### Part 1 of 2: systems 1-16 of 32, with the 5 reference columns",
        "### Part 2 of 2: systems 17-32 of 32, with the 5 reference columns"]
    headers = [line for line in md.splitlines() if line.startswith("| Task |")]
    paper = " | ".join(f"{label} (paper)" for label in PAPER_MODELS.values())
    assert len(headers) == 2 and headers[0].endswith(f"| m14 | {paper} |")
    assert headers[1].startswith("| Task | m15 |") and headers[1].endswith(f"| tiny-bert [generated] | {paper} |")
    assert md.count("| Age comparison |") == 2 and md.index("### Part 2") < md.index("✓ success")
    tex = (tmp_path / "table12_medals.tex").read_text()
    assert r"\caption{oLMpics medals (Table 12) (part 2 of 2)}" in tex and tex.count(r"\end{tabular}") == 2
    assert "### Part" not in (tmp_path / "learning_curves.md").read_text()


def test_medals_put_a_models_flavours_side_by_side(curves, zero_shot, published, tmp_path) -> None:
    """A model's medals on the generated data sit right after its release medals, in whole and in parts,
    not after every model's release column."""
    flavours = [runs("age_comparison", model, "mlp_mlm", "standard", {62: [50.0], 125: [60.0]}, flavour=flavour)
                for model, flavour in (("roberta-large", "generated"), ("tiny-bert", "release"))]
    more = pd.concat([curves, pd.DataFrame([row for rows in flavours for row in rows])], ignore_index=True)
    write_learning_tables(more, zero_shot, published, tmp_path / "whole")
    header = next(line for line in (tmp_path / "whole" / "table12_medals.md").read_text().splitlines()
                  if line.startswith("| Task |"))
    assert header.startswith("| Task | RoBERTa-L | RoBERTa-L [generated] | tiny-bert | tiny-bert [generated] |")
    # 30 more models: the parts break between models, never between a model's flavours
    extra = [runs("age_comparison", f"m{i:02d}", "mlp_mlm", "standard", {62: [50.0], 125: [60.0]}) for i in range(30)]
    many = pd.concat([more, pd.DataFrame([row for rows in extra for row in rows])], ignore_index=True)
    write_learning_tables(many, zero_shot, published, tmp_path / "parts")
    headers = [line.split(" | ") for line in (tmp_path / "parts" / "table12_medals.md").read_text().splitlines()
               if line.startswith("| Task |")]
    assert len(headers) == 2
    assert headers[0][1:3] == ["RoBERTa-L", "RoBERTa-L [generated]"]
    assert headers[1][-7:-5] == ["tiny-bert", "tiny-bert [generated]"]


def test_the_curves_legend_keys_every_drawn_variant_in_no_models_colour(curves, tmp_path) -> None:
    """Each panel draws in its model's colour, so the legend (in the first panel) keys the variants in no
    model's colour, and keys one the first panel lacks: here only the second model has a NO LANG curve."""
    first = runs("age_comparison", "a-model", "mlp_mlm", "standard", {62: [50.0], 125: [60.0]})
    second = runs("age_comparison", "b-model", "mlp_mlm", "standard", {62: [55.0], 125: [65.0]})
    second += runs("age_comparison", "b-model", "mlp_mlm", "no_lang", {62: [45.0], 125: [50.0]})
    baseline = curves[curves["model"] == "mlm_baseline"]
    fig = plot_learning_curves(pd.concat([pd.DataFrame(first + second), baseline]), tmp_path / "c.png",
                               "age_comparison", model_order=["a-model", "b-model"])
    legend = fig.axes[0].get_legend()
    keys = {text.get_text(): (handle.get_color(), handle.get_linestyle())
            for text, handle in zip(legend.get_texts(), legend.legend_handles, strict=True)}
    assert list(keys) == ["standard", "no lang", "MLM-Baseline", "chance"]
    assert keys["standard"] == (VARIANT_KEY_COLOUR, "-") and keys["no lang"] == (VARIANT_KEY_COLOUR, "--")
    panel_colours = {next(line.get_color() for line in ax.get_lines() if line.get_label() == "standard")
                     for ax in fig.axes if ax.axison}
    assert len(panel_colours) == 2 and VARIANT_KEY_COLOUR not in panel_colours
