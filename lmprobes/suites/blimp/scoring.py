"""Score BLiMP minimal pairs with one model: both sentences (or prefixes) of every pair, each distinct
text once, and the decision under the method's tie rule (``methods``)."""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd
import pyarrow as pa

from lmprobes.engine import (
    continuation_logprobs,
    leading_space,
    pseudo_log_likelihoods,
    sequence_logprobs,
    tokenizer_kind,
)
from lmprobes.engine.causal import SequenceScore
from lmprobes.engine.lm import LM
from lmprobes.io import gc_paused
from lmprobes.suites.blimp.methods import DEFAULT_METHODS, METHODS, Method, ScoringError, check_tie_rule, decide

SCORE_SCHEMA = pa.schema(
    [
        pa.field("row_id", pa.string()),
        pa.field("paradigm", pa.string()),
        pa.field("category", pa.string()),
        pa.field("model", pa.string()),
        pa.field("method", pa.string()),
        pa.field("kept", pa.bool_()),
        pa.field("skip_reason", pa.string()),
        pa.field("score_good", pa.float64()),
        pa.field("score_bad", pa.float64()),
        pa.field("token_ids_good", pa.list_(pa.int64())),
        pa.field("token_ids_bad", pa.list_(pa.int64())),
        pa.field("token_logprobs_good", pa.list_(pa.float64())),
        pa.field("token_logprobs_bad", pa.list_(pa.float64())),
        pa.field("tie", pa.bool_()),
        pa.field("correct", pa.bool_()),
    ]
)

EMPTY = SequenceScore([], [])


def method_for(lm: LM, method: str | None = None) -> Method:
    """The named method (or the family default), checked against the model's family."""
    name = method or DEFAULT_METHODS[lm.family]
    if name not in METHODS:
        raise ScoringError(f"unknown BLiMP method {name!r}; choose one of {list(METHODS)}")
    chosen = METHODS[name]
    if chosen.family != lm.family:
        raise ScoringError(f"BLiMP method {name!r} needs a {chosen.family} LM, but {lm.name!r} is {lm.family}")
    return chosen


@gc_paused()
def score_pairs(
    lm: LM, pairs: pd.DataFrame, method: str | None = None, *, tie: str | None = None, progress: bool = True,
    cache: dict | None = None,
) -> pd.DataFrame:
    """One row per pair (``SCORE_SCHEMA``, in the order of ``pairs``): both scores and the decision.

    ``method`` defaults to the family's paper method; ``tie`` overrides the method's tie rule.
    Each distinct scored text runs once, so identical good and bad sentences get identical scores.
    A pair with an unknown token (``[UNK]``) among its scored tokens is skipped (``unk_token``):
    the probability of ``[UNK]`` is never compared (spec/SCORING.md). A pair where either side has
    no scored token at all (a text the tokenizer drops, such as a zero-width space) is skipped
    (``no_scored_token``): its empty sum, 0.0, would beat every real sentence. A ``cache`` shared by the
    calls of one model and pairs lets a method and its ``_mean`` twin share their token scores.
    """
    name = method or DEFAULT_METHODS[lm.family]
    chosen = method_for(lm, name)
    tie_rule = tie or chosen.tie
    check_tie_rule(tie_rule)
    cache = {} if cache is None else cache
    scoring = replace(chosen, reduction="sum", tie="wrong")  # all that decides the token scores
    if scoring not in cache:
        good, bad, reasons = _score_both(lm, pairs, chosen, progress)
        reasons = _with_no_scored_token(good, bad, reasons)
        cache[scoring] = good, bad, _with_unknown_tokens(lm, good, bad, reasons)
    good, bad, reasons = cache[scoring]
    return _score_frame(lm.name, name, tie_rule, pairs, good, bad, reasons, chosen.reduction)


def _with_no_scored_token(good: list[SequenceScore], bad: list[SequenceScore], reasons: list[str]) -> list[str]:
    return [reason or ("no_scored_token" if not g.token_logprobs or not b.token_logprobs else "")
            for g, b, reason in zip(good, bad, reasons, strict=True)]


def _with_unknown_tokens(lm: LM, good: list[SequenceScore], bad: list[SequenceScore], reasons: list[str]) -> list[str]:
    unk = lm.tokenizer.unk_token_id
    # Byte-level BPE never produces an unknown token; GPT-2 even names <|endoftext|> (BOS, EOS) its unk.
    if unk is None or tokenizer_kind(lm.tokenizer) == "bytelevel":
        return reasons
    return [reason or ("unk_token" if unk in g.token_ids or unk in b.token_ids else "")
            for g, b, reason in zip(good, bad, reasons, strict=True)]


# The pair flag that says whether a method applies, by method kind (the release's own flags).
METHOD_FLAGS = {"sentence": "simple_LM_method", "pll": "simple_LM_method", "one_prefix": "one_prefix_method",
                "two_prefix": "two_prefix_method"}


