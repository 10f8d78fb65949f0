"""The last encoder layer at the scored rows only.

In a bidirectional encoder every position of the last layer needs the keys and values of all
positions, but only the scored rows' queries, attention outputs and feed-forward blocks reach the
LM head. With one scored row per sequence (a PLL masked copy, a LAMA query) the rest of the last
layer is wasted: ~10/12 of one layer, 6.2% of BERT-base's PLL work on the BLiMP sample.
``rows_only_tail`` runs the stack without its last layer, then that layer's key/value
projections at every position and the remainder at the scored rows: the same formula as the
full layer, up to float rounding.

Checked architectures: BERT-style post-LayerNorm layers (``attention.self.{query,key,value}``,
``attention.output``, ``intermediate``, ``output``) with absolute positions; others run whole.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

# Model types whose HF layers are BERT's (copied classes); tests run each against a full forward.
ROWS_ONLY_MODEL_TYPES = ("bert", "roberta", "xlm-roberta", "camembert", "electra")

Tail = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]


def rows_only_tail(base: torch.nn.Module) -> tuple[torch.nn.Module, Tail] | None:
    """``(stack without its last layer, tail)`` for a checked encoder, else None.

    ``tail(hidden, attention_mask, batch_index, position_index)`` maps the last layer's input
    hidden states ``[B, T, d]`` and the 2-D padding mask (None when nothing is padded) to its
    outputs at the rows ``[R, d]``.
    """
    layers = _encoder_layers(base)
    if layers is None:
        return None
    last = layers[-1]

    def tail(hidden, attention_mask, batch_index, position_index):
        return last_layer_at_rows(last, hidden, attention_mask, batch_index, position_index)

    return WithoutLastLayer(base), tail


def last_layer_at_rows(
    layer: torch.nn.Module,
    hidden: torch.Tensor,
    attention_mask: torch.Tensor,
    batch_index: torch.Tensor,
    position_index: torch.Tensor,
) -> torch.Tensor:
    """A BERT layer's output at ``hidden[batch_index, position_index]``, attending over its sequence
    (``attention_mask`` None: nothing padded)."""
    attention = layer.attention.self
    heads, size = attention.num_attention_heads, attention.attention_head_size
    rows = hidden[batch_index, position_index]
    query = attention.query(rows).view(len(rows), heads, 1, size)
    key = _heads(attention.key(hidden), heads, size)[batch_index]
    value = _heads(attention.value(hidden), heads, size)[batch_index]
    mask = None if attention_mask is None else attention_mask[batch_index].bool()[:, None, None, :]
    context = F.scaled_dot_product_attention(query, key, value, attn_mask=mask, scale=attention.scaling)
    attended = layer.attention.output(context.reshape(len(rows), heads * size), rows)
    return layer.output(layer.intermediate(attended), attended)


class WithoutLastLayer(torch.nn.Module):
    """Calls ``base`` with its encoder's last layer left out (restored after the call)."""

    def __init__(self, base: torch.nn.Module) -> None:
        super().__init__()
        self.base = base

    def forward(self, **kwargs):
        encoder = self.base.encoder
        layers = encoder.layer
        encoder.layer = layers[:-1]
        try:
            return self.base(**kwargs)
        finally:
            encoder.layer = layers


def _heads(states: torch.Tensor, heads: int, size: int) -> torch.Tensor:
    batch, length, _ = states.shape
    return states.view(batch, length, heads, size).transpose(1, 2)


def _encoder_layers(base: torch.nn.Module) -> torch.nn.ModuleList | None:
    config = getattr(base, "config", None)
    if config is None or config.model_type not in ROWS_ONLY_MODEL_TYPES or config.is_decoder:
        return None
    if getattr(config, "position_embedding_type", "absolute") != "absolute":
        return None
    if getattr(config, "chunk_size_feed_forward", 0):
        return None
    layers = getattr(getattr(base, "encoder", None), "layer", None)
    if not isinstance(layers, torch.nn.ModuleList) or not layers:
        return None
    attention = getattr(layers[-1], "attention", None)
    parts = ("query", "key", "value", "num_attention_heads", "attention_head_size", "scaling")
    if attention is None or not all(hasattr(attention.self, part) for part in parts):
        return None
    return layers
