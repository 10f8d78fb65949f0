"""BLiMP figures: the data behind each checked against plain computations; each PNG is written
non-empty and byte-identical on a second run."""

from __future__ import annotations

import itertools
import math
import random
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgb

from figure_cases import SYNTHETIC_MODELS
from lmprobes.figures import STAND_IN_NOTE, stand_in_notes
from lmprobes.io import read_parquet, write_parquet
from lmprobes.suites.blimp import pipeline
from lmprobes.suites.blimp import plots as P
from lmprobes.suites.blimp.accuracy import paradigm_accuracy, paradigm_tallies
from lmprobes.suites.blimp.paradigms import PARADIGM_CATEGORY, PARADIGMS
from lmprobes.suites.blimp.tables import (
    MEAN_ROW,
    generated_comparison,
    read_published,
    read_published_paradigms,
    write_tables,
)

RESOURCES = Path(__file__).resolve().parents[1] / "resources" / "blimp"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PREFIX_PARADIGMS = {  # a few real prefix-method paradigms per Figure 6 phenomenon (release flags)
    "one_prefix": ["principle_A_c_command", "principle_A_case_1", "determiner_noun_agreement_1",
                   "regular_plural_subject_verb_agreement_1", "anaphor_gender_agreement"],
    "two_prefix": ["principle_A_domain_3", "determiner_noun_agreement_2", "regular_plural_subject_verb_agreement_2",
                   "only_npi_scope"],
}


@pytest.fixture(scope="module")
def published_paradigms() -> pd.DataFrame:
    return read_published_paradigms(RESOURCES / "published_paradigms.csv")


