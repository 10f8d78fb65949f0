"""LAMA scoring of masked LMs, as the released code does it, plus a labelled ``filtered`` rank.

At the mask: log-softmax over the full vocabulary, then keep only the common-vocabulary ids
(no renormalisation). The gold's ``rank_raw`` is its 1-based position among them; ``rank_filtered``
also removes the other valid objects of the same (subject, relation) that rank above it (the
paper's filter, never in the released code). Each fact's skip reason, in the released order:
too long, object not one token (its single piece must spell the label exactly), outside the
common vocabulary, Google-RE judgments, duplicate.
"""

from __future__ import annotations

import math

import pandas as pd
import pyarrow as pa
import torch

from lmprobes.engine import map_mask_logprobs, word_ids
from lmprobes.engine.lm import LM
from lmprobes.suites.lama.release import MASK

TOP_K = 10

SCORE_SCHEMA = pa.schema(
    [
        pa.field("row_id", pa.string()),
        pa.field("model", pa.string()),
        pa.field("kept", pa.bool_()),
        pa.field("skip_reason", pa.string()),
        pa.field("gold_id", pa.int64()),
        pa.field("gold_pieces", pa.int32()),
        pa.field("gold_logprob", pa.float64()),
        pa.field("rank_raw", pa.int32()),
        pa.field("rank_filtered", pa.int32()),
        pa.field("top_tokens", pa.list_(pa.string())),
        pa.field("top_logprobs", pa.list_(pa.float64())),
    ]
)


def piece_text(tokenizer, token_id: int) -> str:
    """The word a single piece spells (``Ġ`` and ``▁`` markers removed)."""
    return tokenizer.decode([token_id]).strip()


def single_token_id(tokenizer, word: str) -> int | None:
    """LAMA's check: one piece, not unknown, and that piece re-joined equals the word exactly."""
    resolved = word_ids(tokenizer, word)
    if not resolved.single or piece_text(tokenizer, resolved.first_id) != word:
        return None
    return resolved.first_id


def common_vocab_ids(tokenizer, common_vocab: list[str]) -> list[int]:
    """Ids of the common-vocabulary words that are single tokens for this model, sorted."""
    ids = {single_token_id(tokenizer, word) for word in common_vocab}
    return sorted(i for i in ids if i is not None)


def skip_reason(fact, gold_id: int | None, allowed: set[int]) -> str:
    if fact.too_long:
        return "too_long"
    if gold_id is None:
        return "not_single_token"
    if not fact.in_common_vocab or gold_id not in allowed:
        return "not_in_common_vocab"
    if fact.judgment_rejected:
        return "judgment_rejected"
    if fact.duplicate:
        return "duplicate"
    return ""


def valid_object_ids(facts: pd.DataFrame, gold_ids: dict[str, int | None]) -> dict[tuple[str, str], set[int]]:
    """All single-token objects of each (relation, subject) in the dataset."""
    valid: dict[tuple[str, str], set[int]] = {}
    for fact in facts.itertuples(index=False):
        gold = gold_ids[fact.obj_label]
        if gold is not None:
            valid.setdefault((fact.relation, fact.sub_label), set()).add(gold)
    return valid


def score_facts(lm: LM, facts: pd.DataFrame, common_vocab: list[str], *, top_k: int = TOP_K,
                progress: bool = True) -> pd.DataFrame:
    """One row per fact; only kept facts run through the model."""
    if lm.family != "masked":
        raise ValueError(f"model {lm.name!r} is a {lm.family} LM; LAMA's masked protocol needs a masked LM")
    tokenizer = lm.tokenizer
    allowed = common_vocab_ids(tokenizer, common_vocab)
    allowed_set = set(allowed)
    labels = set(facts["obj_label"])
    gold_ids = {label: single_token_id(tokenizer, label) for label in labels}
    gold_pieces = {label: word_ids(tokenizer, label).n_pieces for label in labels}
    reasons = [skip_reason(f, gold_ids[f.obj_label], allowed_set) for f in facts.itertuples(index=False)]
    valid = valid_object_ids(facts, gold_ids)
    kept = [i for i, reason in enumerate(reasons) if not reason]
    texts = [facts["query"].iat[i].replace(MASK, tokenizer.mask_token) for i in kept]
    index = torch.tensor(allowed)
    position = {token: j for j, token in enumerate(allowed)}

    def rank_gold(logprobs: torch.Tensor, items: list[int]) -> list[dict]:
        restricted = logprobs[:, index.to(logprobs.device)]
        return [_ranks(restricted[row], allowed, position, facts.iloc[kept[item]], gold_ids, valid, top_k, tokenizer)
                for row, item in enumerate(items)]

    results = map_mask_logprobs(lm, texts, rank_gold, progress=progress)
    by_row = dict(zip(kept, results))
    return pd.DataFrame.from_records(
        [_score_row(lm, facts.iloc[i], reasons[i], gold_ids, gold_pieces, by_row.get(i)) for i in range(len(facts))]
    )


def _ranks(restricted: torch.Tensor, allowed: list[int], position: dict[int, int], fact, gold_ids, valid, top_k,
           tokenizer) -> dict:
    gold = gold_ids[fact.obj_label]
    gold_logprob = restricted[position[gold]]
    above = restricted > gold_logprob
    others = [position[v] for v in valid[(fact.relation, fact.sub_label)] if v != gold and v in position]
    other_above = int(above[others].sum()) if others else 0
    values, order = restricted.topk(min(top_k, len(allowed)))
    return {
        "gold_logprob": float(gold_logprob),
        "rank_raw": int(above.sum()) + 1,
        "rank_filtered": int(above.sum()) + 1 - other_above,
        "top_tokens": [piece_text(tokenizer, allowed[j]) for j in order.tolist()],
        "top_logprobs": values.tolist(),
    }


def _score_row(lm: LM, fact, reason: str, gold_ids, gold_pieces, result: dict | None) -> dict:
    gold = gold_ids[fact.obj_label]
    result = result or {}
    return {
        "row_id": fact.row_id,
        "model": lm.name,
        "kept": not reason,
        "skip_reason": reason,
        "gold_id": gold if gold is not None else -1,
        "gold_pieces": gold_pieces[fact.obj_label],
        "gold_logprob": result.get("gold_logprob", math.nan),
        "rank_raw": result.get("rank_raw"),
        "rank_filtered": result.get("rank_filtered"),
        "top_tokens": result.get("top_tokens", []),
        "top_logprobs": result.get("top_logprobs", []),
    }
