"""Antonym negation (oLMpics Section 4.3) generated from WordNet.

WordNet antonym pairs (lemma-level ``!`` pointers) are labelled ``not`` (``It was [MASK] hot, it
was really cold .``), synonym pairs (a synset's first lemma against each of its other lemmas)
``really``. Words are single lower-case alphabetic lemmas (multiword, hyphenated and proper-noun
lemmas are dropped), optionally only those with WordNet tag counts of at least ``min_count``
(the rare-lemma filter; the paper used Google Books frequencies instead) and only those in a
``vocabulary``. Pairs with w1 == w2, and pairs that are both antonyms and synonyms somewhere,
are dropped; a pair is unordered and taken once (the first in synset-name order).

Each split is balanced (half ``not``, half ``really``) and the two splits share no word (as in
the release, whose 918 dev words are none of its train words): the shuffled pairs of each label
go to dev first, then to train those that use no dev word. Templates by part of speech are the
release's; adjective satellites use the adjective template.

ConceptNet's /r/Antonym and /r/Synonym edges are the alternative source
(``generate_antonym_negation_conceptnet``, from the English edge table): only edges whose terms
carry a part of speech (``/c/en/happy/a``) can pick a template, the others are left out.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from nltk.corpus.reader.wordnet import Lemma, WordNetCorpusReader

from lmprobes.suites.olmpics.controls import items_frame, numbered, shuffled_choices
from lmprobes.suites.olmpics.schema import MASK
from lmprobes.suites.olmpics.wordnet import SINGLE_WORD, single_word

TASK = "antonym_negation"
TEMPLATES = {
    "n": ("antonym_negation/noun", f"It was {MASK} a {{w1}}, it was really a {{w2}}."),
    "a": ("antonym_negation/adjective", f"It was {MASK} {{w1}} , it was really {{w2}} ."),
    "v": ("antonym_negation/verb", f"He was {MASK} ready to {{w1}}, He was really ready to {{w2}}."),
}
TEMPLATE_POS = {"n": "n", "a": "a", "s": "a", "v": "v"}  # adverbs have no template
LABELS = {"antonym": "not", "synonym": "really"}
CONCEPTNET_RELATIONS = {"Antonym": "antonym", "Synonym": "synonym"}


@dataclass(frozen=True)
class WordPair:
    relation: str  # "antonym" | "synonym"
    pos: str  # template part of speech: n, a, v
    w1: str
    w2: str
    provenance: dict = field(compare=False, hash=False)  # WordNet lemma names or the ConceptNet edge

    @property
    def key(self) -> tuple[str, str]:
        """The unordered pair of words: what must not repeat within or across splits."""
        return tuple(sorted((self.w1, self.w2)))


def word_pairs(wn: WordNetCorpusReader, *, min_count: int = 0,
               vocabulary: frozenset[str] | None = None) -> dict[str, list[WordPair]]:
    """Usable antonym and synonym pairs, each unordered pair once, ambiguous pairs dropped."""
    found: dict[str, dict[tuple[str, str], WordPair]] = {"antonym": {}, "synonym": {}}
    for synset in sorted(wn.all_synsets(), key=lambda synset: synset.name()):
        pos = TEMPLATE_POS.get(synset.pos())
        if pos is None:
            continue
        lemmas = synset.lemmas()
        for lemma in lemmas:
            for antonym in sorted(lemma.antonyms(), key=Lemma.name):
                add_pair(found["antonym"], "antonym", pos, lemma, antonym, min_count, vocabulary)
        for other in lemmas[1:]:
            add_pair(found["synonym"], "synonym", pos, lemmas[0], other, min_count, vocabulary)
    return without_ambiguous(found)


def add_pair(pairs: dict, relation: str, pos: str, first: Lemma, second: Lemma, min_count: int,
             vocabulary: frozenset[str] | None) -> None:
    w1, w2 = single_word(first, min_count, vocabulary), single_word(second, min_count, vocabulary)
    if w1 is None or w2 is None or w1 == w2:
        return
    pair = WordPair(relation, pos, w1, w2, {"source": "wordnet", "lemma1": _lemma_id(first),
                                            "lemma2": _lemma_id(second)})
    pairs.setdefault(pair.key, pair)


def _lemma_id(lemma: Lemma) -> str:
    return f"{lemma.synset().name()}.{lemma.name()}"


def conceptnet_word_pairs(edges_path: str | Path, *,
                          vocabulary: frozenset[str] | None = None) -> dict[str, list[WordPair]]:
    """Usable pairs from the Antonym and Synonym edges of an EDGE_SCHEMA table, in row order."""
    columns = ["relation", "start_uri", "end_uri", "start_term", "end_term", "start_pos", "end_pos", "row"]
    table = pq.read_table(edges_path, columns=columns)
    table = table.filter(pc.is_in(table["relation"], value_set=pa.array(sorted(CONCEPTNET_RELATIONS), pa.string())))
    found: dict[str, dict[tuple[str, str], WordPair]] = {"antonym": {}, "synonym": {}}
    for edge in sorted(table.to_pylist(), key=lambda edge: edge["row"]):
        w1, w2 = edge["start_term"].lower(), edge["end_term"].lower()
        pos = TEMPLATE_POS.get(edge["start_pos"] or edge["end_pos"] or "")
        usable = all(SINGLE_WORD.fullmatch(word) and (vocabulary is None or word in vocabulary) for word in (w1, w2))
        if pos is None or not usable or w1 == w2:
            continue
        relation = CONCEPTNET_RELATIONS[edge["relation"]]
        pair = WordPair(relation, pos, w1, w2, {"source": "conceptnet", "start": edge["start_uri"],
                                                "end": edge["end_uri"], "row": edge["row"]})
        found[relation].setdefault(pair.key, pair)
    return without_ambiguous(found)


def without_ambiguous(found: dict[str, dict[tuple[str, str], WordPair]]) -> dict[str, list[WordPair]]:
    """Each label's pairs, without those that are antonyms and synonyms both."""
    ambiguous = found["antonym"].keys() & found["synonym"].keys()
    return {relation: [pair for key, pair in pairs.items() if key not in ambiguous]
            for relation, pairs in found.items()}


