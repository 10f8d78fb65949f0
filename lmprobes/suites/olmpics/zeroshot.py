"""Zero-shot oLMpics: score each multiple-choice item with a pre-trained LM, no training.

Methods:
- ``mc_mlm`` (masked LMs, MC-MLM tasks; the original oLMpics evaluation): the stem with the
  tokenizer's own mask token goes through the model once; each choice is represented by its
  word-initial token, the id of the word in running text (``Ġword`` for byte-level BPE, the plain
  piece for WordPiece, ``▁word`` for SentencePiece; oLMpics took ``encode("a " + word)[1:]``,
  which gives the same ids). A multi-piece answer is scored by its first piece, as in the
  original (counted per row in ``n_multi_piece`` and logged). The original compares the LM-head
  logits of the candidates at the mask; the engine returns the full-vocabulary log-softmax,
  which is the logit minus the same log-sum-exp for every candidate of a row, so the argmax over
  the candidates is the same and the stored score is that log-probability. The stem's mask is
  spelled as the original's tokenizer read it (``mask_encoding``, ``with_mask_token``): with
  byte-level BPE the word after the mask has no leading space. Each item is scored alone, padding
  masked; ``batches="original"`` replays the released evaluation's padded batches instead
  (``released_batch_scores``).
- ``candidates`` (any LM, MC-MLM tasks): each choice is filled into the stem and the whole
  sentence is scored (``engine.ranking``), pseudo-log-likelihood for masked LMs (``pll_variant``)
  and the causal sentence log-probability (``causal_policy``) for causal LMs, both summed; this is
  how causal models and multi-piece answers take part.
- ``candidates_mean`` (any LM, MC-MLM tasks; not a default): ``candidates`` with the mean
  log-probability per scored token instead of the sum (spec/SCORING.md's ``mean`` reduction).
  Score files record each method's reduction (``reduction_of``).

The prediction is the argmax over the item's choices only; a tie goes to the earlier choice
(``engine.ranking.best_candidate``: ``numpy.argmax``, as in the original), flagged in ``tie``.
With first-piece scoring two answers sharing a first piece get the same score (``candidate_ids``
shows it; the job's log counts such items): a SentencePiece vocabulary may split a word as a bare
``▁`` and pieces. A choice whose tokens include the unknown token makes the row unscorable
(``kept`` false, ``skip_reason``). Stems are right-stripped before tokenizing (a trailing space
would be its own BPE token). MC-QA tasks have no zero-shot setting and are refused.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Sequence

import pandas as pd
import pyarrow as pa
import torch
from tqdm.auto import tqdm

from lmprobes.engine import best_candidate, candidate_scores, map_mask_logprobs, tokenizer_kind, word_ids
from lmprobes.engine.encoding import encode_ids
from lmprobes.engine.lm import LM
from lmprobes.engine.masked import masked_projection
from lmprobes.engine.runner import check_positions, forward_mode, logits_at_rows
from lmprobes.engine.tokens import WordIds
from lmprobes.suites.olmpics.schema import MASK, TASKS

logger = logging.getLogger(__name__)

# The reduction of each whole-sentence method's token log-probs (mc_mlm scores one token).
CANDIDATE_REDUCTIONS = {"candidates": "sum", "candidates_mean": "mean"}
METHODS = {"mc_mlm": ("masked",), **{name: ("masked", "causal") for name in CANDIDATE_REDUCTIONS}}
DEFAULT_METHODS = {"masked": "mc_mlm", "causal": "candidates"}
MASK_ENCODINGS = ("original", "tokenizer")
BATCHES = ("independent", "original")
RELEASED_BATCH = 8  # the released configs' iterator: each dev file read in order, 8 items a batch
UNKNOWN_CHOICE = "unknown_choice"
MULTI_PIECE_LOG_ROWS = 20  # rows named in the log; the 29k-item grids of a tiny model would fill megabytes

SCORE_SCHEMA = pa.schema(
    [
        pa.field("row_id", pa.string()),
        pa.field("task", pa.string()),
        pa.field("flavour", pa.string()),
        pa.field("variant", pa.string()),
        pa.field("split", pa.string()),
        pa.field("model", pa.string()),
        pa.field("method", pa.string()),
        pa.field("kept", pa.bool_()),
        pa.field("skip_reason", pa.string()),
        pa.field("answer", pa.int32()),
        pa.field("predicted", pa.int32()),  # index into the item's choices; null when not kept
        pa.field("prediction", pa.string()),  # the predicted choice's text
        pa.field("correct", pa.bool_()),
        pa.field("tie", pa.bool_()),
        pa.field("candidate_ids", pa.list_(pa.int64())),  # word-initial token id per choice
        pa.field("n_pieces", pa.list_(pa.int32())),  # pieces of each choice in running text
        pa.field("n_multi_piece", pa.int32()),  # choices with more than one piece
        pa.field("scores", pa.list_(pa.float64())),  # per choice: log-prob at the mask, or sentence score
    ]
)


class ZeroShotError(ValueError):
    """An item, model or method that cannot be scored zero-shot as asked."""


def method_for(lm: LM, method: str | None) -> str:
    """The named method (or the family default), checked against the model's family."""
    name = method or DEFAULT_METHODS[lm.family]
    if name not in METHODS:
        raise ZeroShotError(f"unknown oLMpics zero-shot method {name!r}; choose one of {list(METHODS)}")
    if lm.family not in METHODS[name]:
        raise ZeroShotError(f"oLMpics method {name!r} needs a masked LM, but {lm.name!r} is {lm.family}")
    return name


