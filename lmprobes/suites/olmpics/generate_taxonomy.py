"""Taxonomy conjunction (oLMpics Section 4.4) generated from the WordNet noun hierarchy.

``A {t1} and a {t2} are both a type of [MASK]``: the answer is a hypernym ancestor of both terms,
each distractor an ancestor of exactly one of them (word-level too: a distractor's word is no
lemma of any ancestor of the other term), so exactly one choice fits. No choice is a word the stem
shows (``A brown trout and a chinook ...`` cannot offer ``trout``), as in the release, none of whose
5,909 items has one. An item is drawn by picking
an answer synset A, two of its hyponyms c1 != c2, and a term below (or equal to) each; the
distractor of a term is its nearest ancestor that the other term lacks (the paper notes that
distractors closer to a term than the answer are what models fall for).

Terms are noun synsets named by their first lemma when it is a lower-case word or multiword
expression; answers and distractors are single lower-case words and no shallower than
``min_depth`` in the hierarchy (WordNet's top levels, entity, physical entity, matter ..., are
too general to be answers). Dev = terms in the animal and food trees (``DEV_ROOTS``), train =
all other terms, so terms are disjoint across splits. Dev is drawn first, and no choice (answer
or distractor) of a train item is a choice of a dev item, so the splits share no choice word (as
in the release).
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import dataclass

import pandas as pd
from nltk.corpus.reader.wordnet import Synset, WordNetCorpusReader

from lmprobes.suites.olmpics.controls import items_frame, numbered, shuffled_choices
from lmprobes.suites.olmpics.schema import MASK
from lmprobes.suites.olmpics.wordnet import (
    TERM,
    first_single_word,
    hypernym_closure,
    lemma_word,
    parents,
    synset_words,
)

TASK = "taxonomy_conjunction"
TEMPLATE_ID = "taxonomy_conjunction/both"
TEMPLATE = f"A {{t1}} and a {{t2}} are both a type of {MASK} "  # the release's trailing space
# WordNet 3.0: animal; food as nutrient (food.n.01) and as solid food (food.n.02, where meat,
# cheese and most dishes hang).
DEV_ROOTS = ("animal.n.01", "food.n.01", "food.n.02")
ATTEMPTS_PER_ITEM = 100
WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class TaxonomyItem:
    t1: Synset
    t2: Synset
    answer: Synset
    distractor1: Synset  # an ancestor of t1 only
    distractor2: Synset  # an ancestor of t2 only


class Taxonomy:
    """The noun hierarchy with cached closures, words and depths; ``split`` says a term's split."""

    def __init__(self, wn: WordNetCorpusReader, *, min_depth: int, min_count: int = 0,
                 vocabulary: frozenset[str] | None = None, dev_roots: tuple[str, ...] = DEV_ROOTS) -> None:
        self.min_depth, self.min_count, self.vocabulary = min_depth, min_count, vocabulary
        self.dev_roots = frozenset(dev_roots)
        self._closures: dict[Synset, dict[Synset, int]] = {}
        self._closure_words: dict[Synset, frozenset[str]] = {}
        self._labels: dict[Synset, str | None] = {}
        self.terms = {synset: term for synset in sorted(wn.all_synsets("n"), key=Synset.name)
                      if (term := self.term_word(synset)) is not None}

    @staticmethod
    def term_word(synset: Synset) -> str | None:
        word = lemma_word(synset.lemmas()[0])
        return word if TERM.fullmatch(word) else None

    def closure(self, synset: Synset) -> dict[Synset, int]:
        if synset not in self._closures:
            self._closures[synset] = hypernym_closure(synset)
        return self._closures[synset]

    def closure_words(self, synset: Synset) -> frozenset[str]:
        if synset not in self._closure_words:
            self._closure_words[synset] = frozenset(word for ancestor in self.closure(synset)
                                                    for word in synset_words(ancestor))
        return self._closure_words[synset]

    def label(self, synset: Synset) -> str | None:
        """The synset's answer word, if it may be an answer or distractor at all."""
        if synset not in self._labels:
            usable = synset.min_depth() >= self.min_depth
            self._labels[synset] = first_single_word(synset, self.min_count, self.vocabulary) if usable else None
        return self._labels[synset]

    def split(self, synset: Synset) -> str:
        lineage = {synset.name(), *(ancestor.name() for ancestor in self.closure(synset))}
        return "dev" if lineage & self.dev_roots else "train"

    def groups(self, split: str) -> dict[Synset, dict[Synset, list[Synset]]]:
        """answer candidate A -> child c of A -> the split's terms t with c on a path from t up to A."""
        groups: dict[Synset, dict[Synset, set[Synset]]] = defaultdict(lambda: defaultdict(set))
        for term in self.terms:
            if self.split(term) != split:
                continue
            for child in [term, *self.closure(term)]:
                for parent in parents(child):
                    if self.label(parent) is not None:
                        groups[parent][child].add(term)
        return {answer: {child: sorted(terms, key=Synset.name) for child, terms in children.items()}
                for answer, children in groups.items() if len(children) >= 2}

    def item(self, t1: Synset, t2: Synset, answer: Synset) -> TaxonomyItem | None:
        """The item for the two terms and the answer, or None if they cannot make one."""
        closure1, closure2 = self.closure(t1), self.closure(t2)
        if t1 == t2 or t1 in closure2 or t2 in closure1 or answer not in closure1 or answer not in closure2:
            return None
        shown = self.stem_words(t1) | self.stem_words(t2)
        if self.label(answer) in shown:
            return None
        avoid = {self.label(answer), *synset_words(t1), *synset_words(t2), *shown}
        distractor1 = self.nearest_exclusive(t1, t2, avoid)
        distractor2 = self.nearest_exclusive(t2, t1, avoid)
        if distractor1 is None or distractor2 is None or self.label(distractor1) == self.label(distractor2):
            return None
        return TaxonomyItem(t1, t2, answer, distractor1, distractor2)

    def stem_words(self, term: Synset) -> set[str]:
        """The words the stem shows for ``term`` (``brown trout``: brown, trout): no choice may be one, or
        the stem would spell it out (the release has no such item)."""
        return set(WORD.findall(self.terms[term].lower()))

    def nearest_exclusive(self, term: Synset, other: Synset, avoid: set[str | None]) -> Synset | None:
        """The closest ancestor of ``term`` that neither is nor is named like one of ``other``'s."""
        other_closure, other_words = self.closure(other), self.closure_words(other)
        candidates = [(distance, ancestor.name(), ancestor) for ancestor, distance in self.closure(term).items()
                      if ancestor not in other_closure and (word := self.label(ancestor)) is not None
                      and word not in other_words and word not in avoid]
        return min(candidates)[2] if candidates else None


