"""Causal-LM primitives: next-token distributions, sentence and continuation log-probs."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from lmprobes.engine.encoding import encode_ids
from lmprobes.engine.lm import LM
from lmprobes.engine.packing import can_pack, fits_attention_window, packed_next_token_logprobs
from lmprobes.engine.runner import (
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

__all__ = [
    "POLICIES",
    "SequenceScore",
    "TokenPrediction",
    "causal_projection",
    "continuation_logprobs",
    "map_next_token_logprobs",
    "next_token_predictions",
    "sequence_logprobs",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Policy:
    """Which special tokens surround a scored sentence."""

    prepend_bos: bool
    append_eos: bool


POLICIES = {
    "bos": Policy(prepend_bos=True, append_eos=False),
    "bos_eos": Policy(prepend_bos=True, append_eos=True),
    "none": Policy(prepend_bos=False, append_eos=False),
}

# Config fields of architectures whose logits are rescaled after the output linear layer
# (Gemma-2 soft-capping, Cohere, Granite); for those the head alone is not the full model.
LOGIT_RESCALING_FIELDS = ("final_logit_softcapping", "logit_scale", "logits_scaling")
# Types whose head-only path tests/test_engine_zoo.py and test_engine_packing.py compare with a plain
# forward; others are checked on a probe when loaded (``runner.checked_projection``).
HEAD_CHECKED_TYPES = frozenset({
    "gpt2", "opt", "bloom", "gpt_neo", "gptj", "falcon", "phi", "gemma", "gemma2", "gemma3_text", "cohere", "granite",
    "llama", "mistral", "qwen2", "qwen3", "smollm3", "gpt_neox", "olmo", "olmo2", "starcoder2", "phi3", "xglm",
})


@dataclass
class SequenceScore:
    """Log-probs of the scored tokens of one sequence."""

    token_ids: list[int]
    token_logprobs: list[float]

    @property
    def total(self) -> float:
        return math.fsum(self.token_logprobs)

    @property
    def mean(self) -> float:
        return self.total / len(self.token_logprobs) if self.token_logprobs else math.nan


def next_token_predictions(
    lm: LM,
    contexts: list[str],
    targets: list[list[int]] | None = None,
    top_k: int = 5,
    *,
    bos: bool = True,
    strip_context: bool = True,
    progress: bool = True,
) -> list[TokenPrediction]:
    """The distribution of the token after each context (top-k ids and target log-probs)."""
    _check_causal(lm)
    check_targets(targets, len(contexts), vocab_size(lm))
    predict = predict_items(targets, top_k)
    return map_next_token_logprobs(lm, contexts, predict, bos=bos, strip_context=strip_context, progress=progress)


@gc_paused()
def map_next_token_logprobs(
    lm: LM, contexts: list[str], fn, *, bos: bool = True, strip_context: bool = True, progress: bool = True
) -> list:
    """``fn(logprobs[n, V] float32, item_indices)`` over the next-token rows of ``contexts``.

    The causal counterpart of ``map_mask_logprobs``: one result per context, the LM head applied
    only at each context's last position.
    """
    _check_causal(lm)
    sequences = _encode_contexts(lm, contexts, bos=bos, strip_context=strip_context)
    positions = [[len(ids) - 1] for ids in sequences]

    def per_rows(logprobs: torch.Tensor, rows: list[Row]) -> list:
        return fn(logprobs, [row.item for row in rows])

    results = _run(lm, sequences, positions, per_rows, progress, "next token")
    return [item_results[0] for item_results in results]


@gc_paused()
def sequence_logprobs(lm: LM, texts: list[str], *, policy: str = "bos", progress: bool = True) -> list[SequenceScore]:
    """``log p(t_i | t_<i)`` of every scored token of each text under a BOS/EOS ``policy``.

    ``bos``: BOS prepended (EOS for a model without a BOS, as lm-evaluation-harness does), every
    sentence token scored; ``bos_eos``: also an EOS after the sentence; ``none``: no prefix, so the
    first token is not scored.
    """
    _check_causal(lm)
    chosen = _policy(policy)
    prefix = [_bos_id(lm)] if chosen.prepend_bos else []
    suffix = [_eos_id(lm)] if chosen.append_eos else []
    sequences = [prefix + ids + suffix for ids in _encode(lm, texts)]
    positions = [list(range(len(ids) - 1)) for ids in sequences]
    return _score(lm, sequences, positions, progress, f"sequences ({policy})")


@gc_paused()
def continuation_logprobs(
    lm: LM,
    prefixes: list[str],
    continuations: list[str],
    *,
    bos: bool = True,
    strip_context: bool = True,
    progress: bool = True,
) -> list[SequenceScore]:
    """``log p(continuation | prefix)`` per pair, one term per continuation token.

    The continuation is encoded on its own, with whatever leading space the caller gives it.
    """
    _check_causal(lm)
    if len(prefixes) != len(continuations):
        raise ValueError(f"got {len(prefixes)} prefixes but {len(continuations)} continuations")
    contexts = _encode_contexts(lm, prefixes, bos=bos, strip_context=strip_context)
    sequences = [context + ids for context, ids in zip(contexts, _encode(lm, continuations))]
    positions = [list(range(len(context) - 1, len(ids) - 1)) for context, ids in zip(contexts, sequences)]
    return _score(lm, sequences, positions, progress, "continuations")


def causal_projection(lm: LM) -> Projection:
    """The decoder stack plus the output linear layer, or a full forward when logits are post-processed."""
    base = getattr(lm.model, "base_model", lm.model)
    head = lm.model.get_output_embeddings()
    if base is not lm.model and isinstance(head, torch.nn.Linear) and not _rescales_logits(lm):
        head_only = Projection(base=base, head=head, forward_kwargs={"use_cache": False})
        return checked_projection(lm, head_only, HEAD_CHECKED_TYPES)
    logger.info("%s: the LM head is not a plain linear layer; using a full forward", lm.name)
    return Projection(base=None, head=None, forward_kwargs={"use_cache": False})


def _rescales_logits(lm: LM) -> bool:
    config = lm.model.config
    return any(getattr(config, name, None) not in (None, 1, 1.0) for name in LOGIT_RESCALING_FIELDS)


def _score(lm: LM, sequences: list[list[int]], positions: list[list[int]], progress: bool, desc: str) -> list[SequenceScore]:
    projection = causal_projection(lm)
    if can_pack(lm) and not projection.full_forward and fits_attention_window(lm, sequences):
        targets, values = packed_next_token_logprobs(
            lm, projection, sequences, positions, pad_id=_pad_id(lm), progress=progress, desc=f"{lm.name} {desc}"
        )
        with phase("collect"):
            return [SequenceScore(ids, logprobs) for ids, logprobs in zip(targets, values, strict=True)]

    def next_token_logprob(logprobs: torch.Tensor, rows: list[Row]) -> list[tuple[int, float]]:
        targets = [sequences[row.item][row.position + 1] for row in rows]
        index = torch.tensor(targets, device=logprobs.device)
        values = logprobs[torch.arange(len(rows), device=logprobs.device), index].tolist()
        return list(zip(targets, values))

    results = _run(lm, sequences, positions, next_token_logprob, progress, desc, projection)
    with phase("collect"):
        return [SequenceScore([t for t, _ in pairs], [v for _, v in pairs]) for pairs in results]


def _run(lm: LM, sequences, positions, fn, progress: bool, desc: str, projection: Projection | None = None) -> list[list]:
    return map_row_logprobs(
        lm,
        projection or causal_projection(lm),
        sequences,
        positions,
        fn,
        pad_id=_pad_id(lm),
        progress=progress,
        desc=f"{lm.name} {desc}",
    )


def _encode(lm: LM, texts: Sequence[str]) -> list[list[int]]:
    with phase("prepare"):
        return encode_ids(lm.tokenizer, texts, special_tokens=False)


def _encode_contexts(lm: LM, contexts: Sequence[str], *, bos: bool, strip_context: bool) -> list[list[int]]:
    """BOS (optionally) plus each context, right-stripped so a trailing space is not its own token."""
    texts = [c.rstrip() for c in contexts] if strip_context else list(contexts)
    prefix = [_bos_id(lm)] if bos else []
    sequences = [prefix + ids for ids in _encode(lm, texts)]
    for index, ids in enumerate(sequences):
        if not ids:
            raise ValueError(f"context {index} is empty and bos=False, so there is nothing to condition on: {contexts[index]!r}")
    return sequences


def _policy(name: str) -> Policy:
    if name not in POLICIES:
        raise ValueError(f"unknown BOS/EOS policy {name!r}; valid policies: {', '.join(POLICIES)}")
    return POLICIES[name]


def _check_causal(lm: LM) -> None:
    if lm.family != "causal":
        raise ValueError(f"{lm.name} is a {lm.family} LM; this primitive is causal-only")


def _bos_id(lm: LM) -> int:
    """BOS, or EOS for a model without one (``LM.start_token``)."""
    start = lm.start_token()
    if start is None:
        raise ValueError(f"{lm.name} has neither a BOS nor an EOS token to start a sequence from; "
                         "use policy 'none' or bos=False")
    return start[0]


def _eos_id(lm: LM) -> int:
    token = lm.special_id("eos_token_id")
    if token is None:
        raise ValueError(f"{lm.name} has no EOS token; use policy 'bos' or 'none'")
    return token


def _pad_id(lm: LM) -> int:
    """Any id will do: padding is on the right and masked out of attention."""
    for token in (lm.tokenizer.pad_token_id, lm.special_id("eos_token_id")):
        if token is not None:
            return token
    return 0
