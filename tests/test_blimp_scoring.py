"""BLiMP pair scoring against plain, unbatched computations written out here."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
import torch
from test_engine_pll import plain_pll as plain_token_pll

from lmprobes.io import read_parquet, write_parquet
from lmprobes.suites.blimp.accuracy import category_accuracy, overall, paradigm_accuracy
from lmprobes.suites.blimp.dataset import build_blimp
from lmprobes.suites.blimp.methods import ScoringError, decide
from lmprobes.suites.blimp.paradigms import CATEGORIES
from lmprobes.suites.blimp.scoring import SCORE_SCHEMA, method_for, score_pairs

FIXTURES = Path(__file__).parent / "data" / "blimp"
IDENTICAL = ["passive_1:324", "passive_1:810", "principle_A_case_2:105", "principle_A_case_2:287"]
# What each causal preset scores, as spec/BLIMP.md states it: (text prefix, final EOS scored).
PRESETS = {"blimp_paper": ("", True), "lmeval04": (" ", False), "salazar": ("", False)}


@pytest.fixture(scope="module")
def pairs() -> pd.DataFrame:
    return build_blimp(sorted(FIXTURES.glob("*.jsonl")))


def encode(lm, text: str) -> list[int]:
    return lm.tokenizer(text, add_special_tokens=False)["input_ids"]


def plain_terms(lm, ids: list[int], first_scored: int) -> list[float]:
    """``log p(ids[i] | ids[:i])`` for i >= first_scored, from one unbatched forward pass."""
    with torch.no_grad():
        logprobs = torch.log_softmax(lm.model(torch.tensor([ids])).logits[0].float(), dim=-1)
    return [logprobs[i - 1, ids[i]].item() for i in range(first_scored, len(ids))]


def plain_sentence(lm, sentence: str, preset: str) -> tuple[list[int], float]:
    space, eos = PRESETS[preset]
    ids = [lm.tokenizer.bos_token_id] + encode(lm, space + sentence) + ([lm.tokenizer.eos_token_id] if eos else [])
    return ids[1:], math.fsum(plain_terms(lm, ids, 1))


def plain_continuation(lm, prefix: str, word: str) -> tuple[list[int], float]:
    context = [lm.tokenizer.bos_token_id] + encode(lm, prefix)
    word_ids = encode(lm, " " + word)
    return word_ids, math.fsum(plain_terms(lm, context + word_ids, len(context)))


def plain_pll(lm, sentence: str, variant: str) -> float:
    return math.fsum(plain_token_pll(lm, sentence, variant)[1])


@pytest.mark.parametrize("preset", list(PRESETS))
def test_causal_presets_equal_a_plain_sum_of_token_logprobs(tiny_gpt2, pairs, preset) -> None:
    scores = score_pairs(tiny_gpt2, pairs, preset, progress=False)
    assert scores["row_id"].tolist() == pairs["row_id"].tolist()
    assert scores["kept"].all() and (scores["method"] == preset).all()
    for pair, row in zip(pairs.itertuples(), scores.itertuples(), strict=True):
        for side, sentence in (("good", pair.sentence_good), ("bad", pair.sentence_bad)):
            ids, total = plain_sentence(tiny_gpt2, sentence, preset)
            assert getattr(row, f"token_ids_{side}") == ids
            assert getattr(row, f"score_{side}") == pytest.approx(total, abs=1e-4)
            assert getattr(row, f"score_{side}") == pytest.approx(math.fsum(getattr(row, f"token_logprobs_{side}")))


def test_presets_differ_by_leading_space_and_final_eos(tiny_gpt2, pairs) -> None:
    paper, lmeval, salazar = (score_pairs(tiny_gpt2, pairs, p, progress=False) for p in ("blimp_paper", "lmeval04", "salazar"))
    eos = tiny_gpt2.tokenizer.eos_token_id
    rows = zip(paper.itertuples(), lmeval.itertuples(), salazar.itertuples(), pairs["sentence_good"], strict=True)
    for p, lm_eval, s, sentence in rows:
        # blimp_paper = salazar + the EOS term
        assert p.token_ids_good == s.token_ids_good + [eos]
        assert p.token_logprobs_good[:-1] == pytest.approx(s.token_logprobs_good, abs=1e-5)
        assert p.score_good - s.score_good == pytest.approx(p.token_logprobs_good[-1], abs=1e-4)
        # lmeval04 scores " sentence": its first token is the Ġ-spelt word
        assert lm_eval.token_ids_good == encode(tiny_gpt2, " " + sentence) != s.token_ids_good
        assert tiny_gpt2.tokenizer.convert_ids_to_tokens(lm_eval.token_ids_good[0]).startswith("Ġ")
        assert not tiny_gpt2.tokenizer.convert_ids_to_tokens(s.token_ids_good[0]).startswith("Ġ")
        assert lm_eval.score_good != pytest.approx(s.score_good, abs=1e-4)


@pytest.mark.parametrize("method", ["one_prefix", "two_prefix"])
def test_prefix_methods_equal_a_plain_continuation_sum(tiny_gpt2, pairs, method) -> None:
    scores = score_pairs(tiny_gpt2, pairs, method, progress=False)
    applies = pairs[f"{method}_method"]
    assert applies.any() and not applies.all()
    skipped = scores[~applies.to_numpy()]
    assert not skipped["kept"].any() and (skipped["skip_reason"] == f"no_{method}").all()
    assert skipped["score_good"].isna().all() and skipped["correct"].isna().all()
    for pair, row in zip(pairs[applies].itertuples(), scores[applies.to_numpy()].itertuples(), strict=True):
        if method == "one_prefix":
            good = plain_continuation(tiny_gpt2, pair.one_prefix_prefix, pair.one_prefix_word_good)
            bad = plain_continuation(tiny_gpt2, pair.one_prefix_prefix, pair.one_prefix_word_bad)
        else:
            good = plain_continuation(tiny_gpt2, pair.two_prefix_prefix_good, pair.two_prefix_word)
            bad = plain_continuation(tiny_gpt2, pair.two_prefix_prefix_bad, pair.two_prefix_word)
        assert (row.token_ids_good, row.token_ids_bad) == (good[0], bad[0])
        assert row.score_good == pytest.approx(good[1], abs=1e-4)
        assert row.score_bad == pytest.approx(bad[1], abs=1e-4)
        assert row.correct == (row.score_good > row.score_bad)


@pytest.mark.parametrize(("model", "method"), [("tiny_gpt2", "blimp_paper"), ("tiny_bert", "pll_original")])
def test_a_pair_without_the_simple_lm_flag_is_skipped_by_the_whole_sentence_methods(model, method, pairs, request):
    """The release sets ``simple_LM_method`` on every pair; a file that clears it is honoured, as the
    BLiMP team's analysis code scored full sentences only where it is set."""
    lm = request.getfixturevalue(model)
    cleared = pairs.copy()
    cleared.loc[:2, "simple_LM_method"] = False
    scores = score_pairs(lm, cleared, method, progress=False)
    assert scores.loc[:2, "kept"].eq(False).all() and scores.loc[:2, "skip_reason"].eq("no_simple_LM").all()
    assert scores.loc[:2, "score_good"].isna().all() and scores.loc[:2, "correct"].isna().all()
    rest = score_pairs(lm, pairs.iloc[3:].reset_index(drop=True), method, progress=False)
    assert scores.iloc[3:]["score_good"].tolist() == pytest.approx(rest["score_good"].tolist(), abs=1e-5)
    assert scores.iloc[3:]["kept"].all()


