"""Ettinger tables: aggregation checked against plain loops over synthetic scores."""

import math
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmprobes.figures import STAND_IN_NOTE, stand_in_notes
from lmprobes.suites.ettinger import datasets as D
from lmprobes.suites.ettinger import tables as T
from written import written_cells

ROOT = Path(__file__).resolve().parents[1]


def fake_scores(items: pd.DataFrame, seed: int, unscorable: set[str] = frozenset()) -> pd.DataFrame:
    """Random probabilities and expected ranks; targets in ``unscorable`` are multi-piece."""
    rng = random.Random(seed)
    rows = []
    for row in items.itertuples(index=False):
        multi = row.target in unscorable
        rank = rng.choice([None, 1, 2, 3, 5, None, None])
        rows.append({
            "row_id": row.row_id,
            "target_prob": math.nan if multi else rng.choice([0.001, 0.02, 0.1, 0.3, 0.0105]),
            "expected_rank": rank,
            "expected_scorable": not any(w in unscorable for w in row.expected),
            "top_tokens": ["a", "b", "c", "d", "e"],
        })
    df = pd.DataFrame(rows)
    df["expected_rank"] = df["expected_rank"].astype("Int32")
    return df


@pytest.fixture(scope="module")
def merged(ettinger_tsvs):
    items = {name: D.build_dataset(name, path, shuffles=4, seed=3) for name, path in ettinger_tsvs.items()}
    data = {}
    for m, (seed, unscorable) in {"m1": (1, set()), "m2": (2, {"monopoly", "served", "fish"})}.items():
        data[m] = {n: T.merge_scores(df, fake_scores(df, seed + i, unscorable)) for i, (n, df) in enumerate(items.items())}
    return data


def value(tidy, table, model, row, column):
    sub = tidy[(tidy.table == table) & (tidy.model == model) & (tidy.row == row) & (tidy.column == column)]
    assert len(sub) == 1, (table, model, row, column)
    return sub.iloc[0]


def hit(rank, k):
    return rank is not pd.NA and rank is not None and not pd.isna(rank) and rank <= k


def test_cprag_accuracy_matches_plain_loop(merged):
    tidy = T.quantitative_tables(merged, 0.01, "exclude")
    df = merged["m1"]["cprag"]
    for k in (1, 5):
        orig = [hit(r.expected_rank, k) for r in df.itertuples() if r.condition == "orig" and r.completion == "expected"]
        assert len(orig) == 34
        assert value(tidy, "table4", "m1", f"k={k}", "Orig")["value"] == pytest.approx(100 * sum(orig) / 34)
        per_run = []
        for run in range(4):
            hits = [hit(r.expected_rank, k) for r in df.itertuples() if r.condition == "shuf" and r.run == run and r.completion == "expected"]
            per_run.append(100 * sum(hits) / len(hits))
        cell = value(tidy, "table4", "m1", f"k={k}", "Shuf")
        assert cell["value"] == pytest.approx(np.mean(per_run))
        assert cell["sd"] == pytest.approx(np.std(per_run))
        for label in ("Orig", "Shuf", "Trunc", "Shuf+Trunc"):
            assert value(tidy, "table4", "m1", f"k={k}", label)["n"] == 34, "contexts, not rows of every run"


