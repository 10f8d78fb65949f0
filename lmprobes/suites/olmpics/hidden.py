"""The cache of encoder states at the mask that MC-MLM probes are trained on.

The MLP_MLM and LINEAR probes freeze the encoder, so an item's input to the MLM head (the final
hidden state at its mask) is the same in every epoch of every run. It is computed once per
(model, task, flavour, variant, split) and stored; the learning curves (7 N x seeds x settings) then
train heads on these vectors and never run the encoder again.

Conventions (those of ``zeroshot.py``'s ``mc_mlm`` method, so zero-shot and probing see the same
input): the stem gets the tokenizer's own mask token and is right-stripped; the model sees the
tokenizer's encoding with its special tokens; a choice is represented by its word-initial token
(``word_ids(tokenizer, word).first_id``), multi-piece choices counted in ``n_multi_piece``. A row
whose choices include the unknown token is still encoded but flagged ``kept`` False
(``skip_reason``), and the probes leave it out of training and evaluation.

Batching is the engine's (``map_row_logprobs``): token-budget batches of the length-sorted texts
(``lm.batch_tokens``), right padding, CUDA out-of-memory halving, the model's base (encoder) run
without the LM head, an identity head and no log-softmax, so the rows are the hidden states at the
mask. ``ENCODER_COUNTS`` counts the encoder's forward passes and the items encoded per (model,
task, split, variant), so tests can assert the encoder ran once per item.

Hidden states are float32 whatever the model's dtype, stored as a fixed-size list column.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import torch

from lmprobes.engine.encoding import encode_ids
from lmprobes.engine.lm import LM
from lmprobes.engine.runner import Projection, map_row_logprobs
from lmprobes.engine.tokens import WordIds
from lmprobes.io import write_parquet
from lmprobes.suites.olmpics.schema import MASK, TASKS
from lmprobes.suites.olmpics.zeroshot import UNKNOWN_CHOICE, choice_pieces, stem_for_masked

logger = logging.getLogger(__name__)

HIDDEN = "hidden"
KEY_COLUMNS = ("task", "split", "variant")


def hidden_schema(hidden_size: int) -> pa.Schema:
    """The cache's columns; the hidden state is a fixed-size float32 list of the model's width."""
    return pa.schema(
        [
            pa.field("row_id", pa.string()),
            pa.field("task", pa.string()),
            pa.field("flavour", pa.string()),
            pa.field("variant", pa.string()),
            pa.field("split", pa.string()),
            pa.field("row", pa.int32()),
            pa.field("answer", pa.int32()),
            pa.field("candidate_ids", pa.list_(pa.int64())),  # word-initial token id per choice
            pa.field("n_multi_piece", pa.int32()),
            pa.field("kept", pa.bool_()),
            pa.field("skip_reason", pa.string()),
            pa.field(HIDDEN, pa.list_(pa.float32(), hidden_size)),  # input of the MLM head at the mask
        ]
    )


class HiddenCacheError(ValueError):
    """Items or a cache file that cannot be encoded or read as asked; the message names the row or file."""


@dataclass
class EncoderCounts:
    """Forward passes of the encoder and items encoded per (model, task, split, variant)."""

    passes: int = 0
    items: Counter = field(default_factory=Counter)

    def reset(self) -> None:
        self.passes = 0
        self.items.clear()


ENCODER_COUNTS = EncoderCounts()


def encode_mask_states(lm: LM, items: pd.DataFrame, *, mask_encoding: str = "original",
                       progress: bool = False) -> pd.DataFrame:
    """One row per MC-MLM item (in the order of ``items``) with the hidden state at its mask
    (the stem's mask spelled for ``mask_encoding``, as zero-shot scoring spells it)."""
    _check_items(lm, items)
    pieces = choice_pieces(lm, items["choices"].tolist())
    texts = [stem_for_masked(lm, stem, mask_encoding) for stem in items["stem"]]
    states = _mask_states(lm, texts, items["row_id"].tolist(), progress)
    keys = list(zip(*(items[c] for c in KEY_COLUMNS), strict=True))
    ENCODER_COUNTS.items.update((lm.name, *key) for key in keys)
    frame = _frame(items, pieces, states)
    _log_skipped(lm, frame)
    return frame


def _check_items(lm: LM, items: pd.DataFrame) -> None:
    if lm.family != "masked" or lm.tokenizer.mask_token is None:
        raise HiddenCacheError(f"{lm.name}: mask states need a masked LM with a mask token")
    duplicated = items["row_id"][items["row_id"].duplicated()].tolist()
    if duplicated:
        raise HiddenCacheError(f"duplicate row ids {duplicated[:5]} in the items to encode")
    for item in items[["row_id", "task", "stem"]].itertuples(index=False):
        if item.task not in TASKS or TASKS[item.task].setup != "mc_mlm":
            raise HiddenCacheError(f"{item.row_id}: {item.task!r} is not an MC-MLM task; only those have a mask")
        if item.stem.count(MASK) != 1:
            raise HiddenCacheError(f"{item.row_id}: the stem needs exactly one {MASK}: {item.stem!r}")


def _mask_states(lm: LM, texts: list[str], row_ids: list[str], progress: bool) -> np.ndarray:
    """(n, H) float32 final hidden states at the single mask of each text (the engine's batching)."""
    sequences = encode_ids(lm.tokenizer, texts)
    positions = [[_mask_position(lm, row_id, ids)] for row_id, ids in zip(row_ids, sequences, strict=True)]
    pad_id = lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else 0
    states = Projection(base=CountedEncoder(_encoder(lm)), head=torch.nn.Identity(), log_softmax=False)

    def keep(rows: torch.Tensor, _: list) -> list[np.ndarray]:
        return list(rows.cpu().numpy())

    results = map_row_logprobs(lm, states, sequences, positions, keep, pad_id=pad_id, progress=progress,
                               desc=f"{lm.name} mask states")
    if not results:
        return np.zeros((0, _hidden_size(lm)), dtype=np.float32)
    return np.stack([found[0] for found in results])


class CountedEncoder(torch.nn.Module):
    """The encoder, counting its forward passes in ``ENCODER_COUNTS``."""

    def __init__(self, encoder: torch.nn.Module) -> None:
        super().__init__()
        self.encoder = encoder

    def forward(self, **inputs):
        ENCODER_COUNTS.passes += 1
        return self.encoder(**inputs)


def _encoder(lm: LM) -> torch.nn.Module:
    base = getattr(lm.model, "base_model", lm.model)
    if base is lm.model:
        raise HiddenCacheError(f"{lm.name}: {type(lm.model).__name__} has no separate encoder (base_model)")
    return base


def _hidden_size(lm: LM) -> int:
    config = lm.model.config
    size = getattr(config, "hidden_size", None) or getattr(config, "dim", None)
    if not size:
        raise HiddenCacheError(f"{lm.name}: the model config names no hidden size")
    return int(size)


def _mask_position(lm: LM, row_id: str, ids: list[int]) -> int:
    found = [position for position, token in enumerate(ids) if token == lm.tokenizer.mask_token_id]
    if len(found) != 1:
        raise HiddenCacheError(f"{row_id}: the stem encodes to {len(found)} mask tokens for {lm.name}, expected 1")
    return found[0]


def _frame(items: pd.DataFrame, pieces: list[list[WordIds]], states: np.ndarray) -> pd.DataFrame:
    unknown = [any(w.is_unk for w in row) for row in pieces]
    frame = pd.DataFrame({
        "row_id": items["row_id"].to_numpy(), "task": items["task"].to_numpy(),
        "flavour": items["flavour"].to_numpy(), "variant": items["variant"].to_numpy(),
        "split": items["split"].to_numpy(), "row": items["row"].to_numpy(dtype="int32"),
        "answer": items["answer"].to_numpy(dtype="int32"),
        "candidate_ids": [[w.first_id for w in row] for row in pieces],
        "n_multi_piece": np.array([sum(w.n_pieces > 1 for w in row) for row in pieces], dtype="int32"),
        "kept": np.logical_not(unknown),
        "skip_reason": [UNKNOWN_CHOICE if u else "" for u in unknown],
    })
    frame[HIDDEN] = list(states)
    return frame


def _log_skipped(lm: LM, frame: pd.DataFrame) -> None:
    skipped = frame[~frame["kept"]]
    for key, group in skipped.groupby(list(KEY_COLUMNS), sort=True):
        logger.warning("%s %s: %d of its items have a choice with the unknown token; left out of probing",
                       lm.name, "/".join(key), len(group))


def split_hidden(frame: pd.DataFrame) -> tuple[pd.DataFrame, torch.Tensor]:
    """The rows without the hidden column, and the (n, H) float32 tensor of their states, row-aligned."""
    if HIDDEN not in frame.columns:
        raise HiddenCacheError(f"the frame has no {HIDDEN!r} column of mask states")
    matrix = np.stack(frame[HIDDEN].to_list()).astype(np.float32, copy=False) if len(frame) else np.zeros((0, 0), np.float32)
    return frame.drop(columns=[HIDDEN]).reset_index(drop=True), torch.from_numpy(np.ascontiguousarray(matrix))


def write_hidden_cache(frame: pd.DataFrame, path: str | Path, metadata: dict) -> None:
    """Parquet (``lmprobes.io.write_parquet``); ``hidden_size`` joins the provenance metadata."""
    if not len(frame):
        raise HiddenCacheError(f"{path}: no rows to write")
    size = len(frame[HIDDEN].iloc[0])
    write_parquet(frame, path, hidden_schema(size), {**metadata, "hidden_size": size})


def read_hidden_cache(path: str | Path) -> tuple[pd.DataFrame, torch.Tensor]:
    """The cache's rows (without the hidden column) and the (n, H) float32 tensor of their states."""
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as err:
        raise HiddenCacheError(f"{path}: not a readable mask-state cache ({err})") from None
    if HIDDEN not in table.column_names or not pa.types.is_fixed_size_list(table.schema.field(HIDDEN).type):
        raise HiddenCacheError(f"{path}: no fixed-size {HIDDEN!r} column; not a mask-state cache")
    column = table.column(HIDDEN).combine_chunks()
    size = table.schema.field(HIDDEN).type.list_size
    matrix = np.array(column.flatten().to_numpy(zero_copy_only=False), dtype=np.float32).reshape(-1, size)
    rows = table.drop_columns([HIDDEN]).replace_schema_metadata(None).to_pandas()
    return rows, torch.from_numpy(matrix)

