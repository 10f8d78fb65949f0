"""Taxonomy conjunction from the WordNet fixture, checked by walking the fixture's hypernyms."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from lmprobes.suites.olmpics.generate_taxonomy import Taxonomy, generate_taxonomy_conjunction
from lmprobes.suites.olmpics.schema import SCHEMA
from lmprobes.suites.olmpics.wordnet import first_single_word, load_wordnet

FIXTURE = Path(__file__).parent / "data" / "olmpics_sources" / "wordnet"
# People only, built to trip the generator (see TRAP_NOUNS in make_wordnet_fixture.py).
TRAPS = Path(__file__).parent / "data" / "olmpics_sources" / "wordnet_taxonomy_traps"
STEM = re.compile(r"^A (.+) and a (.+) are both a type of \[MASK\] $")


@pytest.fixture(scope="module")
def wn():
    return load_wordnet(FIXTURE)


@pytest.fixture(scope="module")
def frame(wn) -> pd.DataFrame:
    return generate_taxonomy_conjunction(wn, n_train=12, n_dev=15, seed=11, min_depth=1)


def ancestors(synset) -> set:
    """Plain walk up the hypernym pointers (independent of the generator's closure)."""
    found, stack = set(), [synset]
    while stack:
        for parent in stack.pop().hypernyms():
            if parent not in found:
                found.add(parent)
                stack.append(parent)
    return found


def words(synsets) -> set[str]:
    return {lemma.name().lower() for synset in synsets for lemma in synset.lemmas()}


def terms(wn, row) -> tuple:
    """The stem's two terms, resolved to the only fixture synsets carrying those names."""
    t1, t2 = STEM.match(row["stem"]).groups()
    (s1,), (s2,) = wn.synsets(t1.replace(" ", "_"), "n"), wn.synsets(t2.replace(" ", "_"), "n")
    return s1, s2


def test_answer_is_an_ancestor_of_both_and_each_distractor_of_exactly_one(wn, frame: pd.DataFrame) -> None:
    assert len(frame) == 27
    for _, row in frame.iterrows():
        s1, s2 = terms(wn, row)
        words1, words2 = words(ancestors(s1)), words(ancestors(s2))
        answer = row["choices"][row["answer"]]
        assert answer in words1 and answer in words2, row["stem"]
        distractors = [choice for index, choice in enumerate(row["choices"]) if index != row["answer"]]
        assert len(distractors) == 2 and len(set(row["choices"])) == 3
        for distractor in distractors:
            assert (distractor in words1) != (distractor in words2), (row["stem"], distractor)
        assert {distractor in words1 for distractor in distractors} == {True, False}


def test_dev_is_the_animal_and_food_trees_train_the_rest(wn, frame: pd.DataFrame) -> None:
    roots = {wn.synset("animal.n.01"), wn.synset("food.n.01")}
    for _, row in frame.iterrows():
        in_dev_tree = [bool(({synset} | ancestors(synset)) & roots) for synset in terms(wn, row)]
        assert in_dev_tree == [row["split"] == "dev"] * 2, row["stem"]
    answers = {split: {row["choices"][row["answer"]] for _, row in frame[frame["split"] == split].iterrows()}
               for split in ("train", "dev")}
    assert answers["dev"] and answers["train"] and not answers["dev"] & answers["train"]


@pytest.mark.parametrize("seed", range(4))
def test_train_and_dev_share_no_choice_word(wn, seed: int) -> None:
    """As in the release (no word shared). With birds and mammals as dev, "animal" answers dev items
    (a crow and a horse) and would be a train distractor (a fish and an oak are both organisms; the
    fish's nearest ancestor the oak lacks is animal)."""
    frame = generate_taxonomy_conjunction(wn, n_train=40, n_dev=15, seed=seed, min_depth=1,
                                          dev_roots=("bird.n.01", "mammal.n.01"))
    words = {split: {choice for choices in frame[frame["split"] == split]["choices"] for choice in choices}
             for split in ("train", "dev")}
    assert "animal" in words["dev"] and words["train"] and not words["train"] & words["dev"]


def test_term_pairs_are_unique_and_provenance_names_the_synsets(wn, frame: pd.DataFrame) -> None:
    pairs = [frozenset(STEM.match(stem).groups()) for stem in frame["stem"]]
    assert len(pairs) == len(set(pairs))
    for _, row in frame.iterrows():
        provenance = json.loads(row["provenance"])
        assert [provenance["t1"], provenance["t2"]] == [synset.name() for synset in terms(wn, row)]
        assert wn.synset(provenance["answer"]).lemmas()[0].name() == row["choices"][row["answer"]]
        assert row["template_id"] == "taxonomy_conjunction/both"
    pa.Table.from_pandas(frame, schema=SCHEMA, preserve_index=False)


def test_min_depth_keeps_the_top_levels_out_of_the_choices(wn) -> None:
    frame = generate_taxonomy_conjunction(wn, n_train=50, n_dev=50, seed=0, min_depth=2)
    choices = {choice for row in frame["choices"] for choice in row}
    assert choices and not choices & {"entity", "organism", "food", "artifact"}  # depth 0 and 1
    assert all(wn.synsets(choice, "n")[0].min_depth() >= 2 for choice in choices)


def test_same_seed_same_frame_other_seed_other_items(wn, frame: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(frame, generate_taxonomy_conjunction(wn, n_train=12, n_dev=15, seed=11, min_depth=1))
    other = generate_taxonomy_conjunction(wn, n_train=12, n_dev=15, seed=12, min_depth=1)
    assert list(other["stem"]) != list(frame["stem"])


def distances(synset) -> dict:
    """Every ancestor with its shortest hypernym distance, by a plain breadth-first walk."""
    found, frontier, step = {}, [synset], 0
    while frontier:
        step += 1
        frontier = [parent for child in frontier for parent in child.hypernyms() + child.instance_hypernyms()
                    if parent not in found and parent != synset]
        for parent in frontier:
            found.setdefault(parent, step)
    return found


def test_each_distractor_is_the_nearest_ancestor_the_other_term_lacks(wn, frame: pd.DataFrame) -> None:
    """What the paper says models fall for: the closest ancestor of a term that is no ancestor (by
    synset or word) of the other term, the answer or the terms themselves, among usable words."""
    for _, row in frame.iterrows():
        provenance = json.loads(row["provenance"])
        s1, s2 = terms(wn, row)
        answer = row["choices"][row["answer"]]
        for term, other, distractor in ((s1, s2, provenance["distractors"][0]), (s2, s1, provenance["distractors"][1])):
            up, other_up = distances(term), distances(other)
            avoid = words(other_up) | words([s1, s2]) | {answer}
            usable = [distance for ancestor, distance in up.items()
                      if ancestor not in other_up and ancestor.min_depth() >= 1
                      and (word := first_single_word(ancestor)) is not None and word not in avoid]
            assert up[wn.synset(distractor)] == min(usable), (row["stem"], distractor)


@pytest.fixture(scope="module")
def traps():
    return load_wordnet(TRAPS)


def test_a_distractor_named_like_an_ancestor_of_the_other_term_is_passed_over(traps) -> None:
    """Goalkeeper's nearest ancestor that pianist and understudy lack is the game player, but a
    pianist is a player too (a lemma of musician) and so is an understudy (of role player): the
    distractor is the next one up, contestant."""
    taxonomy = Taxonomy(traps, min_depth=2)
    goalkeeper, person = traps.synset("goalkeeper.n.01"), traps.synset("person.n.01")
    assert "player" in words([goalkeeper.hypernyms()[0]])
    for other, other_distractor in (("pianist.n.01", "musician.n.01"), ("understudy.n.01", "performer.n.01")):
        item = taxonomy.item(goalkeeper, traps.synset(other), person)
        assert item is not None and (item.distractor1.name(), item.distractor2.name()) == (
            "contestant.n.01", other_distractor)


def test_a_term_is_never_paired_with_its_own_ancestor(traps) -> None:
    """A player-coach is a player (the game player, player.n.02) and a coach, so under person the two
    hang below different children (contestant, coach). (Every ancestor of an ancestor is the other
    term's too, so the player would have no distractor even without ``item``'s own ancestor check.)"""
    taxonomy = Taxonomy(traps, min_depth=2)
    player, player_coach = traps.synset("player.n.02"), traps.synset("player-coach.n.01")
    person = traps.synset("person.n.01")
    assert player in player_coach.hypernyms()
    assert taxonomy.item(player, player_coach, person) is None
    assert taxonomy.item(player_coach, player, person) is None


def test_trap_items_have_three_words_each_distractor_an_ancestor_of_one_term_only(traps) -> None:
    frame = generate_taxonomy_conjunction(traps, n_train=50, n_dev=0, seed=0, min_depth=2)
    assert {frozenset(STEM.match(stem).groups()) for stem in frame["stem"]} >= {
        frozenset(("goalkeeper", "pianist")), frozenset(("goalkeeper", "understudy"))}
    for _, row in frame.iterrows():  # "player" names three synsets here: read the terms' from the provenance
        provenance = json.loads(row["provenance"])
        s1, s2 = traps.synset(provenance["t1"]), traps.synset(provenance["t2"])
        assert s1 not in ancestors(s2) and s2 not in ancestors(s1), row["stem"]
        assert len(set(row["choices"])) == 3, row["stem"]
        words1, words2 = words(ancestors(s1)), words(ancestors(s2))
        for index, choice in enumerate(row["choices"]):
            expected = {True} if index == row["answer"] else {True, False}
            assert {choice in words1, choice in words2} == expected, (row["stem"], choice)
        assert not words([s1, s2]) & set(row["choices"]), row["stem"]  # a role player is a player too
    terms = {term for stem in frame["stem"] for term in STEM.match(stem).groups()}
    assert "Buffon" not in terms and "goalkeeper" in terms  # a name is no type of anything


def test_no_choice_is_a_word_the_stem_shows(traps) -> None:
    """Offered as a choice, a word of a term's name would be spelt out by the stem (none of the
    release's items has such a choice): a soccer player's nearest ancestor that a referee lacks is the
    player, so its distractor is the next one up, contestant; and the player cannot answer for a chess
    player and a batsman."""
    taxonomy = Taxonomy(traps, min_depth=2)
    soccer_player, person = traps.synset("soccer_player.n.01"), traps.synset("person.n.01")
    assert traps.synset("player.n.02") in soccer_player.hypernyms()
    item = taxonomy.item(soccer_player, traps.synset("referee.n.01"), person)
    assert item is not None and (item.distractor1.name(), item.distractor2.name()) == (
        "contestant.n.01", "official.n.01")
    chess_player, batsman = traps.synset("chess_player.n.01"), traps.synset("batsman.n.01")
    assert taxonomy.item(chess_player, batsman, traps.synset("player.n.02")) is None
    assert taxonomy.item(chess_player, batsman, person) is not None  # under person they make an item
    frame = generate_taxonomy_conjunction(traps, n_train=80, n_dev=0, seed=0, min_depth=2)
    assert any("soccer player" in stem for stem in frame["stem"])
    for stem, choices in zip(frame["stem"], frame["choices"], strict=True):
        assert not set(re.findall(r"[a-z]+", " ".join(STEM.match(stem).groups()))) & set(choices), stem
