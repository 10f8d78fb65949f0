"""LAMA scoring: masked LMs as the released code does it, causal LMs two ways.

Methods (one row per fact and method, ``method`` column):
- ``masked``: log-softmax at the mask over the full vocabulary, then keep only the common-vocabulary
  ids (no renormalisation), as the released code does. A byte-level model ranks ``Ġword`` ids, also
  where the mask opens the query, as the released RoBERTa connector does (``tokenization``).
- ``left_context``: LAMA's own connector for left-to-right LMs: the model reads BOS plus the text
  left of the mask (stripped) and predicts the next token; ranked among the same common-vocabulary
  ids (``Ġword`` ids for byte-level BPE). Words right of the mask are unseen by construction. A
  query opening with the mask is predicted from BOS alone (the released connectors read their EOS
  first) and, as the released GPT-2 connector does, ranked among the ``Ġword`` ids too; under
  ``tokenization="huggingface"`` among the sentence-initial forms (``word``) instead.
- ``candidates``: every object of the relation (the distinct objects of its facts that pass the
  model-independent filters) is filled into the query and the filled sentence is scored by its
  causal log-likelihood (BEAR / lm-pub-quiz style; ``engine.ranking``), summed over its tokens;
  multi-token objects take part.
- ``candidates_mean``: ``candidates`` with the filled sentence's mean log-probability per scored
  token instead of the sum (spec/SCORING.md's ``mean`` reduction; ``gold_logprob`` and
  ``top_logprobs`` are then per-token means); not a default. The score files record each method's
  reduction (``reduction_of``).

``rank_raw`` is the gold's 1-based rank (1 + the number of entries scoring higher, or equal with a
lower id, or earlier among the sorted candidates: a tie goes to the lower id, as the top-k list
shows it and the Freq baseline breaks it, so a tie for the top is never a shared P@1; float32 ties
are rare, bfloat16 logits tie often);
``rank_filtered`` also removes the other valid objects of the same (subject, relation) that rank
above it (the paper's filter, never in the released code). Skip reasons, in the released order:
too long, outside the common vocabulary, object not one token (its single piece must spell the
label exactly; for the ``candidates`` methods, not spelled with the unknown token), Google-RE judgments,
duplicate. Uncased models are scored in the released code's
``lowercase`` mode by default (``case_for``).

A sentence that holds the mask more than once (ConceptNet's and SQuAD's are the release's own) is
scored at its first, the others staying masks, as the released code does ("score only first mask");
``left_context`` reads the text left of the first, the ``candidates`` methods fill every one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd
import pyarrow as pa
import torch

from lmprobes.engine import WordIds, candidate_scores, leading_space, map_mask_logprobs, tokenizer_kind, words_ids
from lmprobes.engine.causal import map_next_token_logprobs
from lmprobes.engine.encoding import encode_ids
from lmprobes.engine.lm import LM
from lmprobes.engine.runner import top_k_low_id_first
from lmprobes.suites.lama.release import MASK, lowercased, valid_objects

TOP_K = 10
MASKED_METHODS = ("masked",)
# The reduction of each whole-sentence method's token log-probs; the others score one token.
CANDIDATE_REDUCTIONS = {"candidates": "sum", "candidates_mean": "mean"}
CAUSAL_METHODS = ("left_context", *CANDIDATE_REDUCTIONS)
DEFAULT_CAUSAL_METHODS = ("left_context", "candidates")
METHODS = MASKED_METHODS + CAUSAL_METHODS
CASES = ("cased", "lowercase")
TOKENIZATIONS = ("released", "huggingface")
# ``auto``: the released lowercase mode for models whose tokenizer lowercases its input (``case_for``).
CASE_OPTIONS = ("auto", *CASES)
UNKNOWN_TOKEN = "unknown_token"  # skip reason of a ``candidates`` object spelled with the unknown token

SCORE_SCHEMA = pa.schema(
    [
        pa.field("row_id", pa.string()),
        pa.field("model", pa.string()),
        pa.field("method", pa.string()),
        pa.field("kept", pa.bool_()),
        pa.field("skip_reason", pa.string()),
        pa.field("gold_id", pa.int64()),
        pa.field("gold_pieces", pa.int32()),
        pa.field("gold_logprob", pa.float64()),
        pa.field("rank_raw", pa.int32()),
        pa.field("rank_filtered", pa.int32()),
        pa.field("n_candidates", pa.int32()),
        pa.field("top_tokens", pa.list_(pa.string())),
        pa.field("top_logprobs", pa.list_(pa.float64())),
    ]
)


def methods_for(family: str, causal_methods: Sequence[str] = DEFAULT_CAUSAL_METHODS) -> tuple[str, ...]:
    """The methods a model of ``family`` is scored with."""
    return MASKED_METHODS if family == "masked" else tuple(causal_methods)


def reduction_of(method: str) -> str | None:
    """How ``method`` reduces a sentence's token log-probs (``sum``, ``mean``); None for a method
    that scores one token."""
    return CANDIDATE_REDUCTIONS.get(method)


def piece_text(tokenizer, token_id: int) -> str:
    """The word a single piece spells (``Ġ`` and ``▁`` markers removed)."""
    return tokenizer.decode([token_id]).strip()


def spelled_single_id(tokenizer, resolved: WordIds) -> int | None:
    """LAMA's check: one piece, not unknown, and that piece re-joined equals the word exactly."""
    spelled = resolved.single and piece_text(tokenizer, resolved.first_id) == resolved.word
    return resolved.first_id if spelled else None


