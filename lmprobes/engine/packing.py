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

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from lmprobes.engine import runner
from lmprobes.engine.batching import (
    flatten,
    offsets_of,
    ranges,
    sort_order,
    split_lists,
    to_device,
    token_budget_batches,
)
from lmprobes.engine.lm import LM
from lmprobes.engine.runner import (
    Backoff,
    Projection,
    _progress_bar,
    forward_mode,
    gathered,
    logit_chunk_rows,
    padded_size,
    phase,
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
    """One row's prefix-tree nodes in depth-first order (for reading; the engine keeps flat arrays)."""

    tokens: list[int] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)  # one past the last node of each node's subtree


@dataclass(frozen=True)
class Packing:
    """The rows' nodes as flat arrays (row ``r`` is ``offsets[r]:offsets[r + 1]``) and where each sequence lives.

    Per node: its ``tokens``, ``depth`` and ``ends`` (one past the last node of its subtree, counted
    within its row). Sequence ``i`` lives in row ``home[i]``; ``nodes`` holds the row index of
    every token of every sequence, one sequence after another, as ``flatten(sequences)`` does.
    """

    tokens: np.ndarray
    depth: np.ndarray
    ends: np.ndarray
    offsets: np.ndarray
    home: np.ndarray
    nodes: np.ndarray
    node_offsets: np.ndarray

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def row_lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def row(self, r: int) -> PackedRow:
        part = slice(self.offsets[r], self.offsets[r + 1])
        return PackedRow(self.tokens[part].tolist(), self.depth[part].tolist(), self.ends[part].tolist())

    def nodes_of(self, i: int) -> list[int]:
        return self.nodes[self.node_offsets[i] : self.node_offsets[i + 1]].tolist()


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
    row of its own. Only the rows' greedy fill is a loop (one step per sequence); the nodes, their
    subtree ends and each token's node are array operations over all tokens at once (all of
    BLiMP's 1.39 million GPT-2 tokens: see the README's host-time figures).
    """
    row_tokens = row_tokens or ROW_TOKENS
    lengths = np.fromiter(map(len, sequences), dtype=np.int64, count=len(sequences))
    token_start = offsets_of(lengths)[:-1]
    as_lists = all(type(s) is list for s in sequences)  # lists compare as they are; others are copied
    key = sequences.__getitem__ if as_lists else (lambda i: list(sequences[i]))
    order = np.array(sorted(range(len(sequences)), key=key), dtype=np.int64)
    length = lengths[order]
    entry = ranges(token_start[order], length)  # flat position of each (sorted sequence, depth)
    token = flatten(sequences)[entry]
    sequence = np.repeat(np.arange(len(order)), length)
    depth = np.arange(len(entry)) - np.repeat(offsets_of(length)[:-1], length)
    shared = _shared_with_previous(token, length)
    fresh = _row_starts(length, shared, row_tokens)
    shared[fresh] = 0
    first = offsets_of(length - shared)[:-1]  # the node of each sequence's first token of its own
    total = int(first[-1] + length[-1] - shared[-1]) if len(order) else 0
    node, ends = _nodes_and_subtree_ends(sequence, depth, shared, first, total)
    offsets = np.append(first[fresh], total)
    row = np.cumsum(fresh) - 1
    row_start = offsets[row][sequence]  # of each token's row
    owned = depth >= shared[sequence]
    node_tokens, node_depth, node_ends = (np.zeros(total, dtype=np.int64) for _ in range(3))
    node_tokens[node[owned]] = token[owned]
    node_depth[node[owned]] = depth[owned]
    node_ends[node[owned]] = ends[owned] - row_start[owned]
    home = np.empty(len(order), dtype=np.int64)
    home[order] = row
    nodes = np.empty(len(entry), dtype=np.int64)
    nodes[entry] = node - row_start
    return Packing(node_tokens, node_depth, node_ends, offsets, home, nodes, np.append(token_start, len(entry)))


def _shared_with_previous(token: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The common prefix length of each sequence of the flat ``token`` array with the one before it."""
    shared = np.zeros(len(length), dtype=np.int64)
    if len(length) < 2:
        return shared
    start = offsets_of(length)[:-1]
    common = np.minimum(length[1:], length[:-1])
    at = np.arange(int(common.sum())) - np.repeat(offsets_of(common)[:-1], common)
    differ = token[ranges(start[1:], common)] != token[ranges(start[:-1], common)]
    first_difference = np.where(differ, at, np.iinfo(np.int64).max)
    some = common > 0
    shared[1:][some] = np.minimum(np.minimum.reduceat(first_difference, offsets_of(common)[:-1][some]), common[some])
    return shared