def test_cprag_sensitivity_matches_released_rule(merged):
    for policy in ("exclude", "count_as_fail"):
        tidy = T.quantitative_tables(merged, 0.01, policy)
        for model in ("m1", "m2"):
            df = merged[model]["cprag"]
            prefer, strong, n = 0, 0, 0
            for item, g in df[df.condition == "orig"].groupby("item"):
                p = dict(zip(g.completion, g.target_prob))
                e, w, b = p["expected"], p["within_category"], p["between_category"]
                if policy == "exclude" and any(math.isnan(x) for x in (e, w, b)):
                    continue
                n += 1
                if e > w and e > b:
                    prefer += 1
                    if abs(e - w) > 0.01 and abs(e - b) > 0.01:
                        strong += 1
            assert value(tidy, "table5", model, "", "Prefer good")["value"] == pytest.approx(100 * prefer / n)
            assert value(tidy, "table5", model, "", "w/ .01 thresh")["value"] == pytest.approx(100 * strong / n)
            assert value(tidy, "table5", model, "", "Prefer good")["n"] == n
    excluded = T.quantitative_tables(merged, 0.01, "exclude")
    orig = merged["m2"]["cprag"].query("condition == 'orig'")
    with_monopoly = orig[orig.target == "monopoly"]["item"].nunique()
    assert with_monopoly >= 1
    assert value(excluded, "table5", "m2", "", "Prefer good")["n"] == 34 - with_monopoly
    assert value(excluded, "table5", "m2", "", "Prefer good")["unscorable"] >= 1


def test_role_tables(merged):
    tidy = T.quantitative_tables(merged, 0.01, "exclude")
    df = merged["m1"]["role"]
    orig = df[df.condition == "orig"]
    for k in (1, 5):
        hits = [hit(r, k) for r in orig.expected_rank]
        assert value(tidy, "table7", "m1", f"k={k}", "Orig")["value"] == pytest.approx(100 * sum(hits) / 88)
        low = orig[orig.cloze_bin == "<=0.17"]
        assert value(tidy, "table8", "m1", f"k={k}", "<=.17")["n"] == 25
        assert value(tidy, "table8", "m1", f"k={k}", "<=.17")["value"] == pytest.approx(100 * np.mean([hit(r, k) for r in low.expected_rank]))
    a = orig[orig.role == "a"].set_index("pair").target_prob
    b = orig[orig.role == "b"].set_index("pair").target_prob
    assert value(tidy, "table9", "m1", "", "Prefer good")["value"] == pytest.approx(100 * (a > b).mean())
    strong = ((a > b) & ((a - b).abs() > 0.01)).mean()
    assert value(tidy, "table9", "m1", "", "w/ .01 thresh")["value"] == pytest.approx(100 * strong)


def test_the_threshold_must_be_exceeded_and_a_tie_is_no_preference():
    """The paper counts items whose good completion "is higher by greater than" the threshold; the released
    code compares strictly. Differences exact in binary: 0.25 (= the threshold), 0 (a tie), 0.5."""
    probs = {1: (0.5, 0.25), 2: (0.5, 0.5), 3: (0.75, 0.25)}
    role = pd.DataFrame([{"condition": "orig", "pair": pair, "role": role, "target_prob": prob}
                         for pair, both in probs.items() for role, prob in zip("ab", both)])
    cells = {r["column"]: r["value"] for r in T.role_sensitivity("m", role, 0.25, "exclude")}
    assert cells == {"Prefer good": pytest.approx(100 * 2 / 3), "w/ .25 thresh": pytest.approx(100 / 3)}


def test_the_unscorable_note_names_each_models_items_once(merged):
    """The note gives the most unscorable items of any cell of a table per model, not a sum over its cells."""
    tidy = T.quantitative_tables(merged, 0.01, "exclude")
    for table in ("table5", "table7"):
        cells = tidy[(tidy.table == table) & (tidy.model == "m2")]
        assert cells["unscorable"].max() >= 1 and len(cells) > 1, table
        note = T.unscorable_note(tidy, table)
        assert note.strip().endswith(f"(excluded or unhittable): m2: {cells['unscorable'].max()}."), table
    tidy.loc[tidy.model == "m2", "unscorable"] = 0
    assert T.unscorable_note(tidy, "table5") == ""