def common_vocab_pieces(tokenizer, common_vocab: list[str], *, sentence_initial: bool = False) -> dict[int, str]:
    """Id -> piece text of the common-vocabulary words that are single tokens for this model, by id.

    A kept piece spells its word exactly (``spelled_single_id``), so the word is its text.
    """
    pieces = {}
    for resolved in words_ids(tokenizer, common_vocab, sentence_initial=sentence_initial):
        token = spelled_single_id(tokenizer, resolved)
        if token is not None:
            pieces[token] = resolved.word
    return dict(sorted(pieces.items()))


def object_ids(tokenizer, facts: pd.DataFrame) -> dict[str, WordIds]:
    """Each object label of ``facts`` as the tokenizer spells it in running text."""
    labels = sorted(set(facts["obj_label"]))
    return dict(zip(labels, words_ids(tokenizer, labels), strict=True))


# What the scoring reads of a fact: iterating the dataset's other columns (lists among them) cost more.
FACT_FIELDS = ["row_id", "relation", "sub_label", "obj_label", "query", "too_long", "in_common_vocab",
               "judgment_rejected", "duplicate"]


def fact_records(facts: pd.DataFrame) -> list:
    """The facts as named tuples of their ``FACT_FIELDS``, in order."""
    return list(facts[FACT_FIELDS].itertuples(index=False))


def skip_reason(fact, model_reason: str = "") -> str:
    """The released code's order (``filter_samples``): length, common vocabulary, then the model's own
    check of the object (``model_reason``), judgments, the dedupe; the dataset's ``filter_counts``
    attributes facts the same way."""
    if fact.too_long:
        return "too_long"
    if not fact.in_common_vocab:
        return "not_in_common_vocab"
    if model_reason:
        return model_reason
    if fact.judgment_rejected:
        return "judgment_rejected"
    if fact.duplicate:
        return "duplicate"
    return ""


def token_skip_reason(fact, gold_id: int | None, allowed: Collection[int]) -> str:
    """``skip_reason`` with the released single-token check: one piece spelling the label, in the
    common vocabulary as this tokenizer spells it."""
    if gold_id is None:
        return skip_reason(fact, "not_single_token")
    return skip_reason(fact, "not_in_common_vocab" if gold_id not in allowed else "")


