"""Zero-shot oLMpics scoring on the tiny models, against plain single-item forward passes."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import torch

from lmprobes.suites.olmpics.release import read_release, release_file_name
from lmprobes.suites.olmpics.schema import make_item
from lmprobes.suites.olmpics.zeroshot import SCORE_SCHEMA, ZeroShotError, score_zero_shot

DATA = Path(__file__).parent / "data" / "olmpics"


def release(task: str, split: str = "dev") -> pd.DataFrame:
    return pd.DataFrame(read_release(DATA / release_file_name(task, split, gz=False), task, split))


def items(task: str, specs: list[tuple[str, list[str], int]]) -> pd.DataFrame:
    rows = [make_item(task, "generated", "standard", "dev", i, id=str(i), stem=stem, choices=choices, answer=answer)
            for i, (stem, choices, answer) in enumerate(specs, start=1)]
    return pd.DataFrame(rows)


def plain_ids(tokenizer, stem: str, mask_encoding: str = "original") -> list[int]:
    """The stem's ids: ``original`` as transformers 2.x built them (the text cut at the mask, each side
    stripped and encoded alone, without special tokens), ``tokenizer`` the whole stem as written."""
    if mask_encoding == "tokenizer":
        return tokenizer(stem.replace("[MASK]", tokenizer.mask_token).rstrip())["input_ids"]
    left, right = stem.split("[MASK]")
    encode = lambda text: tokenizer.encode(text.strip(), add_special_tokens=False) if text.strip() else []
    return [tokenizer.cls_token_id, *encode(left), tokenizer.mask_token_id, *encode(right), tokenizer.sep_token_id]


def plain_mask_logits(lm, stem: str, mask_encoding: str = "original") -> torch.Tensor:
    """Logits at the mask from one unbatched forward of the model (the full MLM head everywhere)."""
    ids = plain_ids(lm.tokenizer, stem, mask_encoding)
    with torch.no_grad():
        return lm.model(input_ids=torch.tensor([ids])).logits[0, ids.index(lm.tokenizer.mask_token_id)]


def roberta_tokenizer():
    """RoBERTa's tokenizer: GPT-2's real byte-level BPE, with RoBERTa's mask token."""
    from transformers import AddedToken, RobertaTokenizer

    mask = AddedToken("<mask>", lstrip=True, rstrip=False, normalized=False, special=True)  # as RoBERTa's
    tokenizer = RobertaTokenizer.from_pretrained(Path(__file__).parent / "data" / "gpt2", local_files_only=True,
                                                 mask_token=mask)
    assert len(tokenizer) > 50000, "the real vocabulary, not a stub"
    return tokenizer


MLM_STEMS = [stem for task in ("age_comparison", "objects_comparison", "antonym_negation", "taxonomy_conjunction",
                               "multihop_composition", "always_never") for stem in release(task)["stem"]]


def test_the_original_mask_encoding_is_transformers_2s_for_byte_level_bpe() -> None:
    """With RoBERTa's BPE the word after the mask has no leading space, as the released readers'
    tokenizer cut the text at ``<mask>`` and stripped each side; ``tokenizer`` keeps the space."""
    from lmprobes.suites.olmpics.zeroshot import with_mask_token

    tokenizer = roberta_tokenizer()
    changed = 0
    for stem in MLM_STEMS:
        original = tokenizer(with_mask_token(tokenizer, stem).rstrip())["input_ids"]
        assert original == plain_ids(tokenizer, stem, "original"), stem
        modern = tokenizer(with_mask_token(tokenizer, stem, "tokenizer").rstrip())["input_ids"]
        assert modern == plain_ids(tokenizer, stem, "tokenizer"), stem
        changed += original != modern
    assert changed > len(MLM_STEMS) // 2, "every stem with a word after its mask"
    age = next(s for s in MLM_STEMS if "[MASK] than" in s)
    after = lambda ids: tokenizer.convert_ids_to_tokens(ids)[ids.index(tokenizer.mask_token_id) + 1]
    assert after(plain_ids(tokenizer, age, "original")) == "than"
    assert after(plain_ids(tokenizer, age, "tokenizer")) == "Ġthan"


