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

import torch

from lmprobes.engine.batching import TokenTable
from lmprobes.engine.causal import SequenceScore
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
    encoded = lm.tokenizer(list(texts))
    sequences = [list(ids) for ids in encoded["input_ids"]]
    spans = [masked_spans(encoded.word_ids(i), variant) for i in range(len(sequences))]
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
        self.aliases: list[list[int]] = []
        first_with_hash: dict[int, list[int]] = {}  # hashes, not tuples: a tuple per copy would hold them all
        for index in range(len(copies)):
            ids = copies[index]
            candidates = first_with_hash.setdefault(hash(tuple(ids)), [])
            same = next((k for k in candidates if copies[self.aliases[k][0]] == ids), None)
            if same is None:
                candidates.append(len(self.aliases))
                self.aliases.append([index])
            else:
                self.aliases[same].append(index)
        representatives = [aliases[0] for aliases in self.aliases]
        self.positions = _Positions([copies.spans[copy] for copy in representatives])
        self._owner = torch.tensor([copies.owner[copy] for copy in representatives], dtype=torch.long)
        self._spans = torch.tensor([copies.spans[copy] for copy in representatives], dtype=torch.long).reshape(-1, 2)
        text_lengths = [len(ids) for ids in copies.sequences]
        self._lengths = [text_lengths[copies.owner[copy]] for copy in representatives]
        self._text_lengths = torch.tensor(text_lengths, dtype=torch.long)
        self._offsets = torch.tensor([0, *text_lengths], dtype=torch.long).cumsum(0)[:-1]
        self._flat = torch.tensor([token for ids in copies.sequences for token in ids] or [0], dtype=torch.long)

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
