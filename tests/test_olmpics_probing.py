"""MC-MLM learning curves on cached states: determinism, subsets, learning, frozen parts, no re-encoding."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
import torch

from lmprobes.io import write_parquet
from lmprobes.suites.olmpics import probe_bench, probing
from lmprobes.suites.olmpics.age import age_comparison
from lmprobes.suites.olmpics.heads import MlmHead, extract_head, make_probe
from lmprobes.suites.olmpics.hidden import ENCODER_COUNTS, encode_mask_states, split_hidden, write_hidden_cache
from lmprobes.suites.olmpics.hyperparameters import TRANSFORMER
from lmprobes.suites.olmpics.probing import (
    MC_MLM,
    ProbingError,
    cache_candidate_ids,
    fit_probe,
    mc_mlm_curves,
    task_data,
)
from lmprobes.suites.olmpics.schema import CURVE_SCHEMA
from lmprobes.suites.olmpics.training import accuracy, parameter_groups, with_overrides

WIDTH = 8
OLDER, YOUNGER = 11, 22
FAST = with_overrides(MC_MLM, epochs=2)
LEARN = with_overrides(MC_MLM, lr=0.05)


def synthetic_cache(n_train: int, n_dev: int, *, unknown: dict[str, int] | None = None, seed: int = 0) -> pd.DataFrame:
    """Hand-made mask states: dimension 0 is +5 when the answer word is OLDER, -5 for YOUNGER; the
    rest is noise, and each row lists the two words in a random order (so position says nothing).
    ``unknown[split]`` extra rows per split are flagged not kept and use an id the head lacks."""
    rng = np.random.default_rng(seed)
    records = []
    for split, n in (("train", n_train), ("dev", n_dev)):
        for row in range(1, n + (unknown or {}).get(split, 0) + 1):
            word = (OLDER, YOUNGER)[rng.integers(2)]
            state = rng.normal(size=WIDTH).astype(np.float32)
            state[0] = 5.0 if word == OLDER else -5.0
            order = [OLDER, YOUNGER] if rng.integers(2) else [YOUNGER, OLDER]
            kept = row <= n
            records.append({
                "row_id": f"age_comparison:generated:standard:{split}:{row}", "task": "age_comparison",
                "flavour": "generated", "variant": "standard", "split": split, "row": row,
                "answer": order.index(word), "candidate_ids": order if kept else [OLDER, 999], "n_multi_piece": 0,
                "kept": kept, "skip_reason": "" if kept else "unknown_choice", "hidden": state,
            })
    return pd.DataFrame(records)


def synthetic_head() -> MlmHead:
    """Identity dense layer, plain LayerNorm and zero decoder rows: every candidate starts at logit 0."""
    return MlmHead(model_type="synthetic", activation="linear", eps=1e-12, dense_weight=torch.eye(WIDTH),
                   dense_bias=torch.zeros(WIDTH), norm_weight=torch.ones(WIDTH), norm_bias=torch.zeros(WIDTH),
                   decoder_weight=torch.zeros(2, WIDTH), decoder_bias=torch.zeros(2), candidate_ids=(OLDER, YOUNGER))


def test_default_hyper_parameters_are_the_originals_with_lr_5e_5():
    assert MC_MLM == with_overrides(TRANSFORMER, lr=5e-5)
    assert (MC_MLM.batch_size, MC_MLM.accumulation, MC_MLM.epochs, MC_MLM.weight_decay) == (8, 2, 4, 0.1)


def test_curves_are_deterministic_leave_out_large_n_and_never_re_encode(tiny_bert, tmp_path):
    items = pd.DataFrame(age_comparison("train")[:70] + age_comparison("dev")[:20])
    ENCODER_COUNTS.reset()
    cache = encode_mask_states(tiny_bert, items)
    passes = ENCODER_COUNTS.passes
    head = extract_head(tiny_bert, cache_candidate_ids(cache))
    kwargs = {"grid": (16, 32, 100), "seeds": (1, 2), "hp": FAST, "model": "tiny-bert"}
    first = mc_mlm_curves(cache, head, **kwargs)
    second = mc_mlm_curves(cache, head, **kwargs)
    pd.testing.assert_frame_equal(first, second)
    assert ENCODER_COUNTS.passes == passes  # training ran on the cache only
    assert dict(ENCODER_COUNTS.items) == {("tiny-bert", "age_comparison", "train", "standard"): 70,
                                          ("tiny-bert", "age_comparison", "dev", "standard"): 20}
    assert sorted(set(first["n_train"])) == [16, 32]  # 100 > 70 training rows: left out
    assert len(first) == 2 * 2 * 2 and set(first["setting"]) == {"mlp_mlm", "linear"}
    assert (first["n_dev"] == 20).all() and first["epoch_accuracies"].map(len).eq(2).all()
    write_parquet(first, tmp_path / "a.parquet", CURVE_SCHEMA, {})
    write_parquet(second, tmp_path / "b.parquet", CURVE_SCHEMA, {})
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def test_each_seed_trains_on_its_own_nested_subset_of_kept_rows(monkeypatch):
    cache = synthetic_cache(40, 10, unknown={"train": 3, "dev": 2}).sample(frac=1.0, random_state=3)
    trained: dict[tuple[int, int], set] = {}
    real_fit = probing.fit

    def recording_fit(model, train, dev, hp, *, seed, **kwargs):
        trained[(seed, len(train))] = {tuple(h.tolist()) for h in train.inputs["hidden"]}
        assert len(dev) == 10
        return real_fit(model, train, dev, hp, seed=seed, **kwargs)

    monkeypatch.setattr(probing, "fit", recording_fit)
    frame = mc_mlm_curves(cache, synthetic_head(), settings=("linear",), grid=(5, 20), seeds=(1, 2), hp=FAST,
                          model="synthetic")
    assert (frame["n_dev"] == 10).all()
    kept_train = cache[(cache["split"] == "train") & cache["kept"]].sort_values("row")
    states = [tuple(float(x) for x in h) for h in kept_train["hidden"]]
    for seed in (1, 2):
        order = np.random.default_rng(seed).permutation(len(states))
        for n in (5, 20):
            assert trained[(seed, n)] == {states[i] for i in order[:n]}
        assert trained[(seed, 5)] < trained[(seed, 20)]
    assert trained[(1, 20)] != trained[(2, 20)]


def test_linear_probe_learns_a_linearly_readable_answer():
    cache = synthetic_cache(200, 100)
    # decoder rows pointing the wrong way: at init every dev answer is wrong, so training must flip them
    wrong = torch.zeros(2, WIDTH)
    wrong[:, 0] = torch.tensor([-1.0, 1.0])
    head = dataclasses.replace(synthetic_head(), decoder_weight=wrong)
    [task] = task_data(cache, head)
    assert accuracy(make_probe("linear", head, task.candidate_ids), task.dev, 256, torch.device("cpu")) == 0.0
    frame = mc_mlm_curves(cache, head, settings=("linear",), grid=(200,), seeds=(1, 2), hp=LEARN, model="synthetic")
    assert (frame["accuracy"] > 90).all(), frame["epoch_accuracies"].tolist()


def test_linear_freezes_dense_and_layer_norm_while_mlp_mlm_trains_them():
    head = synthetic_head()
    [task] = task_data(synthetic_cache(64, 16), head)
    for setting, transform_changes in (("linear", False), ("mlp_mlm", True)):
        probe = make_probe(setting, head, task.candidate_ids)
        fit_probe(probe, task.train, task.dev, 64, 1, LEARN)
        unchanged = [torch.equal(probe.dense.weight, head.dense_weight), torch.equal(probe.dense.bias, head.dense_bias),
                     torch.equal(probe.layer_norm.weight, head.norm_weight),
                     torch.equal(probe.layer_norm.bias, head.norm_bias)]
        assert (not all(unchanged)) if transform_changes else all(unchanged), setting
        assert not torch.equal(probe.decoder.weight, head.decoder_weight), setting
    assert torch.equal(head.decoder_weight, torch.zeros(2, WIDTH))  # runs trained copies


@pytest.mark.parametrize(("setting", "decayed", "spared"), [
    ("mlp_mlm", ["decoder.weight", "dense.weight"], ["decoder.bias", "dense.bias", "layer_norm.bias", "layer_norm.weight"]),
    ("linear", ["decoder.weight"], ["decoder.bias"]),
])
def test_probe_weight_decay_spares_biases_and_the_layer_norm_weight(setting, decayed, spared):
    """The original's AdamW groups: weight decay on the dense and decoder weights only."""
    probe = make_probe(setting, synthetic_head())
    names = {id(parameter): name for name, parameter in probe.named_parameters()}
    decay, no_decay = parameter_groups(probe, MC_MLM.weight_decay)
    assert sorted(names[id(p)] for p in decay["params"]) == decayed
    assert sorted(names[id(p)] for p in no_decay["params"]) == spared


