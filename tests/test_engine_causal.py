"""Causal-LM primitives against a plain one-sentence-at-a-time full forward."""

from __future__ import annotations

import math

import pytest
import torch

from lmprobes.engine import continuation_logprobs, next_token_predictions, sequence_logprobs, word_ids

SENTENCES = [
    "The cat sat on the mat.",
    "A robin is a bird.",
    "My sister asked if she could borrow the car to drive to the city on Monday.",
    "He was reading a long book about the history of science in the old library, while the children were playing football in the park.",
    "Dogs run.",
    "A",
    "A zebra ☃ is a bird.",
]


def encode(lm, text: str) -> list[int]:
    return lm.tokenizer(text, add_special_tokens=False)["input_ids"]


def naive_logprobs(lm, ids: list[int]) -> torch.Tensor:
    """Float32 log-softmax at every position of one unpadded sequence."""
    with torch.no_grad():
        logits = lm.model(torch.tensor([ids])).logits[0]
    return torch.log_softmax(logits.float(), dim=-1)


def naive_token_terms(lm, ids: list[int]) -> list[float]:
    """``log p(ids[i] | ids[:i])`` for i >= 1."""
    logprobs = naive_logprobs(lm, ids)
    return [logprobs[i - 1, ids[i]].item() for i in range(1, len(ids))]


def bos(lm) -> int:
    return lm.tokenizer.bos_token_id


def eos(lm) -> int:
    return lm.tokenizer.eos_token_id


def test_policy_bos_scores_every_sentence_token(tiny_gpt2) -> None:
    scores = sequence_logprobs(tiny_gpt2, SENTENCES, policy="bos", progress=False)
    for text, score in zip(SENTENCES, scores):
        ids = encode(tiny_gpt2, text)
        assert score.token_ids == ids
        assert score.token_logprobs == pytest.approx(naive_token_terms(tiny_gpt2, [bos(tiny_gpt2)] + ids), abs=1e-5)
        assert score.total == pytest.approx(sum(score.token_logprobs))
        assert score.mean == pytest.approx(score.total / len(ids))


def test_policy_bos_eos_also_scores_eos(tiny_gpt2) -> None:
    scores = sequence_logprobs(tiny_gpt2, SENTENCES, policy="bos_eos", progress=False)
    for text, score in zip(SENTENCES, scores):
        ids = [bos(tiny_gpt2)] + encode(tiny_gpt2, text) + [eos(tiny_gpt2)]
        assert score.token_ids == ids[1:]
        assert score.token_logprobs == pytest.approx(naive_token_terms(tiny_gpt2, ids), abs=1e-5)


def test_policy_none_leaves_the_first_token_unscored(tiny_gpt2) -> None:
    scores = sequence_logprobs(tiny_gpt2, SENTENCES, policy="none", progress=False)
    for text, score in zip(SENTENCES, scores):
        ids = encode(tiny_gpt2, text)
        assert score.token_ids == ids[1:]
        assert score.token_logprobs == pytest.approx(naive_token_terms(tiny_gpt2, ids), abs=1e-5)
    assert scores[SENTENCES.index("A")].token_ids == []
    assert scores[SENTENCES.index("A")].total == 0.0
    assert math.isnan(scores[SENTENCES.index("A")].mean)


def test_policy_bos_eos_ends_with_the_eos_where_it_differs_from_the_bos(tiny_gpt2) -> None:
    """GPT-2's BOS and EOS are one token; Llama's differ (``<s>``, ``</s>``): the EOS closes the sentence."""
    import copy
    import dataclasses

    tokenizer = copy.deepcopy(tiny_gpt2.tokenizer)
    tokenizer.eos_token = "."
    lm = dataclasses.replace(tiny_gpt2, tokenizer=tokenizer)
    end = tokenizer.convert_tokens_to_ids(".")
    assert end != bos(lm)
    for text, score in zip(SENTENCES, sequence_logprobs(lm, SENTENCES, policy="bos_eos", progress=False)):
        ids = [bos(lm)] + encode(lm, text) + [end]
        assert score.token_ids == ids[1:]
        assert score.token_logprobs == pytest.approx(naive_token_terms(lm, ids), abs=1e-5)


def test_policies_differ_by_their_special_terms(tiny_gpt2) -> None:
    with_bos = sequence_logprobs(tiny_gpt2, SENTENCES, policy="bos", progress=False)
    without = sequence_logprobs(tiny_gpt2, SENTENCES, policy="none", progress=False)
    with_eos = sequence_logprobs(tiny_gpt2, SENTENCES, policy="bos_eos", progress=False)
    for text, b, n, e in zip(SENTENCES, with_bos, without, with_eos):
        ids = [bos(tiny_gpt2)] + encode(tiny_gpt2, text)
        # `none` scores the same tokens except the first one.
        assert b.token_ids[1:] == n.token_ids
        assert len(b.token_logprobs) == len(n.token_logprobs) + 1
        # `bos_eos` adds exactly log p(eos | bos + sentence) to `bos`.
        eos_term = naive_logprobs(tiny_gpt2, ids)[-1, eos(tiny_gpt2)].item()
        assert e.total - b.total == pytest.approx(eos_term, abs=1e-4)


