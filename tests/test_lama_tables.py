"""LAMA's tables as plain aggregations: Freq baseline, macro averages per type and corpus, P@k."""

import itertools
import re
from pathlib import Path

import pandas as pd
import pytest

from lmprobes.figures import STAND_IN_NOTE, stand_in_notes
from lmprobes.suites.lama import tables as T
from written import written_cells


def dataset(rows):
    base = {"corpus": "trex", "relation_label": "", "relation_type": "N-1", "sub_label": "s", "query": "q [MASK] .",
            "in_common_vocab": True, "too_long": False, "judgment_rejected": False, "duplicate": False}
    return pd.DataFrame([{**base, "row_id": f"r{i}", **row} for i, row in enumerate(rows)])


def scores(model, method, ranks, filtered=None):
    """Score rows with raw ``ranks``; ``filtered`` (row_id -> rank) gives filtered ranks apart,
    else each is its raw rank."""
    filtered = ranks if filtered is None else filtered
    return pd.DataFrame({"row_id": list(ranks), "model": model, "method": method,
                         "kept": [r is not None for r in ranks.values()],
                         "skip_reason": ["" if r is not None else "not_single_token" for r in ranks.values()],
                         "rank_raw": pd.array(list(ranks.values()), dtype="Int32"),
                         "rank_filtered": pd.array([filtered[row_id] for row_id in ranks], dtype="Int32")})


def test_freq_ranks_objects_by_their_frequency_in_the_relation():
    data = dataset([
        {"relation": "P1", "obj_label": "b"}, {"relation": "P1", "obj_label": "a"}, {"relation": "P1", "obj_label": "a"},
        {"relation": "P1", "obj_label": "c"}, {"relation": "P1", "obj_label": "c", "duplicate": True},
        {"relation": "P2", "obj_label": "z", "in_common_vocab": False}, {"relation": "P2", "obj_label": "y"},
    ])
    freq = T.freq_baseline(data).set_index("row_id")
    # P1 counts (duplicate excluded): a 2, b 1, c 1; b and c tie and are ordered alphabetically.
    assert freq.loc[["r0", "r1", "r2", "r3"], "rank_raw"].tolist() == [2, 1, 1, 3]
    assert not freq.loc["r4", "kept"] and not freq.loc["r5", "kept"]
    assert freq.loc["r6", "rank_raw"] == 1


def test_table2_is_a_macro_average_over_relations_per_type_and_corpus():
    data = dataset([
        {"relation": "P1", "relation_type": "1-1", "obj_label": "x"},
        {"relation": "P2", "relation_type": "N-1", "obj_label": "x"}, {"relation": "P2", "relation_type": "N-1", "obj_label": "y"},
        {"relation": "P2", "relation_type": "N-1", "obj_label": "z"}, {"relation": "P2", "relation_type": "N-1", "obj_label": "w"},
        {"relation": "P3", "relation_type": "N-1", "obj_label": "x"},
    ])
    ranks = {"r0": 1, "r1": 1, "r2": 5, "r3": 20, "r4": None, "r5": 2}
    facts = T.scored_facts(data, scores("m", "masked", ranks))
    table = T.table2(T.per_relation(facts)).set_index(["row"])
    p1 = {"P1": 1.0, "P2": 1 / 3, "P3": 0.0}  # P2: one hit among three kept facts
    assert table.loc["1-1", "p1"] == pytest.approx(100 * p1["P1"])
    assert table.loc["N-1", "p1"] == pytest.approx(100 * (p1["P2"] + p1["P3"]) / 2)
    assert table.loc["Total", "p1"] == pytest.approx(100 * sum(p1.values()) / 3), "macro, not 2/5 micro"
    assert table.loc["Total", "n_facts"] == 6 and table.loc["Total", "n_kept"] == 5
    assert pd.isna(table.loc["N-M", "p1"]) and table.loc["N-M", "n_relations"] == 0