def split_pairs(pairs: dict[str, list[WordPair]], n_train: int, n_dev: int,
                rng: random.Random) -> dict[str, list[WordPair]]:
    """Balanced splits that share no word: dev takes its half of each label first, then train
    takes the next pairs of each label that use none of dev's words."""
    for name, count in (("n_train", n_train), ("n_dev", n_dev)):
        if count < 0 or count % 2:
            raise ValueError(f"{name} must be an even number >= 0 (half antonyms, half synonyms), got {count}")
    shuffled = {relation: rng.sample(found, len(found)) for relation, found in sorted(pairs.items())}
    per_dev = min([n_dev // 2, *(len(found) for found in shuffled.values())])
    dev = {relation: found[:per_dev] for relation, found in shuffled.items()}
    dev_words = {word for found in dev.values() for pair in found for word in (pair.w1, pair.w2)}
    train = {relation: [pair for pair in found[per_dev:] if not {pair.w1, pair.w2} & dev_words]
             for relation, found in shuffled.items()}
    per_train = min([n_train // 2, *(len(found) for found in train.values())])
    splits = {"dev": [pair for found in dev.values() for pair in found],
              "train": [pair for found in train.values() for pair in found[:per_train]]}
    for split in splits.values():
        rng.shuffle(split)
    return splits


def pair_item(pair: WordPair, rng: random.Random) -> dict:
    template_id, template = TEMPLATES[pair.pos]
    choices, answer = shuffled_choices(rng, LABELS[pair.relation], [label for label in LABELS.values()
                                                                      if label != LABELS[pair.relation]])
    return {
        "stem": template.format(w1=pair.w1, w2=pair.w2), "choices": choices, "answer": answer,
        "template_id": template_id,
        "arguments": {"w1": pair.w1, "w2": pair.w2, "pos": pair.pos, "relation": pair.relation},
        "provenance": pair.provenance,
    }


def antonym_frame(pairs: dict[str, list[WordPair]], *, n_train: int, n_dev: int, seed: int) -> pd.DataFrame:
    """SCHEMA rows from labelled pairs: balanced splits sharing no word, seeded."""
    rng = random.Random(seed)
    splits = split_pairs(pairs, n_train, n_dev, rng)
    rows = []
    for split in ("train", "dev"):
        rows += numbered(TASK, split, [pair_item(pair, rng) for pair in splits[split]], seed)
    return items_frame(rows)


def generate_antonym_negation(wn: WordNetCorpusReader, *, n_train: int, n_dev: int, seed: int,
                              min_count: int = 0, vocabulary: frozenset[str] | None = None) -> pd.DataFrame:
    """SCHEMA rows of the task from WordNet: ``n_dev`` dev and ``n_train`` train items (fewer if
    WordNet has fewer usable pairs; the splits stay balanced), seeded."""
    pairs = word_pairs(wn, min_count=min_count, vocabulary=vocabulary)
    return antonym_frame(pairs, n_train=n_train, n_dev=n_dev, seed=seed)


def generate_antonym_negation_conceptnet(edges_path: str | Path, *, n_train: int, n_dev: int, seed: int,
                                         vocabulary: frozenset[str] | None = None) -> pd.DataFrame:
    """The same task from ConceptNet's Antonym and Synonym edges (the spec's alternative source)."""
    pairs = conceptnet_word_pairs(edges_path, vocabulary=vocabulary)
    return antonym_frame(pairs, n_train=n_train, n_dev=n_dev, seed=seed)
