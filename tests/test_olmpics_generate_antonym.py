"""Antonym negation from the WordNet fixture: balanced labels, real antonyms/synonyms, disjoint pairs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from lmprobes.suites.lama.conceptnet import stream_to_parquet
from lmprobes.suites.olmpics.generate_antonym import (
    WordPair,
    generate_antonym_negation,
    generate_antonym_negation_conceptnet,
    without_ambiguous,
)
from lmprobes.suites.olmpics.schema import SCHEMA
from lmprobes.suites.olmpics.wordnet import load_wordnet

FIXTURE = Path(__file__).parent / "data" / "olmpics_sources" / "wordnet"
ASSERTIONS = Path(__file__).parent / "data" / "olmpics_sources" / "conceptnet_assertions.csv"
STEMS = {
    "n": "It was [MASK] a {w1}, it was really a {w2}.",
    "a": "It was [MASK] {w1} , it was really {w2} .",
    "v": "He was [MASK] ready to {w1}, He was really ready to {w2}.",
}


@pytest.fixture(scope="module")
def wn():
    return load_wordnet(FIXTURE)


@pytest.fixture(scope="module")
def frame(wn) -> pd.DataFrame:
    return generate_antonym_negation(wn, n_train=12, n_dev=8, seed=7)


def label(row) -> str:
    return row["choices"][row["answer"]]


def test_rows_fit_the_schema_and_record_their_origin(frame: pd.DataFrame) -> None:
    pa.Table.from_pandas(frame, schema=SCHEMA, preserve_index=False)
    assert list(frame.columns) == SCHEMA.names
    assert set(frame["flavour"]) == {"generated"} and set(frame["variant"]) == {"standard"}
    assert set(frame["seed"]) == {7}
    assert frame["row_id"].is_unique
    for split, count in (("train", 12), ("dev", 8)):
        assert list(frame[frame["split"] == split]["row"]) == list(range(1, count + 1))
    first = frame.iloc[0]
    assert json.loads(first["provenance"])["source"] == "wordnet"
    assert first["template_id"].startswith("antonym_negation/")


def test_each_split_is_balanced(frame: pd.DataFrame) -> None:
    for split, count in (("train", 12), ("dev", 8)):
        rows = frame[frame["split"] == split]
        assert Counter(label(row) for _, row in rows.iterrows()) == {"not": count // 2, "really": count // 2}
        assert all(sorted(row["choices"]) == ["not", "really"] for _, row in rows.iterrows())


def test_no_pair_repeats_within_or_across_splits(frame: pd.DataFrame) -> None:
    keys = [tuple(sorted((args["w1"], args["w2"]))) for args in map(json.loads, frame["arguments"])]
    assert len(keys) == len(set(keys))
    by_split = {split: {key for key, s in zip(keys, frame["split"]) if s == split} for split in ("train", "dev")}
    assert not by_split["train"] & by_split["dev"]


def split_words(frame: pd.DataFrame) -> dict[str, set[str]]:
    words = {split: set() for split in ("train", "dev")}
    for split, args in zip(frame["split"], map(json.loads, frame["arguments"])):
        words[split] |= {args["w1"], args["w2"]}
    return words


@pytest.mark.parametrize("seed", range(5))
def test_train_and_dev_share_no_word(wn, seed: int) -> None:
    """The release's 918 dev words are none of its train words; here "large" (large/small, big/large)
    or "night" (day/night, night/dark) must not cross, so train takes what dev's words leave."""
    words = split_words(generate_antonym_negation(wn, n_train=100, n_dev=8, seed=seed))
    assert words["train"] and words["dev"] and not words["train"] & words["dev"]


def test_labels_follow_wordnet_and_stems_follow_the_pos_template(frame: pd.DataFrame, wn) -> None:
    for _, row in frame.iterrows():
        args, provenance = json.loads(row["arguments"]), json.loads(row["provenance"])
        assert args["w1"] != args["w2"]
        assert row["stem"] == STEMS[args["pos"]].format(w1=args["w1"], w2=args["w2"])
        lemma1, lemma2 = wn.lemma(provenance["lemma1"]), wn.lemma(provenance["lemma2"])
        assert (lemma1.name(), lemma2.name()) == (args["w1"], args["w2"])
        if label(row) == "not":
            assert lemma2 in lemma1.antonyms()
        else:
            assert lemma1.synset() == lemma2.synset() and lemma1 == lemma1.synset().lemmas()[0]


def test_rare_lemmas_are_dropped_with_min_count(wn) -> None:
    frame = generate_antonym_negation(wn, n_train=0, n_dev=20, seed=0, min_count=1)
    words = {word for args in map(json.loads, frame["arguments"]) for word in (args["w1"], args["w2"])}
    assert words and not words & {"heedful", "heedless", "attentive", "boeuf", "repose"}


