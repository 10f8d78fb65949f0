"""Tiny models: real tokenizer behaviour, and reproducible builds."""

import dataclasses
import json
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


def test_the_seed_decides_the_weights(tmp_path):
    spec = TinySpec(arch="gpt2", vocab_size=600, hidden_size=16, num_layers=1)
    a = build_tiny_model(spec, CORPUS, tmp_path / "a")
    b = build_tiny_model(dataclasses.replace(spec, seed=1), CORPUS, tmp_path / "b")
    assert (a / "tokenizer.json").read_bytes() == (b / "tokenizer.json").read_bytes()
    assert (a / "model.safetensors").read_bytes() != (b / "model.safetensors").read_bytes()


# config.json's name of each TinySpec field, per architecture (RoBERTa offsets positions by padding_idx + 1).
CONFIG_NAMES = {
    "bert": ("hidden_size", "num_hidden_layers", "num_attention_heads", "max_position_embeddings", 0),
    "roberta": ("hidden_size", "num_hidden_layers", "num_attention_heads", "max_position_embeddings", 2),
    "gpt2": ("n_embd", "n_layer", "n_head", "n_positions", 0),
}


@pytest.mark.parametrize("arch", sorted(CONFIG_NAMES))
def test_the_spec_reaches_the_saved_config(arch, tmp_path):
    spec = TinySpec(arch=arch, vocab_size=600, hidden_size=24, num_layers=3, num_heads=3, max_positions=40)
    config = json.loads((build_tiny_model(spec, CORPUS, tmp_path / arch) / "config.json").read_text())
    hidden, layers, heads, positions, offset = CONFIG_NAMES[arch]
    assert (config[hidden], config[layers], config[heads], config[positions]) == (24, 3, 3, 40 + offset)
    assert config["vocab_size"] == 600
    if arch == "gpt2":  # n_inner None is 4 x n_embd; BOS and EOS are <|endoftext|>, the first token trained
        assert (config["n_inner"], config["bos_token_id"], config["eos_token_id"]) == (None, 0, 0)
    else:
        assert config["intermediate_size"] == 4 * 24
