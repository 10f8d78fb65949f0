"""The learning-curve training core: schedules, subsets, parameter groups and seeded runs."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
import torch
from torch import nn

from lmprobes.suites.olmpics import training
from lmprobes.suites.olmpics.hyperparameters import BASELINE, TRANSFORMER, HyperParameters, TrainingError
from lmprobes.suites.olmpics.training import (
    Examples,
    MemoryLimit,
    accumulate_gradients,
    curve_points,
    fit,
    linear_warmup,
    parameter_groups,
    slanted_triangular,
    training_subset,
    with_overrides,
)


class Scorer(nn.Module):
    """Choice logits = features @ w (one shared weight vector), with a LayerNorm to test the groups."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.LayerNorm = nn.LayerNorm(dim)
        self.proj = nn.Linear(dim, 1)

    def forward(self, features: torch.Tensor) -> torch.Tensor:  # (B, K, D) -> (B, K)
        return self.proj(self.LayerNorm(features)).squeeze(-1)


def separable(n: int, seed: int) -> Examples:
    """Two choices; the answer's feature 0 is +1, the distractor's -1, the rest noise."""
    generator = torch.Generator().manual_seed(seed)
    features = torch.randn(n, 2, 4, generator=generator)
    labels = torch.randint(0, 2, (n,), generator=generator)
    features[:, :, 0] = -1.0
    features[torch.arange(n), labels, 0] = 1.0
    return Examples({"features": features}, labels)


def test_slanted_triangular_matches_the_allennlp_formula_by_hand():
    total, cut_frac, ratio = 100, 0.06, 32.0
    cut = 6  # int(100 * 0.06)
    expected = []
    for step in range(total + 1):
        p = step / cut if step < cut else 1 - (step - cut) / (total - cut)
        expected.append((1 + p * (ratio - 1)) / ratio)
    assert [slanted_triangular(s, total, cut_frac, ratio) for s in range(total + 1)] == pytest.approx(expected)
    assert slanted_triangular(0, total, cut_frac, ratio) == pytest.approx(1 / 32)
    assert slanted_triangular(6, total, cut_frac, ratio) == pytest.approx(1.0)


def test_slanted_triangular_with_fewer_steps_than_the_warm_up_starts_at_the_peak():
    # 4 steps x 0.06 -> cut 0: no warm-up, a linear fall from the peak
    assert slanted_triangular(0, 4, 0.06, 32) == pytest.approx(1.0)
    assert slanted_triangular(2, 4, 0.06, 32) == pytest.approx((1 + 0.5 * 31) / 32)


def test_fit_sets_the_rate_of_each_step_as_allennlps_trainer_does(monkeypatch):
    """AllenNLP counts the batch, then sets the rate, then steps: its steps are numbered 1..T."""
    rates = []
    monkeypatch.setattr(training, "_set_rate", lambda optimizer, lr, multiplier: rates.append(lr * multiplier))
    hp = replace(TRANSFORMER, lr=1.0, epochs=4, eval_batch_size=64)
    fit(Scorer(4), separable(62, seed=0), separable(8, seed=1), hp, seed=0)
    total = 4 * math.ceil(62 / 16)  # 16 steps; cut = int(16 * 0.06) = 0: no warm-up
    plain = [(1 + (1 - step / total) * 31) / 32 for step in range(1, total + 1)]
    assert rates == pytest.approx(plain)
    assert rates[0] == pytest.approx(0.939, abs=1e-3)
    assert rates[-1] == pytest.approx(1 / 32)


def test_linear_warmup_is_huggingfaces_schedule():
    assert [linear_warmup(s, 10, 0.2) for s in range(11)] == pytest.approx(
        [0, 0.5, 1, 7 / 8, 6 / 8, 5 / 8, 4 / 8, 3 / 8, 2 / 8, 1 / 8, 0])


def test_training_subsets_are_seeded_and_nested():
    small, large = training_subset(1000, 62, seed=3), training_subset(1000, 125, seed=3)
    assert list(large[:62]) == list(small)
    assert len(set(large)) == 125 and max(large) < 1000
    assert list(training_subset(1000, 62, seed=4)) != list(small)
    with pytest.raises(TrainingError, match="cannot draw 2000"):
        training_subset(1004, 2000, seed=1)