def test_causal_methods_are_separate_systems_and_the_paper_sits_beside():
    data = dataset([{"relation": "P1", "obj_label": "x"}])
    facts = pd.concat([T.scored_facts(data, scores("gpt2", m, {"r0": r})) for m, r in (("left_context", 1), ("candidates", 2))])
    tidy = T.with_published(T.table2(T.per_relation(facts)),
                            pd.DataFrame([{"corpus": "trex", "row": "Total", "model": "bert-base-cased", "value": 31.1,
                                           "n_facts": 34039, "n_relations": 41}]))
    wide = T.table2_wide(tidy, ["trex"]).set_index("row")
    assert wide.loc["Total", "gpt2 (left_context)"] == 100.0 and wide.loc["Total", "gpt2 (candidates)"] == 0.0
    assert wide.loc["Total", "Bb (paper)"] == "31.1", "printed as published"
    total = tidy[tidy["row"] == "Total"].set_index("system")
    assert total.loc["gpt2 (candidates)", ["source", "model", "method"]].tolist() == ["reproduction", "gpt2", "candidates"]
    assert total.loc["Bb (paper)", ["source", "model", "method"]].tolist() == ["paper", "bert-base-cased", "masked"]
    assert list(tidy.columns) == T.TABLE2_COLUMNS
    counts = written_cells(tidy, T.COUNT_COLUMNS)
    assert "34039" in counts and "1" in counts and all(count.isdigit() for count in counts), "written as integers"


def test_precision_curve_equals_a_plain_macro_p_at_k():
    data = dataset([{"relation": "P1", "obj_label": "x"}, {"relation": "P1", "obj_label": "y"},
                    {"relation": "P2", "obj_label": "x"}])
    facts = T.scored_facts(data, scores("m", "masked", {"r0": 1, "r1": 7, "r2": 50}))
    curve = T.precision_curve(facts, ks=[1, 5, 10, 100]).set_index("k")["p_at_k"]
    assert curve.to_dict() == pytest.approx({1: 100 * (0.5 + 0) / 2, 5: 25.0, 10: 100 * (1 + 0) / 2, 100: 100.0})


def test_filter_counts_per_dataset_and_system():
    data = dataset([{"relation": "P1", "obj_label": "x"}, {"relation": "P1", "obj_label": "y"}])
    facts = T.scored_facts(data, scores("m", "masked", {"r0": 1, "r1": None}))
    table = T.filter_counts_table({"trex": {"lines": 2, "duplicate": 0}}, facts)
    got = {(r.system, r.filter): r.facts for r in table.itertuples()}
    assert got == {("dataset", "lines"): 2, ("dataset", "duplicate"): 0, ("m", "not_single_token"): 1, ("m", "kept"): 1}


def test_example_generations_pick_one_seeded_fact_per_relation():
    data = dataset([{"relation": "P1", "obj_label": o} for o in "abcd"])
    ranked = scores("m", "masked", {f"r{i}": i + 1 for i in range(4)})
    ranked["top_tokens"] = [["a", "b"]] * 4
    ranked["top_logprobs"] = [[-0.5, -1.25]] * 4
    facts = T.scored_facts(data, ranked)
    first = T.example_generations(facts, "m", ["trex"], seed=3)
    assert len(first) == 1 and first["generation"].item() == "a [-0.5], b [-1.2]"
    assert first.equals(T.example_generations(facts, "m", ["trex"], seed=3))
    picked = {T.example_generations(facts, "m", ["trex"], seed=s)["answer"].item() for s in range(20)}
    assert len(picked) > 1, "the seed chooses the fact"


def test_bench_command_runs_on_a_tiny_model(capsys):
    from lmprobes.suites.lama.bench import main

    data = Path(__file__).parent / "data"
    main(["--relations", str(data / "trex_raw/relations.jsonl"), "--common-vocab", str(data / "trex_raw/common_vocab_cased.txt"),
          "--vocab", str(data / "bert-base-cased/vocab.txt"), "--facts", "40", "--compare-head", "20", "--tiny"])
    out = capsys.readouterr().out
    assert "score_facts  facts=40 kept=40" in out and "speed-up" in out


def test_table2_counts_empty_relations_0_and_single_file_corpora_per_fact():
    # run_experiments: ConceptNet is one file ("test") scored as one relation, so its corpus score is
    # a mean over facts, not over its 16 predicates; a relation with no kept facts counts 0 (the later
    # released code's fallback), in Table 2 and Figure 2 alike.
    data = dataset([
        {"relation": "P1", "obj_label": "x"}, {"relation": "P1", "obj_label": "y"},
        {"relation": "P2", "obj_label": "z"},
        {"corpus": "conceptnet", "relation": "IsA", "obj_label": "x"},
        {"corpus": "conceptnet", "relation": "AtLocation", "obj_label": "x"},
        {"corpus": "conceptnet", "relation": "AtLocation", "obj_label": "y"},
        {"corpus": "conceptnet", "relation": "AtLocation", "obj_label": "z"},
    ])
    ranks = {"r0": 1, "r1": 2, "r2": None, "r3": 1, "r4": 1, "r5": 3, "r6": 4}
    facts = T.scored_facts(data, scores("m", "masked", ranks))
    table = T.table2(T.per_relation(facts)).set_index(["corpus", "row"])
    assert table.loc[("trex", "Total"), "p1"] == pytest.approx(100 * (0.5 + 0.0) / 2)
    curve = T.precision_curve(facts).set_index("k")["p_at_k"]
    assert curve[1] == pytest.approx(table.loc[("trex", "Total"), "p1"]) and curve[2] == pytest.approx(100 * (1.0 + 0.0) / 2)
    assert table.loc[("trex", "Total"), "n_relations"] == 2
    assert table.loc[("conceptnet", "Total"), "p1"] == pytest.approx(100 * 2 / 4), "mean over facts, not (1 + 1/3) / 2"
    macro = table.loc[("conceptnet", T.MACRO_ROW)]
    assert macro["p1"] == pytest.approx(100 * (1 + 1 / 3) / 2) and macro["n_relations"] == 2 and macro["n_kept"] == 4
    wide = T.table2_wide(T.table2(T.per_relation(facts)), ["trex", "conceptnet"])
    assert list(zip(wide["corpus"], wide["row"]))[-2:] == [("conceptnet", "Total"), ("conceptnet", T.MACRO_ROW)]