def fake_scores(seed: int = 0, pairs_per_paradigm: int = 6) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(scores, pairs): random sentence scores for a causal model under three methods and a
    masked model, every paradigm for full-sentence methods, the listed ones for prefix methods."""
    rng = random.Random(seed)
    pairs = [{"row_id": f"{p}:{i}", "paradigm": p, "n_words_good": rng.randint(3, 9)}
             for p in PARADIGMS for i in range(pairs_per_paradigm)]
    rows = []
    for model, method in (("gpt", "blimp_paper"), ("gpt", "one_prefix"), ("gpt", "two_prefix"), ("bert", "pll_original")):
        paradigms = set(PREFIX_PARADIGMS.get(method, PARADIGMS))
        for pair in pairs:
            kept = pair["paradigm"] in paradigms
            logprobs = [-rng.uniform(0.5, 9.0) for _ in range(pair["n_words_good"] + 1)] if kept else []
            shift = rng.gauss(-1.0, 4.0) / len(logprobs) if kept else 0.0
            logprobs_bad = [x + shift for x in logprobs]
            good = math.fsum(logprobs) if kept else math.nan
            bad = math.fsum(logprobs_bad) if kept else math.nan
            rows.append({
                "row_id": pair["row_id"], "paradigm": pair["paradigm"], "category": PARADIGM_CATEGORY[pair["paradigm"]],
                "model": model, "method": method, "kept": kept, "skip_reason": "" if kept else f"no_{method}",
                "score_good": good, "score_bad": bad, "token_logprobs_good": logprobs, "token_logprobs_bad": logprobs_bad,
                "tie": (good == bad) if kept else None, "correct": (good > bad) if kept else None,
            })
    scores = pd.DataFrame(rows)
    scores["correct"] = scores["correct"].astype("boolean")
    return scores, pd.DataFrame(pairs)


# --- data ----------------------------------------------------------------------------------


def test_paradigm_systems_label_and_scale_both_sources(published_paradigms) -> None:
    scores, _ = fake_scores()
    systems = P.paradigm_systems(scores, published_paradigms)
    ours = systems[systems["source"] == "reproduction"]
    assert set(ours["system"]) == {"gpt (blimp_paper)", "gpt (one_prefix)", "gpt (two_prefix)", "bert (pll_original)"}
    kept = scores[scores["kept"] & (scores["method"] == "blimp_paper") & (scores["paradigm"] == "passive_1")]
    row = ours[(ours["system"] == "gpt (blimp_paper)") & (ours["paradigm"] == "passive_1")]
    assert row["accuracy"].item() == pytest.approx(100 * kept["correct"].astype(bool).mean())
    lstm = systems[(systems["system"] == "LSTM (paper)") & (systems["paradigm"] == "passive_1")]
    assert lstm["accuracy"].item() == pytest.approx(71.9)
    order = P.system_order(systems)
    assert order[-5:] == ["human (paper)", "gpt2-large (blimp_paper, paper)", "TXL (paper)", "LSTM (paper)", "5-gram (paper)"]


def test_correlations_are_pearson_and_reproduce_figure1(published_paradigms) -> None:
    scores, _ = fake_scores()
    systems = P.paradigm_systems(scores, published_paradigms)
    matrix = P.correlation_matrix(systems)
    assert list(matrix.index) == list(matrix.columns) == P.system_order(systems)
    # plain Pearson over the paradigms two systems share
    a = systems[systems["system"] == "gpt (one_prefix)"].set_index("paradigm")["accuracy"]
    b = systems[systems["system"] == "human (paper)"].set_index("paradigm")["accuracy"]
    shared = sorted(set(a.index) & set(b.index))
    assert len(shared) == len(PREFIX_PARADIGMS["one_prefix"])
    r = np.corrcoef(a[shared].to_numpy(), b[shared].to_numpy())[0, 1]
    assert matrix.loc["gpt (one_prefix)", "human (paper)"] == pytest.approx(r)
    # Figure 1 as printed (entries without GPT-2, whose numbers the 2021 correction changed)
    printed = {("human", "TXL"): 0.48, ("human", "LSTM"): 0.49, ("human", "5-gram"): 0.34,
               ("TXL", "LSTM"): 0.90, ("TXL", "5-gram"): 0.58, ("LSTM", "5-gram"): 0.59}
    for (x, y), value in printed.items():
        assert round(matrix.loc[f"{x} (paper)", f"{y} (paper)"], 2) == value


def test_equal_count_bins() -> None:
    values = pd.Series([5.0, 1.0, 3.0, 3.0, 9.0, 7.0, 2.0])
    bins = P.equal_count_bins(values, 3)
    assert bins.tolist() == [1, 0, 0, 1, 2, 2, 0]  # ranks 4,0,2,3,6,5,1 -> rank*3//7
    assert P.equal_count_bins(values, 10).tolist() == [4, 0, 2, 3, 6, 5, 1]  # fewer rows than bins


def test_figure2_data_bins_each_property_plainly() -> None:
    scores, pairs = fake_scores()
    data = P.figure2_data(scores, pairs, bins=10)
    assert set(data["system"]) == {"gpt (blimp_paper)", "bert (pll_original)"}  # prefix scores are not sentences
    assert set(zip(data["system"], data["model"], data["method"])) == {
        ("gpt (blimp_paper)", "gpt", "blimp_paper"), ("bert (pll_original)", "bert", "pll_original")}
    kept = scores[(scores["model"] == "gpt") & (scores["method"] == "blimp_paper")]
    words = dict(zip(pairs["row_id"], pairs["n_words_good"]))
    mine = data[data["system"] == "gpt (blimp_paper)"]
    # length: one bin per word count
    length = mine[mine["variable"] == "length"]
    for row in length.itertuples():
        members = [bool(c) for rid, c in zip(kept["row_id"], kept["correct"]) if words[rid] == row.x]
        assert row.n == len(members) and row.accuracy == pytest.approx(100 * sum(members) / len(members))
    # confidence: deciles of |good - bad| by rank
    confidence = sorted(zip((kept["score_good"] - kept["score_bad"]).abs(), kept["correct"].astype(bool)), key=lambda t: t[0])
    size = len(confidence)
    rows = mine[mine["variable"] == "confidence"].sort_values("bin")
    assert rows["n"].sum() == size and rows["bin"].tolist() == list(range(10))
    for row in rows.itertuples():
        members = [confidence[i] for i in range(size) if i * 10 // size == row.bin]
        assert row.n == len(members)
        assert row.accuracy == pytest.approx(100 * sum(c for _, c in members) / len(members))
        assert row.x == pytest.approx(float(np.median([v for v, _ in members])))
    # perplexity: exp(-log P / tokens), per pair
    perplexities = sorted(math.exp(-g / len(t)) for g, t in zip(kept["score_good"], kept["token_logprobs_good"]))
    first = mine[(mine["variable"] == "perplexity") & (mine["bin"] == 0)].iloc[0]
    assert first.x == pytest.approx(float(np.median(perplexities[: first.n])))
    logp = mine[mine["variable"] == "logp_good"]
    assert logp["x"].is_monotonic_increasing


def test_figure2_leaves_out_the_pairs_a_full_sentence_method_skipped() -> None:
    scores, pairs = fake_scores()
    skipped = (scores["method"] == "pll_original") & (scores["row_id"].str.endswith(":0"))  # e.g. an [UNK]
    scores.loc[skipped, ["kept", "score_good", "score_bad"]] = [False, math.nan, math.nan]
    scores.loc[skipped, "correct"] = pd.NA
    for column in P.TOKEN_LOGPROBS:
        scores.loc[skipped, column] = pd.Series([[] for _ in range(int(skipped.sum()))], index=scores.index[skipped])
    data = P.figure2_data(scores, pairs)
    kept = int((scores["kept"] & (scores["method"] == "pll_original")).sum())
    assert 0 < kept < int((scores["method"] == "pll_original").sum())
    bert = data[data["system"] == "bert (pll_original)"]
    assert bert.groupby("variable")["n"].sum().to_dict() == dict.fromkeys(P.FIGURE2_VARIABLES, kept)


def test_group_means_of_figures_3_and_4(published_paradigms) -> None:
    systems = P.paradigm_systems(fake_scores()[0], published_paradigms)
    fig3 = P.figure3_data(systems).set_index(["panel", "condition", "system"])
    gpt2 = "gpt2-large (blimp_paper, paper)"
    # GPT-2's per-paradigm results (%), typed from the corrected 2021 results
    det, sv = "determiner-noun agreement", "subject-verb agreement"
    assert fig3.loc[(det, "adjective", gpt2), "accuracy"] == pytest.approx((97.5 + 94.9 + 92.7 + 94.0) / 4)
    assert fig3.loc[(det, "no adjective", gpt2), "accuracy"] == pytest.approx((98.8 + 97.7 + 95.7 + 95.3) / 4)
    assert fig3.loc[(sv, "no attractor", gpt2), "accuracy"] == pytest.approx(96.7)
    # Section 6.1: the LSTM performs 20 points worse with an attractor than without, Transformer-XL 5.
    for system, gap in (("LSTM (paper)", 20), ("TXL (paper)", 5)):
        attractor = (fig3.loc[(sv, "relational noun", system), "accuracy"]
                     + fig3.loc[(sv, "relative clause", system), "accuracy"]) / 2
        assert round(fig3.loc[(sv, "no attractor", system), "accuracy"] - attractor) == gap, system
    assert fig3.loc[(sv, "relative clause", gpt2), "n_paradigms"] == 1
    fig4 = P.figure4_data(systems).set_index(["panel", "condition", "system"])
    assert fig4.loc[("subject-verb agreement", "irregular", gpt2), "accuracy"] == pytest.approx((92.8 + 92.4) / 2)
    assert fig4.loc[("determiner-noun agreement", "regular", gpt2), "accuracy"] == pytest.approx((98.8 + 97.7 + 97.5 + 94.9) / 4)
    # a reproduced system with only some of a group's paradigms averages the ones it has
    one = fig4.loc[("determiner-noun agreement", "regular", "gpt (one_prefix)")]
    accuracy = systems[systems["system"] == "gpt (one_prefix)"].set_index("paradigm")["accuracy"]
    assert one["n_paradigms"] == 1 and one["accuracy"] == pytest.approx(accuracy["determiner_noun_agreement_1"])
    assert ("determiner-noun agreement", "irregular", "gpt (one_prefix)") not in fig4.index


def test_figure6_data_per_phenomenon_and_mean_sd_over_phenomena() -> None:
    scores, _ = fake_scores()
    data = P.figure6_data(scores)
    assert set(data["model"]) == {"gpt"}  # masked methods have no prefix counterpart
    kept = scores[scores["kept"] & (scores["model"] == "gpt")]
    for method, group in kept.groupby("method"):
        per_paradigm = group.groupby("paradigm")["correct"].apply(lambda c: 100 * c.astype(bool).mean())
        per_category = per_paradigm.groupby(per_paradigm.index.map(PARADIGM_CATEGORY)).mean()
        mine = data[data["method"] == method].set_index("panel")
        for phenomenon in P.FIGURE6_PHENOMENA:
            assert mine.loc[phenomenon, "accuracy"] == pytest.approx(per_category[phenomenon])
        overall = mine.loc[P.ALL_PHENOMENA]
        assert overall["n"] == len(per_category)
        assert overall["accuracy"] == pytest.approx(float(np.mean(per_category.to_numpy())))
        assert overall["sd"] == pytest.approx(float(np.std(per_category.to_numpy())))
    assert data[(data["method"] == "one_prefix") & (data["panel"] == P.ALL_PHENOMENA)]["n"].item() == 4


def test_a_joint_two_prefix_run_is_a_system_of_its_own_beside_two_prefix() -> None:
    """``two_prefix_joint`` and ``two_prefix`` of one model: Figure 6 and Table 3 keep them apart under
    their own names, and Figure 2 leaves both out (neither scores a whole sentence)."""
    from lmprobes.suites.blimp.tables import table3, table3_wide

    scores, pairs = fake_scores()
    conditional = scores[scores["method"] == "two_prefix"]
    joint = conditional.assign(method="two_prefix_joint", correct=~conditional["correct"])  # every decision flipped
    both = pd.concat([scores, joint], ignore_index=True)
    figure6 = P.figure6_data(both).set_index(["method", "panel"])
    for panel in (*P.FIGURE6_PHENOMENA, P.ALL_PHENOMENA):
        assert figure6.loc[("two_prefix_joint", panel), "accuracy"] == pytest.approx(
            100 - figure6.loc[("two_prefix", panel), "accuracy"])
        assert figure6.loc[("two_prefix_joint", panel), "n"] == figure6.loc[("two_prefix", panel), "n"]
    properties = P.pair_properties(both, pairs)
    assert set(zip(properties["model"], properties["method"])) == {("gpt", "blimp_paper"), ("bert", "pll_original")}
    overall = table3_wide(table3(both)).set_index("system")["overall"]
    assert overall["gpt (two_prefix_joint)"] == pytest.approx(100 - overall["gpt (two_prefix)"])


# --- PNGs ----------------------------------------------------------------------------------


def test_every_figure_writes_the_same_png_twice(tmp_path, published_paradigms) -> None:
    scores, pairs = fake_scores(pairs_per_paradigm=3)
    systems = P.paradigm_systems(scores, published_paradigms)
    draws = {
        "figure1": lambda out: P.figure1(systems, out),
        "figure2": lambda out: P.figure2(P.figure2_data(scores, pairs), out),
        "figure3": lambda out: P.figure3(systems, out),
        "figure4": lambda out: P.figure4(systems, out),
        "figure6": lambda out: P.figure6(P.figure6_data(scores), out),
    }
    for name, draw in draws.items():
        first, second = tmp_path / f"{name}.png", tmp_path / "again" / f"{name}.png"
        draw(first)
        draw(second)
        data = first.read_bytes()
        assert data.startswith(PNG_SIGNATURE) and len(data) > 5000, name
        assert data == second.read_bytes(), name
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == sorted(f"{n}.png" for n in draws)


@pytest.mark.parametrize(("low", "high", "minor_labels"), [(1710, 2273, True), (300, 2500, True), (12, 3400, False)])
def test_the_perplexity_axis_is_labelled_where_the_data_are(low, high, minor_labels) -> None:
    """The demo's perplexities span no decade: every tick gets a plain label there, as where one decade
    falls on the axis (ticks between it and the next labelled where they fit). Where two or more decades
    fall on it, only they are labelled."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([low, high], [40, 60])
    P.log_axis(ax)
    fig.canvas.draw()
    labels = {minor: [(label.get_position()[0], label.get_text()) for label in ax.get_xticklabels(minor=minor)
                      if label.get_text()] for minor in (False, True)}
    plt.close(fig)
    assert bool(labels[True]) == minor_labels
    if minor_labels:
        assert all(text.isdigit() for _, text in labels[True]), labels[True]  # plain, not "1.9 x 10^3"
    assert any(low <= x <= high for x, _ in labels[False] + labels[True])  # some label falls on the data