def test_two_prefix_joint_is_the_bos_started_log_prob_of_prefix_and_word(tiny_gpt2, pairs) -> None:
    """``two_prefix_joint`` scores ``prefix word`` from BOS, every token (the team's Figure 6 analysis code):
    the sum of one plain forward, the same as ``sequence_logprobs`` of that text, the tokens of the prefix
    followed by those ``two_prefix`` scores, and ``two_prefix``'s score plus log p(prefix | BOS)."""
    from lmprobes.engine import sequence_logprobs

    joint = score_pairs(tiny_gpt2, pairs, "two_prefix_joint", progress=False)
    conditional = score_pairs(tiny_gpt2, pairs, "two_prefix", progress=False)
    applies = pairs["two_prefix_method"].to_numpy()
    assert applies.any() and not applies.all()
    assert joint["kept"].tolist() == conditional["kept"].tolist() == applies.tolist()
    assert (joint.loc[~applies, "skip_reason"] == "no_two_prefix").all() and joint.loc[~applies, "correct"].isna().all()
    bos = tiny_gpt2.tokenizer.bos_token_id
    rows = zip(pairs[applies].itertuples(), joint[applies].itertuples(), conditional[applies].itertuples(), strict=True)
    for pair, row, cond in rows:
        for side, prefix in (("good", pair.two_prefix_prefix_good), ("bad", pair.two_prefix_prefix_bad)):
            text = prefix + " " + pair.two_prefix_word
            ids = [bos] + encode(tiny_gpt2, text)
            plain = math.fsum(plain_terms(tiny_gpt2, ids, 1))
            assert getattr(row, f"token_ids_{side}") == ids[1:] == encode(tiny_gpt2, prefix) + getattr(cond, f"token_ids_{side}")
            assert getattr(row, f"score_{side}") == pytest.approx(plain, abs=1e-4)
            assert getattr(row, f"score_{side}") == pytest.approx(sequence_logprobs(tiny_gpt2, [text], policy="bos", progress=False)[0].total, abs=1e-4)
            prefix_alone = math.fsum(plain_terms(tiny_gpt2, [bos] + encode(tiny_gpt2, prefix), 1))
            assert getattr(row, f"score_{side}") == pytest.approx(getattr(cond, f"score_{side}") + prefix_alone, abs=1e-4)
        assert row.correct == (row.score_good > row.score_bad)