def test_conceptnet_gen_is_averaged_as_conceptnet_is():
    """Regenerated ConceptNet: a Total over its facts and the macro row, so it compares with the release's."""
    rows = [{"relation": "IsA", "obj_label": "x"}, {"relation": "AtLocation", "obj_label": "x"},
            {"relation": "AtLocation", "obj_label": "y"}, {"relation": "AtLocation", "obj_label": "z"}]
    data = dataset([{**row, "corpus": corpus} for corpus in ("conceptnet", "conceptnet_gen") for row in rows])
    ranks = {f"r{i}": rank for i, rank in enumerate([1, 1, 3, 4] * 2)}
    table = T.table2(T.per_relation(T.scored_facts(data, scores("m", "masked", ranks)))).set_index(["corpus", "row"])
    for row in ("Total", T.MACRO_ROW):
        assert table.loc[("conceptnet_gen", row), "p1"] == table.loc[("conceptnet", row), "p1"]
    assert table.loc[("conceptnet_gen", "Total"), "p1"] == pytest.approx(100 * 2 / 4)
    wide = T.table2_wide(T.table2(T.per_relation(T.scored_facts(data, scores("m", "masked", ranks)))),
                         ["conceptnet", "conceptnet_gen"])
    assert list(zip(wide["corpus"], wide["row"]))[-2:] == [("conceptnet_gen", "Total"), ("conceptnet_gen", T.MACRO_ROW)]


def test_filtered_freq_drops_the_subjects_other_valid_objects():
    # s1 has two valid objects; NATO (2 facts) ranks above UNESCO (1 fact) in the relation.
    data = dataset([
        {"relation": "P463", "sub_label": "s1", "obj_label": "NATO", "valid_objects": None},
        {"relation": "P463", "sub_label": "s1", "obj_label": "UNESCO", "valid_objects": None},
        {"relation": "P463", "sub_label": "s2", "obj_label": "NATO", "valid_objects": None},
        {"relation": "P463", "sub_label": "s3", "obj_label": "UNESCO", "valid_objects": ["NATO", "WHO"]},
    ])
    freq = T.freq_baseline(data).set_index("row_id")
    assert freq["rank_raw"].tolist() == [1, 2, 1, 2]
    assert freq["rank_filtered"].tolist() == [1, 1, 1, 1]


def test_squad_facts_are_not_each_others_valid_objects():
    # Every SQuAD line has sub_label "Squad": grouping by subject would filter every other answer.
    data = dataset([{"corpus": "squad", "relation": "squad", "sub_label": "Squad", "obj_label": o, "valid_objects": None}
                    for o in ("linebacker", "linebacker", "quarterback", "kicker")])
    freq = T.freq_baseline(data)
    assert freq["rank_raw"].tolist() == [1, 1, 3, 2]  # ties alphabetical: kicker before quarterback
    assert freq["rank_filtered"].tolist() == freq["rank_raw"].tolist()


