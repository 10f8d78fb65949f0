"""oLMpics learning-curve summaries (WS, MAX, LANGSENSE, seed means) and the medal rule, on hand-made curves."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pandas as pd
import pytest

from lmprobes.suites.olmpics.curves import (
    PAPER_N,
    WS_WEIGHTS,
    CurveError,
    curve_weights,
    language_sensitivity,
    linear_weights,
    max_score,
    seed_means,
    summarise,
    weighted_score,
)
from lmprobes.suites.olmpics.learning_tables import TABLE_COLUMNS, medal, medal_table


def runs(model: str, setting: str, variant: str, accuracies: dict[int, list[float]], *,
         task: str = "age_comparison", flavour: str = "release") -> list[dict]:
    """One row per (N, seed): the seeds are 0, 1, ... in the order given."""
    return [{"task": task, "flavour": flavour, "variant": variant, "model": model, "setting": setting, "n_train": n,
             "seed": seed, "accuracy": accuracy, "n_dev": 500, "epoch": 4}
            for n, per_seed in accuracies.items() for seed, accuracy in enumerate(per_seed)]


def plain_ws(points: dict[int, float], weights: dict[int, float]) -> float:
    numerator = denominator = 0.0
    for n, accuracy in points.items():
        numerator += weights[n] * accuracy
        denominator += weights[n]
    return numerator / denominator


def test_ws_on_the_paper_grid_is_the_papers_weighted_mean() -> None:
    points = dict(zip(PAPER_N, (50, 60, 70, 80, 90, 95, 100)))
    # 0.23*50 + 0.20*60 + 0.17*70 + 0.14*80 + 0.11*90 + 0.08*95 + 0.07*100, by hand
    assert weighted_score(points) == pytest.approx(71.1)
    assert sum(WS_WEIGHTS) == pytest.approx(1.0)


def test_ws_of_a_shorter_curve_renormalises_the_weights_of_its_n() -> None:
    points = {62: 40.0, 125: 42.0, 250: 44.0, 500: 46.0, 1000: 48.0}  # Always-Never: no 2K/4K points
    expected = (0.23 * 40 + 0.20 * 42 + 0.17 * 44 + 0.14 * 46 + 0.11 * 48) / (0.23 + 0.20 + 0.17 + 0.14 + 0.11)
    assert weighted_score(points) == pytest.approx(expected)
    assert weighted_score(points) == pytest.approx(36.8 / 0.85)
    assert curve_weights(points)[1] == "paper_renormalised" and curve_weights(PAPER_N)[1] == "paper"


def test_n_outside_the_papers_grid_needs_explicit_weights() -> None:
    with pytest.raises(CurveError, match=r"N \[8, 16\] have no weight"):
        weighted_score({8: 50.0, 16: 70.0})
    weights = linear_weights([16, 8])
    assert weights == pytest.approx({8: 0.23 / 0.28, 16: 0.05 / 0.28})
    assert weighted_score({8: 50.0, 16: 70.0}, weights) == pytest.approx((0.23 * 50 + 0.05 * 70) / 0.28)
    assert curve_weights([8, 16]) == (weights, "linear")


def test_linear_weights_follow_the_papers_straight_line() -> None:
    seven = linear_weights(range(1, 8))
    line = [0.23, 0.20, 0.17, 0.14, 0.11, 0.08, 0.05]  # the paper's first six weights, continued
    assert list(seven.values()) == pytest.approx([w / sum(line) for w in line])
    assert linear_weights([4, 1, 2]) == pytest.approx({1: 0.23 / 0.42, 2: 0.14 / 0.42, 4: 0.05 / 0.42})
    assert linear_weights([5]) == {5: 1.0}
    with pytest.raises(CurveError):
        linear_weights([])


def test_max_is_the_best_point() -> None:
    assert max_score({62: 51.0, 125: 74.5, 250: 70.0}) == 74.5
    with pytest.raises(CurveError):
        max_score({})


def test_langsense_clips_negative_gaps_and_uses_the_common_n() -> None:
    standard = {62: 80.0, 125: 90.0, 250: 95.0}
    control = {62: 50.0, 125: 95.0, 250: 70.0, 500: 60.0}  # 500 is not on the standard curve
    gaps = {62: 30.0, 125: 0.0, 250: 25.0}  # 90 - 95 = -5 clipped to 0
    expected = plain_ws(gaps, dict(zip(PAPER_N, WS_WEIGHTS)))
    assert expected == pytest.approx((0.23 * 30 + 0.17 * 25) / 0.60)
    assert language_sensitivity(standard, control) == pytest.approx(expected)
    unclipped = (0.23 * 30 - 0.20 * 5 + 0.17 * 25) / 0.60
    assert language_sensitivity(standard, control) > unclipped
    assert language_sensitivity({8: 60.0, 16: 70.0}, {8: 70.0, 16: 50.0}, linear_weights([8, 16])) \
        == pytest.approx(0.05 * 20 / 0.28)
    with pytest.raises(CurveError, match="share no N"):
        language_sensitivity({62: 1.0}, {125: 1.0})


def test_seed_means_equal_a_naive_loop() -> None:
    rows = runs("roberta-large", "mlp_mlm", "standard", {62: [50.0, 60.0, 58.0], 125: [70.0], 250: [80.0, 90.0]})
    rows += runs("roberta-large", "mlp_mlm", "no_lang", {62: [51.0, 49.0]})
    means = seed_means(pd.DataFrame(rows))
    by_point = {}
    for row in rows:
        by_point.setdefault((row["variant"], row["n_train"]), []).append(row["accuracy"])
    assert len(means) == len(by_point)
    for line in means.itertuples():
        values = by_point[(line.variant, line.n_train)]
        assert line.accuracy == pytest.approx(statistics.mean(values))
        assert line.n_seeds == len(values)
        if len(values) > 1:
            assert line.std == pytest.approx(statistics.stdev(values))
        else:
            assert math.isnan(line.std)


@pytest.fixture
def hand_curves() -> pd.DataFrame:
    rows = runs("roberta-large", "mlp_mlm", "standard", {62: [60.0, 70.0], 125: [80.0, 90.0], 250: [95.0, 95.0]})
    rows += runs("roberta-large", "mlp_mlm", "no_lang", {62: [50.0, 50.0], 125: [90.0, 90.0], 250: [55.0, 45.0]})
    rows += runs("roberta-large", "mlp_mlm", "perturbed_lang", {62: [64.0], 125: [75.0], 250: [95.0]})
    rows += runs("roberta-large", "linear", "standard", {62: [55.0], 125: [65.0], 250: [60.0]})
    rows += runs("tiny-bert", "mlp_mlm", "standard", {8: [40.0, 60.0], 16: [70.0]})  # demo grid: linear weights
    rows += runs("tiny-bert", "mlp_mlm", "no_lang", {8: [45.0], 16: [80.0]})  # its LANGSENSE: the same weights
    return pd.DataFrame(rows)


def test_summarise_matches_a_plain_computation(hand_curves) -> None:
    summary = summarise(hand_curves).set_index(["model", "setting"])
    assert summary.index.tolist() == [("roberta-large", "linear"), ("roberta-large", "mlp_mlm"),
                                      ("tiny-bert", "mlp_mlm")]
    paper = dict(zip(PAPER_N, WS_WEIGHTS))
    mlp = summary.loc[("roberta-large", "mlp_mlm")]
    standard = {62: 65.0, 125: 85.0, 250: 95.0}
    assert mlp["ws"] == pytest.approx(plain_ws(standard, paper))
    assert mlp["max"] == 95.0
    assert mlp["langsense_nolang"] == pytest.approx(plain_ws({62: 15.0, 125: 0.0, 250: 45.0}, paper))
    assert mlp["langsense_pert"] == pytest.approx(plain_ws({62: 1.0, 125: 10.0, 250: 0.0}, paper))
    assert (mlp["n_seeds"], mlp["ns"], mlp["weighting"]) == (2, "62;125;250", "paper_renormalised")
    linear = summary.loc[("roberta-large", "linear")]
    assert linear["ws"] == pytest.approx(plain_ws({62: 55.0, 125: 65.0, 250: 60.0}, paper))
    assert linear["max"] == 65.0
    assert np.isnan(linear["langsense_pert"]) and np.isnan(linear["langsense_nolang"])  # no control curves
    tiny = summary.loc[("tiny-bert", "mlp_mlm")]
    assert tiny["ws"] == pytest.approx((0.23 * 50.0 + 0.05 * 70.0) / 0.28)
    assert (tiny["n_seeds"], tiny["ns"], tiny["weighting"]) == (1, "8;16", "linear")
    assert tiny["langsense_nolang"] == pytest.approx((0.23 * 5.0 + 0.05 * 0.0) / 0.28)  # 50 - 45; 70 - 80 clipped


def test_bad_curve_rows_are_named() -> None:
    rows = runs("roberta-large", "mlp_mlm", "standard", {62: [60.0, 70.0]})
    with pytest.raises(CurveError, match="columns \\['accuracy'\\] missing"):
        seed_means(pd.DataFrame(rows).drop(columns="accuracy"))
    with pytest.raises(CurveError, match="age_comparison/release/standard/roberta-large/mlp_mlm/62 seed 1 appears 2"):
        seed_means(pd.DataFrame(rows + rows[1:]))
    for accuracy in (150.0, -1.0, np.nan):
        with pytest.raises(CurveError, match=f"accuracy {accuracy} of .* not a percentage"):
            seed_means(pd.DataFrame(runs("roberta-large", "mlp_mlm", "standard", {62: [accuracy]})))


def test_medal_rule_on_single_cases() -> None:
    # chance 50: "high" is 50 + 0.6 * 50 = 80; the bar is max(chance, baseline) + 5
    assert medal(85.0, 50.0, 60.0, 10.0) == "success"
    assert medal(85.0, 50.0, 60.0, 4.0) == "partial"  # language barely matters
    assert medal(85.0, 50.0, 60.0, np.nan) == "partial"  # no control: no success
    assert medal(79.0, 50.0, 60.0, 30.0) == "partial"  # not high enough
    assert medal(64.0, 50.0, 60.0, 30.0) == "fail"  # within 5 points of the baseline
    assert medal(56.0, 50.0, np.nan, 0.0) == "partial"  # no baseline: chance is the reference
    assert medal(54.0, 50.0, 40.0, 30.0) == "fail"  # within 5 points of chance
    assert medal(np.nan, 50.0, 40.0, 30.0) is None



def just_below(value: float) -> float:
    return float(np.nextafter(value, -np.inf))


@pytest.mark.parametrize("chance", [50.0, 100 / 3, 20.0])
def test_medal_rule_at_its_bars(chance) -> None:
    """Each bar of the rule is inclusive (the module's doc: score >= chance + 0.6 x (100 - chance) is high,
    score >= reference + 5 beats the baseline, langsense >= 5 matters); a hair below each is not."""
    high = chance + 0.6 * (100.0 - chance)
    baseline = chance + 10.0
    beats = baseline + 5.0
    assert beats < high
    assert medal(high, chance, baseline, 5.0) == "success"
    assert medal(just_below(high), chance, baseline, 5.0) == "partial"
    assert medal(high, chance, baseline, just_below(5.0)) == "partial"
    assert medal(beats, chance, baseline, 50.0) == "partial"
    assert medal(just_below(beats), chance, baseline, 50.0) == "fail"
    assert medal(chance + 5.0, chance, np.nan, 50.0) == "partial"  # no baseline: chance is the reference
    assert medal(just_below(chance + 5.0), chance, np.nan, 50.0) == "fail"


def table_row(task: str, model: str, **values) -> dict:
    setup = "mc_qa" if task == "property_conjunction" else "mc_mlm"
    chance = 100 / 3 if setup == "mc_qa" else 50.0
    row = {column: np.nan for column in TABLE_COLUMNS}
    row.update(table="t", task=task, setup=setup, source="paper", flavour="release", model=model, system=model,
               chance=chance, **values)
    return row


def test_medal_table_on_a_hand_made_table() -> None:
    tidy = pd.DataFrame([
        table_row("age_comparison", "roberta-large", zero_shot=98.0, mlp_ws=70.0, langsense_nolang=51.0),
        table_row("age_comparison", "bert-large-uncased", zero_shot=50.0, mlp_ws=70.0, langsense_pert=2.0),
        table_row("age_comparison", "bert-base-uncased", zero_shot=49.0, mlp_ws=62.0, langsense_nolang=9.0),
        table_row("age_comparison", "mlm_baseline", zero_shot=49.0, mlp_ws=58.0),
        table_row("property_conjunction", "roberta-large", mc_qa_ws=49.0, langsense_pert=2.0),
        table_row("property_conjunction", "roberta-base", mc_qa_ws=42.0),
        table_row("property_conjunction", "esim_baseline", mc_qa_ws=39.0),
    ])
    medals = medal_table(tidy).set_index(["task", "model"])
    assert ("age_comparison", "mlm_baseline") not in medals.index  # baselines get no medal
    assert medals["medal"].to_dict() == {
        ("age_comparison", "roberta-large"): "success",  # zero-shot 98 counts, not only WS 70
        ("age_comparison", "bert-large-uncased"): "partial",  # 70 >= 63 but below the high bar 80
        ("age_comparison", "bert-base-uncased"): "fail",  # 62 < 58 + 5
        ("property_conjunction", "roberta-large"): "partial",  # 49 >= 39 + 5; MC-QA has no zero-shot
        ("property_conjunction", "roberta-base"): "fail",  # 42 < 44
    }
    roberta = medals.loc[("age_comparison", "roberta-large")]
    assert (roberta["score"], roberta["score_from"], roberta["baseline_ws"], roberta["symbol"]) \
        == (98.0, "zero_shot", 58.0, "✓")
    assert medals.loc[("age_comparison", "bert-large-uncased"), "langsense"] == 2.0  # pert where nolang is missing