def test_too_few_pairs_shrink_the_splits_but_keep_them_balanced(wn) -> None:
    frame = generate_antonym_negation(wn, n_train=100, n_dev=100, seed=0, vocabulary=frozenset(
        {"hot", "cold", "good", "bad", "big", "large", "day", "night", "dark"}))
    labels = Counter((row["split"], label(row)) for _, row in frame.iterrows())
    assert labels == {("dev", "not"): 2, ("dev", "really"): 2}  # 3 antonym, 2 synonym pairs in that vocabulary


def test_same_seed_same_frame_other_seed_other_items(wn, frame: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(frame, generate_antonym_negation(wn, n_train=12, n_dev=8, seed=7))
    other = generate_antonym_negation(wn, n_train=12, n_dev=8, seed=8)
    assert list(other["stem"]) != list(frame["stem"])


def test_odd_sizes_cannot_be_balanced(wn) -> None:
    with pytest.raises(ValueError, match="n_dev must be an even number"):
        generate_antonym_negation(wn, n_train=4, n_dev=3, seed=0)


def test_conceptnet_antonym_and_synonym_edges_as_the_alternative_source(tmp_path: Path) -> None:
    edges = tmp_path / "edges.parquet"
    stream_to_parquet(ASSERTIONS, edges)
    frame = generate_antonym_negation_conceptnet(edges, n_train=8, n_dev=0, seed=0)
    got = {(row["choices"][row["answer"]], row["stem"]) for _, row in frame.iterrows()}
    # Every usable edge: both terms one word with a part of speech; "up/down" (no POS), "ice cream"
    # (two words) and "fast/fast" (w1 == w2) are left out; "sell/buy" repeats "buy/sell".
    assert got == {
        ("not", "It was [MASK] happy , it was really sad ."), ("not", "He was [MASK] ready to buy, He was really ready to sell."),
        ("not", "It was [MASK] a day, it was really a night."), ("not", "It was [MASK] a hot, it was really a cold."),
        ("really", "It was [MASK] big , it was really large ."), ("really", "It was [MASK] happy , it was really glad ."),
        ("really", "He was [MASK] ready to begin, He was really ready to start."),
        ("really", "It was [MASK] a car, it was really a automobile."),
    }
    assert Counter(frame["split"]) == {"train": 8}
    assert all(json.loads(provenance)["source"] == "conceptnet" for provenance in frame["provenance"])
    split = generate_antonym_negation_conceptnet(edges, n_train=4, n_dev=4, seed=0)
    assert Counter(split["split"])["dev"] == 4 and not set.intersection(*split_words(split).values())


def test_the_configured_min_count_reaches_the_generator_and_the_metadata(tmp_path) -> None:
    """``suites.olmpics.wordnet_min_count`` as the rule passes it: the file holds the filtered items."""
    from lmprobes.io import read_metadata, read_parquet
    from lmprobes.suites.olmpics.pipeline import RELEASE_SIZES, make_generated

    out = tmp_path / "antonym_negation.parquet"
    make_generated("antonym_negation", {"wordnet": FIXTURE}, out, seed=3, provenance={}, min_count=1)
    n_train, n_dev = RELEASE_SIZES["antonym_negation"]
    expected = generate_antonym_negation(load_wordnet(FIXTURE), n_train=n_train, n_dev=n_dev, seed=3, min_count=1)
    got = read_parquet(out)
    assert got["stem"].tolist() == expected["stem"].tolist()
    assert got["stem"].tolist() != generate_antonym_negation(
        load_wordnet(FIXTURE), n_train=n_train, n_dev=n_dev, seed=3)["stem"].tolist()
    assert read_metadata(out)["wordnet_min_count"] == 1
    make_generated("age_comparison", {}, tmp_path / "age.parquet", seed=3, provenance={})
    assert "wordnet_min_count" not in read_metadata(tmp_path / "age.parquet")


def test_a_pair_that_is_antonyms_and_synonyms_both_is_dropped_from_both_labels() -> None:
    def pairs(relation: str, *words: tuple[str, str]) -> dict:
        return {tuple(sorted(pair)): WordPair(relation, "a", *pair, {}) for pair in words}

    found = {"antonym": pairs("antonym", ("hot", "cold"), ("fast", "slow")),
             "synonym": pairs("synonym", ("slow", "fast"), ("big", "large"))}
    kept = without_ambiguous(found)
    assert [(pair.w1, pair.w2) for pair in kept["antonym"]] == [("hot", "cold")]
    assert [(pair.w1, pair.w2) for pair in kept["synonym"]] == [("big", "large")]
