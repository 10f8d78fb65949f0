"""The oLMpics baselines without pre-trained LMs: MLM-BASELINE (MC-MLM tasks) and ESIM (MC-QA tasks).

MLM-BASELINE (the original ``mlm_baseline`` model and reader): the stem with ``[MASK]`` replaced by
``@@`` (so that it stays one token) is word-tokenised (``glove.tokenize``), each of its first 20
tokens becomes its frozen 50-d GloVe vector, and the vectors are concatenated in order into 1,000
numbers (a shorter stem is zero-padded at the end, a longer one cut). Since GloVe is frozen, these
features are computed once per item. A BERT-like LM head maps them to word scores: ``Linear(1000,
1000)`` (weight normal(0, 0.02), bias PyTorch's default, as the original) -> dropout 0.5 -> gelu (erf)
-> LayerNorm -> decoder ``Linear(1000, V, no bias)`` (normal(0, 0.02)) + bias (zeros). A choice is the
id of its FIRST word in the baseline's vocabulary, and the logits are those of the K choice ids. Only
the decoder rows of choice words are ever read, so the vocabulary is the sorted first words of all
choices of the task's rows (train and dev; the original's vocabulary also held stem words, rows no
logit reads). Two choices with the same first word always tie (the first wins, as argmax does).
``@@`` is not a GloVe word, so the mask's slot is a zero vector (AllenNLP gave it a random one).
With its random head the model is at chance: ``baseline_zero_shot`` is the paper's baseline
zero-shot column. Training: ``hyperparameters.BASELINE`` (Adam lr 4e-4, L2 0.1, batch 16, gradient norm 10,
up to 75 epochs, patience 10, halve the rate when dev accuracy does not improve, best epoch).

ESIM (the original ``esim_baseline.jsonnet``, AllenNLP's ESIM scoring each choice): premise = the
question, hypothesis = one choice; trainable 50-d embeddings initialised from GloVe (the paper: "ESIM
over GloVe"; the committed config left them random), a BiLSTM encoder (300 per direction), dot-product
similarity with masked softmax attention both ways, the enhancement [a; b~; a - b~; a * b~] (2,400),
a projection ``2400 -> 300`` + relu, an inference BiLSTM (300), mean and max pooling of both sides
(2,400), dropout, an output feed-forward ``2400 -> 300`` + relu + dropout 0.3, and ``300 -> 1``: one
logit per choice, softmaxed over the K choices. As AllenNLP's ESIM, the LSTM inputs (embeddings and
projections) get variational dropout (one mask per sequence) at the same rate. Linear weights are
xavier-uniform, biases zero; LSTMs keep PyTorch's initialisation. Training: ``ESIM`` =
``BASELINE`` with batches of 32 and no weight decay. Vocabulary: index 0 is padding, then the sorted
words of all stems and choices of the task's rows.

Out-of-vocabulary words (for GloVe) are zero vectors. Every run draws its initialisation and dropout
from its seed (``mcqa.seeded``), so the same seed gives the same curve.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn
from tqdm.auto import tqdm

from lmprobes.models import resolve_device
from lmprobes.suites.olmpics.glove import Glove, embedding_matrix, tokenize
from lmprobes.suites.olmpics.hyperparameters import BASELINE, HyperParameters
from lmprobes.suites.olmpics.mcqa import count_split, item_groups, seeded
from lmprobes.suites.olmpics.schema import MASK
from lmprobes.suites.olmpics.training import (
    PAPER_N,
    Examples,
    accuracy,
    curve_frame,
    curve_points,
    curve_row,
    fit,
    training_subset,
    with_overrides,
)

MASK_STAND_IN = "@@"
N_TOKENS = 20
FEATURES = 1000  # N_TOKENS x 50-d GloVe
HEAD_STD = 0.02
PADDING = "@@PADDING@@"
ESIM = with_overrides(BASELINE, batch_size=32, weight_decay=0.0)
# kind -> (model column, setting column, task setup, default hyper-parameters)
KINDS = {
    "mlm_baseline": ("mlm_baseline", "mlm_baseline", "mc_mlm", BASELINE),
    "esim": ("esim_baseline", "esim", "mc_qa", ESIM),
}


class BaselineError(ValueError):
    """Items or an option the baselines cannot use; the message names the row or the option."""


def words_needed(items: pd.DataFrame) -> set[str]:
    """Every word of the stems (``[MASK]`` as ``@@``) and choices: the ``vocabulary`` for ``read_glove``."""
    texts = [stem.replace(MASK, MASK_STAND_IN) for stem in items["stem"]]
    texts += [choice for choices in items["choices"] for choice in choices]
    return {token for text in texts for token in tokenize(text)}


# --- MLM-BASELINE -------------------------------------------------------------------------------------


class MlmBaseline(nn.Module):
    """The original's BERT-like LM head over 1,000 stem features, read at the K choice ids."""

    def __init__(self, vocab_size: int, features: int = FEATURES, dropout: float = 0.5) -> None:
        super().__init__()
        self.dense = nn.Linear(features, features)
        self.dropout = nn.Dropout(dropout)
        self.layer_norm = nn.LayerNorm(features)
        self.decoder = nn.Linear(features, vocab_size, bias=False)
        self.bias = nn.Parameter(torch.zeros(vocab_size))
        nn.init.normal_(self.dense.weight, mean=0.0, std=HEAD_STD)
        nn.init.normal_(self.decoder.weight, mean=0.0, std=HEAD_STD)

    def forward(self, features: torch.Tensor, choice_ids: torch.Tensor) -> torch.Tensor:
        hidden = self.layer_norm(F.gelu(self.dropout(self.dense(features))))
        # = (decoder(hidden) + bias).gather(1, choice_ids), without the full-vocabulary product
        rows = self.decoder.weight[choice_ids]  # (B, K, features)
        return torch.einsum("bf,bkf->bk", hidden, rows) + self.bias[choice_ids]


