"""MC-QA fine-tuning on the tiny models: pair encodings, the head's logit by hand, seeded and leak-free runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from lmprobes.suites.olmpics.hyperparameters import TRANSFORMER
from lmprobes.suites.olmpics.mcqa import (
    McQaError,
    McQaModel,
    fine_tune,
    fresh_model,
    load_encoder,
    mc_qa_curves,
    mc_qa_examples,
    seeded,
    split_examples,
    trims_padding,
)
from lmprobes.suites.olmpics.schema import CURVE_SCHEMA, SCHEMA, make_item
from lmprobes.suites.olmpics.training import with_overrides
from olmpics_rows import related_word_rows

WORDS = ["dog", "cat", "boat", "water", "church", "man", "farmer", "doctor", "corn", "crop", "bird", "tree"]
FAST = with_overrides(TRANSFORMER, lr=1e-3, epochs=2, batch_size=4)


def qa_rows(n_train: int, n_dev: int, seed: int = 0) -> pd.DataFrame:
    return related_word_rows(n_train, n_dev, WORDS, seed=seed, located=True)


@pytest.fixture(scope="module")
def bert_encoder(tiny_dir):
    return load_encoder(tiny_dir("bert"), slug="tiny-bert", device=torch.device("cpu"))


def test_examples_hold_each_pair_encoding_padded_to_the_longest(tiny_roberta):
    tokenizer = tiny_roberta.tokenizer
    items = pd.DataFrame.from_records([
        make_item("property_conjunction", "release", "standard", "dev", 1, id="a", stem="what is related to dog",
                  choices=["cat", "water lily", "x"], answer=1),
        make_item("property_conjunction", "release", "standard", "dev", 2, id="b",
                  stem="what is usually located at church and has a property of old", choices=["man", "b", "c"],
                  answer=0),
    ], columns=SCHEMA.names)
    examples = mc_qa_examples(tokenizer, items)
    pairs = [[tokenizer(row["stem"], choice)["input_ids"] for choice in row["choices"]] for _, row in items.iterrows()]
    longest = max(len(ids) for item in pairs for ids in item)
    assert set(examples.inputs) == {"input_ids", "attention_mask"}  # RoBERTa has no segment ids
    assert examples.inputs["input_ids"].shape == (2, 3, longest)
    for i, item in enumerate(pairs):
        for k, ids in enumerate(item):
            row = examples.inputs["input_ids"][i, k].tolist()
            assert row == ids + [tokenizer.pad_token_id] * (longest - len(ids))
            assert examples.inputs["attention_mask"][i, k].tolist() == [1] * len(ids) + [0] * (longest - len(ids))
            # <s> q </s></s> a </s>
            assert ids[0] == tokenizer.bos_token_id and ids[-1] == tokenizer.eos_token_id
            assert [tokenizer.eos_token_id] * 2 in [ids[j:j + 2] for j in range(len(ids) - 1)]
    assert examples.labels.tolist() == [1, 0]


def test_bert_segment_ids_are_the_originals_zeros_or_the_tokenizers_and_pairs_truncate(tiny_bert):
    items = qa_rows(0, 3)
    first = tiny_bert.tokenizer(items["stem"][0], items["choices"][0][0], truncation=True, max_length=9)
    assert 1 in first["token_type_ids"]
    original = mc_qa_examples(tiny_bert.tokenizer, items, max_pieces=9)
    tokenizer = mc_qa_examples(tiny_bert.tokenizer, items, max_pieces=9, segment_ids="tokenizer")
    for examples in (original, tokenizer):
        assert examples.inputs["token_type_ids"].shape == examples.inputs["input_ids"].shape
        assert examples.inputs["input_ids"].shape[-1] == 9
        assert examples.inputs["input_ids"][0, 0].tolist() == first["input_ids"]
    assert not original.inputs["token_type_ids"].any(), "the original reader's segment ids are all 0"
    assert tokenizer.inputs["token_type_ids"][0, 0].tolist() == first["token_type_ids"]
    with pytest.raises(McQaError, match="mc_qa_segment_ids must be one of"):
        mc_qa_examples(tiny_bert.tokenizer, items, segment_ids="bert")


@pytest.mark.parametrize(("pooling", "segment_ids"), [("pooler", "original"), ("first", "original"),
                                                    ("pooler", "tokenizer")])
def test_choice_logit_equals_a_manual_head_on_the_unpadded_pair(bert_encoder, pooling, segment_ids):
    items = qa_rows(0, 4)
    examples = mc_qa_examples(bert_encoder.tokenizer, items, segment_ids=segment_ids)
    with seeded(5):
        model = fresh_model(bert_encoder, pooling=pooling).eval()
    encoder = bert_encoder.encoder
    with torch.no_grad():
        logits = model(**examples.inputs)
        for i, row in enumerate(items.to_dict("records")):
            for k, choice in enumerate(row["choices"]):
                pair = bert_encoder.tokenizer(row["stem"], choice, return_tensors="pt")
                if segment_ids == "original":
                    pair["token_type_ids"].zero_()
                first = encoder(**pair).last_hidden_state[0, 0]
                if pooling == "pooler":
                    first = torch.tanh(encoder.pooler.dense.weight @ first + encoder.pooler.dense.bias)
                expected = model.classifier.weight[0] @ first + model.classifier.bias[0]
                assert logits[i, k].item() == pytest.approx(expected.item(), abs=1e-5)
    assert logits.shape == (4, 3)


def test_fresh_model_restores_the_pretrained_encoder_and_draws_head_and_pooler_from_the_seed(bert_encoder):
    assert "pooler.dense.weight" in bert_encoder.fresh_keys  # the tiny checkpoint is a BertForMaskedLM
    with seeded(1):
        first = fresh_model(bert_encoder)
        head, pooler = first.classifier.weight.clone(), bert_encoder.encoder.pooler.dense.weight.clone()
    with torch.no_grad():
        bert_encoder.encoder.embeddings.word_embeddings.weight.add_(1.0)  # as a training run would
    with seeded(1):
        again = fresh_model(bert_encoder)
    assert torch.equal(again.classifier.weight, head)
    assert torch.equal(bert_encoder.encoder.pooler.dense.weight, pooler)
    state = bert_encoder.encoder.state_dict()
    assert all(torch.equal(state[name], value) for name, value in bert_encoder.initial_state.items()
               if name not in bert_encoder.fresh_keys)
    with seeded(2):
        other = fresh_model(bert_encoder)
    assert not torch.equal(other.classifier.weight, head)


def test_a_run_does_not_leak_into_the_next(bert_encoder):
    examples = mc_qa_examples(bert_encoder.tokenizer, qa_rows(12, 6))
    train = examples.subset(range(12))
    dev = examples.subset(range(12, 18))

    def run(seed: int) -> tuple[object, dict[str, torch.Tensor]]:
        result, model = fine_tune(bert_encoder, train, dev, seed=seed, hp=FAST)
        return result, {name: value.detach().clone() for name, value in model.state_dict().items()}

    result, weights = run(1)
    _, other_weights = run(2)
    again_result, again_weights = run(1)
    assert again_result == result
    assert all(torch.equal(again_weights[name], value) for name, value in weights.items())
    assert any(not torch.equal(other_weights[name], value) for name, value in weights.items())
    # training changed the encoder itself (the whole network is fine-tuned)
    assert not torch.equal(weights["encoder.embeddings.word_embeddings.weight"],
                           bert_encoder.initial_state["embeddings.word_embeddings.weight"])


def test_same_seed_same_curve(tiny_dir):
    items = qa_rows(10, 6)
    spec = {"family": "masked"}
    first = mc_qa_curves(tiny_dir("roberta"), spec, items, grid=(4, 8, 62), seeds=(1, 2), hp=FAST, device="cpu",
                         slug="tiny-roberta")
    again = mc_qa_curves(tiny_dir("roberta"), spec, items, grid=(4, 8, 62), seeds=(1, 2), hp=FAST, device="cpu",
                         slug="tiny-roberta")
    pd.testing.assert_frame_equal(first, again)
    assert list(first.columns) == CURVE_SCHEMA.names
    assert first[["n_train", "seed"]].values.tolist() == [[4, 1], [4, 2], [8, 1], [8, 2]]
    assert set(first["setting"]) == {"mc_qa"} and set(first["model"]) == {"tiny-roberta"}
    assert (first["n_dev"] == 6).all() and first["epoch_accuracies"].map(len).eq(2).all()


def test_causal_model_is_refused_naming_model_and_task(tiny_dir):
    with pytest.raises(McQaError, match=r"tiny-gpt2.*property_conjunction"):
        mc_qa_curves(tiny_dir("gpt2"), {"family": "causal"}, qa_rows(4, 2), grid=(4,), slug="tiny-gpt2", device="cpu")


def age_rows(stem: str = "A 15 year old person age is [MASK] than a 16 year old person .") -> pd.DataFrame:
    return pd.DataFrame.from_records([make_item(
        "age_comparison", "release", "standard", split, 1, id="x", stem=stem, choices=["younger", "older"], answer=0)
        for split in ("train", "dev")], columns=SCHEMA.names)


@pytest.mark.parametrize("mask_encoding", ["original", "tokenizer"])
@pytest.mark.parametrize("kind", ["bert", "roberta"])
def test_an_mc_mlm_stem_keeps_its_mask_as_the_models_mask_token(kind, mask_encoding, tiny_dir):
    """Figure 2D fine-tunes MC-QA on age comparison: as the original reader, [MASK] becomes <mask> for RoBERTa,
    and (``original``) the word after it is read without its space, as transformers 2.x read it."""
    tokenizer = load_encoder(tiny_dir(kind), slug=f"tiny-{kind}", device=torch.device("cpu")).tokenizer
    examples = mc_qa_examples(tokenizer, age_rows(), mask_encoding=mask_encoding)
    stripped = mask_encoding == "original" and kind == "roberta"
    around = "" if stripped else " "
    spelled = "A 15 year old person age is" + around + tokenizer.mask_token + around + "than a 16 year old person ."
    for k, choice in enumerate(["younger", "older"]):
        ids = tokenizer(spelled, choice)["input_ids"]
        assert examples.inputs["input_ids"][0, k, :len(ids)].tolist() == ids
        assert ids.count(tokenizer.mask_token_id) == 1  # a literal "[MASK]" is four pieces for RoBERTa


def test_an_mc_mlm_stem_for_a_tokenizer_without_mask_token_is_refused_naming_the_row(tiny_dir):
    tokenizer = load_encoder(tiny_dir("bert"), slug="tiny-bert", device=torch.device("cpu")).tokenizer
    tokenizer.mask_token = None
    row_id = age_rows()["row_id"].iloc[0]
    with pytest.raises(McQaError, match=f"{row_id}: the stem has \\[MASK\\] but tokenizer .* has no mask token"):
        mc_qa_examples(tokenizer, age_rows())


@pytest.mark.parametrize("progress", [False, True])
def test_each_curve_run_shows_its_bar_as_asked_and_evaluates_within_the_token_budget(tiny_dir, monkeypatch, progress):
    from lmprobes.suites.olmpics import mcqa

    fits = []

    def noting_fit(*args, **kwargs):
        fits.append((kwargs["progress"], kwargs["eval_tokens"]))
        return real_fit(*args, **kwargs)

    real_fit = mcqa.fit
    monkeypatch.setattr(mcqa, "fit", noting_fit)
    spec = {"family": "masked", "batch_tokens": 512}
    mc_qa_curves(tiny_dir("bert"), spec, age_rows(), grid=(1,), hp=FAST, device="cpu", progress=progress)
    assert fits == [(progress, 512)]


def test_mc_mlm_items_train_unknown_tasks_and_bad_pooling_are_refused(tiny_dir, bert_encoder):
    curve = mc_qa_curves(tiny_dir("bert"), {"family": "masked"}, age_rows(), grid=(1,), hp=FAST, device="cpu")
    assert curve[["task", "setting", "n_train", "n_dev"]].values.tolist() == [["age_comparison", "mc_qa", 1, 1]]
    unknown = age_rows().assign(task="age_compare")
    with pytest.raises(McQaError, match="age_compare"):
        mc_qa_curves(tiny_dir("bert"), {"family": "masked"}, unknown, grid=(1,), device="cpu")
    with pytest.raises(McQaError, match="pooling"):
        McQaModel(bert_encoder.encoder, bert_encoder.hidden, pooling="mean")


def test_fine_tuning_learns_a_copy_task_well_above_chance(bert_encoder):
    items = qa_rows(200, 60, seed=2)
    items["stem"] = [f"what is related to {row['choices'][row['answer']]}" for row in items.to_dict("records")]
    examples = mc_qa_examples(bert_encoder.tokenizer, items)
    train, dev = examples.subset(range(200)), examples.subset(range(200, 260))
    result, _ = fine_tune(bert_encoder, train, dev, seed=1, hp=with_overrides(TRANSFORMER, lr=1e-3))
    assert result.accuracy > 65  # chance is 33%


def test_the_mc_qa_timing_bench_runs_and_extrapolates(capsys):
    from lmprobes.suites.olmpics.mcqa_bench import main

    assert main(["--tiny", "--sizes", "4,8", "--n-dev", "4", "--threads", "1"]) == 0
    printed = capsys.readouterr().out
    assert "run at N=4" in printed and "full MC-QA grid (7 N x 6 seeds x 3 variants x 2 tasks)" in printed


def test_an_encoder_missing_more_than_its_pooler_is_refused(tiny_dir, tmp_path):
    """The pooler may be drawn anew (an MLM checkpoint has none); a missing layer would be random."""
    import shutil

    from safetensors.torch import load_file, save_file

    from lmprobes.models import ModelError

    folder = shutil.copytree(tiny_dir("bert"), tmp_path / "bert")
    tensors = load_file(folder / "model.safetensors")
    layer = "bert.encoder.layer.1."
    save_file({k: v for k, v in tensors.items() if not k.startswith(layer)}, folder / "model.safetensors",
              metadata={"format": "pt"})
    with pytest.raises(ModelError, match=r"'broken'.*encoder\.layer\.1\..*allow_missing_weights: true"):
        load_encoder(folder, slug="broken", device=torch.device("cpu"))
    allowed = load_encoder(folder, slug="broken", device=torch.device("cpu"), spec={"allow_missing_weights": True})
    assert any(key.startswith("encoder.layer.1.") for key in allowed.fresh_keys)


@pytest.mark.parametrize(("model_type", "padding", "trims"), [
    ("bert", "auto", True), ("funnel", "auto", False), ("fnet", "auto", False), ("funnel", "right", True),
    ("bert", "equal_length", False),
])
def test_batches_are_trimmed_unless_the_models_outputs_change_with_padding(model_type, padding, trims):
    assert trims_padding("m", model_type, padding) is trims


def test_an_unknown_padding_is_refused_naming_the_model():
    with pytest.raises(McQaError, match=r"'m'.*padding must be one of"):
        trims_padding("m", "bert", "left")


def test_train_and_dev_are_padded_to_one_length(tiny_bert):
    rows = qa_rows(6, 2)
    rows.loc[rows["split"] == "dev", "stem"] = " ".join(["what is usually located at church and is old"] * 4)
    train, dev = split_examples(tiny_bert.tokenizer, rows, 256)
    assert train.inputs["input_ids"].shape[-1] == dev.inputs["input_ids"].shape[-1]
    alone = mc_qa_examples(tiny_bert.tokenizer, rows[rows["split"] == "train"])
    width = alone.inputs["input_ids"].shape[-1]
    assert width < train.inputs["input_ids"].shape[-1]
    assert torch.equal(train.inputs["input_ids"][..., :width], alone.inputs["input_ids"])
    assert (train.inputs["input_ids"][..., width:] == tiny_bert.tokenizer.pad_token_id).all()
    assert (train.inputs["attention_mask"][..., width:] == 0).all()


def test_a_padding_sensitive_encoders_logits_do_not_depend_on_the_batch(tiny_bert):
    """FNet mixes pad positions in: trimmed batches would give an item other logits beside a longer
    item than alone; padded to the task's one length they are the same."""
    from model_zoo import random_model

    encoder = random_model("fnet", tiny_bert.tokenizer, "masked").base_model
    rows = qa_rows(0, 2)
    rows.loc[rows.index[1], "stem"] = "what is usually located at church and has a property of very old"
    examples = mc_qa_examples(tiny_bert.tokenizer, rows)
    short = {name: tensor[:1] for name, tensor in examples.inputs.items()}
    for trim, same in ((False, True), (True, False)):
        with seeded(0):
            model = McQaModel(encoder, encoder.config.hidden_size, pooling="first", trim=trim).eval()
        with torch.no_grad():
            together, alone = model(**examples.inputs)[0], model(**short)[0]
        assert torch.allclose(together, alone, atol=1e-6) is same


