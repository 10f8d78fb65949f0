"""Throughput of the engine primitives on synthetic sentences (``lmprobes-bench``).

Sentences come from the bundled tiny corpus; each applicable primitive runs once on a few
items as a warm-up and is then timed on all of them. Prints one line per primitive:
primitive, items, seconds, items/s, tokens/s.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch

from lmprobes.engine import (
    continuation_logprobs,
    mask_predictions,
    next_token_predictions,
    sequence_logprobs,
    word_ids,
)
from lmprobes.engine.lm import DTYPES, LM
from lmprobes.engine.precision import RESIDUAL_DTYPES, load_dtype
from lmprobes.models import load_lm as load_configured
from lmprobes.tiny import read_corpus, train_wordpiece

CORPUS = Path(__file__).resolve().parents[1] / "resources" / "tiny" / "corpus.txt"
WARMUP_ITEMS = 16
BERT_BASE_VOCAB = 30522


@dataclass(frozen=True)
class Item:
    """One synthetic sentence split at a word: ``context + continuation == sentence``."""

    sentence: str
    context: str
    word: str
    continuation: str


@dataclass(frozen=True)
class Timed:
    primitive: str
    items: int
    seconds: float
    tokens: int

    def line(self) -> str:
        return (
            f"{self.primitive:<26} items={self.items:<6d} seconds={self.seconds:8.3f} "
            f"items/s={self.items / self.seconds:10.1f} tokens/s={self.tokens / self.seconds:12.1f}"
        )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="lmprobes-bench", description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, help="a saved HuggingFace model folder")
    parser.add_argument("--family", choices=["masked", "causal"], help="default: read from the model's config")
    parser.add_argument("--n", type=int, default=512, help="items per primitive (default 512)")
    parser.add_argument("--batch-tokens", type=int, default=4096, help="token budget per forward pass")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--dtype", choices=sorted(DTYPES), default="float32")
    parser.add_argument("--residual-dtype", choices=RESIDUAL_DTYPES, default="auto",
                        help="float32: only the linear layers in --dtype (the config's residual_dtype)")
    parser.add_argument(
        "--random-bert-base",
        action="store_true",
        help="time an untrained BERT-base-sized masked LM (tokenizer from --model, else trained on the tiny corpus)",
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.model is None and not args.random_bert_base:
        parser.error("give --model PATH or --random-bert-base")
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: torch sees no CUDA device")
    return args


def load_lm(args: argparse.Namespace) -> LM:
    """The model to time, on ``args.device`` in ``args.dtype``."""
    if not args.random_bert_base:
        family = args.family or infer_family(args.model)
        spec = {"family": family, "dtype": args.dtype, "residual_dtype": args.residual_dtype,
                "batch_tokens": args.batch_tokens}
        return load_configured(args.model.name, spec, args.model, args.device)
    device, dtype = torch.device(args.device), DTYPES[args.dtype]
    model, tokenizer, family, name = random_bert_base(args.model, args.corpus)
    return LM(
        name=name,
        model=model.to(device=device, dtype=load_dtype(dtype, args.residual_dtype)).eval(),
        tokenizer=tokenizer,
        family=family,
        device=device,
        dtype=dtype,
        batch_tokens=args.batch_tokens,
        residual_dtype=args.residual_dtype,
    )


def infer_family(path: Path) -> str:
    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(path, local_files_only=True)
    architectures = " ".join(getattr(config, "architectures", None) or [])
    if "MaskedLM" in architectures:
        return "masked"
    if "CausalLM" in architectures or "LMHead" in architectures:
        return "causal"
    raise SystemExit(f"cannot tell the family from architectures {architectures!r}; pass --family")


def random_bert_base(tokenizer_path: Path | None, corpus: Path):
    """An untrained BERT-base-sized masked LM: 12 layers, hidden 768, 12 heads, vocab >= 30522."""
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    if tokenizer_path is not None:
        tokenizer = AutoTokenizer.from_pretrained(tokenizer_path, local_files_only=True)
    else:
        # The tiny corpus yields far fewer pieces; the model's vocabulary is padded to BERT's size.
        tokenizer = train_wordpiece(read_corpus(corpus), BERT_BASE_VOCAB)
    config = BertConfig(
        vocab_size=max(len(tokenizer), BERT_BASE_VOCAB),
        hidden_size=768,
        num_hidden_layers=12,
        num_attention_heads=12,
        intermediate_size=3072,
        pad_token_id=tokenizer.pad_token_id or 0,
    )
    torch.manual_seed(0)
    return BertForMaskedLM(config), tokenizer, "masked", "random-bert-base"


def synthetic_items(corpus: Path, n: int, seed: int = 0) -> list[Item]:
    """``n`` corpus sentences, each split before a randomly chosen word (never the first)."""
    rng = random.Random(seed)
    lines = [line for line in read_corpus(corpus) if len(line.split()) >= 3]
    items = []
    for _ in range(n):
        words = rng.choice(lines).split()
        at = rng.randrange(1, len(words))
        word = re.sub(r"\W+$", "", words[at]) or words[at]
        context = " ".join(words[:at])
        items.append(Item(sentence=" ".join(words), context=context, word=word, continuation=" " + words[at]))
    return items


def masked_text(item: Item, mask: str) -> str:
    """The sentence with ``item.word`` (punctuation kept) replaced by the mask token."""
    rest = item.sentence[len(item.context) + 1 :]
    return f"{item.context} {mask}{rest[len(item.word):]}"


def benchmarks(lm: LM, items: list[Item]) -> list[tuple[str, Callable[[list[Item]], object], Callable[[list[Item]], int]]]:
    """(primitive, run on items, tokens the run feeds the model) for the primitives of ``lm.family``."""
    tok = lm.tokenizer

    def n_tokens(texts: list[str], special: bool, extra: int = 0) -> int:
        return sum(len(ids) + extra for ids in tok(texts, add_special_tokens=special)["input_ids"])

    def targets(batch: list[Item], first_word: bool = False) -> list[list[int]]:
        return [[word_ids(tok, i.word, sentence_initial=first_word).first_id] for i in batch]

    if lm.family == "masked":
        texts = lambda batch: [masked_text(i, tok.mask_token) for i in batch]
        return [
            (
                "mask_predictions",
                lambda b: mask_predictions(lm, texts(b), targets(b), progress=False),
                lambda b: n_tokens(texts(b), special=True),
            ),
            (
                "mask_predictions_full_head",
                lambda b: mask_predictions(lm, texts(b), targets(b), progress=False, head_only=False),
                lambda b: n_tokens(texts(b), special=True),
            ),
        ]
    return [
        (
            "next_token_predictions",
            lambda b: next_token_predictions(lm, [i.context for i in b], targets(b), progress=False),
            lambda b: n_tokens([i.context for i in b], special=False, extra=1),
        ),
        (
            "sequence_logprobs",
            lambda b: sequence_logprobs(lm, [i.sentence for i in b], progress=False),
            lambda b: n_tokens([i.sentence for i in b], special=False, extra=1),
        ),
        (
            "continuation_logprobs",
            lambda b: continuation_logprobs(lm, [i.context for i in b], [i.continuation for i in b], progress=False),
            lambda b: n_tokens([i.sentence for i in b], special=False, extra=1),
        ),
    ]


def time_primitive(lm: LM, name: str, run: Callable, count_tokens: Callable, items: list[Item]) -> Timed:
    run(items[:WARMUP_ITEMS])
    synchronize(lm)
    start = time.perf_counter()
    run(items)
    synchronize(lm)
    return Timed(name, len(items), time.perf_counter() - start, count_tokens(items))


def synchronize(lm: LM) -> None:
    if lm.device.type == "cuda":
        torch.cuda.synchronize(lm.device)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    lm = load_lm(args)
    items = synthetic_items(args.corpus, args.n)
    print(
        f"# {lm.name} family={lm.family} device={lm.device} dtype={args.dtype} "
        f"residual_dtype={lm.residual_dtype} "
        f"batch_tokens={lm.batch_tokens} vocab={lm.vocab_size} torch_threads={torch.get_num_threads()}",
        flush=True,
    )
    for name, run, count_tokens in benchmarks(lm, items):
        print(time_primitive(lm, name, run, count_tokens, items).line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