def reduction_of(method: str) -> str | None:
    """How ``method`` reduces a sentence's token log-probs (``sum``, ``mean``); None for ``mc_mlm``,
    which scores one token."""
    return CANDIDATE_REDUCTIONS.get(method)


def score_zero_shot(lm: LM, items: pd.DataFrame, method: str | None = None, *, pll_variant: str = "original",
                    causal_policy: str = "bos", mask_encoding: str = "original", batches: str = "independent",
                    progress: bool = True) -> pd.DataFrame:
    """One row per item (SCORE_SCHEMA, in the order of ``items``) for ``lm`` and ``method``;
    ``mask_encoding`` spells the stem's mask for ``mc_mlm`` (``with_mask_token``); ``batches``:
    ``independent`` (each item's scores its own) or ``original`` (``mc_mlm`` only: the released
    evaluation's batches replayed, ``released_batch_scores``)."""
    name = method_for(lm, method)
    _check_items(items, name)
    if batches not in BATCHES:
        raise ZeroShotError(f"unknown oLMpics zero-shot batches {batches!r}; choose one of {list(BATCHES)}")
    choices = [list(c) for c in items["choices"]]
    pieces = choice_pieces(lm, choices)
    reasons = [UNKNOWN_CHOICE if any(w.is_unk for w in row) else "" for row in pieces]
    kept = [i for i, reason in enumerate(reasons) if not reason]
    stems = items["stem"].tolist()
    if name == "mc_mlm" and batches == "original":
        targets = [[w.first_id for w in row] for row in pieces]
        every = released_batch_scores(lm, stems, targets, items["task"].tolist(), mask_encoding, progress)
        scores = [every[i] for i in kept]
    elif name == "mc_mlm":
        scores = _mc_mlm_scores(lm, [stems[i] for i in kept], [pieces[i] for i in kept], mask_encoding, progress)
    else:
        sentences = [[fill(stems[i], c) for c in choices[i]] for i in kept]
        scores = candidate_scores(lm, sentences, reduction=CANDIDATE_REDUCTIONS[name], pll_variant=pll_variant,
                                  causal_policy=causal_policy, progress=progress)
    by_item = dict(zip(kept, scores, strict=True))
    rows = [_row(lm, name, item, pieces[i], by_item.get(i), reasons[i])
            for i, item in enumerate(items.itertuples(index=False))]
    _log_multi_piece(lm, name, rows)
    _log_shared_pieces(lm, name, rows)
    return _frame(rows)


def stem_for_masked(lm: LM, stem: str, mask_encoding: str = "original") -> str:
    """The stem with the tokenizer's mask token for ``[MASK]`` (``with_mask_token``), right-stripped."""
    return with_mask_token(lm.tokenizer, stem, mask_encoding).rstrip()


