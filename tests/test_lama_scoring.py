"""LAMA masked scoring and metrics, checked against plain computations."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from transformers import BertTokenizer

from lmprobes.engine.lm import LM
from lmprobes.suites.lama import metrics as M
from lmprobes.suites.lama.scoring import case_for, released_bert_encoding, score_facts

COMMON = ["bird", "fish", "tree", "flower", "tool", "insect", "vehicle", "building", "quickly", "chess", "zebra"]


def facts(rows):
    base = {"corpus": "trex", "too_long": False, "in_common_vocab": True, "judgment_rejected": False, "duplicate": False,
            "n_words": 6, "template": None}
    return pd.DataFrame([{**base, **r} for r in rows])


@pytest.fixture
def sample():
    return facts([
        {"row_id": "a", "relation": "P31", "sub_label": "robin", "obj_label": "bird", "query": "a robin is a [MASK] ."},
        {"row_id": "b", "relation": "P31", "sub_label": "robin", "obj_label": "fish", "query": "a robin is a [MASK] ."},
        {"row_id": "c", "relation": "P31", "sub_label": "oak", "obj_label": "tree", "query": "an oak is a [MASK] ."},
        {"row_id": "d", "relation": "P31", "sub_label": "cat", "obj_label": "quickly", "query": "a cat is [MASK] ."},
        {"row_id": "e", "relation": "P31", "sub_label": "ant", "obj_label": "insect", "query": "an ant is an [MASK] .", "in_common_vocab": False},
        {"row_id": "f", "relation": "P31", "sub_label": "oak", "obj_label": "tree", "query": "an oak is a [MASK] .", "duplicate": True},
        {"row_id": "g", "relation": "P31", "sub_label": "car", "obj_label": "vehicle", "query": "a car is a [MASK] .", "too_long": True},
        {"row_id": "h", "relation": "P31", "sub_label": "rose", "obj_label": "flower", "query": "a rose is a [MASK] .", "judgment_rejected": True},
        {"row_id": "i", "relation": "P31", "sub_label": "owl", "obj_label": "quickly", "query": "an owl is [MASK] .", "in_common_vocab": False},
    ])


def naive_common_logprobs(lm, text):
    tok = lm.tokenizer
    enc = tok(text.replace("[MASK]", tok.mask_token), return_tensors="pt")
    with torch.no_grad():
        logits = lm.model(**enc).logits[0]
    position = enc["input_ids"][0].tolist().index(tok.mask_token_id)
    full = logits[position].log_softmax(-1)
    vocab = tok.get_vocab()
    return {w: full[vocab[w]].item() for w in COMMON if w in vocab}


def test_ranks_equal_a_plain_computation(tiny_bert, sample):
    scores = score_facts(tiny_bert, sample, COMMON, progress=False).set_index("row_id")
    assert scores.loc[list("abc"), "kept"].all()
    for row_id, gold in (("a", "bird"), ("b", "fish"), ("c", "tree")):
        logprobs = naive_common_logprobs(tiny_bert, sample.set_index("row_id").loc[row_id, "query"])
        rank = 1 + sum(v > logprobs[gold] for v in logprobs.values())
        assert scores.loc[row_id, "rank_raw"] == rank
        assert scores.loc[row_id, "gold_logprob"] == pytest.approx(logprobs[gold], abs=1e-5)
        ordered = sorted(logprobs, key=logprobs.get, reverse=True)
        assert list(scores.loc[row_id, "top_tokens"]) == ordered[:10]
    # a and b share (relation, subject): each one's filtered rank ignores the other if above it.
    for row_id, gold, other in (("a", "bird", "fish"), ("b", "fish", "bird")):
        logprobs = naive_common_logprobs(tiny_bert, "a robin is a [MASK] .")
        other_above = logprobs[other] > logprobs[gold]
        assert scores.loc[row_id, "rank_filtered"] == scores.loc[row_id, "rank_raw"] - other_above


def test_skip_reasons_in_the_released_order(tiny_bert, sample):
    scores = score_facts(tiny_bert, sample, COMMON, progress=False).set_index("row_id")
    assert scores.loc["d", "skip_reason"] == "not_single_token" and scores.loc["d", "gold_pieces"] > 1
    assert scores.loc["e", "skip_reason"] == "not_in_common_vocab"
    assert scores.loc["f", "skip_reason"] == "duplicate"
    assert scores.loc["g", "skip_reason"] == "too_long"
    assert scores.loc["h", "skip_reason"] == "judgment_rejected"
    # Outside the common vocabulary and several pieces: the vocabulary check comes first.
    assert scores.loc["i", "skip_reason"] == "not_in_common_vocab" and scores.loc["i", "gold_pieces"] > 1
    assert scores.loc[list("defghi"), "rank_raw"].isna().all()
    assert math.isnan(scores.loc["d", "gold_logprob"])


@pytest.mark.parametrize(("model", "method"), [("tiny_bert", "masked"), ("tiny_gpt2", "candidates")])
def test_a_fact_failing_several_filters_is_skipped_for_the_first_in_the_released_order(model, method, request):
    """Too long before outside the common vocabulary, as the dataset's ``filter_counts`` attributes it,
    so a system's skip reasons add up with the dataset's filter counts."""
    both = facts([{"row_id": "a", "relation": "P31", "sub_label": "robin", "obj_label": "bird",
                   "query": "a robin is a [MASK] .", "too_long": True, "in_common_vocab": False}])
    scores = score_facts(request.getfixturevalue(model), both, COMMON, method=method, progress=False)
    assert scores["skip_reason"].tolist() == ["too_long"]


@pytest.mark.parametrize(("model", "method"), [("tiny_bert", "masked"), ("tiny_gpt2", "left_context")])
def test_an_object_outside_the_common_vocabulary_given_is_skipped_whatever_the_datasets_flag(model, method, request):
    """The ranking runs over the common vocabulary passed in: a gold outside it is skipped, not ranked."""
    rows = facts([{"row_id": "a", "relation": "P31", "sub_label": "robin", "obj_label": "bird", "query": "a robin is a [MASK] ."},
                  {"row_id": "b", "relation": "P31", "sub_label": "oak", "obj_label": "tree", "query": "an oak is a [MASK] ."}])
    scores = score_facts(request.getfixturevalue(model), rows, [w for w in COMMON if w != "tree"], method=method,
                         progress=False).set_index("row_id")
    assert scores.loc["a", "kept"] and scores.loc["b", "skip_reason"] == "not_in_common_vocab"
    assert pd.isna(scores.loc["b", "rank_raw"])


def test_methods_need_the_right_family(tiny_gpt2, tiny_bert, sample):
    with pytest.raises(ValueError, match="'tiny-gpt2' is a causal LM; LAMA's 'masked' method needs a masked LM"):
        score_facts(tiny_gpt2, sample, COMMON, method="masked", progress=False)
    with pytest.raises(ValueError, match="'tiny-bert' is a masked LM; LAMA's 'candidates' method needs a causal LM"):
        score_facts(tiny_bert, sample, COMMON, method="candidates", progress=False)


def plain_causal_logprobs(lm, ids):
    """log p(ids[i+1] | ids[:i+1]) for every i, from one unbatched forward pass."""
    with torch.no_grad():
        logits = lm.model(torch.tensor([ids])).logits[0]
    return logits.log_softmax(-1)


def test_left_context_equals_a_plain_next_token_computation(tiny_gpt2, sample):
    """LAMA's left-to-right connector: BOS + the stripped text left of the mask, ``Ġword`` ids."""
    scores = score_facts(tiny_gpt2, sample, COMMON, method="left_context", progress=False).set_index("row_id")
    tok = tiny_gpt2.tokenizer
    common = {w: tok.convert_tokens_to_ids("Ġ" + w) for w in COMMON if "Ġ" + w in tok.get_vocab()}
    assert scores.loc["a", "method"] == "left_context"
    for row_id, context, gold in (("a", "a robin is a", "bird"), ("c", "an oak is a", "tree")):
        ids = [tok.bos_token_id] + tok.encode(context)
        row = plain_causal_logprobs(tiny_gpt2, ids)[-1]
        values = {w: row[i].item() for w, i in common.items()}
        assert scores.loc[row_id, "gold_id"] == common[gold]
        assert scores.loc[row_id, "gold_logprob"] == pytest.approx(values[gold], abs=1e-5)
        assert scores.loc[row_id, "rank_raw"] == 1 + sum(v > values[gold] for v in values.values())
        assert list(scores.loc[row_id, "top_tokens"]) == sorted(values, key=values.get, reverse=True)[:10]