def drawn_tick_labels(ax) -> list:
    """The x tick labels drawn on ``ax`` (major and minor, non-empty, on the axis)."""
    low, high = sorted(ax.get_xlim())
    return [label for minor in (False, True) for tick, label in zip(ax.xaxis.get_ticklocs(minor=minor),
                                                                  ax.get_xticklabels(minor=minor))
            if label.get_text() and low <= tick <= high]


@pytest.mark.parametrize("width", [4.5, 2.0])
@pytest.mark.parametrize("decades", [0.2, 0.5, 1, 1.5, 2, 3, 5])
def test_the_perplexity_axis_labels_never_run_into_each_other(decades, width) -> None:
    """Over one or two powers of ten matplotlib labelled 2x10^1, 3x10^1, ... into each other; now a label is
    drawn only where it clears its neighbours, in plain numbers unless two decades carry the axis."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width, 2))
    ax.plot([15, 15 * 10 ** decades], [40, 60])
    P.log_axis(ax)
    fig.canvas.draw()
    labels = drawn_tick_labels(ax)
    boxes = sorted((label.get_window_extent() for label in labels), key=lambda box: box.x0)
    texts = [label.get_text() for label in labels]
    plt.close(fig)
    assert len(labels) >= 2, texts
    assert all(left.x1 < right.x0 for left, right in itertools.pairwise(boxes)), texts
    between = [text for text in texts if "10^" not in text]
    assert not between or all(text.isdigit() for text in texts), texts  # not "2 x 10^1" beside "30"


def test_figure2_properties_of_a_mean_method_are_those_of_its_sum() -> None:
    """A ``_mean`` method's score is per token; Figure 2's perplexity, log P(good) and confidence
    |log P(good) - log P(bad)| are not (the axes say so)."""
    scores, pairs = fake_scores()
    summed = scores[(scores["model"] == "gpt") & (scores["method"] == "blimp_paper")]
    n = summed["token_logprobs_good"].map(len)
    mean = summed.assign(method="blimp_paper_mean", score_good=summed["score_good"] / n, score_bad=summed["score_bad"] / n)
    both = P.pair_properties(pd.concat([summed, mean]), pairs)
    plain, per_token = (both[both["method"] == m].reset_index(drop=True) for m in ("blimp_paper", "blimp_paper_mean"))
    assert len(plain) == len(per_token) == len(summed)
    for column in ("perplexity", "logp_good", "length", "confidence"):
        assert per_token[column].to_numpy() == pytest.approx(plain[column].to_numpy())
    assert plain["perplexity"].to_numpy() == pytest.approx(np.exp(-summed["score_good"].to_numpy() / n.to_numpy()))


# --- the tables job's reading --------------------------------------------------------------


def test_token_sums_are_each_rows_count_and_fsum_of_its_lists() -> None:
    """Figure 2's reductions, in place of the lists: on the kept rows of full-sentence methods the good
    side's token count and each side's exact sum, NaN elsewhere; Figure 2's properties are unchanged."""
    scores, pairs = fake_scores()
    doubled = pd.concat([scores, scores])  # index labels repeated
    reduced = P.token_sums(doubled)
    assert not set(P.TOKEN_LOGPROBS) & set(reduced.columns)
    assert P.token_sums(reduced) is reduced
    shown = 0
    for row, good, bad in zip(reduced.itertuples(), doubled["token_logprobs_good"], doubled["token_logprobs_bad"], strict=True):
        sums = (row.n_tokens_good, row.logp_good, row.logp_bad)
        if row.kept and row.method in ("blimp_paper", "pll_original"):  # fake_scores' full-sentence methods
            assert sums == (len(good), math.fsum(good), math.fsum(bad))
            shown += 1
        else:
            assert all(math.isnan(value) for value in sums)
    assert shown == 2 * 2 * len(pairs)
    pd.testing.assert_frame_equal(P.pair_properties(reduced, pairs), P.pair_properties(doubled, pairs), check_exact=True)