def test_sequence_scores_do_not_depend_on_batch_size(tiny_gpt2, with_budget) -> None:
    texts = SENTENCES * 3
    reference = sequence_logprobs(with_budget(tiny_gpt2, 10**9), texts, progress=False)
    for budget in (16, 40, 256):
        scores = sequence_logprobs(with_budget(tiny_gpt2, budget), texts, progress=False)
        for got, want in zip(scores, reference):
            assert got.token_ids == want.token_ids
            assert got.token_logprobs == pytest.approx(want.token_logprobs, abs=1e-5)


def naive_top(logprobs: torch.Tensor, k: int) -> list[int]:
    return sorted(range(logprobs.shape[0]), key=lambda i: (-logprobs[i].item(), i))[:k]


@pytest.mark.parametrize("use_bos", [True, False])
def test_next_token_predictions_equal_naive_last_position(tiny_gpt2, use_bos: bool) -> None:
    contexts = [s.rsplit(" ", 1)[0] for s in SENTENCES]
    bird = word_ids(tiny_gpt2.tokenizer, "bird").first_id
    targets = [[bird, -1]] + [[bird]] * (len(contexts) - 1)
    predictions = next_token_predictions(tiny_gpt2, contexts, targets, top_k=6, bos=use_bos, progress=False)
    for context, wanted, prediction in zip(contexts, targets, predictions):
        ids = ([bos(tiny_gpt2)] if use_bos else []) + encode(tiny_gpt2, context)
        logprobs = naive_logprobs(tiny_gpt2, ids)[-1]
        top = naive_top(logprobs, 6)
        assert prediction.top_ids == top
        assert prediction.top_logprobs == pytest.approx([logprobs[i].item() for i in top], abs=1e-5)
        assert prediction.target_logprobs[0] == pytest.approx(logprobs[wanted[0]].item(), abs=1e-5)
    assert math.isnan(predictions[0].target_logprobs[1])


def test_trailing_space_of_the_context_is_stripped(tiny_gpt2) -> None:
    stripped, spaced = next_token_predictions(tiny_gpt2, ["A robin is a", "A robin is a "], progress=False)
    assert spaced.top_ids == stripped.top_ids
    assert spaced.top_logprobs == pytest.approx(stripped.top_logprobs, abs=1e-6)
    (kept,) = next_token_predictions(tiny_gpt2, ["A robin is a "], strip_context=False, progress=False)
    ids = [bos(tiny_gpt2)] + encode(tiny_gpt2, "A robin is a ")
    assert ids[-1] != encode(tiny_gpt2, "A robin is a")[-1], "the trailing space is a token of its own"
    assert kept.top_logprobs == pytest.approx(naive_logprobs(tiny_gpt2, ids)[-1].sort(descending=True).values[:5].tolist(), abs=1e-5)


def test_only_the_trailing_space_of_a_context_is_stripped(tiny_gpt2) -> None:
    """A leading space is part of the context: byte-level BPE spells `` A`` as one token of its own."""
    (got,) = next_token_predictions(tiny_gpt2, [" A robin is a "], progress=False)
    ids = [bos(tiny_gpt2)] + encode(tiny_gpt2, " A robin is a")
    assert ids[1:] != encode(tiny_gpt2, "A robin is a"), "the leading space changes the tokens"
    logprobs = naive_logprobs(tiny_gpt2, ids)[-1]
    assert got.top_ids == naive_top(logprobs, 5)
    assert got.top_logprobs == pytest.approx([logprobs[i].item() for i in got.top_ids], abs=1e-5)


def test_continuation_is_the_difference_of_two_sequence_scores(tiny_gpt2) -> None:
    prefixes = ["A robin is a", "The cat sat on the ", "My sister asked if she could borrow the"]
    continuations = [" bird.", " mat", " car to drive to the city"]
    scores = continuation_logprobs(tiny_gpt2, prefixes, continuations, progress=False)
    for prefix, continuation, score in zip(prefixes, continuations, scores):
        prefix_ids = [bos(tiny_gpt2)] + encode(tiny_gpt2, prefix.rstrip())
        continuation_ids = encode(tiny_gpt2, continuation)
        whole = sum(naive_token_terms(tiny_gpt2, prefix_ids + continuation_ids))
        head = sum(naive_token_terms(tiny_gpt2, prefix_ids))
        assert score.token_ids == continuation_ids
        assert score.total == pytest.approx(whole - head, abs=1e-4)