def test_table8_counts_every_sentence_when_a_cloze_passes_the_last_edge(merged):
    """The released code's top bin has no upper edge: a sentence past .77 is shown, never dropped."""
    role = merged["m1"]["role"].copy()
    first = role.index[role.condition == "orig"][0]
    role.loc[first, "cloze_bin"] = D.cloze_bin(0.9)
    tidy = T.quantitative_tables({"m1": {**merged["m1"], "role": role}}, 0.01, "exclude")
    for k in (1, 5):
        table8 = tidy[(tidy.table == "table8") & (tidy.row == f"k={k}")]
        assert table8["n"].sum() == 88
        assert value(tidy, "table8", "m1", f"k={k}", ">.77")["n"] == 1
    plain = T.quantitative_tables(merged, 0.01, "exclude")
    assert set(plain[plain.table == "table8"].column) == {"<=.17", "<=.23", "<=.33", "<=.77"}


def test_neg_tables(merged):
    tidy = T.quantitative_tables(merged, 0.01, "exclude")
    simp = merged["m1"]["neg_simp"]
    ta = simp[simp.condition == "TA"]
    assert value(tidy, "table11", "m1", "k=5", "Accuracy")["n"] == 18
    assert value(tidy, "table11", "m1", "k=5", "Accuracy")["value"] == pytest.approx(100 * np.mean([hit(r, 5) for r in ta.expected_rank]))
    p = simp.pivot(index="item", columns="condition", values="target_prob")
    assert value(tidy, "table12", "m1", "", "Negative")["value"] == pytest.approx(100 * (p.TN > p.FN).mean())
    nat = merged["m1"]["neg_nat"]
    less = nat[nat.licensing == "N"].pivot(index="item", columns="condition", values="target_prob")
    assert value(tidy, "table14", "m1", "", "Aff. LN")["value"] == pytest.approx(100 * (less.TA > less.FA).mean())
    assert value(tidy, "table14", "m1", "", "Aff. LN")["n"] == 8


def test_cprag_constraint_split_counts_only_the_unperturbed_contexts(merged):
    """Table 4's H/L split: the expected completion of the orig contexts of each constraint, nothing else."""
    tidy = T.quantitative_tables(merged, 0.01, "exclude")
    for model in ("m1", "m2"):
        df = merged[model]["cprag"]
        for k in (1, 5):
            for constraint in ("H", "L"):
                hits, unscorable = [], 0
                for r in df.itertuples():
                    if r.condition == "orig" and r.completion == "expected" and r.constraint == constraint:
                        hits.append(hit(r.expected_rank, k))
                        unscorable += not r.expected_scorable
                cell = value(tidy, "table4_constraint", model, f"k={k}", constraint)
                assert cell["n"] == len(hits) == {"H": 18, "L": 16}[constraint], (model, k, constraint)
                assert cell["value"] == pytest.approx(100 * sum(hits) / len(hits)), (model, k, constraint)
                assert cell["unscorable"] == unscorable, (model, k, constraint)


def test_cprag_unscorable_counts_the_items_of_one_run(merged):
    """A shuffled condition repeats every item once per run: its unscorable count is that of one run."""
    tidy = T.quantitative_tables(merged, 0.01, "exclude")
    df = merged["m2"]["cprag"]
    first_run = {condition: min(r.run for r in df.itertuples() if r.condition == condition)
                 for condition in ("orig", "shuf", "trunc", "shuf_trunc")}
    for condition, label in (("orig", "Orig"), ("shuf", "Shuf"), ("trunc", "Trunc"), ("shuf_trunc", "Shuf+Trunc")):
        unscorable = sum(1 for r in df.itertuples() if r.condition == condition and r.completion == "expected"
                         and r.run == first_run[condition] and not r.expected_scorable)
        runs = {r.run for r in df.itertuples() if r.condition == condition}
        assert unscorable >= 1 and len(runs) == (4 if "shuf" in condition else 1), condition
        for k in (1, 5):
            assert value(tidy, "table4", "m2", f"k={k}", label)["unscorable"] == unscorable, (condition, k)


