"""The LM head's output (the logits) in float32 for a bfloat16 or float16 model (``head_dtype: float32``).

A reduced-precision matmul accumulates in float32 but rounds its output to the model's dtype, and
bfloat16 keeps 8 significant bits: a logit near 12 (a trained BERT's top tokens) moves by up to
0.031, near 60 (GPT-2's logits are large and negative) by up to 0.125, while the log-softmax
after it is exact. That rounding error enters every log-probability directly. With
``head_dtype: float32`` the output embedding computes ``hidden · W + b`` in float32 from the
model's own (rounded) hidden state and weights: the same formula with the accumulator kept.
On CPU torch has no bfloat16 matmul with a float32 output, so the head runs as a float32 matmul
against a float32 copy of the weight, refreshed whenever the weight changes.

Float32 models get the same module: on CPU it runs the head through oneDNN, which for this shape
(a few hundred rows times a vocabulary of 30,000-50,000) reaches 1.6-1.9x the rate of the default
float32 matmul on AMD EPYC (172 against 91-107 GFLOP/s, 2 threads; GPT-2's 50,257 x 768 head).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from lmprobes.engine.fusion import fusable, onednn_linear_available, sharing

HEAD_DTYPES = ("auto", "float32")


def use_float32_head(model: torch.nn.Module, head_dtype: str = "auto") -> bool:
    """Swap the output embedding for a ``Float32Logits`` sharing its parameters; whether it did.

    Done for float32 weights (the oneDNN path) and, with ``head_dtype="float32"``, for bfloat16 or
    float16 ones; ``auto`` leaves a reduced-precision head rounding to its dtype. Models whose
    output layer is not a plain linear layer are left as they are.
    """
    if head_dtype not in HEAD_DTYPES:
        raise ValueError(f"head_dtype must be one of {HEAD_DTYPES}, not {head_dtype!r}")
    head = model.get_output_embeddings()
    if type(head) is not torch.nn.Linear or (head.weight.dtype != torch.float32 and head_dtype == "auto"):
        return False
    model.set_output_embeddings(Float32Logits.sharing(head))
    return True


class CastLogits(torch.nn.Linear):
    """``x · W + b`` computed in ``compute_dtype`` in inference, from copies of the parameters cast
    to it; the plain linear layer when gradients are recorded."""

    compute_dtype: torch.dtype

    @classmethod
    def sharing(cls, linear: torch.nn.Linear, compute_dtype: torch.dtype) -> CastLogits:
        """A ``CastLogits`` holding ``linear``'s own weight and bias parameters (ties stay tied)."""
        return sharing(cls, linear, ("in_features", "out_features"), compute_dtype=compute_dtype, _copies={})

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled():
            return F.linear(x, self.weight, self.bias)
        x, weight = x.to(self.compute_dtype), self._cast("weight", self.weight)
        bias = None if self.bias is None else self._cast("bias", self.bias)
        if onednn_linear_available() and fusable(x, weight, (torch.float32, torch.bfloat16)):
            return torch.ops.mkldnn._linear_pointwise(x, weight, bias, "none", [], "")
        return F.linear(x, weight, bias)

    def _cast(self, name: str, tensor: torch.Tensor) -> torch.Tensor:
        """``tensor`` in ``compute_dtype``, cast again after any in-place change (fine-tuning)."""
        key = (tensor.data_ptr(), tensor._version, tensor.device)
        cached = self._copies.get(name)
        if cached is None or cached[0] != key:
            cached = (key, tensor.detach().to(self.compute_dtype))
            self._copies[name] = cached
        return cached[1]

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, output={str(self.compute_dtype).removeprefix('torch.')}"


class Float32Logits(CastLogits):
    """``x · W + b`` computed in float32 in inference; the plain linear layer when gradients are recorded."""

    @classmethod
    def sharing(cls, linear: torch.nn.Linear) -> Float32Logits:
        return super().sharing(linear, torch.float32)
