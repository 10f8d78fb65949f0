"""Pseudo-log-likelihood of whole sentences under a masked LM.

- ``original`` (Salazar et al. 2020): for each token i, mask i alone and score log p(t_i | rest).
- ``within_word_l2r`` (Kauf & Ivanova 2023): when scoring piece i of a word, also mask the pieces
  of the same word to its right. Words are the tokenizer's own word ids, as in minicons.

Special tokens (``[CLS]``, ``</s>``, ...) are neither scored nor masked. Every masked copy of every
sentence is one item of the shared runner: copies of many sentences are batched together by the
token budget and the LM head is applied only at the one scored row of each copy. Copies are built
on demand, so scoring many sentences does not hold all of them in memory. Identical copies (two
sentences of a minimal pair that differ only in the masked token) run once and score each target.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from lmprobes.engine.batching import TokenTable, flatten, sort_order
from lmprobes.engine.causal import SequenceScore
from lmprobes.engine.encoding import encode_ids_and_words
from lmprobes.engine.lm import LM
from lmprobes.engine.masked import masked_projection
from lmprobes.engine.runner import Row, gc_paused, map_row_logprobs

__all__ = ["VARIANTS", "masked_spans", "pseudo_log_likelihoods"]

VARIANTS = ("original", "within_word_l2r")


@gc_paused()
def pseudo_log_likelihoods(
    lm: LM, texts: Sequence[str], *, variant: str = "original", progress: bool = True
) -> list[SequenceScore]:
    """Per text, ``log p(t_i | copy with t_i masked)`` for every non-special token, in order.

    ``SequenceScore.total`` is the PLL (sum). The text is encoded by the tokenizer with its own
    special tokens; a text with no ordinary tokens gets an empty score (total 0).
    """
    _check_masked_fast(lm)
    if variant not in VARIANTS:
        raise ValueError(f"unknown PLL variant {variant!r}; choose one of {VARIANTS}")
    if not texts:
        return []
    sequences, words = encode_ids_and_words(lm.tokenizer, texts)
    spans = [masked_spans(word_ids, variant) for word_ids in words]
    copies = MaskedCopies(sequences, spans, lm.tokenizer.mask_token_id)
    distinct = DistinctCopies(copies)
    targets = [[copies.targets[copy] for copy in aliases] for aliases in distinct.aliases]

    def scored_token_logprobs(logprobs: torch.Tensor, rows: list[Row]) -> list[list[float]]:
        wanted = [targets[row.item] for row in rows]
        values = logprobs.gather(1, _padded(wanted, logprobs.device)).tolist()
        return [row_values[: len(row_targets)] for row_values, row_targets in zip(values, wanted, strict=True)]

    results = map_row_logprobs(
        lm,
        masked_projection(lm),
        distinct,
        distinct.positions,
        scored_token_logprobs,
        pad_id=_pad_id(lm),
        progress=progress,
        desc=f"{lm.name} PLL ({variant}) masked copies",
    )
    return _assemble(copies, distinct.per_copy(results))


def masked_spans(word_ids: Sequence[int | None], variant: str) -> list[tuple[int, int]]:
    """``(start, stop)`` per scored token: mask positions ``start..stop-1``, score ``start``.

    ``original`` masks the token alone; ``within_word_l2r`` masks through the end of its word.
    Tokens without a word id (special tokens) are skipped.
    """
    spans = []
    for start, word in enumerate(word_ids):
        if word is None:
            continue
        stop = start + 1
        if variant == "within_word_l2r":
            while stop < len(word_ids) and word_ids[stop] == word:
                stop += 1
        spans.append((start, stop))
    return spans


class MaskedCopies(Sequence):
    """The masked copies of all texts, one per scored token, in text order; built when indexed."""

    def __init__(self, sequences: list[list[int]], spans: list[list[tuple[int, int]]], mask_id: int) -> None:
        self.sequences = sequences
        self.per_text = [len(text_spans) for text_spans in spans]
        self.owner = [text for text, text_spans in enumerate(spans) for _ in text_spans]
        self.spans = [span for text_spans in spans for span in text_spans]
        self.targets = [sequences[owner][start] for owner, (start, _) in zip(self.owner, self.spans, strict=True)]
        self.mask_id = mask_id

    def __len__(self) -> int:
        return len(self.spans)

    def __getitem__(self, index: int) -> list[int]:
        ids = list(self.sequences[self.owner[index]])
        start, stop = self.spans[index]
        ids[start:stop] = [self.mask_id] * (stop - start)
        return ids


class DistinctCopies(TokenTable):
    """The distinct masked copies (first occurrence order); ``aliases[k]``: the copies equal to the k-th.

    Batches are built as tensors from one flat tensor of all texts' ids (a gather, then the span
    set to the mask id): no Python list per copy.
    """

    def __init__(self, copies: MaskedCopies) -> None:
        self.copies = copies
        owner = np.asarray(copies.owner, dtype=np.int64)
        spans = np.asarray(copies.spans, dtype=np.int64).reshape(-1, 2)
        text_lengths = np.array([len(ids) for ids in copies.sequences], dtype=np.int64)
        offsets = np.concatenate(([0], np.cumsum(text_lengths))).astype(np.int64)
        flat = flatten(copies.sequences)
        group = _equal_copy_groups(copies, flat, offsets, owner, spans)
        self.aliases = [[] for _ in range(int(group.max(initial=-1)) + 1)]
        for index, k in enumerate(group.tolist()):
            self.aliases[k].append(index)
        representatives = np.unique(group, return_index=True)[1]  # each group's first copy
        self.positions = _Positions(spans[representatives].tolist())
        self._owner = torch.from_numpy(owner[representatives])
        self._spans = torch.from_numpy(spans[representatives])
        self._lengths = text_lengths[owner[representatives]].tolist()
        self._text_lengths = torch.from_numpy(text_lengths)
        self._offsets = torch.from_numpy(offsets[:-1])
        self._flat = torch.from_numpy(flat if len(flat) else np.zeros(1, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.aliases)

    def lengths(self) -> list[int]:
        return self._lengths

    def padded(self, indices: list[int], pad_id: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        index = torch.tensor(indices, dtype=torch.long)
        owner = self._owner[index]
        lengths = self._text_lengths[owner]
        columns = torch.arange(int(lengths.max()))
        inside = columns[None, :] < lengths[:, None]
        flat_index = (self._offsets[owner][:, None] + columns[None, :]).clamp_(max=self._flat.numel() - 1)
        input_ids = torch.where(inside, self._flat[flat_index], pad_id)
        start, stop = self._spans[index].unbind(1)
        masked = (columns[None, :] >= start[:, None]) & (columns[None, :] < stop[:, None])
        input_ids.masked_fill_(masked, self.copies.mask_id)
        return input_ids.to(device), inside.long().to(device)

    def per_copy(self, results: list[list[list[float]]]) -> list[float]:
        """The value of every copy, from one list of values per distinct copy."""
        values = [math.nan] * len(self.copies)
        for aliases, (row_values,) in zip(self.aliases, results, strict=True):
            for copy, value in zip(aliases, row_values, strict=True):
                values[copy] = value
        return values


def _equal_copy_groups(copies: MaskedCopies, flat: np.ndarray, offsets: np.ndarray, owner: np.ndarray,
                       span: np.ndarray) -> np.ndarray:
    """For each copy, the number of the group of copies equal to it, groups numbered in order of first occurrence
    (``flat``: all texts' ids, text ``t`` at ``offsets[t]:offsets[t + 1]``; ``owner``, ``span``: each copy's
    text and masked span).

    Each copy's ids are hashed without being built: a sum of per-token terms ``mix(id, position)``
    over its text, less the terms of its masked span, plus the mask id's there (uint64, wrapping).
    Copies sharing a length and a hash are compared as lists, so a collision never merges two copies.
    """
    n = len(copies)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    lengths = np.diff(offsets)
    position = np.arange(len(flat), dtype=np.int64) - np.repeat(offsets[:-1], lengths)
    prefix = _prefix_sums(_mix(flat, position))
    mask_prefix = _prefix_sums(_mix(np.full(lengths.max(), copies.mask_id), np.arange(lengths.max())))
    base = offsets[owner]
    with np.errstate(over="ignore"):
        digest = (prefix[base + lengths[owner]] - prefix[base] - (prefix[base + span[:, 1]] - prefix[base + span[:, 0]])
                  + mask_prefix[span[:, 1]] - mask_prefix[span[:, 0]])
    size = lengths[owner]
    order = sort_order(size, digest)  # stable: equal copies stay in index order
    same_as_previous = np.zeros(n, dtype=bool)
    same_as_previous[1:] = (digest[order][1:] == digest[order][:-1]) & (size[order][1:] == size[order][:-1])
    candidate = np.cumsum(~same_as_previous) - 1  # per sorted copy; members in index order
    group_first = np.empty(n, dtype=np.int64)  # per copy: the first copy of its group
    group_first[order] = order[np.flatnonzero(~same_as_previous)][candidate]
    bounds = np.append(np.flatnonzero(~same_as_previous), n)
    for c in np.flatnonzero(np.diff(bounds) > 1).tolist():
        _split_collisions(copies, order[bounds[c] : bounds[c + 1]].tolist(), group_first)
    _, group = np.unique(group_first, return_inverse=True)  # firsts ascending: first-occurrence order
    return group.reshape(-1)


def _prefix_sums(terms: np.ndarray) -> np.ndarray:
    """``[0, t0, t0 + t1, ...]`` in uint64, wrapping (a plain ``[0]`` would promote to float64)."""
    return np.concatenate((np.zeros(1, dtype=np.uint64), np.cumsum(terms, dtype=np.uint64)))


def _split_collisions(copies: MaskedCopies, members: list[int], group_first: np.ndarray) -> None:
    """Point each of ``members`` (equal hashes, index order) at the first member whose ids equal its own."""
    seen: list[tuple[list[int], int]] = []
    for index in members:
        ids = copies[index]
        first = next((k for k_ids, k in seen if k_ids == ids), None)
        if first is None:
            seen.append((ids, index))
            first = index
        group_first[index] = first


def _mix(ids: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """A 64-bit mixing of (token id, position) pairs (splitmix64's finaliser), wrapping."""
    with np.errstate(over="ignore"):
        x = ids.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + (positions.astype(np.uint64) + np.uint64(1)) * np.uint64(
            0xC2B2AE3D27D4EB4F)
        x ^= x >> np.uint64(30)
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(27)
        x *= np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def _padded(rows: list[list[int]], device: torch.device) -> torch.Tensor:
    width = max(len(row) for row in rows)
    return torch.tensor([row + row[-1:] * (width - len(row)) for row in rows], device=device)


class _Positions(Sequence):
    """The one scored position of each copy, in the runner's ``positions`` shape."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans = spans

    def __len__(self) -> int:
        return len(self.spans)

    def __getitem__(self, index: int) -> list[int]:
        return [self.spans[index][0]]


def _assemble(copies: MaskedCopies, values: list[float]) -> list[SequenceScore]:
    """One score per text from the values of its copies, which are consecutive and in token order."""
    scores = []
    start = 0
    for count in copies.per_text:
        scores.append(SequenceScore(copies.targets[start : start + count], values[start : start + count]))
        start += count
    return scores


def _check_masked_fast(lm: LM) -> None:
    if lm.family != "masked":
        raise ValueError(f"{lm.name} is a {lm.family} LM; pseudo-log-likelihood is masked-only")
    if lm.tokenizer.mask_token_id is None:
        raise ValueError(f"{lm.name}: the tokenizer has no mask token")
    if not getattr(lm.tokenizer, "is_fast", False):
        raise ValueError(f"{lm.name}: PLL needs a fast tokenizer (word ids); got {type(lm.tokenizer).__name__}")


def _pad_id(lm: LM) -> int:
    pad = lm.tokenizer.pad_token_id
    return pad if pad is not None else 0
