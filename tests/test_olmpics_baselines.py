"""MLM-BASELINE and ESIM: features and shapes by hand, seeded determinism, and that ESIM learns."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from lmprobes.suites.olmpics.baselines import (
    ESIM,
    BaselineError,
    Esim,
    MlmBaseline,
    VariationalDropout,
    baseline_curves,
    baseline_zero_shot,
    build_baseline,
    esim_examples,
    mlm_baseline_examples,
    stem_features,
    words_needed,
)
from lmprobes.suites.olmpics.glove import read_glove
from lmprobes.suites.olmpics.mcqa import seeded
from lmprobes.suites.olmpics.schema import CURVE_SCHEMA, SCHEMA, make_item
from lmprobes.suites.olmpics.training import accuracy, fit, with_overrides
from olmpics_rows import related_word_rows

FIXTURE = Path(__file__).parent / "data" / "glove" / "glove.6B.50d.txt"
AGE = "A {a} year old person age is [MASK] than a {b} year old person ."
WORDS = ["dog", "cat", "boat", "corn", "farmer", "doctor", "water", "church", "man", "crop", "band", "size"]


@pytest.fixture(scope="module")
def glove():
    return read_glove(FIXTURE)


@pytest.fixture(scope="module")
def vectors() -> dict[str, list[float]]:
    table = {}
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        word, *values = line.split(" ")
        table[word] = [float(v) for v in values]
    return table


def frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame.from_records(rows, columns=SCHEMA.names)


def age_rows(n_train: int, n_dev: int, seed: int = 0) -> pd.DataFrame:
    rng = random.Random(seed)
    rows = []
    for split, count in (("train", n_train), ("dev", n_dev)):
        for row in range(1, count + 1):
            a, b = rng.sample([15, 16, 17, 37, 41, 42, 43, 104], 2)
            rows.append(make_item("age_comparison", "release", "standard", split, row, id=f"{split}{row}",
                                  stem=AGE.format(a=a, b=b), choices=["younger", "older"], answer=int(a > b)))
    return frame(rows)


def copy_rows(n_train: int, n_dev: int, seed: int = 0) -> pd.DataFrame:
    """MC-QA rows whose answer is the choice repeating the question's word: trivially separable."""
    return related_word_rows(n_train, n_dev, WORDS, seed=seed)


# --- MLM-BASELINE features ----------------------------------------------------------------------------


def test_stem_features_concatenate_glove_vectors_and_zero_pad_to_1000(glove, vectors):
    features = stem_features(AGE.format(a=15, b=16), glove)
    tokens = ["a", "15", "year", "old", "person", "age", "is", "@@", "than", "a", "16", "year", "old", "person", "."]
    expected = []
    for token in tokens:
        expected += vectors.get(token, [0.0] * 50)  # "@@" is not a GloVe word: zeros
    expected += [0.0] * (1000 - 50 * len(tokens))
    assert features.shape == (1000,)
    assert features.tolist() == pytest.approx(expected, abs=1e-6)


def test_stem_features_keep_only_the_first_20_tokens(glove, vectors):
    words = [WORDS[i % len(WORDS)] for i in range(25)]
    features = stem_features(" ".join(words), glove)
    expected = [value for word in words[:20] for value in vectors[word]]
    assert features.tolist() == pytest.approx(expected, abs=1e-6)


def test_mlm_examples_map_each_choice_to_its_first_word(glove):
    rows = frame([
        make_item("taxonomy_conjunction", "release", "standard", "train", 1, id="a",
                  stem="A dog and a cat are both a type of [MASK]", choices=["mammal", "chess set", "Deer"], answer=0),
        make_item("taxonomy_conjunction", "release", "standard", "dev", 1, id="b",
                  stem="A corn and a crop are both a type of [MASK]", choices=["plant", "mammal", "chess"], answer=2),
    ])
    examples = mlm_baseline_examples(rows, glove)
    assert examples.meta["vocabulary"] == ["chess", "deer", "mammal", "plant"]
    assert examples.inputs["choice_ids"].tolist() == [[2, 0, 1], [3, 2, 0]]
    assert examples.inputs["features"].shape == (2, 1000)
    assert examples.labels.tolist() == [0, 2]
    assert examples.meta["split"] == ["train", "dev"]


def test_empty_choice_is_an_error_naming_the_row(glove):
    rows = frame([make_item("age_comparison", "release", "standard", "dev", 3, id="x", stem=AGE.format(a=1, b=2),
                            choices=["younger", ""], answer=0)])
    with pytest.raises(BaselineError, match="age_comparison:release:standard:dev:3"):
        mlm_baseline_examples(rows, glove)


