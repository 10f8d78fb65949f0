"""Prefix-tree packing for causal scoring: every distinct prefix is run through the model once.

In a causal LM the distribution after a prefix depends on that prefix alone, so sequences that
start alike (a BLiMP pair, the candidates of one LAMA or oLMpics question, the many sentences
opening with "The") need their shared prefix computed only once. The sequences are sorted, cut
into rows of at most ``row_tokens`` prefix-tree nodes, and each node attends to its ancestors
only: a 4-D attention mask over the row, with position ids equal to the node's depth. On the
real 2,000-pair BLiMP sample this feeds 27,530 nodes instead of 41,449 tokens with GPT-2's
tokenizer; the LM head runs once per node that has a scored child.

Because the rows are filled in sorted order, nodes are in depth-first pre-order, so a node's
subtree is a contiguous range: ``j`` is an ancestor-or-self of ``k`` exactly when
``j <= k < end[j]``. That builds each mask in one vectorised comparison.

The result equals the padded loop up to float rounding (attention sums run over a longer,
masked row). Models need learned or rotary positions taken from ``position_ids`` and a stack
that takes a ready 4-D mask; ``PACKABLE`` lists the architectures the tests check.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from lmprobes.engine import runner
from lmprobes.engine.batching import flatten, ranges, sort_order, split_lists, token_budget_batches
from lmprobes.engine.lm import LM
from lmprobes.engine.runner import (
    Backoff,
    Projection,
    _progress_bar,
    forward_mode,
    logit_chunk_rows,
    padded_size,
    run_halving_on_oom,
)

# model_type values whose stacks take position ids and a 4-D float mask (checked in the tests).
# Checked in tests/test_engine_packing.py against a plain forward. Left out: position biases built
# from the 2-D mask (BLOOM's and MPT's ALiBi, Falcon's alibi variant), and types whose logits are
# rescaled (Gemma 2, Cohere), which run a full forward and are never packed.
PACKABLE = frozenset({"gpt2", "llama", "mistral", "qwen2", "gpt_neox", "opt", "gpt_neo", "gptj", "phi", "phi3",
                      "gemma", "gemma3_text", "granite", "olmo", "olmo2", "starcoder2", "qwen3", "smollm3", "xglm"})
ROW_TOKENS = 128


@dataclass
class PackedRow:
    """Prefix-tree nodes in depth-first order: the token at each node and the node's depth."""

    tokens: list[int] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)  # one past the last node of each node's subtree


@dataclass(frozen=True)
class Packing:
    """The rows, and for each sequence the row it lives in and the row index of each of its tokens."""

    rows: list[PackedRow]
    home: list[int]
    nodes: list[list[int]]


def attention_window(lm: LM) -> int | None:
    """The narrowest local-attention window of the model's layers (None when every layer sees all).

    Sliding windows (Mistral, Gemma 3, Phi-3, StarCoder2, ...) are dropped by transformers when it
    is handed a ready 4-D mask, and GPT-Neo's local window counts row positions, not depths: packing
    is exact only while no window can cut a sequence or a shared row (``fits_attention_window``).
    """
    config = lm.model.config
    windows = [getattr(config, "window_size", None)]
    if getattr(config, "use_sliding_window", True) is not False:
        windows.append(getattr(config, "sliding_window", None))
    windows = [w for w in windows if isinstance(w, int) and w > 0]
    return min(windows) if windows else None


def fits_attention_window(lm: LM, sequences: Sequence[Sequence[int]]) -> bool:
    """Whether every sequence and every packed row is within the model's attention window."""
    window = attention_window(lm)
    longest = max((len(s) for s in sequences), default=0)
    return window is None or max(longest, ROW_TOKENS) <= window


def can_pack(lm: LM) -> bool:
    """Whether ``lm`` is scored with prefix-tree packing (``lm.packing``: auto, trie or none)."""
    if lm.packing == "none":
        return False
    packable = getattr(lm.model.config, "model_type", None) in PACKABLE
    if lm.packing == "trie" and not packable:
        raise ValueError(
            f"{lm.name}: packing 'trie' is checked only for model types {sorted(PACKABLE)}, "
            f"not {lm.model.config.model_type!r}; use packing 'auto' or 'none'"
        )
    return packable