def test_wordpiece_reads_both_mask_encodings_alike() -> None:
    from transformers import BertTokenizerFast

    from lmprobes.suites.olmpics.zeroshot import with_mask_token

    tokenizer = BertTokenizerFast.from_pretrained(Path(__file__).parent / "data" / "bert-base-cased",
                                                  local_files_only=True)
    for stem in MLM_STEMS:
        ids = {tuple(tokenizer(with_mask_token(tokenizer, stem, e).rstrip())["input_ids"]) for e in ("original", "tokenizer")}
        assert ids == {tuple(plain_ids(tokenizer, stem))}


def test_an_unknown_mask_encoding_is_named(tiny_roberta) -> None:
    with pytest.raises(ZeroShotError, match="mask_encoding 'modern'"):
        score_zero_shot(tiny_roberta, release("age_comparison").head(2), mask_encoding="modern", progress=False)


def test_roberta_candidates_are_the_space_prefixed_pieces(tiny_roberta) -> None:
    frame = release("antonym_negation")  # choices "not" / "really", one Ġ piece each in the tiny vocabulary
    scores = score_zero_shot(tiny_roberta, frame, progress=False)
    tokenizer = tiny_roberta.tokenizer
    for item, score in zip(frame.itertuples(), scores.itertuples()):
        assert tokenizer.convert_ids_to_tokens(list(score.candidate_ids)) == ["Ġ" + c for c in item.choices]
        no_space = [tokenizer.encode(c, add_special_tokens=False)[0] for c in item.choices]
        assert list(score.candidate_ids) != no_space  # the classic bug would score these
        assert list(score.n_pieces) == [1, 1] and score.n_multi_piece == 0


def test_bert_candidates_are_the_plain_pieces(tiny_bert) -> None:
    frame = release("multihop_composition")  # first / second / third: "third" splits in the tiny vocabulary
    scores = score_zero_shot(tiny_bert, frame, progress=False)
    tokenizer = tiny_bert.tokenizer
    for item, score in zip(frame.itertuples(), scores.itertuples()):
        pieces = [tokenizer.tokenize(c) for c in item.choices]
        assert tokenizer.convert_ids_to_tokens(list(score.candidate_ids)) == [p[0] for p in pieces]
        assert list(score.n_pieces) == [len(p) for p in pieces]
        assert score.n_multi_piece == sum(len(p) > 1 for p in pieces) == 1


@pytest.mark.parametrize("mask_encoding", ["original", "tokenizer"])
@pytest.mark.parametrize("model", ["tiny_roberta", "tiny_bert"])
def test_mc_mlm_equals_a_plain_single_item_forward(model, mask_encoding, request) -> None:
    lm = request.getfixturevalue(model)
    frame = pd.concat([release("antonym_negation"), release("age_comparison").head(6), release("taxonomy_conjunction")],
                      ignore_index=True)
    scores = score_zero_shot(lm, frame, mask_encoding=mask_encoding, progress=False)
    assert list(scores.columns) == SCORE_SCHEMA.names and scores["row_id"].tolist() == frame["row_id"].tolist()
    for item, score in zip(frame.itertuples(), scores.itertuples()):
        logits = plain_mask_logits(lm, item.stem, mask_encoding)
        ids = list(score.candidate_ids)
        expected = torch.log_softmax(logits, dim=-1)[ids]
        assert torch.allclose(torch.tensor(score.scores, dtype=torch.float32), expected, atol=1e-4)
        assert score.predicted == int(torch.argmax(logits[ids]))  # argmax of the raw logits, as the original
        assert score.correct == (score.predicted == item.answer)
        assert score.prediction == item.choices[score.predicted]