def test_the_configured_segment_ids_reach_the_curves_and_the_single_hop_stage(tmp_path, monkeypatch):
    from lmprobes.io import write_parquet
    from lmprobes.suites.olmpics import learning

    seen = []
    monkeypatch.setattr(learning, "mc_qa_curves", lambda *a, **k: seen.append(k["segment_ids"]) or pd.DataFrame(
        columns=CURVE_SCHEMA.names))
    monkeypatch.setattr(learning, "single_hop_stage", lambda *a, **k: seen.append(k["segment_ids"]))
    monkeypatch.setattr(learning, "save_stage_one", lambda *a: None)
    rows = qa_rows(2, 2)
    for name in ("release", "controls"):
        write_parquet(rows, tmp_path / f"{name}.parquet", SCHEMA, {})
    for curves in ({"grid": [2]}, {"grid": [2], "mc_qa_segment_ids": "tokenizer"}):
        learning.mc_qa_seed_file(tmp_path / "release.parquet", tmp_path / "controls.parquet", tmp_path, tmp_path / "c",
                                 slug="m", spec={}, task=rows["task"][0], variant="standard", seed=1, curves=curves,
                                 device="cpu", progress=False)
        learning.single_hop_stage_file(tmp_path / "release.parquet", tmp_path, tmp_path / "s", slug="m", spec={},
                                       seed=1, curves=curves, device="cpu", progress=False)
    assert seen == ["original", "original", "tokenizer", "tokenizer"]


