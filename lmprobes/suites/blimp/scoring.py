"""Score BLiMP minimal pairs with one model, and aggregate decisions into the paper's accuracies.

Methods (spec/BLIMP.md, spec/SCORING.md); every score is a sum of token log-probs:
- ``blimp_paper`` (jiant, the published GPT-2 numbers): BOS, the sentence as written, the final
  EOS scored too; a tie counts as wrong.
- ``lmeval04`` (lm-evaluation-harness 0.4): BOS, the sentence with a leading space, no EOS; a
  tie counts as right (the harness's argmax picks the first choice, the good sentence).
- ``salazar`` (mlm-scoring, causal side): BOS, the sentence as written, no EOS; tie wrong.
- ``one_prefix``: log p(word_good | BOS prefix) vs log p(word_bad | BOS prefix); tie wrong.
- ``two_prefix``: log p(word | BOS prefix_good) vs log p(word | BOS prefix_bad); tie wrong.
  (Prefix words carry a leading space for byte-level BPE: they follow the prefix in running text.)
- ``pll_original`` / ``pll_within_word_l2r``: masked-LM pseudo-log-likelihood; tie wrong.
Prefix methods score only the pairs whose paradigm supports them; the others are kept as rows
with ``kept`` false and a ``skip_reason``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import pyarrow as pa

from lmprobes.engine import continuation_logprobs, pseudo_log_likelihoods, sequence_logprobs, tokenizer_kind
from lmprobes.engine.causal import SequenceScore
from lmprobes.engine.lm import LM
from lmprobes.suites.blimp.paradigms import CATEGORIES

TIE_RULES = ("wrong", "right")


@dataclass(frozen=True)
class Method:
    """How a pair is scored: which model family, which sentence or prefix scores, which tie rule."""

    family: str  # "causal" | "masked"
    kind: str  # "sentence" | "one_prefix" | "two_prefix" | "pll"
    tie: str
    policy: str = "bos"  # causal BOS/EOS policy of sentence scores
    leading_space: bool = False
    pll_variant: str = "original"


METHODS = {
    "blimp_paper": Method("causal", "sentence", tie="wrong", policy="bos_eos"),
    "lmeval04": Method("causal", "sentence", tie="right", policy="bos", leading_space=True),
    "salazar": Method("causal", "sentence", tie="wrong", policy="bos"),
    "one_prefix": Method("causal", "one_prefix", tie="wrong"),
    "two_prefix": Method("causal", "two_prefix", tie="wrong"),
    "pll_original": Method("masked", "pll", tie="wrong", pll_variant="original"),
    "pll_within_word_l2r": Method("masked", "pll", tie="wrong", pll_variant="within_word_l2r"),
}
# The paper-faithful default per model family.
DEFAULT_METHODS = {"causal": "blimp_paper", "masked": "pll_original"}

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


class ScoringError(ValueError):
    """A model or method that cannot score BLiMP the way it was asked to."""


def method_for(lm: LM, method: str | None = None) -> Method:
    """The named method (or the family default), checked against the model's family."""
    name = method or DEFAULT_METHODS[lm.family]
    if name not in METHODS:
        raise ScoringError(f"unknown BLiMP method {name!r}; choose one of {list(METHODS)}")
    chosen = METHODS[name]
    if chosen.family != lm.family:
        raise ScoringError(f"BLiMP method {name!r} needs a {chosen.family} LM, but {lm.name!r} is {lm.family}")
    return chosen


def decide(good: float, bad: float, tie: str) -> bool:
    """Is the pair right: the good sentence scores higher (or equal, under ``tie='right'``)?"""
    _check_tie_rule(tie)
    return good > bad or (tie == "right" and good == bad)


def score_pairs(
    lm: LM, pairs: pd.DataFrame, method: str | None = None, *, tie: str | None = None, progress: bool = True
) -> pd.DataFrame:
    """One row per pair (``SCORE_SCHEMA``, in the order of ``pairs``): both scores and the decision.

    ``method`` defaults to the family's paper method; ``tie`` overrides the method's tie rule.
    Each distinct scored text runs once, so identical good and bad sentences get identical scores.
    """
    name = method or DEFAULT_METHODS[lm.family]
    chosen = method_for(lm, name)
    tie_rule = tie or chosen.tie
    _check_tie_rule(tie_rule)
    good, bad, reasons = _score_both(lm, pairs, chosen, progress)
    rows = [
        _row(lm, name, tie_rule, pair, g, b, reason)
        for pair, g, b, reason in zip(pairs.itertuples(index=False), good, bad, reasons, strict=True)
    ]
    out = pd.DataFrame.from_records(rows, columns=SCORE_SCHEMA.names)
    for column in ("tie", "correct"):
        out[column] = out[column].astype("boolean")
    return out


