"""Throughput of LAMA masked scoring on a T-REx-sized set of template facts (a command, not a test).

``python -m lmprobes.suites.lama.bench --relations relations.jsonl --common-vocab common_vocab_cased.txt
--vocab bert-base-cased/vocab.txt`` builds a random-weight BERT-base-sized masked LM (seed 0)
around the given WordPiece vocabulary, makes ``--facts`` template facts over the T-REx relations
of relations.jsonl (subjects of two common-vocabulary words, objects drawn from the common
vocabulary, seeded), and reports facts/s of the whole ``score_facts`` path (tokenisation,
common-vocabulary restriction, ranking, top-10). ``--compare-head N`` also times the engine on N of
those queries with the LM head applied at the mask rows only against every position.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import torch

from lmprobes.engine import map_mask_logprobs
from lmprobes.engine.lm import DTYPES, LM
from lmprobes.suites.lama.release import fill_template, load_common_vocab, load_relations
from lmprobes.suites.lama.scoring import score_facts

TREX_FACTS = 34039


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m lmprobes.suites.lama.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--relations", type=Path, required=True, help="LAMA relations.jsonl")
    parser.add_argument("--common-vocab", type=Path, required=True, help="common_vocab_cased.txt")
    parser.add_argument("--vocab", type=Path, required=True, help="a BERT vocab.txt (e.g. bert-base-cased's)")
    parser.add_argument("--facts", type=int, default=TREX_FACTS)
    parser.add_argument("--compare-head", type=int, default=0, metavar="N", help="queries for the head comparison")
    parser.add_argument("--batch-tokens", type=int, default=8192)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--dtype", choices=sorted(DTYPES), default="float32")
    parser.add_argument("--tiny", action="store_true", help="a 1-layer model instead of BERT-base (for tests)")
    return parser.parse_args(argv)


def random_bert(vocab: Path, *, tiny: bool, device: str, dtype: str, batch_tokens: int) -> LM:
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    words = vocab.read_text(encoding="utf-8").splitlines()
    tokenizer = BertTokenizer(vocab={w: i for i, w in enumerate(words)}, do_lower_case=False)
    tiny_sizes = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64}
    sizes = tiny_sizes if tiny else {}
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(vocab_size=len(tokenizer), **sizes))
    return LM(name="random-bert-base", model=model.to(device=device, dtype=DTYPES[dtype]).eval(), tokenizer=tokenizer,
              family="masked", device=torch.device(device), dtype=DTYPES[dtype], batch_tokens=batch_tokens)


def template_facts(relations: Path, common_vocab: list[str], n: int, seed: int = 0) -> pd.DataFrame:
    """``n`` facts spread evenly over the relations that have a type (the T-REx ones)."""
    rng = random.Random(seed)
    metas = [(r, m) for r, m in sorted(load_relations(relations).items()) if m.get("type")]
    rows = []
    for i in range(n):
        relation, meta = metas[i % len(metas)]
        subject = f"{rng.choice(common_vocab)} {rng.choice(common_vocab)}"
        query = fill_template(meta["template"], subject)
        rows.append({"row_id": f"f{i}", "corpus": "trex", "relation": relation, "sub_label": subject,
                     "obj_label": rng.choice(common_vocab), "template": meta["template"], "query": query,
                     "n_words": len(query.split()), "too_long": False, "in_common_vocab": True,
                     "judgment_rejected": False, "duplicate": False})
    return pd.DataFrame(rows)


def time_scoring(lm: LM, facts: pd.DataFrame, vocab: list[str]) -> tuple[float, pd.DataFrame]:
    start = time.perf_counter()
    scores = score_facts(lm, facts, vocab, progress=True)
    return time.perf_counter() - start, scores


def time_head(lm: LM, texts: list[str], head_only: bool) -> float:
    start = time.perf_counter()
    map_mask_logprobs(lm, texts, lambda logprobs, items: logprobs.argmax(-1).tolist(), progress=False,
                      head_only=head_only)
    return time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    vocab = sorted(load_common_vocab(args.common_vocab))
    lm = random_bert(args.vocab, tiny=args.tiny, device=args.device, dtype=args.dtype, batch_tokens=args.batch_tokens)
    facts = template_facts(args.relations, vocab, args.facts)
    time_scoring(lm, facts.head(32), vocab)  # warm-up
    seconds, scores = time_scoring(lm, facts, vocab)
    kept = int(scores["kept"].sum())
    print(f"score_facts  facts={len(facts)} kept={kept} seconds={seconds:.1f} facts/s={len(facts) / seconds:.1f} "
          f"(device={args.device} dtype={args.dtype} threads={torch.get_num_threads()} batch_tokens={args.batch_tokens})")
    if args.compare_head:
        texts = [q.replace("[MASK]", lm.tokenizer.mask_token) for q in facts["query"].head(args.compare_head)]
        # Alternating runs, best of two each, so drifting load on shared cores hits both alike.
        runs = {True: [], False: []}
        for head_only in (True, False, True, False):
            runs[head_only].append(time_head(lm, texts, head_only))
        head, full = min(runs[True]), min(runs[False])
        print(f"head at mask rows only: {len(texts) / head:.1f} queries/s; at every position: "
              f"{len(texts) / full:.1f} queries/s; speed-up {full / head:.2f}x (best of 2 runs each)")

if __name__ == "__main__":
    main()