def test_two_prefix_joint_is_a_method_of_its_own_with_a_mean_twin(tiny_gpt2, pairs) -> None:
    """Scored with ``two_prefix`` through one cache, it neither reuses nor lends token scores; its ``_mean``
    twin divides its token log-probs; an identical pair's tie counts as wrong."""
    alone = score_pairs(tiny_gpt2, pairs, "two_prefix_joint", progress=False)
    shared: dict = {}
    conditional = score_pairs(tiny_gpt2, pairs, "two_prefix", progress=False, cache=shared)
    joint = score_pairs(tiny_gpt2, pairs, "two_prefix_joint", progress=False, cache=shared)
    mean = score_pairs(tiny_gpt2, pairs, "two_prefix_joint_mean", progress=False, cache=shared)
    pd.testing.assert_frame_equal(joint, alone)
    assert (joint["method"] == "two_prefix_joint").all() and (mean["method"] == "two_prefix_joint_mean").all()
    kept = joint["kept"].to_numpy()
    assert (joint.loc[kept, "score_good"] != conditional.loc[kept, "score_good"]).all()
    assert mean.loc[kept, "score_good"].tolist() == pytest.approx(
        [math.fsum(lp) / len(lp) for lp in joint.loc[kept, "token_logprobs_good"]], rel=1e-12)
    assert method_for(tiny_gpt2, "two_prefix_joint").tie == "wrong"
    same = pairs.assign(two_prefix_prefix_bad=pairs["two_prefix_prefix_good"])
    tied = score_pairs(tiny_gpt2, same, "two_prefix_joint", progress=False)
    assert tied["tie"][kept].all() and not tied["correct"][kept].any()


