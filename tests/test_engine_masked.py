"""Masked-LM primitives against a plain one-sentence-at-a-time full forward."""

from __future__ import annotations

import dataclasses
import math
import re

import pytest
import torch

from lmprobes.engine import map_mask_logprobs, mask_predictions, word_ids

TEMPLATES = [
    "A robin is a {mask}.",
    "The cat sat on the {mask}.",
    "{mask} dog is an animal that likes to run, play and sleep in the sun.",
    "My sister asked if she could borrow the {mask} to drive to the city on Monday.",
    "He was reading a long book about the history of {mask} in the old library.",
    "The children were playing {mask}.",
    "The children were playing football in the park while their {mask} talked, and the dog slept under a tree near the gate.",
    "It is {mask}",
    "{mask}",
    "A zebra is a {mask} ☃.",
]


def masked_texts(lm) -> list[str]:
    return [t.format(mask=lm.tokenizer.mask_token) for t in TEMPLATES]


def target_lists(lm) -> list[list[int]]:
    bird, car, zebra = (word_ids(lm.tokenizer, w).first_id for w in ("bird", "car", "zebra"))
    return [[bird, car, -1], [car], [], [zebra, bird]] + [[bird]] * (len(TEMPLATES) - 4)


def naive_mask_logprobs(lm, text: str) -> torch.Tensor:
    """Full forward of one text, log-softmax at its mask position."""
    enc = lm.tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        logits = lm.model(**enc).logits[0]
    position = (enc["input_ids"][0] == lm.tokenizer.mask_token_id).nonzero().item()
    return torch.log_softmax(logits[position].float(), dim=-1)


def naive_top(logprobs: torch.Tensor, k: int) -> list[int]:
    return sorted(range(logprobs.shape[0]), key=lambda i: (-logprobs[i].item(), i))[:k]


def assert_matches_naive(prediction, logprobs: torch.Tensor, targets: list[int], k: int) -> None:
    expected_top = naive_top(logprobs, k)
    assert prediction.top_ids == expected_top
    assert prediction.top_logprobs == pytest.approx([logprobs[i].item() for i in expected_top], abs=1e-5)
    assert len(prediction.target_logprobs) == len(targets)
    for target, value in zip(targets, prediction.target_logprobs):
        if target == -1:
            assert math.isnan(value)
        else:
            assert value == pytest.approx(logprobs[target].item(), abs=1e-5)


@pytest.mark.parametrize("name", ["tiny_bert", "tiny_roberta"])
def test_mask_predictions_equal_naive_full_forward(name: str, request) -> None:
    lm = request.getfixturevalue(name)
    texts, targets = masked_texts(lm), target_lists(lm)
    predictions = mask_predictions(lm, texts, targets, top_k=7, progress=False)
    assert len(predictions) == len(texts)
    for text, prediction, wanted in zip(texts, predictions, targets):
        assert_matches_naive(prediction, naive_mask_logprobs(lm, text), wanted, k=7)


@pytest.mark.parametrize("name", ["tiny_bert", "tiny_roberta"])
def test_mask_predictions_do_not_depend_on_batch_size(name: str, request, with_budget) -> None:
    lm = request.getfixturevalue(name)
    texts, targets = masked_texts(lm) * 3, target_lists(lm) * 3
    reference = mask_predictions(with_budget(lm, 10**9), texts, targets, progress=False)
    for budget in (16, 64, 256):
        predictions = mask_predictions(with_budget(lm, budget), texts, targets, progress=False)
        for got, want in zip(predictions, reference):
            assert got.top_ids == want.top_ids
            assert got.top_logprobs == pytest.approx(want.top_logprobs, abs=1e-5)
            assert got.target_logprobs == pytest.approx(want.target_logprobs, abs=1e-5, nan_ok=True)


def test_map_mask_logprobs_passes_full_distributions(tiny_bert) -> None:
    texts = masked_texts(tiny_bert)

    def entropy(logprobs: torch.Tensor, items: list[int]) -> list[tuple[int, float]]:
        assert logprobs.dtype == torch.float32 and logprobs.shape == (len(items), tiny_bert.vocab_size)
        return [(item, -(row.exp() * row).sum().item()) for item, row in zip(items, logprobs)]

    results = map_mask_logprobs(tiny_bert, texts, entropy, progress=False)
    for index, (item, value) in enumerate(results):
        naive = naive_mask_logprobs(tiny_bert, texts[index])
        assert item == index
        assert value == pytest.approx(-(naive.exp() * naive).sum().item(), abs=1e-5)


