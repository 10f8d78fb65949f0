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
from model_zoo import CAUSAL, MASKED, UNCHECKED_CAUSAL, UNCHECKED_MASKED, ZOO_CAUSAL, random_model

from lmprobes.engine import causal, masked, pseudo_log_likelihoods, sequence_logprobs
from lmprobes.engine.causal import causal_projection
from lmprobes.engine.lm import PADDING_SENSITIVE_MODEL_TYPES
from lmprobes.engine.masked import masked_projection
from lmprobes.models import load_lm

TEXTS = ["the cat sat on the mat .", "a dog is a cat .", "birds fly ."]
BUDGET = 64  # tokens a batch: every batch mixes the three lengths unless told not to



# Output-layer weights scaled by this before saving: logits of a trained model's size, so that a soft
# cap or a multiplier the engine skipped would move the scores by whole nats, not by 1e-7.
TRAINED_LOGIT_SCALE = 30.0


def save_random_model(model_type: str, tokenizer, family: str, folder, *, logit_scale: float = 1.0) -> None:
    model = random_model(model_type, tokenizer, family)
    with torch.no_grad():
        model.get_output_embeddings().weight.mul_(logit_scale)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)


class Zoo:
    """``zoo(model_type, family)``: the model saved to a folder and loaded by ``load_lm``;
    ``zoo.plain(...)``: the same folder loaded by transformers alone (no fusion, no float32 head)."""

    def __init__(self, root, tokenizers: dict) -> None:
        self.root, self.tokenizers = root, tokenizers

    def folder(self, model_type: str, family: str, logit_scale: float = 1.0):
        folder = self.root / f"{model_type}-{logit_scale:g}"
        if not folder.exists():
            save_random_model(model_type, self.tokenizers[family], family, folder, logit_scale=logit_scale)
        return folder

    def __call__(self, model_type: str, family: str, logit_scale: float = 1.0):
        folder = self.folder(model_type, family, logit_scale)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lm = load_lm(model_type, {"family": family, "path": str(folder)}, folder, "cpu")
        return dataclasses.replace(lm, batch_tokens=BUDGET)

    def plain(self, model_type: str, family: str, logit_scale: float = 1.0) -> torch.nn.Module:
        from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

        auto = AutoModelForMaskedLM if family == "masked" else AutoModelForCausalLM
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return auto.from_pretrained(self.folder(model_type, family, logit_scale)).eval()


@pytest.fixture(scope="module")
def zoo(tmp_path_factory, tiny_bert, tiny_gpt2) -> Zoo:
    return Zoo(tmp_path_factory.mktemp("zoo"), {"masked": tiny_bert.tokenizer, "causal": tiny_gpt2.tokenizer})


def plain_pll(lm, text: str, model: torch.nn.Module) -> float:
    """Each non-special token masked in its own unpadded forward of the whole ``model``."""
    ids = lm.tokenizer(text)["input_ids"]
    special = set(lm.tokenizer.all_special_ids)
    total = 0.0
    for position, token in enumerate(ids):
        if token in special:
            continue
        copy = [*ids[:position], lm.tokenizer.mask_token_id, *ids[position + 1:]]
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([copy])).logits[0, position]
        total += logits.float().log_softmax(-1)[token].item()
    return total


def plain_sentence(lm, token_ids: list[int], model: torch.nn.Module) -> float:
    """The sentence's log-probability after BOS from one unpadded forward of the whole ``model``."""
    ids = [lm.tokenizer.bos_token_id, *token_ids]
    with torch.no_grad():
        logprobs = model(input_ids=torch.tensor([ids])).logits[0].float().log_softmax(-1)
    return sum(logprobs[i, ids[i + 1]].item() for i in range(len(ids) - 1))


def test_the_engines_checked_types_are_the_zoos():
    """A type enters the engine's checked lists only with a zoo entry that compares it with a plain forward."""
    assert masked.HEAD_CHECKED_TYPES == set(MASKED)
    assert causal.HEAD_CHECKED_TYPES == set(CAUSAL)
    assert not set(UNCHECKED_CAUSAL) & causal.HEAD_CHECKED_TYPES
    assert not set(UNCHECKED_MASKED) & masked.HEAD_CHECKED_TYPES


@pytest.mark.parametrize("model_type", sorted(MASKED))
def test_masked_types_score_as_a_plain_forward(zoo, model_type):
    lm = zoo(model_type, "masked")
    assert lm.equal_length_batches == (model_type in PADDING_SENSITIVE_MODEL_TYPES)
    assert not masked_projection(lm).full_forward, "the head runs at the scored rows only"
    got = [score.total for score in pseudo_log_likelihoods(lm, TEXTS, progress=False)]
    plain = zoo.plain(model_type, "masked")
    assert got == pytest.approx([plain_pll(lm, text, plain) for text in TEXTS], abs=1e-4)


