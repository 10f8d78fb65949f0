"""CUDA out-of-memory back-off, simulated on CPU by making the first forward raise."""

from __future__ import annotations

import dataclasses
import logging

import pytest
import torch

from lmprobes.engine import mask_predictions, packing, runner, sequence_logprobs

TEXTS = [
    "The cat sat on the mat.",
    "A robin is a bird.",
    "My sister asked if she could borrow the car to drive to the city on Monday.",
    "Dogs run.",
    "He was reading a long book.",
]


@pytest.fixture
def fail_first_forward(monkeypatch):
    """``fail_first_forward()`` patches the forward so that its next first call raises CUDA OOM.

    It returns the list of batch sizes the patched forward sees.
    """

    def arm() -> list[int]:
        real = runner.run_model
        seen: list[int] = []

        def run_model(module, input_ids, attention_mask, **kwargs):
            seen.append(input_ids.shape[0])
            if len(seen) == 1:
                raise torch.cuda.OutOfMemoryError("CUDA out of memory (simulated)")
            return real(module, input_ids, attention_mask, **kwargs)

        monkeypatch.setattr(runner, "run_model", run_model)
        return seen

    return arm


def test_masked_batch_is_halved_and_results_unchanged(tiny_bert, with_budget, fail_first_forward, caplog) -> None:
    lm = with_budget(tiny_bert, 10**6)
    texts = [t.replace("cat", "[MASK]").replace("robin", "[MASK]").replace("car", "[MASK]") for t in TEXTS]
    texts = [t if "[MASK]" in t else t[:-1] + " [MASK]." for t in texts]
    expected = mask_predictions(lm, texts, progress=False)
    seen = fail_first_forward()
    with caplog.at_level(logging.WARNING, logger="lmprobes.engine.runner"):
        got = mask_predictions(lm, texts, progress=False)
    assert seen == [5, 3, 2]
    assert "out of memory" in caplog.text and "3 and 2" in caplog.text
    for g, e in zip(got, expected):
        assert g.top_ids == e.top_ids
        assert g.top_logprobs == pytest.approx(e.top_logprobs, abs=1e-5)


def test_causal_batch_is_halved_and_results_unchanged(tiny_gpt2, with_budget, fail_first_forward, caplog) -> None:
    lm = dataclasses.replace(with_budget(tiny_gpt2, 10**6), packing="none")
    expected = sequence_logprobs(lm, TEXTS, progress=False)
    seen = fail_first_forward()
    with caplog.at_level(logging.WARNING, logger="lmprobes.engine.runner"):
        got = sequence_logprobs(lm, TEXTS, progress=False)
    assert seen == [5, 3, 2]
    assert "out of memory" in caplog.text
    for g, e in zip(got, expected):
        assert g.token_ids == e.token_ids
        assert g.token_logprobs == pytest.approx(e.token_logprobs, abs=1e-5)