def test_a_query_opening_with_the_mask_is_predicted_from_bos_among_space_led_forms_as_released():
    """Predicted from BOS alone, as the released connectors predict it from their EOS. The released
    GPT-2 connector names only ``Ġ`` pieces as words (its ``get_id`` encodes ``"a " + label``), so
    ``released`` ranks ``Ġtree`` there and keeps a fact whose ``Ġ`` form is one piece (``Ġalready``;
    not ``Trivia``, whose sentence-initial form alone is); ``huggingface`` ranks what GPT-2 writes
    right after ``<|endoftext|>`` (``tree``). GPT-2's real BPE, a tiny random body."""
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2Tokenizer

    from lmprobes.suites.lama.scoring import applied_tokenization

    tok = GPT2Tokenizer.from_pretrained(Path(__file__).parent / "data" / "gpt2", local_files_only=True)
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(tok), n_embd=16, n_layer=1, n_head=2)).eval()
    lm = LM(name="tiny-real-bpe", model=model, tokenizer=tok, family="causal")
    rows = [{"row_id": "x", "relation": "P1", "sub_label": "oak", "obj_label": "tree", "query": "[MASK] is what an oak is ."},
            {"row_id": "y", "relation": "P1", "sub_label": "robin", "obj_label": "bird", "query": "a robin is a [MASK] ."},
            {"row_id": "a", "relation": "P1", "sub_label": "oak", "obj_label": "already", "query": "[MASK] an oak ."},
            {"row_id": "t", "relation": "P1", "sub_label": "oak", "obj_label": "Trivia", "query": "[MASK] on oaks ."}]
    common = [*COMMON, "already", "Trivia"]
    vocab = tok.get_vocab()
    assert {"Ġalready", "Trivia"} <= set(vocab) and not {"already", "ĠTrivia"} & set(vocab)
    row = plain_causal_logprobs(lm, [tok.bos_token_id])[-1]
    for tokenization, spell, single in (("released", "Ġ{}", "already"), ("huggingface", "{}", "Trivia")):
        scores = score_facts(lm, facts(rows), common, method="left_context", tokenization=tokenization,
                             progress=False).set_index("row_id")
        forms = {w: vocab[spell.format(w)] for w in common if spell.format(w) in vocab}
        values = {w: row[i].item() for w, i in forms.items()}
        assert len(forms) > 5 and applied_tokenization(lm, tokenization) == tokenization
        assert scores.loc["x", "kept"] and scores.loc["x", "gold_id"] == forms["tree"], tokenization
        assert scores.loc["x", "gold_logprob"] == pytest.approx(values["tree"], abs=1e-5)
        assert scores.loc["x", "rank_raw"] == 1 + sum(v > values["tree"] for v in values.values())
        assert list(scores.loc["x", "top_tokens"]) == sorted(values, key=values.get, reverse=True)[:10]
        assert scores.loc["y", "kept"] and scores.loc["y", "gold_id"] == vocab["Ġbird"], "running text keeps Ġ forms"
        kept, split = ("a", "t") if single == "already" else ("t", "a")
        assert scores.loc[kept, "kept"] and scores.loc[kept, "gold_id"] == forms[single], tokenization
        assert scores.loc[split, "skip_reason"] == "not_single_token", tokenization
    assert vocab["tree"] != vocab["Ġtree"]