def candidate_skip_reason(fact, gold: WordIds) -> str:
    """``skip_reason`` with the unknown-token check in the single-token check's place: an object the
    tokenizer spells with ``[UNK]`` is not scored (a probability of ``[UNK]`` says nothing about the word)."""
    return skip_reason(fact, UNKNOWN_TOKEN if gold.is_unk else "")


def score_facts(lm: LM, facts: pd.DataFrame, common_vocab: list[str], *, method: str | None = None,
                top_k: int = TOP_K, policy: str = "bos", case: str = "cased", tokenization: str = "released",
                progress: bool = True) -> pd.DataFrame:
    """One SCORE_SCHEMA row per fact; only kept facts run through the model.

    ``case="lowercase"`` is the released code's ``lowercase`` mode (``release.lowercased``), for
    which ``common_vocab`` must be the lowercased common vocabulary. ``tokenization="released"``
    encodes a WordPiece model's masked queries as the released BERT connector does
    (``released_bert_encoding``) and ranks a byte-level model's running-text forms (``Ġword``) even
    where the mask opens the query, as the released RoBERTa and GPT-2 connectors do;
    ``"huggingface"`` uses the tokenizer as it is and ranks the sentence-initial forms (``word``) there.
    """
    method = method or methods_for(lm.family)[0]
    _check_method(lm, method)
    if case not in CASES:
        raise ValueError(f"unknown LAMA case {case!r}; choose one of {CASES}")
    if tokenization not in TOKENIZATIONS:
        raise ValueError(f"unknown LAMA tokenization {tokenization!r}; choose one of {TOKENIZATIONS}")
    if case == "lowercase":
        facts = lowercased(facts, set(common_vocab))
    if method in CANDIDATE_REDUCTIONS:
        return _score_candidates(lm, facts, method=method, top_k=top_k, policy=policy, progress=progress)
    return _score_tokens(lm, facts, common_vocab, method=method, top_k=top_k, tokenization=tokenization,
                         progress=progress)


def case_for(tokenizer, option: str) -> str:
    """The case mode a model is scored in: ``option`` itself, or for ``auto`` ``lowercase`` when the
    tokenizer lowercases its input (uncased checkpoints, as the released code ran openai-gpt and
    later forks its uncased BERTs), else ``cased``."""
    if option not in CASE_OPTIONS:
        raise ValueError(f"unknown LAMA case option {option!r}; choose one of {CASE_OPTIONS}")
    if option != "auto":
        return option
    probe = "The Capital Of France Is Paris"
    encode = partial(tokenizer, add_special_tokens=False)
    ids = encode(probe)["input_ids"]
    known = any(token != tokenizer.unk_token_id for token in ids)  # an all-[UNK] probe tells nothing
    return "lowercase" if known and ids == encode(probe.lower())["input_ids"] else "cased"


def _check_method(lm: LM, method: str) -> None:
    if method not in METHODS:
        raise ValueError(f"unknown LAMA method {method!r}; choose one of {METHODS}")
    if method not in methods_for(lm.family, CAUSAL_METHODS):
        raise ValueError(f"model {lm.name!r} is a {lm.family} LM; LAMA's {method!r} method needs a "
                         f"{'masked' if method == 'masked' else 'causal'} LM")


# --- one token at the mask (masked, left_context) ---------------------------------------------


@dataclass(frozen=True)
class TokenForms:
    """The common vocabulary and the gold labels as single ids, in one spelling: in running text,
    or sentence-initial (what a left-to-right model predicts right after BOS)."""

    pieces: dict[int, str]  # allowed id -> its word (``common_vocab_pieces``)
    gold_ids: dict[str, int | None]
    n_pieces: dict[str, int]