def plain_true_beats_false(df: pd.DataFrame, true_condition: str, false_condition: str, policy: str) -> tuple[float, int, int]:
    """(percent of items whose true completion is strictly more probable, items counted, items unscorable)."""
    probs: dict = {}
    for r in df.itertuples():
        probs.setdefault(r.item, {})[r.condition] = r.target_prob
    wins, counted, unscorable = 0, 0, 0
    for p in probs.values():
        good, bad = p[true_condition], p[false_condition]
        missing = math.isnan(good) or math.isnan(bad)
        unscorable += missing
        if missing and policy == "exclude":
            continue
        counted += 1
        wins += (not missing) and good > bad
    return 100 * wins / counted, counted, unscorable


@pytest.mark.parametrize("policy", ["exclude", "count_as_fail"])
def test_neg_sensitivity_cells_each_compare_their_own_pair(merged, policy):
    """Table 12: TA > FA (Affirmative), TN > FN (Negative); Table 14 the same per licensing, Y natural (NT),
    N less natural (LN)."""
    tidy = T.quantitative_tables(merged, 0.01, policy)
    pairs = {"Aff.": ("TA", "FA"), "Neg.": ("TN", "FN")}
    for model in ("m1", "m2"):
        simp = merged[model]["neg_simp"]
        for column, pair in (("Affirmative", pairs["Aff."]), ("Negative", pairs["Neg."])):
            percent, counted, unscorable = plain_true_beats_false(simp, *pair, policy)
            cell = value(tidy, "table12", model, "", column)
            assert (cell["value"], cell["n"], cell["unscorable"]) == (pytest.approx(percent), counted, unscorable)
        nat = merged[model]["neg_nat"]
        for licensing, naturalness in (("Y", "NT"), ("N", "LN")):
            for label, pair in pairs.items():
                percent, counted, unscorable = plain_true_beats_false(nat[nat.licensing == licensing], *pair, policy)
                cell = value(tidy, "table14", model, "", f"{label} {naturalness}")
                assert (cell["value"], cell["n"], cell["unscorable"]) == (pytest.approx(percent), counted, unscorable), \
                    (model, label, naturalness)


def test_published_numbers_sit_beside_ours(merged):
    published = pd.read_csv(ROOT / "resources/ettinger/published.csv")
    tidy = T.with_published(T.quantitative_tables(merged, 0.01, "exclude"), published)
    paper = tidy[(tidy.source == "paper") & (tidy.table == "table4") & (tidy.model == "bert-base-uncased")]
    assert set(paper.column) == {"Orig", "Shuf", "Trunc", "Shuf+Trunc"}
    wide = T.wide_table(tidy, "table4")
    row = wide[(wide.model == "bert-base-uncased") & (wide.row == "k=1")].iloc[0]
    assert row["Shuf"] == "14.1 ± 3.1" and row["Orig"] == "23.5"
    assert list(wide.columns) == ["model", "source", "row", "Orig", "Shuf", "Trunc", "Shuf+Trunc"]
    paper_rows = wide[wide.source == "paper"]
    assert list(zip(paper_rows.row, paper_rows.model)) == [
        ("k=1", "bert-base-uncased"), ("k=1", "bert-large-uncased"), ("k=5", "bert-base-uncased"), ("k=5", "bert-large-uncased")
    ], "the paper's Table 4 order"
    for table, column, published_value in (("table9", "Prefer good", "86.4"), ("table14", "Neg. NT", "100.0")):
        wide = T.wide_table(tidy, table)
        paper_row = wide[(wide.model == "bert-large-uncased") & (wide.source == "paper")]
        assert paper_row[column].tolist() == [published_value]
    counts = written_cells(tidy, ["n", "unscorable"])
    assert "34" in counts and all(count.isdigit() for count in counts), "counts written as integers"


