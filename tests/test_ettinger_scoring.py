"""Ettinger scoring on tiny models, checked against a plain full forward per item."""

import math

import pandas as pd
import pytest
import torch

from lmprobes.suites.ettinger import datasets as D
from lmprobes.suites.ettinger.scoring import ScoringError, score_items


@pytest.fixture(scope="module")
def neg_simp(ettinger_tsvs):
    return D.build_dataset("neg_simp", ettinger_tsvs["neg_simp"])


def naive_distribution(lm, text: str, position: int) -> torch.Tensor:
    enc = lm.tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        logits = lm.model(**enc).logits[0]
    return logits[position].float().log_softmax(-1)


def test_masked_scores_equal_a_plain_forward_at_the_mask(tiny_roberta, neg_simp):
    scores = score_items(tiny_roberta, neg_simp, progress=False)
    tokenizer = tiny_roberta.tokenizer
    for item, score in zip(neg_simp.head(8).itertuples(), scores.head(8).itertuples()):
        text = f"{item.context} <mask> ."
        assert score.input_text == text
        ids = tokenizer(text)["input_ids"]
        logprobs = naive_distribution(tiny_roberta, text, ids.index(tokenizer.mask_token_id))
        target = tokenizer.convert_tokens_to_ids("Ġ" + item.target)
        if target == tokenizer.unk_token_id:
            assert not score.kept
            continue
        assert score.kept and list(score.target_ids) == [target]
        assert score.target_logprob == pytest.approx(logprobs[target].item(), abs=1e-5)
        assert list(score.top_ids) == logprobs.topk(5).indices.tolist()


def test_causal_scores_predict_the_token_after_the_context(tiny_gpt2, neg_simp):
    scores = score_items(tiny_gpt2, neg_simp, progress=False)
    tokenizer = tiny_gpt2.tokenizer
    for item, score in zip(neg_simp.head(8).itertuples(), scores.head(8).itertuples()):
        ids = [tokenizer.bos_token_id] + tokenizer(item.context)["input_ids"]
        with torch.no_grad():
            logprobs = tiny_gpt2.model(torch.tensor([ids])).logits[0, -1].float().log_softmax(-1)
        target = tokenizer.encode(" " + item.target)
        assert list(score.target_ids) == target
        if len(target) == 1:
            assert score.target_logprob == pytest.approx(logprobs[target[0]].item(), abs=1e-5)
        else:
            assert not score.kept and score.skip_reason == f"target_{len(target)}_pieces" and math.isnan(score.target_logprob)


def test_expected_rank_marks_hits_within_top_k(tiny_bert, neg_simp):
    scores = score_items(tiny_bert, neg_simp, top_k=50, progress=False)
    ids = {w: tiny_bert.tokenizer.convert_tokens_to_ids(w) for w in set(neg_simp.target)}
    for item, score in zip(neg_simp.itertuples(), scores.itertuples()):
        expected_id = ids[item.expected[0]]
        top = list(score.top_ids)
        want = top.index(expected_id) + 1 if expected_id in top else None
        assert (None if pd.isna(score.expected_rank) else score.expected_rank) == want


def test_multi_piece_and_unknown_targets_are_kept_false(tiny_bert):
    items = pd.DataFrame({
        "row_id": ["a", "b", "c"],
        "context": ["A robin is a"] * 3,
        "target": ["bird", "quickly", "☃"],
        "expected": [["bird"], ["quickly"], ["☃"]],
    })
    scores = score_items(tiny_bert, items, progress=False).set_index("row_id")
    assert bool(scores.loc["a", "kept"]) and scores.loc["a", "skip_reason"] == ""
    assert not scores.loc["b", "kept"] and scores.loc["b", "skip_reason"].startswith("target_")
    assert scores.loc["c", "skip_reason"] == "target_unk"
    assert scores.loc["a", "expected_scorable"]
    assert not scores.loc["b", "expected_scorable"] and pd.isna(scores.loc["b", "expected_rank"])
    assert not scores.loc["c", "expected_scorable"] and pd.isna(scores.loc["c", "expected_rank"])
    assert [list(scores.loc[r, "expected_unscorable"]) for r in "abc"] == [[], ["quickly"], ["☃"]]