def token_forms(tokenizer, common_vocab: list[str], labels: list[str], *, sentence_initial: bool = False
                ) -> TokenForms:
    if sentence_initial and not leading_space(tokenizer):
        sentence_initial = False  # WordPiece and ▁-prepending SentencePiece spell a word the same at the start
    resolved = dict(zip(labels, words_ids(tokenizer, labels, sentence_initial=sentence_initial), strict=True))
    return TokenForms(
        pieces=common_vocab_pieces(tokenizer, common_vocab, sentence_initial=sentence_initial),
        gold_ids={label: spelled_single_id(tokenizer, ids) for label, ids in resolved.items()},
        n_pieces={label: ids.n_pieces for label, ids in resolved.items()},
    )


def _score_tokens(lm: LM, facts: pd.DataFrame, common_vocab: list[str], *, method: str, top_k: int,
                  tokenization: str, progress: bool) -> pd.DataFrame:
    tokenizer = lm.tokenizer
    valid = valid_objects(facts)
    labels = sorted(set(facts["obj_label"]) | {o for objs in valid.values() for o in objs})
    at_start = applied_tokenization(lm, tokenization) == "huggingface"
    initial = [at_start and not query.split(MASK, 1)[0].strip() for query in facts["query"]]
    forms = {False: token_forms(tokenizer, common_vocab, labels)}
    if any(initial):
        forms[True] = token_forms(tokenizer, common_vocab, labels, sentence_initial=True)
    records = fact_records(facts)
    reasons = [token_skip_reason(fact, forms[at].gold_ids[fact.obj_label], forms[at].pieces.keys())
               for fact, at in zip(records, initial)]
    kept = [i for i, reason in enumerate(reasons) if not reason]
    rankers = {at: TokenRanker(form.pieces, valid, form.gold_ids, top_k) for at, form in forms.items()}
    items = [records[i] for i in kept]
    item_initial = [initial[i] for i in kept]

    def rank(logprobs: torch.Tensor, indices: list[int]) -> list[dict]:
        spellings = {item_initial[i] for i in indices}
        if len(spellings) == 1:  # the usual batch: no copy of its rows
            return rankers[spellings.pop()].rank(logprobs, [items[i] for i in indices])
        ranked: dict[int, dict] = {}
        for at, ranker in rankers.items():
            rows = [row for row, i in enumerate(indices) if item_initial[i] == at]
            chosen = logprobs[torch.tensor(rows, device=logprobs.device)]
            ranked.update(zip(rows, ranker.rank(chosen, [items[indices[row]] for row in rows]), strict=True))
        return [ranked[row] for row in range(len(indices))]

    if method == "masked":
        texts = [fact.query.replace(MASK, tokenizer.mask_token) for fact in items]
        encode = partial(released_bert_encoding, tokenizer) if released_bert(tokenizer, tokenization) else None
        results = map_mask_logprobs(lm, texts, rank, progress=progress, encode=encode, masks="first")
    else:
        contexts = [fact.query.split(MASK, 1)[0] for fact in items]
        results = map_next_token_logprobs(lm, contexts, rank, bos=True, strip_context=True, progress=progress)
    by_row = dict(zip(kept, results))
    return _frame([
        _score_row(lm, method, fact, reason, forms[at].gold_ids[fact.obj_label], forms[at].n_pieces[fact.obj_label],
                   by_row.get(i))
        for i, (fact, reason, at) in enumerate(zip(records, reasons, initial))
    ])


def applied_tokenization(lm: LM, tokenization: str) -> str:
    """What ``tokenization`` amounts to for ``lm``: ``released`` only where a released connector
    differs from the tokenizer: BERT's for masked WordPiece models, and RoBERTa's and GPT-2's for
    byte-level BPE ones, which name only space-led pieces (``Ġword``) as words, so a mask opening
    the query is ranked among those. ``huggingface`` ranks the sentence-initial forms (``word``)
    there, what the tokenizer writes right after ``<s>`` or ``<|endoftext|>``."""
    kind = tokenizer_kind(lm.tokenizer)
    released = kind == "bytelevel" or (lm.family == "masked" and kind == "wordpiece")
    return tokenization if released else "huggingface"


