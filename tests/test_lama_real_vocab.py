"""LAMA's single-token filter with bert-base-cased's real WordPiece vocabulary (tests/data, Apache
2.0) around a random-weight BERT: exactly the facts whose object is one WordPiece are kept."""

from pathlib import Path

import pandas as pd
import pytest
import torch
from transformers import BertConfig, BertForMaskedLM, BertTokenizer

from lmprobes.engine.lm import LM
from lmprobes.suites.lama.scoring import score_facts

VOCAB = Path(__file__).parent / "data" / "bert-base-cased" / "vocab.txt"
LABELS = ["Paris", "London", "Saint-Denis", "paris", "Reykjavík", "Ouagadougou", "Zürich", "French", "Alexandra",
          "1941", "linebacker", "Rome", "Antarctica", "Malayalam", "midfielder", "iPod", "Apple", "pope"]


@pytest.fixture(scope="module")
def bert_cased() -> LM:
    words = VOCAB.read_text(encoding="utf-8").splitlines()
    tokenizer = BertTokenizer(vocab={w: i for i, w in enumerate(words)}, do_lower_case=False)
    assert len(tokenizer) == 28996, "the real bert-base-cased vocabulary"
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64)
    return LM(name="random-bert-cased", model=BertForMaskedLM(config).eval(), tokenizer=tokenizer, family="masked")


def test_single_token_filter_keeps_exactly_the_one_wordpiece_objects(bert_cased):
    facts = pd.DataFrame([
        {"row_id": f"f{i}", "corpus": "trex", "relation": "P19", "sub_label": f"Person {i}", "obj_label": label,
         "query": f"Person {i} was born in [MASK] .", "too_long": False, "in_common_vocab": True,
         "judgment_rejected": False, "duplicate": False}
        for i, label in enumerate(LABELS)
    ])
    scores = score_facts(bert_cased, facts, LABELS, progress=False)
    tokenizer = bert_cased.tokenizer
    one_piece = [tokenizer.tokenize(label) == [label] for label in LABELS]
    assert 0 < sum(one_piece) < len(LABELS), "the sample has both kinds"
    assert scores["kept"].tolist() == one_piece
    assert set(scores.loc[~scores["kept"], "skip_reason"]) == {"not_single_token"}
    kept = scores[scores["kept"]]
    assert kept["gold_id"].tolist() == [tokenizer.convert_tokens_to_ids(label) for label, ok in zip(LABELS, one_piece) if ok]
    assert (kept["rank_raw"] <= sum(one_piece)).all(), "ranked among the common-vocabulary ids only"