def stem_features(stem: str, glove: Glove, vectors: dict[str, torch.Tensor] | None = None) -> torch.Tensor:
    """The 1,000 features of a stem: GloVe vectors of its first 20 tokens, concatenated, zero-padded."""
    tokens = tokenize(stem.replace(MASK, MASK_STAND_IN))[:N_TOKENS]
    dim = glove[1].shape[1]
    if dim * N_TOKENS != FEATURES:
        raise BaselineError(f"the MLM-BASELINE needs 50-d GloVe vectors, not {dim}-d")
    table = embedding_matrix(tokens, glove) if vectors is None else _stack(tokens, vectors, dim)
    return F.pad(table.reshape(-1), (0, FEATURES - len(tokens) * dim))


def _stack(tokens: list[str], vectors: dict[str, torch.Tensor], dim: int) -> torch.Tensor:
    return torch.stack([vectors[token] for token in tokens]) if tokens else torch.zeros(0, dim)


def first_word(row: dict, choice: str) -> str:
    tokens = tokenize(choice)
    if not tokens:
        raise BaselineError(f"{row['row_id']}: choice {choice!r} has no word")
    return tokens[0]


def mlm_baseline_examples(items: pd.DataFrame, glove: Glove) -> Examples:
    """``features`` (n, 1000) and ``choice_ids`` (n, K) into ``meta['vocabulary']``, for every row of ``items``."""
    rows = _records(items)
    firsts = [[first_word(row, choice) for choice in row["choices"]] for row in rows]
    vocabulary = sorted({word for words in firsts for word in words})
    index = {word: i for i, word in enumerate(vocabulary)}
    stem_words = sorted({token for row in rows for token in tokenize(row["stem"].replace(MASK, MASK_STAND_IN))})
    vectors = dict(zip(stem_words, embedding_matrix(stem_words, glove)))
    features = torch.stack([stem_features(row["stem"], glove, vectors) for row in rows])
    choice_ids = torch.tensor([[index[word] for word in words] for words in firsts], dtype=torch.long)
    return Examples({"features": features, "choice_ids": choice_ids}, _labels(rows), _meta(rows, vocabulary))


# --- ESIM ----------------------------------------------------------------------------------------------


class VariationalDropout(nn.Module):
    """Dropout with one mask per sequence, shared by all its time steps (AllenNLP's InputVariationalDropout)."""

    def __init__(self, p: float) -> None:
        super().__init__()
        self.p = p

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0:
            return inputs
        keep = torch.full((inputs.shape[0], 1, inputs.shape[2]), 1 - self.p, device=inputs.device)
        return inputs * torch.bernoulli(keep) / (1 - self.p)


