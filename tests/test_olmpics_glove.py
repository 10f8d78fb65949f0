"""Word tokenisation and GloVe reading (plain, gzip, zip archive) for the oLMpics baselines.

``tests/data/glove/glove.6B.50d.txt`` is a made-up 72-word GloVe file (vector values from SHA-256 of
"word:k"), also used by the workflow demo.
"""

from __future__ import annotations

import gzip
import zipfile
from pathlib import Path

import pytest
import torch

from lmprobes.suites.olmpics.glove import GloveError, embedding_matrix, read_glove, tokenize

FIXTURE = Path(__file__).parent / "data" / "glove" / "glove.6B.50d.txt"


def plain_vectors() -> dict[str, list[float]]:
    """The fixture read with a naive split, independently of read_glove."""
    vectors = {}
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        word, *values = line.split(" ")
        vectors[word] = [float(value) for value in values]
    return vectors


@pytest.mark.parametrize(("text", "tokens"), [
    ("what usually used for fun and is usually located at toy store",
     ["what", "usually", "used", "for", "fun", "and", "is", "usually", "located", "at", "toy", "store"]),
    ("A 15 year old person age is @@ than a 16 year old person .",
     ["a", "15", "year", "old", "person", "age", "is", "@@", "than", "a", "16", "year", "old", "person", "."]),
    ("It was [MASK] a dog, it wasn't a cat's toy!",
     ["it", "was", "[", "mask", "]", "a", "dog", ",", "it", "was", "n't", "a", "cat", "'s", "toy", "!"]),
    ("Well-known MP3s cost 3.5 or 1,000?", ["well", "-", "known", "mp3s", "cost", "3.5", "or", "1,000", "?"]),
    ("when did the band where Slobodan Kovac\u030cevic\u0301 played first form?",
     ["when", "did", "the", "band", "where", "slobodan", "kova\u010devi\u0107", "played", "first", "form", "?"]),
    ("", []),
])
def test_tokenize_splits_words_numbers_punctuation_and_keeps_the_mask_stand_in(text, tokens):
    assert tokenize(text) == tokens


def test_read_glove_returns_every_word_in_file_order_with_its_vector():
    words, vectors = read_glove(FIXTURE)
    expected = plain_vectors()
    assert words == list(expected)
    assert vectors.shape == (72, 50) and vectors.dtype == torch.float32
    for row, word in enumerate(words):
        assert vectors[row].tolist() == pytest.approx(expected[word], abs=1e-6)


def test_gzip_and_zip_archive_give_the_same_vectors(tmp_path):
    text = FIXTURE.read_bytes()
    gz = tmp_path / "glove.6B.50d.txt.gz"
    gz.write_bytes(gzip.compress(text))
    archive = tmp_path / "glove.6B.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("glove.6B.100d.txt", "other 1.0\n")
        zf.writestr("glove.6B.50d.txt", text)
    words, vectors = read_glove(FIXTURE)
    for path in (gz, archive):
        other_words, other_vectors = read_glove(path)
        assert other_words == words
        assert torch.equal(other_vectors, vectors)


def test_zip_without_the_member_is_an_error_naming_the_archive(tmp_path):
    archive = tmp_path / "glove.6B.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("glove.6B.100d.txt", "x " + " ".join(["0"] * 100) + "\n")
    with pytest.raises(GloveError, match=r"glove\.6B\.zip.*glove\.6B\.50d\.txt"):
        read_glove(archive, dim=50)


def test_vocabulary_keeps_only_the_asked_words_in_file_order():
    words, vectors = read_glove(FIXTURE, vocabulary={"dog", "the", "not-in-file"})
    expected = plain_vectors()
    assert words == ["the", "dog"]
    assert vectors[0].tolist() == pytest.approx(expected["the"], abs=1e-6)
    assert vectors[1].tolist() == pytest.approx(expected["dog"], abs=1e-6)


@pytest.mark.parametrize("bad", ["cat 0.1 0.2", "cat " + " ".join(["0.5"] * 49) + " x",
                                 "cat " + " ".join(["0.5"] * 49) + " nan", "cat 1e999 " + " ".join(["0.5"] * 49)])
def test_malformed_line_is_an_error_naming_file_and_line(tmp_path, bad):
    path = tmp_path / "glove.6B.50d.txt"
    good = FIXTURE.read_text(encoding="utf-8").splitlines()[:2]
    path.write_text("\n".join([*good, bad]) + "\n", encoding="utf-8")
    with pytest.raises(GloveError, match=rf"{path.name}:3"):
        read_glove(path)


def test_bytes_that_are_not_utf8_are_an_error_naming_the_file_and_the_last_good_line(tmp_path):
    path = tmp_path / "glove.6B.50d.txt"
    good = FIXTURE.read_bytes().splitlines(keepends=True)[:2]
    path.write_bytes(b"".join(good) + b"caf\xe9 " + b" ".join([b"0.5"] * 50) + b"\n")
    with pytest.raises(GloveError, match=rf"{path.name}, after line \d+: cannot read .*utf-8"):
        read_glove(path)


def test_dimension_other_than_the_file_is_an_error(tmp_path):
    with pytest.raises(GloveError, match=r":1: expected a word and 100 numbers"):
        read_glove(FIXTURE, dim=100)


def test_embedding_matrix_gives_zero_vectors_to_unknown_words():
    glove = read_glove(FIXTURE)
    expected = plain_vectors()
    matrix = embedding_matrix(["dog", "@@", "the", "zebra"], glove)
    assert matrix.shape == (4, 50)
    assert matrix[0].tolist() == pytest.approx(expected["dog"], abs=1e-6)
    assert matrix[2].tolist() == pytest.approx(expected["the"], abs=1e-6)
    assert not matrix[1].any() and not matrix[3].any()


def test_vocabulary_read_skips_unwanted_lines_but_checks_kept_ones(tmp_path):
    path = tmp_path / "glove.6B.50d.txt"
    good = FIXTURE.read_text(encoding="utf-8").splitlines()[:2]  # "the", ","
    path.write_text("\n".join([*good, "broken 1 2", "cat 1"]) + "\n", encoding="utf-8")
    assert read_glove(path, vocabulary={"the"})[0] == ["the"]
    with pytest.raises(GloveError, match=rf"{path.name}:4"):
        read_glove(path, vocabulary={"the", "cat"})
