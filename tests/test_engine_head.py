"""Float32 logits for reduced-precision models: the head's accumulator kept, parameters shared."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from lmprobes.engine import sequence_logprobs
from lmprobes.engine.head import Float32Logits, use_float32_head
from lmprobes.engine.lm import LM

# Output embeddings scaled up so the logits reach a trained model's magnitude (tens), where bfloat16
# rounding of the head's output is coarse (0.125 between 32 and 64).
LOGIT_SCALE = 60.0


def _gpt2(dtype: torch.dtype, scale: float = LOGIT_SCALE, vocab: int = 300) -> torch.nn.Module:
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=vocab, n_embd=64, n_layer=2, n_head=4, n_positions=64)).eval()
    with torch.no_grad():
        model.transformer.ln_f.weight.mul_(scale)
    return model.to(dtype)


def _bert(dtype: torch.dtype) -> torch.nn.Module:
    from transformers import BertConfig, BertForMaskedLM

    torch.manual_seed(0)
    config = BertConfig(vocab_size=300, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
    return BertForMaskedLM(config).eval().to(dtype)


def test_logits_equal_a_float64_projection_of_the_models_own_hidden_state():
    model = _gpt2(torch.bfloat16)
    assert use_float32_head(model, "float32")
    ids = torch.randint(0, 300, (3, 11))
    with torch.inference_mode():
        hidden = model.transformer(input_ids=ids)[0]
        logits = model(input_ids=ids).logits
        rounded = F.linear(hidden, model.lm_head.weight)
    expected = F.linear(hidden.double(), model.lm_head.weight.double())
    assert logits.dtype == torch.float32
    assert expected.abs().max().item() > 32  # the magnitude where bfloat16 rounds to 0.125 or coarser
    assert (logits.double() - expected).abs().max().item() < 1e-4
    assert (rounded.double() - expected).abs().max().item() > 1e-2


def test_masked_head_keeps_its_bias_and_the_transform_before_it():
    model = _bert(torch.bfloat16)
    decoder = model.cls.predictions.decoder
    with torch.no_grad():
        decoder.bias.normal_(std=3.0)  # initialised to zeros, where a dropped bias would go unseen
    assert use_float32_head(model, "float32")
    head = model.cls.predictions.decoder
    assert isinstance(head, Float32Logits) and head.weight is decoder.weight and head.bias is decoder.bias
    assert model.cls.predictions.bias is decoder.bias
    ids = torch.randint(5, 300, (2, 7))
    with torch.inference_mode():
        hidden = model.bert(input_ids=ids)[0]
        transformed = model.cls.predictions.transform(hidden)
        logits = model(input_ids=ids).logits
    expected = F.linear(transformed.double(), decoder.weight.double(), decoder.bias.double())
    assert logits.dtype == torch.float32
    assert (logits.double() - expected).abs().max().item() < 1e-4


def test_tied_weights_stay_tied_and_the_state_dict_keeps_its_keys():
    model = _gpt2(torch.bfloat16)
    keys = list(model.state_dict())
    use_float32_head(model, "float32")
    assert model.lm_head.weight is model.transformer.wte.weight
    assert list(model.state_dict()) == keys


def test_a_reduced_precision_head_is_left_rounding_unless_asked():
    model = _gpt2(torch.bfloat16)
    assert not use_float32_head(model, "auto")
    assert type(model.lm_head) is torch.nn.Linear
    with pytest.raises(ValueError, match="'float64'"):
        use_float32_head(model, "float64")


def test_a_float32_head_gives_the_plain_linear_layers_logits():
    model = _gpt2(torch.float32)
    plain = model.lm_head
    assert use_float32_head(model, "auto")
    assert isinstance(model.lm_head, Float32Logits) and model.lm_head.weight is plain.weight
    x = torch.randn(37, 64) * 3
    with torch.inference_mode():
        got = model.lm_head(x)
    expected = F.linear(x.double(), plain.weight.double())
    assert got.dtype == torch.float32 and (got.double() - expected).abs().max().item() < 1e-4


def test_training_takes_the_plain_path_and_a_changed_weight_is_seen():
    model = _gpt2(torch.bfloat16, scale=1.0)
    use_float32_head(model, "float32")
    x = torch.randn(4, 64, dtype=torch.bfloat16, requires_grad=True)
    trained = model.lm_head(x)
    assert trained.dtype == torch.bfloat16
    trained.float().sum().backward()
    assert x.grad is not None
    with torch.inference_mode():
        before = model.lm_head(x.detach())
    with torch.no_grad():
        model.lm_head.weight.mul_(2)  # in place, as an optimizer step
    with torch.inference_mode():
        after = model.lm_head(x.detach())
    assert torch.allclose(after, 2 * before, rtol=1e-5, atol=1e-5)


def test_sentence_log_probs_move_less_from_float32_with_float32_logits(tiny_gpt2):
    texts = ["the cat sat on the mat", "a dog ran in the park today", "we saw it", "one two three four five six"]

    def totals(dtype: torch.dtype, head_dtype: str) -> np.ndarray:
        lm = LM(name="g", model=_gpt2(dtype, vocab=len(tiny_gpt2.tokenizer)), tokenizer=tiny_gpt2.tokenizer, family="causal", dtype=dtype,
                head_dtype=head_dtype)
        return np.array([s.total for s in sequence_logprobs(lm, texts, progress=False)])

    reference = totals(torch.float32, "auto")
    rounded = np.abs(totals(torch.bfloat16, "auto") - reference)
    kept = np.abs(totals(torch.bfloat16, "float32") - reference)
    assert kept.mean() < rounded.mean() / 2


def test_a_configured_head_dtype_reaches_the_loaded_model_and_its_provenance(tiny_dir):
    from lmprobes.models import load_lm

    spec = {"family": "masked", "dtype": "bfloat16", "head_dtype": "float32"}
    lm = load_lm("tiny-bert", spec, tiny_dir("bert"), "cpu")
    assert isinstance(lm.model.get_output_embeddings(), Float32Logits)
    assert lm.describe()["head_dtype"] == "float32" and lm.describe()["dtype"] == "bfloat16"
    plain = load_lm("tiny-bert", {"family": "masked", "dtype": "bfloat16"}, tiny_dir("bert"), "cpu")
    # a bfloat16 head left as it is: its logits round to bfloat16
    assert type(plain.model.get_output_embeddings()) is torch.nn.Linear and plain.describe()["head_dtype"] == "auto"


def test_a_cuda_head_is_padded_to_aligned_rows_sharing_its_parameters():
    """On CUDA a bfloat16 head whose vocabulary is no multiple of 64 multiplies against a zero-padded
    copy (cuBLAS's aligned kernels) and cuts the padding off; the numbers are the plain layer's.
    Run here on CPU tensors, which take the same code path once the head is swapped."""
    from lmprobes.engine.head import VOCAB_ALIGNMENT, AlignedLogits, align_head_on_cuda

    cuda = torch.device("cuda")
    assert not align_head_on_cuda(_gpt2(torch.float32), cuda)  # float32: no swap
    assert not align_head_on_cuda(_gpt2(torch.bfloat16), torch.device("cpu"))
    assert not align_head_on_cuda(_gpt2(torch.bfloat16, vocab=320), cuda)  # already a multiple of 64
    for model in (_gpt2(torch.bfloat16), _bert(torch.bfloat16)):
        plain = model.get_output_embeddings()
        assert align_head_on_cuda(model, cuda)
        head = model.get_output_embeddings()
        assert type(head) is AlignedLogits and head.weight is plain.weight and head.bias is plain.bias
        if model.config.model_type == "gpt2":
            assert head.weight is model.get_input_embeddings().weight  # still tied
        assert not align_head_on_cuda(model, cuda)  # swapped once
        x = torch.randn(5, 64).to(torch.bfloat16)
        with torch.inference_mode():
            out = head(x)
            assert out.shape == (5, 300) and head._padded()[0].shape == (-(-300 // VOCAB_ALIGNMENT) * VOCAB_ALIGNMENT, 64)
            assert torch.equal(out, F.linear(x, plain.weight, plain.bias))
            with torch.no_grad():
                head.weight.mul_(2)  # fine-tuning or a reload changes the weight: the copy follows
            assert torch.equal(head(x), F.linear(x, plain.weight, plain.bias))
        assert use_float32_head(model, "float32")  # an LM built again with float32 logits still gets them
        assert type(model.get_output_embeddings()) is Float32Logits and model.get_output_embeddings().weight is plain.weight