def test_curve_points_leave_out_n_larger_than_the_training_set():
    assert curve_points(1004) == [62, 125, 250, 500, 1000]
    assert curve_points(4032) == [62, 125, 250, 500, 1000, 2000, 4000]
    with pytest.raises(TrainingError, match=r"age_comparison/release/standard: 50 training examples, fewer than every "
                                             r"N of the grid \[62, 125\]"):
        curve_points(50, (125, 62), what="age_comparison/release/standard")


def test_no_weight_decay_on_biases_and_layer_norm_weights():
    decay, no_decay = parameter_groups(Scorer(4), 0.1)
    assert decay["weight_decay"] == 0.1 and no_decay["weight_decay"] == 0.0
    assert len(decay["params"]) == 1 and decay["params"][0].shape == (1, 4)  # proj.weight only
    assert len(no_decay["params"]) == 3  # LayerNorm.weight, LayerNorm.bias, proj.bias
    decay, no_decay = parameter_groups(Scorer(4), 0.1, exempt=False)  # the baselines' plain Adam
    assert len(decay["params"]) == 4 and not no_decay["params"]


def test_the_transformer_optimiser_is_allennlps_adamw():
    """AllenNLP's ``adamw`` is torch's AdamW: decoupled decay, eps 1e-8 (transformers' AdamW has 1e-6).

    After one step from gradient g, Adam's bias-corrected update is lr * g / (|g| + eps); a gradient of
    1e-7 tells the two eps apart (0.909 against 0.091 of lr)."""
    model = nn.Linear(2, 1, bias=False)
    with torch.no_grad():
        model.weight.copy_(torch.tensor([[1.0, -2.0]]))
    optimizer = training.make_optimizer(model, TRANSFORMER)
    grad = torch.tensor([[1e-7, -3.0]])
    model.weight.grad = grad.clone()
    before = model.weight.detach().clone()
    optimizer.step()
    lr, decay = TRANSFORMER.lr, TRANSFORMER.weight_decay
    expected = before * (1 - lr * decay) - lr * grad / (grad.abs() + 1e-8)
    torch.testing.assert_close(model.weight.detach(), expected, rtol=0, atol=5e-7)  # eps 1e-6: 8e-6 off


def test_hyper_parameters_from_config_name_unknown_options():
    hp = HyperParameters.from_config({"lr": 2e-5, "betas": [0.9, 0.98], "epochs": 2})
    assert hp.betas == (0.9, 0.98) and hp.epochs == 2 and hp.batch_size == 8
    with pytest.raises(TrainingError, match="learning_rate"):
        HyperParameters.from_config({"learning_rate": 1e-5})
    with pytest.raises(TrainingError, match="schedule='cosine'"):
        HyperParameters(lr=1e-5, schedule="cosine")


@pytest.mark.parametrize(("option", "value", "message"), [
    ("lr", "1e-5", r"lr='1e-5' must be a number > 0 \(YAML reads '1e-5' as text"),
    ("warmup", "6e-2", r"warmup='6e-2' must be a share of the steps"),
    ("warmup", 2.0, r"warmup=2\.0 must be a share of the steps, 0 to 1"),
    ("ratio", 0, r"ratio=0 must be a number >= 1"),
    ("ratio", -1, r"ratio=-1 must be a number >= 1"),
    ("patience", 0, r"patience=0 must be null \(no early stopping\) or a whole number >= 1"),
    ("eval_batch_size", 0, r"eval_batch_size=0 must be a whole number >= 1"),
    ("betas", [0.9], r"betas=\(0\.9,\) must be two numbers in \[0, 1\)"),
    ("betas", [2, 3], r"betas=\(2, 3\) must be two numbers"),
    ("betas", 0.9, r"betas=0\.9 must be two numbers"),
    ("grad_norm", 0, r"grad_norm=0 must be null \(no clipping\) or a number > 0"),
    ("epochs", 4.5, r"epochs=4\.5 must be a whole number >= 1"),
    ("batch_size", True, r"batch_size=True must be a whole number"),
    ("weight_decay", -0.1, r"weight_decay=-0\.1 must be a number >= 0"),
    ("decay_exempt", "yes", r"decay_exempt='yes' must be true or false"),
])
def test_hyper_parameters_out_of_range_are_refused_naming_the_option(option, value, message):
    with pytest.raises(TrainingError, match=message):
        HyperParameters.from_config({"lr": 1.0, option: value})


def test_hyper_parameters_at_their_bounds_are_accepted():
    hp = HyperParameters.from_config({"lr": 1.0, "warmup": 0, "ratio": 1, "weight_decay": 0, "betas": [0, 0.999],
                                      "patience": 1, "grad_norm": 0.5})
    assert (hp.warmup, hp.ratio, hp.betas, hp.patience) == (0, 1, (0, 0.999), 1)
    assert HyperParameters.from_config({"lr": 1.0, "warmup": 1.0, "patience": None, "grad_norm": None}).warmup == 1.0


