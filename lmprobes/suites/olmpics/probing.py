"""MC-MLM learning curves: MLP_MLM and LINEAR probes trained on cached mask states.

For every (task, flavour, variant) of a mask-state cache (``hidden.py``), every setting, every N of
the grid that the kept training rows can supply (``training.curve_points``) and every seed: the N
training rows of the seed (``training.training_subset`` over the kept training rows ordered by
``row``) train a fresh probe (``heads.make_probe``) with ``training.fit``; the reported number is
the dev accuracy over every kept dev row. The encoder never runs here: the probe's input is the
cached hidden state, which is exact because the encoder is frozen (and in eval mode; the
original ran the frozen encoder with dropout active during training, which a cache cannot do).

The candidate rows of a task are the union of the word-initial ids of its kept rows (train and
dev); each row scores its own choices as local indices into them, so the softmax of the loss is
over the item's choices only, as in the original.

Hyper-parameters: ``MC_MLM`` is the original's transformer configuration with lr 5e-5. The
original's committed ``transformer_masked_lm.jsonnet`` sets ``learning_rate = 0.0`` as a per-run
placeholder, with ``5e-5`` commented beside it; we take the commented value. Pass ``hp`` (e.g.
``HyperParameters.from_config`` of a config block) to change it. ``training.fit`` averages the
cross-entropy over a batch, where the original summed it per batch; with AdamW this only changes
the effective epsilon.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import torch
from tqdm.auto import tqdm

from lmprobes.suites.olmpics.heads import PROBES, HeadError, HeadProbe, MlmHead, local_indices, make_probe
from lmprobes.suites.olmpics.hidden import HIDDEN, read_hidden_cache, split_hidden
from lmprobes.suites.olmpics.hyperparameters import TRANSFORMER, HyperParameters, TrainingError
from lmprobes.suites.olmpics.training import (
    PAPER_N,
    Examples,
    RunResult,
    curve_frame,
    curve_points,
    curve_row,
    fit,
    training_subset,
    with_overrides,
)

logger = logging.getLogger(__name__)

MC_MLM = with_overrides(TRANSFORMER, lr=5e-5)
SETTINGS = tuple(PROBES)
DEFAULT_SEEDS = (1, 2, 3, 4, 5, 6)
GROUP_COLUMNS = ["task", "flavour", "variant"]

Cache = str | Path | pd.DataFrame | tuple[pd.DataFrame, torch.Tensor]


class ProbingError(ValueError):
    """A cache, head or option that cannot give MC-MLM learning curves; the message names it."""


def load_cache(cache: Cache | list[Cache]) -> tuple[pd.DataFrame, torch.Tensor | None]:
    """(rows, (n, H) states) from a cache path, a frame with a hidden column, such a pair, or a list of them."""
    if isinstance(cache, list):
        return _concat([load_cache(part) for part in cache])
    if isinstance(cache, (str, Path)):
        return read_hidden_cache(cache)
    if isinstance(cache, pd.DataFrame):
        return split_hidden(cache) if HIDDEN in cache.columns else (cache, None)
    rows, states = cache
    if states.ndim != 2 or states.shape[0] != len(rows):
        raise ProbingError(f"the cache has {len(rows)} rows but states of shape {tuple(states.shape)}")
    return rows.reset_index(drop=True), states


def _concat(parts: list[tuple[pd.DataFrame, torch.Tensor | None]]) -> tuple[pd.DataFrame, torch.Tensor | None]:
    if not parts:
        raise ProbingError("an empty list of mask-state caches")
    if any(states is None for _, states in parts):
        return pd.concat([rows for rows, _ in parts], ignore_index=True), None
    widths = sorted({states.shape[1] for _, states in parts})
    if len(widths) > 1:
        raise ProbingError(f"the caches have states of different widths {widths}")
    rows = pd.concat([rows for rows, _ in parts], ignore_index=True)
    duplicated = rows["row_id"][rows["row_id"].duplicated()].tolist()
    if duplicated:
        raise ProbingError(f"row ids {duplicated[:5]} appear in more than one cache")
    return rows, torch.cat([states for _, states in parts])


def cache_candidate_ids(rows: pd.DataFrame) -> list[int]:
    """Every candidate id of the kept rows: the decoder rows ``heads.extract_head`` must keep."""
    kept = rows[rows["kept"].astype(bool)]
    return sorted({int(t) for ids in kept["candidate_ids"] for t in ids})


@dataclass(frozen=True)
class TaskData:
    """The kept train and dev examples of one (task, flavour, variant) and the candidate ids they use."""

    key: tuple[str, str, str]
    candidate_ids: list[int]
    train: Examples
    dev: Examples
    train_row_ids: list[str]  # the row of each example, in order
    dev_row_ids: list[str]


def mc_mlm_curves(cache: Cache | list[Cache], head: MlmHead, *, settings: Sequence[str] = SETTINGS,
                  grid: Sequence[int] = PAPER_N, seeds: Sequence[int] = DEFAULT_SEEDS, hp: HyperParameters = MC_MLM,
                  model: str, device: torch.device | str = "cpu", progress: bool = False) -> pd.DataFrame:
    """Learning-curve rows (CURVE_SCHEMA columns), one per (task, flavour, variant, setting, N, seed)."""
    _check_settings(settings, seeds)
    tasks = task_data(cache, head)
    runs = [(task, setting, n, seed) for task in tasks for setting in settings
            for n in curve_points(len(task.train), grid, what="/".join(task.key)) for seed in seeds]
    records = []
    for task, setting, n, seed in tqdm(runs, desc=f"{model} MC-MLM probes", disable=not progress, unit="run"):
        probe = make_probe(setting, head, task.candidate_ids)  # fresh for every run
        result = fit_probe(probe, task.train, task.dev, n, seed, hp, device)
        records.append(curve_row(task.key, model, setting, n, seed, result, len(task.dev)))
    return curve_frame(records)


def task_data(cache: Cache | list[Cache], head: MlmHead) -> list[TaskData]:
    """Per (task, flavour, variant) of the cache, sorted: its kept examples as probe inputs."""
    rows, states = load_cache(cache)
    if states is None:
        raise ProbingError(f"the cache frame has no {HIDDEN!r} column and no states were given")
    if len(rows) and states.shape[1] != head.hidden_size:
        raise ProbingError(f"cached states have width {states.shape[1]}, the head expects {head.hidden_size}")
    return [_task_data(key, group, states, head) for key, group in rows.groupby(GROUP_COLUMNS, sort=True)]


def _check_settings(settings: Sequence[str], seeds: Sequence[int]) -> None:
    unknown = [s for s in settings if s not in PROBES]
    if unknown:
        raise ProbingError(f"unknown MC-MLM setting(s) {unknown}; choose from {list(PROBES)}")
    if not seeds:
        raise ProbingError("no seeds given for the learning curves")


def _task_data(key: tuple, group: pd.DataFrame, states: torch.Tensor, head: MlmHead) -> TaskData:
    task = "/".join(key)
    kept = group[group["kept"].astype(bool)].sort_values(["split", "row"], kind="stable")
    n_left_out = len(group) - len(kept)
    if n_left_out:
        logger.warning("%s: %d rows with an unknown-token choice are left out of training and dev", task, n_left_out)
    candidate_ids = sorted({int(t) for ids in kept["candidate_ids"] for t in ids})
    missing = sorted(set(candidate_ids) - set(head.candidate_ids))
    if missing:
        raise ProbingError(f"{task}: candidate ids {missing} are not among the head's rows; extract the head "
                           "with every candidate id of the cache")
    train_rows, dev_rows = (kept[kept["split"] == split] for split in ("train", "dev"))
    if not len(dev_rows):
        raise ProbingError(f"{task}: no kept dev rows to evaluate the probes on")
    return TaskData(key, candidate_ids, _examples(task, train_rows, states, candidate_ids),
                    _examples(task, dev_rows, states, candidate_ids), train_rows["row_id"].tolist(),
                    dev_rows["row_id"].tolist())


def _examples(task: str, rows: pd.DataFrame, states: torch.Tensor, candidate_ids: list[int]) -> Examples:
    try:
        candidates = local_indices(candidate_ids, rows["candidate_ids"])
    except HeadError as err:
        raise ProbingError(f"{task}: {err}") from None
    labels = torch.tensor(rows["answer"].to_numpy(dtype="int64"))
    if len(labels) and (labels.min() < 0 or labels.max() >= candidates.shape[1]):
        raise ProbingError(f"{task}: an answer index is outside the {candidates.shape[1]} choices")
    hidden = states[torch.tensor(rows.index.to_numpy(dtype="int64"))]
    return Examples({"hidden": hidden, "candidates": candidates}, labels)


def fit_probe(probe: HeadProbe, train: Examples, dev: Examples, n: int, seed: int, hp: HyperParameters = MC_MLM,
              device: torch.device | str = "cpu") -> RunResult:
    """One run: ``probe`` trained on the N training examples of ``seed``, scored on every dev example."""
    try:
        subset = train.subset(training_subset(len(train), n, seed))
    except TrainingError as err:
        raise ProbingError(f"{type(probe).__name__}: {err}") from None
    return fit(probe, subset, dev, hp, seed=seed, device=device)