def test_a_multi_piece_expected_word_never_hits_by_its_first_piece(tiny_bert):
    """An expected word of several pieces cannot be a top-k hit, even when its first piece is the top prediction."""
    tokenizer = tiny_bert.tokenizer
    context = "A robin is a"
    text = f"{context} {tokenizer.mask_token} ."
    position = tokenizer(text)["input_ids"].index(tokenizer.mask_token_id)
    top = naive_distribution(tiny_bert, text, position).topk(5).indices.tolist()
    first_piece = tokenizer.convert_ids_to_tokens(top[0])
    assert first_piece.isalpha(), first_piece
    word = first_piece + "zzq"
    pieces = tokenizer(word, add_special_tokens=False)["input_ids"]
    assert len(pieces) > 1 and pieces[0] == top[0], tokenizer.convert_ids_to_tokens(pieces)
    items = pd.DataFrame({"row_id": ["multi", "single"], "context": [context] * 2, "target": ["bird"] * 2,
                          "expected": [[word], [first_piece]]})
    scores = score_items(tiny_bert, items, progress=False).set_index("row_id")
    assert list(scores.loc["multi", "top_ids"]) == list(scores.loc["single", "top_ids"]) == top
    assert pd.isna(scores.loc["multi", "expected_rank"])
    assert not scores.loc["multi", "expected_scorable"] and list(scores.loc["multi", "expected_unscorable"]) == [word]
    assert scores.loc["single", "expected_rank"] == 1 and scores.loc["single", "expected_scorable"]


def test_partly_unscorable_expected_words_are_listed_per_row(tiny_bert):
    items = pd.DataFrame({"row_id": ["a"], "context": ["A robin is a"], "target": ["bird"],
                          "expected": [["bird", "quickly", "☃"]]})
    (row,) = score_items(tiny_bert, items, progress=False).itertuples()
    assert row.expected_scorable and list(row.expected_unscorable) == ["quickly", "☃"]


def test_causal_model_under_masked_only_method_is_refused(tiny_gpt2, neg_simp):
    with pytest.raises(ScoringError, match="'tiny-gpt2' is a causal LM.*masked-only"):
        score_items(tiny_gpt2, neg_simp, method="masked", progress=False)


def test_scores_do_not_depend_on_batch_budget(tiny_bert, neg_simp):
    import dataclasses

    small = score_items(dataclasses.replace(tiny_bert, batch_tokens=16), neg_simp, progress=False)
    large = score_items(dataclasses.replace(tiny_bert, batch_tokens=100_000), neg_simp, progress=False)
    pd.testing.assert_series_equal(small["target_logprob"], large["target_logprob"], atol=1e-5, rtol=0)


def test_causal_multi_piece_targets_can_be_summed_over_their_pieces(tiny_gpt2, tiny_bert):
    """``multi_piece_targets="sum"``: log p(word | BOS context) as the plain sum over its pieces."""
    items = pd.DataFrame({
        "row_id": ["a", "b", "c", "d"],
        "context": ["A robin is a", "A robin is a", "He saw a", "He saw a"],
        "target": ["bird", "xylophonist", "quasicrystal", "tree"],
        "expected": [["bird"], ["bird"], ["tree"], ["tree"]],
    })
    excluded = score_items(tiny_gpt2, items, progress=False)
    summed = score_items(tiny_gpt2, items, multi_piece_targets="sum", progress=False)
    tokenizer = tiny_gpt2.tokenizer
    multi = excluded["target_pieces"].to_numpy() > 1
    assert multi.tolist() == [False, True, True, False] and not excluded.loc[multi, "kept"].any()
    assert summed["kept"].all() and (summed["skip_reason"] == "").all()
    assert summed.loc[~multi, "target_logprob"].tolist() == excluded.loc[~multi, "target_logprob"].tolist()
    for item, score in zip(items.itertuples(), summed.itertuples()):
        ids = [tokenizer.bos_token_id] + tokenizer(item.context)["input_ids"]
        target = tokenizer.encode(" " + item.target)
        with torch.no_grad():
            logprobs = tiny_gpt2.model(torch.tensor([ids + target])).logits[0].float().log_softmax(-1)
        plain = sum(logprobs[len(ids) - 1 + k, piece].item() for k, piece in enumerate(target))
        assert score.target_logprob == pytest.approx(plain, abs=1e-4)
        assert score.target_prob == pytest.approx(math.exp(plain), rel=1e-4)
    # A masked model has one mask for one piece: "sum" leaves its multi-piece targets excluded.
    masked = score_items(tiny_bert, items, multi_piece_targets="sum", progress=False)
    assert masked["kept"].tolist() == (masked["target_pieces"] == 1).tolist() and not masked["kept"].all()
    with pytest.raises(ScoringError, match="multi_piece_targets 'first'"):
        score_items(tiny_gpt2, items, multi_piece_targets="first", progress=False)


