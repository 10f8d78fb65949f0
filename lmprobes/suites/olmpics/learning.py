"""The oLMpics learning-curve stages as file-to-file functions (what the rule scripts call).

Items are the release's standard rows plus their NO LANG / PERTURBED LANG controls (``controls.parquet``).
Every curve file holds CURVE_SCHEMA rows; the baselines' files also hold the MLM-BASELINE's untrained
(zero-shot) accuracy as rows with ``n_train`` 0, the paper's baseline zero-shot column.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import asdict
from itertools import product
from pathlib import Path

import pandas as pd

from lmprobes import __version__
from lmprobes.io import read_metadata, read_parquet, write_parquet
from lmprobes.models import load_lm
from lmprobes.suites.olmpics.baselines import ESIM, baseline_curves, baseline_zero_shot, words_needed
from lmprobes.suites.olmpics.curve_plots import plot_learning_curves, plot_setup_comparison
from lmprobes.suites.olmpics.curves import CurveError
from lmprobes.suites.olmpics.glove import read_glove
from lmprobes.suites.olmpics.heads import extract_head, load_head, save_head
from lmprobes.suites.olmpics.hidden import encode_mask_states, read_hidden_cache, write_hidden_cache
from lmprobes.suites.olmpics.learning_tables import single_hop_note, write_learning_tables
from lmprobes.suites.olmpics.mcqa import McQaError, mc_qa_curves, single_hop_stage
from lmprobes.suites.olmpics.probing import MC_MLM, mc_mlm_curves
from lmprobes.suites.olmpics.schema import baseline_kind
from lmprobes.suites.olmpics.stage_one import load_stage_one, save_stage_one
from lmprobes.suites.olmpics.tables import read_published, zero_shot_accuracy
from lmprobes.suites.olmpics.training import BASELINE, CURVE_SCHEMA, TRANSFORMER, HyperParameters

log = logging.getLogger("lmprobes.olmpics")

# What the seed files of one curve file must agree on (the rest is provenance, and the seed).
SEED_SETTINGS = ("suite", "dataset", "model", "grid", "hyper_parameters", "mc_qa_segment_ids", "single_hop_items")

DEFAULT_TRAINING = {"mc_mlm": MC_MLM, "mc_qa": TRANSFORMER, "mlm_baseline": BASELINE, "esim": ESIM}


def hyper_parameters(curves: dict, setting: str) -> HyperParameters:
    """The original's hyper-parameters of ``setting`` with the config's overrides."""
    overrides = curves.get("training", {}).get(setting, {})
    return HyperParameters.from_config({**asdict(DEFAULT_TRAINING[setting]), **overrides})


def curve_items(release: Path, controls: Path, *, tasks: Sequence[str], variants: Sequence[str]) -> pd.DataFrame:
    """Standard release rows and their controls for ``tasks`` and ``variants`` (both splits)."""
    items = pd.concat([read_parquet(release), read_parquet(controls)], ignore_index=True)
    return items[items["task"].isin(list(tasks)) & items["variant"].isin(list(variants))].reset_index(drop=True)


def _metadata(dataset: str, **extra) -> dict:
    return {"suite": "olmpics", "dataset": dataset, "generator": f"lmprobes {__version__}", **extra}


def _curve_metadata(model: str, curves: dict, hp: HyperParameters, **extra) -> dict:
    """A curve file's provenance: the grid, the seeds and every hyper-parameter its runs trained with."""
    return _metadata("curves", model=model, grid=list(curves["grid"]), seeds=list(curves["seeds"]),
                     hyper_parameters=asdict(hp), **extra)