def test_a_table_without_row_labels_has_no_row_column(merged):
    """Tables 5, 9, 12 and 14 have no row labels in the paper; the Markdown showed an empty ``row`` column."""
    published = pd.read_csv(ROOT / "resources/ettinger/published.csv")
    tidy = T.with_published(T.quantitative_tables(merged, 0.01, "exclude"), published)
    assert list(T.wide_table(tidy, "table5").columns) == ["model", "source", "Prefer good", "w/ .01 thresh"]
    for table in ("table9", "table12", "table14"):
        assert "row" not in T.wide_table(tidy, table).columns, table
    assert "row" in T.wide_table(tidy, "table4").columns and "row" in T.wide_table(tidy, "table8").columns


def test_the_huggingface_rerun_lines_follow_the_papers_and_ours(merged):
    """spec/ETTINGER.md's rerun of the original code with HuggingFace's BERTs: Table 4 k=1 and Table 5,
    each after the paper's line and ours for the same model; the figure shows only ours and the paper's."""
    published = pd.read_csv(ROOT / "resources/ettinger/published.csv")
    renamed = {"bert-base-uncased": "m1"}  # our fixture model stands in for BERT-base
    tidy = T.with_published(T.quantitative_tables(merged, 0.01, "exclude"),
                            published.replace({"model": renamed}))
    wide = T.wide_table(tidy, "table4")
    lines = wide[(wide.model == "m1") & (wide.row == "k=1")]
    assert lines.source.tolist() == ["paper", "reproduction", "hf_rerun"]
    assert lines.set_index("source").loc[["paper", "hf_rerun"], "Orig"].tolist() == ["23.5", "23.5"]
    large = T.wide_table(tidy, "table5")
    rerun = large[(large.model == "bert-large-uncased") & (large.source == "hf_rerun")]
    assert rerun["Prefer good"].tolist() == ["79.4"] and rerun["w/ .01 thresh"].tolist() == [""]
    with pytest.raises(ValueError, match=r"unknown source\(s\) \['rerun'\]"):
        T.with_published(T.quantitative_tables(merged, 0.01, "exclude"), published.replace({"source": {"hf_rerun": "rerun"}}))


def test_qualitative_tables_pick_the_papers_contexts(merged):
    selection = pd.read_csv(ROOT / "resources/ettinger/qualitative.csv", dtype=str)
    quali = T.qualitative_tables(merged, selection, ["m1"])
    t13 = quali[quali.table == "table13"]
    assert "A hammer is not an ____" in set(t13.context)
    assert set(t13.source) == {"reproduction", "paper"}
    t10 = quali[(quali.table == "table10") & (quali.source == "paper")]
    assert len(t10) == 8


def test_the_figure_names_the_stand_ins_among_our_models_only(merged, tmp_path):
    """The paper's BERTs beside ours are no stand-in, whatever the list holds."""
    from lmprobes.suites.ettinger.plots import accuracy_figure

    published = pd.read_csv(ROOT / "resources/ettinger/published.csv")
    tidy = T.with_published(T.quantitative_tables(merged, 0.01, "exclude"), published)
    drawn = accuracy_figure(tidy, tmp_path / "stand_ins.png", stand_ins=["m2", "bert-base-uncased", "tiny-gpt2"])
    assert stand_in_notes(drawn) == [STAND_IN_NOTE + "m2"]
    assert stand_in_notes(accuracy_figure(tidy, tmp_path / "real.png", stand_ins=["bert-base-uncased"])) == []


def test_the_figure_tells_25_models_apart_and_gives_their_bars_room(tmp_path):
    """Past ten models a colour comes back with a hatch of its own (the paper's bars keep "//"), and a panel
    widens with its bars instead of thinning them."""
    from matplotlib.container import BarContainer

    from lmprobes.suites.ettinger.plots import PANELS, accuracy_figure

    rows = [{"table": table, "source": source, "model": model, "row": f"k={k}", "column": column, "value": 40.0,
             "sd": np.nan, "n": 10, "unscorable": 0}
            for table, _ in PANELS for k in (1, 5) for column in ("Orig", "Shuf", "Trunc", "Shuf+Trunc")
            for source, model in [("paper", "bert-base-uncased")] + [("reproduction", f"m{i:02d}") for i in range(25)]]
    fig = accuracy_figure(pd.DataFrame(rows, columns=T.TIDY_COLUMNS), tmp_path / "accuracy.png")
    for ax in fig.axes:
        series = [bars.patches[0] for bars in ax.containers if isinstance(bars, BarContainer)]
        looks = [(tuple(bar.get_facecolor()), bar.get_hatch()) for bar in series]
        assert len(looks) == len(set(looks)) == 26
        bar = series[0]
        (x0, _), (x1, _) = ax.transData.transform([(0, 0), (bar.get_width(), 0)])
        assert (x1 - x0) / fig.dpi >= 0.03  # inches


