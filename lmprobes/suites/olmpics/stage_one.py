"""Encyclopedic composition's first fine-tuning stage, saved: the encoder and head after one seed's
fine-tuning on every single-hop fact (``single_hop``), which that seed's curve runs of every variant
start from.

One safetensors file per (model, seed): the encoder's state as ``encoder.<name>``, the MC-QA head's as
``head.<name>``, all float32 copies on the CPU, and one metadata key holding sorted-key JSON (format
version, model, seed, pooling, the number of single-hop items). The same stage gives the same bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file

from lmprobes.io import atomic_path

FORMAT_VERSION = 1
METADATA_KEY = "lmprobes_stage_one"
PARTS = ("encoder", "head")
DESCRIBED = ("format_version", "model", "seed", "pooling", "items")


class StageOneError(ValueError):
    """A stage-one file that cannot start these runs; the message names it."""


@dataclass(frozen=True)
class StageOne:
    model: str
    seed: int
    pooling: str
    items: int  # single-hop items fine-tuned on
    encoder: dict[str, torch.Tensor]
    head: dict[str, torch.Tensor]

    def describe(self) -> dict:
        return {"format_version": FORMAT_VERSION, "model": self.model, "seed": self.seed, "pooling": self.pooling,
                "items": self.items}


def save_stage_one(stage: StageOne, path: str | Path) -> None:
    """One safetensors file, written atomically."""
    tensors = {f"{part}.{name}": tensor.detach().to("cpu").contiguous()
               for part in PARTS for name, tensor in getattr(stage, part).items()}
    with atomic_path(path) as tmp:
        save_file(tensors, tmp, metadata={METADATA_KEY: json.dumps(stage.describe(), sort_keys=True)})


def load_stage_one(path: str | Path) -> StageOne:
    """The stage saved by ``save_stage_one``; an error names the file when it is not one."""
    path = Path(path)
    try:
        with safe_open(path, framework="pt") as handle:
            metadata = json.loads((handle.metadata() or {})[METADATA_KEY])
            tensors = {name: handle.get_tensor(name) for name in handle.keys()}  # noqa: SIM118 (not a dict)
    except (OSError, KeyError, ValueError, SafetensorError) as err:
        raise StageOneError(f"{path}: not a single-hop stage file written by save_stage_one ({err})") from None
    missing = [key for key in DESCRIBED if not isinstance(metadata, dict) or key not in metadata]
    if missing:
        raise StageOneError(f"{path}: the stage's metadata lacks {missing}")
    if metadata.get("format_version") != FORMAT_VERSION:
        raise StageOneError(f"{path}: stage format {metadata.get('format_version')!r}, this version reads "
                            f"{FORMAT_VERSION}; delete the file to remake it")
    parts = {part: {name.removeprefix(f"{part}."): tensor for name, tensor in tensors.items()
                    if name.startswith(f"{part}.")} for part in PARTS}
    if not all(parts.values()):
        raise StageOneError(f"{path}: the stage lacks {[part for part in PARTS if not parts[part]]} tensors")
    return StageOne(model=metadata["model"], seed=int(metadata["seed"]), pooling=metadata["pooling"],
                    items=int(metadata["items"]), **parts)