def test_continuation_after_an_unstripped_prefix_keeps_its_trailing_space(tiny_gpt2) -> None:
    (score,) = continuation_logprobs(tiny_gpt2, ["The cat sat on the "], ["mat"], strip_context=False, progress=False)
    prefix_ids = [bos(tiny_gpt2)] + encode(tiny_gpt2, "The cat sat on the ")
    assert prefix_ids[-1] != encode(tiny_gpt2, "The cat sat on the")[-1], "the trailing space is a token of its own"
    ids = prefix_ids + encode(tiny_gpt2, "mat")
    assert score.token_ids == encode(tiny_gpt2, "mat")
    assert score.token_logprobs == pytest.approx(naive_token_terms(tiny_gpt2, ids)[len(prefix_ids) - 1:], abs=1e-5)


def test_continuation_without_bos_conditions_on_the_prefix_only(tiny_gpt2) -> None:
    (score,) = continuation_logprobs(tiny_gpt2, ["A robin is a"], [" bird"], bos=False, progress=False)
    ids = encode(tiny_gpt2, "A robin is a") + encode(tiny_gpt2, " bird")
    assert score.token_logprobs == pytest.approx(naive_token_terms(tiny_gpt2, ids)[-1:], abs=1e-5)


def test_empty_continuation_scores_nothing(tiny_gpt2) -> None:
    (score,) = continuation_logprobs(tiny_gpt2, ["A robin is a"], [""], progress=False)
    assert score.token_ids == [] and score.total == 0.0


def test_masked_lm_is_refused(tiny_bert) -> None:
    for call in (
        lambda: sequence_logprobs(tiny_bert, ["A robin is a bird."], progress=False),
        lambda: next_token_predictions(tiny_bert, ["A robin is a"], progress=False),
        lambda: continuation_logprobs(tiny_bert, ["A robin is a"], [" bird"], progress=False),
    ):
        with pytest.raises(ValueError, match="tiny-bert"):
            call()


def test_unknown_policy_lists_the_valid_ones(tiny_gpt2) -> None:
    with pytest.raises(ValueError, match="bos, bos_eos, none"):
        sequence_logprobs(tiny_gpt2, ["A robin is a bird."], policy="eos", progress=False)


def test_mismatched_inputs_are_refused(tiny_gpt2) -> None:
    with pytest.raises(ValueError, match="prefixes"):
        continuation_logprobs(tiny_gpt2, ["A"], [" b", " c"], progress=False)
    with pytest.raises(ValueError, match="context 0"):
        next_token_predictions(tiny_gpt2, [" "], bos=False, progress=False)


def test_a_tokenizer_that_adds_bos_itself_gets_exactly_one(tiny_gpt2) -> None:
    """Llama-style tokenizers prepend ``<s>`` when asked for special tokens: ``bos`` must not double it,
    ``none`` must not let it in."""
    import copy
    import dataclasses

    from tokenizers import processors

    tokenizer = copy.deepcopy(tiny_gpt2.tokenizer)
    bos_token = tokenizer.bos_token
    tokenizer.backend_tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{bos_token} $A", special_tokens=[(bos_token, tokenizer.bos_token_id)]
    )
    lm = dataclasses.replace(tiny_gpt2, tokenizer=tokenizer)
    assert tokenizer("A robin.")["input_ids"][0] == bos(lm)  # the tokenizer does add it
    for policy, prefix in (("bos", [bos(lm)]), ("none", [])):
        for text, score in zip(SENTENCES, sequence_logprobs(lm, SENTENCES, policy=policy, progress=False)):
            ids = prefix + encode(lm, text)
            assert ids.count(bos(lm)) == len(prefix)
            assert score.token_ids == ids[1:]
            assert score.token_logprobs == pytest.approx(naive_token_terms(lm, ids), abs=1e-5)


def test_next_tokens_and_continuations_do_not_depend_on_batch_size(tiny_gpt2, with_budget) -> None:
    contexts = [text.rsplit(" ", 1)[0] for text in SENTENCES if " " in text] * 2
    endings = [" " + text.rsplit(" ", 1)[1] for text in SENTENCES if " " in text] * 2
    targets = [encode(tiny_gpt2, ending)[:1] for ending in endings]
    whole = with_budget(tiny_gpt2, 10**9)
    want_next = next_token_predictions(whole, contexts, targets, top_k=5, progress=False)
    want_cont = continuation_logprobs(whole, contexts, endings, progress=False)
    for budget in (8, 24, 128):
        lm = with_budget(tiny_gpt2, budget)
        for got, want in zip(next_token_predictions(lm, contexts, targets, top_k=5, progress=False), want_next):
            assert got.top_ids == want.top_ids
            assert got.target_logprobs == pytest.approx(want.target_logprobs, abs=1e-5)
        for got, want in zip(continuation_logprobs(lm, contexts, endings, progress=False), want_cont):
            assert got.token_ids == want.token_ids
            assert got.token_logprobs == pytest.approx(want.token_logprobs, abs=1e-5)