def test_seed_files_merge_into_the_curve_one_job_would_make_and_disagreeing_ones_are_refused(tmp_path, tiny_dir,
                                                                                            capsys):
    from lmprobes.io import job_metadata, read_metadata, read_parquet, write_parquet
    from lmprobes.revisions import REVISIONS
    from lmprobes.suites.olmpics import split_seeds
    from lmprobes.suites.olmpics.curves import CurveError
    from lmprobes.suites.olmpics.learning import mc_qa_seed_file
    from lmprobes.suites.olmpics.seed_curves import merge_seed_curves, split_seed_curves

    rows = qa_rows(10, 6)
    release, controls = tmp_path / "release.parquet", tmp_path / "controls.parquet"
    write_parquet(rows, release, SCHEMA, {})
    write_parquet(rows.iloc[0:0], controls, SCHEMA, {})
    curves = {"grid": [4, 8], "training": {"mc_qa": {"lr": 1e-3, "epochs": 2, "batch_size": 4}}}

    def seed_file(seed: int, **changes) -> Path:
        out = tmp_path / f"seed{seed}{len(changes)}.parquet"
        with job_metadata({"rule": "olmpics_mc_qa_seed", "revision": REVISIONS["olmpics_mc_qa_seed"]}):  # its job
            mc_qa_seed_file(release, controls, tiny_dir("roberta"), out, slug="tiny-roberta",
                            spec={"family": "masked"}, task="property_conjunction", variant="standard", seed=seed,
                            curves={**curves, **changes}, device="cpu", progress=False)
        return out

    parts = [seed_file(2), seed_file(1)]  # in the config's order, which need not be sorted
    assert read_metadata(parts[0])["seeds"] == [2] and read_parquet(parts[0])["seed"].tolist() == [2, 2]
    merged = merge_seed_curves(parts, tmp_path / "curve.parquet")
    at_once = mc_qa_curves(tiny_dir("roberta"), {"family": "masked"}, rows, grid=(4, 8), seeds=(2, 1), hp=FAST,
                           device="cpu", slug="tiny-roberta")
    pd.testing.assert_frame_equal(merged, at_once)  # sharding by seed changes no run
    pd.testing.assert_frame_equal(read_parquet(tmp_path / "curve.parquet"), at_once)
    metadata = read_metadata(tmp_path / "curve.parquet")
    assert metadata["seeds"] == [2, 1] and metadata["grid"] == [4, 8] and metadata["hyper_parameters"]["lr"] == 1e-3
    assert "job" not in metadata, "the seed job's rule is not the merge's (a merge job records its own)"
    # A curve file made in one job before the seeds had their own splits into the files they write.
    split_seeds.main([str(tmp_path / "curve.parquet")])
    split = [Path(line) for line in capsys.readouterr().out.splitlines()]
    assert split == [tmp_path / "seeds/curve.seed2.parquet", tmp_path / "seeds/curve.seed1.parquet"]
    assert [path.read_bytes() for path in split] == [path.read_bytes() for path in parts]
    with pytest.raises(CurveError, match=r"release\.parquet: not an MC-QA curve file"):
        split_seed_curves(release)
    with pytest.raises(CurveError, match=r"seed11\.parquet: its \['grid'\] differ from .*seed20\.parquet"):
        merge_seed_curves([parts[0], seed_file(1, grid=[4])], tmp_path / "bad.parquet")
    with pytest.raises(CurveError, match=r"seeds \[2, 2\] .* repeat"):
        merge_seed_curves([parts[0], parts[0]], tmp_path / "bad.parquet")
    mislabelled = tmp_path / "mislabelled.parquet"
    write_parquet(read_parquet(parts[0]), mislabelled, CURVE_SCHEMA, {**read_metadata(parts[0]), "seeds": [3]})
    with pytest.raises(CurveError, match=r"mislabelled\.parquet: rows of seeds \[2\], its metadata says 3"):
        merge_seed_curves([parts[1], mislabelled], tmp_path / "bad.parquet")
    with pytest.raises(CurveError, match=r"release\.parquet: not one seed's curve file"):
        merge_seed_curves([parts[1], release], tmp_path / "bad.parquet")
    # Which version wrote a seed file is provenance: a seed added after an upgrade still merges.
    newer = tmp_path / "newer.parquet"
    write_parquet(read_parquet(parts[0]), newer, CURVE_SCHEMA, {**read_metadata(parts[0]), "generator": "lmprobes 9"})
    merge_seed_curves([newer, parts[1]], tmp_path / "mixed.parquet")
    assert read_metadata(tmp_path / "mixed.parquet")["generator"] == f"{metadata['generator']}; lmprobes 9"
    assert not (tmp_path / "bad.parquet").exists()


