"""The LAMA stages as file-to-file functions (what the rule scripts call)."""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from lmprobes import __version__
from lmprobes.io import read_metadata, read_parquet, write_parquet, write_table
from lmprobes.suites.lama import tables as T
from lmprobes.suites.lama.plots import precision_curve_figure
from lmprobes.models import load_lm
from lmprobes.suites.lama.release import SCHEMA, build_corpus, filter_counts, load_common_vocab
from lmprobes.suites.lama.scoring import SCORE_SCHEMA, methods_for, score_facts

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
                   spec: dict, device: str, top_k: int, causal_methods: list[str], policy: str = "bos",
                   progress: bool = True) -> None:
    """Load the model once and score every corpus with each of the model's methods."""
    lm = load_lm(slug, spec, model_dir, device)
    vocab = sorted(load_common_vocab(common_vocab))
    methods = methods_for(lm.family, causal_methods)
    for dataset, out in zip(datasets, outs, strict=True):
        facts = read_parquet(dataset)
        scores = pd.concat(
            [score_facts(lm, facts, vocab, method=m, top_k=top_k, policy=policy, progress=progress) for m in methods],
            ignore_index=True,
        )
        summary = {m: skip_summary(scores[scores["method"] == m]) for m in methods}
        log.info("%s on %s: %s", slug, Path(dataset).stem, summary)
        metadata = {
            **lm.describe(),
            "suite": "lama",
            "dataset": read_metadata(dataset).get("dataset"),
            "methods": list(methods),
            "causal_policy": policy if "candidates" in methods else None,
            "top_k": top_k,
            "kept": {m: summary[m]["kept"] for m in methods},
            "skipped": {m: summary[m]["skipped"] for m in methods},
            "generator": f"lmprobes {__version__}",
        }
        write_parquet(scores, out, SCORE_SCHEMA, metadata)


def skip_summary(scores: pd.DataFrame) -> dict:
    skipped = scores.loc[~scores["kept"], "skip_reason"].value_counts().sort_index()
    return {"kept": int(scores["kept"].sum()), "skipped": {k: int(v) for k, v in skipped.items()}}


TABLE_TITLES = {
    "table2": "Table 2: mean P@1 (%) per corpus (raw rank, as the released code; macro over relations)",
    "table2_filtered": "Table 2, filtered: mean P@1 (%) with the other valid objects of each (subject, relation) removed",
    "relations": "Per-relation scores (%): P@1, P@10, MRR (raw) and P@1 (filtered), facts read and kept",
    "filters": "Facts removed by each filter: the model-independent ones per corpus (dataset), then per system",
    "table3": "Table 3: example generations (top-5 with log-probabilities), one random kept fact per relation",
}
TABLES = tuple(TABLE_TITLES)


def make_tables(datasets: list[Path], scores: list[Path], published: Path, paper_examples: Path, outdir: Path,
                plot: Path, *, qualitative_model: str | None, seed: int) -> None:
    """Every LAMA table (CSV + Markdown) and Figure 2 from the datasets and per-fact scores."""
    data = {Path(p).stem: read_parquet(p) for p in datasets}
    corpora = list(data)
    facts = pd.concat(
        [T.freq_baseline(df) for df in data.values()]
        + [T.scored_facts(data[Path(p).stem], read_parquet(p)) for p in scores],
        ignore_index=True,
    )
    relations = T.per_relation(facts)
    outdir = Path(outdir)
    published_table = pd.read_csv(published)
    for name, metric in (("table2", "p1"), ("table2_filtered", "p1_filtered")):
        tidy = T.table2(relations, metric)
        if metric == "p1":
            tidy = T.with_published(tidy, published_table)
        _write(outdir, name, tidy, T.table2_wide(tidy, corpora))
    _write(outdir, "relations", relations, relations.drop(columns=["relation_label"]))
    counts = {corpus: read_metadata(p)["filter_counts"] for corpus, p in zip(corpora, datasets)}
    filters = T.filter_counts_table(counts, facts)
    _write(outdir, "filters", filters, T.filter_counts_wide(filters), floatfmt=".0f")
    examples = T.example_generations(facts, T.example_system(facts, qualitative_model), ["trex", "conceptnet"], seed)
    paper = pd.read_csv(paper_examples, sep="\t").assign(model="bert-large-cased (paper)", rank=pd.NA)
    _write(outdir, "table3", pd.concat([examples, paper[examples.columns]], ignore_index=True))
    precision_curve_figure(T.precision_curve(facts), plot)


def _write(outdir: Path, name: str, tidy: pd.DataFrame, wide: pd.DataFrame | None = None, floatfmt: str = ".1f") -> None:
    write_table(tidy, outdir / f"{name}.csv", outdir / f"{name}.md", TABLE_TITLES[name], floatfmt, markdown_frame=wide)