def test_cache_paths_pairs_and_lists_give_the_same_curves(tmp_path):
    cache = synthetic_cache(30, 10)
    write_hidden_cache(cache, tmp_path / "cache.parquet", {})
    kwargs = {"settings": ("mlp_mlm",), "grid": (10,), "seeds": (3,), "hp": FAST, "model": "synthetic"}
    from_frame = mc_mlm_curves(cache, synthetic_head(), **kwargs)
    pd.testing.assert_frame_equal(from_frame, mc_mlm_curves(tmp_path / "cache.parquet", synthetic_head(), **kwargs))
    pd.testing.assert_frame_equal(from_frame, mc_mlm_curves(split_hidden(cache), synthetic_head(), **kwargs))
    halves = [cache.iloc[::2], cache.iloc[1::2]]  # a list of caches is read as their union
    write_hidden_cache(halves[1], tmp_path / "half.parquet", {})
    pd.testing.assert_frame_equal(from_frame, mc_mlm_curves([split_hidden(halves[0]), tmp_path / "half.parquet"],
                                                            synthetic_head(), **kwargs))
    with pytest.raises(ProbingError, match="more than one cache"):
        mc_mlm_curves([cache, cache], synthetic_head(), **kwargs)


def test_bad_options_are_named():
    cache = synthetic_cache(10, 5)
    with pytest.raises(ProbingError, match="'mlp'"):
        mc_mlm_curves(cache, synthetic_head(), settings=("mlp",), model="m")
    narrow = MlmHead(model_type="synthetic", activation="linear", eps=1e-12, dense_weight=torch.eye(WIDTH),
                     dense_bias=torch.zeros(WIDTH), norm_weight=torch.ones(WIDTH), norm_bias=torch.zeros(WIDTH),
                     decoder_weight=torch.zeros(1, WIDTH), decoder_bias=torch.zeros(1), candidate_ids=(OLDER,))
    with pytest.raises(ProbingError, match=r"candidate ids \[22\]"):
        mc_mlm_curves(cache, narrow, model="m")
    with pytest.raises(ProbingError, match="width 4"):
        mc_mlm_curves(cache.assign(hidden=[h[:4] for h in cache["hidden"]]), synthetic_head(), model="m")
    with pytest.raises(ProbingError, match="no kept dev rows"):
        mc_mlm_curves(cache[cache["split"] == "train"], synthetic_head(), model="m")


def test_probe_bench_smoke(capsys):
    assert probe_bench.main(["--tiny", "--n-train", "60", "--n-dev", "20", "--grid", "16,32,100", "--seeds", "1"]) == 0
    out = capsys.readouterr().out
    assert "cached      encode 80 items" in out  # each item once
    assert f"re-encoding encode {4 * (16 + 20) + 4 * (32 + 20)} items" in out  # every epoch: N train + dev
    assert "max |difference| 0.00 points over 2 runs" in out  # the cache changes nothing but the time
    assert "speed-up" in out and "full paper grid" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["--n-train", "0"], "--n-train must be between 1 and 4032"),
    (["--n-dev", "501"], "--n-dev must be between 1 and 500"),
    (["--grid", "16,x"], "argument --grid: expected comma-separated integers, got '16,x'"),
])
def test_probe_bench_refuses_bad_arguments_naming_them(capsys, argv, message):
    with pytest.raises(SystemExit):
        probe_bench.parse_args(argv)
    assert message in capsys.readouterr().err
