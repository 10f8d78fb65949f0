"""The training core of the oLMpics learning curves: one seeded run of a choice scorer on N examples.

Every learned setting (MLP_MLM and LINEAR heads on cached encoder states, MC-QA fine-tuning, the
MLM-BASELINE and ESIM baselines) is a ``torch.nn.Module`` that maps a batch of inputs to one logit per
choice, ``(batch, n_choices)``, trained here with cross-entropy over those logits only.

Conventions of the original AllenNLP implementation (``oLMpics/allennlp_models/config``):

- transformer settings: AdamW (weight decay 0.1, none on biases and LayerNorm weights, betas 0.9/0.98;
  AllenNLP's ``adamw`` is ``torch.optim.AdamW``, so eps 1e-8 and bias correction, not transformers'
  ``AdamW``, which its ``huggingface_adamw`` names),
  batches of 8 with 2 accumulation steps (the loss of each batch is divided by 2, as AllenNLP does), 4
  epochs, and AllenNLP's ``slanted_triangular`` schedule (cut_frac 0.06, ratio 32): the learning rate
  rises linearly from lr/32 over the first 6% of the optimiser steps, then falls linearly back to lr/32.
  ``schedule="linear"`` (HuggingFace's warm-up then linear decay to 0) is the named alternative.
- baselines: Adam (L2 weight decay 0.1 added to the gradient of every parameter), batches of 16, gradient norm clipped at
  10, up to 75 epochs with patience 10 and ``reduce_on_plateau`` (halve the rate when dev accuracy did
  not improve).
- the reported accuracy is the best dev accuracy over epochs (AllenNLP keeps the best epoch by the
  validation metric); ``select="last"`` reports the last epoch instead.
- the N training examples of seed s are the first N of a permutation of the training set drawn from
  ``numpy.random.default_rng(s)``, so the subsets of one seed are nested (62 ⊂ 125 ⊂ …); the original
  drew ``random.sample`` independently per run. N larger than the training set is left out of the curve.

A run is deterministic on CPU: the same seed gives the same subset, initialisation, batch order and
accuracy, bit for bit. On CUDA out-of-memory a run goes on in smaller passes (``accumulate_gradients``,
``predict``): the same gradients and predictions up to float rounding, dropout drawn anew.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
import torch
from torch import nn
from tqdm.auto import tqdm

from lmprobes.suites.olmpics.hyperparameters import HyperParameters, TrainingError
from lmprobes.suites.olmpics.schema import CURVE_SCHEMA

PAPER_N = (62, 125, 250, 500, 1000, 2000, 4000)
logger = logging.getLogger(__name__)
NO_DECAY = re.compile(r"(^|\.)bias$|LayerNorm\.weight$|layer_norm\.weight$|(^|\.)norm\.weight$")


@dataclass
class Examples:
    """Tensors whose first dimension indexes the examples, and the index of each answer."""

    inputs: dict[str, torch.Tensor]
    labels: torch.Tensor
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, tensor in self.inputs.items():
            if tensor.shape[0] != len(self.labels):
                raise TrainingError(f"input {name!r} has {tensor.shape[0]} rows for {len(self.labels)} labels")

    def __len__(self) -> int:
        return len(self.labels)

    def subset(self, indices: Sequence[int] | np.ndarray) -> Examples:
        index = torch.as_tensor(np.asarray(indices, dtype=np.int64))
        return Examples({k: v[index] for k, v in self.inputs.items()}, self.labels[index], self.meta)

    def batches(self, order: torch.Tensor, size: int, device: torch.device) -> Iterator[tuple[dict, torch.Tensor]]:
        for start in range(0, len(order), size):
            index = order[start:start + size]
            yield {k: v[index].to(device) for k, v in self.inputs.items()}, self.labels[index].to(device)


@dataclass(frozen=True)
class RunResult:
    accuracy: float  # percent, of the selected epoch
    epoch: int  # 1-based
    epoch_accuracies: tuple[float, ...]


def curve_points(n_available: int, grid: Sequence[int] = PAPER_N, *, what: str = "the training set") -> list[int]:
    """The N of ``grid`` the training set can supply (Always-Never has 1,004 training rows: no 2K, 4K);
    none at all is an error naming ``what``, not a curve file without rows."""
    points = [n for n in grid if n <= n_available]
    if not points:
        raise TrainingError(f"{what}: {n_available} training examples, fewer than every N of the grid "
                            f"{sorted(grid)}; no learning-curve point can be drawn (lower the grid)")
    return points


def training_subset(n_available: int, n: int, seed: int) -> np.ndarray:
    """The indices of the N training examples of ``seed``: nested across N for one seed."""
    if not 0 < n <= n_available:
        raise TrainingError(f"cannot draw {n} training examples from {n_available}")
    return np.random.default_rng(seed).permutation(n_available)[:n]


def slanted_triangular(step: int, total: int, cut_frac: float, ratio: float) -> float:
    """AllenNLP's slanted triangular multiplier of the base rate at its batch number ``step``.

    AllenNLP's trainer counts a batch before it sets the rate, so its first optimiser step is
    number 1 (at lr × (1 + (1/cut)·31)/32, or just under the peak when cut is 0) and its last, number
    ``total``, runs at lr/32 (``step_multiplier`` passes the step that way).
    """
    step = min(step, total)
    cut = int(total * cut_frac)
    if step < cut:
        proportion = step / cut
    else:
        proportion = 1 - (step - cut) / max(total - cut, 1)
    return (1 + proportion * (ratio - 1)) / ratio


def linear_warmup(step: int, total: int, warmup: float) -> float:
    """HuggingFace's ``get_linear_schedule_with_warmup`` multiplier."""
    warm = int(total * warmup)
    if step < warm:
        return step / max(1, warm)
    return max(0.0, (total - step) / max(1, total - warm))