def test_candidates_rank_whole_sentences_by_plain_log_likelihood(tiny_gpt2):
    """Each candidate of the relation fills the query; the sentence score is the plain sum of
    token log-probs after BOS; multi-token objects (``quickly``) take part."""
    rows = [
        {"row_id": "a", "relation": "P31", "sub_label": "robin", "obj_label": "bird", "query": "a robin is a [MASK] ."},
        {"row_id": "b", "relation": "P31", "sub_label": "robin", "obj_label": "fish", "query": "a robin is a [MASK] ."},
        {"row_id": "c", "relation": "P31", "sub_label": "cat", "obj_label": "quickly", "query": "a cat is [MASK] ."},
        {"row_id": "d", "relation": "P31", "sub_label": "ant", "obj_label": "zebra", "query": "an ant is a [MASK] .", "in_common_vocab": False},
        {"row_id": "e", "relation": "P2", "sub_label": "oak", "obj_label": "tree", "query": "an oak is a [MASK] ."},
        {"row_id": "f", "relation": "P2", "sub_label": "rose", "obj_label": "flower", "query": "a rose is a [MASK] ."},
    ]
    scores = score_facts(tiny_gpt2, facts(rows), COMMON, method="candidates", progress=False).set_index("row_id")
    tok = tiny_gpt2.tokenizer

    def sentence_score(text):
        ids = [tok.bos_token_id] + tok.encode(text)
        logprobs = plain_causal_logprobs(tiny_gpt2, ids)
        return sum(logprobs[i, ids[i + 1]].item() for i in range(len(ids) - 1))

    candidates = {"P31": ["bird", "fish", "quickly"], "P2": ["flower", "tree"]}  # zebra is filtered out
    for fact in rows:
        if fact["row_id"] == "d":
            continue
        values = {c: sentence_score(fact["query"].replace("[MASK]", c)) for c in candidates[fact["relation"]]}
        gold = values[fact["obj_label"]]
        got = scores.loc[fact["row_id"]]
        assert got["n_candidates"] == len(values)
        assert got["gold_logprob"] == pytest.approx(gold, abs=1e-4)
        assert got["rank_raw"] == 1 + sum(v > gold for v in values.values())
        assert list(got["top_tokens"]) == sorted(values, key=values.get, reverse=True)
    assert scores.loc["d", "skip_reason"] == "not_in_common_vocab"
    # robin has two valid objects: each one's filtered rank ignores the other.
    for row_id, other in (("a", "fish"), ("b", "bird")):
        own = scores.loc[row_id, "gold_logprob"]
        other_score = scores.loc["b" if row_id == "a" else "a", "gold_logprob"]
        assert scores.loc[row_id, "rank_filtered"] == scores.loc[row_id, "rank_raw"] - (other_score > own)