def test_choices_sharing_a_first_piece_tie_and_the_earlier_wins(tiny_roberta, caplog) -> None:
    stem = "A 30 year old person age is [MASK] than a 40 year old person ."
    frame = items("age_comparison", [(stem, ["sometimes", "some"], 1), (stem, ["younger", "older"], 0)])
    with caplog.at_level("WARNING", logger="lmprobes.suites.olmpics.zeroshot"):
        score, other = (row for _, row in score_zero_shot(tiny_roberta, frame, progress=False).iterrows())
    assert score["candidate_ids"][0] == score["candidate_ids"][1] and score["tie"]
    assert other["scores"][0] != other["scores"][1] and not other["tie"], "distinct pieces: no tie"
    assert score["predicted"] == 0 and not score["correct"] and score["n_multi_piece"] == 1
    assert "1 of 2 items have choices scored by the same first piece, so equally (age_comparison:generated:standard:dev:1: ['Ġsome'])" in caplog.text


def test_unknown_choices_are_skipped_with_a_reason(tiny_bert) -> None:
    frame = items("antonym_negation", [("It was [MASK] good .", ["not", "really"], 0),
                                       ("It was [MASK] good .", ["not", "жжж"], 0),
                                       ("It was [MASK] good .", ["жжж", "really"], 1)])  # any choice, not only the last
    assert tiny_bert.tokenizer("жжж", add_special_tokens=False)["input_ids"] == [tiny_bert.tokenizer.unk_token_id]
    scores = score_zero_shot(tiny_bert, frame, progress=False)
    assert scores["kept"].tolist() == [True, False, False]
    assert scores["skip_reason"].tolist() == ["", "unknown_choice", "unknown_choice"]
    for row in (1, 2):
        assert pd.isna(scores.loc[row, "predicted"]) and pd.isna(scores.loc[row, "correct"]), row


def test_mc_qa_tasks_and_causal_models_are_refused(tiny_bert, tiny_gpt2) -> None:
    with pytest.raises(ZeroShotError, match="MC-QA"):
        score_zero_shot(tiny_bert, release("property_conjunction"), progress=False)
    with pytest.raises(ZeroShotError, match="needs a masked LM"):
        score_zero_shot(tiny_gpt2, release("antonym_negation"), "mc_mlm", progress=False)
    with pytest.raises(ZeroShotError, match="unknown oLMpics zero-shot method"):
        score_zero_shot(tiny_bert, release("antonym_negation"), "logits", progress=False)


def test_causal_candidates_are_sums_of_a_plain_forward(tiny_gpt2) -> None:
    """Each filled stem right-stripped: multi-hop stems end in a space, which BPE would score as a token."""
    frame = pd.concat([release("always_never").head(2), release("multihop_composition").head(1)], ignore_index=True)
    assert frame["stem"].iloc[-1].endswith(" ")
    scores = score_zero_shot(tiny_gpt2, frame, progress=False)
    tokenizer = tiny_gpt2.tokenizer
    assert set(scores["method"]) == {"candidates"}
    for item, score in zip(frame.itertuples(), scores.itertuples()):
        for choice, value in zip(item.choices, score.scores):
            ids = [tokenizer.bos_token_id] + tokenizer.encode(item.stem.replace("[MASK]", choice).rstrip())
            with torch.no_grad():
                logprobs = torch.log_softmax(tiny_gpt2.model(torch.tensor([ids])).logits[0], dim=-1)
            assert value == pytest.approx(sum(logprobs[i, ids[i + 1]].item() for i in range(len(ids) - 1)), abs=1e-3)
        assert score.predicted == max(range(len(item.choices)), key=lambda k: (score.scores[k], -k))