def test_freq_has_no_squad_score_as_in_the_paper_but_still_gives_its_fact_counts():
    """The paper prints "-" for Freq on SQuAD, whose questions share no relation to count objects in."""
    data = dataset([{"corpus": "squad", "relation": "squad", "sub_label": "Squad", "obj_label": o, "valid_objects": None}
                    for o in ("linebacker", "linebacker", "kicker")] + [{"relation": "P1", "obj_label": "x", "valid_objects": None}])
    facts = pd.concat([T.freq_baseline(data), T.scored_facts(data, scores("m", "masked", {"r0": 1, "r1": 1, "r2": 3,
                                                                                          "r3": 1}))])
    table = T.table2(T.per_relation(facts)).set_index(["corpus", "row", "system"])
    assert pd.isna(table.loc[("squad", "Total", T.FREQ), "p1"])
    assert table.loc[("squad", "Total", "m"), "p1"] == pytest.approx(100 * 2 / 3)
    assert table.loc[("trex", "Total", T.FREQ), "p1"] == 100.0
    wide = T.table2_wide(T.table2(T.per_relation(facts)), ["trex", "squad"]).set_index(["corpus", "row"])
    assert wide.loc[("squad", "Total"), ["lines", "facts"]].tolist() == [3, 3]
    assert pd.isna(wide.loc[("squad", "Total"), T.FREQ])


def test_table2_prints_the_papers_values_with_their_published_decimals():
    """The paper prints Freq's T-REx rows with two decimals (1.78, 23.85, 21.95, 22.03) and the rest
    with one; one-decimal rounding would print 21.95 as 21.9 and 23.85 as 23.9."""
    from lmprobes.io import to_markdown

    published = pd.read_csv(Path(__file__).resolve().parents[1] / "resources/lama/published.csv")
    as_text = pd.read_csv(Path(__file__).resolve().parents[1] / "resources/lama/published.csv", dtype=str)
    data = dataset([{"relation": "P1", "obj_label": "x"}])
    ours = T.table2(T.per_relation(T.scored_facts(data, scores("m", "masked", {"r0": 1}))))
    wide = T.table2_wide(T.with_published(ours, published), ["google_re", "trex", "conceptnet", "squad"])
    cells = wide.set_index(["corpus", "row"])
    paper = as_text[as_text["model"].isin(T.PAPER_SYSTEMS)]
    assert len(paper) == 39
    for corpus, row, model, value in zip(paper["corpus"], paper["row"], paper["model"], paper["value"]):
        assert cells.loc[(corpus, row), T.PAPER_SYSTEMS[model]] == value, (corpus, row, model)
    assert {"23.85", "21.95", "1.78", "22.03"} <= set(cells["Freq (paper)"])
    lines = to_markdown(wide).splitlines()
    assert "| trex | N-M |  |  |  | 21.95 | 16.5 | 24.7 | 24.3 |" in lines
    assert "| trex | Total |  |  | 100.0 | 22.03 | 18.3 | 31.1 | 32.3 |" in lines, "ours rounded as before"
    assert "| squad | Total |  |  |  |  | 3.9 | 14.1 | 17.4 |" in lines, "a value the paper lacks stays empty"


def test_per_relation_reads_p10_and_mrr_from_raw_ranks_and_p1_filtered_from_filtered_ones():
    """Raw and filtered ranks differ on every fact, so a metric read from the wrong one shows."""
    raw = [1, 5, 10, 11, 10000, 10001]
    filtered = [1, 1, 1, 2, 9999, 1]
    data = dataset([{"relation": "P1", "obj_label": f"o{i}"} for i in range(len(raw))])
    ids = [f"r{i}" for i in range(len(raw))]
    facts = T.scored_facts(data, scores("m", "masked", dict(zip(ids, raw)), dict(zip(ids, filtered))))
    row = T.per_relation(facts).set_index("relation").loc["P1"]

    def mean(values):
        return 100 * sum(values) / len(values)

    cutoff = 10000  # the released run ranks the top 10,000; a rank beyond counts 0
    assert row["p1"] == pytest.approx(mean([1.0 if r == 1 else 0.0 for r in raw]))
    assert row["p10"] == pytest.approx(mean([1.0 if r <= 10 else 0.0 for r in raw]))
    assert row["mrr"] == pytest.approx(mean([1 / r if r <= cutoff else 0.0 for r in raw]))
    assert row["p1_filtered"] == pytest.approx(mean([1.0 if r == 1 else 0.0 for r in filtered]))
    assert row["n_kept"] == len(raw)
    table = T.table2(T.per_relation(facts), "p1_filtered").set_index("row")
    assert table.loc["Total", "p1"] == pytest.approx(mean([1.0 if r == 1 else 0.0 for r in filtered]))
    assert T.table2(T.per_relation(facts)).set_index("row").loc["Total", "p1"] == pytest.approx(
        mean([1.0 if r == 1 else 0.0 for r in raw]))