def test_each_seed_fine_tunes_on_its_own_nested_subset_of_the_train_rows_in_row_order(tiny_dir, bert_encoder,
                                                                                      monkeypatch):
    """The N examples of seed s are the first N of numpy's default_rng(s) permutation of the train rows
    ordered by row number, whatever the order of the items given."""
    from lmprobes.suites.olmpics import mcqa
    from lmprobes.suites.olmpics.training import RunResult

    items = qa_rows(12, 4, seed=5)
    trained = {}

    def recording_fit(model, train, dev, hp, *, seed, **kwargs):
        pad = bert_encoder.tokenizer.pad_token_id
        trained[(seed, len(train))] = [tuple(tuple(t for t in choice if t != pad) for choice in item)
                                       for item in train.inputs["input_ids"].tolist()]
        return RunResult(50.0, 1, (50.0,))

    monkeypatch.setattr(mcqa, "fit", recording_fit)
    mc_qa_curves(tiny_dir("bert"), {"family": "masked"}, items.sample(frac=1.0, random_state=3), grid=(4, 8),
                 seeds=(1, 2), hp=FAST, device="cpu")
    train_rows = items[items["split"] == "train"].sort_values("row").to_dict("records")
    encoded = [tuple(tuple(bert_encoder.tokenizer(row["stem"], choice)["input_ids"]) for choice in row["choices"])
               for row in train_rows]
    for seed in (1, 2):
        order = np.random.default_rng(seed).permutation(len(train_rows))
        for n in (4, 8):
            assert trained[(seed, n)] == [encoded[i] for i in order[:n]], (seed, n)
    assert trained[(1, 8)] != trained[(2, 8)]


def test_the_head_is_small_and_reads_the_pooled_output_through_the_configs_dropout(bert_encoder):
    """A fresh Linear(H, 1), weight normal(0, 0.02) and bias 0, on the pooled output after dropout at the
    config's hidden_dropout_prob (so, with the encoder's own dropout off, two training passes differ)."""
    config = bert_encoder.encoder.config
    assert config.hidden_dropout_prob > 0
    with seeded(3):
        model = fresh_model(bert_encoder)
    assert model.dropout.p == config.hidden_dropout_prob
    assert float(model.classifier.weight.detach().std()) == pytest.approx(0.02, abs=0.008) and not model.classifier.bias.any()
    examples = mc_qa_examples(bert_encoder.tokenizer, qa_rows(0, 4))
    model.train()
    model.encoder.eval()
    try:
        with torch.no_grad(), seeded(4):
            first, second = model(**examples.inputs), model(**examples.inputs)
    finally:
        model.eval()
    assert not torch.equal(first, second)