@pytest.mark.parametrize("name", ["gpt2", "gemma_style", "unigram_metaspace"])
def test_two_prefix_joint_spells_prefix_and_word_as_two_prefix_does(name, pairs) -> None:
    """The joint text ``prefix word`` encodes to two_prefix's context then continuation, under GPT-2's real
    BPE and SentencePiece-style tokenizers that prepend ``▁`` (Unigram with a Metaspace) or do not (Gemma).
    (A tokenizer whose pieces span a space would differ: the joint scores the text as it tokenizes.)"""
    from types import SimpleNamespace

    from transformers import GPT2Tokenizer

    from lmprobes.suites.blimp.scoring import _joint_texts, _prefix_requests
    from tokenizer_zoo import gemma_style_tokenizer, sentencepiece_tokenizer

    tokenizer = {"gpt2": lambda: GPT2Tokenizer.from_pretrained(Path(__file__).parent / "data" / "gpt2", local_files_only=True),
                 "gemma_style": gemma_style_tokenizer,
                 "unigram_metaspace": lambda: sentencepiece_tokenizer(llama_style=False)}[name]()
    lm = SimpleNamespace(tokenizer=tokenizer)
    applies = pairs["two_prefix_method"].to_numpy()
    texts = _joint_texts(pairs[applies])
    requests = _prefix_requests(lm, pairs[applies], "two_prefix")
    for side_texts, side_requests in zip(texts, requests, strict=True):
        for text, (prefix, word) in zip(side_texts, side_requests, strict=True):
            assert encode(lm, text) == encode(lm, prefix) + encode(lm, word), text


def test_the_config_schema_offers_every_blimp_method_of_each_family() -> None:
    import yaml

    from lmprobes.suites.blimp.methods import METHODS

    schema = yaml.safe_load((Path(__file__).resolve().parents[1] / "rules/schemas/config.schema.yaml").read_text())
    blimp = schema["properties"]["suites"]["properties"]["blimp"]["properties"]
    for family in ("causal", "masked"):
        offered = blimp[f"{family}_methods"]["items"]["enum"]
        assert sorted(offered) == sorted(name for name, m in METHODS.items() if m.family == family), family
    assert "two_prefix_joint" not in blimp["causal_methods"]["default"], "two_prefix stays the default"


@pytest.mark.parametrize(("model", "method"), [
    ("tiny_bert", "pll_original"), ("tiny_bert", "pll_within_word_l2r"), ("tiny_roberta", "pll_within_word_l2r"),
])
def test_pll_methods_equal_a_plain_loop(model, method, request, pairs) -> None:
    lm = request.getfixturevalue(model)
    subset = pairs[pairs["paradigm"].isin(["anaphor_gender_agreement", "animate_subject_trans"])]
    scores = score_pairs(lm, subset, method, progress=False)
    variant = method.removeprefix("pll_")
    for pair, row in zip(subset.itertuples(), scores.itertuples(), strict=True):
        assert row.score_good == pytest.approx(plain_pll(lm, pair.sentence_good, variant), abs=1e-4)
        assert row.score_bad == pytest.approx(plain_pll(lm, pair.sentence_bad, variant), abs=1e-4)


@pytest.mark.parametrize(("method", "tie_counts_as"), [
    ("blimp_paper", False), ("lmeval04", True), ("salazar", False), ("one_prefix", False),
])
def test_identical_pairs_follow_each_methods_tie_rule(tiny_gpt2, pairs, method, tie_counts_as) -> None:
    scores = score_pairs(tiny_gpt2, pairs, method, progress=False).set_index("row_id")
    ties = scores.loc[IDENTICAL]
    if method == "one_prefix":  # identical passive_1 pairs have no one-prefix fields
        ties = ties[ties["kept"]]
    assert len(ties) >= 2
    assert (ties["score_good"] == ties["score_bad"]).all() and ties["tie"].all()
    assert (ties["correct"] == tie_counts_as).all()
    others = scores.drop(index=IDENTICAL)
    others = others[others["kept"]]
    assert not others["tie"].any()
    assert (others["correct"] == (others["score_good"] > others["score_bad"])).all()


