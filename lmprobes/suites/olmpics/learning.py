"""The oLMpics learning-curve stages as file-to-file functions (what the rule scripts call). The torch-free
stages live apart, so that their jobs start without the training stack: merging the MC-QA seed files
(``seed_curves``) and the tables and figures (``learning_report``).

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
from lmprobes.engine.lm import library_versions
from lmprobes.io import read_metadata, read_parquet, write_parquet
from lmprobes.models import load_lm, model_provenance
from lmprobes.suites.olmpics.baselines import ESIM, baseline_curves, baseline_zero_shot, words_needed
from lmprobes.suites.olmpics.glove import read_glove
from lmprobes.suites.olmpics.heads import extract_head, load_head, save_head
from lmprobes.suites.olmpics.hidden import encode_mask_states, read_hidden_cache, write_hidden_cache
from lmprobes.suites.olmpics.hyperparameters import BASELINE, TRANSFORMER, HyperParameters
from lmprobes.suites.olmpics.mcqa import McQaError, mc_qa_curves, single_hop_stage
from lmprobes.suites.olmpics.probing import MC_MLM, mc_mlm_curves
from lmprobes.suites.olmpics.schema import CURVE_SCHEMA, baseline_kind
from lmprobes.suites.olmpics.stage_one import load_stage_one, save_stage_one

log = logging.getLogger("lmprobes.olmpics")

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


def _cached_model_provenance(hidden: Path) -> dict:
    """The model fields (``model_*``, dtype, library versions) of the run that cached ``hidden``."""
    kept = ("dtype", *library_versions())
    return {k: v for k, v in read_metadata(hidden).items() if k.startswith("model_") or k in kept}


def encode_model(release: Path, controls: Path, model_dir: Path, hidden_outs: Sequence[Path], head_out: Path, *,
                 slug: str, spec: dict, tasks: Sequence[str], variants: Sequence[str], device: str,
                 mask_encoding: str = "original", progress: bool = True) -> None:
    """Load the model once; cache the mask hidden states of every (task, variant) and the MLM head."""
    lm = load_lm(slug, spec, model_dir, device)
    items = curve_items(release, controls, tasks=tasks, variants=variants)
    encoded = encode_mask_states(lm, items, mask_encoding=mask_encoding, progress=progress)
    parts = {}
    for task, variant in product(tasks, variants):  # every part checked before anything is written
        part = encoded[(encoded["task"] == task) & (encoded["variant"] == variant)].reset_index(drop=True)
        if part.empty:
            raise ValueError(f"oLMpics {task} ({variant}): no items to encode in {release} / {controls}")
        parts[task, variant] = part
    candidates = sorted({int(i) for ids in encoded["candidate_ids"] for i in ids})
    save_head(extract_head(lm, candidates), head_out)
    for ((task, variant), part), out in zip(parts.items(), hidden_outs, strict=True):
        write_hidden_cache(part, out, {**lm.describe(), **_metadata(f"hidden/{task}.{variant}"),
                                       "mask_encoding": mask_encoding})
        log.info("%s %s (%s): %d rows cached", slug, task, variant, len(part))


def mc_mlm_curves_file(hidden: Sequence[Path], head: Path, out: Path, *, model: str, curves: dict,
                       progress: bool = True) -> pd.DataFrame:
    """MLP_MLM and LINEAR curves of one (model, task) from its cached states: the encoder is not run."""
    caches = [read_hidden_cache(path) for path in hidden]
    hp = hyper_parameters(curves, "mc_mlm")
    frame = mc_mlm_curves(caches, load_head(head), settings=curves["mc_mlm_settings"], grid=curves["grid"],
                          seeds=curves["seeds"], hp=hp, model=model, progress=progress)
    write_parquet(frame, out, CURVE_SCHEMA,
                  _curve_metadata(model, curves, hp, mc_mlm_settings=list(curves["mc_mlm_settings"]),
                                  **_cached_model_provenance(hidden[0])))
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
    masked = {"mask_encoding": curves["mask_encoding"]} if "mask_encoding" in curves else {}  # MC-MLM tasks only
    frame = mc_qa_curves(model_dir, spec, items, grid=curves["grid"], seeds=[seed], hp=hp, device=device,
                         progress=progress, slug=slug, stage_one=None if stage is None else {stage.seed: stage},
                         segment_ids=segment_ids, **masked)
    first_stage = {} if stage is None else {"single_hop_items": stage.items}
    model = {**model_provenance(spec, model_dir), "dtype": "float32", **library_versions()}
    write_parquet(frame, out, CURVE_SCHEMA, _curve_metadata(slug, {**curves, "seeds": [seed]}, hp, **model,
                                                            mc_qa_segment_ids=segment_ids, **masked, **first_stage))
    return frame


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


def untrained_rows(zero_shot: pd.DataFrame) -> pd.DataFrame:
    """The MLM-BASELINE's random-head accuracy as curve rows at N = 0."""
    return zero_shot.assign(setting="mlm_baseline", n_train=0, epoch=0,
                            epoch_accuracies=[[] for _ in range(len(zero_shot))]).reindex(columns=CURVE_SCHEMA.names)
