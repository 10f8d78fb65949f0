"""Getting models: hub snapshots at a pinned revision, offline loading, device and dtype."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import torch

from lmprobes.engine.lm import DTYPES, LM

log = logging.getLogger("lmprobes.models")

# What a scoring job needs from a hub repository (no TF/Flax/ONNX weights).
SNAPSHOT_PATTERNS = [
    "*.json",
    "*.safetensors",
    "*.txt",
    "*.model",
    "merges.txt",
    "vocab.*",
]


class ModelError(RuntimeError):
    """A model that cannot be used as configured; the message names the model and the path."""


def download_model(hub_id: str, revision: str, dest: Path) -> Path:
    """Snapshot ``hub_id`` at ``revision`` into ``dest`` (meant for a cluster's login node)."""
    from huggingface_hub import snapshot_download

    dest = Path(dest)
    tmp = dest.with_name(f".{dest.name}.partial")
    snapshot_download(repo_id=hub_id, revision=revision, local_dir=tmp, allow_patterns=SNAPSHOT_PATTERNS)
    if not any(tmp.glob("*.safetensors")):
        shutil.rmtree(tmp, ignore_errors=True)
        raise ModelError(f"{hub_id}@{revision}: no safetensors weights in the snapshot")
    shutil.rmtree(tmp / ".cache", ignore_errors=True)
    if dest.exists():
        shutil.rmtree(dest)
    os.replace(tmp, dest)
    return dest


def resolve_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ModelError("device: cuda was asked for but torch sees no CUDA device")
    return torch.device(device)


def load_lm(slug: str, spec: dict, model_dir: Path, device: str = "auto") -> LM:
    """Load a configured model from a local folder, offline, on ``device`` in ``spec['dtype']``.

    A masked model whose tokenizer has no mask token is refused here, before any scoring.
    """
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    model_dir = Path(model_dir)
    if not (model_dir / "config.json").exists():
        raise ModelError(f"model {slug!r}: no config.json in {model_dir} (download or build it first)")
    tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    family = spec["family"]
    if family == "masked" and tokenizer.mask_token is None:
        raise ModelError(
            f"model {slug!r}: the tokenizer in {model_dir} has no mask token, "
            "so it cannot be scored as a masked LM (family: masked)"
        )
    auto = AutoModelForMaskedLM if family == "masked" else AutoModelForCausalLM
    dtype = DTYPES[spec.get("dtype", "float32")]
    target = resolve_device(device)
    model = auto.from_pretrained(model_dir, local_files_only=True, dtype=dtype).to(target).eval()
    return LM(
        name=slug,
        model=model,
        tokenizer=tokenizer,
        family=family,
        device=target,
        dtype=dtype,
        batch_tokens=spec.get("batch_tokens", 8192),
        revision=spec.get("revision"),
        source=spec.get("hub_id") or spec.get("path") or "tiny",
    )
