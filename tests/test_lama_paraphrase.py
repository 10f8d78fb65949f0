"""LAMA paraphrase robustness: ParaRel's pattern files, the (fact, template) dataset, its scores and
the paraphrase table, each against a plain computation."""

import itertools
import json
import math
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import PARAREL, PARAREL_FOLDER, PARAREL_P19_TEMPLATES, write_pararel

from lmprobes.io import read_metadata, read_parquet
from lmprobes.suites.lama import paraphrases as P
from lmprobes.suites.lama import release as R
from lmprobes.suites.lama import tables as T
from lmprobes.suites.lama.pipeline import make_paraphrase_tables, make_paraphrases
from lmprobes.suites.lama.scoring import score_facts

RELATIONS = ("P19", "P36", "P166")


@pytest.fixture
def release(tmp_path, lama_release_writer):
    return lama_release_writer(tmp_path / "release")


@pytest.fixture
def pararel(tmp_path):
    write_pararel(tmp_path / "pararel")
    return tmp_path / "pararel"


def build(release, pararel, **options):
    return P.build_paraphrases(release, release / "relations.jsonl", release / "common_vocab_cased.txt", pararel,
                               **options)


def lines(path: Path, *records) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


# --- ParaRel's files ---------------------------------------------------------------------------


def test_a_relation_file_gives_its_patterns_in_order_and_ignores_the_other_fields(pararel):
    relation, patterns = P.read_pararel_file(pararel / "pararel-0123456789abcdef" / PARAREL_FOLDER / "P19.jsonl",
                                             RELATIONS)
    assert relation == "P19" and patterns == [p for p, *_ in PARAREL["P19"]]


def test_the_folder_is_found_under_the_archives_top_folder_or_at_its_root(tmp_path, pararel):
    assert P.pararel_folder(pararel) == pararel / "pararel-0123456789abcdef" / PARAREL_FOLDER
    flat = write_pararel(tmp_path / "flat", top=".").resolve()
    assert P.pararel_folder(tmp_path / "flat").resolve() == flat
    write_pararel(pararel, top="pararel-other")
    with pytest.raises(P.ParaphraseError, match="expected one data/pattern_data/graphs_json/ .* found .*pararel-other"):
        P.pararel_folder(pararel)
    with pytest.raises(P.ParaphraseError, match="found none"):
        P.pararel_folder(tmp_path / "flat", "data/patterns")
    with pytest.raises(ValueError, match="relative path"):
        P.pararel_folder(pararel, "../pararel")


@pytest.mark.parametrize("records, message", [
    (['{"pattern": "[X] was born in [Y]."}', '{"pattern": "[X] is from [Y]."'], r"P19\.jsonl:2: not valid JSON"),
    (['{"pattern": "[X] is from [Y].", "pattern": "[X] was from [Y]."}'], r"P19\.jsonl:1: not valid JSON .*twice"),
    (['["[X] is from [Y]."]'], r"P19\.jsonl:1: expected a JSON object"),
    ([{"lemma": "born"}], r"P19\.jsonl:1: missing field 'pattern'"),
    ([{"pattern": ["[X] is from [Y]."]}], r"P19\.jsonl:1: field 'pattern' should be a str"),
    ([{"pattern": "[X] is from [Y]."}, {"pattern": "[X] is from somewhere."}],
     r"P19\.jsonl:2: pattern '\[X\] is from somewhere\.' should hold \[Y\] exactly once, not 0 times"),
    ([{"pattern": "[X] and [X] are from [Y]."}], r"P19\.jsonl:1: .* should hold \[X\] exactly once, not 2 times"),
    ([{"pattern": "[X] is from [Y], [Y]."}], r"P19\.jsonl:1: .* should hold \[Y\] exactly once, not 2 times"),
    ([{"pattern": "[X] is from [Y] in [MASK]."}], r"P19\.jsonl:1: .* holds \[MASK\]"),
    ([{"pattern": "[X] is from [Y].", "relation": "P20"}], r"P19\.jsonl:1: relation 'P20' in a file of relation P19"),
    (["", "  "], r"P19\.jsonl: no patterns"),
])
def test_a_malformed_relation_file_is_refused_naming_file_and_line(tmp_path, records, message):
    path = lines(tmp_path / "P19.jsonl", *records)
    with pytest.raises(P.ParaphraseError, match=message):
        P.read_pararel_file(path, RELATIONS)