def test_a_bar_of_accuracy_zero_is_labelled_and_an_unscored_cell_is_not(tmp_path):
    """A 0% bar draws nothing; its "0" sets it apart from a cell the model was not scored on (NaN)."""
    from matplotlib.colors import to_rgb

    from lmprobes.figures import series_colour
    from lmprobes.suites.ettinger.plots import PANELS, accuracy_figure

    values = {("m1", "Orig"): 0.0, ("m1", "Shuf"): 25.0, ("m2", "Orig"): np.nan, ("m2", "Shuf"): 0.0,
              ("bert-base-uncased", "Orig"): 0.0, ("bert-base-uncased", "Shuf"): 10.0}
    rows = [{"table": table, "source": "paper" if model.startswith("bert") else "reproduction", "model": model,
             "row": "k=1", "column": column, "value": value, "sd": np.nan, "n": 10, "unscorable": 0}
            for table, _ in PANELS for (model, column), value in values.items()]
    fig = accuracy_figure(pd.DataFrame(rows, columns=T.TIDY_COLUMNS), tmp_path / "accuracy.png")
    for ax in fig.axes:
        zeros = [text for text in ax.texts if text.get_text() == "0"]
        assert len(zeros) == 3
        bars = {bars.get_label(): bars for bars in ax.containers if hasattr(bars, "patches")}
        centres = {}
        for name, container in bars.items():
            for patch, column in zip(container.patches, ("k=1 Orig", "k=1 Shuf")):
                centres[round(patch.get_x() + patch.get_width() / 2, 6)] = (name, column)
        labelled = {centres[round(text.xy[0], 6)]: to_rgb(text.get_color()) for text in zeros}
        assert set(labelled) == {("m1", "k=1 Orig"), ("m2", "k=1 Shuf"), ("bert-base-uncased (paper)", "k=1 Orig")}
        assert labelled[("m1", "k=1 Orig")] == to_rgb(series_colour(0))
        assert labelled[("bert-base-uncased (paper)", "k=1 Orig")] == to_rgb(series_colour(2))


def test_the_papers_bars_of_a_model_take_its_colour_lighter_and_hatched(tmp_path):
    """The paper's BERTs and ours read as pairs: a paper line takes the colour of our model of its name
    (the tables' pairing), lighter, hatched and edged in it, in every panel; a paper system none of ours
    matches takes a colour after all of ours."""
    from matplotlib.colors import to_rgb
    from matplotlib.container import BarContainer

    from lmprobes.suites.ettinger.plots import PANELS, accuracy_figure

    ours = ["bert-base-cased", "bert-base-uncased", "bert-large-uncased", "gpt2"]
    paper = ["bert-base-uncased", "bert-large-uncased", "elmo"]
    rows = [{"table": table, "source": source, "model": model, "row": "k=1", "column": "Orig", "value": 40.0,
             "sd": np.nan, "n": 10, "unscorable": 0}
            for table, _ in PANELS for source, model in [("reproduction", m) for m in ours] + [("paper", m) for m in paper]]
    tidy = T.with_published(pd.DataFrame(rows[:0], columns=T.TIDY_COLUMNS), pd.DataFrame(rows))
    fig = accuracy_figure(tidy, tmp_path / "accuracy.png")
    looks = set()
    for ax in fig.axes:
        bars = {bars.get_label(): bars.patches[0] for bars in ax.containers if isinstance(bars, BarContainer)}
        looks.add(tuple((name, bar.get_facecolor(), bar.get_hatch()) for name, bar in bars.items()))
        for model in ("bert-base-uncased", "bert-large-uncased"):
            mine, theirs = bars[model], bars[f"{model} (paper)"]
            assert to_rgb(theirs.get_edgecolor()) == to_rgb(mine.get_facecolor())  # the same hue
            light, full = to_rgb(theirs.get_facecolor()), to_rgb(mine.get_facecolor())
            assert all(a >= b for a, b in zip(light, full)) and sum(light) > sum(full) + 0.5
            assert theirs.get_hatch() == "//" and mine.get_hatch() is None
        colours = [to_rgb(bars[name].get_facecolor()) for name in ours]
        assert len(set(colours)) == len(ours)
        assert to_rgb(bars["elmo (paper)"].get_edgecolor()) not in colours
    assert len(looks) == 1  # every panel alike


