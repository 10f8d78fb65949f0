"""How long MC-QA fine-tuning curves take for a base-size model (a command, not a test).

``python -m lmprobes.suites.olmpics.mcqa_bench`` saves a random-weight BERT-base (12 layers, hidden
768) with bert-base-cased's WordPiece vocabulary to a temporary folder, builds three-choice
questions of the length of the release's property-conjunction items (about 12 words, answers of 1-3
words), times whole fine-tuning runs (the original's hyper-parameters: 4 epochs, batch 8 x 2, dev
accuracy after every epoch) at two training sizes, fits run time = a + b·N, and extrapolates to the
paper's full MC-QA grid (7 N x 6 seeds x 3 variants x 2 tasks, about 4,000-5,300 training and 500 dev
rows). Accuracy is meaningless here (random weights); only time is measured.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Sequence

import pandas as pd
import torch

from lmprobes.suites.olmpics.hyperparameters import TRANSFORMER
from lmprobes.suites.olmpics.mcqa import fine_tune, load_encoder, mc_qa_examples
from lmprobes.suites.olmpics.probe_bench import VOCAB, random_bert
from lmprobes.suites.olmpics.schema import make_item
from lmprobes.suites.olmpics.training import PAPER_N, with_overrides

WORDS = ("street", "octagon", "writing", "hand", "kitchen", "sleep", "music", "school", "water", "paper",
         "garden", "window", "table", "river", "light", "bread")
PAPER_SEEDS, PAPER_VARIANTS, PAPER_TASKS, PAPER_DEV = 6, 3, 2, 500


def questions(n: int, split: str, seed: int) -> pd.DataFrame:
    """``n`` three-choice MC-QA items shaped like property conjunction's."""
    rng = random.Random(f"{seed}:{split}")
    rows = []
    for row in range(1, n + 1):
        x1, x2 = rng.sample(WORDS, 2)
        choices = [" ".join(rng.sample(WORDS, rng.randint(1, 3))) for _ in range(3)]
        rows.append(make_item("property_conjunction", "release", "standard", split, row, id=f"{split}{row}",
                              stem=f"what is usually located at {x1} and is related to {x2}", choices=choices,
                              answer=rng.randrange(3)))
    return pd.DataFrame(rows)


def time_run(pretrained, tokenizer, n_train: int, n_dev: int, epochs: int) -> float:
    train = mc_qa_examples(tokenizer, questions(n_train, "train", 0))
    dev = mc_qa_examples(tokenizer, questions(n_dev, "dev", 0))
    start = time.perf_counter()
    fine_tune(pretrained, train, dev, seed=1, hp=with_overrides(TRANSFORMER, epochs=epochs))
    return time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="16,48", help="two training sizes to time (comma-separated)")
    parser.add_argument("--n-dev", type=int, default=48)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tiny", action="store_true", help="a 1-layer model (for tests)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    small, large = (int(n) for n in args.sizes.split(","))
    lm = random_bert(VOCAB, tiny=args.tiny, batch_tokens=4096)
    with tempfile.TemporaryDirectory() as folder:
        lm.model.bert.save_pretrained(folder)
        lm.tokenizer.save_pretrained(folder)
        pretrained = load_encoder(folder, slug=lm.name, device=torch.device("cpu"))
        epochs = TRANSFORMER.epochs
        seconds = {n: time_run(pretrained, pretrained.tokenizer, n, args.n_dev, epochs) for n in (small, large)}
    per_example = max(seconds[large] - seconds[small], 0.0) / (large - small) / epochs  # one example, one epoch
    dev_per_epoch = max(seconds[small] - per_example * small * epochs, 0.0) / epochs  # dev pass of n_dev rows
    per_run = {n: epochs * (per_example * n + dev_per_epoch * PAPER_DEV / args.n_dev) for n in PAPER_N}
    total = sum(per_run.values()) * PAPER_SEEDS * PAPER_VARIANTS * PAPER_TASKS
    print(f"{lm.name}, {args.threads} threads: run at N={small}: {seconds[small]:.1f} s, N={large}: {seconds[large]:.1f} s "
          f"({epochs} epochs, {args.n_dev} dev rows)")
    print(f"  training {per_example * 1000:.0f} ms per example-epoch, dev {dev_per_epoch / args.n_dev * 1000:.0f} ms "
          "per row")
    print("  one run at the paper's N: " + ", ".join(f"{n}: {per_run[n] / 60:.1f} min" for n in PAPER_N))
    print(f"  full MC-QA grid (7 N x {PAPER_SEEDS} seeds x {PAPER_VARIANTS} variants x {PAPER_TASKS} tasks): "
          f"{total / 3600:.1f} h")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
