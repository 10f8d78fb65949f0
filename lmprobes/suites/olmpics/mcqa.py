"""MC-QA learning curves: the whole pre-trained encoder fine-tuned with a fresh one-logit head per choice.

As the original (oLMpics ``transformer_mc_qa`` reader and model):

- each choice k of an item is the tokenizer's own pair encoding of (question, choice):
  ``[CLS] q [SEP] a_k [SEP]`` for BERT, ``<s> q </s></s> a_k </s>`` for RoBERTa; the stem of an MC-MLM
  task keeps its mask, as the model's own mask token (the reader's ``[MASK]`` -> ``<mask>``); at most ``max_pieces``
  pieces (longest-first truncation). The K sequences go through the encoder as one batch of B*K;
  the tensors are padded to the longest sequence of the task (train and dev) and each batch is
  trimmed back to its own longest, so padding costs nothing. Not for the types whose outputs change
  with padding (``engine.lm.PADDING_SENSITIVE_MODEL_TYPES``, under the model's ``padding: auto``, or
  any model under ``equal_length``): their batches keep the task's one length, so an item's logits
  never depend on the batch it is in (as FNet's own fine-tuning pads to one length).
- the score of a choice is a fresh ``Linear(H, 1)`` (weight normal(0, 0.02), bias 0) on the encoder's
  pooled output after dropout (the config's ``hidden_dropout_prob``); the K scores of an item are
  its logits for the cross-entropy of ``training.fit``; the whole network is trained
  (``hyperparameters.TRANSFORMER``: AdamW, lr 1e-5, batch 8 x 2, 4 epochs, slanted triangular).
- ``pooling="pooler"`` (the original) is HF's pooler, dense + tanh on the first token's final hidden
  state; ``pooling="first"`` puts the head on that hidden state directly. A pooler missing from the
  checkpoint (RoBERTa's; the tiny test models') is newly initialised, as transformers does, but drawn
  from the run's seed here so that runs are reproducible.

Segment ids are all 0, as the original's reader made them (a TODO there: BERT and XLNet received
them, RoBERTa and ALBERT none); ``segment_ids="tokenizer"`` gives the tokenizer's (0 for the question,
1 for the choice). Training is in float32 whatever the model's scoring dtype.

Every (task, variant, N, seed) run starts from the same pre-trained weights: the encoder is loaded
once, a CPU copy of its state is kept and loaded back before each run, the head and any missing
weights are drawn from the run's seed, and dropout draws from a generator seeded with it
(``seeded``), so a run never sees another's updates and the same seed gives the same curve.
Encyclopedic composition's runs start instead from the seed's single-hop stage (``single_hop_stage``:
the encoder and head fine-tuned on every single-hop fact, made once per seed and saved, ``stage_one``).
Causal models have no MC-QA setting here (the original fine-tuned masked encoders only). MC-QA runs on
MC-MLM tasks too: the paper's Figure 2D compares the two setups on age comparison.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd
import torch
from torch import nn
from tqdm.auto import tqdm

from lmprobes.engine.lm import PADDING_SENSITIVE_MODEL_TYPES, PADDINGS
from lmprobes.models import resolve_device
from lmprobes.suites.olmpics.hyperparameters import TRANSFORMER, HyperParameters
from lmprobes.suites.olmpics.schema import MASK, TASKS
from lmprobes.suites.olmpics.stage_one import StageOne
from lmprobes.suites.olmpics.training import (
    PAPER_N,
    Examples,
    RunResult,
    curve_frame,
    curve_points,
    curve_row,
    fit,
    training_subset,
)
from lmprobes.suites.olmpics.zeroshot import with_mask_token

log = logging.getLogger("lmprobes.suites.olmpics.mcqa")

POOLINGS = ("pooler", "first")
SEGMENT_IDS = ("original", "tokenizer")
SETTING = "mc_qa"
HEAD_STD = 0.02
GROUP_KEYS = ["task", "flavour", "variant"]


class McQaError(ValueError):
    """Items, a model or an option the MC-QA setting cannot use; the message names it."""


# --- inputs ------------------------------------------------------------------------------------


def mc_qa_examples(tokenizer, items: pd.DataFrame, max_pieces: int = 256, segment_ids: str = "original",
                   mask_encoding: str = "original") -> Examples:
    """``(n, K, L)`` pair encodings of every (stem, choice), padded to the longest of the set; segment
    ids all 0 (``"original"``, as the original's reader) or the tokenizer's (``"tokenizer"``); an
    MC-MLM stem's mask spelled for ``mask_encoding`` (``zeroshot.with_mask_token``)."""
    if segment_ids not in SEGMENT_IDS:
        raise McQaError(f"mc_qa_segment_ids must be one of {SEGMENT_IDS}, not {segment_ids!r}")
    rows = items.to_dict("records")
    if not rows:
        raise McQaError("no MC-QA items to encode")
    if tokenizer.pad_token_id is None:
        raise McQaError(f"tokenizer {type(tokenizer).__name__} has no padding token")
    n_choices = len(rows[0]["choices"])
    encoded = [encode_item(tokenizer, row, n_choices, max_pieces, mask_encoding) for row in rows]
    length = max(len(pair["input_ids"]) for item in encoded for pair in item)
    names = [name for name in ("input_ids", "attention_mask", "token_type_ids") if name in encoded[0][0]]
    inputs = {name: torch.zeros(len(rows), n_choices, length, dtype=torch.long) for name in names}
    inputs["input_ids"].fill_(tokenizer.pad_token_id)
    for i, item in enumerate(encoded):
        for k, pair in enumerate(item):
            for name in names:
                inputs[name][i, k, :len(pair[name])] = torch.tensor(pair[name])
    if segment_ids == "original" and "token_type_ids" in inputs:
        inputs["token_type_ids"].zero_()
    labels = torch.tensor([int(row["answer"]) for row in rows], dtype=torch.long)
    return Examples(inputs, labels, {"row_id": [row["row_id"] for row in rows]})


def encode_item(tokenizer, row: dict, n_choices: int, max_pieces: int, mask_encoding: str = "original") -> list[dict]:
    choices = list(row["choices"])
    if len(choices) != n_choices:
        raise McQaError(f"{row['row_id']}: {len(choices)} choices, but the first item of the set has {n_choices}")
    stem = question_text(tokenizer, row, mask_encoding)
    return [tokenizer(stem, choice, truncation=True, max_length=max_pieces) for choice in choices]


def question_text(tokenizer, row: dict, mask_encoding: str = "original") -> str:
    """The stem with its ``[MASK]`` (MC-MLM tasks) spelled as the tokenizer's mask token."""
    stem = row["stem"]
    if MASK not in stem:
        return stem
    if tokenizer.mask_token is None:
        raise McQaError(f"{row['row_id']}: the stem has {MASK} but tokenizer {type(tokenizer).__name__} has no "
                        "mask token")
    return with_mask_token(tokenizer, stem, mask_encoding)


# --- the model ----------------------------------------------------------------------------------


class McQaModel(nn.Module):
    """A pre-trained encoder and a fresh ``Linear(hidden, 1)`` on its pooled first token: (B, K) logits."""

    def __init__(self, encoder: nn.Module, hidden: int, *, pooling: str = "pooler", dropout: float = 0.1,
                 trim: bool = True) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise McQaError(f"pooling={pooling!r}; choose one of {list(POOLINGS)}")
        self.encoder = encoder
        self.pooling = pooling
        self.trim = trim  # batches cut back to their longest sequence
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(hidden, 1)
        nn.init.normal_(self.classifier.weight, mean=0.0, std=HEAD_STD)
        nn.init.zeros_(self.classifier.bias)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                token_type_ids: torch.Tensor | None = None) -> torch.Tensor:
        batch, n_choices, _ = input_ids.shape
        # Padding is on the right.
        length = int(attention_mask.sum(dim=-1).max()) if self.trim else input_ids.shape[-1]

        def flat(tensor: torch.Tensor) -> torch.Tensor:
            return tensor[..., :length].reshape(batch * n_choices, length)

        inputs = {"input_ids": flat(input_ids), "attention_mask": flat(attention_mask)}
        if token_type_ids is not None:
            inputs["token_type_ids"] = flat(token_type_ids)
        output = self.encoder(**inputs)
        pooled = self.pooled(output)
        return self.classifier(self.dropout(pooled)).view(batch, n_choices)

    def pooled(self, output) -> torch.Tensor:
        if self.pooling == "first":
            return output.last_hidden_state[:, 0]
        if getattr(output, "pooler_output", None) is None:
            raise McQaError(f"{type(self.encoder).__name__} has no pooler; use pooling='first'")
        return output.pooler_output