def released_bert(tokenizer, tokenization: str) -> bool:
    """Whether masked queries are encoded as the released BERT connector does: WordPiece models
    under ``tokenization="released"`` (the released code's other connectors are not BERT's)."""
    return tokenization == "released" and tokenizer_kind(tokenizer) == "wordpiece"


def released_bert_encoding(tokenizer, texts: list[str]) -> list[list[int]]:
    """``[CLS] text [SEP]`` as LAMA's ``bert_connector`` tokenizes it (its ``CustomBaseTokenizer``).

    Words are split on whitespace; each word holding the mask becomes the mask followed by the rest
    of that word as one WordPiece word, neither split at punctuation nor lowercased: ``[MASK]).``
    gives ``[MASK] ) ##.`` where the tokenizer alone gives ``[MASK] ) .`` (every Google-RE
    date-of-birth query). Every other word is tokenized as usual (WordPiece is word by word).
    """
    mask = tokenizer.mask_token
    cls, mask_id, sep = tokenizer.cls_token_id, tokenizer.mask_token_id, tokenizer.sep_token_id  # looked up once
    runs: list[str] = []  # the stretches of ordinary words, tokenized in one call
    layouts = []  # per text: ("run", index into runs) and ("mask", rest of the word) in order
    for text in texts:
        layout, words = [], []
        for word in text.split():
            if mask in word:
                layout += [("run", len(runs)), ("mask", word.replace(mask, "").strip())]
                runs.append(" ".join(words))
                words = []
            else:
                words.append(word)
        layout.append(("run", len(runs)))
        runs.append(" ".join(words))
        layouts.append(layout)
    encoded = encode_ids(tokenizer, runs, special_tokens=False)
    rests = {rest for layout in layouts for part, rest in layout if part == "mask"}
    pieces = {rest: _wordpiece_ids(tokenizer, rest) if rest else [] for rest in rests}
    sequences = []
    for layout in layouts:
        ids = [cls]
        for part, value in layout:
            ids += encoded[value] if part == "run" else [mask_id, *pieces[value]]
        sequences.append([*ids, sep])
    return sequences


