"""What caching the mask states saves on MC-MLM learning curves (a command, not a test).

``python -m lmprobes.suites.olmpics.probe_bench`` builds a random-weight BERT-base-sized masked LM
(``BertForMaskedLM(BertConfig())``: 12 layers, hidden 768, vocabulary 30522; seed 0) around
bert-base-cased's WordPiece vocabulary, takes age-comparison items (``age.age_comparison``; a
seeded sample of ``--n-train`` training and ``--n-dev`` dev rows, the release has 4,032 and 500) and
times the same probe runs (``--setting``, ``--grid``, ``--seeds``, the MC-MLM hyper-parameters) two ways:

- cached: every item through the encoder once (``hidden.encode_mask_states``), then every run
  trains a head on the cached states (``probing.mc_mlm_curves``);
- re-encoding: what a run costs without the cache: the frozen encoder (eval mode, no gradient)
  runs on every training batch of every epoch and on the dev set after every epoch.

It prints both wall times, the speed-up, whether the two give the same accuracies (they should:
the same function of the same inputs, up to float noise from different padding), and an
extrapolation to the paper's full grid for one task (7 N x 6 seeds x 3 variants x 2 settings, 4,032
training and 500 dev rows) from the measured per-item encoder time and a fit of head-training time
against N. ``--tiny`` swaps in a 1-layer model for tests. On a shared machine the head timings
(many small operations) suffer most from other processes on the same cores; ``--threads`` sets
torch's CPU threads.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from torch import nn

from lmprobes.engine.batching import pad_right
from lmprobes.engine.lm import LM
from lmprobes.engine.runner import run_model
from lmprobes.suites.olmpics.age import age_comparison
from lmprobes.suites.olmpics.heads import HeadProbe, MlmHead, extract_head, make_probe
from lmprobes.suites.olmpics.hidden import ENCODER_COUNTS, encode_mask_states
from lmprobes.suites.olmpics.hyperparameters import HyperParameters
from lmprobes.suites.olmpics.probing import (
    MC_MLM,
    SETTINGS,
    TaskData,
    cache_candidate_ids,
    fit_probe,
    mc_mlm_curves,
    task_data,
)
from lmprobes.suites.olmpics.training import PAPER_N, Examples, curve_points, with_overrides
from lmprobes.suites.olmpics.zeroshot import stem_for_masked

VOCAB = Path(__file__).resolve().parents[3] / "tests" / "data" / "bert-base-cased" / "vocab.txt"
RELEASE_SIZES = {"train": 4032, "dev": 500}
PAPER_SEEDS, PAPER_VARIANTS, PAPER_SETTINGS = 6, 3, 2


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m lmprobes.suites.olmpics.probe_bench",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", type=Path, default=VOCAB, help="a BERT vocab.txt (default: bert-base-cased's)")
    parser.add_argument("--n-train", type=int, default=500, help="training rows encoded (release: 4032)")
    parser.add_argument("--n-dev", type=int, default=100, help="dev rows (release: 500)")
    parser.add_argument("--grid", type=_ints, default=(62, 125, 250), help="N of the runs, comma-separated")
    parser.add_argument("--seeds", type=_ints, default=(1,), help="seeds, comma-separated")
    parser.add_argument("--setting", choices=SETTINGS, default="mlp_mlm")
    parser.add_argument("--epochs", type=int, default=MC_MLM.epochs)
    parser.add_argument("--batch-tokens", type=int, default=4096, help="token budget of a cached-encoding pass")
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's own choice)")
    parser.add_argument("--tiny", action="store_true", help="a 1-layer model instead of BERT-base (for tests)")
    args = parser.parse_args(argv)
    for name, most in (("n_train", RELEASE_SIZES["train"]), ("n_dev", RELEASE_SIZES["dev"])):
        if not 0 < getattr(args, name) <= most:
            parser.error(f"--{name.replace('_', '-')} must be between 1 and {most}")
    return args


def _ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def random_bert(vocab: Path, *, tiny: bool, batch_tokens: int) -> LM:
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    words = vocab.read_text(encoding="utf-8").splitlines()
    # transformers 5 builds a stub vocabulary from ``vocab_file``; a mapping is read as given.
    tokenizer = BertTokenizer(vocab={w: i for i, w in enumerate(words)}, do_lower_case=False)
    if len(tokenizer) != len(words):
        raise SystemExit(f"{vocab}: the tokenizer kept {len(tokenizer)} of {len(words)} pieces")
    sizes = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64}
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(**(sizes if tiny else {}))).eval()
    name = "random-bert-1-layer" if tiny else "random-bert-base"
    return LM(name=name, model=model, tokenizer=tokenizer, family="masked", batch_tokens=batch_tokens)


def age_items(n_train: int, n_dev: int, seed: int = 0) -> pd.DataFrame:
    """A seeded sample of each split, in row order (the first rows alone would all share one first age)."""
    rng = random.Random(seed)
    rows = []
    for split, n in (("train", n_train), ("dev", n_dev)):
        split_rows = age_comparison(split)
        rows += [split_rows[i] for i in sorted(rng.sample(range(len(split_rows)), n))]
    return pd.DataFrame(rows)


class ReencodingProbe(nn.Module):
    """A head probe behind the frozen encoder: every forward re-encodes its items (the no-cache baseline)."""

    def __init__(self, encoder: nn.Module, probe: HeadProbe) -> None:
        super().__init__()
        self.encoder = encoder.requires_grad_(False)
        self.probe = probe
        self.encoded = 0

    def train(self, mode: bool = True) -> ReencodingProbe:
        super().train(mode)
        self.encoder.eval()  # the cache holds eval-mode states; the baseline computes the same function
        return self

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, mask_position: torch.Tensor,
                candidates: torch.Tensor) -> torch.Tensor:
        width = int(attention_mask.sum(dim=1).max())
        with torch.no_grad():
            hidden = run_model(self.encoder, input_ids[:, :width], attention_mask[:, :width])[0]
        self.encoded += len(input_ids)
        return self.probe(hidden[torch.arange(len(input_ids)), mask_position], candidates)


def token_examples(lm: LM, items: pd.DataFrame, row_ids: list[str], cached: Examples) -> Examples:
    """The rows as padded token ids and mask positions, with the cached examples' candidates and labels."""
    stems = items.set_index("row_id").loc[row_ids, "stem"]
    sequences = lm.tokenizer([stem_for_masked(lm, s) for s in stems])["input_ids"]
    input_ids, attention_mask = pad_right(sequences, lm.tokenizer.pad_token_id, torch.device("cpu"))
    mask_position = torch.tensor([ids.index(lm.tokenizer.mask_token_id) for ids in sequences])
    return Examples({"input_ids": input_ids, "attention_mask": attention_mask, "mask_position": mask_position,
                     "candidates": cached.inputs["candidates"]}, cached.labels)


