"""Candidate ranking (engine.ranking) against plain one-sentence-at-a-time loops over a tiny model's logits."""

from __future__ import annotations

import math

import pytest
import torch
from test_engine_pll import plain_pll

from lmprobes.engine import REDUCTIONS, best_candidate, candidate_scores, ranking, sentence_scores

SENTENCES = ["a robin is a bird .", "a robin is a fish .", "a cat is quickly .", "an oak is a tree ."]


def plain_causal_terms(lm, text: str, policy: str) -> list[float]:
    """``log p(t_i | t_<i)`` of each scored token, from one unbatched forward pass."""
    tokenizer = lm.tokenizer
    ids = [tokenizer.bos_token_id] + tokenizer(text, add_special_tokens=False)["input_ids"]
    if policy == "bos_eos":
        ids.append(tokenizer.eos_token_id)
    with torch.no_grad():
        logprobs = torch.log_softmax(lm.model(torch.tensor([ids])).logits[0].float(), dim=-1)
    return [logprobs[i - 1, ids[i]].item() for i in range(1, len(ids))]


def plain_reduced(terms: list[float], reduction: str) -> float:
    return math.fsum(terms) if reduction == "sum" else math.fsum(terms) / len(terms)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("policy", ["bos", "bos_eos"])
def test_causal_sentence_scores_equal_a_plain_forward(tiny_gpt2, reduction, policy) -> None:
    scores = sentence_scores(tiny_gpt2, SENTENCES, reduction=reduction, causal_policy=policy, progress=False)
    for text in SENTENCES:
        expected = plain_reduced(plain_causal_terms(tiny_gpt2, text, policy), reduction)
        assert scores[text] == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("variant", ["original", "within_word_l2r"])
def test_masked_sentence_scores_equal_a_plain_pll_loop(tiny_bert, reduction, variant) -> None:
    scores = sentence_scores(tiny_bert, SENTENCES, reduction=reduction, pll_variant=variant, progress=False)
    for text in SENTENCES:
        expected = plain_reduced(plain_pll(tiny_bert, text, variant)[1], reduction)
        assert scores[text] == pytest.approx(expected, abs=1e-4)


def test_the_mean_is_the_sum_over_the_number_of_scored_tokens(tiny_gpt2) -> None:
    total = sentence_scores(tiny_gpt2, SENTENCES, progress=False)
    mean = sentence_scores(tiny_gpt2, SENTENCES, reduction="mean", progress=False)
    for text in SENTENCES:
        n_tokens = len(plain_causal_terms(tiny_gpt2, text, "bos"))
        assert mean[text] == pytest.approx(total[text] / n_tokens, abs=1e-6)


def test_each_distinct_sentence_is_scored_once_in_one_engine_call(tiny_gpt2, monkeypatch) -> None:
    calls = []
    real = ranking.sequence_logprobs

    def recorded(lm, texts, **kwargs):
        calls.append(list(texts))
        return real(lm, texts, **kwargs)

    monkeypatch.setattr(ranking, "sequence_logprobs", recorded)
    filled = [[SENTENCES[0], SENTENCES[1]], [SENTENCES[1], SENTENCES[2], SENTENCES[0]]]
    scores = candidate_scores(tiny_gpt2, filled, progress=False)
    assert calls == [sorted(set(SENTENCES[:3]))]
    assert scores[1][2] == scores[0][0] and scores[1][0] == scores[0][1]
    by_sentence = sentence_scores(tiny_gpt2, SENTENCES[:3], progress=False)
    assert scores == [[by_sentence[s] for s in item] for item in filled]


def test_the_argmax_goes_to_the_lowest_index_on_a_tie() -> None:
    assert best_candidate([-3.0, -1.0, -2.0]) == 1
    assert best_candidate([-1.0, -1.0]) == 0
    assert best_candidate([-5.0, -2.0, -4.0, -2.0]) == 1
    assert best_candidate([0.5]) == 0
    with pytest.raises(ValueError, match="no candidate"):
        best_candidate([])


def test_an_unknown_reduction_is_named(tiny_gpt2) -> None:
    with pytest.raises(ValueError, match="unknown reduction 'median'"):
        sentence_scores(tiny_gpt2, SENTENCES, reduction="median", progress=False)
