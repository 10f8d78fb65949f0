"""Throughput of BLiMP pair scoring with random-weight GPT-2-small and BERT-base models.

    python -m lmprobes.suites.blimp.bench --blimp DIR --gpt2-tokenizer DIR --bert-tokenizer DIR \\
        [--modes causal-float32 pll-float32 ...] [--pairs 2000] [--out scores.parquet]

The sample (issue 8): the paradigm files of ``--blimp`` sorted by file name; the first 30 pairs
of each in file order; concatenated; the first 2,000 pairs kept (with the 67 release files, the
last paradigm contributes 20). ``--pairs N`` keeps the first N of that concatenation. Key:
(UID, pairID).

Models: GPT-2-small-sized (default ``GPT2Config``) and BERT-base-sized (default ``BertConfig``)
with random weights, seed 0, around the given tokenizers (``--tiny``: 2 layers, width 64, for
tests). Modes: ``causal-*`` scores both sentences with the ``lmeval04`` preset (BOS, leading
space, no EOS), ``pll-*`` with the ``original`` pseudo-log-likelihood; in float32 or bfloat16.

Per mode it prints pairs/s, tokens/s and achieved GFLOP/s, counted as 2 x parameters x tokens
fed forward (every distinct sentence once, as the scorer runs it: BOS + tokens for causal, every
masked copy's full length for PLL; a rough figure, since embedding lookups are counted as
matmuls and the head is applied only at scored rows), and that as a fraction of the peak of a
square matmul in the mode's dtype timed on the same device in the same run (best of five windows).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import torch

from lmprobes.engine.lm import LM
from lmprobes.io import write_parquet
from lmprobes.suites.blimp.dataset import SCHEMA, BlimpDataError, parse_record
from lmprobes.suites.blimp.scoring import score_pairs

PER_PARADIGM = 30
SAMPLE_PAIRS = 2000
SEED = 0
WARMUP_PAIRS = 8


@dataclass(frozen=True)
class Mode:
    family: str  # "causal" | "masked"
    method: str
    dtype: torch.dtype


MODES = {
    "causal-float32": Mode("causal", "lmeval04", torch.float32),
    "causal-bf16": Mode("causal", "lmeval04", torch.bfloat16),
    "pll-float32": Mode("masked", "pll_original", torch.float32),
    "pll-bf16": Mode("masked", "pll_original", torch.bfloat16),
}
OUT_SCHEMA = pa.schema(
    [
        pa.field("UID", pa.string()),
        pa.field("pairID", pa.string()),
        pa.field("mode", pa.string()),
        pa.field("ll_good", pa.float64()),
        pa.field("ll_bad", pa.float64()),
    ]
)


@dataclass(frozen=True)
class Result:
    mode: str
    pairs: int
    seconds: float
    tokens: int
    params: int
    peak_gflops: float

    @property
    def gflops(self) -> float:
        return 2.0 * self.params * self.tokens / self.seconds / 1e9

    def line(self) -> str:
        return (
            f"{self.mode:<15} pairs={self.pairs:<5d} seconds={self.seconds:8.2f} "
            f"pairs/s={self.pairs / self.seconds:9.1f} tokens/s={self.tokens / self.seconds:11.1f} "
            f"GFLOP/s={self.gflops:9.1f} peak_GFLOP/s={self.peak_gflops:9.1f} "
            f"of_peak={self.gflops / self.peak_gflops:6.1%}"
        )


# --- the sample ----------------------------------------------------------------------------


def bench_sample(folder: Path, n_pairs: int = SAMPLE_PAIRS, per_paradigm: int = PER_PARADIGM) -> pd.DataFrame:
    """Issue 8's sample: first ``per_paradigm`` pairs of each file (by file name), first ``n_pairs`` kept.

    Rows have the dataset's columns (``SCHEMA``), in sample order.
    """
    files = sorted(Path(folder).glob("*.jsonl"), key=lambda p: p.name)
    if not files:
        raise BlimpDataError(f"{folder}: no BLiMP paradigm files (*.jsonl)")
    records: list[dict] = []
    for path in files:
        if len(records) >= n_pairs:
            break
        records += _first_records(path, per_paradigm)
    records = records[:n_pairs]
    return pd.DataFrame.from_records([{name: r[name] for name in SCHEMA.names} for r in records], columns=SCHEMA.names)


def _first_records(path: Path, count: int) -> list[dict]:
    records = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if len(records) == count:
                break
            if line.strip():
                try:
                    raw = json.loads(line)
                except json.JSONDecodeError as err:
                    raise BlimpDataError(f"{path}:{lineno}: invalid JSON ({err})") from None
                records.append(parse_record(raw, path, lineno))
    return records


# --- models --------------------------------------------------------------------------------


def load_gpt2_tokenizer(path: Path):
    from transformers import GPT2Tokenizer

    tokenizer = GPT2Tokenizer.from_pretrained(path, local_files_only=True)
    if tokenizer.bos_token_id is None or len(tokenizer) < 256:
        raise ValueError(f"{path}: not a GPT-2 tokenizer (vocabulary {len(tokenizer)}, BOS {tokenizer.bos_token!r})")
    return tokenizer


def load_bert_tokenizer(path: Path, lowercase: bool | None = None):
    """WordPiece from ``vocab.txt``; casing from ``tokenizer_config.json`` if there is one, else cased."""
    from transformers import BertTokenizer

    if lowercase is None and not (Path(path) / "tokenizer_config.json").exists():
        lowercase = False
    kwargs = {} if lowercase is None else {"do_lower_case": lowercase}
    tokenizer = BertTokenizer.from_pretrained(path, local_files_only=True, **kwargs)
    # transformers 5 builds a 5-token stub when it does not find the vocabulary.
    if tokenizer.mask_token_id is None or len(tokenizer) < 100:
        raise ValueError(f"{path}: not a BERT WordPiece tokenizer (vocabulary {len(tokenizer)})")
    return tokenizer


def random_model(family: str, tokenizer, tiny: bool) -> torch.nn.Module:
    """GPT-2-small / BERT-base-sized (default configs) random weights, seed 0; ``tiny``: 2 x 64."""
    from transformers import BertConfig, BertForMaskedLM, GPT2Config, GPT2LMHeadModel

    torch.manual_seed(SEED)
    if family == "causal":
        size = {"n_embd": 64, "n_layer": 2, "n_head": 2} if tiny else {}
        config = GPT2Config(vocab_size=len(tokenizer), bos_token_id=tokenizer.bos_token_id,
                            eos_token_id=tokenizer.eos_token_id, **size)
        return GPT2LMHeadModel(config).eval()
    size = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 256} if tiny else {}
    config = BertConfig(vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id, **size)
    return BertForMaskedLM(config).eval()


def n_params(model: torch.nn.Module) -> int:
    """Distinct parameters (a tied input/output embedding counts once)."""
    return sum(p.numel() for p in model.parameters())


# --- work and timing -----------------------------------------------------------------------


def tokens_fed(lm: LM, pairs: pd.DataFrame, mode: Mode) -> int:
    """Tokens the scorer feeds forward: each distinct text once (``score_pairs`` deduplicates)."""
    sentences = list(pairs["sentence_good"]) + list(pairs["sentence_bad"])
    if mode.family == "causal":
        texts = sorted({" " + s for s in sentences})
        return sum(len(ids) + 1 for ids in lm.tokenizer(texts, add_special_tokens=False)["input_ids"])
    texts = sorted(set(sentences))
    encoded = lm.tokenizer(texts)
    copies = [sum(w is not None for w in encoded.word_ids(i)) for i in range(len(texts))]
    return sum(len(ids) * n for ids, n in zip(encoded["input_ids"], copies, strict=True))


def matmul_peak(device: torch.device, dtype: torch.dtype, n: int, seconds: float = 1.0, windows: int = 5) -> float:
    """GFLOP/s of repeated ``n x n`` matmuls in ``dtype``: the best of ``windows`` timed windows
    sharing about ``seconds`` (the best window is the least disturbed on a shared machine)."""
    a = torch.randn(n, n, device=device).to(dtype)
    b = torch.randn(n, n, device=device).to(dtype)
    torch.matmul(a, b)
    _synchronize(device)
    best = 0.0
    for _ in range(windows):
        repeats, elapsed = 0, 0.0
        start = time.perf_counter()
        while elapsed < seconds / windows or repeats < 2:
            torch.matmul(a, b)
            repeats += 1
            _synchronize(device)
            elapsed = time.perf_counter() - start
        best = max(best, 2.0 * n**3 * repeats / elapsed / 1e9)
    return best


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def run_mode(name: str, lm: LM, pairs: pd.DataFrame, peak: float) -> tuple[Result, pd.DataFrame]:
    mode = MODES[name]
    score_pairs(lm, pairs.head(WARMUP_PAIRS), mode.method, progress=False)
    _synchronize(lm.device)
    start = time.perf_counter()
    scores = score_pairs(lm, pairs, mode.method, progress=False)
    _synchronize(lm.device)
    seconds = time.perf_counter() - start
    result = Result(name, len(pairs), seconds, tokens_fed(lm, pairs, mode), n_params(lm.model), peak)
    rows = pd.DataFrame({
        "UID": pairs["paradigm"].to_numpy(), "pairID": pairs["pairID"].to_numpy(), "mode": name,
        "ll_good": scores["score_good"].to_numpy(), "ll_bad": scores["score_bad"].to_numpy(),
    })
    return result, rows


# --- command -------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m lmprobes.suites.blimp.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--blimp", type=Path, required=True, help="folder of the BLiMP paradigm .jsonl files")
    parser.add_argument("--gpt2-tokenizer", type=Path, help="folder with GPT-2's vocab.json and merges.txt")
    parser.add_argument("--bert-tokenizer", type=Path, help="folder with BERT's vocab.txt")
    parser.add_argument("--bert-uncased", action="store_true",
                        help="lower-case for BERT when the folder has no tokenizer_config.json (default: cased)")
    parser.add_argument("--modes", nargs="+", choices=list(MODES), default=["causal-float32", "pll-float32"])
    parser.add_argument("--pairs", type=int, default=SAMPLE_PAIRS, help=f"pairs of the sample to score (default {SAMPLE_PAIRS})")
    parser.add_argument("--out", type=Path, help="Parquet of the scores (UID, pairID, mode, ll_good, ll_bad)")
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    parser.add_argument("--batch-tokens", type=int, help="token budget per forward pass (default 4096 CPU, 65536 CUDA)")
    parser.add_argument("--matmul-size", type=int, help="side of the timed square matmul (default 2048 CPU, 8192 CUDA)")
    parser.add_argument("--tiny", action="store_true", help="2-layer width-64 models (for tests)")
    args = parser.parse_args(argv)
    families = {MODES[m].family for m in args.modes}
    if "causal" in families and args.gpt2_tokenizer is None:
        parser.error("causal modes need --gpt2-tokenizer")
    if "masked" in families and args.bert_tokenizer is None:
        parser.error("pll modes need --bert-tokenizer")
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: torch sees no CUDA device")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    device = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available() else
                          "cpu" if args.device == "auto" else args.device)
    on_gpu = device.type == "cuda"
    batch_tokens = args.batch_tokens or (65536 if on_gpu else 4096)
    matmul_size = args.matmul_size or (256 if args.tiny else 8192 if on_gpu else 2048)
    pairs = bench_sample(args.blimp, args.pairs)
    tokenizers = {}
    if args.gpt2_tokenizer is not None:
        tokenizers["causal"] = load_gpt2_tokenizer(args.gpt2_tokenizer)
    if args.bert_tokenizer is not None:
        tokenizers["masked"] = load_bert_tokenizer(args.bert_tokenizer, True if args.bert_uncased else None)
    dtypes = list(dict.fromkeys(MODES[m].dtype for m in args.modes))
    peaks = {dtype: matmul_peak(device, dtype, matmul_size, 0.2 if args.tiny else 1.0) for dtype in dtypes}
    print(
        f"# BLiMP bench: {len(pairs)} pairs from {pairs['paradigm'].nunique()} paradigms, device={device}, "
        f"torch_threads={torch.get_num_threads()}, batch_tokens={batch_tokens}, "
        + ", ".join(f"{str(d).removeprefix('torch.')} matmul {matmul_size}: {p:.1f} GFLOP/s" for d, p in peaks.items()),
        flush=True,
    )
    frames = []
    for name in args.modes:
        mode = MODES[name]
        tokenizer = tokenizers[mode.family]
        model = random_model(mode.family, tokenizer, args.tiny).to(device=device, dtype=mode.dtype)
        lm = LM(name=f"random-{'gpt2' if mode.family == 'causal' else 'bert'}", model=model, tokenizer=tokenizer,
                family=mode.family, device=device, dtype=mode.dtype, batch_tokens=batch_tokens)
        result, rows = run_mode(name, lm, pairs, peaks[mode.dtype])
        print(result.line() + f" params={result.params / 1e6:.1f}M tokens={result.tokens}", flush=True)
        frames.append(rows)
        del lm, model
    if args.out is not None:
        metadata = {"sample": f"first {PER_PARADIGM} per paradigm file by name, first {len(pairs)} pairs",
                    "modes": args.modes, "seed": SEED, "tiny": args.tiny, "device": device.type,
                    "torch": torch.__version__}
        write_parquet(pd.concat(frames, ignore_index=True), args.out, OUT_SCHEMA, metadata)
    return 0


if __name__ == "__main__":
    sys.exit(main())