@dataclass
class Timing:
    seconds: float = 0.0
    encoded: int = 0


def run_cached(lm: LM, items: pd.DataFrame, grid: Sequence[int], args: argparse.Namespace,
               hp: HyperParameters) -> dict:
    ENCODER_COUNTS.reset()
    start = time.perf_counter()
    cache = encode_mask_states(lm, items, progress=True)
    encode = Timing(time.perf_counter() - start, sum(ENCODER_COUNTS.items.values()))
    head = extract_head(lm, cache_candidate_ids(cache))
    # untimed warm-up: the first optimiser step and backward pass pay one-time set-up costs
    mc_mlm_curves(cache, head, settings=(args.setting,), grid=grid[:1], seeds=args.seeds[:1], hp=hp, model=lm.name)
    per_n: dict[int, float] = {}
    frames = []
    for n in grid:  # one call per N so that head-training time can be fitted against N
        start = time.perf_counter()
        frames.append(mc_mlm_curves(cache, head, settings=(args.setting,), grid=(n,), seeds=args.seeds, hp=hp,
                                    model=lm.name))
        per_n[n] = (time.perf_counter() - start) / len(args.seeds)
    return {"cache": cache, "head": head, "encode": encode, "per_n": per_n, "curves": pd.concat(frames)}


def run_reencoding(lm: LM, items: pd.DataFrame, task: TaskData, head: MlmHead, grid: Sequence[int],
                   args: argparse.Namespace, hp: HyperParameters) -> dict:
    train = token_examples(lm, items, task.train_row_ids, task.train)
    dev = token_examples(lm, items, task.dev_row_ids, task.dev)
    timing, accuracies = Timing(), {}
    for n in grid:
        for seed in args.seeds:
            model = ReencodingProbe(lm.model.base_model, make_probe(args.setting, head, task.candidate_ids))
            start = time.perf_counter()
            accuracies[(n, seed)] = fit_probe(model, train, dev, n, seed, hp).accuracy
            timing.seconds += time.perf_counter() - start
            timing.encoded += model.encoded
    return {"timing": timing, "accuracies": accuracies}