def score_files(folder: Path, scores: pd.DataFrame) -> list[Path]:
    """``scores`` as score files in the scorer's schema, one per model (token ids made up)."""
    from lmprobes.suites.blimp.scoring import SCORE_SCHEMA

    ids = {f"token_ids_{side}": scores[f"token_logprobs_{side}"].map(lambda t: list(range(len(t)))) for side in ("good", "bad")}
    paths = []
    for model, frame in scores.assign(**ids).groupby("model", sort=True):
        paths.append(folder / f"{model}.parquet")
        write_parquet(frame, paths[-1], SCORE_SCHEMA, {"model": model})
    return paths


def whole_file_tables(dataset: Path, score_paths: list[Path], published: Path, published_paradigms: Path,
                      out_dir: Path, figures: dict[str, Path]) -> None:
    """The tables and figures from every column of every file read at once, as the job once did."""
    scores = pd.concat([read_parquet(p) for p in score_paths], ignore_index=True)
    paper_paradigms = read_published_paradigms(published_paradigms)
    write_tables(scores, read_published(published), paper_paradigms, out_dir)
    paradigms = P.paradigm_systems(scores, paper_paradigms)
    P.figure1(paradigms, figures["figure1"])
    P.figure2(P.figure2_data(scores, read_parquet(dataset)), figures["figure2"])
    P.figure3(paradigms, figures["figure3"])
    P.figure4(paradigms, figures["figure4"])
    P.figure6(P.figure6_data(scores), figures["figure6"])