def test_figure2_names_the_stand_ins_it_draws(tmp_path):
    from lmprobes.suites.lama.plots import precision_curve_figure

    curve = pd.DataFrame([{"system": system, "k": k, "p_at_k": 10.0 * k}
                          for system in ("Freq", "tiny-bert", "gpt2 (candidates)") for k in (1, 10)])
    drawn = precision_curve_figure(curve, tmp_path / "stand_ins.png", stand_ins=["gpt2", "tiny-bert", "tiny-roberta"])
    assert stand_in_notes(drawn) == [STAND_IN_NOTE + "gpt2, tiny-bert"]
    assert stand_in_notes(precision_curve_figure(curve, tmp_path / "real.png", stand_ins=["tiny-roberta"])) == []


def two_systems_keeping_different_facts():
    """Four facts of two relations; ``a`` cannot score r1, ``b`` cannot score r3 (Freq keeps all four)."""
    data = dataset([{"relation": "P1", "obj_label": "x"}, {"relation": "P1", "obj_label": "y"},
                    {"relation": "P2", "obj_label": "x"}, {"relation": "P2", "obj_label": "z"}])
    ranks = {"a": {"r0": 1, "r1": None, "r2": 3, "r3": 1}, "b": {"r0": 2, "r1": 1, "r2": 1, "r3": None}}
    facts = pd.concat([T.freq_baseline(data)] + [T.scored_facts(data, scores(m, "masked", r)) for m, r in ranks.items()],
                      ignore_index=True)
    return facts, ranks


def test_shared_fact_set_scores_every_system_on_the_facts_all_keep():
    facts, ranks = two_systems_keeping_different_facts()
    ranks[T.FREQ] = {"r0": 1, "r1": 2, "r2": 1, "r3": 2}  # one fact per object: ties go alphabetically
    relation = {"r0": "P1", "r1": "P1", "r2": "P2", "r3": "P2"}

    def plain_p1(ranked, row_ids):
        """Mean over relations of the share of their facts among ``row_ids`` ranked first (%)."""
        hits = {}
        for row_id in row_ids:
            hits.setdefault(relation[row_id], []).append(ranked[row_id] == 1)
        return 100 * sum(sum(h) / len(h) for h in hits.values()) / len(hits)

    shared = T.shared_facts(facts)
    common = ["r0", "r2"]  # kept by a, b and Freq
    assert sorted(shared.loc[shared["kept"], "row_id"].unique()) == common
    assert shared.groupby("system")["kept"].sum().to_dict() == {"Freq": 2, "a": 2, "b": 2}
    total = T.table2(T.per_relation(shared)).set_index(["system", "row"])
    own = T.table2(T.per_relation(facts)).set_index(["system", "row"])
    for system, ranked in ranks.items():
        assert total.loc[(system, "Total"), "p1"] == pytest.approx(plain_p1(ranked, common)), system
        assert total.loc[(system, "Total"), "n_kept"] == 2
        kept = [r for r in relation if ranked[r] is not None]
        assert own.loc[(system, "Total"), "p1"] == pytest.approx(plain_p1(ranked, kept)), system
    assert total.loc[("a", "Total"), "p1"] == pytest.approx(50.0) and own.loc[("a", "Total"), "p1"] == pytest.approx(75.0)
    reasons = shared[(shared["system"] != T.FREQ) & ~shared["kept"]].set_index(["system", "row_id"])["skip_reason"]
    assert reasons.to_dict() == {("a", "r1"): "not_single_token", ("a", "r3"): T.NOT_SHARED,
                                 ("b", "r1"): T.NOT_SHARED, ("b", "r3"): "not_single_token"}


def test_unequal_fact_sets_are_found_per_corpus():
    facts, _ = two_systems_keeping_different_facts()
    assert T.corpora_with_unequal_fact_sets(facts) == ["trex"]
    assert T.corpora_with_unequal_fact_sets(T.shared_facts(facts)) == []
    assert T.corpora_with_unequal_fact_sets(facts[facts["system"].isin([T.FREQ])]) == []


