"""A float32 residual stream around bfloat16 linear layers (``residual_dtype: float32``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from lmprobes.bench import CORPUS
from lmprobes.engine import pseudo_log_likelihoods, sequence_logprobs
from lmprobes.engine.fusion import Conv1DGELU, LinearGELU, onednn_bf16_available
from lmprobes.engine.head import CastLogits, Float32Logits
from lmprobes.engine.lm import LM
from lmprobes.tiny import read_corpus

TEXTS = [
    "the cat sat on the mat",
    "a dog ran in the park today",
    "we saw it",
    "one two three four five six",
    "the children who the teacher praised were happy",
    "she said that he would come back tomorrow",
]


def _model(family: str, vocab: int, layers: int = 3, width: int = 64) -> torch.nn.Module:
    from transformers import BertConfig, BertForMaskedLM, GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    if family == "causal":
        config = GPT2Config(vocab_size=vocab, n_embd=width, n_layer=layers, n_head=4, n_positions=64,
                            bos_token_id=0, eos_token_id=0)
        return GPT2LMHeadModel(config).eval()
    config = BertConfig(vocab_size=vocab, hidden_size=width, num_hidden_layers=layers, num_attention_heads=4,
                        intermediate_size=4 * width)
    return BertForMaskedLM(config).eval()


def _lm(family: str, tokenizer, dtype: torch.dtype = torch.float32, residual: str = "auto", layers: int = 3,
        width: int = 64) -> LM:
    model = _model(family, len(tokenizer), layers, width)
    model = model if residual == "float32" else model.to(dtype)
    return LM(name="m", model=model, tokenizer=tokenizer, family=family, dtype=dtype, residual_dtype=residual,
              batch_tokens=256)


def _round(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.bfloat16).float()


def _float32_rounded_at_linear_layers(family: str, tokenizer) -> LM:
    """The plain computation: a float32 model whose linear layers see bfloat16-rounded weights, inputs
    and outputs (the tied head through rounded copies), everything else in float32."""
    from transformers.pytorch_utils import Conv1D

    lm = _lm(family, tokenizer)
    head = lm.model.get_output_embeddings()
    for module in lm.model.modules():
        if isinstance(module, (torch.nn.Linear, Conv1D, Conv1DGELU)) and module is not head:
            with torch.no_grad():
                module.weight.copy_(_round(module.weight))
                if module.bias is not None:
                    module.bias.copy_(_round(module.bias))
            module.register_forward_pre_hook(lambda m, args: (_round(args[0]), *args[1:]))
            module.register_forward_hook(lambda m, args, out: _round(out))
        if isinstance(module, (LinearGELU, Conv1DGELU)) and not onednn_bf16_available():
            module.register_forward_hook(_rounded_before_and_after_gelu)
    bias = None if head.bias is None else _round(head.bias)
    head.register_forward_hook(lambda m, args, out: _round(F.linear(_round(args[0]), _round(m.weight), bias)))
    return lm


def _rounded_before_and_after_gelu(module, args, out) -> torch.Tensor:
    """Where oneDNN has no bfloat16 (CPUs without AVX-512), the mixed model's linear+GELU runs
    unfused: the bfloat16 matmul rounds its output, then the GELU runs (and rounds) in bfloat16."""
    x = args[0]
    if isinstance(module, Conv1DGELU):
        pre = torch.addmm(module.bias, x.view(-1, x.size(-1)), module.weight).view(*x.shape[:-1], module.nf)
    else:
        pre = F.linear(x, module.weight, module.bias)
    return F.gelu(pre.to(torch.bfloat16), approximate=module.approximate).float()  # the bfloat16 kernel itself


def _totals(lm: LM, family: str, texts: list[str] = TEXTS) -> np.ndarray:
    scores = sequence_logprobs(lm, texts, progress=False) if family == "causal" else pseudo_log_likelihoods(lm, texts, progress=False)
    return np.array([s.total for s in scores])


@pytest.fixture(params=["causal", "masked"])
def family_and_tokenizer(request, tiny_gpt2, tiny_bert):
    return request.param, (tiny_gpt2 if request.param == "causal" else tiny_bert).tokenizer


def test_linear_layers_hold_bfloat16_and_everything_else_stays_float32(family_and_tokenizer):
    family, tokenizer = family_and_tokenizer
    lm = _lm(family, tokenizer, torch.bfloat16, "float32")
    embeddings = lm.model.get_input_embeddings().weight
    head = lm.model.get_output_embeddings()
    dtypes = {name: p.dtype for name, p in lm.model.named_parameters()}
    linear = [n for n in dtypes if any(k in n for k in ("query", "key", "value", "dense", "c_attn", "c_proj", "c_fc"))]
    assert linear and all(dtypes[n] == torch.bfloat16 for n in linear)
    assert all(dtypes[n] == torch.float32 for n in dtypes if "LayerNorm" in n or "ln_" in n or "embeddings" in n or "wte" in n)
    assert head.weight is embeddings and embeddings.dtype == torch.float32  # the tied head stays float32
    outputs = []
    layers = lm.model.base_model.encoder.layer if family == "masked" else lm.model.transformer.h
    layers[0].register_forward_hook(lambda m, args, out: outputs.append(out[0] if isinstance(out, tuple) else out))
    _totals(lm, family)
    assert outputs and all(out.dtype == torch.float32 for out in outputs)  # the residual stream


def test_scores_equal_float32_rounded_at_exactly_the_linear_layers(family_and_tokenizer, monkeypatch):
    family, tokenizer = family_and_tokenizer
    texts = read_corpus(CORPUS)[:40]
    mixed = _totals(_lm(family, tokenizer, torch.bfloat16, "float32"), family, texts)
    sdpa = F.scaled_dot_product_attention

    def attention_in_bfloat16(query, key, value, attn_mask=None, **kwargs):
        # as in the mixed model, whose attention gets bfloat16 projections (its kernel rounds inside)
        if attn_mask is not None and attn_mask.is_floating_point():
            attn_mask = attn_mask.to(torch.bfloat16)
        args = (t.to(torch.bfloat16) for t in (query, key, value))
        return sdpa(*args, attn_mask=attn_mask, **kwargs).float()

    monkeypatch.setattr(F, "scaled_dot_product_attention", attention_in_bfloat16)
    plain = _totals(_float32_rounded_at_linear_layers(family, tokenizer), family, texts)
    monkeypatch.undo()
    float32 = _totals(_lm(family, tokenizer), family, texts)
    assert np.median(np.abs(mixed - float32)) > 1e-3  # bfloat16 did move the scores
    # Medians: a float32 sum landing within a hair of a bfloat16 rounding boundary rounds either way
    # with another accumulation order (a rare sentence moves by ~1e-3); a wrong rounding point moves all.
    assert np.median(np.abs(mixed - plain)) < np.median(np.abs(mixed - float32)) / 20


def test_the_error_is_well_below_plain_bfloat16s(family_and_tokenizer):
    # 12 layers, as in BERT-base: the residual stream's rounding adds up over depth (with 3 layers
    # of width 64 the linear layers' own rounding dominates and the two errors are alike).
    family, tokenizer = family_and_tokenizer
    size = {"layers": 12, "width": 128}
    texts = read_corpus(CORPUS)
    # PLL runs a forward per token: the masked model sees 40 sentences of 6-9 words (a fifth of the time).
    texts = texts[:40] if family == "causal" else [t for t in texts if 6 <= len(t.split()) <= 9][:40]
    float32 = _totals(_lm(family, tokenizer, **size), family, texts)
    rounded = np.abs(_totals(_lm(family, tokenizer, torch.bfloat16, **size), family, texts) - float32)
    kept = np.abs(_totals(_lm(family, tokenizer, torch.bfloat16, "float32", **size), family, texts) - float32)
    assert kept.mean() < 0.6 * rounded.mean()


def test_an_lm_built_again_around_the_same_model_scores_the_same(tiny_bert):
    lm = _lm("masked", tiny_bert.tokenizer, torch.bfloat16, "float32")
    hooks = sum(len(m._forward_pre_hooks) for m in lm.model.modules())
    again = dataclasses.replace(lm, name="again")
    assert sum(len(m._forward_pre_hooks) for m in again.model.modules()) == hooks
    assert np.array_equal(_totals(again, "masked"), _totals(lm, "masked"))


def test_float32_models_are_left_as_they_are(tiny_bert):
    lm = _lm("masked", tiny_bert.tokenizer, torch.float32, "float32")
    assert {p.dtype for p in lm.model.parameters()} == {torch.float32}
    assert not any(m._forward_pre_hooks for m in lm.model.modules())


def test_the_head_keeps_its_float32_weight_and_computes_as_head_dtype_says(tiny_gpt2):
    heads = {}
    for head_dtype in ("auto", "float32"):
        lm = LM(name="m", model=_model("causal", len(tiny_gpt2.tokenizer)), tokenizer=tiny_gpt2.tokenizer,
                family="causal", dtype=torch.bfloat16, residual_dtype="float32", head_dtype=head_dtype)
        heads[head_dtype] = lm.model.get_output_embeddings()
        assert heads[head_dtype].weight is lm.model.get_input_embeddings().weight  # still tied
        assert heads[head_dtype].weight.dtype == torch.float32
    x = torch.randn(3, heads["auto"].in_features)
    with torch.inference_mode():
        assert isinstance(heads["auto"], CastLogits) and heads["auto"](x).dtype == torch.bfloat16
        assert isinstance(heads["float32"], Float32Logits) and heads["float32"](x).dtype == torch.float32
        assert torch.equal(heads["auto"](x), (_round(x) @ _round(heads["auto"].weight).T).to(torch.bfloat16))


def test_a_reduced_precision_model_is_refused_naming_the_model(tiny_bert):
    model = _model("masked", len(tiny_bert.tokenizer)).to(torch.bfloat16)
    with pytest.raises(ValueError, match=r"^m: residual_dtype float32 needs the model loaded in float32"):
        LM(name="m", model=model, tokenizer=tiny_bert.tokenizer, family="masked", dtype=torch.bfloat16,
           residual_dtype="float32")


@pytest.mark.parametrize("model_type, family", [("llama", "causal"), ("gpt_neox", "causal"), ("deberta", "masked")])
def test_an_architecture_that_cannot_mix_dtypes_is_refused_when_built(tiny_gpt2, tiny_bert, model_type, family):
    """Rotary models cast their query and key to the float32 hidden states while the value stays bfloat16;
    DeBERTa's relative attention mixes them too: a named refusal, not a RuntimeError mid-scoring."""
    from model_zoo import random_model

    tokenizer = (tiny_gpt2 if family == "causal" else tiny_bert).tokenizer
    with pytest.raises(ValueError, match=rf"^m: residual_dtype float32 does not run on a '{model_type}' model.*"
                                         r"residual_dtype: auto"):
        LM(name="m", model=random_model(model_type, tokenizer, family), tokenizer=tokenizer, family=family,
           dtype=torch.bfloat16, residual_dtype="float32")