# --- the pre-trained encoder, loaded once --------------------------------------------------------


@dataclass
class PretrainedEncoder:
    """The tokenizer, the encoder on its device, and the pre-trained state every run starts from."""

    slug: str
    tokenizer: object
    encoder: nn.Module
    initial_state: dict[str, torch.Tensor]  # on the CPU
    fresh_keys: tuple[str, ...]  # weights the checkpoint lacks: drawn anew from each run's seed
    init_std: float
    dropout: float
    hidden: int
    trim: bool = True  # see ``trims_padding``


def load_encoder(model_dir: str | Path, *, slug: str, device: torch.device, spec: dict | None = None) -> PretrainedEncoder:
    """Tokenizer and ``AutoModel`` encoder from a local folder, offline, in float32 (safetensors and no
    shipped code unless the model's config entry allows them, as ``load_lm``)."""
    from transformers import AutoModel

    from lmprobes.models import check_model_folder, check_tokenizer_size, load_tokenizer

    model_dir, spec = Path(model_dir), spec or {}
    if not (model_dir / "config.json").exists():
        raise McQaError(f"model {slug!r}: no config.json in {model_dir}")
    check_model_folder(slug, spec, model_dir)
    trust = bool(spec.get("trust_remote_code", False))
    tokenizer = load_tokenizer(slug, model_dir, trust)
    encoder, info = AutoModel.from_pretrained(model_dir, local_files_only=True, dtype=torch.float32,
                                              output_loading_info=True, trust_remote_code=trust,
                                              use_safetensors=None if spec.get("allow_pickle") else True)
    check_encoder_weights(slug, model_dir, info["missing_keys"], bool(spec.get("allow_missing_weights", False)))
    check_tokenizer_size(slug, model_dir, tokenizer, encoder)
    encoder.to(device)
    config = encoder.config
    trim = trims_padding(slug, getattr(config, "model_type", None), spec.get("padding", "auto"))
    return PretrainedEncoder(
        slug=slug, tokenizer=tokenizer, encoder=encoder,
        initial_state=cpu_state(encoder),
        fresh_keys=tuple(sorted(info["missing_keys"])), init_std=getattr(config, "initializer_range", HEAD_STD),
        dropout=getattr(config, "hidden_dropout_prob", 0.1), hidden=config.hidden_size, trim=trim,
    )


