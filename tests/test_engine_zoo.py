"""Any HuggingFace architecture: random tiny models of many types, saved and loaded the way the
workflow loads a model folder, score as an unbatched plain forward does.

Masked types run pseudo-log-likelihood (every token masked in turn: the masked projection and the
runner); causal types run sentence log-probabilities (the causal projection, packing where the
type allows it). Each masked type's padding behaviour is pinned: the types in
``PADDING_SENSITIVE_MODEL_TYPES`` score differently when padded and are batched by equal length.
"""

from __future__ import annotations

import dataclasses
import warnings

import pytest
import torch
from model_zoo import MASKED, ZOO_CAUSAL, random_model

from lmprobes.engine import pseudo_log_likelihoods, sequence_logprobs
from lmprobes.engine.lm import PADDING_SENSITIVE_MODEL_TYPES
from lmprobes.engine.masked import masked_projection
from lmprobes.models import load_lm

TEXTS = ["the cat sat on the mat .", "a dog is a cat .", "birds fly ."]
BUDGET = 64  # tokens a batch: every batch mixes the three lengths unless told not to



def save_random_model(model_type: str, tokenizer, family: str, folder) -> None:
    random_model(model_type, tokenizer, family).save_pretrained(folder)
    tokenizer.save_pretrained(folder)


@pytest.fixture(scope="module")
def zoo(tmp_path_factory, tiny_bert, tiny_gpt2):
    """``zoo(model_type, family)``: the model saved to a folder and loaded by ``load_lm``."""
    root = tmp_path_factory.mktemp("zoo")

    def load(model_type: str, family: str):
        folder = root / model_type
        if not folder.exists():
            tokenizer = tiny_bert.tokenizer if family == "masked" else tiny_gpt2.tokenizer
            save_random_model(model_type, tokenizer, family, folder)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lm = load_lm(model_type, {"family": family, "path": str(folder)}, folder, "cpu")
        return dataclasses.replace(lm, batch_tokens=BUDGET)

    return load


def plain_pll(lm, text: str) -> float:
    """Each non-special token masked in its own unpadded forward of the whole model."""
    ids = lm.tokenizer(text)["input_ids"]
    special = set(lm.tokenizer.all_special_ids)
    total = 0.0
    for position, token in enumerate(ids):
        if token in special:
            continue
        copy = [*ids[:position], lm.tokenizer.mask_token_id, *ids[position + 1:]]
        with torch.no_grad():
            logits = lm.model(input_ids=torch.tensor([copy])).logits[0, position]
        total += logits.float().log_softmax(-1)[token].item()
    return total


def plain_sentence(lm, token_ids: list[int]) -> float:
    """The sentence's log-probability after BOS from one unpadded forward of the whole model."""
    ids = [lm.tokenizer.bos_token_id, *token_ids]
    with torch.no_grad():
        logprobs = lm.model(input_ids=torch.tensor([ids])).logits[0].float().log_softmax(-1)
    return sum(logprobs[i, ids[i + 1]].item() for i in range(len(ids) - 1))


# Masked types whose head the engine applies at the scored rows only (all of the zoo's).
HEAD_AT_ROWS = {"albert", "flaubert", "xlm", "big_bird", "bert", "camembert", "convbert", "modernbert", "data2vec-text", "deberta", "deberta-v2", "distilbert",
                "electra", "ernie", "esm", "fnet", "funnel", "ibert", "longformer", "luke", "megatron-bert", "mobilebert",
                "mpnet", "rembert", "roberta", "roberta-prelayernorm", "roformer", "squeezebert", "xlm-roberta",
                "yoso"}


@pytest.mark.parametrize("model_type", sorted(MASKED))
def test_masked_types_score_as_a_plain_forward(zoo, model_type):
    lm = zoo(model_type, "masked")
    assert lm.equal_length_batches == (model_type in PADDING_SENSITIVE_MODEL_TYPES)
    assert masked_projection(lm).full_forward == (model_type not in HEAD_AT_ROWS)
    got = [score.total for score in pseudo_log_likelihoods(lm, TEXTS, progress=False)]
    assert got == pytest.approx([plain_pll(lm, text) for text in TEXTS], abs=1e-4)


@pytest.mark.parametrize("model_type", sorted(PADDING_SENSITIVE_MODEL_TYPES))
def test_padding_sensitive_types_do_change_when_padded(zoo, model_type):
    """Why they are batched by equal length: right padding moves their scores."""
    lm = zoo(model_type, "masked")
    padded = dataclasses.replace(lm, padding="right")
    assert not padded.equal_length_batches
    got = [score.total for score in pseudo_log_likelihoods(padded, TEXTS, progress=False)]
    want = [plain_pll(lm, text) for text in TEXTS]
    assert max(abs(a - b) for a, b in zip(got, want, strict=True)) > 1e-4


@pytest.mark.parametrize("model_type", sorted(ZOO_CAUSAL))
def test_causal_types_score_as_a_plain_forward(zoo, model_type):
    lm = zoo(model_type, "causal")
    assert not lm.equal_length_batches, "a causal model never sees its right padding"
    scores = sequence_logprobs(lm, TEXTS, policy="bos", progress=False)
    assert [s.total for s in scores] == pytest.approx([plain_sentence(lm, s.token_ids) for s in scores], abs=1e-4)


def test_equal_length_batches_hold_one_length_within_the_budget():
    from lmprobes.engine.batching import token_budget_batches

    lengths = [5, 3, 5, 3, 3, 9, 5]
    batches = token_budget_batches(lengths, 10, equal_lengths=True)
    assert batches == [[5], [0, 2], [6], [1, 3, 4]]
    assert token_budget_batches(lengths, 10) == [[5], [0, 2], [6, 1], [3, 4]]


def test_an_unknown_padding_is_refused(tiny_bert):
    with pytest.raises(ValueError, match="padding must be one of"):
        dataclasses.replace(tiny_bert, padding="left")


def test_the_configured_padding_reaches_the_model_and_its_score_metadata(zoo, tiny_dir):
    folder = tiny_dir("bert")
    lm = load_lm("tiny-bert", {"family": "masked", "padding": "equal_length"}, folder, "cpu")
    assert lm.equal_length_batches and lm.describe()["padding"] == "equal_length"
    assert zoo("funnel", "masked").describe()["padding"] == "equal_length"
    assert zoo("bert", "masked").describe()["padding"] == "right"