def test_a_roberta_query_opening_with_the_mask_ranks_space_led_forms_as_released_or_initial_ones():
    """The released RoBERTa connector ranks ``Ġword`` everywhere; ``huggingface`` ranks what the
    tokenizer writes right after ``<s>`` (``word``). A tiny RoBERTa over GPT-2's real BPE."""
    import json

    from model_zoo import random_model
    from tokenizers import AddedToken
    from transformers import RobertaTokenizer

    data = Path(__file__).parent / "data" / "gpt2"
    vocab = {piece: i + 4 for piece, i in json.loads((data / "vocab.json").read_text(encoding="utf-8")).items()}
    vocab.update({special: i for i, special in enumerate(["<s>", "<pad>", "</s>", "<unk>"])}, **{"<mask>": len(vocab) + 4})
    merges = [tuple(line.split()) for line in (data / "merges.txt").read_text(encoding="utf-8").splitlines()[1:] if line.strip()]
    tok = RobertaTokenizer(vocab=vocab, merges=merges, mask_token=AddedToken("<mask>", lstrip=True, normalized=False, special=True))
    lm = LM(name="tiny-roberta-bpe", model=random_model("roberta", tok, "masked"), tokenizer=tok, family="masked")
    rows = [{"row_id": "x", "relation": "IsA", "sub_label": "oak", "obj_label": "tree", "query": "[MASK] is what an oak is ."},
            {"row_id": "y", "relation": "IsA", "sub_label": "robin", "obj_label": "bird", "query": "a robin is a [MASK] ."}]
    encoded = tok(rows[0]["query"].replace("[MASK]", tok.mask_token), return_tensors="pt")
    assert encoded["input_ids"][0, 1] == tok.mask_token_id
    with torch.no_grad():
        full = lm.model(**encoded).logits[0, 1].log_softmax(-1)
    for tokenization, spell in (("released", "Ġ{}"), ("huggingface", "{}")):
        scores = score_facts(lm, facts(rows), COMMON, tokenization=tokenization, progress=False).set_index("row_id")
        forms = {w: vocab[spell.format(w)] for w in COMMON if spell.format(w) in vocab}
        values = {w: full[i].item() for w, i in forms.items()}
        assert scores.loc["x", "gold_id"] == vocab[spell.format("tree")], tokenization
        assert scores.loc["x", "rank_raw"] == 1 + sum(v > values["tree"] for v in values.values())
        assert list(scores.loc["x", "top_tokens"]) == sorted(values, key=values.get, reverse=True)[:10]
        assert scores.loc["y", "gold_id"] == vocab["Ġbird"], "running text keeps Ġ forms in both"
    assert vocab["tree"] != vocab["Ġtree"]


def test_candidates_never_rank_an_object_spelled_with_the_unknown_token():
    """A Unigram tokenizer with ``<unk>`` spells ``Zzyzx`` and ``Qwerty`` with it: their facts are
    skipped as ``unknown_token`` and neither is another fact's candidate."""
    from model_zoo import random_model
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    pieces = ["<unk>", "<eos>", "▁Bob", "▁Ann", "▁was", "▁born", "▁in", "▁Paris", "▁London", "▁.", "▁", *"abcdefghijklmnopqrstuvwxyz"]
    raw = Tokenizer(models.Unigram([(piece, -1.0) for piece in pieces], unk_id=0))
    raw.pre_tokenizer, raw.decoder = pre_tokenizers.Metaspace(), decoders.Metaspace()
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, unk_token="<unk>", bos_token="<eos>", eos_token="<eos>", pad_token="<eos>")
    lm = LM(name="tiny-unigram", model=random_model("gpt2", tok, "causal"), tokenizer=tok, family="causal")
    rows = [{"row_id": str(i), "relation": "P19", "sub_label": sub, "obj_label": obj, "query": f"{sub} was born in [MASK] ."}
            for i, (sub, obj) in enumerate([("Bob", "Zzyzx"), ("Ann", "Paris"), ("Bob", "London"), ("Ann", "Qwerty")])]
    scores = score_facts(lm, facts(rows), ["Paris", "London", "Zzyzx", "Qwerty"], method="candidates",
                         progress=False).set_index("row_id")
    assert list(scores["skip_reason"]) == ["unknown_token", "", "", "unknown_token"]
    assert list(scores.loc[["1", "2"], "n_candidates"]) == [2, 2]
    assert {tuple(sorted(top)) for top in scores.loc[["1", "2"], "top_tokens"]} == {("London", "Paris")}
    assert scores.loc["0", "gold_pieces"] > 0 and math.isnan(scores.loc["0", "gold_logprob"])


def test_valid_objects_column_counts_for_the_filtered_rank(tiny_bert):
    """Objects listed by the source (Wikidata) but absent from the dataset still filter."""
    query = "a robin is a [MASK] ."
    plain = naive_common_logprobs(tiny_bert, query)
    gold = min(plain, key=plain.get)  # the lowest-scoring common word, so every other one is above
    fact = {"row_id": "a", "relation": "P31", "sub_label": "robin", "obj_label": gold, "query": query,
            "valid_objects": sorted(set(plain) - {gold})[:3]}
    scores = score_facts(tiny_bert, facts([fact]), COMMON, progress=False)
    assert scores["rank_raw"].item() == len(plain)
    assert scores["rank_filtered"].item() == len(plain) - 3


