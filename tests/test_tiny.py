"""Tiny models: real tokenizer behaviour, and reproducible builds."""

from pathlib import Path

import pytest
from transformers import AutoTokenizer

from lmprobes.tiny import TinySpec, build_tiny_model, read_corpus, train_wordpiece

CORPUS = Path(__file__).resolve().parents[1] / "resources/tiny/corpus.txt"


def test_wordpiece_has_pieces_unknowns_and_lowercases():
    tokenizer = train_wordpiece(read_corpus(CORPUS), 1200)
    assert len(tokenizer) == 1200
    assert tokenizer.tokenize("The Waitress") == ["the", "waitress"]
    pieces = tokenizer.tokenize("quickly")
    assert len(pieces) > 1 and all(p.startswith("##") for p in pieces[1:])
    assert tokenizer.tokenize("☃") == ["[UNK]"]


@pytest.mark.parametrize("arch", ["bert", "roberta", "gpt2"])
def test_builds_are_byte_identical(arch, tmp_path):
    spec = TinySpec(arch=arch, vocab_size=600, hidden_size=16, num_layers=1)
    a = build_tiny_model(spec, CORPUS, tmp_path / "a")
    b = build_tiny_model(spec, CORPUS, tmp_path / "b")
    names = sorted(p.name for p in a.iterdir())
    assert "model.safetensors" in names and "tokenizer.json" in names
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_roberta_mask_eats_the_space_before_it(tmp_path):
    path = build_tiny_model(TinySpec(arch="roberta", vocab_size=600, hidden_size=16, num_layers=1), CORPUS, tmp_path / "r")
    tokenizer = AutoTokenizer.from_pretrained(path)
    tokens = tokenizer.convert_ids_to_tokens(tokenizer("A robin is a <mask>.")["input_ids"])
    assert tokens[tokens.index("<mask>") - 1] == "Ġa"


def test_unknown_architecture_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown tiny architecture 'xlnet'"):
        build_tiny_model(TinySpec(arch="xlnet"), CORPUS, tmp_path / "x")