def cpu_state(module: nn.Module) -> dict[str, torch.Tensor]:
    """A CPU copy of ``module``'s state, untouched by later training."""
    return {name: value.detach().cpu().clone() for name, value in module.state_dict().items()}


def trims_padding(slug: str, model_type: str | None, padding: str) -> bool:
    """Whether MC-QA batches are cut back to their longest sequence (the model's ``padding``: ``right``
    always, ``equal_length`` never, ``auto`` unless its outputs change with padding)."""
    if padding not in PADDINGS:
        raise McQaError(f"model {slug!r}: padding must be one of {PADDINGS}, not {padding!r}")
    if padding == "auto":
        return model_type not in PADDING_SENSITIVE_MODEL_TYPES
    return padding == "right"


def check_encoder_weights(slug: str, model_dir: Path, missing: list[str], allow: bool) -> None:
    """Only the pooler may be missing (an MLM checkpoint need not have one); any other encoder
    weight drawn at random would fine-tune a partly random network."""
    from lmprobes.models import check_loaded_weights

    beyond_pooler = [key for key in missing if not key.split(".")[0].endswith("pooler")]
    check_loaded_weights(slug, model_dir, "the encoder", {"missing_keys": beyond_pooler}, allow)


def fresh_model(pretrained: PretrainedEncoder, *, pooling: str = "pooler", head_state: dict | None = None) -> McQaModel:
    """The encoder reset to its pre-trained state and a new head (or the head of ``head_state``); call
    inside ``seeded``."""
    pretrained.encoder.load_state_dict(pretrained.initial_state)
    parameters = dict(pretrained.encoder.named_parameters())
    with torch.no_grad():
        for name in pretrained.fresh_keys:
            if name in parameters:  # a missing buffer is computed by the model itself
                reinitialise(name, parameters[name], pretrained.init_std)
    model = McQaModel(pretrained.encoder, pretrained.hidden, pooling=pooling, dropout=pretrained.dropout,
                      trim=pretrained.trim)
    if head_state is not None:
        model.classifier.load_state_dict(head_state)
    return model


def reinitialise(name: str, parameter: torch.Tensor, std: float) -> None:
    """transformers' own initialisation: biases 0, LayerNorm weights 1, other weights normal(0, std)."""
    if name.endswith("bias"):
        parameter.zero_()
    elif "norm" in name.lower():
        parameter.fill_(1.0)
    else:
        parameter.normal_(mean=0.0, std=std)


@contextlib.contextmanager
def seeded(seed: int, device: torch.device | str = "cpu") -> Iterator[None]:
    """Draw initialisation and dropout from ``seed``, leaving the caller's random state untouched."""
    device = torch.device(device)
    devices = [device.index if device.index is not None else torch.cuda.current_device()] if device.type == "cuda" else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        yield


