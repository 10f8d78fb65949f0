"""The Ettinger stages as file-to-file functions (what the rule scripts call)."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from lmprobes import __version__
from lmprobes.io import read_metadata, read_parquet, write_parquet, write_table
from lmprobes.suites.ettinger import tables as T
from lmprobes.suites.ettinger.datasets import DATASETS, REGISTRY, build_dataset


def make_dataset(dataset: str, source: Path, out: Path, *, shuffles: int | None, seed: int | None,
                 provenance: dict) -> pd.DataFrame:
    """One Ettinger dataset; ``shuffles`` and ``seed`` are CPRAG's (the other datasets draw nothing)."""
    df = build_dataset(dataset, source, shuffles=shuffles, seed=seed)
    metadata = {
        "suite": "ettinger",
        "dataset": dataset,
        "source_url": provenance.get("url"),
        "source_sha256": provenance.get("sha256"),
        "generator": f"lmprobes {__version__}",
        "seed": seed if dataset == "cprag" else None,
        "shuffles": shuffles if dataset == "cprag" else None,
        "rows": len(df),
    }
    write_parquet(df, out, REGISTRY[dataset].schema, metadata)
    return df


def score_datasets(datasets: list[Path], model_dir: Path, outs: list[Path], *, slug: str, spec: dict, method: str,
                   top_k: int, device: str, multi_piece_targets: str = "exclude", progress: bool = True) -> None:
    """Load the model once and score every dataset with it, one score file per dataset, each written as
    soon as it is scored (a job killed midway leaves whole files; Snakemake removes a failed job's)."""
    # Imported here so that the suite's dataset and table jobs start without torch (~2 s each).
    from lmprobes.models import load_lm
    from lmprobes.suites.ettinger.scoring import SCORE_SCHEMA, score_items

    lm = load_lm(slug, spec, model_dir, device)
    for dataset, out in zip(datasets, outs, strict=True):
        items = read_parquet(dataset)
        scores = score_items(lm, items, top_k=top_k, method=method, multi_piece_targets=multi_piece_targets,
                             progress=progress)
        metadata = {
            **lm.describe(),
            "suite": "ettinger",
            "dataset": read_metadata(dataset).get("dataset"),
            "top_k": top_k,
            "method": "masked" if lm.family == "masked" else method,
            "multi_piece_targets": multi_piece_targets if lm.family == "causal" else "exclude",
            "generator": f"lmprobes {__version__}",
        }
        write_parquet(scores, out, SCORE_SCHEMA, metadata)


def score_paths_by_model(score_paths: list[Path], models: list[str], datasets: Collection[str]) -> dict:
    """``paths[model][dataset]``: the score file of each model and dataset, every one present."""
    paths: dict[str, dict[str, Path]] = {m: {} for m in models}
    for path in map(Path, score_paths):
        model, dataset = path.parent.name, path.stem
        if model in paths and dataset in datasets:
            paths[model][dataset] = path
    for model in models:
        missing = [d for d in DATASETS if d not in paths[model]]
        if missing:
            raise FileNotFoundError(f"no Ettinger scores of {model!r} for {missing}")
    return paths


def merged_model(items: dict[str, pd.DataFrame], paths: dict[str, Path]) -> dict[str, pd.DataFrame]:
    """``merged[dataset]``: the dataset's rows joined with one model's scores (the columns the tables read)."""
    return {dataset: T.merge_scores(items[dataset], read_parquet(path, T.SCORE_COLUMNS))
            for dataset, path in paths.items()}


class ModelSummary(NamedTuple):
    """What the tables and the figure take of one model's score files: its tidy records
    (``tables.model_records``) and, when the qualitative tables show it, its ``selected_predictions``."""

    records: list[dict]
    predictions: dict | None


def summarise_model(model: str, items: dict[str, pd.DataFrame], paths: dict[str, Path], *, threshold: float,
                    unscorable: str, selection: pd.DataFrame, shown: bool) -> ModelSummary:
    """One model's score files reduced to its ``ModelSummary`` as they are read: the job holds one model's
    merged frames at a time (60 models' all at once grew it by 25 MB a model, to 1.6 GB)."""
    data = merged_model(items, paths)
    return ModelSummary(T.model_records(model, data, threshold, unscorable),
                        T.selected_predictions(data, selection) if shown else None)


def make_tables(dataset_paths, score_paths, published: Path, qualitative: Path, out_dir: Path, plot: Path, *,
                models: list[str], threshold: float, unscorable: str, qualitative_model: str | None,
                stand_ins: Collection[str] = ()) -> None:
    """The quantitative and qualitative tables and the accuracy figure; ``stand_ins``: the tiny models and
    configured stand-ins, named in the figure where it shows them."""
    # matplotlib (~0.4 s) loads only in the jobs that draw
    from lmprobes.suites.ettinger.plots import accuracy_figure

    items = {Path(p).stem: read_parquet(p) for p in dataset_paths}
    paths = score_paths_by_model(score_paths, models, items)
    selection = pd.read_csv(qualitative, dtype=str)
    shown = [qualitative_model] if qualitative_model else models
    summaries = {model: summarise_model(model, items, paths[model], threshold=threshold, unscorable=unscorable,
                                        selection=selection, shown=model in shown) for model in models}
    records = [record for summary in summaries.values() for record in summary.records]
    tidy = T.with_published(T.tidy_frame(records), pd.read_csv(published))
    out_dir = Path(out_dir)
    for table in T.QUANTITATIVE:
        body = T.wide_table(tidy, table)
        write_table(
            tidy[tidy["table"] == table].reset_index(drop=True),
            out_dir / f"{table}.csv",
            out_dir / f"{table}.md",
            title=T.TITLES[table],
            markdown_frame=body,
            note=T.unscorable_note(tidy, table),
        )
    quali = T.qualitative_from_predictions({model: summaries[model].predictions for model in shown}, selection)
    for table in T.QUALITATIVE:
        sub = quali[quali["table"] == table].drop(columns="table").reset_index(drop=True)
        write_table(sub, out_dir / f"{table}.csv", out_dir / f"{table}.md", title=T.TITLES[table])
    accuracy_figure(tidy, plot, stand_ins=stand_ins)
