"""The LAMA-UHN person-name filter's model part: a masked model's top answers to the name queries
(``uhn.name_queries``), turned into ``uhn.name_hits`` rows."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import pandas as pd
import torch

from lmprobes.engine.lm import LM
from lmprobes.engine.masked import map_mask_logprobs
from lmprobes.engine.runner import top_k_low_id_first
from lmprobes.suites.lama.scoring import case_for, common_vocab_pieces, piece_text
from lmprobes.suites.lama.uhn import TOP_K, VOCABULARIES, name_hits, name_queries, query_text

logger = logging.getLogger("lmprobes.lama")


@dataclass(frozen=True)
class AnswerSpace:
    """The ids the top answers are read among, and the word each spells."""

    ids: list[int]
    words: list[str]

    @classmethod
    def of(cls, tokenizer, vocabulary: str, common_vocab: list[str]) -> AnswerSpace:
        if vocabulary not in VOCABULARIES:
            raise ValueError(f"unknown LAMA-UHN vocabulary {vocabulary!r}; choose one of {VOCABULARIES}")
        if vocabulary == "common":
            pieces = common_vocab_pieces(tokenizer, common_vocab)
            return cls(list(pieces), list(pieces.values()))
        ids = list(range(len(tokenizer)))
        return cls(ids, [piece_text(tokenizer, i) for i in ids])


def name_answers(lm: LM, queries: list[tuple[str, str]], space: AnswerSpace, *, top_k: int = TOP_K,
                 progress: bool = True) -> dict[tuple[str, str], list[str]]:
    """The model's ``top_k`` answers to each ``(kind, part)`` query, best first (ties to the lower id)."""
    if not space.ids:  # nothing to answer with: no fact can be flagged
        logger.warning("%s: no word of the LAMA-UHN answer space is a single token of its vocabulary", lm.name)
        return {query: [] for query in queries}
    texts = [query_text(kind, part, lm.tokenizer.mask_token) for kind, part in queries]
    allowed = torch.tensor(space.ids)

    def top_words(logprobs: torch.Tensor, items: list[int]) -> list[list[str]]:
        chosen = logprobs[:, allowed.to(logprobs.device)]
        return [[space.words[column] for column, _ in top] for top in top_k_low_id_first(chosen, top_k)]

    answers = map_mask_logprobs(lm, texts, top_words, progress=progress)
    return dict(zip(queries, answers, strict=True))


def score_name_hits(lm: LM, facts: pd.DataFrame, common_vocab: list[str], *, vocabulary: str = "full",
                    top_k: int = TOP_K, progress: bool = True) -> pd.DataFrame:
    """``name_hits`` of ``facts``, the answers read from ``lm`` (a masked model)."""
    if lm.family != "masked":
        raise ValueError(f"model {lm.name!r} is a {lm.family} LM; the LAMA-UHN person-name filter needs a masked LM")
    space = AnswerSpace.of(lm.tokenizer, vocabulary, common_vocab)
    answers = name_answers(lm, name_queries(facts), space, top_k=top_k, progress=progress)
    return name_hits(facts, answers, lowercase=case_for(lm.tokenizer, "auto") == "lowercase")