def test_tie_rule_can_be_overridden(tiny_gpt2, tiny_bert, pairs) -> None:
    subset = pairs[pairs["row_id"].isin(IDENTICAL)]
    assert score_pairs(tiny_gpt2, subset, "blimp_paper", tie="right", progress=False)["correct"].all()
    assert not score_pairs(tiny_bert, subset, "pll_original", progress=False)["correct"].any()
    with pytest.raises(ScoringError, match="unknown tie rule 'coin'"):
        score_pairs(tiny_gpt2, subset, "salazar", tie="coin", progress=False)


def test_decide() -> None:
    assert decide(-1.0, -2.0, "wrong") and decide(-1.0, -2.0, "right")
    assert not decide(-2.0, -1.0, "wrong") and not decide(-2.0, -1.0, "right")
    assert not decide(-1.5, -1.5, "wrong") and decide(-1.5, -1.5, "right")


def test_methods_must_fit_the_model_family(tiny_gpt2, tiny_bert, pairs) -> None:
    assert method_for(tiny_gpt2) == method_for(tiny_gpt2, "blimp_paper")
    assert method_for(tiny_bert) == method_for(tiny_bert, "pll_original")
    with pytest.raises(ScoringError, match="'blimp_paper' needs a causal LM, but 'tiny-bert' is masked"):
        score_pairs(tiny_bert, pairs, "blimp_paper", progress=False)
    with pytest.raises(ScoringError, match="needs a masked LM"):
        score_pairs(tiny_gpt2, pairs, "pll_original", progress=False)
    with pytest.raises(ScoringError, match="unknown BLiMP method 'full'"):
        score_pairs(tiny_gpt2, pairs, "full", progress=False)


def test_scores_write_with_the_schema(tiny_gpt2, pairs, tmp_path) -> None:
    scores = score_pairs(tiny_gpt2, pairs, "one_prefix", progress=False)
    assert list(scores.columns) == SCORE_SCHEMA.names
    write_parquet(scores, tmp_path / "s.parquet", SCORE_SCHEMA, {})
    back = read_parquet(tmp_path / "s.parquet")
    assert back["correct"].isna().sum() == (~scores["kept"]).sum()
    assert back["token_ids_good"].map(list).tolist() == scores["token_ids_good"].tolist()


def synthetic_scores() -> pd.DataFrame:
    """Three paradigms of unequal size in two categories, one skipped row, two models."""
    rows = []
    for model, flip in (("m1", False), ("m2", True)):
        for paradigm, category, outcomes in (
            ("p_a", "binding", [True, True, True, False]),          # 0.75
            ("p_b", "binding", [True, False]),                      # 0.5
            ("p_c", "anaphor_agreement", [False, False, True, True, True, True, True, True]),  # 0.75
        ):
            for correct in outcomes:
                rows.append({"model": model, "method": "x", "paradigm": paradigm, "category": category,
                             "kept": True, "correct": correct != (flip and paradigm == "p_b")})
        rows.append({"model": model, "method": "x", "paradigm": "p_a", "category": "binding", "kept": False, "correct": None})
    return pd.DataFrame(rows)


def test_overall_is_the_mean_of_paradigm_accuracies() -> None:
    scores = synthetic_scores()
    paradigms = paradigm_accuracy(scores)
    expected = {}
    for (model, paradigm), group in scores[scores["kept"]].groupby(["model", "paradigm"]):
        expected[(model, paradigm)] = sum(bool(c) for c in group["correct"]) / len(group)
    got = {(r.model, r.paradigm): r.accuracy for r in paradigms.itertuples()}
    assert got == pytest.approx(expected)
    assert paradigms.set_index(["model", "paradigm"]).loc[("m1", "p_a"), "n_pairs"] == 4
    totals = overall(paradigms).set_index("model")["accuracy"]
    for model in ("m1", "m2"):
        mine = [v for (m, _), v in expected.items() if m == model]
        assert totals[model] == pytest.approx(sum(mine) / len(mine))
    micro = scores[scores["kept"] & (scores["model"] == "m1")]["correct"].astype(bool).mean()
    assert totals["m1"] == pytest.approx(2 / 3) and micro == pytest.approx(10 / 14)


