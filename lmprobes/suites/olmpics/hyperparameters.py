"""The training options of the oLMpics learning curves, torch-free: the config check reads them before
any job runs (see ``training`` for what each one means and the original's conventions)."""

from __future__ import annotations

from dataclasses import dataclass

SCHEDULES = ("slanted_triangular", "linear", "reduce_on_plateau", "constant")
OPTIMIZERS = ("adamw", "adam")
SELECTIONS = ("best", "last")


class TrainingError(ValueError):
    """A training request that cannot run as asked; the message names the option."""


@dataclass(frozen=True)
class HyperParameters:
    lr: float
    batch_size: int = 8
    accumulation: int = 2
    epochs: int = 4
    weight_decay: float = 0.1
    betas: tuple[float, float] = (0.9, 0.98)
    optimizer: str = "adamw"
    schedule: str = "slanted_triangular"
    warmup: float = 0.06  # cut_frac of slanted_triangular, warm-up share of linear
    ratio: float = 32.0  # slanted_triangular: lowest rate is lr / ratio
    grad_norm: float | None = None
    patience: int | None = None  # stop after this many epochs without a better dev accuracy
    select: str = "best"
    eval_batch_size: int = 256
    decay_exempt: bool = True  # no weight decay on biases and LayerNorm weights (AdamW groups of the original)

    def __post_init__(self) -> None:
        for name, value, allowed in (("schedule", self.schedule, SCHEDULES), ("optimizer", self.optimizer, OPTIMIZERS),
                                     ("select", self.select, SELECTIONS)):
            if value not in allowed:
                raise TrainingError(f"hyper-parameter {name}={value!r}; choose one of {list(allowed)}")
        if self.lr <= 0 or self.batch_size < 1 or self.accumulation < 1 or self.epochs < 1:
            raise TrainingError(f"lr, batch_size, accumulation and epochs must be positive: {self}")

    @classmethod
    def from_config(cls, settings: dict) -> HyperParameters:
        """From a config mapping (``betas`` as a list); unknown keys are an error naming them."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(settings) - known)
        if unknown:
            raise TrainingError(f"unknown training option(s) {unknown}; known: {sorted(known)}")
        values = dict(settings)
        if "betas" in values:
            values["betas"] = tuple(values["betas"])
        return cls(**values)


TRANSFORMER = HyperParameters(lr=1e-5)
# AllenNLP's plain Adam decays every parameter (its L2 term), biases and LayerNorm weights included.
BASELINE = HyperParameters(lr=4e-4, batch_size=16, accumulation=1, epochs=75, optimizer="adam",
                           schedule="reduce_on_plateau", grad_norm=10.0, patience=10, betas=(0.9, 0.999),
                           decay_exempt=False)