def tables_of(tmp_path, release, skipped: dict[str, set[str]], name: str, methods: tuple[str, ...] = ("masked",),
              **options) -> Path:
    """``make_tables`` on the fixture release's T-REx, each model in ``skipped`` scored by each of
    ``methods``, keeping the facts past the filters but those row ids; returns the tables folder."""
    from lmprobes.io import write_parquet
    from lmprobes.suites.lama.pipeline import make_tables, write_dataset
    from lmprobes.suites.lama.release import build_corpus
    from lmprobes.suites.lama.scoring import SCORE_SCHEMA

    frame = build_corpus("trex", release, release / "relations.jsonl", release / "common_vocab_cased.txt")
    data = tmp_path / "datasets" / "trex.parquet"
    write_dataset(frame, "trex", data, provenance={})
    paths = []
    for (model, rows), method in itertools.product(skipped.items(), methods):
        kept = T.passes_filters(frame).to_numpy() & ~frame["row_id"].isin(rows).to_numpy()
        n = len(frame)
        paths.append(tmp_path / "scores" / model / method / "trex.parquet")
        write_parquet(pd.DataFrame({
            "row_id": frame["row_id"], "model": model, "method": method, "kept": kept,
            "skip_reason": ["" if k else "not_single_token" for k in kept], "gold_id": 1, "gold_pieces": 1,
            "gold_logprob": -1.0, "rank_raw": pd.array([1 if k else None for k in kept], dtype="Int32"),
            "rank_filtered": pd.array([1 if k else None for k in kept], dtype="Int32"),
            "n_candidates": pd.array([None] * n, dtype="Int32"), "top_tokens": [["Paris"]] * n,
            "top_logprobs": [[-1.0]] * n}), paths[-1], SCORE_SCHEMA, {})
    resources = Path(__file__).resolve().parents[1] / "resources/lama"
    out = tmp_path / name
    make_tables([data], paths, resources / "published.csv", resources / "table3_paper.tsv", out,
                out / "precision_at_k.png", qualitative_model=None, seed=0, **options)
    return out


def test_own_fact_sets_are_flagged_when_systems_keep_different_facts(tmp_path, lama_release_writer):
    from lmprobes.suites.lama.pipeline import SCORE_TABLES, TABLE_TITLES

    release = lama_release_writer(tmp_path / "release")
    alike = tables_of(tmp_path, release, {"m": set(), "n": set()}, "alike")
    unlike = tables_of(tmp_path, release, {"m": set(), "n": {"trex:P19:1"}}, "unlike")
    note = "Systems are scored on different fact sets in trex"
    for name in TABLE_TITLES:
        for ext in ("md", "tex"):
            assert note not in (alike / f"{name}.{ext}").read_text()
            assert (note in (unlike / f"{name}.{ext}").read_text()) == (name in SCORE_TABLES), (name, ext)
        assert "fact_set" not in pd.read_csv(alike / f"{name}.csv").columns
    assert (alike / "table2.md").read_text().startswith(f"## {TABLE_TITLES['table2']}\n\n|")
    assert "suites.lama.fact_set: shared" in (unlike / "table2.md").read_text()


def test_table3_paper_queries_show_their_blank_as_ours_do(tmp_path, lama_release_writer):
    """The paper prints the slot as a blank its text extraction lost ("Patrick Oboya plays in position.")."""
    out = tables_of(tmp_path, lama_release_writer(tmp_path / "release"), {"m": set()}, "blank")
    table3 = pd.read_csv(out / "table3.csv")
    assert (table3["query"].str.count(r"\[MASK\]") == 1).all()
    paper = table3.loc[table3["system"].str.endswith("(paper)"), "query"].tolist()
    assert {"Patrick Oboya plays in [MASK] position.", "Ravens can [MASK] ."} <= set(paper)


def test_shared_fact_set_is_named_in_every_table_and_scores_all_systems_on_one_set(tmp_path, lama_release_writer):
    from lmprobes.suites.lama.pipeline import SHARED_TITLE, TABLE_TITLES

    release = lama_release_writer(tmp_path / "release")
    out = tables_of(tmp_path, release, {"m": set(), "n": {"trex:P19:1"}}, "shared", fact_set="shared")
    for name, title in TABLE_TITLES.items():
        assert (out / f"{name}.md").read_text().startswith(f"## {title}{SHARED_TITLE}\n\n|"), name
        assert SHARED_TITLE.lstrip(", ") in (out / f"{name}.tex").read_text(), name
        csv = pd.read_csv(out / f"{name}.csv")
        reproduction = ~csv["system"].str.endswith("(paper)")
        assert (csv.loc[reproduction, "fact_set"] == "shared").all() and csv.loc[~reproduction, "fact_set"].isna().all()
        assert not re.search(r"\|\s*fact_set\s*\|", (out / f"{name}.md").read_text()), name  # the title says it
    assert "different fact sets" not in (out / "table2.md").read_text()
    total = pd.read_csv(out / "table2.csv").query("source == 'reproduction' and row == 'Total'").set_index("system")
    assert total["n_kept"].to_dict() == {"Freq": 2, "m": 2, "n": 2}  # of three past the filters, trex:P19:1 out
    filters = pd.read_csv(out / "filters.csv").query("system == 'm'").set_index("filter")["facts"]
    assert (filters[T.NOT_SHARED], filters["kept"]) == (1, 2), "m kept trex:P19:1, which n does not"
    with pytest.raises(ValueError, match=r"suites\.lama\.fact_set: 'common'"):
        tables_of(tmp_path, release, {"m": set()}, "bad", fact_set="common")