def parameter_groups(model: nn.Module, weight_decay: float, exempt: bool = True) -> list[dict]:
    """Trainable parameters, without weight decay on biases and LayerNorm weights when ``exempt``."""
    decay, no_decay = [], []
    for name, parameter in model.named_parameters():
        if parameter.requires_grad:
            (no_decay if exempt and NO_DECAY.search(name) else decay).append(parameter)
    if not decay and not no_decay:
        raise TrainingError(f"{type(model).__name__} has no trainable parameters")
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def make_optimizer(model: nn.Module, hp: HyperParameters) -> torch.optim.Optimizer:
    groups = parameter_groups(model, hp.weight_decay, hp.decay_exempt)
    if hp.optimizer == "adamw":
        return torch.optim.AdamW(groups, lr=hp.lr, betas=hp.betas)
    return torch.optim.Adam(groups, lr=hp.lr, betas=hp.betas)


def step_multiplier(hp: HyperParameters, total_steps: int) -> Callable[[int], float]:
    """The base rate's multiplier at each 0-based optimiser step of a run of ``total_steps``."""
    if hp.schedule == "slanted_triangular":
        return lambda step: slanted_triangular(step + 1, total_steps, hp.warmup, hp.ratio)
    if hp.schedule == "linear":
        return lambda step: linear_warmup(step, total_steps, hp.warmup)
    return lambda step: 1.0


@dataclass
class MemoryLimit:
    """The most examples one forward/backward pass may hold; halved on each CUDA out-of-memory."""

    rows: int


@torch.no_grad()
def predict(model: nn.Module, examples: Examples, batch_size: int | MemoryLimit, device: torch.device) -> torch.Tensor:
    """The argmax choice per example (the first of tied maxima). On CUDA out-of-memory the batch
    size is halved and the prediction run again (a ``MemoryLimit`` keeps the lesson for later calls)."""
    model.eval()
    memory = batch_size if isinstance(batch_size, MemoryLimit) else MemoryLimit(batch_size)
    if not len(examples):
        return torch.zeros(0, dtype=torch.long)
    order = torch.arange(len(examples))
    while True:
        try:
            return torch.cat([model(**inputs).argmax(dim=-1).cpu()
                              for inputs, _ in examples.batches(order, memory.rows, device)])
        except torch.cuda.OutOfMemoryError:
            if memory.rows == 1:
                raise
        _halve_after_oom(memory, "predicting")


def accuracy(model: nn.Module, examples: Examples, batch_size: int | MemoryLimit, device: torch.device) -> float:
    predicted = predict(model, examples, batch_size, device)
    return 100.0 * float((predicted == examples.labels).double().mean())