def extrapolate(encode: Timing, per_n: dict[int, float], reencode: Timing, n_dev: int, epochs: int) -> dict:
    """Hours for one task's full paper grid with and without the cache, on this machine."""
    per_item = encode.seconds / encode.encoded
    slope, intercept = _line(per_n)
    intercept *= RELEASE_SIZES["dev"] / n_dev  # the constant part is the dev evaluation after each epoch
    runs_per_n = PAPER_SEEDS * PAPER_VARIANTS * PAPER_SETTINGS
    heads = runs_per_n * sum(intercept + slope * n for n in PAPER_N)
    cached = PAPER_VARIANTS * sum(RELEASE_SIZES.values()) * per_item + heads
    reencoded_items = runs_per_n * epochs * sum(n + RELEASE_SIZES["dev"] for n in PAPER_N)
    reencoding = reencoded_items * reencode.seconds / reencode.encoded
    return {"cached_h": cached / 3600, "heads_h": heads / 3600, "reencoding_h": reencoding / 3600,
            "encoded_cached": PAPER_VARIANTS * sum(RELEASE_SIZES.values()), "encoded_reencoding": reencoded_items}


def _line(points: dict[int, float]) -> tuple[float, float]:
    """Least-squares slope and intercept of seconds against N (a flat line from one point)."""
    if len(points) == 1:
        [(n, seconds)] = points.items()
        return seconds / n, 0.0
    slope, intercept = np.polyfit(list(points), list(points.values()), 1)
    return float(max(slope, 0.0)), float(max(intercept, 0.0))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    hp = with_overrides(MC_MLM, epochs=args.epochs)
    lm = random_bert(args.vocab, tiny=args.tiny, batch_tokens=args.batch_tokens)
    items = age_items(args.n_train, args.n_dev)
    grid = curve_points(args.n_train, args.grid)
    if not grid:
        raise SystemExit(f"no N of {list(args.grid)} fits in {args.n_train} training rows")
    print(f"# {lm.name}, {torch.get_num_threads()} CPU threads; {args.n_train} train + {args.n_dev} dev age items; "
          f"{args.setting}, N {grid}, seeds {list(args.seeds)}, {hp.epochs} epochs, lr {hp.lr}")
    cached = run_cached(lm, items, grid, args, hp)
    [task] = task_data(cached["cache"], cached["head"])
    if len(task.train) != args.n_train:
        raise SystemExit(f"{args.n_train - len(task.train)} training rows have an unknown-token choice")
    reencoded = run_reencoding(lm, items, task, cached["head"], grid, args, hp)
    encode, timing = cached["encode"], reencoded["timing"]
    heads = sum(cached["per_n"].values()) * len(args.seeds)
    cached_total = encode.seconds + heads
    print(f"cached      encode {encode.encoded} items {encode.seconds:8.2f} s + heads {heads:8.2f} s "
          f"= {cached_total:8.2f} s")
    print(f"re-encoding encode {timing.encoded} items (with heads)          = {timing.seconds:8.2f} s")
    print(f"speed-up {timing.seconds / cached_total:.1f}x")
    same = [abs(a - float(cached["curves"].set_index(["n_train", "seed"]).loc[key, "accuracy"]))
            for key, a in reencoded["accuracies"].items()]
    print(f"accuracy, cached vs re-encoding: max |difference| {max(same):.2f} points over {len(same)} runs")
    full = extrapolate(encode, cached["per_n"], timing, args.n_dev, hp.epochs)
    print(f"full paper grid for one task (7 N x 6 seeds x 3 variants x 2 settings, 4032 train / 500 dev): "
          f"cached {full['cached_h']:.2f} h ({full['encoded_cached']} items encoded, heads {full['heads_h']:.2f} h), "
          f"re-encoding {full['reencoding_h']:.1f} h ({full['encoded_reencoding']} items encoded), "
          f"speed-up {full['reencoding_h'] / full['cached_h']:.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