def _wordpiece_ids(tokenizer, word: str) -> list[int]:
    """``word`` through the WordPiece model alone: no normalisation, no pre-tokenization."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None:
        return [token.id for token in backend.model.tokenize(word)]
    return tokenizer.convert_tokens_to_ids(tokenizer.wordpiece_tokenizer.tokenize(word))


class TokenRanker:
    """Ranks each gold id among the allowed (common-vocabulary) ids of a log-prob row."""

    def __init__(self, pieces: dict[int, str], valid: dict, gold_ids: dict, top_k: int) -> None:
        """``pieces``: allowed id -> its text, in id order (``common_vocab_pieces``)."""
        allowed = list(pieces)
        self.index = torch.tensor(allowed, dtype=torch.long)
        self.position = {token: j for j, token in enumerate(allowed)}
        self.gold_ids = gold_ids
        self.groups = group_columns(valid, self._column)
        self.pieces = list(pieces.values())
        self.top_k = top_k

    def rank(self, logprobs: torch.Tensor, facts: list) -> list[dict]:
        """Ranks of a batch of rows at once: one comparison against the gold per row, one top-k.

        Everything but the top-k lists is counted on the rows' device; only per-row numbers come
        back (not the rows x vocabulary comparison matrix).
        """
        # index_select: a third of the time of [:, index] on CPU (1.5 s vs 3.5 s on 34k T-REx + 30k ConceptNet facts)
        restricted = logprobs.index_select(1, self.index.to(logprobs.device))
        gold = torch.tensor([self.position[self.gold_ids[f.obj_label]] for f in facts], device=restricted.device)
        gold_values = restricted.gather(1, gold[:, None])
        above = ranked_above(restricted, gold_values, gold[:, None])
        raw = (above.sum(dim=1, dtype=torch.int32) + 1).tolist()
        other_above = count_true_in_groups(above, [(f.relation, f.sub_label) for f in facts], self.groups)
        tops = top_k_low_id_first(restricted, self.top_k)
        return [
            {
                "gold_logprob": gold_logprob,
                "rank_raw": rank,
                "rank_filtered": rank - n_others,
                "top_tokens": [self.pieces[j] for j, _ in top],
                "top_logprobs": [value for _, value in top],
            }
            for gold_logprob, rank, n_others, top in zip(gold_values[:, 0].tolist(), raw, other_above, tops, strict=True)
        ]

    def _column(self, relation: str, label: str) -> int | None:
        return self.position.get(self.gold_ids.get(label))


NO_COLUMNS = np.zeros(0, dtype=np.int64)


def group_columns(valid: dict, column: Callable[[str, str], int | None]) -> dict[tuple[str, str], np.ndarray]:
    """The valid objects of each (relation, subject) as the sorted columns they hold in a ranking,
    worked out once per group, not once per fact (a group can hold thousands of objects).

    ``column(relation, label)`` is an object's column, or None where it is not ranked (not a single
    allowed id, not a candidate). The fact's own gold stays among its group's columns: it never ranks
    above itself, so it adds nothing to the count of the other valid objects ranked above it. All
    groups up front: arrays kept from inside the batch loop fragmented the heap (RSS 0.75 -> 1.4 GB).
    """
    columns = {}
    for group, labels in valid.items():
        found = {column(group[0], label) for label in labels} - {None}
        columns[group] = np.array(sorted(found), dtype=np.int64)
    return columns


def ranked_above(scores: torch.Tensor, gold_scores: torch.Tensor, gold: torch.Tensor) -> torch.Tensor:
    """Where a score ranks above its row's gold: higher, or tied at a lower position (the lower id,
    as in the top-k list, so a tie for the top is one system's P@1, never shared)."""
    positions = torch.arange(scores.shape[-1], device=scores.device)
    return (scores > gold_scores) | ((scores == gold_scores) & (positions < gold))


def count_true_in_groups(flags: torch.Tensor, row_groups: list, columns: dict) -> list[int]:
    """Per row ``r``, how many of ``flags[r, columns[row_groups[r]]]`` are true (none for a group not
    in ``columns``), on ``flags``' device.

    The batch's groups are read once each: ``flags`` is cut to the union of their columns and each
    row keeps its own group's through a (group x column) membership matrix, so the work is at most
    that of ``flags`` itself however large a group is.
    """
    if not row_groups:
        return []
    groups = list(dict.fromkeys(row_groups))
    union, member = group_membership([columns.get(group, NO_COLUMNS) for group in groups])
    if len(union) == 0:
        return [0] * len(row_groups)
    device = flags.device
    group_of = {group: i for i, group in enumerate(groups)}
    rows = torch.tensor([group_of[group] for group in row_groups], device=device)
    cut = flags.index_select(1, torch.from_numpy(union).to(device))
    # int32: half the time of the default int64 sum of booleans
    return (cut & torch.from_numpy(member).to(device)[rows]).sum(dim=1, dtype=torch.int32).tolist()


