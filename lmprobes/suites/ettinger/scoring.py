"""Score Ettinger items with one model: the distribution at the target position.

Masked LMs see ``[CLS] context [MASK] . [SEP]`` (the paper's input: a period after the mask);
causal LMs predict the next token after the left context, targets carrying their leading space
for BPE tokenizers. Each unique context runs once; every row gets the top-k list, its target's
probability, and the rank of the best expected word within the top-k.

A target of several pieces has no single-token probability: it is skipped and counted (the spec's
default, ``multi_piece_targets="exclude"``), or, for causal models with ``"sum"``, scored by
``log p(word | context)`` summed over its pieces (spec/SCORING.md's word given prefix).
"""

from __future__ import annotations

import math

import pandas as pd
import pyarrow as pa

from lmprobes.engine import (
    continuation_logprobs,
    leading_space,
    mask_predictions,
    next_token_predictions,
    tokenizer_kind,
    word_ids,
)
from lmprobes.engine.lm import LM

METHODS = ("auto", "masked")
MULTI_PIECE_TARGETS = ("exclude", "sum")

SCORE_SCHEMA = pa.schema(
    [
        pa.field("row_id", pa.string()),
        pa.field("model", pa.string()),
        pa.field("method", pa.string()),
        pa.field("input_text", pa.string()),
        pa.field("target_ids", pa.list_(pa.int64())),
        pa.field("target_pieces", pa.int32()),
        pa.field("target_logprob", pa.float64()),
        pa.field("target_prob", pa.float64()),
        pa.field("expected_rank", pa.int32()),
        pa.field("expected_scorable", pa.bool_()),
        pa.field("expected_unscorable", pa.list_(pa.string())),
        pa.field("top_ids", pa.list_(pa.int64())),
        pa.field("top_tokens", pa.list_(pa.string())),
        pa.field("top_probs", pa.list_(pa.float64())),
        pa.field("kept", pa.bool_()),
        pa.field("skip_reason", pa.string()),
    ]
)


class ScoringError(ValueError):
    """A model that cannot be scored the way it was asked to be."""


def scoring_method(lm: LM, method: str) -> str:
    """The protocol a model is scored with: ``mask`` or ``next_token``."""
    if method not in METHODS:
        raise ScoringError(f"unknown Ettinger method {method!r}; choose one of {METHODS}")
    if lm.family == "masked":
        return "mask"
    if method == "masked":
        raise ScoringError(
            f"model {lm.name!r} is a causal LM, but Ettinger method 'masked' is masked-only scoring"
        )
    return "next_token"


def model_input(lm: LM, context: str, protocol: str) -> str:
    if protocol == "mask":
        return f"{context} {lm.tokenizer.mask_token} ."
    return context


def skip_reason(resolved) -> str:
    if resolved.is_unk:
        return "target_unk"
    if resolved.n_pieces != 1:
        return f"target_{resolved.n_pieces}_pieces"
    return ""


WORD_START = ("Ġ", "▁")


def display_token(tokenizer, token_id: int, *, mark_continuations: bool = False) -> str:
    """The token as text; with ``mark_continuations`` (byte-level BPE, SentencePiece) a piece that
    continues a word (no ``Ġ``/``▁``: ``pl`` of ``Ġpl``) is shown as WordPiece shows its own, ``##pl``.
    A token that decodes to whitespace alone (GPT-2's newline ``Ċ``, a bare ``Ġ``) is shown as its
    vocabulary piece: stripped, it left an empty item in a top-5 list (``a, , fel``)."""
    text = tokenizer.decode([token_id]).strip()
    if not text:
        piece = tokenizer.convert_ids_to_tokens(token_id)
        return piece.strip() or repr(piece)
    if not mark_continuations or token_id in tokenizer.all_special_ids or not text[:1].isalnum():
        return text
    return text if tokenizer.convert_ids_to_tokens(token_id).startswith(WORD_START) else "##" + text