def test_mlm_head_logits_equal_the_full_vocabulary_head_gathered_at_the_choices():
    torch.manual_seed(0)
    model = MlmBaseline(vocab_size=7).eval()
    with torch.no_grad():
        model.bias.copy_(torch.randn(7))
    features = torch.randn(3, 1000)
    choice_ids = torch.tensor([[0, 6], [3, 3], [5, 1]])
    hidden = features @ model.dense.weight.T + model.dense.bias
    hidden = 0.5 * hidden * (1 + torch.erf(hidden / math.sqrt(2)))
    mean, var = hidden.mean(-1, keepdim=True), hidden.var(-1, unbiased=False, keepdim=True)
    hidden = (hidden - mean) / torch.sqrt(var + 1e-5) * model.layer_norm.weight + model.layer_norm.bias
    full = hidden @ model.decoder.weight.T + model.bias  # (3, 7)
    expected = full.gather(1, choice_ids)
    with torch.no_grad():
        assert torch.allclose(model(features, choice_ids), expected, atol=1e-5)


def test_zero_shot_is_the_random_heads_accuracy_and_near_chance(glove):
    items = age_rows(4, 200)
    table = baseline_zero_shot(items, glove, seed=3)
    assert table[["task", "model", "n_dev"]].values.tolist() == [["age_comparison", "mlm_baseline", 200]]
    every = mlm_baseline_examples(items, glove)
    with seeded(3):
        model = build_baseline("mlm_baseline", every).eval()
    correct = 0
    with torch.no_grad():
        for i, split in enumerate(every.meta["split"]):
            if split == "dev":
                scores = model(every.inputs["features"][i:i + 1], every.inputs["choice_ids"][i:i + 1])[0].tolist()
                correct += int(scores.index(max(scores)) == int(every.labels[i]))
    assert table["accuracy"].iloc[0] == pytest.approx(100 * correct / 200)
    assert 25 <= table["accuracy"].iloc[0] <= 75


# --- seeded determinism ------------------------------------------------------------------------------------


def test_same_seed_same_initialisation_other_seed_other(glove):
    every = mlm_baseline_examples(age_rows(4, 4), glove)

    def weights(seed: int) -> torch.Tensor:
        with seeded(seed):
            return build_baseline("mlm_baseline", every).decoder.weight.detach().clone()

    assert torch.equal(weights(1), weights(1))
    assert not torch.equal(weights(1), weights(2))


def test_mlm_baseline_curves_are_deterministic(glove):
    items = age_rows(40, 30)
    hp = with_overrides(ESIM, batch_size=8, epochs=3, patience=None)
    first = baseline_curves(items, glove, kind="mlm_baseline", grid=(16, 32, 4000), seeds=(1, 2), hp=hp)
    again = baseline_curves(items, glove, kind="mlm_baseline", grid=(16, 32, 4000), seeds=(1, 2), hp=hp)
    pd.testing.assert_frame_equal(first, again)
    assert list(first.columns) == CURVE_SCHEMA.names
    assert first[["n_train", "seed"]].values.tolist() == [[16, 1], [16, 2], [32, 1], [32, 2]]  # no 4K: 40 rows
    assert set(first["model"]) == {"mlm_baseline"} and set(first["setting"]) == {"mlm_baseline"}
    assert (first["n_dev"] == 30).all() and first["epoch_accuracies"].map(len).eq(3).all()


def test_baseline_refuses_tasks_of_the_other_setup(glove):
    with pytest.raises(BaselineError, match="age_comparison"):
        baseline_curves(age_rows(8, 4), glove, kind="esim", grid=(4,))
    with pytest.raises(BaselineError, match="property_conjunction"):
        baseline_curves(copy_rows(8, 4), glove, kind="mlm_baseline", grid=(4,))
    with pytest.raises(BaselineError, match="kind"):
        baseline_curves(copy_rows(8, 4), glove, kind="bow", grid=(4,))


# --- ESIM ---------------------------------------------------------------------------------------------------


def test_esim_examples_pad_word_ids_and_start_from_glove(glove, vectors):
    items = frame([
        make_item("property_conjunction", "release", "standard", "train", 1, id="a",
                  stem="what is related to dog", choices=["cat", "chess set", "zebra"], answer=0),
        make_item("property_conjunction", "release", "standard", "dev", 1, id="b",
                  stem="what has cat", choices=["dog", "boat", "cat"], answer=1),
    ])
    examples = esim_examples(items, glove)
    vocabulary = examples.meta["vocabulary"]
    assert vocabulary == ["@@PADDING@@", "boat", "cat", "chess", "dog", "has", "is", "related", "set", "to", "what",
                          "zebra"]
    ids = {word: i for i, word in enumerate(vocabulary)}
    assert examples.inputs["premise"].tolist() == [[ids[w] for w in ("what", "is", "related", "to", "dog")],
                                                   [ids["what"], ids["has"], ids["cat"], 0, 0]]
    assert examples.inputs["hypotheses"].tolist() == [
        [[ids["cat"], 0], [ids["chess"], ids["set"]], [ids["zebra"], 0]],
        [[ids["dog"], 0], [ids["boat"], 0], [ids["cat"], 0]],
    ]
    embeddings = examples.meta["embeddings"]
    assert embeddings.shape == (12, 50)
    assert not embeddings[0].any() and not embeddings[ids["zebra"]].any() and not embeddings[ids["chess"]].any()
    assert embeddings[ids["dog"]].tolist() == pytest.approx(vectors["dog"], abs=1e-6)


