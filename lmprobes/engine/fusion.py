"""Kernel fusions applied in place to a loaded model: the same formulas, fewer passes over memory.

- GPT-2's Python tanh-GELU (five elementwise passes) becomes torch's fused kernel.
- On CPU, a linear layer followed by a GELU runs as one oneDNN matmul with the GELU applied to
  its accumulator (``LinearGELU``), for BERT-style ``*Intermediate`` blocks, MLM-head transforms
  and DistilBERT's FFN; GPT-2's ``Conv1D`` MLP input (``Conv1DGELU``) in bfloat16. Unfused, the
  GELU is a separate pass over the largest activation of the layer; on BERT-base in bfloat16 it
  took as long as the matmul before it.

Parameter names and the state dict are unchanged; gradients, CUDA tensors and mixed dtypes take
the plain path, so training and GPU inference see no difference.
"""

from __future__ import annotations

import logging

import torch
import torch.nn.functional as F

logger = logging.getLogger(__name__)

# (linear attribute, activation attribute) pairs whose module's forward is act(linear(x)):
# BERT/RoBERTa/ELECTRA/XLM-R ``*Intermediate``, BERT's MLM ``*PredictionHeadTransform``
# (act, then LayerNorm), DistilBERT's ``FFN`` (lin1, act, dropout, lin2) and its MLM head, GPT-2's
# ``MLP`` (c_fc, act, c_proj).
LINEAR_THEN_ACTIVATION = (
    ("dense", "intermediate_act_fn"),
    ("dense", "transform_act_fn"),
    ("lin1", "activation"),
    ("vocab_transform", "activation"),
    ("c_fc", "act"),
)


def fuse_activations(model: torch.nn.Module) -> None:
    """Swap GPT-2's Python tanh-GELU for torch's fused kernel, in place.

    Both compute the same tanh approximation; they differ by float rounding (~1e-7). On GPT-2
    small the Python version took about a fifth of the forward time on CPU.
    """
    from transformers.activations import GELUTanh, NewGELUActivation

    for module in list(model.modules()):
        for name, child in module.named_children():
            if type(child) is NewGELUActivation:
                setattr(module, name, GELUTanh())


def fuse_linear_gelu(model: torch.nn.Module) -> int:
    """Replace each known linear-then-GELU pair by a fused module and an identity; the count."""
    from transformers.pytorch_utils import Conv1D

    if not onednn_linear_available():
        return 0
    fused_class = {torch.nn.Linear: LinearGELU, Conv1D: Conv1DGELU}
    fused = 0
    for module in list(model.modules()):
        for linear_name, act_name in LINEAR_THEN_ACTIVATION:
            linear, act = getattr(module, linear_name, None), getattr(module, act_name, None)
            approximate = gelu_kind(act)
            if type(linear) in fused_class and approximate is not None:
                setattr(module, linear_name, fused_class[type(linear)].sharing(linear, approximate))
                setattr(module, act_name, torch.nn.Identity())
                fused += 1
    return fused


def gelu_kind(act: object) -> str | None:
    """``"none"`` for an exact (erf) GELU module, ``"tanh"`` for the tanh approximation, else None."""
    from transformers.activations import GELUActivation, GELUTanh, NewGELUActivation, PytorchGELUTanh

    if type(act) is GELUActivation:
        return "none"
    if type(act) in (GELUTanh, NewGELUActivation, PytorchGELUTanh):
        return "tanh"
    if type(act) is torch.nn.GELU:
        return act.approximate
    return None


class LinearGELU(torch.nn.Linear):
    """``gelu(linear(x))``; on CPU in inference, one oneDNN call with the GELU as a post-op."""

    approximate: str = "none"

    @classmethod
    def sharing(cls, linear: torch.nn.Linear, approximate: str) -> LinearGELU:
        """A ``LinearGELU`` holding ``linear``'s own weight and bias parameters (not copies)."""
        return sharing(cls, linear, ("in_features", "out_features"), approximate=approximate)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if fusable(x, self.weight, (torch.float32, torch.bfloat16)):
            return torch.ops.mkldnn._linear_pointwise(x, self.weight, self.bias, "gelu", [], self.approximate)
        return F.gelu(F.linear(x, self.weight, self.bias), approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, gelu={self.approximate!r}"


class Conv1DGELU(torch.nn.Module):
    """GPT-2's ``gelu(Conv1D(x))`` (weight stored input x output); fused in bfloat16 on CPU.

    oneDNN reads the transposed weight as it is in bfloat16 (4,096 tokens, 768 -> 3,072: 14.3 ms
    fused against 30.7 unfused); in float32 the transposed read is slower than the plain path.
    """

    approximate: str = "tanh"

    @classmethod
    def sharing(cls, conv, approximate: str) -> Conv1DGELU:
        """A ``Conv1DGELU`` holding ``conv``'s own weight and bias parameters (not copies)."""
        return sharing(cls, conv, ("nf", "nx"), approximate=approximate)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if fusable(x, self.weight, (torch.bfloat16,)):
            return torch.ops.mkldnn._linear_pointwise(x, self.weight.t(), self.bias, "gelu", [], self.approximate)
        flat = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)  # as Conv1D.forward
        return F.gelu(flat.view(*x.shape[:-1], self.nf), approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"nf={self.nf}, nx={self.nx}, gelu={self.approximate!r}"


def sharing(cls: type, source: torch.nn.Module, sizes: tuple[str, ...], **attributes):
    """An instance of ``cls`` built around ``source``'s weight and bias parameters (not copies) and
    size attributes, with ``attributes`` set on it."""
    module = cls.__new__(cls)
    torch.nn.Module.__init__(module)
    for name in sizes:
        setattr(module, name, getattr(source, name))
    module.weight, module.bias = source.weight, source.bias
    for name, value in attributes.items():
        setattr(module, name, value)
    return module


def fusable(x: torch.Tensor, weight: torch.Tensor, dtypes: tuple[torch.dtype, ...]) -> bool:
    """Inference on CPU in one of ``dtypes`` that this CPU's oneDNN runs, input and weight alike."""
    return (
        x.device.type == "cpu"
        and x.dtype == weight.dtype
        and x.dtype in dtypes
        and (x.dtype != torch.bfloat16 or onednn_bf16_available())
        and not (torch.is_grad_enabled() and (x.requires_grad or weight.requires_grad))
    )


def onednn_linear_available() -> bool:
    """Whether this torch build runs oneDNN's fused linear on this CPU (checked once, on a tiny input)."""
    global _ONEDNN_OK
    if _ONEDNN_OK is None:
        try:
            x, w = torch.ones(2, 4), torch.ones(3, 4)
            _ONEDNN_OK = bool(torch.backends.mkldnn.is_available()) and torch.allclose(
                torch.ops.mkldnn._linear_pointwise(x, w, None, "gelu", [], "none"), F.gelu(x @ w.T)
            )
        except (AttributeError, RuntimeError, NotImplementedError) as error:
            logger.info("oneDNN fused linear unavailable (%s); GELU runs unfused", error)
            _ONEDNN_OK = False
    return _ONEDNN_OK


def onednn_bf16_available() -> bool:
    return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


_ONEDNN_OK: bool | None = None