def test_a_model_without_bos_starts_from_eos_as_lm_eval_does(tiny_gpt2) -> None:
    """Qwen's tokenizers have no BOS (their configs name one): ``bos`` then prepends the tokenizer's
    EOS (lm-evaluation-harness's ``prefix_token_id``), and the score files say which token it was."""
    import copy
    import dataclasses

    tokenizer = copy.deepcopy(tiny_gpt2.tokenizer)
    tokenizer.bos_token = None
    tokenizer.eos_token = "."  # an EOS that differs from the model's old BOS
    lm = dataclasses.replace(tiny_gpt2, tokenizer=tokenizer)
    assert lm.model.config.bos_token_id == bos(tiny_gpt2)  # a config's BOS does not count, as in lm-eval
    start = tokenizer.convert_tokens_to_ids(".")
    assert start != bos(tiny_gpt2)
    for text, score in zip(SENTENCES, sequence_logprobs(lm, SENTENCES, policy="bos", progress=False)):
        assert score.token_logprobs == pytest.approx(naive_token_terms(lm, [start] + encode(lm, text)), abs=1e-5)
    [got] = next_token_predictions(lm, ["The cat"], [[start]], progress=False)
    assert got.target_logprobs[0] == pytest.approx(naive_logprobs(lm, [start] + encode(lm, "The cat"))[-1, start].item(),
                                                   abs=1e-5)
    assert lm.describe()["start_token"] == "'.' (eos)"
    assert tiny_gpt2.describe()["start_token"] == "'<|endoftext|>' (bos)"


def test_start_token_bos_or_eos_insists_on_that_token(tiny_gpt2, monkeypatch) -> None:
    """XGLM's tokenizer starts a sequence from ``</s>`` (EOS) where its BOS is ``<s>``: ``start_token: eos``
    scores it so, ``bos`` keeps the BOS; a model without the token asked for is refused when built."""
    import copy
    import dataclasses

    tokenizer = copy.deepcopy(tiny_gpt2.tokenizer)
    tokenizer.eos_token = "."
    dot = tokenizer.convert_tokens_to_ids(".")
    for start, token in (("auto", bos(tiny_gpt2)), ("bos", bos(tiny_gpt2)), ("eos", dot)):
        lm = dataclasses.replace(tiny_gpt2, tokenizer=tokenizer, start=start)
        assert lm.start_token() == (token, "eos" if start == "eos" else "bos")
        for text, score in zip(SENTENCES, sequence_logprobs(lm, SENTENCES, policy="bos", progress=False)):
            assert score.token_logprobs == pytest.approx(naive_token_terms(lm, [token] + encode(lm, text)), abs=1e-5)
    assert dataclasses.replace(tiny_gpt2, tokenizer=tokenizer, start="eos").describe()["start_token"] == "'.' (eos)"
    tokenizer.bos_token = None
    monkeypatch.setattr(tiny_gpt2.model.config, "bos_token_id", None)
    with pytest.raises(ValueError, match="tiny-gpt2: start_token: bos asks for the BOS token, which neither"):
        dataclasses.replace(tiny_gpt2, tokenizer=tokenizer, start="bos")
    with pytest.raises(ValueError, match="tiny-gpt2: start_token must be one of"):
        dataclasses.replace(tiny_gpt2, start="eot")


def test_a_model_with_neither_bos_nor_eos_is_refused_under_bos(tiny_gpt2, monkeypatch) -> None:
    import copy
    import dataclasses

    tokenizer = copy.deepcopy(tiny_gpt2.tokenizer)
    tokenizer.bos_token = tokenizer.eos_token = None
    assert dataclasses.replace(tiny_gpt2, tokenizer=tokenizer).start_token() == (bos(tiny_gpt2), "bos")  # the config's
    for attribute in ("bos_token_id", "eos_token_id"):
        monkeypatch.setattr(tiny_gpt2.model.config, attribute, None)
    lm = dataclasses.replace(tiny_gpt2, tokenizer=tokenizer)
    assert lm.start_token() is None
    with pytest.raises(ValueError, match="tiny-gpt2 has neither a BOS nor an EOS token to start a sequence from"):
        sequence_logprobs(lm, SENTENCES, policy="bos", progress=False)
    assert sequence_logprobs(lm, ["A robin."], policy="none", progress=False)[0].token_ids == encode(lm, "A robin.")[1:]
    assert lm.describe()["start_token"] == "none"