def test_bytes_that_are_not_utf8_are_named_with_their_line(tmp_path):
    path = tmp_path / "P19.jsonl"
    path.write_bytes(b'{"pattern": "[X] is from [Y]."}\n{"pattern": "[X] \xff [Y]."}\n')
    with pytest.raises(P.ParaphraseError, match=r"P19\.jsonl:2: not UTF-8"):
        P.read_pararel_file(path, RELATIONS)


@pytest.mark.parametrize("name, message", [
    ("P999.jsonl", r"P999\.jsonl: unknown relation P999: LAMA's relations\.jsonl does not list it"),
    ("p19.jsonl", r"p19\.jsonl: not a ParaRel relation file"),
    ("P19_old.jsonl", r"P19_old\.jsonl: not a ParaRel relation file"),
])
def test_a_file_of_an_unknown_relation_is_refused(tmp_path, pararel, name, message):
    folder = pararel / "pararel-0123456789abcdef" / PARAREL_FOLDER
    lines(folder / name, {"pattern": "[X] shares a border with [Y]."})
    with pytest.raises(P.ParaphraseError, match=message):
        P.load_pararel(folder, RELATIONS)


def test_a_folder_is_read_by_relation_id_other_files_ignored(tmp_path):
    folder = tmp_path / "graphs_json"
    lines(folder / "P1001.jsonl", {"pattern": "[X] applies to [Y]."})
    lines(folder / "P19.jsonl", {"pattern": "[X] is from [Y]."})
    (folder / "README.md").write_text("not a relation file\n", encoding="utf-8")
    assert list(P.load_pararel(folder, ["P19", "P1001"])) == ["P19", "P1001"]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(P.ParaphraseError, match=r"empty: no ParaRel relation files"):
        P.load_pararel(empty, RELATIONS)


# --- templates ---------------------------------------------------------------------------------


def test_templates_start_with_lamas_and_drop_repeats_up_to_whitespace():
    relations = {"P19": {"template": "[X] was born in [Y] ."}, "P36": {"template": "The capital of [X] is [Y] ."}}
    paraphrases = {"P19": ["[X] was born in [Y].", "[X] is from [Y].", " [X]  is from [Y] . ", "[X] is from [Y]!"]}
    assert P.relation_templates(relations, paraphrases) == {
        "P19": ["[X] was born in [Y] .", "[X] is from [Y].", "[X] is from [Y]!"],
        "P36": ["The capital of [X] is [Y] ."],
    }
    spaced = P.relation_templates(relations, {"P19": ["[X] is from [Y].", "[Y], the birthplace of [X]."]}, spacing="lama")
    assert spaced["P19"] == ["[X] was born in [Y] .", "[X] is from [Y] .", "[Y] , the birthplace of [X]."]
    with pytest.raises(ValueError, match="spacing"):
        P.relation_templates(relations, paraphrases, spacing="tight")


def test_template_key_is_case_sensitive_and_ignores_only_whitespace():
    assert P.template_key("[X]  was born in [Y] .") == P.template_key("[X] was born in [Y].")
    assert P.template_key("[X] was born in [Y].") != P.template_key("[X] Was born in [Y].")
    assert P.template_key("[X] was born in [Y].") != P.template_key("[X] was born in [Y]")


# --- the dataset -------------------------------------------------------------------------------