def _row_starts(length: np.ndarray, shared: np.ndarray, row_tokens: int) -> np.ndarray:
    """Which sequences open a new row: rows fill greedily while the nodes they add fit ``row_tokens``."""
    fresh = [False] * len(length)
    used = 0
    for k, (n, s) in enumerate(zip(length.tolist(), shared.tolist(), strict=True)):
        if k == 0 or used + n - s > row_tokens:
            fresh[k], used = True, n
        else:
            used += n - s
    return np.array(fresh, dtype=bool)


def _nodes_and_subtree_ends(sequence: np.ndarray, depth: np.ndarray, shared: np.ndarray, first: np.ndarray,
                            total: int) -> tuple[np.ndarray, np.ndarray]:
    """Each token's node (flat over all rows) and that node's subtree end, for the sorted sequences.

    At one depth, a sequence either adds its own node there (depth >= its shared prefix) or takes
    the node of the sequence just before it, which then has a token at that depth too. So, sorted
    by (depth, sequence), every own node is followed by the tokens that share it, and its subtree
    ends where the sequence after the last of them starts: at a row's end that is the next row's
    first node, which is where the flat row ends too.
    """
    if not len(depth):
        return depth.copy(), depth.copy()
    by_depth = sort_order(depth)
    owned = (depth >= shared[sequence])[by_depth]
    run = np.cumsum(owned) - 1
    opener = by_depth[owned]
    own_node = first[sequence[opener]] + depth[opener] - shared[sequence[opener]]
    last = by_depth[np.append(np.flatnonzero(owned)[1:] - 1, len(by_depth) - 1)]
    own_end = np.append(first, total)[sequence[last] + 1]
    node, ends = np.empty(len(depth), dtype=np.int64), np.empty(len(depth), dtype=np.int64)
    node[by_depth], ends[by_depth] = own_node[run], own_end[run]
    return node, ends


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
    with phase("prepare"):
        runner.check_positions(lm, sequences)
        packing = pack(sequences, row_tokens or ROW_TOKENS)
        wanted = wanted_log_probs(packing, positions)
    stored: list[tuple[np.ndarray, torch.Tensor]] = []
    lm.model.eval()

    def run(batch: list[int]) -> list[tuple[np.ndarray, torch.Tensor]]:
        return _run_rows(lm, projection, packing, wanted, batch, pad_id)

    lengths = packing.row_lengths()
    todo = np.flatnonzero(np.diff(wanted.offsets) > 0)  # a row nothing is wanted from (empty sequences) is not run
    backoff = Backoff(padded_size(lengths.tolist()))
    with _progress_bar(len(packing), progress, f"{desc} (packed rows)") as bar, forward_mode(lm):
        bar.update(len(packing) - len(todo))
        for local_batch in token_budget_batches(lengths[todo], lm.batch_tokens,
                                                equal_lengths=lm.equal_length_batches):
            batch = todo[local_batch].tolist()
            with phase("batch"):
                stored += run_halving_on_oom(batch, run, backoff)
            bar.update(len(batch))
    with phase("collect"):
        values = gathered(stored, len(wanted.node))
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


