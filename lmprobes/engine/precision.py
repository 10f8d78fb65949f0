"""A float32 residual stream around reduced-precision linear layers (``residual_dtype: float32``).

In a plain bfloat16 model every activation is rounded to 8 significant bits, the residual stream
included: each block's output is added to it in bfloat16 and each LayerNorm's output is stored in
bfloat16. Rounding a float32 BERT-base at chosen points (PLL on the BLiMP bench sample's first 300
pairs) put half of the bfloat16 error of a sentence's log-likelihood there: weights alone 0.0045
nats (median), weights and the linear layers' inputs and outputs 0.0066, weights and the residual
stream 0.0123, everything 0.0147 (a real bfloat16 run: 0.0148).

With ``residual_dtype: float32`` the linear layers (attention projections, feed-forward blocks,
head transforms) hold their weights in the model's dtype and take their input cast to it, so the
matmuls run at the reduced-precision rate; the embeddings, normalisation layers and the residual
adds stay in float32, since a block's reduced-precision output added to a float32 residual is
float32. The LM head keeps its float32 weight, which is often the input embeddings' own, and
computes in the model's dtype from a cast copy (or in float32 with ``head_dtype: float32``). This
is the split of Megatron-LM's ``fp32_residual_connection``.
"""

from __future__ import annotations

import torch

from lmprobes.engine.fusion import Conv1DGELU
from lmprobes.engine.head import CastLogits

RESIDUAL_DTYPES = ("auto", "float32")
_MARK = "_lmprobes_linear_dtype"


def load_dtype(dtype: torch.dtype, residual_dtype: str) -> torch.dtype:
    """The dtype to load a model's weights in: float32 when its residual stream is to stay float32
    (``keep_residual_float32`` casts the linear layers afterwards), else ``dtype``."""
    return torch.float32 if residual_dtype == "float32" else dtype


def keep_residual_float32(model: torch.nn.Module, dtype: torch.dtype, head_dtype: str = "auto") -> int:
    """Cast ``model``'s linear layers to ``dtype`` in place, each casting its input; the count cast.

    The model must be in float32. A linear layer whose weight an embedding shares stays float32.
    The LM head keeps its float32 parameters (often tied to the input embeddings): with
    ``head_dtype`` ``auto`` it computes in ``dtype`` from cast copies (``CastLogits``), with
    ``float32`` in float32.
    """
    from transformers.pytorch_utils import Conv1D

    if getattr(model, _MARK, None) == dtype:  # an LM built again around the same model
        return 0
    floats = {p.dtype for p in model.parameters() if p.is_floating_point()}
    if floats != {torch.float32}:
        raise ValueError(f"residual_dtype float32 needs the model loaded in float32, not {sorted(map(str, floats))}")
    shared = {id(p) for m in model.modules() if isinstance(m, torch.nn.Embedding) for p in m.parameters()}
    head = model.get_output_embeddings()
    cast = 0
    for module in model.modules():
        if module is head or not isinstance(module, (torch.nn.Linear, Conv1D, Conv1DGELU)) or id(module.weight) in shared:
            continue
        module.to(dtype)
        module.register_forward_pre_hook(_cast_input_to_weight)
        cast += 1
    if type(head) is torch.nn.Linear and head_dtype == "auto":
        model.set_output_embeddings(CastLogits.sharing(head, dtype))
    check_mixed_forward_runs(model, dtype)
    setattr(model, _MARK, dtype)
    return cast


def check_mixed_forward_runs(model: torch.nn.Module, dtype: torch.dtype) -> None:
    """Refuse, naming the model type, an architecture whose forward fails with float32 hidden states
    around ``dtype`` linear layers: one probe forward of two right-padded sequences.

    Rotary models (Llama, Mistral, Qwen, GPT-NeoX, Phi, Gemma, ...) cast their rotary embedding to the
    hidden states' float32, so query and key come out float32 while the value stays bfloat16, and
    eager attention multiplies the two; DeBERTa, MPNet, Funnel and others mix dtypes likewise.
    """
    rows = getattr(model.get_input_embeddings(), "num_embeddings", None) or model.config.vocab_size
    device = next(model.parameters()).device
    input_ids = torch.arange(1, 9, device=device).remainder(rows).repeat(2, 1)
    attention_mask = torch.ones_like(input_ids)
    attention_mask[1, 5:] = 0
    # As the engine runs it: without a cache (with one, Llama's value states come out float32 and it runs).
    no_cache = {"use_cache": False} if hasattr(getattr(model, "config", None), "use_cache") else {}
    try:
        with torch.inference_mode():
            model(input_ids=input_ids, attention_mask=attention_mask, **no_cache)
    except RuntimeError as error:
        model_type = getattr(getattr(model, "config", None), "model_type", type(model).__name__)
        raise ValueError(
            f"residual_dtype float32 does not run on a {model_type!r} model: its forward mixes float32 and "
            f"{str(dtype).removeprefix('torch.')} tensors ({error}); use residual_dtype: auto"
        ) from error


def _cast_input_to_weight(module: torch.nn.Module, args: tuple) -> tuple:
    return (args[0].to(module.weight.dtype), *args[1:])
