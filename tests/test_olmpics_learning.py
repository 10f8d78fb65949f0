"""The learning-curve stages' glue: hyper-parameters from the config, items, the baseline's N = 0 rows."""

from __future__ import annotations

import pandas as pd
import pytest

from lmprobes.io import write_parquet
from lmprobes.suites.olmpics.hyperparameters import TrainingError
from lmprobes.suites.olmpics.learning import curve_items, hyper_parameters, untrained_rows
from lmprobes.suites.olmpics.schema import CURVE_SCHEMA, SCHEMA, make_item


def test_config_overrides_the_originals_per_setting_only():
    curves = {"training": {"mc_qa": {"epochs": 2}, "esim": {"batch_size": 4}}}
    qa, mlm, esim = (hyper_parameters(curves, s) for s in ("mc_qa", "mc_mlm", "esim"))
    assert (qa.lr, qa.epochs, qa.batch_size, qa.accumulation) == (1e-5, 2, 8, 2)
    assert (mlm.lr, mlm.epochs) == (5e-5, 4)
    assert (esim.batch_size, esim.optimizer, esim.weight_decay, esim.epochs) == (4, "adam", 0.0, 75)
    with pytest.raises(TrainingError, match="learning_rate"):
        hyper_parameters({"training": {"mc_mlm": {"learning_rate": 1.0}}}, "mc_mlm")


def item(task, variant, split, row):
    return make_item(task, "release", variant, split, row, id=str(row), stem="a [MASK] b", choices=["x", "y"],
                     answer=0)


def test_curve_items_are_the_release_and_its_controls_for_the_asked_tasks_and_variants(tmp_path):
    release, controls = tmp_path / "release.parquet", tmp_path / "controls.parquet"
    rows = [item(t, "standard", s, 1) for t in ("age_comparison", "always_never") for s in ("train", "dev")]
    write_parquet(pd.DataFrame(rows).astype({"seed": "Int64"}), release, SCHEMA, {})
    write_parquet(pd.DataFrame([item("age_comparison", "no_lang", "dev", 1),
                                item("age_comparison", "perturbed_lang", "dev", 1)]).astype({"seed": "Int64"}),
                  controls, SCHEMA, {})
    chosen = curve_items(release, controls, tasks=["age_comparison"], variants=["standard", "no_lang"])
    assert sorted(zip(chosen["variant"], chosen["split"])) == [("no_lang", "dev"), ("standard", "dev"),
                                                               ("standard", "train")]


def test_the_baselines_untrained_accuracy_becomes_curve_rows_at_n_zero():
    zero = pd.DataFrame({"task": ["age_comparison"], "flavour": ["release"], "variant": ["standard"],
                         "model": ["mlm_baseline"], "seed": [3], "accuracy": [50.0], "n_dev": [24]})
    rows = untrained_rows(zero)
    assert list(rows.columns) == CURVE_SCHEMA.names
    assert rows.iloc[0][["setting", "n_train", "epoch", "accuracy"]].tolist() == ["mlm_baseline", 0, 0, 50.0]
    assert rows.iloc[0]["epoch_accuracies"] == []