def test_precision_at_k_and_reciprocal_rank_on_hand_made_ranks():
    ranks = pd.Series([1, 2, 11, None, 10000, 10001], dtype="Int32")
    assert M.precision_at(ranks, 1).tolist() == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert M.precision_at(ranks, 10).tolist() == [1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    # The released run ranks the top 10,000 (get_ranking(..., topk=10000)): beyond, 0.
    assert M.reciprocal_rank(ranks).tolist() == pytest.approx([1.0, 0.5, 1 / 11, 0.0, 1 / 10000, 0.0])


def test_uncased_models_are_scored_in_the_released_lowercase_mode(tiny_bert, tiny_gpt2):
    assert case_for(tiny_bert.tokenizer, "auto") == "lowercase", "the tiny BERT lowercases its input"
    assert case_for(tiny_gpt2.tokenizer, "auto") == "cased"
    assert case_for(tiny_bert.tokenizer, "cased") == "cased"
    unknown = BertTokenizer(vocab={t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a"])})
    assert case_for(unknown, "auto") == "cased", "an all-[UNK] probe is no evidence of lowercasing"
    capitalised = facts([
        {"row_id": "a", "relation": "P31", "sub_label": "Robin", "obj_label": "Bird", "query": "A Robin is a [MASK] ."},
        {"row_id": "b", "relation": "P31", "sub_label": "robin", "obj_label": "bird", "query": "a robin is a [MASK] ."},
    ])
    cased = score_facts(tiny_bert, capitalised, COMMON + ["Bird"], progress=False).set_index("row_id")
    assert cased.loc["a", "skip_reason"] == "not_single_token", "the piece 'bird' does not spell 'Bird'"
    lower = score_facts(tiny_bert, capitalised, COMMON, case="lowercase", progress=False).set_index("row_id")
    assert lower.loc["a", "kept"] and lower.loc["b", "skip_reason"] == "duplicate"
    plain = naive_common_logprobs(tiny_bert, "a robin is a [MASK] .")
    assert lower.loc["a", "rank_raw"] == 1 + sum(v > plain["bird"] for v in plain.values())
    assert lower.loc["a", "gold_logprob"] == pytest.approx(plain["bird"], abs=1e-5)
    with pytest.raises(ValueError, match="case option 'upper'"):
        case_for(tiny_bert.tokenizer, "upper")


def test_masked_queries_are_tokenized_as_the_released_bert_connector(tiny_bert):
    """The word holding the mask: the mask, then the rest of the word as one WordPiece word."""
    tok = tiny_bert.tokenizer
    texts = ["a robin (is [MASK]).", "it is [MASK]'s bird .", "a [MASK]) is a [MASK]'s ."]
    released = released_bert_encoding(tok, texts)

    def wordpiece(word):  # the WordPiece algorithm by hand: longest vocabulary prefix, then ## pieces
        vocab, out, start = tok.get_vocab(), [], 0
        while start < len(word):
            end = len(word)
            while end > start and (("##" if start else "") + word[start:end]) not in vocab:
                end -= 1
            if end == start:
                return [tok.unk_token_id]
            out.append(vocab[("##" if start else "") + word[start:end]])
            start = end
        return out

    plain = lambda text: tok(text, add_special_tokens=False)["input_ids"]
    assert released[0] == [tok.cls_token_id, *plain("a robin (is"), tok.mask_token_id, *wordpiece(")."), tok.sep_token_id]
    assert released[1] == [tok.cls_token_id, *plain("it is"), tok.mask_token_id, *wordpiece("'s"), *plain("bird ."),
                           tok.sep_token_id]
    # Every word holding the mask, as the released tokenizer treats each.
    assert released[2] == [tok.cls_token_id, *plain("a"), tok.mask_token_id, *wordpiece(")"), *plain("is a"),
                           tok.mask_token_id, *wordpiece("'s"), *plain("."), tok.sep_token_id]
    assert released[0] != tok(texts[0])["input_ids"], "the tokenizer alone splits ')' and '.'"
    rows = facts([{"row_id": "a", "relation": "P31", "sub_label": "robin", "obj_label": "bird", "query": "a robin (is [MASK])."}])
    got = score_facts(tiny_bert, rows, COMMON, progress=False)
    hf = score_facts(tiny_bert, rows, COMMON, tokenization="huggingface", progress=False)
    with torch.no_grad():
        logits = tiny_bert.model(torch.tensor([released[0]])).logits[0]
    full = logits[released[0].index(tok.mask_token_id)].log_softmax(-1)
    assert got["gold_logprob"].item() == pytest.approx(full[tok.convert_tokens_to_ids("bird")].item(), abs=1e-5)
    assert got["gold_logprob"].item() != pytest.approx(hf["gold_logprob"].item(), abs=1e-6)
    with pytest.raises(ValueError, match="tokenization 'spacy'"):
        score_facts(tiny_bert, rows, COMMON, tokenization="spacy", progress=False)


def test_squad_candidates_rank_without_a_subject(tiny_gpt2):
    """SQuAD's facts share the placeholder subject "Squad", so they are nobody's valid objects."""
    rows = facts([{"row_id": r, "corpus": "squad", "relation": "squad", "sub_label": "Squad", "obj_label": o,
                   "query": "the [MASK] is here ."} for r, o in (("a", "bird"), ("b", "tree"))])
    scores = score_facts(tiny_gpt2, rows, COMMON, method="candidates", progress=False)
    assert scores["kept"].all()
    assert scores["rank_filtered"].tolist() == scores["rank_raw"].tolist()


def test_a_tie_goes_to_the_lower_id_as_the_top_k_list_shows_it():
    from types import SimpleNamespace

    from lmprobes.suites.lama.scoring import TokenRanker, rank_among

    pieces = {10: "Paris", 20: "London", 30: "Rome", 40: "Berlin"}
    ranker = TokenRanker(pieces, valid={("P1", "x"): {"London", "Berlin"}},
                         gold_ids={"Paris": 10, "London": 20, "Rome": 30, "Berlin": 40}, top_k=3)
    logprobs = torch.full((2, 50), -20.0)
    logprobs[:, [10, 20, 30, 40]] = torch.tensor([[-1.0, -1.0, -3.0, -1.0], [-2.0, -1.0, -1.0, -1.0]])
    fact = [SimpleNamespace(relation="P1", sub_label="x", obj_label=label) for label in ("London", "Rome")]
    tied_top, tied_all = ranker.rank(logprobs, fact)
    # London ties Paris (lower id) and Berlin (higher id) for the top: Paris is the top-1, London second.
    assert tied_top["top_tokens"] == ["Paris", "London", "Berlin"]
    assert (tied_top["rank_raw"], tied_top["rank_filtered"]) == (2, 2)  # Berlin is valid but ranks below
    # Rome ties London and Berlin: London (lower id) ranks above it and is filtered out, Berlin does not.
    assert (tied_all["rank_raw"], tied_all["rank_filtered"]) == (2, 1)
    # Candidates (sorted) follow the same rule.
    scores = [-1.0, -1.0, -3.0, -1.0]
    assert [rank_among(np.array(scores), gold, [])["rank_raw"] for gold in range(4)] == [1, 2, 4, 3]
    assert rank_among(np.array(scores), 3, [0])["rank_filtered"] == 2


def test_a_sentence_with_two_masks_is_scored_at_the_first_as_the_released_code(tiny_bert):
    two = facts([{"row_id": "t", "corpus": "conceptnet", "relation": "IsA", "sub_label": "bird", "obj_label": "bird",
                  "query": "a [MASK] is a [MASK] ."}])
    scores = score_facts(tiny_bert, two, COMMON, progress=False).set_index("row_id")
    logprobs = naive_common_logprobs(tiny_bert, "a [MASK] is a [MASK] .")  # both masks in, the first read
    assert scores.loc["t", "kept"]
    assert scores.loc["t", "gold_logprob"] == pytest.approx(logprobs["bird"], abs=1e-5)
    assert scores.loc["t", "rank_raw"] == 1 + sum(v > logprobs["bird"] for v in logprobs.values())


def test_left_context_reads_the_text_left_of_the_first_of_two_masks(tiny_gpt2):
    two = facts([{"row_id": "t", "corpus": "conceptnet", "relation": "IsA", "sub_label": "bird", "obj_label": "bird",
                  "query": "a [MASK] is a [MASK] ."}])
    scores = score_facts(tiny_gpt2, two, COMMON, method="left_context", progress=False).set_index("row_id")
    tok = tiny_gpt2.tokenizer
    row = plain_causal_logprobs(tiny_gpt2, [tok.bos_token_id] + tok.encode("a"))[-1]
    assert scores.loc["t", "gold_logprob"] == pytest.approx(row[tok.convert_tokens_to_ids("Ġbird")].item(), abs=1e-5)


def test_count_true_in_groups_counts_each_rows_own_groups_columns():
    from lmprobes.suites.lama.scoring import count_true_in_groups, group_columns

    flags = torch.tensor([[True, False, True, True], [False, False, True, False], [True, True, True, True]])
    valid = {("P", "a"): {3, 0, 1}, ("P", "b"): set(), ("P", "c"): {2, None}}
    groups = group_columns(valid, lambda relation, label: label)
    assert {group: list(columns) for group, columns in groups.items()} == {("P", "a"): [0, 1, 3], ("P", "b"): [],
                                                                            ("P", "c"): [2]}
    assert count_true_in_groups(flags, [("P", "a"), ("P", "b"), ("P", "c")], groups) == [2, 0, 1]
    assert count_true_in_groups(flags, [("P", "c"), ("P", "a"), ("P", "a")], groups) == [1, 0, 3]
    assert count_true_in_groups(flags, [("P", "b"), ("P", "zz"), ("P", "b")], groups) == [0, 0, 0]
    assert count_true_in_groups(flags[:0], [], groups) == []


def test_filtered_rank_equals_a_plain_per_fact_count_with_large_and_shared_groups():
    """TokenRanker against a per-fact count on random rows: one group holding most of the vocabulary,
    small ones, labels outside it (no single id, not allowed), the gold in its own group, tied scores."""
    from types import SimpleNamespace

    from lmprobes.suites.lama.scoring import TokenRanker

    rng = np.random.default_rng(0)
    ids = sorted(rng.choice(np.arange(5, 400), size=120, replace=False).tolist())
    pieces = {token: f"w{token}" for token in ids}
    gold_ids = {f"w{token}": token for token in ids} | {"multi piece": None, "w1": 1}  # w1: an id not allowed
    words = list(pieces.values())
    valid = {("P1", "big"): set(words[:100]) | {"multi piece", "w1"}, ("P1", "small"): set(words[100:103]),
             ("P2", "big"): {words[5]}}
    groups = [("P1", "big")] * 30 + [("P1", "small")] * 3 + [("P2", "big"), ("P2", "none")]
    golds = {group: sorted(valid.get(group, {words[110]}) - {"multi piece", "w1"}) for group in set(groups)}
    facts = [SimpleNamespace(relation=relation, sub_label=subject,
                             obj_label=golds[relation, subject][k % len(golds[relation, subject])])
             for k, (relation, subject) in enumerate(groups)]
    logprobs = torch.tensor(rng.integers(0, 6, size=(len(facts), 400)), dtype=torch.float32)  # many ties
    ranked = TokenRanker(pieces, valid, gold_ids, top_k=3).rank(logprobs, facts)
    for row, (fact, got) in enumerate(zip(facts, ranked)):
        gold = gold_ids[fact.obj_label]
        scores = logprobs[row].tolist()
        above = {t for t in ids if (scores[t], -t) > (scores[gold], -gold)}
        others = {gold_ids[o] for o in valid.get((fact.relation, fact.sub_label), set()) - {fact.obj_label}}
        assert got["rank_raw"] == 1 + len(above)
        assert got["rank_filtered"] == 1 + len(above - others)
    assert any(got["rank_filtered"] < got["rank_raw"] - 10 for got in ranked), "the large group filters many"


# --- candidates_mean: the per-token mean reduction (engine.ranking) ---------------------------

MEAN_ROWS = [
    {"row_id": "a", "relation": "P31", "sub_label": "robin", "obj_label": "bird", "query": "a robin is a [MASK] ."},
    {"row_id": "b", "relation": "P31", "sub_label": "robin", "obj_label": "fish", "query": "a robin is a [MASK] ."},
    {"row_id": "c", "relation": "P31", "sub_label": "cat", "obj_label": "quickly", "query": "a cat is [MASK] ."},
    {"row_id": "e", "relation": "P2", "sub_label": "oak", "obj_label": "tree", "query": "an oak is a [MASK] ."},
    {"row_id": "f", "relation": "P2", "sub_label": "rose", "obj_label": "flower", "query": "a rose is a [MASK] ."},
]


def test_candidates_mean_ranks_by_the_plain_per_token_mean(tiny_gpt2):
    """The filled sentence's token log-probs after BOS, averaged: ranks, gold score and top list."""
    tok = tiny_gpt2.tokenizer
    scores = score_facts(tiny_gpt2, facts(MEAN_ROWS), COMMON, method="candidates_mean", progress=False)
    summed = score_facts(tiny_gpt2, facts(MEAN_ROWS), COMMON, method="candidates", progress=False)

    def mean_score(text):
        ids = [tok.bos_token_id] + tok.encode(text)
        logprobs = plain_causal_logprobs(tiny_gpt2, ids)
        return sum(logprobs[i, ids[i + 1]].item() for i in range(len(ids) - 1)) / (len(ids) - 1)

    candidates = {"P31": ["bird", "fish", "quickly"], "P2": ["flower", "tree"]}
    assert set(scores["method"]) == {"candidates_mean"} and scores["kept"].all()
    for fact, got in zip(MEAN_ROWS, scores.itertuples()):
        values = {c: mean_score(fact["query"].replace("[MASK]", c)) for c in candidates[fact["relation"]]}
        gold = values[fact["obj_label"]]
        assert got.gold_logprob == pytest.approx(gold, abs=1e-4)
        assert got.rank_raw == 1 + sum(v > gold for v in values.values())
        assert list(got.top_tokens) == sorted(values, key=values.get, reverse=True)
        assert list(got.top_logprobs) == pytest.approx(sorted(values.values(), reverse=True), abs=1e-4)
    assert (scores["gold_logprob"] > summed["gold_logprob"]).all(), "a mean of negative terms, not their sum"


def test_candidates_mean_is_allowed_but_not_a_default():
    from lmprobes.suites.lama.scoring import CAUSAL_METHODS, methods_for, reduction_of

    assert "candidates_mean" in CAUSAL_METHODS
    assert methods_for("causal") == ("left_context", "candidates")
    assert methods_for("causal", ["candidates_mean"]) == ("candidates_mean",)
    assert [reduction_of(m) for m in ("masked", "left_context", "candidates", "candidates_mean")] == [
        None, None, "sum", "mean"]


def test_score_files_record_each_methods_reduction(tiny_dir, tiny_gpt2, tmp_path):
    from lmprobes.io import read_metadata, read_parquet
    from lmprobes.suites.lama.pipeline import score_datasets

    dataset, vocab, out = tmp_path / "trex.parquet", tmp_path / "common_vocab.txt", tmp_path / "scores.parquet"
    facts(MEAN_ROWS).to_parquet(dataset)
    vocab.write_text("\n".join(COMMON) + "\n", encoding="utf-8")
    methods = ["left_context", "candidates", "candidates_mean"]
    score_datasets([dataset], {"cased": vocab, "lowercase": vocab}, tiny_dir("gpt2"), [out], slug="tiny-gpt2",
                   spec={"family": "causal"}, device="cpu", top_k=3, causal_methods=methods, progress=False)
    metadata = read_metadata(out)
    assert metadata["reductions"] == {"left_context": None, "candidates": "sum", "candidates_mean": "mean"}
    assert metadata["methods"] == methods and metadata["causal_policy"] == "bos"
    got = read_parquet(out)
    expected = score_facts(tiny_gpt2, facts(MEAN_ROWS), COMMON, method="candidates_mean", top_k=3, progress=False)
    mine = got[got["method"] == "candidates_mean"]
    assert mine["rank_raw"].tolist() == expected["rank_raw"].tolist()
    assert mine["gold_logprob"].tolist() == pytest.approx(expected["gold_logprob"].tolist(), abs=1e-5)


def test_candidates_mean_systems_flow_through_table2(tiny_gpt2):
    """A ``name (candidates_mean)`` system beside ``name (candidates)``, each with its own P@1."""
    from lmprobes.suites.lama import tables as T

    dataset = facts(MEAN_ROWS).assign(relation_label="is a", relation_type="N-1")
    scores = pd.concat([score_facts(tiny_gpt2, dataset, COMMON, method=m, progress=False)
                        for m in ("candidates", "candidates_mean")], ignore_index=True)
    tidy = T.table2(T.per_relation(T.scored_facts(dataset, scores)))
    total = tidy[tidy["row"] == "Total"].set_index("system")
    assert set(total.index) == {"tiny-gpt2 (candidates)", "tiny-gpt2 (candidates_mean)"}
    assert total.loc["tiny-gpt2 (candidates_mean)", "method"] == "candidates_mean"
    mean = scores[scores["method"] == "candidates_mean"].assign(relation=[r["relation"] for r in MEAN_ROWS])
    per_relation = mean.groupby("relation")["rank_raw"].apply(lambda ranks: 100.0 * (ranks == 1).mean())
    assert total.loc["tiny-gpt2 (candidates_mean)", "p1"] == pytest.approx(per_relation.mean())
    wide = T.table2_wide(tidy, ["trex"])
    assert {"tiny-gpt2 (candidates)", "tiny-gpt2 (candidates_mean)"} <= set(wide.columns)


def test_relation_candidates_leave_out_the_objects_of_facts_the_filters_drop():
    """The object of a rejected, too long or out-of-vocabulary fact, the object of no other fact, is no
    candidate of its relation."""
    from lmprobes.suites.lama.scoring import relation_candidates

    rows = [
        {"row_id": "a", "relation": "place_of_death", "sub_label": "Ann", "obj_label": "Paris", "query": "Ann died in [MASK] ."},
        {"row_id": "b", "relation": "place_of_death", "sub_label": "Bo", "obj_label": "Rome", "query": "Bo died in [MASK] ."},
        {"row_id": "c", "relation": "place_of_death", "sub_label": "Cy", "obj_label": "Oslo", "query": "Cy died in [MASK] .",
         "judgment_rejected": True},
        {"row_id": "d", "relation": "place_of_birth", "sub_label": "Di", "obj_label": "Lima", "query": "Di was born in [MASK] ."},
        {"row_id": "e", "relation": "place_of_death", "sub_label": "Ed", "obj_label": "Kyiv", "query": "Ed died in [MASK] .",
         "too_long": True},
        {"row_id": "f", "relation": "place_of_death", "sub_label": "Fa", "obj_label": "Baku", "query": "Fa died in [MASK] .",
         "in_common_vocab": False},
    ]
    data = facts(rows)
    expected = {}
    for row in data.to_dict("records"):
        if row["in_common_vocab"] and not row["too_long"] and not row["judgment_rejected"]:
            expected.setdefault(row["relation"], set()).add(row["obj_label"])
    got = relation_candidates(data)
    assert got == {relation: sorted(objects) for relation, objects in expected.items()}
    assert got["place_of_death"] == ["Paris", "Rome"], "no object of a rejected, too long or out-of-vocabulary fact"


def test_candidate_top_list_breaks_ties_to_the_earlier_candidate():
    """Tied candidates keep their candidate order in the top list, the lower-index rule of
    ``ranked_above``/``rank_among``, so each gold's raw rank is its place in that list."""
    from lmprobes.suites.lama.scoring import _rank_candidates

    candidates = ["Berlin", "London", "Oslo", "Paris", "Rome"]
    logliks = [-2.0, -1.0, -2.0, -1.0, -1.0]
    expected = [candidates[j] for j in sorted(range(len(candidates)), key=lambda j: (-logliks[j], j))]
    for gold in candidates:
        got = _rank_candidates(candidates.index(gold), candidates, logliks, [], top_k=len(candidates))
        assert got["top_tokens"] == expected
        assert got["top_logprobs"] == [logliks[candidates.index(c)] for c in expected]
        assert got["rank_raw"] == expected.index(gold) + 1
    assert _rank_candidates(candidates.index("Rome"), candidates, logliks, [], top_k=2)["top_tokens"] == expected[:2]