def fine_tune(pretrained: PretrainedEncoder, train: Examples, dev: Examples, *, seed: int,
              hp: HyperParameters = TRANSFORMER, device: torch.device | str = "cpu", pooling: str = "pooler",
              progress: bool = False, description: str = "", head_state: dict | None = None,
              eval_tokens: int | None = None) -> tuple[RunResult, McQaModel]:
    """One run from the pre-trained weights (and ``head_state``'s head, else a new one): the result and the
    trained model (sharing the encoder). ``eval_tokens``: the token budget of a dev pass (``fit``)."""
    with seeded(seed, device):
        model = fresh_model(pretrained, pooling=pooling, head_state=head_state)
        result = fit(model, train, dev, hp, seed=seed, device=device, progress=progress, description=description,
                     eval_tokens=eval_tokens)
    return result, model


# --- curves ---------------------------------------------------------------------------------------


def mc_qa_curves(model_dir: str | Path, spec: dict, items: pd.DataFrame, *, grid: Sequence[int] = PAPER_N,
                 seeds: Sequence[int] = (1,), hp: HyperParameters = TRANSFORMER, device: str = "auto",
                 progress: bool = False, slug: str | None = None, pooling: str = "pooler",
                 max_pieces: int = 256, stage_one: Mapping[int, StageOne] | None = None,
                 segment_ids: str = "original", mask_encoding: str = "original") -> pd.DataFrame:
    """Learning curves (CURVE_SCHEMA, setting ``mc_qa``) of one model on the MC-QA rows of ``items``.

    One row per (task, flavour, variant, N, seed): dev accuracy of the run trained on the first N
    train rows of ``training_subset(.., seed)``; N the train split cannot supply is left out.
    ``stage_one``: by seed, the encoder and head each run of that seed starts from instead of the
    pre-trained weights and a new head (encyclopedic composition's single-hop stage, ``single_hop_stage``).
    """
    slug = slug or Path(model_dir).name
    groups = item_groups(items, ("mc_qa", "mc_mlm"), what="MC-QA fine-tuning")
    require_masked(slug, spec, sorted({task for task, _, _ in groups}))
    starts = run_starts(slug, seeds, pooling, stage_one)
    target = resolve_device(device)
    pretrained = load_encoder(model_dir, slug=slug, device=target, spec=spec)
    examples = {key: split_examples(pretrained.tokenizer, frame, max_pieces, segment_ids, mask_encoding)
                for key, frame in groups.items()}
    plan = [(key, n, seed) for key, frame in groups.items() for n in curve_points(count_split(frame, "train"), grid, what="/".join(key))
            for seed in seeds]
    rows = []
    for key, n, seed in tqdm(plan, desc=f"mc_qa {slug}", disable=not progress):
        train, dev = examples[key]
        subset = train.subset(training_subset(len(train), n, seed))
        start, head = starting_point(pretrained, starts[seed])
        result, _ = fine_tune(start, subset, dev, seed=seed, hp=hp, device=target, pooling=pooling, progress=progress,
                              description=f"{key[0]}/{key[2]} N={n} seed={seed}", head_state=head,
                              eval_tokens=spec.get("batch_tokens"))
        rows.append(curve_row(key, slug, SETTING, n, seed, result, len(dev)))
    return curve_frame(rows)


def require_masked(slug: str, spec: dict, tasks: Sequence[str]) -> None:
    if spec.get("family") != "masked":
        raise McQaError(f"model {slug!r} is a {spec.get('family')!r} model: MC-QA fine-tuning needs a masked "
                        f"encoder (tasks {list(tasks)})")


def run_starts(slug: str, seeds: Sequence[int], pooling: str,
               stage_one: Mapping[int, StageOne] | None) -> dict[int, StageOne | None]:
    """Each seed's stage one (None: from the pre-trained weights); an error names a seed without one,
    or one made for another model or pooling."""
    if stage_one is None:
        return dict.fromkeys(seeds)
    missing = [seed for seed in seeds if seed not in stage_one]
    if missing:
        raise McQaError(f"model {slug!r}: no single-hop stage for seeds {missing} (have {sorted(stage_one)})")
    for seed in seeds:
        stage = stage_one[seed]
        if (stage.model, stage.seed, stage.pooling) != (slug, seed, pooling):
            raise McQaError(f"model {slug!r}, seed {seed}, pooling {pooling!r}: the single-hop stage given was made "
                            f"for model {stage.model!r}, seed {stage.seed}, pooling {stage.pooling!r}")
    return {seed: stage_one[seed] for seed in seeds}