def test_make_tables_writes_the_bytes_of_whole_score_files(tmp_path) -> None:
    """Each file read for its decisions and Figure 2's token sums only: every table and figure the same bytes."""
    scores, pairs = fake_scores(pairs_per_paradigm=3)
    paths = score_files(tmp_path / "scores", scores)
    dataset = tmp_path / "blimp.parquet"
    pq.write_table(pa.Table.from_pandas(pairs, preserve_index=False), dataset)
    written = {}
    for name, make in (("lean", pipeline.make_tables), ("whole", whole_file_tables)):
        out = tmp_path / name
        make(dataset, paths, RESOURCES / "published.csv", RESOURCES / "published_paradigms.csv", out,
             {figure: out / f"{figure}.png" for figure in pipeline.FIGURES})
        written[name] = {path.name: path.read_bytes() for path in sorted(out.iterdir())}
    assert len(written["lean"]) == 6 + len(pipeline.FIGURES)  # tables 3 and 4 as CSV, Markdown, LaTeX
    assert written["lean"] == written["whole"]
    summary = pipeline.summarise_score_file(paths[0], pairs)  # bert's file: one system
    assert len(summary.tallies) == len(PARADIGMS) and summary.tallies["n_pairs"].sum() == len(pairs)
    assert len(summary.properties) == len(pairs)