def test_the_originals_defaults():
    assert (TRANSFORMER.lr, TRANSFORMER.batch_size, TRANSFORMER.accumulation, TRANSFORMER.epochs) == (1e-5, 8, 2, 4)
    assert (TRANSFORMER.weight_decay, TRANSFORMER.betas, TRANSFORMER.warmup) == (0.1, (0.9, 0.98), 0.06)
    assert (BASELINE.lr, BASELINE.batch_size, BASELINE.epochs, BASELINE.patience) == (4e-4, 16, 75, 10)
    assert TRANSFORMER.decay_exempt and not BASELINE.decay_exempt


def run(seed: int, hp: HyperParameters):
    torch.manual_seed(seed)
    model = Scorer(4)
    return fit(model, separable(96, 0), separable(64, 1), hp, seed=seed), model


def test_a_seeded_run_is_reproduced_exactly_and_learns_a_separable_task():
    hp = with_overrides(TRANSFORMER, lr=5e-2, epochs=6)
    (first, model_a), (second, model_b) = run(7, hp), run(7, hp)
    assert first == second
    assert torch.equal(model_a.proj.weight, model_b.proj.weight)
    assert first.accuracy > 90 and len(first.epoch_accuracies) == 6
    assert first.accuracy == max(first.epoch_accuracies)
    assert first.epoch == first.epoch_accuracies.index(first.accuracy) + 1
    other, _ = run(8, hp)
    assert other.epoch_accuracies != first.epoch_accuracies or other != first


def test_select_last_reports_the_final_epoch():
    result, _ = run(7, with_overrides(TRANSFORMER, lr=5e-2, epochs=3, select="last"))
    assert result.epoch == 3 and result.accuracy == result.epoch_accuracies[-1]


def test_patience_stops_early_and_reduce_on_plateau_halves_the_rate():
    hp = with_overrides(BASELINE, lr=1e-6, epochs=30, patience=2, batch_size=32)
    result, _ = run(7, hp)
    assert len(result.epoch_accuracies) < 30
    best = result.epoch_accuracies.index(max(result.epoch_accuracies))
    assert len(result.epoch_accuracies) == best + 3


def test_accumulation_divides_the_loss_like_allennlp():
    """Two accumulated batches of 8 give the gradient of one batch of 16 (mean loss)."""
    data = separable(16, 2)
    grads = []
    for batch_size, accumulation in ((16, 1), (8, 2)):
        torch.manual_seed(0)
        model = Scorer(4)
        hp = HyperParameters(lr=1e-3, batch_size=batch_size, accumulation=accumulation, epochs=1, optimizer="adam",
                             schedule="constant", weight_decay=0.0, betas=(0.9, 0.999))
        captured = {}
        model.proj.weight.register_hook(lambda g, store=captured: store.setdefault("g", torch.zeros_like(g)).add_(g))
        fit(model, data, data, hp, seed=0)
        grads.append(captured["g"])
    assert torch.allclose(grads[0], grads[1], atol=1e-6)


def test_examples_check_their_shapes():
    with pytest.raises(TrainingError, match="'features' has 3 rows for 2 labels"):
        Examples({"features": torch.zeros(3, 2, 4)}, torch.zeros(2, dtype=torch.long))


class OutOfMemoryAbove(Scorer):
    """A scorer whose forward runs out of CUDA memory (simulated) on more than ``rows`` examples,
    the first ``spare`` times fine: the failure then comes after a batch's gradients were added."""

    def __init__(self, dim: int, rows: int, spare: int) -> None:
        super().__init__(dim)
        self.rows, self.spare, self.ran = rows, spare, []  # ran: the sizes of the passes that ran

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        if len(features) > self.rows and len(self.ran) >= self.spare:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory (simulated)")
        self.ran.append(len(features))
        return super().forward(features)