def with_mask_token(tokenizer, text: str, mask_encoding: str = "original") -> str:
    """``text`` with the tokenizer's mask token for ``[MASK]``, spelled for ``mask_encoding``.

    ``original``: as the released readers' tokenizer read it. transformers 2.x cut a text at its
    special tokens and stripped each side before encoding it, so with byte-level BPE (RoBERTa) the
    word after the mask had no leading space (``<mask> than``, not ``<mask> Ġthan``); dropping the
    spaces around the mask makes today's tokenizers read it the same way. ``tokenizer``: the text
    as written, read by today's tokenizer. WordPiece ignores those spaces, and SentencePiece texts are
    left as written under both.
    """
    if mask_encoding not in MASK_ENCODINGS:
        raise ZeroShotError(f"unknown oLMpics mask_encoding {mask_encoding!r}; choose one of {list(MASK_ENCODINGS)}")
    mask = tokenizer.mask_token
    masked = text.replace(MASK, mask)
    if mask_encoding == "original" and tokenizer_kind(tokenizer) == "bytelevel":
        return re.sub(rf"\s*{re.escape(mask)}\s*", lambda _: mask, masked)
    return masked


def fill(stem: str, choice: str) -> str:
    """The stem with the choice in place of ``[MASK]``, right-stripped."""
    return stem.replace(MASK, choice).rstrip()


def _check_items(items: pd.DataFrame, method: str) -> None:
    for item in items[["row_id", "task", "stem"]].itertuples(index=False):
        if item.task not in TASKS:
            raise ZeroShotError(f"{item.row_id}: unknown oLMpics task {item.task!r}")
        if TASKS[item.task].setup != "mc_mlm":
            raise ZeroShotError(
                f"{item.row_id}: {item.task} is an MC-QA task; zero-shot {method!r} scoring needs an MC-MLM "
                "item with a [MASK] in its stem (MC-QA has no zero-shot setting)"
            )
        if item.stem.count(MASK) != 1:
            raise ZeroShotError(f"{item.row_id}: the stem needs exactly one {MASK}: {item.stem!r}")


def choice_pieces(lm: LM, choices: list[list[str]]) -> list[list[WordIds]]:
    """Each choice's pieces in running text (word-initial form), resolved once per distinct word."""
    cache: dict[str, WordIds] = {}
    for word in sorted({c for row in choices for c in row}):
        cache[word] = word_ids(lm.tokenizer, word)
        if not word or not cache[word].ids:
            raise ZeroShotError(f"{lm.name}: the choice {word!r} encodes to no tokens")
    return [[cache[c] for c in row] for row in choices]


def _mc_mlm_scores(lm: LM, stems: list[str], pieces: list[list[WordIds]], mask_encoding: str,
                   progress: bool) -> list[list[float]]:
    texts = [stem_for_masked(lm, stem, mask_encoding) for stem in stems]
    targets = [[w.first_id for w in row] for row in pieces]

    def candidate_logprobs(logprobs: torch.Tensor, indices: list[int]) -> list[list[float]]:
        return [logprobs[row, targets[item]].tolist() for row, item in enumerate(indices)]

    return map_mask_logprobs(lm, texts, candidate_logprobs, progress=progress)


def released_batch_scores(lm: LM, stems: list[str], targets: list[list[int]], tasks: list[str], mask_encoding: str,
                          progress: bool) -> list[list[float]]:
    """The log-probs of each item's ``targets`` at its mask, as the released evaluation computed them.

    Its MC-MLM model passes BERT and RoBERTa no attention mask (it builds the padding mask for XLNet
    alone), and its iterator reads each task's dev file in order, 8 items a batch, right-padded with
    the tokenizer's pad token: a stem shorter than its batch's longest attends to that padding, so
    its scores depend on its neighbours. The stems must be in file order, one task after another
    (``released_batches``); every item takes its place in a batch, scorable or not.
    """
    pad = lm.tokenizer.pad_token_id
    if pad is None:
        raise ZeroShotError(f"{lm.name}: the released batches are padded, but its tokenizer has no padding token")
    ids = encode_ids(lm.tokenizer, [stem_for_masked(lm, stem, mask_encoding) for stem in stems])
    check_positions(lm, ids)
    projection = masked_projection(lm)
    scores: list[list[float]] = [[] for _ in stems]
    with forward_mode(lm):
        for batch in tqdm(released_batches(tasks), desc=f"{lm.name} released batches", disable=not progress):
            inputs = torch.full((len(batch), max(len(ids[i]) for i in batch)), pad, dtype=torch.long)
            for row, i in enumerate(batch):
                inputs[row, :len(ids[i])] = torch.tensor(ids[i])
            rows = torch.arange(len(batch), device=lm.device)
            masks = torch.tensor([ids[i].index(lm.tokenizer.mask_token_id) for i in batch], device=lm.device)
            # No attention mask, as released: the LM head runs at the mask rows only.
            at_mask = torch.cat(list(logits_at_rows(lm, projection, inputs.to(lm.device), None, rows, masks,
                                                    needs_mask=False)))
            logprobs = torch.log_softmax(at_mask.float(), dim=-1).cpu()
            for row, i in enumerate(batch):
                scores[i] = logprobs[row, targets[i]].tolist()
    return scores