def test_empty_input(tiny_bert) -> None:
    assert mask_predictions(tiny_bert, [], progress=False) == []


@pytest.mark.parametrize("bad", ["A robin is a bird.", "A [MASK] is a [MASK]."])
def test_texts_need_exactly_one_mask(tiny_bert, bad: str) -> None:
    with pytest.raises(ValueError, match=r"text 1 .*" + re.escape(repr(bad))):
        mask_predictions(tiny_bert, ["A robin is a [MASK].", bad], progress=False)


def test_several_masks_are_scored_at_the_first_when_asked(tiny_bert) -> None:
    texts = ["A [MASK] is a [MASK].", "A robin is a [MASK].", "[MASK] [MASK] [MASK]"]

    def rows(logprobs: torch.Tensor, items: list[int]) -> list[torch.Tensor]:
        return list(logprobs.clone())

    got = map_mask_logprobs(tiny_bert, texts, rows, progress=False, masks="first")
    for text, row in zip(texts, got):
        enc = tiny_bert.tokenizer(text, return_tensors="pt")
        with torch.no_grad():  # the plain computation: every mask in the input, the first one read
            logits = tiny_bert.model(**enc).logits[0]
        first = (enc["input_ids"][0] == tiny_bert.tokenizer.mask_token_id).nonzero()[0].item()
        torch.testing.assert_close(row, torch.log_softmax(logits[first].float(), dim=-1), atol=1e-5, rtol=0)
    with pytest.raises(ValueError, match="text 0 must contain at least one"):
        map_mask_logprobs(tiny_bert, ["no mask here"], rows, progress=False, masks="first")
    with pytest.raises(ValueError, match="masks must be one of"):
        map_mask_logprobs(tiny_bert, texts, rows, progress=False, masks="last")


def test_causal_lm_is_refused(tiny_gpt2) -> None:
    with pytest.raises(ValueError, match="masked-only"):
        mask_predictions(tiny_gpt2, ["A robin is a bird."], progress=False)


def test_tokenizer_without_mask_is_refused(tiny_gpt2) -> None:
    lm = dataclasses.replace(tiny_gpt2, family="masked")
    with pytest.raises(ValueError, match="tiny-gpt2"):
        mask_predictions(lm, ["A robin is a bird."], progress=False)


def test_target_lists_must_match_texts(tiny_bert) -> None:
    with pytest.raises(ValueError, match="target"):
        mask_predictions(tiny_bert, ["A [MASK]."], [[1], [2]], progress=False)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        mask_predictions(tiny_bert, ["A [MASK]."], [[10**6]], progress=False)
    size = tiny_bert.model.get_output_embeddings().weight.shape[0]
    for bad in (size, -2):  # one past the last id, and a negative id other than -1
        with pytest.raises(ValueError, match=rf"item 0: target ids \[{bad}\] are outside the vocabulary \(size {size}\)"):
            mask_predictions(tiny_bert, ["A [MASK]."], [[0, bad]], progress=False)
    (edges,) = mask_predictions(tiny_bert, ["A [MASK]."], [[size - 1, 0, -1]], progress=False)
    assert len(edges.target_logprobs) == 3 and math.isnan(edges.target_logprobs[2])


def test_full_forward_gives_the_same_predictions(tiny_bert) -> None:
    texts = ["a robin is a [MASK] .", "the waitress had [MASK] the customer .", "[MASK] is a bird ."]
    head_only = mask_predictions(tiny_bert, texts, [[5, 6]] * 3, top_k=5, progress=False)
    everywhere = mask_predictions(tiny_bert, texts, [[5, 6]] * 3, top_k=5, progress=False, head_only=False)
    for a, b in zip(head_only, everywhere):
        assert a.top_ids == b.top_ids
        assert a.target_logprobs == pytest.approx(b.target_logprobs, abs=1e-5)