def test_masked_candidates_are_pseudo_log_likelihoods(tiny_bert) -> None:
    frame = release("antonym_negation").head(1)
    score = score_zero_shot(tiny_bert, frame, "candidates", progress=False).iloc[0]
    tokenizer = tiny_bert.tokenizer
    for choice, value in zip(frame.loc[0, "choices"], score["scores"]):
        ids = tokenizer(frame.loc[0, "stem"].replace("[MASK]", choice).rstrip())["input_ids"]
        total = 0.0
        for i in range(1, len(ids) - 1):  # every token but [CLS] and [SEP], masked alone
            copy = list(ids)
            copy[i] = tokenizer.mask_token_id
            with torch.no_grad():
                logits = tiny_bert.model(torch.tensor([copy])).logits[0, i]
            total += torch.log_softmax(logits, dim=-1)[ids[i]].item()
        assert value == pytest.approx(total, abs=1e-3)
    assert json.loads(json.dumps(list(score["n_pieces"]))) == [1, 1]


def test_scores_do_not_depend_on_the_batch_budget(tiny_roberta, with_budget) -> None:
    frame = pd.concat([release("age_comparison"), release("multihop_composition")], ignore_index=True)
    small = score_zero_shot(with_budget(tiny_roberta, 24), frame, progress=False)
    large = score_zero_shot(with_budget(tiny_roberta, 100_000), frame, progress=False)
    for a, b in zip(small["scores"], large["scores"]):
        assert a == pytest.approx(b, abs=1e-4)
    assert small["predicted"].tolist() == large["predicted"].tolist()


def test_mc_mlm_scores_the_word_initial_pieces_of_a_real_bpe() -> None:
    """With GPT-2's real byte-level BPE (RoBERTa's), Age comparison is decided between the ids of
    ``Ġyounger`` and ``Ġolder``, not those of ``younger`` / ``older``, on a tiny random masked LM."""
    from transformers import BertConfig, BertForMaskedLM

    from lmprobes.engine.lm import LM

    vocab = json.loads((Path(__file__).parent / "data" / "gpt2" / "vocab.json").read_text(encoding="utf-8"))
    tokenizer = roberta_tokenizer()
    torch.manual_seed(0)
    # A BERT body: RoBERTa's position ids would need the pad id (here 50,260) below 514.
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, pad_token_id=tokenizer.pad_token_id)
    lm = LM(name="tiny-mlm-real-bpe", model=BertForMaskedLM(config).eval(), tokenizer=tokenizer, family="masked")
    frame = release("age_comparison").head(4)
    scores = score_zero_shot(lm, frame, progress=False)
    for item, score in zip(frame.itertuples(), scores.itertuples()):
        assert item.choices == ["younger", "older"]
        assert list(score.candidate_ids) == [vocab["Ġyounger"], vocab["Ġolder"]]
        no_space = [tokenizer.encode(c, add_special_tokens=False)[0] for c in item.choices]  # "young" (+ "er"), "older"
        assert not set(no_space) & set(score.candidate_ids)
        assert list(score.n_pieces) == [1, 1]
        logits = plain_mask_logits(lm, item.stem)
        assert score.predicted == int(torch.argmax(logits[[vocab["Ġyounger"], vocab["Ġolder"]]]))


def test_released_batches_cut_each_task_in_file_order_eight_at_a_time() -> None:
    from lmprobes.suites.olmpics.zeroshot import released_batches

    tasks = ["a"] * 10 + ["b"] * 3 + ["a"] * 2
    assert released_batches(tasks) == [list(range(8)), [8, 9], [10, 11, 12], [13, 14]]
    assert released_batches([]) == []