def test_category_accuracy_is_the_mean_of_its_paradigms_in_paper_order() -> None:
    categories = category_accuracy(paradigm_accuracy(synthetic_scores()))
    m1 = categories[categories["model"] == "m1"]
    assert m1["category"].tolist() == [c for c in CATEGORIES if c in ("binding", "anaphor_agreement")]
    assert m1.set_index("category")["accuracy"].to_dict() == pytest.approx({"anaphor_agreement": 0.75, "binding": 0.625})
    assert m1.set_index("category")["n_paradigms"].to_dict() == {"anaphor_agreement": 1, "binding": 2}


@pytest.mark.parametrize(("model", "method"), [
    ("tiny_gpt2", "blimp_paper"), ("tiny_gpt2", "lmeval04"), ("tiny_gpt2", "one_prefix"), ("tiny_bert", "pll_original"),
])
def test_mean_variants_divide_the_same_token_logprobs_by_their_count(model, method, request, pairs) -> None:
    """``<method>_mean``: the per-token mean of the very token log-probs the sum adds (SCORING.md)."""
    lm = request.getfixturevalue(model)
    subset = pairs[pairs["paradigm"].isin(["anaphor_gender_agreement", "animate_subject_trans"])] if model == "tiny_bert" else pairs
    summed = score_pairs(lm, subset, method, progress=False)
    mean = score_pairs(lm, subset, f"{method}_mean", progress=False)
    assert (mean["method"] == f"{method}_mean").all()
    assert mean["kept"].tolist() == summed["kept"].tolist()
    kept = mean[mean["kept"]]
    assert len(kept)
    for row, plain in zip(kept.itertuples(), summed[summed["kept"]].itertuples(), strict=True):
        assert row.token_logprobs_good == plain.token_logprobs_good
        for side in ("good", "bad"):
            logprobs = getattr(plain, f"token_logprobs_{side}")
            assert getattr(row, f"score_{side}") == pytest.approx(math.fsum(logprobs) / len(logprobs), rel=1e-12)
        assert row.correct == (row.score_good > row.score_bad or (method == "lmeval04" and row.score_good == row.score_bad))


def test_pairs_with_an_unknown_token_are_skipped_never_compared(tiny_bert, tiny_gpt2, pairs) -> None:
    """spec/SCORING.md: the probability of [UNK] is never compared; byte-level BPE has no [UNK]."""
    subset = pairs[pairs["paradigm"] == "anaphor_gender_agreement"].head(3).reset_index(drop=True)
    subset.loc[1, "sentence_bad"] = subset.loc[1, "sentence_bad"].replace(" ", " ☃ ", 1)
    subset.loc[2, "sentence_good"] = subset.loc[2, "sentence_good"].replace(" ", " ☃ ", 1)  # either side counts
    for row, side in ((1, "sentence_bad"), (2, "sentence_good")):
        assert tiny_bert.tokenizer.unk_token_id in tiny_bert.tokenizer(subset.loc[row, side])["input_ids"]
    scores = score_pairs(tiny_bert, subset, "pll_original", progress=False)
    assert scores["kept"].tolist() == [True, False, False]
    for row in (1, 2):
        assert scores.loc[row, "skip_reason"] == "unk_token" and pd.isna(scores.loc[row, "correct"]), row
        assert math.isnan(scores.loc[row, "score_good"]) and math.isnan(scores.loc[row, "score_bad"]), row
    assert score_pairs(tiny_gpt2, subset, "blimp_paper", progress=False)["kept"].all()