def starting_point(pretrained: PretrainedEncoder, stage: StageOne | None) -> tuple[PretrainedEncoder, dict | None]:
    """The encoder a run starts from, and its head's state (None: a new head)."""
    if stage is None:
        return pretrained, None
    return replace(pretrained, initial_state=stage.encoder, fresh_keys=()), stage.head


def single_hop_stage(model_dir: str | Path, spec: dict, items: pd.DataFrame, *, seed: int,
                     hp: HyperParameters = TRANSFORMER, device: str = "auto", progress: bool = False,
                     slug: str | None = None, pooling: str = "pooler", max_pieces: int = 256,
                     segment_ids: str = "original") -> StageOne:
    """The encoder and head after fine-tuning from the pre-trained weights on every one of ``items``
    (all splits), as a run of ``seed`` would: the last epoch's weights, as nothing is held out to
    choose another (the log reports each epoch's accuracy on the dev rows, which it trains on too)."""
    slug = slug or Path(model_dir).name
    require_masked(slug, spec, ["single_hop"])
    if items.empty or not (items["split"] == "dev").any():
        raise McQaError("the single-hop stage needs items of the dev split")
    target = resolve_device(device)
    pretrained = load_encoder(model_dir, slug=slug, device=target, spec=spec)
    everything = mc_qa_examples(pretrained.tokenizer, items, max_pieces, segment_ids)
    dev = pad_examples(mc_qa_examples(pretrained.tokenizer, items[items["split"] == "dev"], max_pieces, segment_ids),
                       everything.inputs["input_ids"].shape[-1], pretrained.tokenizer.pad_token_id)
    result, model = fine_tune(pretrained, everything, dev, seed=seed, hp=hp, device=target, pooling=pooling,
                              progress=progress, description=f"single-hop stage seed={seed}",
                              eval_tokens=spec.get("batch_tokens"))
    log.info("%s: single-hop stage on %d items, seed %d: accuracy on the dev questions' facts (trained on too) "
             "by epoch %s; the last epoch's weights are kept", slug, len(everything), seed,
             [round(value, 1) for value in result.epoch_accuracies])
    return StageOne(model=slug, seed=seed, pooling=pooling, items=len(items),
                    encoder=cpu_state(model.encoder), head=cpu_state(model.classifier))


def split_examples(tokenizer, frame: pd.DataFrame, max_pieces: int, segment_ids: str = "original",
                   mask_encoding: str = "original") -> tuple[Examples, Examples]:
    """Train and dev examples, padded to one length."""
    train, dev = (mc_qa_examples(tokenizer, frame[frame["split"] == split], max_pieces, segment_ids, mask_encoding)
                  for split in ("train", "dev"))
    length = max(train.inputs["input_ids"].shape[-1], dev.inputs["input_ids"].shape[-1])
    return pad_examples(train, length, tokenizer.pad_token_id), pad_examples(dev, length, tokenizer.pad_token_id)


def pad_examples(examples: Examples, length: int, pad_id: int) -> Examples:
    """``examples`` right-padded to ``length`` (the pad id in ``input_ids``, 0 elsewhere)."""
    inputs = {name: nn.functional.pad(tensor, (0, length - tensor.shape[-1]), value=pad_id if name == "input_ids" else 0)
              for name, tensor in examples.inputs.items()}
    return Examples(inputs, examples.labels, examples.meta)


# --- helpers shared with the baselines ----------------------------------------------------------------


def item_groups(items: pd.DataFrame, setup: str | tuple[str, ...], *, what: str,
                splits: Sequence[str] = ("train", "dev"),
                error: type[ValueError] = McQaError) -> dict[tuple[str, str, str], pd.DataFrame]:
    """Rows by (task, flavour, variant), in order of first appearance; every task must be of ``setup``
    (one or several) and every group needs rows of each of ``splits``."""
    if items.empty:
        raise error(f"{what}: no items")
    setups = (setup,) if isinstance(setup, str) else setup
    wrong = sorted({task for task in items["task"] if task not in TASKS or TASKS[task].setup not in setups})
    if wrong:
        raise error(f"{what} takes {' or '.join(setups)} tasks only; got {wrong}")
    groups = {}
    for key, frame in items.groupby(GROUP_KEYS, sort=False):
        for split in splits:
            if count_split(frame, split) == 0:
                raise error(f"{what}: {'/'.join(key)} has no {split} rows")
        groups[tuple(key)] = frame.sort_values("row", kind="stable")
    return groups


def count_split(frame: pd.DataFrame, split: str) -> int:
    return int((frame["split"] == split).sum())