def test_top_tokens_mark_byte_level_word_continuations_as_wordpiece_does():
    from pathlib import Path

    from transformers import BertTokenizer, GPT2Tokenizer

    from lmprobes.suites.ettinger.scoring import display_token

    data = Path(__file__).parent / "data"
    gpt2 = GPT2Tokenizer.from_pretrained(data / "gpt2", local_files_only=True)
    shown = {t: display_token(gpt2, gpt2.convert_tokens_to_ids(t), mark_continuations=True)
             for t in ("Ġpl", "pl", "oser", "Ġ1990", "1990", ".", "Ġ.", "<|endoftext|>")}
    assert shown == {"Ġpl": "pl", "pl": "##pl", "oser": "##oser", "Ġ1990": "1990", "1990": "##1990",
                     ".": ".", "Ġ.": ".", "<|endoftext|>": "<|endoftext|>"}
    bert = BertTokenizer.from_pretrained(data / "bert-base-cased", local_files_only=True, do_lower_case=False)
    assert [display_token(bert, bert.convert_tokens_to_ids(t)) for t in ("##ing", "play")] == ["##ing", "play"]


def test_a_whitespace_token_is_shown_as_its_piece_not_as_an_empty_item():
    from pathlib import Path

    from transformers import GPT2Tokenizer

    from lmprobes.suites.ettinger.scoring import display_token

    gpt2 = GPT2Tokenizer.from_pretrained(Path(__file__).parent / "data" / "gpt2", local_files_only=True)
    shown = [display_token(gpt2, gpt2.convert_tokens_to_ids(t), mark_continuations=True) for t in ("Ġ", "Ċ", "ĊĊ", "ĉ")]
    assert shown == ["Ġ", "Ċ", "ĊĊ", "ĉ"]


@pytest.mark.parametrize("fixture", ["tiny_gpt2", "tiny_roberta", "tiny_bert"])
def test_scored_top_tokens_show_which_pieces_start_a_word(fixture, neg_simp, request):
    lm = request.getfixturevalue(fixture)
    scores = score_items(lm, neg_simp.head(12), top_k=10, progress=False)
    tokenizer, marked = lm.tokenizer, 0
    for ids, tokens in zip(scores["top_ids"], scores["top_tokens"]):
        for token_id, shown in zip(ids, tokens):
            piece = tokenizer.convert_ids_to_tokens(int(token_id))
            text = tokenizer.decode([int(token_id)]).strip()
            continues = (fixture != "tiny_bert" and not piece.startswith("Ġ") and text[:1].isalnum()
                         and int(token_id) not in tokenizer.all_special_ids)
            assert shown == ("##" + text if continues else text), (piece, shown)
            marked += continues
    assert marked > 0 or fixture == "tiny_bert"  # the byte-level models' top 10 do hold continuations


@pytest.mark.parametrize(("arch", "family", "method", "recorded"), [
    ("bert", "masked", "auto", "masked"), ("bert", "masked", "masked", "masked"), ("gpt2", "causal", "auto", "auto")])
def test_score_files_record_the_method_the_model_was_scored_with(tiny_dir, ettinger_tsvs, tmp_path, arch, family, method,
                                                                   recorded):
    """Both methods score a masked model masked, so its files are the same whichever was configured (and
    the workflow does not rescore it when the setting changes)."""
    from lmprobes.io import read_metadata
    from lmprobes.suites.ettinger.pipeline import make_dataset, score_datasets

    dataset, out = tmp_path / "neg_simp.parquet", tmp_path / "scores.parquet"
    make_dataset("neg_simp", ettinger_tsvs["neg_simp"], dataset, shuffles=None, seed=None, provenance={})
    score_datasets([dataset], tiny_dir(arch), [out], slug=f"tiny-{arch}", spec={"family": family}, method=method,
                   top_k=5, device="cpu", progress=False)
    assert read_metadata(out)["method"] == recorded
