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

from collections.abc import Sequence

import torch

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

    def scored_token_logprobs(logprobs: torch.Tensor, rows: list[Row]) -> list[list[float]]:
        targets = [[copies.target(copy) for copy in distinct.aliases[row.item]] for row in rows]
        values = logprobs.gather(1, _padded(targets, logprobs.device)).tolist()
        return [row_values[: len(row_targets)] for row_values, row_targets in zip(values, targets, strict=True)]

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
    return _assemble(len(sequences), copies, distinct.per_copy(results))


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
    """The masked copies of all texts, one per scored token, built when indexed."""

    def __init__(self, sequences: list[list[int]], spans: list[list[tuple[int, int]]], mask_id: int) -> None:
        self.sequences = sequences
        self.owner = [text for text, text_spans in enumerate(spans) for _ in text_spans]
        self.spans = [span for text_spans in spans for span in text_spans]
        self.mask_id = mask_id

    def __len__(self) -> int:
        return len(self.spans)

    def __getitem__(self, index: int) -> list[int]:
        ids = list(self.sequences[self.owner[index]])
        start, stop = self.spans[index]
        ids[start:stop] = [self.mask_id] * (stop - start)
        return ids

    def target(self, index: int) -> int:
        """The original id at the scored position of copy ``index``."""
        return self.sequences[self.owner[index]][self.spans[index][0]]


class DistinctCopies(Sequence):
    """The distinct masked copies (first occurrence order); ``aliases[k]``: the copies equal to the k-th."""

    def __init__(self, copies: MaskedCopies) -> None:
        self.copies = copies
        self.aliases: list[list[int]] = []
        first_with_hash: dict[int, list[int]] = {}
        for index in range(len(copies)):
            ids = copies[index]
            candidates = first_with_hash.setdefault(hash(tuple(ids)), [])
            same = next((k for k in candidates if copies[self.aliases[k][0]] == ids), None)
            if same is None:
                candidates.append(len(self.aliases))
                self.aliases.append([index])
            else:
                self.aliases[same].append(index)
        self.positions = _Positions([copies.spans[aliases[0]] for aliases in self.aliases])

    def __len__(self) -> int:
        return len(self.aliases)

    def __getitem__(self, index: int) -> list[int]:
        return self.copies[self.aliases[index][0]]

    def per_copy(self, results: list[list[list[float]]]) -> list[list[float]]:
        """One ``[value]`` per copy, from one list of values per distinct copy."""
        values: list[list[float]] = [[] for _ in range(len(self.copies))]
        for aliases, (row_values,) in zip(self.aliases, results, strict=True):
            for copy, value in zip(aliases, row_values, strict=True):
                values[copy] = [value]
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


def _assemble(n_texts: int, copies: MaskedCopies, results: list[list[float]]) -> list[SequenceScore]:
    scores = [SequenceScore([], []) for _ in range(n_texts)]
    for index, (value,) in enumerate(results):
        score = scores[copies.owner[index]]
        score.token_ids.append(copies.target(index))
        score.token_logprobs.append(value)
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