def test_a_mean_twin_reuses_its_methods_token_scores(tiny_gpt2, pairs, monkeypatch) -> None:
    """With a shared cache the _mean twin runs no forward pass of its own and gives the same rows
    as scoring it alone."""
    from lmprobes.engine import runner

    alone = score_pairs(tiny_gpt2, pairs, "blimp_paper_mean", progress=False)
    calls = []
    real = runner.run_model
    monkeypatch.setattr(runner, "run_model", lambda *a, **k: calls.append(1) or real(*a, **k))
    shared: dict = {}
    score_pairs(tiny_gpt2, pairs, "blimp_paper", progress=False, cache=shared)
    after_sum = len(calls)
    twin = score_pairs(tiny_gpt2, pairs, "blimp_paper_mean", progress=False, cache=shared)
    assert after_sum > 0 and len(calls) == after_sum
    pd.testing.assert_frame_equal(twin, alone)
    lmeval = score_pairs(tiny_gpt2, pairs, "lmeval04", progress=False, cache=shared)
    assert len(calls) > after_sum, "another preset scores other tokens"
    assert lmeval["method"].eq("lmeval04").all()


def test_prefix_methods_continue_with_the_word_as_running_text_spells_it(tiny_gpt2, tiny_bert):
    from types import SimpleNamespace

    from lmprobes.suites.blimp.scoring import _prefix_requests
    from tokenizer_zoo import gemma_style_tokenizer

    pairs = pd.DataFrame({"one_prefix_prefix": ["A robin is a"], "one_prefix_word_good": ["bird"],
                          "one_prefix_word_bad": ["birds"]})
    for tokenizer, space in ((gemma_style_tokenizer(), " "), (tiny_gpt2.tokenizer, " "), (tiny_bert.tokenizer, "")):
        good, bad = _prefix_requests(SimpleNamespace(tokenizer=tokenizer), pairs, "one_prefix")
        assert (good, bad) == ([("A robin is a", space + "bird")], [("A robin is a", space + "birds")])


@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_the_score_frame_reduces_each_side_as_the_sequence_score_does(reduction):
    """Totals are exactly rounded sums (``math.fsum``); a kept side with no scored token has total 0
    and mean nan; a skipped pair has nan on both sides."""
    from lmprobes.engine.causal import SequenceScore
    from lmprobes.suites.blimp.scoring import _score_frame

    good = [SequenceScore([1, 2, 3], [1e16, 1.0, -1e16]), SequenceScore([], []), SequenceScore([4], [-2.5])]
    bad = [SequenceScore([5, 6], [-0.25, -0.5]), SequenceScore([7], [-1.0]), SequenceScore([8], [-3.0])]
    pairs = pd.DataFrame({"row_id": [0, 1, 2], "paradigm": ["p"] * 3, "category": ["c"] * 3})
    frame = _score_frame("m", "x", "wrong", pairs, good, bad, ["", "", "no_one_prefix"], reduction)
    expected_good = [getattr(s, "total" if reduction == "sum" else "mean") for s in good[:2]] + [math.nan]
    expected_bad = [getattr(s, "total" if reduction == "sum" else "mean") for s in bad[:2]] + [math.nan]
    first, empty = frame["score_good"][0], frame["score_good"][1]
    if reduction == "sum":
        assert first == 1.0 and empty == 0.0  # a plain float sum of [1e16, 1.0, -1e16] is 0.0
    else:
        assert first == 1.0 / 3 and math.isnan(empty)
    for got, want in zip(frame["score_good"].tolist() + frame["score_bad"].tolist(), expected_good + expected_bad,
                         strict=True):
        assert got == want or (math.isnan(got) and math.isnan(want))
    assert frame["token_logprobs_good"][0] == [1e16, 1.0, -1e16] and frame["kept"].tolist() == [True, True, False]
