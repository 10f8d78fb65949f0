"""Small SentencePiece-style tokenizers trained on the tiny corpus, for the word-lookup conventions."""

from __future__ import annotations

import json
from pathlib import Path

from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

from lmprobes.tiny import read_corpus

CORPUS = Path(__file__).resolve().parents[1] / "resources" / "tiny" / "corpus.txt"


def sentencepiece_tokenizer(*, llama_style: bool) -> PreTrainedTokenizerFast:
    """A small ▁-style tokenizer: Unigram+Metaspace, or Llama-2-style BPE with a Prepend normalizer."""
    lines = read_corpus(CORPUS)
    if llama_style:
        raw = Tokenizer(models.BPE(unk_token="<unk>"))
        raw.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
        trainer = trainers.BpeTrainer(vocab_size=600, special_tokens=["<unk>"])
    else:
        raw = Tokenizer(models.Unigram())
        raw.pre_tokenizer = pre_tokenizers.Metaspace()
        trainer = trainers.UnigramTrainer(vocab_size=600, special_tokens=["<unk>"], unk_token="<unk>")
    raw.train_from_iterator(lines, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=raw, unk_token="<unk>")


def gemma_style_tokenizer():
    """Gemma's tokenizer class over a small BPE: spaces become ▁, and nothing is prepended to the text."""
    from transformers import GemmaTokenizer

    raw = Tokenizer(models.BPE(unk_token="<unk>"))
    raw.normalizer = normalizers.Replace(" ", "▁")
    raw.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="never")
    raw.train_from_iterator(read_corpus(CORPUS), trainers.BpeTrainer(
        vocab_size=600, special_tokens=["<pad>", "<eos>", "<bos>", "<unk>", "<mask>"]))
    model = json.loads(raw.to_str())["model"]
    merges = [tuple(merge) if isinstance(merge, list) else tuple(merge.split()) for merge in model["merges"]]
    return GemmaTokenizer(vocab=model["vocab"], merges=merges)