@pytest.mark.parametrize("spare", [0, 1])
def test_out_of_memory_reruns_the_group_in_parts_with_the_same_gradient(spare, caplog):
    """The parts' losses weighted by their share sum to the batch's mean loss; a failure after the
    group's first batch (spare=1) clears what that batch had added instead of counting it twice."""
    data = separable(16, 2)
    group = list(data.batches(torch.arange(16), 8, torch.device("cpu")))
    grads = []
    for model in (Scorer(4), OutOfMemoryAbove(4, rows=3, spare=spare)):
        torch.manual_seed(0)
        model.load_state_dict(Scorer(4).state_dict())
        optimizer = torch.optim.AdamW(model.parameters())
        memory = MemoryLimit(8)
        accumulate_gradients(model, nn.CrossEntropyLoss(), group, memory, optimizer)
        grads.append({name: p.grad.clone() for name, p in model.named_parameters()})
    assert memory.rows == 2 and model.ran[:spare] == [8] * spare and max(model.ran[spare:]) <= 2
    for name, grad in grads[0].items():
        assert torch.allclose(grads[1][name], grad, atol=1e-7), name
    assert "running the accumulation group again, at most 2 examples per pass" in caplog.text


def test_training_and_evaluation_go_on_after_out_of_memory(caplog):
    torch.manual_seed(3)
    model = OutOfMemoryAbove(4, rows=3, spare=0)
    result = fit(model, separable(48, 0), separable(32, 1), with_overrides(TRANSFORMER, lr=5e-2, epochs=4), seed=3)
    assert result.accuracy > 80 and max(model.ran) <= 2
    assert "while predicting, at most 2 examples per pass" in caplog.text


class PassSizes(Scorer):
    """A scorer that also takes token ids (unused) and notes each pass's size, in training or not."""

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.passes: list[tuple[bool, int]] = []

    def forward(self, features: torch.Tensor, input_ids: torch.Tensor) -> torch.Tensor:
        self.passes.append((self.training, len(features)))
        return super().forward(features)


def with_token_ids(examples: Examples, length: int) -> Examples:
    ids = torch.ones(len(examples), examples.inputs["features"].shape[1], length, dtype=torch.long)
    return Examples({**examples.inputs, "input_ids": ids}, examples.labels)


@pytest.mark.parametrize(("eval_tokens", "dev_rows"), [(None, 32), (60, 3), (10, 1), (10**6, 32)])
def test_dev_passes_hold_at_most_the_token_budget_and_training_batches_stay_the_papers(eval_tokens, dev_rows):
    """2 choices x 10 tokens = 20 token positions an example: a budget of 60 is 3 examples a dev pass,
    one too small for an example still runs it, and none runs more than eval_batch_size (64 here)."""
    torch.manual_seed(0)
    model = PassSizes(4)
    train, dev = with_token_ids(separable(24, 0), 10), with_token_ids(separable(32, 1), 10)
    hp = with_overrides(TRANSFORMER, epochs=1, batch_size=8, eval_batch_size=64)
    fit(model, train, dev, hp, seed=0, eval_tokens=eval_tokens)
    training = [size for is_training, size in model.passes if is_training]
    evaluation = [size for is_training, size in model.passes if not is_training]
    assert training == [8, 8, 8]
    assert max(evaluation) == dev_rows and sum(evaluation) == 32


def test_out_of_memory_on_a_single_example_is_raised():
    torch.manual_seed(0)
    with pytest.raises(torch.cuda.OutOfMemoryError):
        fit(OutOfMemoryAbove(4, rows=0, spare=0), separable(8, 0), separable(4, 1), TRANSFORMER, seed=0)