def score_items(lm: LM, items: pd.DataFrame, *, top_k: int = 5, method: str = "auto", multi_piece_targets: str = "exclude",
                progress: bool = True) -> pd.DataFrame:
    """One score row per dataset row, in the dataset's order. The rows need ``row_id``, ``context``
    (the left context, without the target), ``target`` (one word) and ``expected`` (a list of words);
    other columns are ignored, so any cloze dataset with these is scored as the paper's are."""
    protocol = scoring_method(lm, method)
    if multi_piece_targets not in MULTI_PIECE_TARGETS:
        raise ScoringError(f"unknown multi_piece_targets {multi_piece_targets!r}; choose one of {MULTI_PIECE_TARGETS}")
    words = sorted(set(items["target"]) | {w for ws in items["expected"] for w in ws})
    resolved = {w: word_ids(lm.tokenizer, w) for w in words}
    contexts = predict_contexts(lm, items, resolved, protocol, top_k, progress)
    summed = {}
    if protocol == "next_token" and multi_piece_targets == "sum":
        summed = summed_word_logprobs(lm, items, resolved, progress)
    show = token_display(lm.tokenizer)
    rows = []
    for row in items.itertuples(index=False):
        text, pred, targets = contexts[row.context]
        target = resolved[row.target]
        reason = skip_reason(target)
        if (row.context, row.target) in summed:
            reason, logprob = "", summed[row.context, row.target]
        else:
            logprob = pred.target_logprobs[targets.index(target.first_id)] if not reason else math.nan
        expected_ids = [resolved[w].first_id for w in row.expected if resolved[w].single]
        rank = next((r + 1 for r, tid in enumerate(pred.top_ids) if tid in expected_ids), None)
        rows.append(
            {
                "row_id": row.row_id,
                "model": lm.name,
                "method": protocol,
                "input_text": text,
                "target_ids": list(target.ids),
                "target_pieces": target.n_pieces,
                "target_logprob": logprob,
                "target_prob": math.exp(logprob) if not reason else math.nan,
                "expected_rank": rank,
                "expected_scorable": bool(expected_ids),
                # The expected words the top-k check leaves out (not one token, or [UNK], for this model).
                "expected_unscorable": [w for w in row.expected if not resolved[w].single],
                "top_ids": list(pred.top_ids),
                "top_tokens": [show(t) for t in pred.top_ids],
                "top_probs": [math.exp(lp) for lp in pred.top_logprobs],
                "kept": not reason,
                "skip_reason": reason,
            }
        )
    out = pd.DataFrame.from_records(rows)
    out["expected_rank"] = out["expected_rank"].astype("Int32")
    return out


def predict_contexts(lm: LM, items: pd.DataFrame, resolved: dict, protocol: str, top_k: int,
                     progress: bool) -> dict[str, tuple]:
    """Each distinct context, scored once: its model input, its prediction (top-k and the log-probs
    of the one-token targets it is asked for) and those targets' ids, in the prediction's order."""
    texts = sorted(set(items["context"]))
    text_index = {t: i for i, t in enumerate(texts)}
    wanted: list[set[int]] = [set() for _ in texts]
    for context, target in zip(items["context"], items["target"]):
        if resolved[target].single:
            wanted[text_index[context]].add(resolved[target].first_id)
    targets = [sorted(ids) for ids in wanted]
    inputs = [model_input(lm, t, protocol) for t in texts]
    predict = mask_predictions if protocol == "mask" else next_token_predictions
    predictions = predict(lm, inputs, targets, top_k=top_k, progress=progress)
    return {t: (inputs[i], predictions[i], targets[i]) for i, t in enumerate(texts)}


def token_display(tokenizer):
    """A token id's display form (``display_token``), each id decoded once, not once per row it tops."""
    marks = tokenizer_kind(tokenizer) != "wordpiece"
    shown: dict[int, str] = {}

    def show(token_id: int) -> str:
        if token_id not in shown:
            shown[token_id] = display_token(tokenizer, token_id, mark_continuations=marks)
        return shown[token_id]

    return show


def summed_word_logprobs(lm: LM, items: pd.DataFrame, resolved: dict, progress: bool) -> dict[tuple[str, str], float]:
    """``log p(target | context)`` summed over the pieces of every multi-piece (not unknown) target."""
    pairs = sorted({(c, t) for c, t in zip(items["context"], items["target"])
                    if resolved[t].n_pieces > 1 and not resolved[t].is_unk})
    if not pairs:
        return {}
    space = " " if leading_space(lm.tokenizer) else ""
    scores = continuation_logprobs(lm, [c for c, _ in pairs], [space + t for _, t in pairs], progress=progress)
    for (_, target), score in zip(pairs, scores, strict=True):
        if tuple(score.token_ids) != resolved[target].ids:  # the word as it is tokenized in running text
            raise ScoringError(f"{lm.name}: target {target!r} encodes as {score.token_ids}, not {list(resolved[target].ids)}")
    return {pair: score.total for pair, score in zip(pairs, scores, strict=True)}