class Esim(nn.Module):
    """ESIM scoring each (question, choice) pair: ``forward(premise (B, Lp), hypotheses (B, K, Lh)) -> (B, K)``."""

    def __init__(self, embeddings: torch.Tensor, hidden: int = 300, projection: int = 300, dropout: float = 0.3) -> None:
        super().__init__()
        self.embedding = nn.Embedding.from_pretrained(embeddings.clone(), freeze=False, padding_idx=0)
        self.encoder = nn.LSTM(embeddings.shape[1], hidden, batch_first=True, bidirectional=True)
        self.projection = nn.Linear(8 * hidden, projection)
        self.inference = nn.LSTM(projection, hidden, batch_first=True, bidirectional=True)
        self.output = nn.Linear(8 * hidden, projection)
        self.logit = nn.Linear(projection, 1)
        self.rnn_dropout = VariationalDropout(dropout)
        self.dropout = nn.Dropout(dropout)
        for layer in (self.projection, self.output, self.logit):
            nn.init.xavier_uniform_(layer.weight)
            nn.init.zeros_(layer.bias)

    def forward(self, premise: torch.Tensor, hypotheses: torch.Tensor) -> torch.Tensor:
        batch, n_choices, _ = hypotheses.shape
        premise = _trim(premise)
        hypothesis = _trim(hypotheses.reshape(batch * n_choices, -1))
        encoded_premise = self.encode(premise).repeat_interleave(n_choices, dim=0)
        premise = premise.repeat_interleave(n_choices, dim=0)
        encoded_hypothesis = self.encode(hypothesis)
        premise_mask, hypothesis_mask = premise != 0, hypothesis != 0
        similarity = encoded_premise @ encoded_hypothesis.transpose(1, 2)  # (BK, Lp, Lh)
        attended_hypothesis = _masked_softmax(similarity, hypothesis_mask) @ encoded_hypothesis
        attended_premise = _masked_softmax(similarity.transpose(1, 2), premise_mask) @ encoded_premise
        v_premise = self.infer(encoded_premise, attended_hypothesis, premise_mask)
        v_hypothesis = self.infer(encoded_hypothesis, attended_premise, hypothesis_mask)
        pooled = torch.cat([*_mean_max(v_premise, premise_mask), *_mean_max(v_hypothesis, hypothesis_mask)], dim=-1)
        hidden = self.dropout(F.relu(self.output(self.dropout(pooled))))
        return self.logit(hidden).view(batch, n_choices)

    def encode(self, ids: torch.Tensor) -> torch.Tensor:
        return _run_lstm(self.encoder, self.rnn_dropout(self.embedding(ids)), ids != 0)

    def infer(self, encoded: torch.Tensor, attended: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        enhanced = torch.cat([encoded, attended, encoded - attended, encoded * attended], dim=-1)
        projected = self.rnn_dropout(F.relu(self.projection(enhanced)))
        return _run_lstm(self.inference, projected, mask)


def _trim(ids: torch.Tensor) -> torch.Tensor:
    """Drop the padding columns every sequence of the batch has (padding is id 0, on the right)."""
    return ids[:, :int((ids != 0).sum(dim=1).max())]


def _run_lstm(lstm: nn.LSTM, inputs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    lengths = mask.sum(dim=1).cpu()
    packed = nn.utils.rnn.pack_padded_sequence(inputs, lengths, batch_first=True, enforce_sorted=False)
    output, _ = lstm(packed)
    return nn.utils.rnn.pad_packed_sequence(output, batch_first=True, total_length=inputs.shape[1])[0]


def _masked_softmax(scores: torch.Tensor, key_mask: torch.Tensor) -> torch.Tensor:
    return scores.masked_fill(~key_mask.unsqueeze(1), torch.finfo(scores.dtype).min).softmax(dim=-1)


def _mean_max(states: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    weights = mask.unsqueeze(-1).to(states.dtype)
    mean = (states * weights).sum(dim=1) / weights.sum(dim=1)
    maximum = states.masked_fill(~mask.unsqueeze(-1), -1e7).max(dim=1).values
    return mean, maximum


def esim_examples(items: pd.DataFrame, glove: Glove) -> Examples:
    """``premise`` (n, Lp) and ``hypotheses`` (n, K, Lh) word ids; ``meta['embeddings']`` from GloVe."""
    rows = _records(items)
    stems = [_words(row, row["stem"], "stem") for row in rows]
    choices = [[_words(row, choice, f"choice {choice!r}") for choice in row["choices"]] for row in rows]
    vocabulary = [PADDING, *sorted({w for words in stems for w in words}
                                   | {w for item in choices for words in item for w in words})]
    index = {word: i for i, word in enumerate(vocabulary)}
    premise = _pad([[index[w] for w in words] for words in stems])
    longest = max(len(words) for item in choices for words in item)
    hypotheses = torch.stack([_pad([[index[w] for w in words] for words in item], longest) for item in choices])
    meta = _meta(rows, vocabulary)
    meta["embeddings"] = torch.cat([torch.zeros(1, glove[1].shape[1]), embedding_matrix(vocabulary[1:], glove)])
    return Examples({"premise": premise, "hypotheses": hypotheses}, _labels(rows), meta)


def _words(row: dict, text: str, what: str) -> list[str]:
    tokens = tokenize(text)
    if not tokens:
        raise BaselineError(f"{row['row_id']}: {what} has no word")
    return tokens


def _pad(sequences: list[list[int]], length: int | None = None) -> torch.Tensor:
    length = length or max(len(sequence) for sequence in sequences)
    padded = torch.zeros(len(sequences), length, dtype=torch.long)
    for i, sequence in enumerate(sequences):
        padded[i, :len(sequence)] = torch.tensor(sequence, dtype=torch.long)
    return padded


# --- shared ----------------------------------------------------------------------------------------------


def _records(items: pd.DataFrame) -> list[dict]:
    rows = items.to_dict("records")
    if not rows:
        raise BaselineError("no items")
    n_choices = len(rows[0]["choices"])
    for row in rows:
        if len(row["choices"]) != n_choices:
            raise BaselineError(f"{row['row_id']}: {len(row['choices'])} choices, but the first row has {n_choices}")
    return rows


def _labels(rows: list[dict]) -> torch.Tensor:
    return torch.tensor([int(row["answer"]) for row in rows], dtype=torch.long)


def _meta(rows: list[dict], vocabulary: list[str]) -> dict:
    return {"vocabulary": vocabulary, "row_id": [row["row_id"] for row in rows],
            "split": [row["split"] for row in rows]}


def build_baseline(kind: str, examples: Examples) -> nn.Module:
    """A freshly initialised baseline for ``examples`` (draws from the current random state: use ``seeded``)."""
    if kind == "mlm_baseline":
        return MlmBaseline(len(examples.meta["vocabulary"]))
    if kind == "esim":
        return Esim(examples.meta["embeddings"])
    raise BaselineError(f"kind={kind!r}; choose one of {list(KINDS)}")


def split_indices(examples: Examples, split: str) -> list[int]:
    return [i for i, name in enumerate(examples.meta["split"]) if name == split]


def baseline_curves(items: pd.DataFrame, glove: Glove, *, kind: str, grid: Sequence[int] = PAPER_N,
                    seeds: Sequence[int] = (1,), hp: HyperParameters | None = None, device: str = "cpu",
                    progress: bool = False) -> pd.DataFrame:
    """Learning curves (CURVE_SCHEMA) of the ``kind`` baseline (``mlm_baseline`` or ``esim``) on ``items``.

    MLM-BASELINE takes MC-MLM tasks, ESIM MC-QA tasks; one row per (task, flavour, variant, N, seed).
    """
    if kind not in KINDS:
        raise BaselineError(f"kind={kind!r}; choose one of {list(KINDS)}")
    model_name, setting, setup, default_hp = KINDS[kind]
    hp = hp or default_hp
    target = resolve_device(device)
    build = mlm_baseline_examples if kind == "mlm_baseline" else esim_examples
    groups = item_groups(items, setup, what=f"the {kind} baseline", error=BaselineError)
    examples = {key: build(frame, glove) for key, frame in groups.items()}
    plan = [(key, n, seed) for key, frame in groups.items() for n in curve_points(count_split(frame, "train"), grid, what="/".join(key))
            for seed in seeds]
    rows = []
    for key, n, seed in tqdm(plan, desc=kind, disable=not progress):
        every = examples[key]
        train, dev = every.subset(split_indices(every, "train")), every.subset(split_indices(every, "dev"))
        subset = train.subset(training_subset(len(train), n, seed))
        with seeded(seed, target):
            model = build_baseline(kind, every)
            result = fit(model, subset, dev, hp, seed=seed, device=target,
                         description=f"{kind} {key[0]}/{key[2]} N={n} seed={seed}")
        rows.append(curve_row(key, model_name, setting, n, seed, result, len(dev)))
    return curve_frame(rows)


def baseline_zero_shot(items: pd.DataFrame, glove: Glove, seed: int = 0, *, device: str = "cpu") -> pd.DataFrame:
    """Dev accuracy (%) of the MLM-BASELINE with its random head, per (task, flavour, variant): ~ chance."""
    rows = []
    target = resolve_device(device)
    groups = item_groups(items, "mc_mlm", what="the MLM-BASELINE zero-shot", splits=("dev",), error=BaselineError)
    for key, frame in groups.items():
        every = mlm_baseline_examples(frame, glove)
        dev = every.subset(split_indices(every, "dev"))
        with seeded(seed, target):
            model = build_baseline("mlm_baseline", every).to(target)
        task, flavour, variant = key
        rows.append({"task": task, "flavour": flavour, "variant": variant, "model": "mlm_baseline", "seed": seed,
                     "accuracy": accuracy(model, dev, BASELINE.eval_batch_size, target),
                     "n_dev": len(dev)})
    return pd.DataFrame.from_records(rows, columns=["task", "flavour", "variant", "model", "seed", "accuracy", "n_dev"])