def test_packed_causal_rows_are_halved_and_results_unchanged(tiny_gpt2, with_budget, fail_first_forward,
                                                             monkeypatch) -> None:
    monkeypatch.setattr(packing, "ROW_TOKENS", 16)
    lm = with_budget(tiny_gpt2, 10**6)
    expected = sequence_logprobs(lm, TEXTS, progress=False)
    seen = fail_first_forward()
    got = sequence_logprobs(lm, TEXTS, progress=False)
    rows = seen[0]
    assert rows > 2 and seen[1:3] == [(rows + 1) // 2, rows // 2]
    for g, e in zip(got, expected):
        assert g.token_ids == e.token_ids
        assert g.token_logprobs == pytest.approx(e.token_logprobs, abs=1e-5)


def test_a_single_item_that_does_not_fit_still_raises() -> None:
    def always_oom(batch: list[int]) -> list:
        raise torch.cuda.OutOfMemoryError("CUDA out of memory (simulated)")

    with pytest.raises(torch.cuda.OutOfMemoryError):
        runner.run_halving_on_oom([0, 1, 2], always_oom)


def test_later_batches_as_large_as_a_failed_one_are_split_before_they_run(tiny_bert, with_budget, monkeypatch) -> None:
    """Once a batch ran out of memory, the loop's later batches of that padded size are halved
    first instead of failing again (each batch here holds 4 equal-length copies of one text)."""
    real = runner.run_model
    seen: list[tuple[int, bool]] = []  # (batch size, ran out of memory)

    def capped(module, input_ids, attention_mask, **kwargs):
        failed = input_ids.numel() > 2 * input_ids.shape[1]  # more than two rows: out of memory
        seen.append((input_ids.shape[0], failed))
        if failed:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory (simulated cap)")
        return real(module, input_ids, attention_mask, **kwargs)

    texts = ["the cat is a [MASK] .", "a dog is a [MASK] ."] * 4
    width = len(tiny_bert.tokenizer(texts[0])["input_ids"])
    lm = with_budget(tiny_bert, 4 * width)  # two batches of 4 items each
    expected = mask_predictions(lm, texts, progress=False)
    monkeypatch.setattr(runner, "run_model", capped)
    got = mask_predictions(lm, texts, progress=False)
    assert seen == [(4, True), (2, False), (2, False), (2, False), (2, False)], "the second 4 never tried"
    assert [g.top_ids for g in got] == [e.top_ids for e in expected]


@pytest.fixture
def fail_second_head_call(monkeypatch):
    """The LM head takes one row per call and its second call raises CUDA OOM once: the batch's first
    row was already handed to the scoring function when the batch is retried in halves."""

    def arm(projection_of):
        calls = []

        def failing(lm):
            projection = projection_of(lm)
            head = projection.head

            def once(rows):
                calls.append(rows.shape[0])
                if len(calls) == 2:
                    raise torch.cuda.OutOfMemoryError("CUDA out of memory (simulated)")
                return head(rows)

            return dataclasses.replace(projection, head=once)

        monkeypatch.setattr(runner, "logit_chunk_rows", lambda lm: 1)
        return failing, calls

    return arm


def test_rows_handed_over_before_a_head_oom_are_not_counted_twice(tiny_bert, with_budget, fail_second_head_call,
                                                                   monkeypatch) -> None:
    from lmprobes.engine import masked, pll, pseudo_log_likelihoods

    lm = with_budget(tiny_bert, 10**6)
    texts = [TEXTS[0].replace("cat", "[MASK]"), TEXTS[1].replace("robin", "[MASK]"), "Dogs [MASK]."]
    expected_masks = mask_predictions(lm, texts, progress=False)
    expected_pll = pseudo_log_likelihoods(lm, TEXTS[:3], progress=False)
    failing, calls = fail_second_head_call(masked.masked_projection)
    monkeypatch.setattr(masked, "masked_projection", failing)
    monkeypatch.setattr(pll, "masked_projection", failing)
    got_masks = mask_predictions(lm, texts, progress=False)
    assert calls[:3] == [1, 1, 1] and len(calls) == len(texts) + 2  # one row twice, plus the failed call
    calls.clear()
    got_pll = pseudo_log_likelihoods(lm, TEXTS[:3], progress=False)
    assert len(calls) > 2
    assert [g.top_ids for g in got_masks] == [e.top_ids for e in expected_masks]
    for g, e in zip(got_pll, expected_pll, strict=True):
        assert g.token_ids == e.token_ids
        assert g.token_logprobs == pytest.approx(e.token_logprobs, abs=1e-5)


def test_pll_chunks_share_one_memory_lesson(tiny_bert, with_budget, monkeypatch) -> None:
    """On a GPU, PLL queues its texts chunk by chunk: a batch as large as one that ran out of memory
    is split before it runs in every later chunk too, not after failing once more in each."""
    from lmprobes.engine import pll

    real = runner.run_model
    failures = []

    def run_model(module, input_ids, attention_mask, **kwargs):
        if input_ids.numel() > 128:  # the simulated memory: 128 tokens a forward
            failures.append(input_ids.numel())
            raise torch.cuda.OutOfMemoryError("CUDA out of memory (simulated)")
        return real(module, input_ids, attention_mask, **kwargs)

    monkeypatch.setattr(runner, "run_model", run_model)
    texts = [f"the {noun} sat on the mat ." for noun in ("cat", "dog", "man", "hen", "cow", "pig")]
    lm = with_budget(tiny_bert, 512)
    at_once = pll.pseudo_log_likelihoods(lm, texts, progress=False)
    failures.clear()
    chunked = pll.pseudo_log_likelihoods(lm, texts, progress=False, chunk_texts=3)
    # The first chunk's batch and its first half fail; the second chunk's batches, as large, are
    # split before they run (with a lesson per chunk they failed too: 286, 143, 297, 154, 143).
    assert failures == [286, 143]
    for a, b in zip(at_once, chunked, strict=True):
        assert a.token_logprobs == pytest.approx(b.token_logprobs, abs=1e-5)