def encode_model(release: Path, controls: Path, model_dir: Path, hidden_outs: Sequence[Path], head_out: Path, *,
                 slug: str, spec: dict, tasks: Sequence[str], variants: Sequence[str], device: str,
                 progress: bool = True) -> None:
    """Load the model once; cache the mask hidden states of every (task, variant) and the MLM head."""
    lm = load_lm(slug, spec, model_dir, device)
    items = curve_items(release, controls, tasks=tasks, variants=variants)
    encoded = encode_mask_states(lm, items, progress=progress)
    parts = {}
    for task, variant in product(tasks, variants):  # every part checked before anything is written
        part = encoded[(encoded["task"] == task) & (encoded["variant"] == variant)].reset_index(drop=True)
        if part.empty:
            raise ValueError(f"oLMpics {task} ({variant}): no items to encode in {release} / {controls}")
        parts[task, variant] = part
    candidates = sorted({int(i) for ids in encoded["candidate_ids"] for i in ids})
    save_head(extract_head(lm, candidates), head_out)
    for ((task, variant), part), out in zip(parts.items(), hidden_outs, strict=True):
        write_hidden_cache(part, out, {**lm.describe(), **_metadata(f"hidden/{task}.{variant}")})
        log.info("%s %s (%s): %d rows cached", slug, task, variant, len(part))


def mc_mlm_curves_file(hidden: Sequence[Path], head: Path, out: Path, *, model: str, curves: dict,
                       progress: bool = True) -> pd.DataFrame:
    """MLP_MLM and LINEAR curves of one (model, task) from its cached states: the encoder is not run."""
    caches = [read_hidden_cache(path) for path in hidden]
    hp = hyper_parameters(curves, "mc_mlm")
    frame = mc_mlm_curves(caches, load_head(head), settings=curves["mc_mlm_settings"], grid=curves["grid"],
                          seeds=curves["seeds"], hp=hp, model=model, progress=progress)
    write_parquet(frame, out, CURVE_SCHEMA,
                  _curve_metadata(model, curves, hp, mc_mlm_settings=list(curves["mc_mlm_settings"])))
    return frame


def mc_qa_seed_file(release: Path, controls: Path, model_dir: Path, out: Path, *, slug: str, spec: dict, task: str,
                    variant: str, seed: int, curves: dict, device: str, progress: bool = True,
                    stage_one: Path | None = None) -> pd.DataFrame:
    """One seed's MC-QA fine-tuning runs of one (model, task, variant), every N of the grid; they start
    from the ``stage_one`` file of that seed if given (encyclopedic composition's single-hop stage, as the
    paper)."""
    items = curve_items(release, controls, tasks=[task], variants=[variant])
    stage = load_stage_one(stage_one) if stage_one else None
    hp = hyper_parameters(curves, "mc_qa")
    segment_ids = curves.get("mc_qa_segment_ids", "original")
    frame = mc_qa_curves(model_dir, spec, items, grid=curves["grid"], seeds=[seed], hp=hp, device=device,
                         progress=progress, slug=slug, stage_one=None if stage is None else {stage.seed: stage},
                         segment_ids=segment_ids)
    first_stage = {} if stage is None else {"single_hop_items": stage.items}
    write_parquet(frame, out, CURVE_SCHEMA, _curve_metadata(slug, {**curves, "seeds": [seed]}, hp,
                                                            mc_qa_segment_ids=segment_ids, **first_stage))
    return frame


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
    write_parquet(merged, out, CURVE_SCHEMA, {**first, "generator": "; ".join(generators), "seeds": seeds})
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
    file's metadata with its seed alone. Returns the files written."""
    curve = Path(curve)
    frame, metadata = read_parquet(curve), read_metadata(curve)
    settings = sorted(set(frame["setting"])) if "setting" in frame else []
    if metadata.get("dataset") != "curves" or settings != ["mc_qa"]:
        raise CurveError(f"{curve}: not an MC-QA curve file (dataset {metadata.get('dataset')!r}, settings {settings})")
    unlisted = sorted(set(frame["seed"]) - set(metadata["seeds"]))
    if unlisted:
        raise CurveError(f"{curve}: rows of seeds {unlisted} that its metadata's seeds {metadata['seeds']} lack")
    outs = []
    for seed in metadata["seeds"]:
        out = curve.parent / "seeds" / f"{curve.stem}.seed{seed}.parquet"
        runs = frame[frame["seed"] == seed].reset_index(drop=True)
        write_parquet(runs, out, CURVE_SCHEMA, {**metadata, "seeds": [seed]})
        outs.append(out)
    return outs


