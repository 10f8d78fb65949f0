"""The ids the suites feed the model and score, on the tokenizer families beyond BERT's, GPT-2's and
RoBERTa's: the SentencePiece masked LMs built by transformers' own classes (ALBERT, lowercasing,
``[MASK]``; XLM-R, ``<mask>``; DeBERTa-v2, ``[MASK]``), whose objects, targets and choices are
``▁word`` pieces and whose mask takes the space before it, and the causal LMs whose tokenizer adds
its BOS (OPT's ``</s>``, Llama-2's ``<s>``), whose sentences are scored from that same BOS."""

from __future__ import annotations

import pandas as pd
import pytest
import torch
from model_zoo import random_model
from test_lama_scoring import facts

from lmprobes.engine import sequence_logprobs
from lmprobes.engine.lm import LM
from lmprobes.suites.ettinger.scoring import score_items
from lmprobes.suites.lama.scoring import case_for, score_facts
from lmprobes.suites.olmpics.zeroshot import score_zero_shot, stem_for_masked
from tokenizer_zoo import MASKED_SENTENCEPIECE, bos_adding_tokenizer, masked_sentencepiece_tokenizer

WORDS = ["bird", "fish", "tree", "water", "house"]


@pytest.fixture(scope="module", params=sorted(MASKED_SENTENCEPIECE))
def masked_lm(request) -> LM:
    tokenizer = masked_sentencepiece_tokenizer(request.param)
    return LM(name=request.param, model=random_model(request.param, tokenizer, "masked"), tokenizer=tokenizer,
              family="masked")


def pieces(lm: LM, ids) -> list[str]:
    return lm.tokenizer.convert_ids_to_tokens([int(i) for i in ids])


def test_lama_ranks_word_start_pieces_at_a_mask_that_takes_its_space(masked_lm):
    query = "a robin is a [MASK] ."
    tokenizer = masked_lm.tokenizer
    encoded = pieces(masked_lm, tokenizer(query.replace("[MASK]", tokenizer.mask_token))["input_ids"])
    assert encoded[encoded.index(tokenizer.mask_token) - 1] == "▁a"
    sample = facts([{"row_id": "a", "relation": "P31", "sub_label": "robin", "obj_label": "bird", "query": query}])
    (row,) = score_facts(masked_lm, sample, WORDS, case=case_for(tokenizer, "auto"), progress=False).itertuples()
    assert row.kept and pieces(masked_lm, [row.gold_id]) == ["▁bird"]
    assert sorted(row.top_tokens) == sorted(WORDS)


def test_ettinger_and_olmpics_score_word_start_pieces(masked_lm):
    items = pd.DataFrame([{"row_id": "1", "context": "A robin is a", "target": "bird", "expected": ["fish"]}])
    (row,) = score_items(masked_lm, items, progress=False).itertuples()
    assert pieces(masked_lm, row.target_ids) == ["▁bird"] and row.kept
    stem = "A robin is a [MASK] ."
    choices = pd.DataFrame([{"row_id": "1", "task": "age_comparison", "flavour": "x", "variant": "x", "split": "dev",
                             "stem": stem, "choices": ["bird", "fish"], "answer": 0}])
    (row,) = score_zero_shot(masked_lm, choices, "mc_mlm", progress=False).itertuples()
    assert pieces(masked_lm, row.candidate_ids) == ["▁bird", "▁fish"]
    encoded = pieces(masked_lm, masked_lm.tokenizer(stem_for_masked(masked_lm, stem))["input_ids"])
    at = encoded.index(masked_lm.tokenizer.mask_token)
    assert encoded[at - 1] == "▁a" and encoded[at + 1].startswith("▁")  # the period after a space, as written


@pytest.mark.parametrize("model_type", ["opt", "llama"])
def test_causal_sentences_start_from_the_bos_the_tokenizer_adds(model_type):
    tokenizer = bos_adding_tokenizer(model_type)
    lm = LM(name=model_type, model=random_model(model_type, tokenizer, "causal"), tokenizer=tokenizer, family="causal")
    text = "The cat sat on the mat."
    (score,) = sequence_logprobs(lm, [text], policy="bos", progress=False)
    ids = tokenizer(text)["input_ids"]  # the tokenizer's own BOS first, once
    assert pieces(lm, ids[:1]) == [{"opt": "</s>", "llama": "<s>"}[model_type]] and score.token_ids == ids[1:]
    with torch.no_grad():
        logprobs = lm.model(input_ids=torch.tensor([ids])).logits[0].log_softmax(-1)
    assert score.total == pytest.approx(sum(logprobs[i, ids[i + 1]].item() for i in range(len(ids) - 1)), abs=1e-4)
