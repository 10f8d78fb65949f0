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


# The specials of each SentencePiece masked family, in the order of its real vocabulary (ids 0-4).
MASKED_SENTENCEPIECE = {
    "albert": ("AlbertTokenizer", ["<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]"]),
    "xlm-roberta": ("XLMRobertaTokenizer", ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]),
    "deberta-v2": ("DebertaV2Tokenizer", ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]),
}


def masked_sentencepiece_tokenizer(model_type: str):
    """``model_type``'s own transformers class over a small Unigram vocabulary (ALBERT's lowercases)."""
    import transformers

    class_name, specials = MASKED_SENTENCEPIECE[model_type]
    raw = Tokenizer(models.Unigram())
    raw.pre_tokenizer = pre_tokenizers.Metaspace()
    lines = read_corpus(CORPUS)
    unk = next(token for token in specials if "unk" in token.lower())
    trainer = trainers.UnigramTrainer(vocab_size=800, special_tokens=specials, unk_token=unk)
    raw.train_from_iterator([line.lower() for line in lines] if model_type == "albert" else lines, trainer)
    vocab = [tuple(entry) for entry in json.loads(raw.to_str())["model"]["vocab"]]
    return getattr(transformers, class_name)(vocab=vocab)


def bos_adding_tokenizer(model_type: str):
    """OPT's tokenizer (GPT-2's BPE, ``</s>`` as BOS, prepended) or Llama-2's (SentencePiece BPE, ``<s>`` prepended)."""
    from transformers import GPT2Tokenizer, LlamaTokenizer

    from lmprobes.tiny import _train_bytelevel_bpe

    lines = read_corpus(CORPUS)
    if model_type == "opt":
        vocab, merges = _train_bytelevel_bpe(lines, 800, ["<s>", "<pad>", "</s>", "<unk>"])
        return GPT2Tokenizer(vocab=vocab, merges=merges, bos_token="</s>", eos_token="</s>", unk_token="</s>",
                             pad_token="<pad>", add_bos_token=True)
    raw = Tokenizer(models.BPE(unk_token="<unk>"))
    raw.pre_tokenizer = pre_tokenizers.Metaspace()
    raw.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=800, special_tokens=["<unk>", "<s>", "</s>"]))
    model = json.loads(raw.to_str())["model"]
    merges = [tuple(merge) if isinstance(merge, list) else tuple(merge.split()) for merge in model["merges"]]
    return LlamaTokenizer(vocab=model["vocab"], merges=merges, add_bos_token=True)
