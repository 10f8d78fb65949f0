"""Candidate ranking (spec/SCORING.md): score each candidate-filled sentence, then take the argmax.

A suite fills its candidates into its template (its own fill rule) and hands the filled sentences
here: masked LMs score them by pseudo-log-likelihood (``pll_variant``), causal LMs by the sentence
log-probability (``causal_policy``). Each distinct sentence is scored once, all in one engine call,
in sorted order. ``reduction`` of the token log-probs: ``sum`` (the default) or ``mean`` (per
scored token: the tokens ``SequenceScore`` holds, so a causal ``bos_eos`` score counts its EOS and a
PLL score every non-special token; a sentence with no scored token has mean NaN). Ties: the argmax
goes to the lowest index (``best_candidate``), as ``numpy.argmax`` picks it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from lmprobes.engine.causal import SequenceScore, sequence_logprobs
from lmprobes.engine.lm import LM
from lmprobes.engine.pll import pseudo_log_likelihoods

__all__ = ["REDUCTIONS", "best_candidate", "candidate_scores", "reduced", "sentence_scores"]

REDUCTIONS = ("sum", "mean")


def reduced(score: SequenceScore, reduction: str) -> float:
    """The sentence score of ``score``'s token log-probs under ``reduction``."""
    check_reduction(reduction)
    return score.total if reduction == "sum" else score.mean


def check_reduction(reduction: str) -> None:
    if reduction not in REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}; choose one of {REDUCTIONS}")


def sentence_scores(lm: LM, sentences: Iterable[str], *, reduction: str = "sum", pll_variant: str = "original",
                    causal_policy: str = "bos", progress: bool = True) -> dict[str, float]:
    """Each distinct sentence's score: PLL for a masked ``lm``, the causal sentence log-probability
    otherwise, reduced by ``reduction``; one engine call for all of them."""
    check_reduction(reduction)
    distinct = sorted(set(sentences))
    if lm.family == "masked":
        scored = pseudo_log_likelihoods(lm, distinct, variant=pll_variant, progress=progress)
    else:
        scored = sequence_logprobs(lm, distinct, policy=causal_policy, progress=progress)
    return {sentence: reduced(score, reduction) for sentence, score in zip(distinct, scored, strict=True)}


def candidate_scores(lm: LM, filled: Sequence[Sequence[str]], **scoring) -> list[list[float]]:
    """Per item, the score of each of its filled sentences (``sentence_scores``' keywords)."""
    score_of = sentence_scores(lm, (sentence for item in filled for sentence in item), **scoring)
    return [[score_of[sentence] for sentence in item] for item in filled]


def best_candidate(scores: Sequence[float]) -> int:
    """The index of the highest score; a tie goes to the lowest index (a NaN score, as ``numpy.argmax``
    reads it, is the highest)."""
    if len(scores) == 0:
        raise ValueError("no candidate scores to choose from")
    return int(np.argmax(scores))
