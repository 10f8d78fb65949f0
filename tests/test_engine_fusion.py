"""Fused linear+GELU: same numbers as the unfused model, same parameters, gradients still flow."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F

from lmprobes.engine.fusion import LinearGELU, fuse_linear_gelu, onednn_bf16_available, onednn_linear_available

pytestmark = pytest.mark.skipif(not onednn_linear_available(), reason="torch built without oneDNN")


def _bert(kind: str) -> torch.nn.Module:
    from transformers import (
        BertConfig,
        BertForMaskedLM,
        DistilBertConfig,
        DistilBertForMaskedLM,
        RobertaConfig,
        RobertaForMaskedLM,
    )

    torch.manual_seed(0)
    if kind == "distilbert":
        config = DistilBertConfig(vocab_size=120, dim=48, n_layers=2, n_heads=4, hidden_dim=96)
        return DistilBertForMaskedLM(config).eval()
    size = {
        "vocab_size": 120,
        "hidden_size": 48,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 96,
    }
    if kind == "roberta":
        return RobertaForMaskedLM(RobertaConfig(**size, pad_token_id=1)).eval()
    return BertForMaskedLM(BertConfig(**size, hidden_act=kind)).eval()


@pytest.mark.parametrize(("kind", "expected"), [("gelu", 3), ("gelu_new", 3), ("roberta", 2), ("distilbert", 3)])
def test_fused_model_scores_like_the_unfused_one(kind, expected):
    model = _bert(kind)
    plain = copy.deepcopy(model)
    keys = list(model.state_dict())
    assert fuse_linear_gelu(model) == expected  # one per layer (+ the MLM head's transform)
    assert list(model.state_dict()) == keys
    assert sum(isinstance(m, LinearGELU) for m in model.modules()) == expected
    ids = torch.randint(5, 120, (3, 9))
    mask = torch.ones_like(ids)
    mask[0, 6:] = 0
    with torch.inference_mode():
        got = model(input_ids=ids, attention_mask=mask).logits
        want = plain(input_ids=ids, attention_mask=mask).logits
    assert (got - want).abs().max().item() < 1e-5


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_linear_gelu_matches_a_plain_float64_computation(approximate):
    torch.manual_seed(1)
    linear = torch.nn.Linear(40, 70)
    fused = LinearGELU.sharing(linear, approximate)
    assert fused.weight is linear.weight and fused.bias is linear.bias
    x = torch.randn(2, 5, 40) * 3
    expected = F.gelu(F.linear(x.double(), linear.weight.double(), linear.bias.double()), approximate=approximate)
    with torch.inference_mode():
        assert (fused(x).double() - expected).abs().max().item() < 1e-5
        if not onednn_bf16_available():
            return
        bf16 = LinearGELU.sharing(copy.deepcopy(linear).bfloat16(), approximate)
        rounded = F.gelu(
            F.linear(x.bfloat16().double(), bf16.weight.double(), bf16.bias.double()), approximate=approximate
        )
        # The post-op acts on the float32 accumulator: one bfloat16 rounding of the result.
        assert ((bf16(x.bfloat16()).double() - rounded).abs() <= rounded.abs() * 2**-8 + 1e-5).all()


def test_conv1d_gelu_matches_a_plain_float64_computation():
    """GPT-2's MLP input with its tanh GELU, at pre-activations of a few units, where the tanh form and
    the exact (erf) one differ by up to ~1e-3."""
    from transformers.pytorch_utils import Conv1D

    from lmprobes.engine.fusion import Conv1DGELU

    torch.manual_seed(2)
    conv = Conv1D(70, 40)
    with torch.no_grad():
        conv.weight.normal_(std=0.5)
        conv.bias.normal_()
    fused = Conv1DGELU.sharing(conv, "tanh")
    assert fused.weight is conv.weight and fused.bias is conv.bias
    x = torch.randn(2, 5, 40)
    expected = F.gelu(x.double() @ conv.weight.double() + conv.bias.double(), approximate="tanh")
    with torch.inference_mode():
        assert (fused(x).double() - expected).abs().max().item() < 1e-5


def test_training_takes_the_differentiable_path():
    model = _bert("gelu")
    plain = copy.deepcopy(model)
    fuse_linear_gelu(model)
    ids = torch.randint(5, 120, (2, 7))
    model.train(), plain.train()
    torch.manual_seed(3)
    model(input_ids=ids, labels=ids).loss.backward()
    torch.manual_seed(3)
    plain(input_ids=ids, labels=ids).loss.backward()
    got = model.bert.encoder.layer[0].intermediate.dense.weight.grad
    want = plain.bert.encoder.layer[0].intermediate.dense.weight.grad
    assert got is not None and torch.allclose(got, want, atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_gpt2_mlp_fused_scores_like_the_unfused_model(dtype):
    from transformers import GPT2Config, GPT2LMHeadModel

    from lmprobes.engine.fusion import Conv1DGELU, fuse_activations

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=120, n_embd=48, n_layer=2, n_head=4)).eval().to(dtype)
    plain = copy.deepcopy(model)
    keys = list(model.state_dict())
    fuse_activations(model)
    assert fuse_linear_gelu(model) == 2
    assert list(model.state_dict()) == keys
    assert model.transformer.h[0].mlp.c_fc.weight is model.state_dict(keep_vars=True)["transformer.h.0.mlp.c_fc.weight"]
    assert isinstance(model.transformer.h[1].mlp.c_fc, Conv1DGELU)
    exact = copy.deepcopy(plain).float()  # the same (rounded) weights, computed in float32
    ids = torch.randint(0, 120, (3, 9))
    with torch.inference_mode():
        got, unfused, want = (m(input_ids=ids).logits.double() for m in (model, plain, exact))
    if dtype == torch.float32:
        assert (got - want).abs().max().item() < 1e-5
    else:  # the fused GELU acts on the float32 accumulator: no further from float32 than unfused
        assert (got - want).abs().mean() <= 1.2 * (unfused - want).abs().mean()


def test_a_model_without_known_pairs_is_left_alone():
    from transformers import OPTConfig, OPTForCausalLM

    model = OPTForCausalLM(OPTConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, ffn_dim=32,
                                     num_attention_heads=2, word_embed_proj_dim=16)).eval()
    before = [type(m) for m in model.modules()]
    assert fuse_linear_gelu(model) == 0
    assert [type(m) for m in model.modules()] == before


def test_loaded_masked_lms_come_fused(tiny_bert):
    assert any(isinstance(m, LinearGELU) for m in tiny_bert.model.modules())
