"""Masked-LM primitives: the distribution at the mask token of each text."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import torch

from lmprobes.engine.encoding import encode_ids
from lmprobes.engine.last_layer import rows_only_tail
from lmprobes.engine.lm import LM
from lmprobes.engine.runner import (
    ItemFn,
    Projection,
    Row,
    TokenPrediction,
    check_targets,
    checked_projection,
    map_row_logprobs,
    phase,
    predict_items,
    vocab_size,
)
from lmprobes.io import gc_paused

__all__ = ["TokenPrediction", "map_mask_logprobs", "mask_predictions", "masked_projection"]

logger = logging.getLogger(__name__)

# Attributes holding the MLM head (hidden states -> vocabulary logits) in HF masked-LM classes:
# BERT/DeBERTa ``cls``, RoBERTa/XLM-R/CamemBERT ``lm_head``, ALBERT ``predictions``.
MLM_HEAD_ATTRIBUTES = ("cls", "lm_head", "predictions")
# Heads spread over several attributes, applied in this order (the classes' own forward does the
# same): DistilBERT's transform, activation, LayerNorm and projection; the ELECTRA and ConvBERT
# generator heads; ModernBERT's prediction head and decoder.
MLM_HEAD_PARTS = {
    "distilbert": ("vocab_transform", "activation", "vocab_layer_norm", "vocab_projector"),
    "electra": ("generator_predictions", "generator_lm_head"),
    "convbert": ("generator_predictions", "generator_lm_head"),
    "modernbert": ("head", "decoder"),
}
# Model types whose head returns a tuple led by the vocabulary scores (XLM's prediction layer).
MLM_TUPLE_HEADS = {"xlm": "pred_layer", "flaubert": "pred_layer"}
MASK_RULES = ("one", "first")  # see ``map_mask_logprobs``
# Types whose head-only path tests/test_engine_zoo.py compares with a plain forward; others are
# checked on a probe when loaded (``runner.checked_projection``).
HEAD_CHECKED_TYPES = frozenset({
    "albert", "big_bird", "bert", "camembert", "convbert", "data2vec-text", "deberta", "deberta-v2", "distilbert",
    "electra", "ernie", "esm", "flaubert", "fnet", "funnel", "ibert", "longformer", "luke", "megatron-bert",
    "mobilebert", "modernbert", "mpnet", "rembert", "roberta", "roberta-prelayernorm", "roformer", "squeezebert",
    "xlm", "xlm-roberta", "yoso",
})


class FirstOutput(torch.nn.Module):
    """A head returning a tuple, reduced to its first element (the scores)."""

    def __init__(self, head: torch.nn.Module) -> None:
        super().__init__()
        self.head = head

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.head(hidden)[0]


def mask_predictions(
    lm: LM,
    texts: list[str],
    targets: list[list[int]] | None = None,
    top_k: int = 5,
    *,
    progress: bool = True,
    head_only: bool = True,
) -> list[TokenPrediction]:
    """Top-k ids and target log-probs at the single mask of each text (full-vocabulary log-softmax)."""
    _check_masked(lm)
    check_targets(targets, len(texts), vocab_size(lm))
    return map_mask_logprobs(lm, texts, predict_items(targets, top_k), progress=progress, head_only=head_only)


@gc_paused()
def map_mask_logprobs(lm: LM, texts: list[str], fn: ItemFn, *, progress: bool = True, head_only: bool = True,
                      encode: Callable[[list[str]], list[list[int]]] | None = None, masks: str = "one") -> list:
    """``fn(logprobs[n, V] float32, item_indices)`` over the mask rows of ``texts``; one result per text.

    Each text must contain exactly one ``tokenizer.mask_token`` (``masks="one"``), or at least one
    and is scored at the first, the others staying masks in the input (``masks="first"``, LAMA's
    released code). The model sees the tokenizer's own encoding of the text (with its special
    tokens), or ``encode(texts)`` where a protocol tokenizes differently. ``head_only=False``
    projects every position through the LM head (a full forward) and gathers the mask rows
    afterwards: the same numbers, kept for measuring what applying the head at mask rows only saves.
    """
    _check_masked(lm)
    if masks not in MASK_RULES:
        raise ValueError(f"masks must be one of {MASK_RULES}, not {masks!r}")
    with phase("prepare"):
        _check_masks(lm, texts, several=masks == "first")
        if not texts:
            sequences = []
        else:
            sequences = encode(list(texts)) if encode is not None else encode_ids(lm.tokenizer, texts)
        positions = [[_mask_position(lm, index, text, ids, several=masks == "first")]
                     for index, (text, ids) in enumerate(zip(texts, sequences))]

    def per_rows(logprobs: torch.Tensor, rows: list[Row]) -> list:
        return fn(logprobs, [row.item for row in rows])

    results = map_row_logprobs(
        lm,
        masked_projection(lm) if head_only else Projection(base=None, head=None),
        sequences,
        positions,
        per_rows,
        pad_id=_pad_id(lm),
        progress=progress,
        desc=f"{lm.name} masks",
    )
    return [item_results[0] for item_results in results]


def masked_projection(lm: LM) -> Projection:
    """The encoder plus the MLM head module, or a full forward when no known head is found.

    For the checked encoders the last layer runs at the scored rows only (``engine.last_layer``).
    """
    base = getattr(lm.model, "base_model", lm.model)
    head = mlm_head(lm.model) if base is not lm.model else None
    if head is not None:
        split = rows_only_tail(base)
        head_only = Projection(base=base, head=head) if split is None else Projection(split[0], head, tail=split[1])
        return checked_projection(lm, head_only, HEAD_CHECKED_TYPES)
    logger.info("%s: no known MLM head attribute; using a full forward and gathering the mask rows", lm.name)
    return Projection(base=None, head=None)


def mlm_head(model: torch.nn.Module) -> torch.nn.Module | None:
    """The module mapping the encoder's hidden states to vocabulary logits, if the class is known."""
    for name in MLM_HEAD_ATTRIBUTES:
        head = getattr(model, name, None)
        if isinstance(head, torch.nn.Module):
            return head
    model_type = getattr(getattr(model, "config", None), "model_type", None)
    parts = [getattr(model, name, None) for name in MLM_HEAD_PARTS.get(model_type, ())]
    if parts and all(isinstance(part, torch.nn.Module) for part in parts):
        return torch.nn.Sequential(*parts)
    tuple_head = getattr(model, MLM_TUPLE_HEADS.get(model_type, ""), None)
    if isinstance(tuple_head, torch.nn.Module):
        return FirstOutput(tuple_head)
    return None


def _check_masked(lm: LM) -> None:
    if lm.family != "masked":
        raise ValueError(f"{lm.name} is a {lm.family} LM; mask predictions are masked-only")
    if lm.tokenizer.mask_token is None:
        raise ValueError(f"{lm.name}: the tokenizer has no mask token")


def _check_masks(lm: LM, texts: Sequence[str], *, several: bool) -> None:
    mask = lm.tokenizer.mask_token
    for index, text in enumerate(texts):
        count = text.count(mask)
        if count == 0 or (count > 1 and not several):
            wanted = "at least one" if several else "exactly one"
            raise ValueError(f"text {index} must contain {wanted} {mask} but has {count}: {text!r}")


def _mask_position(lm: LM, index: int, text: str, ids: Sequence[int], *, several: bool = False) -> int:
    mask_id = lm.tokenizer.mask_token_id
    found = [position for position, token in enumerate(ids) if token == mask_id]
    if not found or (len(found) > 1 and not several):
        wanted = "at least 1" if several else "1"
        raise ValueError(f"text {index} encodes to {len(found)} mask tokens, expected {wanted}: {text!r}")
    return found[0]


def _pad_id(lm: LM) -> int:
    pad = lm.tokenizer.pad_token_id
    return pad if pad is not None else 0
