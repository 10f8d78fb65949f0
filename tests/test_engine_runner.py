"""Shared pieces of the forward loop: tie-breaking, targets, the full-forward fallback."""

from __future__ import annotations

import logging
import math

import pytest
import torch

from lmprobes.engine import mask_predictions, sequence_logprobs
from lmprobes.engine import masked as masked_module
from lmprobes.engine.runner import target_logprobs, top_k_low_id_first


def test_top_k_breaks_ties_towards_the_lower_id() -> None:
    logprobs = torch.tensor([[-1.0, -0.5, -2.0, -0.5, -0.5], [-3.0, -1.0, -1.0, -1.0, -0.25]])
    assert top_k_low_id_first(logprobs, 2) == [[(1, -0.5), (3, -0.5)], [(4, -0.25), (1, -1.0)]]
    assert [i for i, _ in top_k_low_id_first(logprobs, 10)[0]] == [1, 3, 4, 0, 2]


def test_target_logprobs_are_nan_for_unresolved_targets() -> None:
    values = target_logprobs(torch.tensor([-1.0, -2.0, -3.0]), [2, -1, 0])
    assert values[0] == -3.0 and math.isnan(values[1]) and values[2] == -1.0


def test_masked_full_forward_fallback_gives_the_same_results(tiny_roberta, monkeypatch, caplog) -> None:
    texts = ["A robin is a <mask>.", "The <mask> sat on the mat and looked out of the window."]
    expected = mask_predictions(tiny_roberta, texts, progress=False)
    monkeypatch.setattr(masked_module, "MLM_HEAD_ATTRIBUTES", ())
    with caplog.at_level(logging.INFO, logger="lmprobes.engine.masked"):
        got = mask_predictions(tiny_roberta, texts, progress=False)
    assert "full forward" in caplog.text
    for g, e in zip(got, expected):
        assert g.top_ids == e.top_ids
        assert g.top_logprobs == pytest.approx(e.top_logprobs, abs=1e-5)


def test_causal_full_forward_fallback_gives_the_same_results(tiny_gpt2, monkeypatch, caplog) -> None:
    texts = ["A robin is a bird.", "The cat sat on the mat and looked out of the window."]
    expected = sequence_logprobs(tiny_gpt2, texts, progress=False)
    # A config field of a logit-rescaling architecture sends the engine down the full-forward path.
    monkeypatch.setattr(tiny_gpt2.model.config, "final_logit_softcapping", 30.0, raising=False)
    with caplog.at_level(logging.INFO, logger="lmprobes.engine.causal"):
        got = sequence_logprobs(tiny_gpt2, texts, progress=False)
    assert "full forward" in caplog.text
    for g, e in zip(got, expected):
        assert g.token_logprobs == pytest.approx(e.token_logprobs, abs=1e-5)
