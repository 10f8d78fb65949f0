"""The WordNet fixture is the real database format, and nltk's reader loads it from a folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import nltk
import pytest
from nltk.corpus.reader.wordnet import WordNetCorpusReader

from lmprobes.suites.olmpics.wordnet import (
    WordNetError,
    first_single_word,
    hypernym_closure,
    load_wordnet,
    single_word,
)

FIXTURE = Path(__file__).parent / "data" / "olmpics_sources" / "wordnet"


@pytest.fixture(scope="module")
def wn() -> WordNetCorpusReader:
    return load_wordnet(FIXTURE)


def test_every_synset_line_starts_with_its_own_byte_offset() -> None:
    # wndb(5): a data line's first field is the byte offset of the line; nltk seeks by it.
    for name in ("data.noun", "data.verb", "data.adj", "data.adv"):
        data = (FIXTURE / name).read_bytes()
        offset = 0
        for line in data.splitlines(keepends=True):
            if not line.startswith(b"  "):
                assert int(line[:8]) == offset, (name, line[:40])
            offset += len(line)


def test_nltk_reader_loads_synsets_hypernyms_antonyms_and_counts(wn: WordNetCorpusReader) -> None:
    assert isinstance(wn, WordNetCorpusReader)
    assert wn.get_version() == "3.0"
    crow = wn.synset("crow.n.01")
    assert crow.hypernyms() == [wn.synset("bird.n.01")]
    assert [synset.name() for synset in crow.hypernym_paths()[0]] == [
        "entity.n.01", "organism.n.01", "animal.n.01", "bird.n.01", "crow.n.01"]
    assert {synset.name() for synset in wn.synset("poultry.n.01").hypernyms()} == {"bird.n.01", "meat.n.01"}
    large = wn.synset("large.a.01")
    assert [lemma.name() for lemma in large.lemmas()] == ["large", "big"]
    assert [[antonym.name() for antonym in lemma.antonyms()] for lemma in large.lemmas()] == [["small"], ["little"]]
    assert wn.synset("quick.s.01").similar_tos() == [wn.synset("fast.a.01")]
    assert [lemma.name() for lemma in wn.synset("win.v.01").lemmas()[0].antonyms()] == ["lose"]
    assert wn.synsets("automobile") == [wn.synset("car.n.01")]
    assert wn.morphy("won", "v") == "win"  # verb.exc
    assert wn.synset("hot.a.01").lemmas()[0].count() > 0  # cntlist.rev
    assert wn.synset("heedful.a.01").lemmas()[0].count() == 0


def test_a_parent_folder_holding_the_extracted_archive_works(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE, tmp_path / "wordnet")
    wn = load_wordnet(tmp_path)
    assert wn.synset("ferry.n.01").hypernyms()[0].name() == "boat.n.01"


def test_loading_never_downloads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("nltk.download called")

    monkeypatch.setattr(nltk, "download", refuse)
    shutil.copytree(FIXTURE, tmp_path / "fresh")
    assert load_wordnet(tmp_path / "fresh").synset("beer.n.01").hypernyms()[0].name() == "alcohol.n.01"


def test_missing_database_file_is_named(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE, tmp_path / "wordnet")
    (tmp_path / "wordnet" / "index.verb").unlink()
    with pytest.raises(WordNetError, match=r"wordnet: not a WordNet database folder, missing index\.verb"):
        load_wordnet(tmp_path / "wordnet")
    with pytest.raises(WordNetError, match="no such WordNet folder"):
        load_wordnet(tmp_path / "absent")


def test_corrupt_index_is_reported_with_the_folder(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE, tmp_path / "wordnet")
    index = tmp_path / "wordnet" / "index.noun"
    index.write_text(index.read_text() + "brokenlemma n x\n")
    with pytest.raises(WordNetError, match="unreadable WordNet database"):
        load_wordnet(tmp_path / "wordnet")


def test_hypernym_closure_has_shortest_distances_through_both_parents(wn: WordNetCorpusReader) -> None:
    closure = {synset.name(): distance for synset, distance in hypernym_closure(wn.synset("poultry.n.01")).items()}
    assert closure == {"bird.n.01": 1, "meat.n.01": 1, "animal.n.01": 2, "food.n.01": 2, "organism.n.01": 3,
                       "entity.n.01": 3}


def test_single_words_drop_multiword_proper_and_rare_lemmas(wn: WordNetCorpusReader) -> None:
    horse, dog = wn.synset("horse.n.01").lemmas(), wn.synset("dog.n.01").lemmas()
    assert single_word(horse[0]) == "horse"
    assert single_word(horse[1]) is None  # Equus_caballus
    assert single_word(dog[1]) is None  # domestic_dog
    assert single_word(wn.synset("loser.n.01").lemmas()[1]) is None  # also-ran
    heedful = wn.synset("heedful.a.01").lemmas()[0]
    assert single_word(heedful) == "heedful" and single_word(heedful, min_count=1) is None
    assert single_word(horse[0], vocabulary=frozenset({"dog"})) is None
    assert first_single_word(wn.synset("floatplane.n.01"), min_count=1) is None


def test_folder_is_the_only_path_added_to_nltk(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE, tmp_path / "only")
    before = list(nltk.data.path)
    load_wordnet(tmp_path / "only")
    added = [entry for entry in nltk.data.path if entry not in before]
    assert added == [str((tmp_path / "only").resolve())]


def test_a_lemma_whose_count_equals_min_count_is_kept(wn: WordNetCorpusReader) -> None:
    """``wordnet_min_count`` is the count a lemma needs: reaching it is enough."""
    horse = wn.synset("horse.n.01").lemmas()[0]
    assert horse.count() > 0
    assert single_word(horse, min_count=horse.count()) == "horse"
    assert single_word(horse, min_count=horse.count() + 1) is None