def pack(sequences: Sequence[Sequence[int]], row_tokens: int | None = None) -> Packing:
    """Sorted sequences, each adding only the nodes its row does not hold yet.

    In sorted order the longest prefix a sequence shares with any earlier one in the row is the
    one it shares with the sequence just before it. A sequence longer than ``row_tokens`` gets a
    row of its own.
    """
    row_tokens = row_tokens or ROW_TOKENS
    rows: list[PackedRow] = []
    home = [0] * len(sequences)
    nodes: list[list[int]] = [[] for _ in sequences]
    path: list[int] = []
    previous: Sequence[int] = ()
    for index in sorted(range(len(sequences)), key=lambda i: list(sequences[i])):
        sequence = sequences[index]
        shared = _common_prefix(previous, sequence) if rows else 0
        if not rows or len(rows[-1].tokens) + len(sequence) - shared > row_tokens:
            if rows:
                _close_subtrees(rows[-1], path, 0)
            rows.append(PackedRow())
            shared, path = 0, []
        row = rows[-1]
        _close_subtrees(row, path, shared)  # no later sequence of the row shares these nodes
        start, added = len(row.tokens), len(sequence) - shared
        path.extend(range(start, start + added))
        row.tokens.extend(sequence[shared:])
        row.depth.extend(range(shared, len(sequence)))
        row.ends.extend([0] * added)
        home[index], nodes[index], previous = len(rows) - 1, list(path), sequence
    if rows:
        _close_subtrees(rows[-1], path, 0)
    return Packing(rows, home, nodes)


def _close_subtrees(row: PackedRow, path: list[int], keep: int) -> None:
    """End the subtrees of the path's nodes from depth ``keep`` on at the row's current length."""
    end = len(row.tokens)
    for node in path[keep:]:
        row.ends[node] = end
    del path[keep:]


def packed_next_token_logprobs(
    lm: LM,
    projection: Projection,
    sequences: Sequence[Sequence[int]],
    positions: Sequence[Sequence[int]],
    *,
    pad_id: int,
    progress: bool,
    desc: str,
    row_tokens: int | None = None,
) -> tuple[list[list[int]], list[list[float]]]:
    """For each sequence, the next tokens ``t[p+1]`` and their ``log p(t[p+1] | t[:p+1])`` at each position ``p`` given.

    ``projection`` is the causal stack and its output layer (``causal.causal_projection``).
    """
    if not sequences:
        return [], []
    packing = pack(sequences, row_tokens or ROW_TOKENS)
    wanted = wanted_log_probs(packing, sequences, positions)
    values = np.zeros(len(wanted.node), dtype=np.float64)
    lm.model.eval()

    def run(batch: list[int]) -> list[tuple[np.ndarray, list[float]]]:
        return _run_rows(lm, projection, packing.rows, wanted, batch, pad_id)

    lengths = [len(row.tokens) for row in packing.rows]
    backoff = Backoff(padded_size(lengths))
    with _progress_bar(len(packing.rows), progress, f"{desc} (packed rows)") as bar, forward_mode(lm):
        for batch in token_budget_batches(lengths, lm.batch_tokens, equal_lengths=lm.equal_length_batches):
            for where, batch_values in run_halving_on_oom(batch, run, backoff):
                values[where] = batch_values
            bar.update(len(batch))
    return split_lists(wanted.target[wanted.index].tolist(), wanted.counts), split_lists(
        values[wanted.index].tolist(), wanted.counts)


@dataclass(frozen=True)
class Wanted:
    """The distinct ``(node, next token)`` log-probs the rows must give, and where each sequence finds its own.

    Row ``r``'s entries are ``offsets[r]:offsets[r + 1]`` of the flat ``node`` and ``target`` arrays;
    ``index`` holds the flat entry of every wanted position, sequence after sequence.
    """

    node: np.ndarray
    target: np.ndarray
    offsets: np.ndarray
    index: np.ndarray
    counts: list[int]


