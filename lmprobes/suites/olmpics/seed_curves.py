"""MC-QA curve files by seed: each seed's run is its own job's file, merged into the curve file one job
over all the seeds would write (and curve files made before that split back into seed files).

Torch-free: the merge jobs start in a second rather than importing the training stack.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from lmprobes.io import job_metadata, read_metadata, read_parquet, write_parquet
from lmprobes.revisions import REVISIONS
from lmprobes.suites.olmpics.curves import CurveError
from lmprobes.suites.olmpics.schema import CURVE_SCHEMA

# What the seed files of one curve file must agree on (the rest is provenance, and the seed).
SEED_SETTINGS = ("suite", "dataset", "model", "grid", "hyper_parameters", "mc_qa_segment_ids", "mask_encoding",
                 "single_hop_items")
SEED_RULE = "olmpics_mc_qa_seed"


def merge_seed_curves(parts: Sequence[Path], out: Path) -> pd.DataFrame:
    """One curve file from its seeds' files (``mc_qa_seed_file``), in the rows and order one job over
    all the seeds would write. The files must agree on the settings (``SEED_SETTINGS``); which version
    wrote each is provenance and may differ (every version that did is recorded)."""
    if not parts:
        raise CurveError(f"{out}: no seed files to merge")
    metadata = [_seed_file_metadata(path) for path in parts]
    first = metadata[0]
    for path, meta in zip(parts, metadata):
        differ = [key for key in SEED_SETTINGS if meta.get(key) != first.get(key)]
        if differ:
            raise CurveError(f"{path}: its {differ} differ from {parts[0]}'s; a curve file merges runs of one setting")
    seeds = [meta["seeds"][0] for meta in metadata]
    if len(set(seeds)) != len(seeds):
        raise CurveError(f"{out}: seeds {seeds} of {list(map(str, parts))} repeat")
    frames = [read_parquet(path) for path in parts]
    for path, frame, seed in zip(parts, frames, seeds):
        if set(frame["seed"]) - {seed}:
            raise CurveError(f"{path}: rows of seeds {sorted(set(frame['seed']) - {seed})}, its metadata says {seed}")
    merged = _in_run_order(pd.concat(frames, ignore_index=True), first["grid"], seeds)
    generators = sorted({meta.get("generator") for meta in metadata})
    settings = _without_job(first)  # the merging job records itself
    write_parquet(merged, out, CURVE_SCHEMA, {**settings, "generator": "; ".join(generators), "seeds": seeds})
    return merged


def _in_run_order(frame: pd.DataFrame, grid: Sequence[int], seeds: Sequence[int]) -> pd.DataFrame:
    """The rows in the order one job runs them: by (task, flavour, variant), then N and seed as listed."""
    keys = frame.assign(_n=frame["n_train"].map(list(grid).index), _seed=frame["seed"].map(list(seeds).index))
    keys = keys.sort_values(["task", "flavour", "variant", "_n", "_seed"], kind="stable")
    return frame.loc[keys.index].reset_index(drop=True)


def _seed_file_metadata(path: Path) -> dict:
    meta = read_metadata(path)
    if meta.get("dataset") != "curves" or len(meta.get("seeds", ())) != 1:
        raise CurveError(f"{path}: not one seed's curve file (metadata dataset {meta.get('dataset')!r}, "
                         f"seeds {meta.get('seeds')})")
    return meta


def split_seed_curves(curve: Path) -> list[Path]:
    """An MC-QA curve file made in one job, before each seed had its own, written as the seed files
    ``merge_seed_curves`` reads (``<folder>/seeds/<task>.<variant>.seed<seed>.parquet``); each holds the
    file's metadata with its seed alone, and the seed job's rule and revision. Returns the files written."""
    curve = Path(curve)
    frame, metadata = read_parquet(curve), read_metadata(curve)
    settings = sorted(set(frame["setting"])) if "setting" in frame else []
    if metadata.get("dataset") != "curves" or settings != ["mc_qa"]:
        raise CurveError(f"{curve}: not an MC-QA curve file (dataset {metadata.get('dataset')!r}, settings {settings})")
    unlisted = sorted(set(frame["seed"]) - set(metadata["seeds"]))
    if unlisted:
        raise CurveError(f"{curve}: rows of seeds {unlisted} that its metadata's seeds {metadata['seeds']} lack")
    outs = []
    with job_metadata({"rule": SEED_RULE, "revision": REVISIONS[SEED_RULE]}):  # as the seed job writes them
        for seed in metadata["seeds"]:
            out = curve.parent / "seeds" / f"{curve.stem}.seed{seed}.parquet"
            runs = frame[frame["seed"] == seed].reset_index(drop=True)
            write_parquet(runs, out, CURVE_SCHEMA, {**_without_job(metadata), "seeds": [seed]})
            outs.append(out)
    return outs


def _without_job(metadata: dict) -> dict:
    return {key: value for key, value in metadata.items() if key != "job"}