def test_each_fact_is_queried_under_every_template_of_its_relation(release, pararel):
    df = build(release, pararel)
    trex = R.build_corpus("trex", release, release / "relations.jsonl", release / "common_vocab_cased.txt")
    assert len(df) == 4 * 4 + 1, "P19: 4 facts x 4 templates; P36 (no ParaRel file): its fact once"
    assert df["row_id"].is_unique and (df["corpus"] == "trex_paraphrases").all()
    assert list(df.columns) == P.PARAPHRASE_SCHEMA.names
    assert list(df["fact_id"].drop_duplicates()) == list(trex["row_id"]), "release order, a fact's templates together"
    assert list(df["template_id"]) == [0, 1, 2, 3] * 4 + [0]
    assert df.groupby("template_id")["template"].unique().map(list).to_dict() == {
        i: [t] for i, t in enumerate(PARAREL_P19_TEMPLATES)} | {0: [PARAREL_P19_TEMPLATES[0], "The capital of [X] is [Y] ."]}
    allan = df[df["fact_id"] == "trex:P19:1"]
    assert list(allan["query"]) == ["Allan Peiper was born in [MASK] .", "Allan Peiper is originally from [MASK].",
                                    "Allan Peiper was originally from [MASK].", "[MASK] is the birthplace of Allan Peiper."]
    assert list(allan["masked_sentences"].map(list)) == [[q] for q in allan["query"]]
    assert list(allan["n_words"]) == [7, 6, 6, 7]
    assert list(allan["row_id"]) == [f"trex_paraphrases:P19:1:{i}" for i in range(4)]
    assert df.loc[df["relation"] == "P36", "query"].tolist() == ["The capital of France is [MASK] ."]


def test_the_original_template_rows_are_the_trex_corpus_and_every_template_keeps_the_same_facts(release, pararel):
    df = build(release, pararel)
    trex = R.build_corpus("trex", release, release / "relations.jsonl", release / "common_vocab_cased.txt")
    original = df[df["template_id"] == 0].reset_index(drop=True)
    same = [c for c in R.SCHEMA.names if c not in ("row_id", "corpus")]
    pd.testing.assert_frame_equal(original[same], trex[same])
    flags = ["in_common_vocab", "too_long", "judgment_rejected", "duplicate"]
    for _, group in df.groupby("fact_id"):
        assert (group[flags].nunique() == 1).all(), "a fact's filters do not depend on its template"
    assert df["duplicate"].sum() == 4 and R.filter_counts(df)["not_in_common_vocab"] == 4
    # The lowercase mode filters again on the lowercased facts: still per template.
    lower = R.lowercased(df, {"paris", "alexandra"})
    assert lower["duplicate"].sum() == 4 and lower.groupby("fact_id")["duplicate"].nunique().max() == 1
    assert lower.loc[lower["row_id"] == "trex_paraphrases:P19:1:3", "query"].item() == "[MASK] is the birthplace of allan peiper."


def test_every_template_is_filled_with_the_stripped_subject_as_lamas_own(release, pararel, lama_records):
    """The released parse_template call strips the subject; a paraphrase must not keep its spaces."""
    lama_records.jsonl(release / "TREx" / "P19.jsonl", [lama_records.trex("t9", " Ann Lee ", "Paris")])
    queries = build(release, pararel).query("relation == 'P19'")["query"].tolist()
    assert queries == ["Ann Lee was born in [MASK] .", "Ann Lee is originally from [MASK].",
                       "Ann Lee was originally from [MASK].", "[MASK] is the birthplace of Ann Lee."]


def test_spacing_lama_spaces_the_object_from_its_period(release, pararel):
    df = build(release, pararel, spacing="lama")
    allan = df[df["fact_id"] == "trex:P19:1"]
    assert list(allan["query"]) == ["Allan Peiper was born in [MASK] .", "Allan Peiper is originally from [MASK] .",
                                    "Allan Peiper was originally from [MASK] .", "[MASK] is the birthplace of Allan Peiper."]