def choice_words(taxonomy: Taxonomy, item: TaxonomyItem) -> set[str]:
    return {taxonomy.label(synset) for synset in (item.answer, item.distractor1, item.distractor2)}


def sample_items(taxonomy: Taxonomy, split: str, n: int, rng: random.Random,
                 excluded_words: frozenset[str] = frozenset()) -> list[TaxonomyItem]:
    """Up to ``n`` items with distinct term pairs and no choice among ``excluded_words``, by
    seeded rejection sampling."""
    groups = taxonomy.groups(split)
    answers = sorted((answer for answer in groups if taxonomy.label(answer) not in excluded_words), key=Synset.name)
    items: list[TaxonomyItem] = []
    seen: set[frozenset[Synset]] = set()
    for _ in range(n * ATTEMPTS_PER_ITEM if answers else 0):
        if len(items) == n:
            break
        answer = rng.choice(answers)
        children = sorted(groups[answer], key=Synset.name)
        child1, child2 = rng.sample(children, 2)
        t1, t2 = rng.choice(groups[answer][child1]), rng.choice(groups[answer][child2])
        pair = frozenset((t1, t2))
        item = None if pair in seen else taxonomy.item(t1, t2, answer)
        if item is not None and not choice_words(taxonomy, item) & excluded_words:
            seen.add(pair)
            items.append(item)
    return items


def row_item(taxonomy: Taxonomy, item: TaxonomyItem, rng: random.Random) -> dict:
    answer, d1, d2 = (taxonomy.label(synset) for synset in (item.answer, item.distractor1, item.distractor2))
    t1, t2 = taxonomy.terms[item.t1], taxonomy.terms[item.t2]
    choices, index = shuffled_choices(rng, answer, [d1, d2])
    return {
        "stem": TEMPLATE.format(t1=t1, t2=t2), "choices": choices, "answer": index, "template_id": TEMPLATE_ID,
        "arguments": {"t1": t1, "t2": t2},
        "provenance": {"source": "wordnet", "t1": item.t1.name(), "t2": item.t2.name(),
                       "answer": item.answer.name(), "distractors": [item.distractor1.name(), item.distractor2.name()]},
    }


def generate_taxonomy_conjunction(wn: WordNetCorpusReader, *, n_train: int, n_dev: int, seed: int,
                                  min_depth: int = 3, min_count: int = 0, vocabulary: frozenset[str] | None = None,
                                  dev_roots: tuple[str, ...] = DEV_ROOTS) -> pd.DataFrame:
    """SCHEMA rows: up to ``n_dev`` dev items (animal/food terms) and ``n_train`` train items
    (other terms, no choice word of any dev item among their choices), seeded."""
    taxonomy = Taxonomy(wn, min_depth=min_depth, min_count=min_count, vocabulary=vocabulary, dev_roots=dev_roots)
    rng = random.Random(seed)
    dev = sample_items(taxonomy, "dev", n_dev, rng)
    dev_words = frozenset(word for item in dev for word in choice_words(taxonomy, item))
    train = sample_items(taxonomy, "train", n_train, rng, excluded_words=dev_words)
    rows = numbered(TASK, "train", [row_item(taxonomy, item, rng) for item in train], seed)
    rows += numbered(TASK, "dev", [row_item(taxonomy, item, rng) for item in dev], seed)
    return items_frame(rows)
