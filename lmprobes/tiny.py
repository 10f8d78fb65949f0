"""Tiny random-weight models with real tokenizers, built offline for the demo and the tests.

Three architectures cover every tokenization path of the engine:
- ``bert``: masked LM, WordPiece (``##`` pieces, ``[UNK]``, lower-cased),
- ``roberta``: masked LM, byte-level BPE (``Ġ`` pieces, ``<mask>`` that eats the space before it),
- ``gpt2``: causal LM, byte-level BPE with ``<|endoftext|>`` as BOS/EOS.
Tokenizers are trained with the ``tokenizers`` library on a bundled corpus; weights are random
but seeded, so a build is reproducible.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch
from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
from transformers import (
    BertConfig,
    BertForMaskedLM,
    BertTokenizer,
    GPT2Config,
    GPT2LMHeadModel,
    GPT2Tokenizer,
    RobertaConfig,
    RobertaForMaskedLM,
    RobertaTokenizer,
)

BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
ROBERTA_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
GPT2_SPECIALS = ["<|endoftext|>"]


@dataclass(frozen=True)
class TinySpec:
    """Shape of a tiny model; mirrors the ``tiny:`` block of a model in config.yaml."""

    arch: str
    vocab_size: int = 1000
    hidden_size: int = 64
    num_layers: int = 2
    num_heads: int = 2
    max_positions: int = 128
    seed: int = 0

    @property
    def intermediate_size(self) -> int:
        return 4 * self.hidden_size


def read_corpus(path: Path) -> list[str]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip()]


def train_wordpiece(lines: list[str], vocab_size: int, lowercase: bool = True) -> BertTokenizer:
    """A WordPiece vocabulary learnt deterministically from word counts.

    ``tokenizers``' WordPieceTrainer breaks ties in hash-map order, so two builds from the same
    corpus differ; here the library normalises and pre-tokenises, and the vocabulary is chosen
    by sorted counts: specials, characters, ``##`` characters, frequent whole words, then the
    most frequent word-initial and ``##`` word-internal pieces (so rare words split into pieces).
    """
    counts = _word_counts(lines, lowercase)
    chars = sorted({c for word in counts for c in word})
    vocab = BERT_SPECIALS + chars + [f"##{c}" for c in chars]
    frequent = sorted((w for w, n in counts.items() if n >= 2 and len(w) > 1), key=lambda w: (-counts[w], w))
    pieces = _piece_counts(counts)
    ranked_pieces = sorted(pieces, key=lambda p: (-pieces[p], -len(p), p))
    for token in frequent + ranked_pieces:
        if len(vocab) >= vocab_size:
            break
        if token not in vocab:
            vocab.append(token)
    tokenizer = BertTokenizer(vocab={t: i for i, t in enumerate(vocab)}, do_lower_case=lowercase)
    # transformers 5 silently builds a stub vocabulary when handed the vocab the wrong way.
    assert len(tokenizer) == len(vocab), (len(tokenizer), len(vocab))
    return tokenizer


def _word_counts(lines: list[str], lowercase: bool) -> dict[str, int]:
    normalizer = normalizers.BertNormalizer(lowercase=lowercase)
    pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    counts: dict[str, int] = {}
    for line in lines:
        for word, _ in pre_tokenizer.pre_tokenize_str(normalizer.normalize_str(line)):
            counts[word] = counts.get(word, 0) + 1
    return counts


def _piece_counts(counts: dict[str, int]) -> dict[str, int]:
    """Frequency of every word-initial prefix and ``##`` continuation of length 2 to 6."""
    pieces: dict[str, int] = {}
    for word, n in counts.items():
        for length in range(2, min(len(word), 7)):
            for piece in (word[:length], f"##{word[-length:]}", f"##{word[1:1 + length]}"):
                pieces[piece] = pieces.get(piece, 0) + n
    return pieces


def _train_bytelevel_bpe(lines: list[str], vocab_size: int, specials: list[str]):
    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    raw.train_from_iterator(lines, trainer)
    model = json.loads(raw.to_str())["model"]
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    return model["vocab"], merges


def train_roberta_bpe(lines: list[str], vocab_size: int) -> RobertaTokenizer:
    vocab, merges = _train_bytelevel_bpe(lines, vocab_size, ROBERTA_SPECIALS)
    # Real RoBERTa's <mask> strips the space before it ("is <mask>" -> "Ġis", "<mask>").
    mask = AddedToken("<mask>", lstrip=True, rstrip=False, normalized=False, special=True)
    tokenizer = RobertaTokenizer(vocab=vocab, merges=merges, mask_token=mask)
    assert len(tokenizer) == len(vocab), (len(tokenizer), len(vocab))
    return tokenizer


def train_gpt2_bpe(lines: list[str], vocab_size: int) -> GPT2Tokenizer:
    vocab, merges = _train_bytelevel_bpe(lines, vocab_size, GPT2_SPECIALS)
    tokenizer = GPT2Tokenizer(vocab=vocab, merges=merges)
    assert len(tokenizer) == len(vocab), (len(tokenizer), len(vocab))
    return tokenizer


def _bert(spec: TinySpec, lines: list[str]):
    tokenizer = train_wordpiece(lines, spec.vocab_size)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=spec.hidden_size,
        num_hidden_layers=spec.num_layers,
        num_attention_heads=spec.num_heads,
        intermediate_size=spec.intermediate_size,
        max_position_embeddings=spec.max_positions,
        pad_token_id=tokenizer.pad_token_id,
    )
    return BertForMaskedLM(config), tokenizer


def _roberta(spec: TinySpec, lines: list[str]):
    tokenizer = train_roberta_bpe(lines, spec.vocab_size)
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=spec.hidden_size,
        num_hidden_layers=spec.num_layers,
        num_attention_heads=spec.num_heads,
        intermediate_size=spec.intermediate_size,
        # RoBERTa offsets positions by padding_idx + 1.
        max_position_embeddings=spec.max_positions + 2,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    return RobertaForMaskedLM(config), tokenizer


def _gpt2(spec: TinySpec, lines: list[str]):
    tokenizer = train_gpt2_bpe(lines, spec.vocab_size)
    config = GPT2Config(
        vocab_size=len(tokenizer),
        n_embd=spec.hidden_size,
        n_layer=spec.num_layers,
        n_head=spec.num_heads,
        n_positions=spec.max_positions,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    return GPT2LMHeadModel(config), tokenizer


BUILDERS = {"bert": _bert, "roberta": _roberta, "gpt2": _gpt2}


def build_tiny_model(spec: TinySpec, corpus: Path, out_dir: Path) -> Path:
    """Train the tokenizer, initialise seeded random weights and ``save_pretrained`` both."""
    if spec.arch not in BUILDERS:
        raise ValueError(f"unknown tiny architecture {spec.arch!r}; choose one of {sorted(BUILDERS)}")
    torch.manual_seed(spec.seed)
    model, tokenizer = BUILDERS[spec.arch](spec, read_corpus(corpus))
    model.eval()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    return out_dir