@pytest.mark.parametrize("model_type", sorted(MASKED))
def test_a_text_holding_the_pad_token_scores_the_same_alone_and_in_a_padded_batch(zoo, model_type):
    """An unpadded batch reaches the model with no mask, unless a text holds the pad id itself:
    XLM and Flaubert, given no mask, mask every pad id, which a mask of the batch's padding does not."""
    lm = dataclasses.replace(zoo(model_type, "masked"), batch_tokens=4096)  # every copy in one batch
    text = f"the {lm.tokenizer.pad_token} cat sat ."
    (alone,) = pseudo_log_likelihoods(lm, [text], progress=False)
    padded, _ = pseudo_log_likelihoods(lm, [text, "a much longer text that pads the first one"], progress=False)
    assert alone.token_logprobs == pytest.approx(padded.token_logprobs, abs=1e-5)


@pytest.mark.parametrize("model_type", sorted(PADDING_SENSITIVE_MODEL_TYPES))
def test_padding_sensitive_types_do_change_when_padded(zoo, model_type):
    """Why they are batched by equal length: right padding moves their scores."""
    lm = zoo(model_type, "masked")
    padded = dataclasses.replace(lm, padding="right")
    assert not padded.equal_length_batches
    got = [score.total for score in pseudo_log_likelihoods(padded, TEXTS, progress=False)]
    plain = zoo.plain(model_type, "masked")
    want = [plain_pll(lm, text, plain) for text in TEXTS]
    assert max(abs(a - b) for a, b in zip(got, want, strict=True)) > 1e-4


@pytest.mark.parametrize("model_type", sorted(ZOO_CAUSAL))
def test_causal_types_score_as_a_plain_forward(zoo, model_type):
    lm = zoo(model_type, "causal")
    assert not lm.equal_length_batches, "a causal model never sees its right padding"
    scores = sequence_logprobs(lm, TEXTS, policy="bos", progress=False)
    plain = zoo.plain(model_type, "causal")
    assert [s.total for s in scores] == pytest.approx([plain_sentence(lm, s.token_ids, plain) for s in scores], abs=1e-4)


@pytest.mark.parametrize("model_type", sorted(UNCHECKED_CAUSAL))
def test_a_type_outside_the_checked_list_is_probed_and_run_whole_when_its_forward_rescales_logits(zoo, model_type):
    """RecurrentGemma soft-caps the logits and Falcon-H1 multiplies them in ``forward``, under config
    names the engine does not know: the probe finds it, and the model runs whole; a plain type keeps the
    head at the scored rows."""
    lm = zoo(model_type, "causal", logit_scale=TRAINED_LOGIT_SCALE)
    rescales = model_type != "stablelm"
    assert causal_projection(lm).full_forward == rescales
    scores = sequence_logprobs(lm, TEXTS, policy="bos", progress=False)
    plain = zoo.plain(model_type, "causal", TRAINED_LOGIT_SCALE)
    want = [plain_sentence(lm, s.token_ids, plain) for s in scores]
    assert [s.total for s in scores] == pytest.approx(want, abs=1e-3)


@pytest.mark.parametrize("model_type", ["cohere", "gemma2"])
def test_a_checked_type_that_rescales_its_logits_runs_whole_at_a_trained_models_logit_size(zoo, model_type):
    """Gemma 2 soft-caps the logits (``final_logit_softcapping``) and Cohere scales them (``logit_scale``)
    after the output layer; at the random models' logit size a skipped soft cap moves nothing."""
    lm = zoo(model_type, "causal", logit_scale=TRAINED_LOGIT_SCALE)
    assert causal_projection(lm).full_forward
    scores = sequence_logprobs(lm, TEXTS, policy="bos", progress=False)
    plain = zoo.plain(model_type, "causal", TRAINED_LOGIT_SCALE)
    want = [plain_sentence(lm, s.token_ids, plain) for s in scores]
    assert [s.total for s in scores] == pytest.approx(want, abs=1e-3)


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


@pytest.mark.parametrize("model_type", sorted(UNCHECKED_MASKED))
def test_a_masked_type_outside_the_checked_list_keeps_its_head_at_the_rows_when_the_probe_agrees(zoo, model_type):
    lm = zoo(model_type, "masked", logit_scale=TRAINED_LOGIT_SCALE)
    assert not masked_projection(lm).full_forward and lm.head_path_checked is True
    got = [score.total for score in pseudo_log_likelihoods(lm, TEXTS, progress=False)]
    plain = zoo.plain(model_type, "masked", TRAINED_LOGIT_SCALE)
    assert got == pytest.approx([plain_pll(lm, text, plain) for text in TEXTS], abs=1e-3)
