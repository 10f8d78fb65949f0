"""Scoring primitives shared by every probing suite: tokens, masked and causal LM log-probs."""

from lmprobes.engine.batching import token_budget_batches
from lmprobes.engine.causal import (
    POLICIES,
    SequenceScore,
    continuation_logprobs,
    next_token_predictions,
    sequence_logprobs,
)
from lmprobes.engine.lm import LM
from lmprobes.engine.masked import map_mask_logprobs, mask_predictions
from lmprobes.engine.pll import pseudo_log_likelihoods
from lmprobes.engine.ranking import REDUCTIONS, best_candidate, candidate_scores, sentence_scores
from lmprobes.engine.runner import TokenPrediction
from lmprobes.engine.tokens import WordIds, leading_space, tokenizer_kind, word_ids, words_ids

__all__ = [
    "LM",
    "POLICIES",
    "REDUCTIONS",
    "SequenceScore",
    "TokenPrediction",
    "WordIds",
    "best_candidate",
    "candidate_scores",
    "continuation_logprobs",
    "leading_space",
    "map_mask_logprobs",
    "mask_predictions",
    "next_token_predictions",
    "pseudo_log_likelihoods",
    "sentence_scores",
    "sequence_logprobs",
    "token_budget_batches",
    "tokenizer_kind",
    "word_ids",
    "words_ids",
]
