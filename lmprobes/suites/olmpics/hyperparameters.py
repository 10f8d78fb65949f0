"""The training options of the oLMpics learning curves, torch-free: the config check reads them before
any job runs (see ``training`` for what each one means and the original's conventions)."""

from __future__ import annotations

from dataclasses import dataclass

SCHEDULES = ("slanted_triangular", "linear", "reduce_on_plateau", "constant")
OPTIMIZERS = ("adamw", "adam")
SELECTIONS = ("best", "last")


class TrainingError(ValueError):
    """A training request that cannot run as asked; the message names the option."""


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check(name: str, value: object, wanted: str, valid) -> None:
    """Refuse an option outside its range, naming it; YAML 1.1 reads ``1e-5`` (no dot) as text, so say so."""
    if valid(value):
        return
    hint = ""
    if isinstance(value, str):
        hint = f" (YAML reads {value!r} as text: write a number with a dot, e.g. 1.0e-5)"
    raise TrainingError(f"hyper-parameter {name}={value!r} must be {wanted}{hint}")


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
        for name in ("batch_size", "accumulation", "epochs", "eval_batch_size"):
            _check(name, getattr(self, name), "a whole number >= 1", lambda v: _is_int(v) and v >= 1)
        _check("lr", self.lr, "a number > 0", lambda v: _is_number(v) and v > 0)
        _check("weight_decay", self.weight_decay, "a number >= 0", lambda v: _is_number(v) and v >= 0)
        _check("warmup", self.warmup, "a share of the steps, 0 to 1", lambda v: _is_number(v) and 0 <= v <= 1)
        _check("ratio", self.ratio, "a number >= 1 (the lowest rate is lr / ratio)",
               lambda v: _is_number(v) and v >= 1)
        _check("betas", self.betas, "two numbers in [0, 1)",
               lambda v: isinstance(v, tuple) and len(v) == 2 and all(_is_number(b) and 0 <= b < 1 for b in v))
        _check("grad_norm", self.grad_norm, "null (no clipping) or a number > 0",
               lambda v: v is None or (_is_number(v) and v > 0))
        _check("patience", self.patience, "null (no early stopping) or a whole number >= 1",
               lambda v: v is None or (_is_int(v) and v >= 1))
        _check("decay_exempt", self.decay_exempt, "true or false", lambda v: isinstance(v, bool))

    @classmethod
    def from_config(cls, settings: dict) -> HyperParameters:
        """From a config mapping (``betas`` as a list); unknown keys are an error naming them."""
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(settings) - known, key=str)  # YAML keys may be numbers
        if unknown:
            raise TrainingError(f"unknown training option(s) {unknown}; known: {sorted(known)}")
        values = dict(settings)
        if isinstance(values.get("betas"), list):
            values["betas"] = tuple(values["betas"])
        return cls(**values)


TRANSFORMER = HyperParameters(lr=1e-5)
# AllenNLP's plain Adam decays every parameter (its L2 term), biases and LayerNorm weights included.
BASELINE = HyperParameters(lr=4e-4, batch_size=16, accumulation=1, epochs=75, optimizer="adam",
                           schedule="reduce_on_plateau", grad_norm=10.0, patience=10, betas=(0.9, 0.999),
                           decay_exempt=False)
