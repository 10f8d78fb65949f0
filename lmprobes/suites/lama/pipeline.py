"""The LAMA stages as file-to-file functions (what the rule scripts call)."""

from __future__ import annotations

import logging
from pathlib import Path

from lmprobes import __version__
from lmprobes.io import read_metadata, read_parquet, write_parquet
from lmprobes.models import load_lm
from lmprobes.suites.lama.release import SCHEMA, build_corpus, filter_counts, load_common_vocab
from lmprobes.suites.lama.scoring import SCORE_SCHEMA, score_facts

log = logging.getLogger("lmprobes.lama")


def release_root(extracted: Path) -> Path:
    """The folder holding relations.jsonl and the corpora (``data/`` inside data.zip)."""
    extracted = Path(extracted)
    for candidate in (extracted / "data", extracted):
        if (candidate / "relations.jsonl").exists() or (candidate / "TREx").is_dir():
            return candidate
    raise FileNotFoundError(f"{extracted}: no LAMA release inside (expected data/relations.jsonl or TREx/)")


def make_dataset(corpus: str, extracted: Path, relations: Path, common_vocab: Path, out: Path, *,
                 provenance: dict) -> dict:
    df = build_corpus(corpus, release_root(extracted), relations, common_vocab)
    counts = filter_counts(df)
    log.info("%s: %s", corpus, counts)
    metadata = {
        "suite": "lama",
        "dataset": corpus,
        "sources": provenance,
        "generator": f"lmprobes {__version__}",
        "filter_counts": counts,
    }
    write_parquet(df, out, SCHEMA, metadata)
    return counts


def score_datasets(datasets: list[Path], common_vocab: Path, model_dir: Path, outs: list[Path], *, slug: str,
                   spec: dict, device: str, top_k: int, progress: bool = True) -> None:
    """Load the model once and score every corpus with it."""
    lm = load_lm(slug, spec, model_dir, device)
    vocab = sorted(load_common_vocab(common_vocab))
    for dataset, out in zip(datasets, outs, strict=True):
        scores = score_facts(lm, read_parquet(dataset), vocab, top_k=top_k, progress=progress)
        skipped = scores.loc[~scores["kept"], "skip_reason"].value_counts().sort_index().to_dict()
        log.info("%s on %s: %d kept, skipped %s", slug, Path(dataset).stem, int(scores["kept"].sum()), skipped)
        metadata = {
            **lm.describe(),
            "suite": "lama",
            "dataset": read_metadata(dataset).get("dataset"),
            "top_k": top_k,
            "kept": int(scores["kept"].sum()),
            "skipped": skipped,
            "generator": f"lmprobes {__version__}",
        }
        write_parquet(scores, out, SCORE_SCHEMA, metadata)