def single_hop_stage_file(single_hop: Path, model_dir: Path, out: Path, *, slug: str, spec: dict, seed: int,
                          curves: dict, device: str, progress: bool = True) -> None:
    """Encyclopedic composition's first stage for one (model, seed): fine-tuned on every single-hop fact
    with the MC-QA hyper-parameters, saved for the curve runs of that seed in every variant."""
    try:
        stage = single_hop_stage(model_dir, spec, read_parquet(single_hop), seed=seed,
                                 hp=hyper_parameters(curves, "mc_qa"), device=device, progress=progress, slug=slug,
                                 segment_ids=curves.get("mc_qa_segment_ids", "original"))
    except McQaError as err:
        raise McQaError(f"{single_hop}: {err}") from None
    save_stage_one(stage, out)


def baseline_curves_file(release: Path, controls: Path, glove: Path, out: Path, *, task: str, curves: dict, seed: int,
                         progress: bool = True) -> pd.DataFrame:
    """The task's baseline (MLM-BASELINE or ESIM) curves, every variant; MLM-BASELINE also untrained (N = 0)."""
    items = curve_items(release, controls, tasks=[task], variants=curves["variants"])
    kind = baseline_kind(task)
    vectors = read_glove(glove, vocabulary=words_needed(items))
    hp = hyper_parameters(curves, kind)
    frame = baseline_curves(items, vectors, kind=kind, grid=curves["grid"], seeds=curves["seeds"], hp=hp,
                            progress=progress)
    if kind == "mlm_baseline":
        frame = pd.concat([untrained_rows(baseline_zero_shot(items, vectors, seed)), frame], ignore_index=True)
    write_parquet(frame, out, CURVE_SCHEMA, _curve_metadata(kind, curves, hp))
    return frame


def _has_mc_qa_runs(frame: pd.DataFrame, task: str) -> bool:
    return bool(((frame["task"] == task) & (frame["setting"] == "mc_qa")).any())


def untrained_rows(zero_shot: pd.DataFrame) -> pd.DataFrame:
    """The MLM-BASELINE's random-head accuracy as curve rows at N = 0."""
    return zero_shot.assign(setting="mlm_baseline", n_train=0, epoch=0,
                            epoch_accuracies=[[] for _ in range(len(zero_shot))]).reindex(columns=CURVE_SCHEMA.names)


def make_learning_tables(curves: Sequence[Path], zero_shot: Sequence[Path], published: Path, tables: Sequence[Path],
                         figures: Sequence[Path], *, tasks: Sequence[str], comparison_figures: Sequence[Path] = (),
                         comparison_tasks: Sequence[str] = ()) -> None:
    """Tables 2-11 and the medals of Table 12 beside the paper's; one learning-curve figure per task and one
    MC-MLM vs MC-QA figure (Figure 2D) per compared task."""
    frames = [read_parquet(path) for path in curves]
    every = pd.concat(frames, ignore_index=True)
    trained, untrained = every[every["n_train"] > 0], every[every["n_train"] == 0]
    scores = [read_parquet(path) for path in zero_shot]
    accuracy = zero_shot_accuracy(pd.concat(scores, ignore_index=True)) if scores else pd.DataFrame(
        columns=["task", "flavour", "model", "method", "accuracy"])
    baseline = untrained[untrained["variant"] == "standard"].groupby(["task", "flavour", "model"], as_index=False)[
        "accuracy"].mean().assign(method="mc_mlm")
    accuracy = pd.concat([accuracy[["task", "flavour", "model", "method", "accuracy"]], baseline], ignore_index=True)
    out_dir = Path(tables[0]).parent
    encyclopedic = [path for path, frame in zip(curves, frames, strict=True)
                    if _has_mc_qa_runs(frame, "encyclopedic_composition")]
    notes = {"encyclopedic_composition": single_hop_note([read_metadata(path).get("single_hop_items")
                                                          for path in encyclopedic])} if encyclopedic else {}
    write_learning_tables(trained, accuracy, read_published(published), out_dir, task_notes=notes)
    for task, figure in zip(tasks, figures, strict=True):
        plot_learning_curves(trained, figure, task)
    for task, figure in zip(comparison_tasks, comparison_figures, strict=True):
        plot_setup_comparison(trained, figure, task)