def plain_released_scores(lm, frame: pd.DataFrame, targets: list[list[int]]) -> list[list[float]]:
    """Each item's batch restated: the 8 items of its task from ``8 * (k // 8)`` on (k its place in the
    task), right-padded with the pad token, one forward without an attention mask."""
    tokenizer = lm.tokenizer
    scores = []
    for task_rows in frame.groupby("task", sort=False).indices.values():
        for k, i in enumerate(task_rows):
            batch = task_rows[8 * (k // 8): 8 * (k // 8) + 8]
            ids = [plain_ids(tokenizer, frame["stem"].iloc[j]) for j in batch]
            width = max(map(len, ids))
            inputs = torch.tensor([row + [tokenizer.pad_token_id] * (width - len(row)) for row in ids])
            with torch.no_grad():
                logits = lm.model(input_ids=inputs).logits[list(batch).index(i)]
            mine = ids[list(batch).index(i)]
            scores.append(torch.log_softmax(logits[mine.index(tokenizer.mask_token_id)], dim=-1)[targets[i]].tolist())
    return scores


@pytest.mark.parametrize("model", ["tiny_roberta", "tiny_bert"])
def test_original_batches_replay_the_released_padded_forwards_without_an_attention_mask(model, request) -> None:
    lm = request.getfixturevalue(model)
    frame = pd.concat([release("antonym_negation"), release("taxonomy_conjunction"), release("age_comparison").head(3)],
                      ignore_index=True)
    replayed = score_zero_shot(lm, frame, batches="original", progress=False)
    independent = score_zero_shot(lm, frame, progress=False)
    targets = [list(ids) for ids in replayed["candidate_ids"]]
    expected = plain_released_scores(lm, frame, targets)
    for got, want in zip(replayed["scores"], expected, strict=True):
        assert list(got) == pytest.approx(want, abs=1e-4)
    lengths = [len(plain_ids(lm.tokenizer, stem)) for stem in frame["stem"]]
    padded = [n < max(lengths[8 * (i // 8): 8 * (i // 8) + 8]) for i, n in enumerate(lengths)]
    assert any(padded), "the fixture needs a batch of unequal lengths"
    for got, alone, was_padded in zip(replayed["scores"], independent["scores"], padded, strict=True):
        if not was_padded:
            assert list(got) == pytest.approx(list(alone), abs=1e-4)
    assert any(list(g) != pytest.approx(list(a), abs=1e-4)
               for g, a, p in zip(replayed["scores"], independent["scores"], padded, strict=True) if p)


def test_original_batches_refuse_a_stem_longer_than_the_models_positions(tiny_bert) -> None:
    """As the independent scoring does, naming the model: not an index error deep in the forward."""
    frame = release("antonym_negation").head(2)
    limit = tiny_bert.model.config.max_position_embeddings
    frame.loc[1, "stem"] = "very " * limit + frame.loc[1, "stem"]
    for batches in ("independent", "original"):
        with pytest.raises(ValueError, match=rf"{tiny_bert.name}: a sequence of \d+ tokens .* longer than the {limit} "):
            score_zero_shot(tiny_bert, frame, batches=batches, progress=False)


def test_score_model_scores_candidates_as_configured_and_records_it(tiny_dir, tiny_bert, tmp_path) -> None:
    """``suites.olmpics.candidates`` reaches the scorer and the score file's metadata."""
    from lmprobes.io import read_metadata, read_parquet
    from lmprobes.suites.olmpics.pipeline import score_model

    frame = release("antonym_negation").head(4)
    frame.to_parquet(tmp_path / "release.parquet")
    frame.to_parquet(tmp_path / "grids.parquet")
    outs = {"zero_shot": tmp_path / "zero_shot.parquet", "grids": tmp_path / "grid_scores.parquet"}
    settings = {"masked_methods": ["candidates"], "candidates": {"pll_variant": "within_word_l2r"}}
    spec = {"family": "masked", "tiny": {"arch": "bert"}}
    score_model(tmp_path / "release.parquet", tmp_path / "grids.parquet", tiny_dir("bert"), outs, slug="tiny-bert",
                spec=spec, device="cpu", settings=settings, progress=False)
    got = read_parquet(outs["zero_shot"])
    expected = score_zero_shot(tiny_bert, frame, "candidates", pll_variant="within_word_l2r", progress=False)
    original = score_zero_shot(tiny_bert, frame, "candidates", progress=False)
    flat = lambda frame: [value for scores in frame["scores"] for value in scores]
    assert len(got) == len(frame) and flat(got) == pytest.approx(flat(expected), abs=1e-5)
    assert flat(got) != pytest.approx(flat(original), abs=1e-5), "within_word_l2r, not the default"
    assert read_metadata(outs["zero_shot"])["candidates"] == {"pll_variant": "within_word_l2r"}, "what a masked model reads"


def test_score_model_spells_the_mask_as_configured_and_records_it(tiny_dir, tiny_roberta, tmp_path) -> None:
    from lmprobes.io import read_metadata, read_parquet
    from lmprobes.suites.olmpics.pipeline import score_model

    frame = release("age_comparison").head(6)
    frame.to_parquet(tmp_path / "release.parquet")
    frame.to_parquet(tmp_path / "grids.parquet")
    outs = {"zero_shot": tmp_path / "zero_shot.parquet", "grids": tmp_path / "grid_scores.parquet"}
    settings = {"masked_methods": ["mc_mlm"], "mask_encoding": "tokenizer"}
    score_model(tmp_path / "release.parquet", tmp_path / "grids.parquet", tiny_dir("roberta"), outs,
                slug="tiny-roberta", spec={"family": "masked", "tiny": {"arch": "roberta"}}, device="cpu",
                settings=settings, progress=False)
    got = [v for scores in read_parquet(outs["zero_shot"])["scores"] for v in scores]
    expected = score_zero_shot(tiny_roberta, frame, mask_encoding="tokenizer", progress=False)
    original = score_zero_shot(tiny_roberta, frame, progress=False)
    assert got == pytest.approx([v for scores in expected["scores"] for v in scores], abs=1e-5)
    assert got != pytest.approx([v for scores in original["scores"] for v in scores], abs=1e-5)
    assert read_metadata(outs["zero_shot"])["mask_encoding"] == "tokenizer"


def test_score_model_replays_the_released_batches_for_the_release_alone(tiny_dir, tiny_bert, tmp_path) -> None:
    from lmprobes.io import read_metadata, read_parquet
    from lmprobes.suites.olmpics.pipeline import score_model

    frame = pd.concat([release("antonym_negation"), release("taxonomy_conjunction")], ignore_index=True)
    frame.to_parquet(tmp_path / "release.parquet")
    frame.to_parquet(tmp_path / "grids.parquet")
    outs = {"zero_shot": tmp_path / "zero_shot.parquet", "grids": tmp_path / "grid_scores.parquet"}
    settings = {"masked_methods": ["mc_mlm"], "zero_shot_batches": "original"}
    score_model(tmp_path / "release.parquet", tmp_path / "grids.parquet", tiny_dir("bert"), outs, slug="tiny-bert",
                spec={"family": "masked", "tiny": {"arch": "bert"}}, device="cpu", settings=settings, progress=False)
    flat = lambda frame: [v for scores in frame["scores"] for v in scores]
    replayed = score_zero_shot(tiny_bert, frame, batches="original", progress=False)
    alone = score_zero_shot(tiny_bert, frame, progress=False)
    assert flat(read_parquet(outs["zero_shot"])) == pytest.approx(flat(replayed), abs=1e-5)
    assert flat(read_parquet(outs["grids"])) == pytest.approx(flat(alone), abs=1e-5), "grids: each item alone"
    assert flat(replayed) != pytest.approx(flat(alone), abs=1e-5)
    assert read_metadata(outs["zero_shot"])["batches"] == "original"
    assert "batches" not in read_metadata(outs["grids"])


def test_score_generated_scores_the_mc_mlm_dev_items_of_the_generated_files(tiny_dir, tiny_roberta, tmp_path) -> None:
    """Dev items only (train rows and MC-QA tasks left out), each file's in order, scored as the release's."""
    from lmprobes.io import read_metadata, read_parquet
    from lmprobes.suites.olmpics.age import age_comparison, multihop_composition
    from lmprobes.suites.olmpics.pipeline import score_generated

    ages = pd.DataFrame(age_comparison("dev")[:5] + age_comparison("train")[:3])
    multihop = pd.DataFrame(multihop_composition("dev", seed=3)[:4])
    qa = items("property_conjunction", [("what is used for writing?", ["pen", "cup", "dog"], 0)])
    paths = []
    for name, frame in (("ages", ages), ("multihop", multihop), ("qa", qa)):
        paths.append(tmp_path / f"{name}.parquet")
        frame.to_parquet(paths[-1])
    out = tmp_path / "generated.parquet"
    spec = {"family": "masked", "tiny": {"arch": "roberta"}}
    score_generated(paths, tiny_dir("roberta"), out, slug="tiny-roberta", spec=spec, device="cpu",
                    settings={"masked_methods": ["mc_mlm"]}, progress=False)
    got = read_parquet(out)
    dev = pd.concat([ages[ages["split"] == "dev"], multihop], ignore_index=True)
    assert got["row_id"].tolist() == dev["row_id"].tolist()
    assert set(got["flavour"]) == {"generated"} and set(got["split"]) == {"dev"}
    expected = score_zero_shot(tiny_roberta, dev, "mc_mlm", progress=False)
    assert got["predicted"].tolist() == expected["predicted"].tolist()
    flat = lambda frame: [value for scores in frame["scores"] for value in scores]
    assert flat(got) == pytest.approx(flat(expected), abs=1e-5)
    assert read_metadata(out)["dataset"] == "generated"


def test_score_generated_refuses_files_without_mc_mlm_dev_items(tiny_dir, tmp_path) -> None:
    from lmprobes.suites.olmpics.pipeline import score_generated

    path = tmp_path / "property_conjunction.parquet"
    items("property_conjunction", [("what is used for writing?", ["pen", "cup", "dog"], 0)]).to_parquet(path)
    out = tmp_path / "generated.parquet"
    with pytest.raises(ValueError, match="property_conjunction.parquet.*no MC-MLM dev items"):
        score_generated([path], tiny_dir("bert"), out, slug="tiny-bert", spec={"family": "masked"}, device="cpu",
                        settings={"masked_methods": ["mc_mlm"]}, progress=False)
    with pytest.raises(ValueError, match="no generated datasets to score"):
        score_generated([], tiny_dir("bert"), out, slug="tiny-bert", spec={"family": "masked"}, device="cpu",
                        settings={"masked_methods": ["mc_mlm"]}, progress=False)
    assert not out.exists()


# --- candidates_mean: the per-token mean reduction (engine.ranking) ---------------------------


def test_causal_candidates_mean_ranks_by_the_plain_per_token_mean(tiny_gpt2) -> None:
    frame = release("always_never").head(3)
    scores = score_zero_shot(tiny_gpt2, frame, "candidates_mean", progress=False)
    summed = score_zero_shot(tiny_gpt2, frame, "candidates", progress=False)
    tokenizer = tiny_gpt2.tokenizer
    assert set(scores["method"]) == {"candidates_mean"}
    for item, score in zip(frame.itertuples(), scores.itertuples()):
        plain = []
        for choice in item.choices:
            ids = [tokenizer.bos_token_id] + tokenizer.encode(item.stem.replace("[MASK]", choice).rstrip())
            with torch.no_grad():
                logprobs = torch.log_softmax(tiny_gpt2.model(torch.tensor([ids])).logits[0], dim=-1)
            plain.append(sum(logprobs[i, ids[i + 1]].item() for i in range(len(ids) - 1)) / (len(ids) - 1))
        assert list(score.scores) == pytest.approx(plain, abs=1e-4)
        assert score.predicted == max(range(len(plain)), key=lambda k: (plain[k], -k))
    assert all(m > s for mean, total in zip(scores["scores"], summed["scores"]) for m, s in zip(mean, total))


def test_masked_candidates_mean_is_the_pll_per_scored_token(tiny_bert) -> None:
    frame = release("antonym_negation").head(2)
    scores = score_zero_shot(tiny_bert, frame, "candidates_mean", progress=False)
    summed = score_zero_shot(tiny_bert, frame, "candidates", progress=False)
    tokenizer = tiny_bert.tokenizer
    for item, mean, total in zip(frame.itertuples(), scores["scores"], summed["scores"]):
        n_scored = [len(tokenizer(item.stem.replace("[MASK]", c).rstrip())["input_ids"]) - 2 for c in item.choices]
        assert list(mean) == pytest.approx([t / n for t, n in zip(total, n_scored)], abs=1e-6)
    assert scores["predicted"].tolist() == [max(range(len(s)), key=lambda k: (s[k], -k)) for s in scores["scores"]]


def test_a_candidates_mean_tie_goes_to_the_earlier_choice(tiny_gpt2) -> None:
    frame = items("always_never", [("A bird can [MASK] fly .", ["always", "always"], 1)])
    score = score_zero_shot(tiny_gpt2, frame, "candidates_mean", progress=False).iloc[0]
    assert score["scores"][0] == score["scores"][1]
    assert score["tie"] and score["predicted"] == 0 and not score["correct"]


def test_causal_methods_are_configurable_and_each_reduction_is_recorded(tiny_dir, tiny_gpt2, tmp_path) -> None:
    from lmprobes.io import read_metadata, read_parquet
    from lmprobes.suites.olmpics.pipeline import methods_for, score_model
    from lmprobes.suites.olmpics.tables import read_published, zero_shot_table

    assert methods_for("causal", {"candidates": {}}) == ["candidates"], "the default, as the workflow passes it"
    frame = release("always_never").head(3)
    frame.to_parquet(tmp_path / "release.parquet")
    frame.to_parquet(tmp_path / "grids.parquet")
    outs = {"zero_shot": tmp_path / "zero_shot.parquet", "grids": tmp_path / "grid_scores.parquet"}
    settings = {"causal_methods": ["candidates", "candidates_mean"], "candidates": {"causal_policy": "bos"}}
    score_model(tmp_path / "release.parquet", tmp_path / "grids.parquet", tiny_dir("gpt2"), outs, slug="tiny-gpt2",
                spec={"family": "causal", "tiny": {"arch": "gpt2"}}, device="cpu", settings=settings, progress=False)
    metadata = read_metadata(outs["zero_shot"])
    assert metadata["methods"] == ["candidates", "candidates_mean"]
    assert metadata["reductions"] == {"candidates": "sum", "candidates_mean": "mean"}
    assert metadata["candidates"] == {"causal_policy": "bos"}
    got = read_parquet(outs["zero_shot"])
    expected = score_zero_shot(tiny_gpt2, frame, "candidates_mean", progress=False)
    assert got.loc[got["method"] == "candidates_mean", "predicted"].tolist() == expected["predicted"].tolist()
    published = read_published(Path(__file__).resolve().parents[1] / "resources" / "olmpics" / "published.csv")
    table = zero_shot_table(got, published)
    ours = table[table["source"] == "reproduction"]
    assert set(ours["system"]) == {"tiny-gpt2 (candidates)", "tiny-gpt2 (candidates_mean)"}


def test_masked_score_files_record_no_reduction_for_mc_mlm(tiny_dir, tmp_path) -> None:
    from lmprobes.io import read_metadata
    from lmprobes.suites.olmpics.pipeline import score_model

    frame = release("antonym_negation").head(2)
    frame.to_parquet(tmp_path / "release.parquet")
    frame.to_parquet(tmp_path / "grids.parquet")
    outs = {"zero_shot": tmp_path / "zero_shot.parquet", "grids": tmp_path / "grid_scores.parquet"}
    settings = {"masked_methods": ["mc_mlm", "candidates_mean"], "candidates": {}}
    score_model(tmp_path / "release.parquet", tmp_path / "grids.parquet", tiny_dir("bert"), outs, slug="tiny-bert",
                spec={"family": "masked", "tiny": {"arch": "bert"}}, device="cpu", settings=settings, progress=False)
    metadata = read_metadata(outs["grids"])
    assert metadata["reductions"] == {"mc_mlm": None, "candidates_mean": "mean"}
    assert metadata["candidates"] == {"pll_variant": "original"}