def test_tallies_and_properties_of_parts_add_up_to_the_whole() -> None:
    """The tables job reduces each score file on its own: cut anywhere, even through a system's rows,
    the parts' tallies and Figure 2 properties give the accuracies and bins of the whole frame."""
    scores, pairs = fake_scores()
    cuts = [0, 100, len(scores) // 2, len(scores) - 7, len(scores)]
    parts = [scores.iloc[start:stop] for start, stop in itertools.pairwise(cuts)]
    tallies = pd.concat([paradigm_tallies(part) for part in parts], ignore_index=True)
    assert len(tallies) > len(paradigm_tallies(scores))  # some system and paradigm is in two parts
    pd.testing.assert_frame_equal(paradigm_accuracy(tallies), paradigm_accuracy(scores), check_exact=True)
    properties = pd.concat([P.pair_properties(part, pairs) for part in parts], ignore_index=True)
    pd.testing.assert_frame_equal(P.figure2_bins(properties), P.figure2_data(scores, pairs), check_exact=True)


def test_make_generated_table_is_the_comparison_of_whole_score_files(tmp_path) -> None:
    scores, _ = fake_scores(pairs_per_paradigm=3)
    fresh = scores[scores["paradigm"].isin(PREFIX_PARADIGMS["one_prefix"])]
    release = score_files(tmp_path / "release", scores)
    generated = score_files(tmp_path / "generated", fresh.assign(correct=~fresh["correct"]))
    tidy = pipeline.make_generated_table(release, generated, tmp_path / "out")
    whole = [pd.concat([read_parquet(p) for p in paths], ignore_index=True) for paths in (release, generated)]
    pd.testing.assert_frame_equal(tidy, generated_comparison(*whole), check_exact=True)
    rows = tidy[tidy["paradigm"] != MEAN_ROW]
    assert len(rows) == 3 * len(PREFIX_PARADIGMS["one_prefix"])  # gpt's blimp_paper and one_prefix, bert's pll
    assert (rows["release"] + rows["generated"]).to_numpy() == pytest.approx(100.0)  # every decision flipped


def test_a_score_file_without_a_column_the_tables_read_is_named(tmp_path) -> None:
    """Token ids are never read; a missing column the tables read is an error naming file and column."""
    scores, _ = fake_scores(pairs_per_paradigm=1)
    path = tmp_path / "scores.parquet"
    pq.write_table(pa.Table.from_pandas(scores.drop(columns=["correct"]), preserve_index=False), path)
    message = re.escape(f"{path}: column(s) ['correct'] missing")
    with pytest.raises(ValueError, match=message):
        pipeline.summarise_score_file(path, pd.DataFrame(columns=pipeline.FIGURE2_PAIR_COLUMNS))
    with pytest.raises(ValueError, match=message):
        pipeline.make_generated_table([path], [path], tmp_path / "out")


def test_each_figure_names_the_stand_ins_it_draws(tmp_path, published_paradigms) -> None:
    """Figure 6 draws the causal models only; the published systems are never stand-ins, whatever the list holds."""
    scores, pairs = fake_scores(pairs_per_paradigm=3)
    systems = P.paradigm_systems(scores, published_paradigms)
    draws = {
        "figure1": lambda out, stand_ins: P.figure1(systems, out, stand_ins=stand_ins),
        "figure2": lambda out, stand_ins: P.figure2(P.figure2_data(scores, pairs), out, stand_ins=stand_ins),
        "figure3": lambda out, stand_ins: P.figure3(systems, out, stand_ins=stand_ins),
        "figure4": lambda out, stand_ins: P.figure4(systems, out, stand_ins=stand_ins),
        "figure6": lambda out, stand_ins: P.figure6(P.figure6_data(scores), out, stand_ins=stand_ins),
    }
    for name, draw in draws.items():
        assert stand_in_notes(draw(tmp_path / f"{name}.png", ["gpt", "tiny-roberta", "LSTM"])) == [
            STAND_IN_NOTE + "gpt"], name
        expected = [] if name == "figure6" else [STAND_IN_NOTE + "bert"]
        assert stand_in_notes(draw(tmp_path / f"{name}_bert.png", ["bert", "gpt2-large"])) == expected, name
        assert stand_in_notes(draw(tmp_path / f"{name}_real.png", ())) == [], name


# --- many systems ----------------------------------------------------------------------------


def many_systems(count: int, seed: int = 0) -> pd.DataFrame:
    """``paradigm_systems`` of ``count`` reproduced systems, random accuracies (no published ones)."""
    rng = np.random.default_rng(seed)
    rows = [{"system": f"m{i:02d} (blimp_paper)", "source": "reproduction", "model": f"m{i:02d}",
             "method": "blimp_paper", "paradigm": paradigm, "category": PARADIGM_CATEGORY[paradigm],
             "accuracy": rng.uniform(40, 90)} for i in range(count) for paradigm in PARADIGMS]
    return pd.DataFrame(rows, columns=P.PARADIGM_SYSTEM_COLUMNS)


def test_figure1_keeps_its_cells_to_30_systems_then_stays_24_inches_wide(tmp_path) -> None:
    """Up to 30 systems, 0.8 in cells each annotated with r; past that the matrix shrinks its cells to stay
    24 in wide (not one of 18,000 pixels a side, 3 GB, for 185 systems), annotated while a cell is 0.5 in."""
    for count, cell, annotated in ((12, 0.8, True), (60, 0.4, False)):
        fig = P.figure1(many_systems(count), tmp_path / f"{count}.png")
        assert fig.get_size_inches()[1] == pytest.approx(1.0 + cell * count), count
        assert len(fig.axes[0].texts) == (count * count if annotated else 0), count
    assert [P.figure1_cell_inches(count) for count in (30, 48, 400)] == [0.8, 0.5, P.FIGURE1_MIN_CELL]


def test_figure1_greys_pairs_with_too_few_paradigms_in_common(tmp_path) -> None:
    """The one- and two-prefix methods score disjoint paradigms: no r, a grey cell said so under the
    matrix. Two paradigms in common give r = ±1 whatever the accuracies: no r either; three give one."""
    systems = many_systems(3)
    names = list(dict.fromkeys(systems["system"]))
    paradigms = list(PARADIGMS)
    keep = {names[0]: paradigms, names[1]: paradigms[:5], names[2]: paradigms[3:9]}
    systems = systems[[paradigm in keep[system] for system, paradigm in zip(systems["system"], systems["paradigm"])]]
    matrix = P.correlation_matrix(systems)
    assert np.isnan(matrix.loc[names[1], names[2]]) and np.isnan(matrix.loc[names[2], names[1]])
    a, b = (systems[systems["system"] == name].set_index("paradigm")["accuracy"] for name in names[:2])
    assert matrix.loc[names[0], names[1]] == pytest.approx(np.corrcoef(a[paradigms[:5]], b[paradigms[:5]])[0, 1])
    fig = P.figure1(systems, tmp_path / "grey.png")
    ax = fig.axes[0]
    assert ax.get_facecolor()[:3] == pytest.approx(to_rgb(P.FIGURE1_UNDEFINED))
    assert fig.get_supxlabel() == "grey: fewer than 3 paradigms scored by both systems"
    assert len(ax.texts) == 9 - 2
    whole = P.figure1(many_systems(3), tmp_path / "whole.png")
    assert whole.get_supxlabel() == "" and whole.axes[0].get_facecolor()[:3] == pytest.approx((1.0, 1.0, 1.0))


def line_looks(ax) -> list[tuple]:
    return [(line.get_color(), line.get_linestyle(), line.get_marker()) for line in ax.get_lines()
            if line.get_label()[0] != "_"]


def test_figure2_tells_every_system_apart_and_keeps_its_legend_under_the_panels(tmp_path) -> None:
    """Past ten systems a colour comes back with another line style or marker; a legend of 70 systems makes
    the figure taller rather than covering the panels."""
    data = pd.DataFrame([{"system": f"m{i:02d} (pll_original)", "variable": variable, "bin": b, "x": float(b + 1),
                          "accuracy": 50.0 + i % 7, "n": 10} for i in range(70) for variable in P.FIGURE2_VARIABLES
                         for b in range(3)], columns=P.FIGURE2_COLUMNS)
    fig = P.figure2(data, tmp_path / "figure2.png")
    for ax in fig.axes:
        assert len(set(line_looks(ax))) == len(line_looks(ax)) == 70
    FigureCanvasAgg(fig)  # laid out again as drawn (the saved figure was closed)
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    assert fig.legends[0].get_window_extent(renderer).y1 < min(ax.get_tightbbox(renderer).y0 for ax in fig.axes)


def figure2_of(systems: list[tuple[str, str, str]]) -> pd.DataFrame:
    """Figure 2 data of (system, model, method) rows, three bins a property."""
    return pd.DataFrame([{"system": system, "model": model, "method": method, "variable": variable, "bin": b,
                          "x": float(b + 1), "accuracy": 50.0 + i + b, "n": 10}
                         for i, (system, model, method) in enumerate(systems) for variable in P.FIGURE2_VARIABLES
                         for b in range(3)], columns=P.FIGURE2_COLUMNS)


def test_figure2_length_ticks_are_whole_words(tmp_path) -> None:
    data = figure2_of([("m (pll_original)", "m", "pll_original")])
    data.loc[data["variable"] == "length", "x"] = [2.0, 11.0, 20.0]  # the demo's lengths drew ticks at 2.5, 7.5, ...
    fig = P.figure2(data, tmp_path / "figure2.png")
    length = fig.axes[list(P.FIGURE2_VARIABLES).index("length")]
    ticks = [tick for tick in length.get_xticks() if 2 <= tick <= 20]
    assert len(ticks) >= 3 and all(float(tick).is_integer() for tick in ticks)


def test_figure2_colours_each_model_and_styles_each_method_in_every_panel(tmp_path) -> None:
    """Six models under one to five methods and two published systems: a model keeps its colour across its
    methods and the panels, a method its line style and marker across models, the published systems are
    black; the legend below lists the models, then the methods."""
    ours = [(P.system_label(model, method), model, method)
            for model, methods in SYNTHETIC_MODELS.items() for method in methods]
    published = [(P.system_label(model, method, "paper"), model, method)
                 for model, method in (("LSTM", ""), ("gpt2-large", "blimp_paper"))]
    fig = P.figure2(figure2_of(ours + published), tmp_path / "figure2.png")
    colours, styles = {}, {}
    for ax in fig.axes:
        drawn = {line.get_label(): (line.get_color(), line.get_linestyle(), line.get_marker())
                 for line in ax.get_lines() if line.get_label()[0] != "_"}
        assert len(set(drawn.values())) == len(drawn) == 20
        for system, model, method in ours:
            colours.setdefault(model, set()).add(drawn[system][0])
            styles.setdefault(method, set()).add(drawn[system][1:])
        assert {drawn[system][0] for system, _, _ in published} == {"black"}
    assert all(len(colour) == 1 for colour in colours.values()) and len(set.union(*colours.values())) == len(SYNTHETIC_MODELS)
    assert all(len(style) == 1 for style in styles.values()) and len(set.union(*styles.values())) == len(styles)
    assert "black" not in set.union(*colours.values())
    labels = [text.get_text() for text in fig.legends[0].get_texts() if text.get_text()]
    assert labels == ["model", *SYNTHETIC_MODELS, *(system for system, _, _ in published), "method", *styles]


def test_figure2_of_fourteen_models_keeps_each_model_one_colour_the_last_four_hollow(tmp_path) -> None:
    """14 models under two methods: models 11-14 take the colours of 1-4 with hollow markers, and a model's
    two lines share its colour and face in every panel while its methods differ in style."""
    methods = ("pll_original", "pll_within_word_l2r")
    ours = [(P.system_label(f"m{i:02d}", method), f"m{i:02d}", method) for i in range(14) for method in methods]
    fig = P.figure2(figure2_of(ours), tmp_path / "figure2.png")
    for ax in fig.axes:
        drawn = {line.get_label(): line for line in ax.get_lines() if line.get_label()[0] != "_"}
        assert len({(line.get_color(), line.get_linestyle(), line.get_marker(), line.get_markerfacecolor())
                    for line in drawn.values()}) == len(drawn) == 28
        for i in range(14):
            lines = [drawn[P.system_label(f"m{i:02d}", method)] for method in methods]
            assert {line.get_color() for line in lines} == {f"C{i % 10}"}
            hollow = {line.get_markerfacecolor() == "white" for line in lines}
            assert hollow == {i >= 10}, f"m{i:02d}"
            if i < 10:  # filled as before: the face takes the line's colour
                assert {line.get_markerfacecolor() for line in lines} == {f"C{i}"}
            assert {line.get_markersize() for line in lines} == {4.5 if i >= 10 else 3}  # hollow drawn larger
            assert len({(line.get_linestyle(), line.get_marker()) for line in lines}) == 2
    labels = [text.get_text() for text in fig.legends[0].get_texts() if text.get_text()]
    assert labels == ["model", *(f"m{i:02d}" for i in range(14)), "method", *methods]


@pytest.mark.parametrize("draw", ["figure3", "figure4"])
def test_bar_figures_give_each_system_room_for_its_label(draw, tmp_path) -> None:
    fig = getattr(P, draw)(many_systems(60), tmp_path / f"{draw}.png")
    for ax in fig.axes:
        (x0, _), (x1, _) = ax.transData.transform([(0, 0), (1, 0)])
        assert (x1 - x0) / fig.dpi >= 0.25  # inches between neighbouring systems' labels


def test_figure6_gives_each_causal_model_room_for_its_label(tmp_path) -> None:
    data = pd.DataFrame([{"panel": panel, "model": f"gpt2-{i:02d}", "method": method, "accuracy": 60.0, "sd": 5.0,
                          "n": 1}
                         for i in range(20) for panel in (*P.FIGURE6_PHENOMENA, P.ALL_PHENOMENA)
                         for method in ("blimp_paper", "one_prefix")], columns=P.FIGURE6_COLUMNS)
    fig = P.figure6(data, tmp_path / "figure6.png")
    for ax in fig.axes:
        (x0, _), (x1, _) = ax.transData.transform([(0, 0), (1, 0)])
        assert (x1 - x0) / fig.dpi >= 0.25