def test_the_tables_job_holds_one_models_merged_frames_at_a_time_and_writes_the_all_at_once_tables(
        ettinger_tsvs, tmp_path, monkeypatch):
    """Each model's score files are reduced to its records and picked predictions as they are read
    (60 models' merged frames held together grew the job to 1.6 GB); the tables are those of every
    model's frames at once."""
    import gc
    import weakref

    from lmprobes.suites.ettinger import pipeline as P

    items = {name: D.build_dataset(name, path, shuffles=2, seed=3) for name, path in ettinger_tsvs.items()}
    dataset_paths, score_paths, everything = [], [], {}
    for name, frame in items.items():
        dataset_paths.append(tmp_path / "datasets" / f"{name}.parquet")
        dataset_paths[-1].parent.mkdir(parents=True, exist_ok=True)
        frame.to_parquet(dataset_paths[-1])
    models = ["m1", "m2", "m3"]
    for i, model in enumerate(models):
        (tmp_path / "scores" / model).mkdir(parents=True)
        for j, (name, frame) in enumerate(items.items()):
            scores = fake_scores(frame, 10 * i + j, {"served"} if i == 1 else set())
            score_paths.append(tmp_path / "scores" / model / f"{name}.parquet")
            scores.to_parquet(score_paths[-1])
            everything.setdefault(model, {})[name] = T.merge_scores(frame, scores)

    merged, most_alive = [], [0]
    real_merge = T.merge_scores

    def counted_merge(items, scores):
        frame = real_merge(items, scores)
        merged.append(weakref.ref(frame))
        gc.collect()
        most_alive[0] = max(most_alive[0], sum(ref() is not None for ref in merged))
        return frame

    monkeypatch.setattr(T, "merge_scores", counted_merge)
    published, qualitative = ROOT / "resources/ettinger/published.csv", ROOT / "resources/ettinger/qualitative.csv"
    out = tmp_path / "tables"
    P.make_tables(dataset_paths, score_paths, published, qualitative, out, tmp_path / "accuracy.png", models=models,
                  threshold=0.01, unscorable="exclude", qualitative_model=None)
    assert len(merged) == 3 * 4 and most_alive[0] == 4, "one model's four datasets at a time"

    tidy = T.with_published(T.quantitative_tables(everything, 0.01, "exclude"), pd.read_csv(published))
    for table in T.QUANTITATIVE:
        expected = tidy[tidy["table"] == table].reset_index(drop=True).to_csv(index=False, lineterminator="\n")
        assert (out / f"{table}.csv").read_text() == expected, table
    quali = T.qualitative_tables(everything, pd.read_csv(qualitative, dtype=str), models)
    for table in T.QUALITATIVE:
        expected = quali[quali["table"] == table].drop(columns="table").reset_index(drop=True)
        assert (out / f"{table}.csv").read_text() == expected.to_csv(index=False, lineterminator="\n"), table