def _score_both(lm: LM, pairs: pd.DataFrame, method: Method, progress: bool):
    """Good and bad ``SequenceScore`` per pair (``EMPTY`` where skipped) and the skip reasons.

    A pair is scored only where its flag for the method's kind is true (``METHOD_FLAGS``; every
    release pair has ``simple_LM_method``), and skipped as ``no_<flag without _method>`` otherwise.
    """
    flag = METHOD_FLAGS[method.kind]
    applies = pairs[flag].fillna(False).astype(bool).tolist()
    wanted = applies + applies
    if method.kind in ("sentence", "pll"):
        prefix = " " if method.leading_space else ""
        goods = [prefix + s for s in pairs["sentence_good"].tolist()]  # iterating an Arrow column is 10x slower
        bads = [prefix + s for s in pairs["sentence_bad"].tolist()]
        scores = _unique_sentence_scores(lm, _applicable(goods + bads, wanted), method, progress)
    elif method.joint:
        goods, bads = _joint_texts(pairs)
        scores = _unique_sentence_scores(lm, _applicable(goods + bads, wanted), method, progress)
    else:
        goods, bads = _prefix_requests(lm, pairs, method.kind)
        scores = _unique_continuation_scores(lm, _applicable(goods + bads, wanted), progress)
    reasons = ["" if ok else f"no_{flag.removesuffix('_method')}" for ok in applies]
    good = [scores[r] if ok else EMPTY for r, ok in zip(goods, applies, strict=True)]
    bad = [scores[r] if ok else EMPTY for r, ok in zip(bads, applies, strict=True)]
    return good, bad, reasons


def _applicable(requests: list, applies: list[bool]) -> list:
    return [r for r, ok in zip(requests, applies, strict=True) if ok]


def _unique_sentence_scores(lm: LM, texts: list[str], method: Method, progress: bool) -> dict[str, SequenceScore]:
    unique = sorted(set(texts))
    if method.kind == "pll":
        scores = pseudo_log_likelihoods(lm, unique, variant=method.pll_variant, progress=progress)
    else:
        scores = sequence_logprobs(lm, unique, policy=method.policy, progress=progress)
    return dict(zip(unique, scores, strict=True))


def _prefix_requests(lm: LM, pairs: pd.DataFrame, kind: str) -> tuple[list[tuple], list[tuple]]:
    """(prefix, continuation) of the good and the bad side of every pair (None where absent)."""
    if kind == "one_prefix":
        prefixes_good = prefixes_bad = pairs["one_prefix_prefix"].tolist()
        words_good, words_bad = pairs["one_prefix_word_good"].tolist(), pairs["one_prefix_word_bad"].tolist()
    else:
        prefixes_good, prefixes_bad = pairs["two_prefix_prefix_good"].tolist(), pairs["two_prefix_prefix_bad"].tolist()
        words_good = words_bad = pairs["two_prefix_word"].tolist()
    space = " " if leading_space(lm.tokenizer) else ""

    def requests(prefixes: list, words: list) -> list[tuple]:
        return [(p, space + w if isinstance(w, str) else None) for p, w in zip(prefixes, words, strict=True)]

    return requests(prefixes_good, words_good), requests(prefixes_bad, words_bad)


def _joint_texts(pairs: pd.DataFrame) -> tuple[list, list]:
    """``two_prefix_joint``'s text of the good and the bad side of every pair (None where absent): the
    prefix and the word as running text spells them, ``prefix word``, as the good or bad sentence opens."""

    words = pairs["two_prefix_word"].tolist()

    def texts(prefixes: list) -> list:
        return [f"{p.rstrip()} {w}" if isinstance(p, str) and isinstance(w, str) else None
                for p, w in zip(prefixes, words, strict=True)]

    return texts(pairs["two_prefix_prefix_good"].tolist()), texts(pairs["two_prefix_prefix_bad"].tolist())


def _unique_continuation_scores(lm: LM, requests: list[tuple], progress: bool) -> dict[tuple, SequenceScore]:
    unique = sorted(set(requests))
    scores = continuation_logprobs(lm, [p for p, _ in unique], [c for _, c in unique], progress=progress)
    return dict(zip(unique, scores, strict=True))


def _score_frame(model: str, method: str, tie: str, pairs: pd.DataFrame, good: list[SequenceScore],
                 bad: list[SequenceScore], reasons: list[str], reduction: str = "sum") -> pd.DataFrame:
    """The ``SCORE_SCHEMA`` frame, built column by column (a dict per pair cost 44 us a pair).

    The token lists go in as the scores hold them (a text scored for several pairs shares its
    lists; nothing writes to them), where copying each cost most of the frame's time.
    """
    kept = [not reason for reason in reasons]
    score_good = _reduced_all(good, kept, reduction)
    score_bad = _reduced_all(bad, kept, reduction)
    n = len(pairs)
    out = pd.DataFrame({
        "row_id": pairs["row_id"].tolist(),
        "paradigm": pairs["paradigm"].tolist(),
        "category": pairs["category"].tolist(),
        "model": [model] * n,
        "method": [method] * n,
        "kept": kept,
        "skip_reason": list(reasons),
        "score_good": score_good,
        "score_bad": score_bad,
        "token_ids_good": [g.token_ids for g in good],
        "token_ids_bad": [b.token_ids for b in bad],
        "token_logprobs_good": [g.token_logprobs for g in good],
        "token_logprobs_bad": [b.token_logprobs for b in bad],
        "tie": [g == b if k else None for g, b, k in zip(score_good, score_bad, kept, strict=True)],
        "correct": [decide(g, b, tie) if k else None for g, b, k in zip(score_good, score_bad, kept, strict=True)],
    }, columns=SCORE_SCHEMA.names)
    for column in ("tie", "correct"):
        out[column] = out[column].astype("boolean")
    return out


def _reduced_all(scores: list[SequenceScore], kept: list[bool], reduction: str) -> list[float]:
    """Each kept score's ``total`` (``mean`` for ``reduction='mean'``), nan where skipped."""
    if reduction == "sum":
        return [score.total if k else math.nan for score, k in zip(scores, kept, strict=True)]
    return [score.mean if k else math.nan for score, k in zip(scores, kept, strict=True)]