def wanted_log_probs(packing: Packing, positions: Sequence[Sequence[int]]) -> Wanted:
    """What ``packing``'s rows must compute so that each packed sequence gets the next-token log-prob at its positions.

    The next tokens are read off the packed nodes (a sequence's tokens are its nodes' tokens). Equal
    ``(row, node, next token)`` requests (a prefix shared by sentences that go on alike) become one
    entry; entries are sorted by row, node and token (one vectorised pass, no Python per token).
    """
    counts = [len(at) for at in positions]
    owner = np.repeat(np.arange(len(positions)), counts)
    position = flatten(positions)
    lengths = np.diff(packing.node_offsets)
    outside = (position < 0) | (position >= lengths[owner] - 1)
    if outside.any():
        k = int(np.argmax(outside))
        i = int(owner[k])
        raise ValueError(f"sequence {i}: position {int(position[k])} has no next token (length {int(lengths[i])})")
    at = packing.node_offsets[owner] + position
    node = packing.nodes[at]
    row = packing.home[owner]
    target = packing.tokens[packing.offsets[row] + packing.nodes[at + 1]]
    order = sort_order(row, node, target)
    row, node, target = row[order], node[order], target[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (row[1:] != row[:-1]) | (node[1:] != node[:-1]) | (target[1:] != target[:-1])
    index = np.empty(len(order), dtype=np.int64)
    index[order] = np.cumsum(new) - 1
    offsets = np.searchsorted(row[new], np.arange(len(packing) + 1))
    return Wanted(node=node[new], target=target[new], offsets=offsets, index=index, counts=counts)


def _run_rows(lm: LM, projection: Projection, packing: Packing, wanted: Wanted, batch: list[int],
              pad_id: int) -> list[tuple[np.ndarray, torch.Tensor]]:
    """``[(flat entries, their log-probs)]`` for the rows of ``batch`` (one pair; a list so halves concatenate).

    The log-probs stay on the device and every index is worked out on the host (on the device,
    finding the distinct nodes would make the host wait for the GPU), so the host can prepare the
    next batch while the GPU runs this one.
    """
    input_ids, position_ids, mask = _batch_tensors(packing, batch, pad_id, lm)
    hidden = runner.run_model(projection.base, input_ids, mask, position_ids=position_ids,
                              **projection.forward_kwargs)[0]
    starts, stops = wanted.offsets[batch], wanted.offsets[np.asarray(batch) + 1]
    counts = stops - starts
    where = ranges(starts, counts)
    values = torch.empty(len(where), dtype=torch.float32, device=lm.device)
    if not len(where):
        return [(where, values)]
    width = int(packing.row_lengths()[batch].max())
    # Ascending (a row's entries are sorted by node); one head row per distinct node, which
    # several children of one node share.
    flat_node = np.repeat(np.arange(len(batch)) * width, counts) + wanted.node[where]
    new = np.ones(len(flat_node), dtype=bool)
    new[1:] = flat_node[1:] != flat_node[:-1]
    head_row = np.cumsum(new) - 1
    chunk = logit_chunk_rows(lm)
    bounds = np.searchsorted(head_row, np.arange(0, int(new.sum()) + chunk, chunk)).tolist()
    states = hidden.reshape(-1, hidden.shape[-1])[to_device(flat_node[new], lm.device)]
    head_row, target = to_device(head_row, lm.device), to_device(wanted.target[where], lm.device)
    for k, start in enumerate(range(0, len(states), chunk)):
        logprobs = projection.head(states[start : start + chunk]).float().log_softmax(dim=-1)
        part = slice(bounds[k], bounds[k + 1])
        values[part] = logprobs[head_row[part] - start, target[part]]
    return [(where, values)]


def _batch_tensors(packing: Packing, batch: list[int], pad_id: int, lm: LM
                   ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Input ids, position ids and the additive 4-D ancestor mask of the rows of ``batch``, right-padded to the longest.

    Gathered from the packing's flat arrays; the mask is compared out on ``lm``'s device. Padding
    attends to itself only, so its softmax stays finite.
    """
    rows = np.asarray(batch, dtype=np.int64)
    lengths = packing.offsets[rows + 1] - packing.offsets[rows]
    width = int(lengths.max())
    inside = np.arange(width)[None, :] < lengths[:, None]
    where = ranges(packing.offsets[rows], lengths)

    def padded(values: np.ndarray, pad: int) -> torch.Tensor:
        out = np.full((len(rows), width), pad, dtype=np.int64)
        out[inside] = values[where]
        return to_device(out, lm.device)

    input_ids, position_ids = padded(packing.tokens, pad_id), padded(packing.depth, 0)
    ends = padded(packing.ends, 0)
    k = torch.arange(width, device=lm.device)
    allowed = (k[None, None, :] <= k[None, :, None]) & (k[None, :, None] < ends[:, None, :])
    allowed |= torch.eye(width, dtype=torch.bool, device=lm.device)[None]
    mask = torch.zeros(allowed.shape, dtype=lm.dtype, device=lm.device).masked_fill_(~allowed, torch.finfo(lm.dtype).min)
    return input_ids, position_ids, mask[:, None]