def released_batches(tasks: Sequence[str], size: int = RELEASED_BATCH) -> list[list[int]]:
    """Item indices in batches of ``size``: each run of one task cut in order, its last batch shorter."""
    batches: list[list[int]] = []
    for i, task in enumerate(tasks):
        if not batches or tasks[batches[-1][0]] != task or len(batches[-1]) == size:
            batches.append([])
        batches[-1].append(i)
    return batches


def _row(lm: LM, method: str, item, pieces: Sequence[WordIds], scores: list[float] | None, reason: str) -> dict:
    n_pieces = [w.n_pieces for w in pieces]
    kept = scores is not None
    predicted = best_candidate(scores) if kept else None
    return {
        "row_id": item.row_id, "task": item.task, "flavour": item.flavour, "variant": item.variant,
        "split": item.split, "model": lm.name, "method": method, "kept": kept, "skip_reason": reason,
        "answer": int(item.answer), "predicted": predicted,
        "prediction": item.choices[predicted] if kept else None,
        "correct": predicted == int(item.answer) if kept else None,
        "tie": sum(s == max(scores) for s in scores) > 1 if kept else None,
        "candidate_ids": [w.first_id for w in pieces], "n_pieces": n_pieces,
        "n_multi_piece": sum(n > 1 for n in n_pieces),
        "scores": [float(s) for s in scores] if kept else [math.nan] * len(pieces),
    }


def _log_multi_piece(lm: LM, method: str, rows: list[dict]) -> None:
    if method != "mc_mlm":
        return
    multi = [row for row in rows if row["n_multi_piece"]]
    for row in multi[:MULTI_PIECE_LOG_ROWS]:  # every row's count is in the scores (n_multi_piece)
        logger.info("%s: %s has %d multi-piece choice(s) (pieces %s); scored by the first piece",
                    lm.name, row["row_id"], row["n_multi_piece"], json.dumps(row["n_pieces"]))
    if len(multi) > MULTI_PIECE_LOG_ROWS:
        logger.info("%s: ... and %d more items with multi-piece choices", lm.name, len(multi) - MULTI_PIECE_LOG_ROWS)
    if multi:
        logger.warning("%s: %d of %d items have multi-piece choices scored by their first piece",
                       lm.name, len(multi), len(rows))


def _log_shared_pieces(lm: LM, method: str, rows: list[dict]) -> None:
    """Choices scored by the same first piece can never be told apart."""
    if method != "mc_mlm":
        return
    shared = [row for row in rows if row["kept"] and len(set(row["candidate_ids"])) < len(row["candidate_ids"])]
    if shared:
        ids = shared[0]["candidate_ids"]
        pieces = lm.tokenizer.convert_ids_to_tokens(sorted({i for i in ids if ids.count(i) > 1}))
        logger.warning("%s: %d of %d items have choices scored by the same first piece, so equally (%s: %s)",
                       lm.name, len(shared), len(rows), shared[0]["row_id"], pieces)


def _frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(rows, columns=SCORE_SCHEMA.names)
    frame = frame.astype({"answer": "int32", "predicted": "Int32", "n_multi_piece": "int32"})
    for column in ("kept", "correct", "tie"):
        frame[column] = frame[column].astype("boolean")
    return frame