def _check_tie_rule(tie: str) -> None:
    if tie not in TIE_RULES:
        raise ScoringError(f"unknown tie rule {tie!r}; choose one of {TIE_RULES}")


def _score_both(lm: LM, pairs: pd.DataFrame, method: Method, progress: bool):
    """Good and bad ``SequenceScore`` per pair (``EMPTY`` where skipped) and the skip reasons."""
    if method.kind in ("sentence", "pll"):
        prefix = " " if method.leading_space else ""
        goods = [prefix + s for s in pairs["sentence_good"]]
        bads = [prefix + s for s in pairs["sentence_bad"]]
        scores = _unique_sentence_scores(lm, goods + bads, method, progress)
        return [scores[t] for t in goods], [scores[t] for t in bads], [""] * len(pairs)
    flag = f"{method.kind}_method"
    applies = pairs[flag].fillna(False).astype(bool).tolist()
    goods, bads = _prefix_requests(lm, pairs, method.kind)
    wanted = [r for r, ok in zip(goods + bads, applies + applies, strict=True) if ok]
    scores = _unique_continuation_scores(lm, wanted, progress)
    reasons = ["" if ok else f"no_{method.kind}" for ok in applies]
    good = [scores[r] if ok else EMPTY for r, ok in zip(goods, applies, strict=True)]
    bad = [scores[r] if ok else EMPTY for r, ok in zip(bads, applies, strict=True)]
    return good, bad, reasons


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
    space = " " if tokenizer_kind(lm.tokenizer) == "bytelevel" else ""

    def requests(prefixes: list, words: list) -> list[tuple]:
        return [(p, space + w if isinstance(w, str) else None) for p, w in zip(prefixes, words, strict=True)]

    return requests(prefixes_good, words_good), requests(prefixes_bad, words_bad)


def _unique_continuation_scores(lm: LM, requests: list[tuple], progress: bool) -> dict[tuple, SequenceScore]:
    unique = sorted(set(requests))
    scores = continuation_logprobs(lm, [p for p, _ in unique], [c for _, c in unique], progress=progress)
    return dict(zip(unique, scores, strict=True))


def _row(lm: LM, method: str, tie: str, pair, good: SequenceScore, bad: SequenceScore, reason: str) -> dict:
    kept = not reason
    score_good = good.total if kept else math.nan
    score_bad = bad.total if kept else math.nan
    return {
        "row_id": pair.row_id,
        "paradigm": pair.paradigm,
        "category": pair.category,
        "model": lm.name,
        "method": method,
        "kept": kept,
        "skip_reason": reason,
        "score_good": score_good,
        "score_bad": score_bad,
        "token_ids_good": list(good.token_ids),
        "token_ids_bad": list(bad.token_ids),
        "token_logprobs_good": list(good.token_logprobs),
        "token_logprobs_bad": list(bad.token_logprobs),
        "tie": score_good == score_bad if kept else None,
        "correct": decide(score_good, score_bad, tie) if kept else None,
    }


# --- aggregation -------------------------------------------------------------------------


def paradigm_accuracy(scores: pd.DataFrame, keys: Sequence[str] = ("model", "method")) -> pd.DataFrame:
    """Accuracy (fraction correct) of each paradigm over its kept pairs, per ``keys``."""
    kept = scores[scores["kept"].astype(bool)].copy()
    kept["correct"] = kept["correct"].astype(bool)
    group = [*keys, "paradigm", "category"]
    out = kept.groupby(group, sort=True)["correct"].agg(n_pairs="size", n_correct="sum").reset_index()
    out["accuracy"] = out["n_correct"] / out["n_pairs"]
    return out


def category_accuracy(paradigms: pd.DataFrame, keys: Sequence[str] = ("model", "method")) -> pd.DataFrame:
    """Each category's mean of its paradigm accuracies, categories in the paper's order."""
    out = _mean_of_paradigms(paradigms, [*keys, "category"])
    order = {category: i for i, category in enumerate(CATEGORIES)}
    out["_order"] = out["category"].map(lambda c: order.get(c, len(order)))
    return out.sort_values([*keys, "_order", "category"], kind="stable").drop(columns="_order").reset_index(drop=True)


def overall(paradigms: pd.DataFrame, keys: Sequence[str] = ("model", "method")) -> pd.DataFrame:
    """The headline number: the mean of the paradigm accuracies (not of the category means)."""
    return _mean_of_paradigms(paradigms, list(keys))


def _mean_of_paradigms(paradigms: pd.DataFrame, group: list[str]) -> pd.DataFrame:
    if not group:
        return pd.DataFrame([{"n_paradigms": len(paradigms), "accuracy": paradigms["accuracy"].mean()}])
    grouped = paradigms.groupby(group, sort=True)["accuracy"]
    return grouped.agg(n_paradigms="size", accuracy="mean").reset_index()