def recording_optimizer(monkeypatch) -> list[dict]:
    """Each optimiser step's rates (one per parameter group) and total gradient norm, as it steps."""
    steps: list[dict] = []
    make = training.make_optimizer

    def recording(model: nn.Module, hp: HyperParameters) -> torch.optim.Optimizer:
        optimizer = make(model, hp)
        step = optimizer.step

        def noted_step(*args, **kwargs):
            grads = [p.grad.flatten() for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
            steps.append({"rates": [group["lr"] for group in optimizer.param_groups],
                          "grad_norm": float(torch.cat(grads).norm())})
            return step(*args, **kwargs)

        optimizer.step = noted_step
        return optimizer

    monkeypatch.setattr(training, "make_optimizer", recording)
    return steps


def test_every_parameter_group_steps_at_the_scheduled_rate(monkeypatch):
    steps = recording_optimizer(monkeypatch)
    hp = replace(TRANSFORMER, lr=0.5, epochs=4, eval_batch_size=64)
    fit(Scorer(4), separable(62, seed=0), separable(8, seed=1), hp, seed=0)
    total = 4 * math.ceil(62 / 16)
    expected = [0.5 * (1 + (1 - step / total) * 31) / 32 for step in range(1, total + 1)]
    assert [s["rates"] for s in steps] == [pytest.approx([rate, rate]) for rate in expected]


def test_reduce_on_plateau_halves_the_rate_after_each_epoch_without_a_better_dev_accuracy(monkeypatch):
    steps = recording_optimizer(monkeypatch)
    hp = with_overrides(BASELINE, lr=1e-3, epochs=8, patience=None, batch_size=32)
    result, _ = run(7, hp)
    per_epoch = math.ceil(96 / 32)
    expected, rate, best = [], hp.lr, -1.0
    for accuracy_ in result.epoch_accuracies:  # AllenNLP's (torch's ReduceLROnPlateau): factor 0.5, patience 0
        expected += [rate] * per_epoch
        if accuracy_ <= best:
            rate /= 2
        best = max(best, accuracy_)
    assert any(a <= b for a, b in zip(result.epoch_accuracies[1:], result.epoch_accuracies))  # some epoch halves
    assert [s["rates"][0] for s in steps] == pytest.approx(expected)


def test_gradients_are_clipped_to_the_configured_norm_before_each_step(monkeypatch):
    steps = recording_optimizer(monkeypatch)
    hp = with_overrides(BASELINE, epochs=2, patience=None, grad_norm=1e-3)
    run(7, hp)
    assert steps and max(s["grad_norm"] for s in steps) <= 1e-3 * (1 + 1e-4)
    steps.clear()
    run(7, with_overrides(hp, grad_norm=None))
    assert min(s["grad_norm"] for s in steps) > 1e-2  # unclipped, the same run's gradients are larger


def adam_two_steps(weight: torch.Tensor, grads: list[torch.Tensor], lr: float, betas: tuple[float, float],
                   decay: float, decoupled: bool) -> torch.Tensor:
    """Adam by hand (eps 1e-8, bias correction): decoupled weight decay (AdamW) or L2 added to the gradient."""
    m, v, w = torch.zeros_like(weight), torch.zeros_like(weight), weight.clone()
    for t, grad in enumerate(grads, start=1):
        if decoupled:
            w = w * (1 - lr * decay)
        else:
            grad = grad + decay * w
        m = betas[0] * m + (1 - betas[0]) * grad
        v = betas[1] * v + (1 - betas[1]) * grad**2
        w = w - lr * (m / (1 - betas[0] ** t)) / ((v / (1 - betas[1] ** t)).sqrt() + 1e-8)
    return w


@pytest.mark.parametrize(("hp", "decoupled"), [(with_overrides(TRANSFORMER, lr=0.1), True),
                                               (with_overrides(BASELINE, lr=0.1, betas=(0.8, 0.9)), False)])
def test_the_optimisers_use_the_configured_betas_and_their_own_kind_of_weight_decay(hp, decoupled):
    """Two steps with different gradients tell the betas apart (one step does not: its update is
    lr * g / |g|); the baselines' Adam adds L2 decay to the gradient, AdamW decays the weight itself."""
    model = nn.Linear(2, 1, bias=False)
    start = torch.tensor([[1.0, -2.0]])
    with torch.no_grad():
        model.weight.copy_(start)
    optimizer = training.make_optimizer(model, hp)
    grads = [torch.tensor([[0.5, -3.0]]), torch.tensor([[-2.0, 0.25]])]
    for grad in grads:
        model.weight.grad = grad.clone()
        optimizer.step()
    expected = adam_two_steps(start, grads, hp.lr, hp.betas, hp.weight_decay, decoupled)
    torch.testing.assert_close(model.weight.detach(), expected, rtol=0, atol=1e-6)


class OrderNoting(Scorer):
    """A scorer noting the first feature-1 value of each training example it sees, in order."""

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.seen: list[float] = []

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        if self.training:
            self.seen += features[:, 0, 1].tolist()
        return super().forward(features)


def test_each_epoch_reshuffles_the_training_examples_in_an_order_drawn_from_the_seed():
    train = separable(24, 0)
    orders = {}
    for seed in (1, 2):
        torch.manual_seed(0)
        model = OrderNoting(4)
        fit(model, train, separable(8, 1), with_overrides(TRANSFORMER, epochs=2), seed=seed)
        orders[seed] = [model.seen[:24], model.seen[24:]]
    values = sorted(train.inputs["features"][:, 0, 1].tolist())
    for first, second in orders.values():
        assert sorted(first) == values and sorted(second) == values  # every example once an epoch
        assert first != second  # shuffled anew each epoch
    assert orders[1] != orders[2]