def test_the_dataset_file_records_templates_filters_and_sources(tmp_path, release, pararel):
    out = tmp_path / "trex_paraphrases.parquet"
    settings = {"folder": PARAREL_FOLDER, "spacing": "as_written"}
    counts = make_paraphrases(release.parent, release / "relations.jsonl", release / "common_vocab_cased.txt", pararel,
                              out, settings=settings, provenance={"paraphrases": {"url": "file:///pararel.zip"}})
    assert counts == {"lines": 17, "too_long": 0, "not_in_common_vocab": 4, "judgment_rejected": 0, "duplicate": 4}
    meta = read_metadata(out)
    assert meta["dataset"] == "trex_paraphrases" and meta["settings"] == settings
    assert meta["build"]["templates"] == {"P19": PARAREL_P19_TEMPLATES, "P36": ["The capital of [X] is [Y] ."]}
    assert meta["build"]["relations_without_paraphrases"] == ["P36"]
    assert meta["build"]["repeated_patterns"] == {"P19": 2, "P166": 0}
    assert meta["sources"] == {"paraphrases": {"url": "file:///pararel.zip"}}
    assert read_parquet(out)["template_id"].dtype == np.int32


# --- scores: the existing scoring path, unchanged ------------------------------------------------


def test_the_original_template_scores_as_the_trex_corpus_does(release, pararel, lama_records, tiny_bert, tiny_gpt2):
    # Objects that are single tokens of the tiny models, one outside the common vocabulary, one repeated.
    lama_records.jsonl(release / "TREx" / "P19.jsonl", [
        lama_records.trex(f"t{i}", sub, obj) for i, (sub, obj) in enumerate(
            [("robin", "bird"), ("oak", "tree"), ("cod", "fish"), ("oak", "tree"), ("ant", "insect")])])
    words = ["bird", "tree", "fish", "flower", "Paris"]
    (release / "common_vocab_cased.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    df = build(release, pararel)
    trex = R.build_corpus("trex", release, release / "relations.jsonl", release / "common_vocab_cased.txt")
    for lm, method in ((tiny_bert, "masked"), (tiny_gpt2, "left_context"), (tiny_gpt2, "candidates")):
        case = "lowercase" if lm is tiny_bert else "cased"
        scores = score_facts(lm, df, words, method=method, case=case, progress=False)
        assert list(scores["row_id"]) == list(df["row_id"]), method
        alone = score_facts(lm, trex, words, method=method, case=case, progress=False)
        original = scores[df["template_id"].to_numpy() == 0].reset_index(drop=True)
        assert list(original["skip_reason"]) == list(alone["skip_reason"]), method
        assert alone["kept"].any(), method
        assert original["rank_raw"].fillna(-1).tolist() == alone["rank_raw"].fillna(-1).tolist(), method
        assert np.allclose(original["gold_logprob"], alone["gold_logprob"], atol=1e-4, equal_nan=True), method
        if method == "masked":  # the object alone decides a masked model's skips
            reasons = scores.assign(fact=df["fact_id"]).groupby("fact")["skip_reason"].nunique()
            assert (reasons == 1).all()


# --- the table -----------------------------------------------------------------------------------

ANSWERS = ["Paris", "Rome", "London", "Berlin", "Oslo"]
# Template i of every relation: a plain one, then "a [Y]" and "an [Y]" (ParaRel's a/an filter).
TEMPLATES = ["[X] was born in [Y] .", "[X] is a [Y] .", "[X] is an [Y] ."]


def hand_made(seed=7):
    """Facts of three relations (3, 1 and 2 templates) and scores of three systems, at random; one
    system keeps no fact of P20, and some facts are skipped under some templates only."""
    rng = random.Random(seed)
    layout = {"P19": (3, 5), "P36": (1, 3), "P20": (2, 4)}  # templates, facts
    rows = []
    for relation, (templates, facts) in layout.items():
        for fact in range(facts):
            for template in range(templates):
                rows.append({"row_id": f"x:{relation}:{fact}:{template}", "corpus": "trex_paraphrases",
                             "relation": relation, "relation_label": f"label {relation}", "relation_type": "N-1",
                             "sub_label": f"s{fact}", "obj_label": "Oslo" if fact % 2 else "Paris",
                             "query": "q [MASK] .", "template": TEMPLATES[template], "template_id": template,
                             "fact_id": f"trex:{relation}:{fact}"})
    dataset = pd.DataFrame(rows)
    scores = []
    for model, method in (("m1", "masked"), ("m2", "left_context"), ("m2", "candidates")):
        records = []
        for row in rows:
            kept = rng.random() < 0.8 and not (model == "m1" and row["relation"] == "P20")
            top = [rng.choice(ANSWERS) for _ in range(3)]
            records.append({"row_id": row["row_id"], "model": model, "method": method, "kept": kept,
                            "skip_reason": "" if kept else "not_single_token",
                            "rank_raw": (1 if top[0] == row["obj_label"] else rng.randint(2, 5)) if kept else None,
                            "top_tokens": top if kept else []})
        frame = pd.DataFrame(records)
        scores.append(frame.assign(rank_raw=frame["rank_raw"].astype("Int32")))
    return dataset, scores


def plain_article_mismatch(template, obj):
    """ParaRel's filter_a_an_vowel_mismatch, restated."""
    words = template.split(" ")
    slot = [i for i, w in enumerate(words) if "[Y]" in w].pop()
    if slot == 0:
        return False
    before = words[slot - 1]
    vowel = obj[0].lower() in "aeiou"
    return (before == "a" and vowel) or (before == "an" and not vowel)


def plain_table(dataset, scores, a_an_filter=True):
    """The paraphrase table by hand: loops over facts, pairs from itertools, consistency as ParaRel's
    analyze_results counts it (agreeing pairs over all pairs of the relation)."""
    facts = {row.row_id: row for row in dataset.itertuples()}
    table = {}
    for frame in scores:
        for (model, method), group in frame.groupby(["model", "method"]):
            system = model if method == "masked" else f"{model} ({method})"
            hits, tops = {}, {}
            for row in group.itertuples():
                fact = facts[row.row_id]
                if row.kept:
                    hits.setdefault((fact.relation, fact.template_id), []).append(float(row.rank_raw == 1))
                    if not (a_an_filter and plain_article_mismatch(fact.template, fact.obj_label)):
                        tops.setdefault((fact.relation, fact.fact_id), []).append(row.top_tokens[0])
            per_relation = {}
            for relation in dataset["relation"].unique():
                p1 = {t: 100 * sum(h) / len(h) for (r, t), h in hits.items() if r == relation}
                agreeing = pairs = 0
                for (r, _), answers in tops.items():
                    if r == relation:
                        for a, b in itertools.combinations(answers, 2):
                            agreeing, pairs = agreeing + (a == b), pairs + 1
                per_relation[relation] = {
                    "p1_original": p1.get(0, math.nan),
                    "p1_mean": sum(p1.values()) / len(p1) if p1 else math.nan,
                    "p1_min": min(p1.values(), default=math.nan), "p1_max": max(p1.values(), default=math.nan),
                    "consistency": 100 * agreeing / pairs if pairs else math.nan,
                }
            total = {key: sum(0.0 if math.isnan(v[key]) else v[key] for v in per_relation.values()) / len(per_relation)
                     for key in ("p1_original", "p1_mean", "p1_min", "p1_max")}
            known = [v["consistency"] for v in per_relation.values() if not math.isnan(v["consistency"])]
            total["consistency"] = sum(known) / len(known) if known else math.nan
            table[system] = {**per_relation, "Total": total}
    return table


@pytest.mark.parametrize("a_an_filter", [True, False])
def test_the_table_equals_a_plain_computation_on_hand_made_scores(a_an_filter):
    dataset, scores = hand_made()
    scored = pd.concat([T.paraphrase_scored(dataset, s) for s in scores], ignore_index=True)
    table = T.paraphrase_table(scored, dataset, a_an_filter=a_an_filter)
    expected = plain_table(dataset, scores, a_an_filter)
    assert list(dict.fromkeys(table["system"])) == ["m1", "m2 (candidates)", "m2 (left_context)"]
    assert list(table["relation"][:4]) == ["P19", "P20", "P36", "Total"], "relations by id, then Total"
    for row in table.itertuples():
        for column in ("p1_original", "p1_mean", "p1_min", "p1_max", "consistency"):
            assert getattr(row, column) == pytest.approx(expected[row.system][row.relation][column], nan_ok=True), (
                row.system, row.relation, column)
    m1 = table[table["system"] == "m1"].set_index("relation")
    assert m1.loc["P20", "n_facts"] == 0 and math.isnan(m1.loc["P20", "p1_mean"]), "nothing kept: no P@1"
    assert m1.loc["P36", "n_templates"] == 1 and math.isnan(m1.loc["P36", "consistency"]), "one template: no pairs"
    assert m1.loc["Total", "n_templates"] == 6 and not math.isnan(m1.loc["Total", "consistency"])
    assert (table["model"] == table["system"].str.split(" ").str[0]).all()


def test_pararels_a_an_filter_reads_the_word_before_the_object_slot():
    assert T.article_mismatch("[X] is a [Y] .", "Oslo") and T.article_mismatch("[X] is an [Y].", "Paris")
    assert not T.article_mismatch("[X] is a [Y] .", "Paris") and not T.article_mismatch("[X] is an [Y] .", "oslo")
    assert T.article_mismatch("[X] is a [Y] .", "university"), "letters, not sounds, as ParaRel"
    assert not T.article_mismatch("[Y] is [X] .", "Oslo") and not T.article_mismatch("[X] is A [Y] .", "Oslo")
    assert not T.article_mismatch("[X] was born in [Y] .", "Oslo")


def test_consistency_counts_agreeing_pairs_of_the_kept_templates_only():
    dataset = pd.DataFrame([
        {"row_id": f"r{t}", "corpus": "trex_paraphrases", "relation": "P19", "relation_label": "", "relation_type": "N-1",
         "sub_label": "s", "obj_label": "Paris", "query": "q", "template": "[X] in [Y] .", "template_id": t,
         "fact_id": "trex:P19:1"}
        for t in range(4)])
    scores = pd.DataFrame({"row_id": ["r0", "r1", "r2", "r3"], "model": "m", "method": "masked",
                           "kept": [True, True, True, False], "skip_reason": ["", "", "", "too_long"],
                           "rank_raw": pd.array([1, 2, 1, None], dtype="Int32"),
                           "top_tokens": [["Paris"], ["Rome"], ["Paris"], []]})
    scored = T.paraphrase_scored(dataset, scores)
    consistency = T.fact_consistency(scored)
    assert consistency[["templates", "pairs", "agreeing"]].values.tolist() == [[3, 3, 1]]
    row = T.paraphrase_table(scored, dataset).iloc[0]
    assert (row["p1_original"], row["p1_mean"], row["p1_min"], row["p1_max"]) == (100.0, 200 / 3, 0.0, 100.0)
    assert row["consistency"] == pytest.approx(100 / 3) and row["n_templates"] == 4 and row["n_facts"] == 1


def test_the_table_files_have_their_header_also_without_scores(tmp_path):
    dataset, scores = hand_made()
    data = tmp_path / "trex_paraphrases.parquet"
    dataset.assign(**{c: None for c in P.PARAPHRASE_SCHEMA.names if c not in dataset}).pipe(
        lambda df: df.to_parquet(data))
    paths = []
    for i, frame in enumerate(scores):
        paths.append(tmp_path / f"scores{i}" / "trex_paraphrases.parquet")
        paths[-1].parent.mkdir()
        frame.to_parquet(paths[-1])
    make_paraphrase_tables(data, paths, tmp_path / "tables")
    csv = pd.read_csv(tmp_path / "tables/paraphrases.csv")
    assert list(csv.columns) == T.PARAPHRASE_COLUMNS and len(csv) == 3 * 4
    markdown = (tmp_path / "tables/paraphrases.md").read_text()
    assert markdown.startswith("## Paraphrase robustness") and "| m2 (candidates) | Total |" in markdown
    assert "Consistency (ParaRel" in markdown and "\\toprule" in (tmp_path / "tables/paraphrases.tex").read_text()
    make_paraphrase_tables(data, [], tmp_path / "empty")
    assert (tmp_path / "empty/paraphrases.csv").read_text().strip() == ",".join(T.PARAPHRASE_COLUMNS)


def test_table2_and_its_kin_never_read_the_paraphrase_corpus(tmp_path, release, pararel):
    """Given the paraphrase files too, make_tables writes the same bytes as without them."""
    from lmprobes.io import write_parquet
    from lmprobes.suites.lama.pipeline import make_tables, write_dataset
    from lmprobes.suites.lama.scoring import SCORE_SCHEMA

    frames = {"trex": (R.build_corpus("trex", release, release / "relations.jsonl",
                                      release / "common_vocab_cased.txt"), R.SCHEMA),
              "trex_paraphrases": (build(release, pararel), P.PARAPHRASE_SCHEMA)}
    datasets, scores = [], []
    for corpus, (frame, schema) in frames.items():
        datasets.append(tmp_path / "datasets" / f"{corpus}.parquet")
        write_dataset(frame, corpus, datasets[-1], provenance={}, schema=schema)
        kept = T.passes_filters(frame).to_numpy()
        n = len(frame)
        rows = pd.DataFrame({"row_id": frame["row_id"], "model": "m", "method": "masked", "kept": kept,
                             "skip_reason": ["" if k else "duplicate" for k in kept], "gold_id": 1, "gold_pieces": 1,
                             "gold_logprob": -1.0, "rank_raw": pd.array([1 if k else None for k in kept], dtype="Int32"),
                             "rank_filtered": pd.array([1 if k else None for k in kept], dtype="Int32"),
                             "n_candidates": pd.array([None] * n, dtype="Int32"), "top_tokens": [["Paris"]] * n,
                             "top_logprobs": [[-1.0]] * n})
        scores.append(tmp_path / "scores" / f"{corpus}.parquet")
        write_parquet(rows, scores[-1], SCORE_SCHEMA, {})
    resources = Path(__file__).resolve().parents[1] / "resources/lama"
    written = {}
    for name, count in (("with", 2), ("without", 1)):
        out = tmp_path / name
        make_tables(datasets[:count], scores[:count], resources / "published.csv", resources / "table3_paper.tsv", out,
                    out / "precision_at_k.png", qualitative_model=None, seed=0)
        written[name] = {p.name: p.read_bytes() for p in sorted(out.glob("*.csv"))}
    assert written["with"] == written["without"] and "table2.csv" in written["with"]


def test_consistency_pools_the_relations_pairs_as_the_report_caption_says():
    """Fact A: 3 kept templates, all agreeing (3 pairs); fact B: 2 that disagree (1 pair). ParaRel's
    share over all pairs is 3/4; a mean of per-fact shares would be 1/2."""
    templates = {"A": 3, "B": 2}
    dataset = pd.DataFrame([
        {"row_id": f"{fact}{t}", "corpus": "trex_paraphrases", "relation": "P19", "relation_label": "",
         "relation_type": "N-1", "sub_label": fact, "obj_label": "Paris", "query": "q", "template": "[X] in [Y] .",
         "template_id": t, "fact_id": f"trex:P19:{fact}"}
        for fact, n in templates.items() for t in range(n)])
    answers = {"A0": "Paris", "A1": "Paris", "A2": "Paris", "B0": "Paris", "B1": "Rome"}
    scores = pd.DataFrame({"row_id": list(answers), "model": "m", "method": "masked", "kept": True, "skip_reason": "",
                           "rank_raw": pd.array([1 if a == "Paris" else 2 for a in answers.values()], dtype="Int32"),
                           "top_tokens": [[a] for a in answers.values()]})
    row = T.paraphrase_table(T.paraphrase_scored(dataset, scores), dataset).iloc[0]
    assert row["consistency"] == pytest.approx(75.0)
    caption = (Path(__file__).parents[1] / "rules/report/lama/paraphrases.rst").read_text(encoding="utf-8")
    assert "averaged over facts" not in caption and "of all the pairs of templates" in caption