def wanted_log_probs(packing: Packing, sequences: Sequence[Sequence[int]], positions: Sequence[Sequence[int]]) -> Wanted:
    """What ``packing``'s rows must compute so that each sequence gets the next-token log-prob at its positions.

    Equal ``(row, node, next token)`` requests (a prefix shared by sentences that go on alike) become
    one entry; entries are sorted by row, node and token (one vectorised pass, no Python per token).
    """
    counts = [len(at) for at in positions]
    owner = np.repeat(np.arange(len(sequences)), counts)
    position = flatten(positions)
    lengths = np.array([len(s) for s in sequences], dtype=np.int64)
    outside = (position < 0) | (position >= lengths[owner] - 1)
    if outside.any():
        k = int(np.argmax(outside))
        i = int(owner[k])
        raise ValueError(f"sequence {i}: position {int(position[k])} has no next token (length {len(sequences[i])})")
    token_start = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    node = flatten(packing.nodes)[token_start[owner] + position]
    target = flatten(sequences)[token_start[owner] + position + 1]
    row = np.asarray(packing.home, dtype=np.int64)[owner]
    order = sort_order(row, node, target)
    row, node, target = row[order], node[order], target[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (row[1:] != row[:-1]) | (node[1:] != node[:-1]) | (target[1:] != target[:-1])
    index = np.empty(len(order), dtype=np.int64)
    index[order] = np.cumsum(new) - 1
    offsets = np.searchsorted(row[new], np.arange(len(packing.rows) + 1))
    return Wanted(node=node[new], target=target[new], offsets=offsets, index=index, counts=counts)


def _run_rows(lm: LM, projection: Projection, rows: list[PackedRow], wanted: Wanted, batch: list[int],
              pad_id: int) -> list[tuple[np.ndarray, list[float]]]:
    """``[(flat entries, their log-probs)]`` for the rows of ``batch`` (one pair; a list so halves concatenate)."""
    input_ids, position_ids, mask = _batch_tensors([rows[r] for r in batch], pad_id, lm)
    hidden = runner.run_model(projection.base, input_ids, mask, position_ids=position_ids,
                              **projection.forward_kwargs)[0]
    starts, stops = wanted.offsets[batch], wanted.offsets[np.asarray(batch) + 1]
    counts = stops - starts
    where = ranges(starts, counts)
    if not len(where):
        return [(where, [])]
    width = hidden.shape[1]
    flat_node = torch.from_numpy(np.repeat(np.arange(len(batch)) * width, counts) + wanted.node[where]).to(lm.device)
    target = torch.from_numpy(wanted.target[where]).to(lm.device)
    # One head row per distinct node; several children of one node share it.
    distinct, inverse = torch.unique(flat_node, return_inverse=True)
    states = hidden.reshape(-1, hidden.shape[-1])[distinct]
    values = torch.empty(len(target), dtype=torch.float32, device=lm.device)
    by_head_row = inverse.argsort(stable=True)
    chunk = logit_chunk_rows(lm)
    bounds = torch.searchsorted(inverse[by_head_row], torch.arange(0, states.shape[0] + chunk, chunk, device=lm.device))
    for k, start in enumerate(range(0, states.shape[0], chunk)):
        logprobs = projection.head(states[start : start + chunk]).float().log_softmax(dim=-1)
        here = by_head_row[bounds[k] : bounds[k + 1]]
        values[here] = logprobs[inverse[here] - start, target[here]]
    return [(where, values.tolist())]


def _batch_tensors(rows: list[PackedRow], pad_id: int, lm: LM) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Input ids, position ids and the additive 4-D ancestor mask, right-padded to the longest row.

    Built from flat lists (one tensor each, not one per row); the mask is compared out on ``lm``'s
    device. Padding attends to itself only, so its softmax stays finite.
    """
    lengths = torch.tensor([len(row.tokens) for row in rows])
    width = int(lengths.max())
    inside = torch.arange(width)[None, :] < lengths[:, None]

    def padded(field: str, pad: int) -> torch.Tensor:
        values = torch.full((len(rows), width), pad, dtype=torch.long)
        values[inside] = torch.tensor(list(itertools.chain.from_iterable(getattr(row, field) for row in rows)))
        return values.to(lm.device)

    input_ids, position_ids, ends = padded("tokens", pad_id), padded("depth", 0), padded("ends", 0)
    k = torch.arange(width, device=lm.device)
    allowed = (k[None, None, :] <= k[None, :, None]) & (k[None, :, None] < ends[:, None, :])
    allowed |= torch.eye(width, dtype=torch.bool, device=lm.device)[None]
    mask = torch.zeros(allowed.shape, dtype=lm.dtype, device=lm.device).masked_fill_(~allowed, torch.finfo(lm.dtype).min)
    return input_ids, position_ids, mask[:, None]


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n

