"""Tiny models: real tokenizer behaviour, and reproducible builds."""

import dataclasses
import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from transformers import AutoTokenizer

from lmprobes.tiny import TinySpec, build_tiny_model, read_corpus, train_wordpiece

CORPUS = Path(__file__).resolve().parents[1] / "resources/tiny/corpus.txt"


def plain_word_counts(lines: list[str]) -> Counter:
    """Lower-cased words and single punctuation marks (BERT's pre-tokenisation of this ASCII-and-quotes corpus)."""
    return Counter(word for line in lines for word in re.findall(r"\w+|[^\w\s]", line.lower()))


def plain_piece_counts(counts: Counter) -> Counter:
    """Each word's 2- to 6-character prefixes, ##suffixes and ##continuations from its second
    character, all shorter than the word, per occurrence of the word (a piece that is both a suffix
    and a continuation, "##ow" of "cow", counts twice, as in ``tiny._piece_counts``)."""
    pieces: Counter = Counter()
    for word, n in counts.items():
        for length in range(2, min(len(word) - 1, 6) + 1):
            pieces[word[:length]] += n
            pieces["##" + word[len(word) - length:]] += n
            pieces["##" + word[1:length + 1]] += n
    return pieces


def vocabulary(tokenizer) -> list[str]:
    return tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))


@pytest.mark.parametrize("size", [300, 1200])
def test_wordpiece_vocabulary_is_specials_characters_frequent_words_then_pieces(size):
    lines = read_corpus(CORPUS)
    tokenizer = train_wordpiece(lines, size)
    vocab = vocabulary(tokenizer)
    assert len(vocab) == len(set(vocab)) == size
    assert vocab[:5] == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    special_ids = [tokenizer.pad_token_id, tokenizer.unk_token_id, tokenizer.cls_token_id,
                   tokenizer.sep_token_id, tokenizer.mask_token_id]
    assert special_ids == [0, 1, 2, 3, 4]
    counts = plain_word_counts(lines)
    chars = sorted(set("".join(counts)))
    assert vocab[5:5 + 2 * len(chars)] == chars + ["##" + char for char in chars]
    rest = vocab[5 + 2 * len(chars):]
    frequent = sorted((word for word, n in counts.items() if n >= 2 and len(word) > 1), key=lambda w: (-counts[w], w))
    assert rest[:len(frequent)] == frequent[:len(rest)]
    pieces = plain_piece_counts(counts)
    before_pieces = set(vocab[:5 + 2 * len(chars) + len(frequent)])
    ranked = [piece for piece in sorted(pieces, key=lambda p: (-pieces[p], -len(p), p)) if piece not in before_pieces]
    assert rest[len(frequent):] == ranked[:max(len(rest) - len(frequent), 0)]
    assert (size == 1200) == (len(rest) > len(frequent))  # 300 stops among the words, 1200 among the pieces


def test_wordpiece_vocabulary_is_the_same_built_twice_or_from_shuffled_lines():
    lines = read_corpus(CORPUS)
    shuffled = random.Random(0).sample(lines, len(lines))
    assert shuffled != lines
    assert vocabulary(train_wordpiece(lines, 1200)) == vocabulary(train_wordpiece(lines, 1200))
    assert vocabulary(train_wordpiece(shuffled, 1200)) == vocabulary(train_wordpiece(lines, 1200))


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