def test_figure2_says_when_it_is_drawn_over_the_shared_facts(tmp_path):
    from lmprobes.suites.lama.plots import precision_curve_figure

    curve = pd.DataFrame([{"system": "m", "k": k, "p_at_k": 10.0 * k} for k in (1, 10)])
    titles = {shared: precision_curve_figure(curve, tmp_path / f"{shared}.png", shared_facts=shared).axes[0].get_title()
              for shared in (False, True)}
    assert titles == {False: "Mean P@k on T-REx (macro over relations)",
                      True: "Mean P@k on T-REx, shared facts (macro over relations)"}


def test_figure2_tells_25_systems_apart_with_its_legend_beside_the_axes(tmp_path):
    """Past ten lines a colour comes back with a marker; the legend moves out of the axes, in columns, and
    the figure widens for it (13 systems, the full config's, once covered the curves)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from lmprobes.suites.lama.plots import precision_curve_figure

    systems = ["Freq", *(f"m{i:02d}" for i in range(24))]
    curve = pd.DataFrame([{"system": system, "k": k, "p_at_k": float(i + k)} for i, system in enumerate(systems)
                          for k in (1, 10, 100)])
    fig = precision_curve_figure(curve, tmp_path / "many.png")
    ax = fig.axes[0]
    looks = [(line.get_color(), line.get_linestyle(), line.get_marker()) for line in ax.get_lines()]
    assert len(looks) == len(set(looks)) == 25
    FigureCanvasAgg(fig)  # laid out again as drawn (the saved figure was closed)
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    assert ax.get_legend().get_window_extent(renderer).x0 > ax.get_window_extent(renderer).x1
    assert fig.get_size_inches()[0] > 6


def test_figure2_colours_each_model_and_styles_each_method(tmp_path):
    """The curve carries each system's model and method: a model keeps its colour across its methods, a
    method its line style and marker across models, Freq and the paper's systems are black; the legend
    beside the axes lists the models (Freq and the paper's after them), then the methods."""
    from lmprobes.suites.lama.plots import precision_curve_figure

    data = dataset([{"relation": "P1", "obj_label": "x"}, {"relation": "P1", "obj_label": "y"}])
    runs = [("bert-base-cased", "masked"), ("roberta-base", "masked"), ("gpt2", "left_context"), ("gpt2", "candidates"),
            ("gpt2-medium", "left_context"), ("gpt2-medium", "candidates"), ("gpt2-medium", "candidates_mean")]
    facts = pd.concat([T.freq_baseline(data)] + [T.scored_facts(data, scores(m, k, {"r0": 1 + i, "r1": 2}))
                                                 for i, (m, k) in enumerate(runs)], ignore_index=True)
    curve = T.precision_curve(facts, ks=[1, 2, 3])
    assert list(curve.columns) == T.PRECISION_CURVE_COLUMNS
    assert curve.loc[curve["system"] == "gpt2 (candidates)", ["model", "method"]].drop_duplicates().values.tolist() == [
        ["gpt2", "candidates"]]
    paper = curve[curve["system"] == "bert-base-cased"].assign(system="Bb (paper)")
    fig = precision_curve_figure(pd.concat([curve, paper], ignore_index=True), tmp_path / "factored.png")
    ax = fig.axes[0]
    drawn = {line.get_label(): (line.get_color(), line.get_linestyle(), line.get_marker()) for line in ax.get_lines()}
    assert len(set(drawn.values())) == len(drawn) == len(runs) + 2
    colours, styles = {}, {}
    for model, method in runs:
        look = drawn[T.system_name(model, method)]
        colours.setdefault(model, set()).add(look[0])
        styles.setdefault(method, set()).add(look[1:])
    assert all(len(colour) == 1 for colour in colours.values()) and len(set.union(*colours.values())) == 4
    assert all(len(style) == 1 for style in styles.values()) and len(set.union(*styles.values())) == 4
    assert drawn["Freq"][:2] == ("black", "--") and drawn["Bb (paper)"][0] == "black"
    assert "black" not in set.union(*colours.values())
    labels = [text.get_text() for text in ax.get_legend().get_texts() if text.get_text()]
    assert labels == ["model", "bert-base-cased", "gpt2", "gpt2-medium", "roberta-base", "Freq", "Bb (paper)",
                      "method", "masked", "candidates", "left_context", "candidates_mean"]


def test_table2_of_many_systems_is_shown_in_parts_led_by_its_row_labels(tmp_path, lama_release_writer):
    """30 models beside Freq and (Table 2) the paper's 4: 35 and 31 system columns, two parts, each
    repeating the references where the whole table has them (Freq first, the paper's last); up to 30
    columns one table."""
    from lmprobes.io import MAX_SYSTEM_COLUMNS

    release = lama_release_writer(tmp_path / "release")
    out = tables_of(tmp_path, release, {f"m{i:02d}": set() for i in range(30)}, "many")
    for name, labels, references in (
        ("table2", "| corpus | row | lines | facts | ", "5 reference columns"),
        ("table2_uhn", "| corpus | row | subset | lines | facts | ", "1 reference column"),
    ):
        md = (out / f"{name}.md").read_text()
        assert [line for line in md.splitlines() if line.startswith("### ")] == [
            f"### Part 1 of 2: systems 1-15 of 30, with the {references}",
            f"### Part 2 of 2: systems 16-30 of 30, with the {references}"]
        headers = [line for line in md.splitlines() if line.startswith("| corpus |")]
        assert len(headers) == 2 and all(line.startswith(labels + "Freq | m") for line in headers), name
        assert headers[0].startswith(labels + "Freq | m00 |") and headers[1].startswith(labels + "Freq | m15 |"), name
        assert (out / f"{name}.tex").read_text().count(r"\begin{tabular}") == 2, name
    paper = " | ".join(T.PAPER_SYSTEMS.values())
    first, second = [line for line in (out / "table2.md").read_text().splitlines() if line.startswith("| corpus |")]
    assert first.endswith(f"| m14 | {paper} |") and second.endswith(f"| m29 | {paper} |")
    assert "### Part" not in (out / "relations.md").read_text(), "a line per system and relation: no parts"
    few = tables_of(tmp_path, release, {f"m{i:02d}": set() for i in range(MAX_SYSTEM_COLUMNS - 5)}, "few")
    assert "### Part" not in (few / "table2.md").read_text()


def test_table2_parts_keep_a_causal_models_methods_together(tmp_path, lama_release_writer):
    """13 causal models of two methods beside Freq and the paper's 4: 31 columns; 16 a part would
    end the first with g07's first method."""
    release = lama_release_writer(tmp_path / "release")
    out = tables_of(tmp_path, release, {f"g{i:02d}": set() for i in range(13)}, "causal",
                    methods=("left_context", "candidates"))
    headers = [line.strip("| ").split(" | ")[4:] for line in (out / "table2.md").read_text().splitlines()
               if line.startswith("| corpus |")]
    systems = [[T.system_name(f"g{i:02d}", method) for i in models for method in ("candidates", "left_context")]
               for models in (range(7), range(7, 13))]
    assert headers == [[T.FREQ, *part, *T.PAPER_SYSTEMS.values()] for part in systems]


def test_table2_orders_systems_by_model_then_method(tmp_path, lama_release_writer):
    """A Python caller's model named ``g (d)`` sorts, as a system, between ``g``'s two methods: the
    columns still keep each model's methods side by side."""
    release = lama_release_writer(tmp_path / "release")
    out = tables_of(tmp_path, release, {"g": set(), "g (d)": set()}, "names", methods=("left_context", "candidates"))
    header = next(line for line in (out / "table2.md").read_text().splitlines() if line.startswith("| corpus |"))
    assert header.strip("| ").split(" | ")[4:9] == [T.FREQ, "g (candidates)", "g (left_context)", "g (d) (candidates)",
                                                     "g (d) (left_context)"]


def test_table2_columns_name_the_references_and_each_systems_model() -> None:
    tidy = pd.DataFrame({"source": ["reproduction"] * 3 + ["paper"], "model": ["Freq", "g", "g", "Txl"],
                         "system": ["Freq", "g (candidates)", "g (left_context)", "Txl (paper)"]})
    layout = T.table2_columns(tidy, pd.DataFrame(columns=["corpus", "row", "lines", "facts", *tidy["system"]]))
    assert layout.labels == 4 and layout.references >= {"Freq", "Txl (paper)", "Bl (paper)"}
    assert layout.models["g (candidates)"] == layout.models["g (left_context)"] == "g"


def test_row_labels_are_the_leading_label_columns_only() -> None:
    # A system whose name is also a label's ("facts") is a system column, not one more row label.
    wide = pd.DataFrame(columns=["corpus", "row", "bert-base-cased", "facts"])
    assert T.row_label_count(wide) == 2
