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

from collections.abc import Callable
from typing import Any

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
    # An AlignedLogits head (an LM built before on CUDA around this model) is a plain layer too.
    if type(head) not in (torch.nn.Linear, AlignedLogits) or (head.weight.dtype != torch.float32 and head_dtype == "auto"):
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
        return derived_copy(self._copies, name, (tensor,), lambda: tensor.detach().to(self.compute_dtype))

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, output={str(self.compute_dtype).removeprefix('torch.')}"


def derived_copy(cache: dict, name: str, sources: tuple[torch.Tensor | None, ...], make: Callable[[], Any]) -> Any:
    """``make()``, kept in ``cache[name]`` until one of ``sources`` is replaced or changed in place."""
    key = tuple((t.data_ptr(), t._version, t.device) for t in sources if t is not None)
    cached = cache.get(name)
    if cached is None or cached[0] != key:
        cached = (key, make())
        cache[name] = cached
    return cached[1]


class Float32Logits(CastLogits):
    """``x · W + b`` computed in float32 in inference; the plain linear layer when gradients are recorded."""

    @classmethod
    def sharing(cls, linear: torch.nn.Linear) -> Float32Logits:
        return super().sharing(linear, torch.float32)


# Vocabulary rows a CUDA head is padded to a multiple of. GPT-2's 50,257 (and BERT-base-cased's
# 28,996) rows are not a multiple of 8, so cuBLAS falls back to an older unaligned bfloat16 kernel:
# on an H100 it ran at ~105 TFLOP/s and took 46% of the GPU time of causal bfloat16 BLiMP scoring.
VOCAB_ALIGNMENT = 64


def align_head_on_cuda(model: torch.nn.Module, device: torch.device) -> bool:
    """Swap a reduced-precision output embedding on CUDA whose vocabulary is not a multiple of
    ``VOCAB_ALIGNMENT`` for an ``AlignedLogits`` sharing its parameters; whether it did."""
    head = model.get_output_embeddings()
    if (device.type != "cuda" or type(head) is not torch.nn.Linear or head.weight.dtype == torch.float32
            or head.out_features % VOCAB_ALIGNMENT == 0):
        return False
    model.set_output_embeddings(AlignedLogits.sharing(head))
    return True


class AlignedLogits(torch.nn.Linear):
    """``x · W + b`` in inference as a matmul against a copy of ``W`` (and ``b``) padded with zero rows to
    a multiple of ``VOCAB_ALIGNMENT``, the padded columns cut off the output (a view); the plain
    linear layer when gradients are recorded. The copy is made again whenever the weight changes."""

    @classmethod
    def sharing(cls, linear: torch.nn.Linear) -> AlignedLogits:
        return sharing(cls, linear, ("in_features", "out_features"), _copies={})

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled():
            return F.linear(x, self.weight, self.bias)
        weight, bias = self._padded()
        return F.linear(x, weight, bias)[..., : self.out_features]

    def _padded(self) -> tuple[torch.Tensor, torch.Tensor | None]:
        def pad() -> tuple[torch.Tensor, torch.Tensor | None]:
            rows = -self.out_features % VOCAB_ALIGNMENT
            weight = torch.cat([self.weight.detach(), self.weight.new_zeros(rows, self.in_features)])
            bias = None if self.bias is None else torch.cat([self.bias.detach(), self.bias.new_zeros(rows)])
            return weight, bias

        return derived_copy(self._copies, "padded", (self.weight, self.bias), pad)

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, padded_to_multiple_of={VOCAB_ALIGNMENT}"