def eval_rows(examples: Examples, most: int, tokens: int | None) -> int:
    """Examples per evaluation pass: ``most``, fewer where their ``input_ids`` would hold more than
    ``tokens`` token positions (choices x padded length each; the model's ``batch_tokens``), at least one."""
    ids = examples.inputs.get("input_ids")
    if tokens is None or ids is None or not len(examples):
        return most
    per_example = math.prod(ids.shape[1:])
    return max(1, min(most, tokens // per_example))


def fit(model: nn.Module, train: Examples, dev: Examples, hp: HyperParameters, *, seed: int,
        device: torch.device | str = "cpu", progress: bool = False, description: str = "",
        eval_tokens: int | None = None) -> RunResult:
    """Train ``model`` on ``train`` with cross-entropy over its choice logits; dev accuracy per epoch.

    Training batches are the hyper-parameters' (the paper's); the dev passes hold at most
    ``eval_tokens`` token positions (``eval_rows``), up to ``hp.eval_batch_size`` examples."""
    device = torch.device(device)
    model.to(device)
    generator = torch.Generator().manual_seed(seed)
    optimizer = make_optimizer(model, hp)
    steps_per_epoch = math.ceil(len(train) / (hp.batch_size * hp.accumulation))
    multiplier = step_multiplier(hp, steps_per_epoch * hp.epochs)
    plateau = (torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max", factor=0.5, patience=0)
               if hp.schedule == "reduce_on_plateau" else None)
    loss_fn = nn.CrossEntropyLoss()
    memory, eval_memory = MemoryLimit(hp.batch_size), MemoryLimit(eval_rows(dev, hp.eval_batch_size, eval_tokens))
    history: list[float] = []
    step = 0
    bar = tqdm(range(hp.epochs), desc=description or "training", disable=not progress, leave=False)
    for _ in bar:
        model.train()
        order = torch.randperm(len(train), generator=generator)
        batches = list(train.batches(order, hp.batch_size, device))
        for start in range(0, len(batches), hp.accumulation):
            group = batches[start:start + hp.accumulation]
            _set_rate(optimizer, hp.lr, multiplier(step) if plateau is None else None)
            accumulate_gradients(model, loss_fn, group, memory, optimizer)
            if hp.grad_norm:
                nn.utils.clip_grad_norm_(model.parameters(), hp.grad_norm)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            step += 1
        history.append(accuracy(model, dev, eval_memory, device))
        bar.set_postfix(dev=f"{history[-1]:.1f}")
        if plateau is not None:
            plateau.step(history[-1])
        if hp.patience is not None and len(history) - 1 - history.index(max(history)) >= hp.patience:
            break
    chosen = history.index(max(history)) if hp.select == "best" else len(history) - 1
    return RunResult(history[chosen], chosen + 1, tuple(history))


def accumulate_gradients(model: nn.Module, loss_fn: nn.Module, group: list[tuple[dict, torch.Tensor]],
                         memory: MemoryLimit, optimizer: torch.optim.Optimizer) -> None:
    """The gradient of the group's mean batch loss (each batch's mean cross-entropy / len(group)).

    A batch larger than ``memory.rows`` runs in parts weighted by their share of it, which is the
    same sum. On CUDA out-of-memory the gradients are cleared, the limit halved and the whole group
    run again, so no part of the failed attempt is counted (only dropout draws differ).
    """
    while True:
        try:
            for inputs, labels in group:
                for start in range(0, len(labels), memory.rows):
                    part = slice(start, start + memory.rows)
                    logits = model(**{name: value[part] for name, value in inputs.items()})
                    share = len(labels[part]) / len(labels)  # 1.0 unless split: the loss is then unchanged
                    (loss_fn(logits, labels[part]) * share / len(group)).backward()
            return
        except torch.cuda.OutOfMemoryError:
            if memory.rows == 1:
                raise
        # Retried outside the except block so the failed attempt's tensors can be freed first.
        optimizer.zero_grad(set_to_none=True)
        _halve_after_oom(memory, "training; running the accumulation group again")


def _halve_after_oom(memory: MemoryLimit, doing: str) -> None:
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    memory.rows = (memory.rows + 1) // 2
    logger.warning("CUDA out of memory while %s, at most %d examples per pass", doing, memory.rows)


def _set_rate(optimizer: torch.optim.Optimizer, base: float, multiplier: float | None) -> None:
    if multiplier is None:  # reduce_on_plateau manages the rate itself
        return
    for group in optimizer.param_groups:
        group["lr"] = base * multiplier


def with_overrides(hp: HyperParameters, **changes) -> HyperParameters:
    return replace(hp, **changes)


def curve_row(key: tuple[str, str, str], model: str, setting: str, n: int, seed: int, result: RunResult,
              n_dev: int) -> dict:
    """One CURVE_SCHEMA row: the run of ``setting`` on N examples of (task, flavour, variant) ``key``."""
    task, flavour, variant = key
    return {"task": task, "flavour": flavour, "variant": variant, "model": model, "setting": setting,
            "n_train": n, "seed": seed, "accuracy": result.accuracy, "n_dev": n_dev, "epoch": result.epoch,
            "epoch_accuracies": list(result.epoch_accuracies)}


def curve_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(rows, columns=CURVE_SCHEMA.names)
    return frame.astype({"n_train": "int32", "seed": "int32", "n_dev": "int32", "epoch": "int32",
                         "accuracy": "float64"})