def group_membership(in_groups: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The union of the groups' columns, sorted, and which of them each group holds (group x union)."""
    # One group (a batch of one subject's facts) is its own union, already sorted and distinct.
    union = in_groups[0] if len(in_groups) == 1 else np.unique(np.concatenate(in_groups))
    member = np.zeros((len(in_groups), len(union)), dtype=bool)
    member[np.repeat(np.arange(len(in_groups)), [len(c) for c in in_groups]),
           np.searchsorted(union, np.concatenate(in_groups))] = True
    return union, member


def rank_among(scores: np.ndarray, gold: int, others: Sequence[int]) -> dict:
    """The gold's raw rank among ``scores`` and its rank once the ``others`` are removed (ties to the
    lower index, as ``ranked_above``; the gold itself among ``others`` removes nothing)."""
    above = (scores > scores[gold]) | ((scores == scores[gold]) & (np.arange(len(scores)) < gold))
    other_above = int(above[np.asarray(others, dtype=np.intp)].sum())
    raw = int(above.sum()) + 1
    return {"gold_logprob": float(scores[gold]), "rank_raw": raw, "rank_filtered": raw - other_above}


# --- whole-sentence candidate ranking (causal) --------------------------------------------------


def relation_candidates(facts: pd.DataFrame) -> dict[str, list[str]]:
    """The answer space of each relation: the distinct objects of its facts that pass the
    model-independent filters, sorted."""
    passing = facts[facts["in_common_vocab"] & ~facts["too_long"] & ~facts["judgment_rejected"]]
    return {relation: sorted(set(group)) for relation, group in passing.groupby("relation")["obj_label"]}


def _score_candidates(lm: LM, facts: pd.DataFrame, *, method: str, top_k: int, policy: str,
                      progress: bool) -> pd.DataFrame:
    objects = object_ids(lm.tokenizer, facts)
    candidates = {relation: [label for label in labels if not objects[label].is_unk]
                  for relation, labels in relation_candidates(facts).items()}
    records = fact_records(facts)
    reasons = [candidate_skip_reason(fact, objects[fact.obj_label]) for fact in records]
    kept = [i for i, reason in enumerate(reasons) if not reason]
    filled = [[_fill(records[i].query, c) for c in candidates[records[i].relation]] for i in kept]
    scores = candidate_scores(lm, filled, reduction=CANDIDATE_REDUCTIONS[method], causal_policy=policy,
                              progress=progress)
    by_row = dict(zip(kept, scores, strict=True))
    positions = {relation: {label: j for j, label in enumerate(labels)} for relation, labels in candidates.items()}
    groups = group_columns(valid_objects(facts), lambda relation, label: positions.get(relation, {}).get(label))
    rows = []
    for i, (fact, reason) in enumerate(zip(records, reasons)):
        result = None
        if not reason:
            group = groups.get((fact.relation, fact.sub_label), NO_COLUMNS)
            result = _rank_candidates(positions[fact.relation][fact.obj_label], candidates[fact.relation], by_row[i],
                                      group, top_k)
        row = _score_row(lm, method, fact, reason, None, objects[fact.obj_label].n_pieces, result)
        row["n_candidates"] = None if reason else len(candidates[fact.relation])
        rows.append(row)
    return _frame(rows)


def _fill(query: str, candidate: str) -> str:
    return query.replace(MASK, candidate)


def _rank_candidates(gold: int, candidates: list[str], candidate_logliks: list[float], group: Sequence[int],
                     top_k: int) -> dict:
    """The ranks of ``candidates[gold]`` among the scores of ``candidates`` filled into the fact's query
    (in that order); ``group``: the positions of the valid objects of its (relation, subject)."""
    scores = np.array(candidate_logliks)
    top = np.argsort(-scores, kind="stable")[:top_k]
    return {
        **rank_among(scores, gold, group),
        "top_tokens": [candidates[j] for j in top],
        "top_logprobs": scores[top].astype(float).tolist(),
    }


# --- rows ------------------------------------------------------------------------------------


def _score_row(lm: LM, method: str, fact, reason: str, gold: int | None, pieces: int, result: dict | None) -> dict:
    result = result or {}
    return {
        "row_id": fact.row_id,
        "model": lm.name,
        "method": method,
        "kept": not reason,
        "skip_reason": reason,
        "gold_id": gold if gold is not None else -1,
        "gold_pieces": pieces,
        "gold_logprob": result.get("gold_logprob", math.nan),
        "rank_raw": result.get("rank_raw"),
        "rank_filtered": result.get("rank_filtered"),
        "n_candidates": None,
        "top_tokens": result.get("top_tokens", []),
        "top_logprobs": result.get("top_logprobs", []),
    }


def _frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame.from_records(rows, columns=SCORE_SCHEMA.names)