def test_esim_learns_a_trivially_separable_task(glove):
    items = copy_rows(320, 60, seed=1)
    examples = esim_examples(items, glove)
    train = examples.subset([i for i, s in enumerate(examples.meta["split"]) if s == "train"])
    dev = examples.subset([i for i, s in enumerate(examples.meta["split"]) if s == "dev"])
    hp = with_overrides(ESIM, lr=4e-3, epochs=8, patience=None)
    with seeded(0):
        model = Esim(examples.meta["embeddings"], hidden=24, projection=24)
        before = accuracy(model, dev, 256, torch.device("cpu"))
        result = fit(model, train, dev, hp, seed=0)
    assert result.accuracy > 90 and result.accuracy > before + 30


def test_esim_curves_default_model_run(glove):
    items = copy_rows(12, 6)
    hp = with_overrides(ESIM, epochs=1)
    curves = baseline_curves(items, glove, kind="esim", grid=(8, 62), seeds=(3,), hp=hp)
    assert curves[["model", "setting", "n_train", "seed", "n_dev", "epoch"]].values.tolist() == [
        ["esim_baseline", "esim", 8, 3, 6, 1]]


def test_glove_read_for_the_words_needed_gives_the_same_inputs(glove):
    items = age_rows(3, 3)
    qa = copy_rows(4, 4)
    needed = words_needed(pd.concat([items, qa]))
    assert {"@@", "year", "older", "dog", "related"} <= needed and "[" not in needed
    small = read_glove(FIXTURE, vocabulary=needed)
    assert len(small[0]) < len(glove[0])
    assert torch.equal(mlm_baseline_examples(items, small).inputs["features"],
                       mlm_baseline_examples(items, glove).inputs["features"])
    assert torch.equal(esim_examples(qa, small).meta["embeddings"], esim_examples(qa, glove).meta["embeddings"])


def test_the_baselines_dropout_initialisation_and_batch_sizes_are_the_originals():
    with seeded(0):
        head = MlmBaseline(7)
    assert head.dropout.p == 0.5
    assert float(head.dense.weight.detach().std()) == pytest.approx(0.02, abs=5e-4)
    assert float(head.decoder.weight.detach().std()) == pytest.approx(0.02, abs=2e-3)
    assert (ESIM.batch_size, ESIM.weight_decay, ESIM.lr, ESIM.patience) == (32, 0.0, 4e-4, 10)


def test_variational_dropout_drops_whole_features_of_a_sequence_and_rescales_the_rest():
    dropout = VariationalDropout(0.25).train()
    with seeded(0):
        out = dropout(torch.ones(4, 6, 50))
    assert out.unique().tolist() == pytest.approx([0.0, 1 / 0.75])
    assert torch.equal(out, out[:, :1, :].expand_as(out))  # one mask per sequence, the same at every step
    assert not torch.equal(out[0], out[1])


def test_baseline_curves_train_each_seed_on_its_own_nested_subset_of_the_train_rows_in_row_order(glove,
                                                                                                  monkeypatch):
    from lmprobes.suites.olmpics import baselines
    from lmprobes.suites.olmpics.training import RunResult

    items = age_rows(20, 6, seed=3)
    trained = {}

    def recording_fit(model, train, dev, hp, *, seed, **kwargs):
        trained[(seed, len(train))] = train.inputs["features"]
        return RunResult(50.0, 1, (50.0,))

    monkeypatch.setattr(baselines, "fit", recording_fit)
    baseline_curves(items.sample(frac=1.0, random_state=1), glove, kind="mlm_baseline", grid=(5, 10), seeds=(1, 2))
    train_rows = items[items["split"] == "train"].sort_values("row")
    features = torch.stack([stem_features(stem, glove) for stem in train_rows["stem"]])
    for seed in (1, 2):
        order = np.random.default_rng(seed).permutation(len(train_rows))
        for n in (5, 10):
            assert torch.equal(trained[(seed, n)], features[order[:n]]), (seed, n)


def test_esim_scores_each_question_and_choice_as_if_neither_were_padded(glove):
    """Stems and choices of several lengths: padding must not enter the mean (or max) pooling."""
    items = frame([
        make_item("property_conjunction", "release", "standard", "dev", 1, id="a",
                  stem="what is related to dog and is usually located at church", choices=["cat", "chess set", "crop"],
                  answer=0),
        make_item("property_conjunction", "release", "standard", "dev", 2, id="b",
                  stem="what has cat", choices=["dog", "boat", "water church man"], answer=1),
    ])
    examples = esim_examples(items, glove)
    with seeded(0):
        model = Esim(examples.meta["embeddings"], hidden=16, projection=16).eval()
    with torch.no_grad():
        together = model(**examples.inputs)
        for i in range(len(examples)):
            premise = examples.inputs["premise"][i]
            premise = premise[premise != 0].unsqueeze(0)
            for k, hypothesis in enumerate(examples.inputs["hypotheses"][i]):
                alone = model(premise, hypothesis[hypothesis != 0].view(1, 1, -1))
                assert together[i, k].item() == pytest.approx(alone.item(), abs=1e-5), (i, k)
    assert together.shape == (2, 3)