@pytest.mark.parametrize("model_type, family", [("opt", "causal"), ("roberta", "masked")])
def test_architectures_that_mix_dtypes_score_close_to_float32(tiny_gpt2, tiny_bert, model_type, family):
    from model_zoo import random_model

    tokenizer = (tiny_gpt2 if family == "causal" else tiny_bert).tokenizer
    f32 = LM(name="m", model=random_model(model_type, tokenizer, family), tokenizer=tokenizer, family=family)
    mixed = LM(name="m", model=random_model(model_type, tokenizer, family), tokenizer=tokenizer, family=family,
               dtype=torch.bfloat16, residual_dtype="float32")
    assert np.abs(_totals(mixed, family) - _totals(f32, family)).max() < 0.05


@pytest.mark.parametrize("option, value", [("head_dtype", "float16"), ("residual_dtype", "bfloat16")])
def test_an_unknown_dtype_option_is_refused_naming_the_model_and_option(tiny_gpt2, option, value):
    with pytest.raises(ValueError, match=rf"m: {option} must be one of .*'{value}'"):
        LM(name="m", model=tiny_gpt2.model, tokenizer=tiny_gpt2.tokenizer, family="causal", **{option: value})


def test_a_configured_residual_dtype_reaches_the_loaded_model_and_its_provenance(tiny_dir):
    from lmprobes.models import load_lm

    spec = {"family": "masked", "dtype": "bfloat16", "residual_dtype": "float32"}
    lm = load_lm("tiny-bert", spec, tiny_dir("bert"), "cpu")
    encoder = lm.model.base_model.encoder.layer[0]
    assert encoder.attention.self.query.weight.dtype == torch.bfloat16
    assert encoder.attention.output.LayerNorm.weight.dtype == torch.float32
    assert lm.describe()["residual_dtype"] == "float32" and lm.describe()["dtype"] == "bfloat16"
    assert load_lm("tiny-bert", {"family": "masked"}, tiny_dir("bert"), "cpu").describe()["residual_dtype"] == "auto"
