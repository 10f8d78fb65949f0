"""The pre-trained MLM head of a masked LM as a trainable probe over a task's candidate words.

oLMpics' MC-MLM learning curves (``transformer_maksed_lm_model.py`` of the original) freeze the
encoder and train the model's own MLM head, scoring each choice by its logit at the mask:

- MLP_MLM (``probe_type: MLP``): the whole head is trained (dense, activation, LayerNorm, decoder, bias);
- LINEAR (``probe_type: linear``): dense and LayerNorm are frozen as well; only the decoder and bias train.

Every supported head has the same shape once read out of its architecture: ``dense`` (H -> E), an
activation named in the model config (RoBERTa's head hard-codes ``gelu``), ``LayerNorm`` (E, eps),
then the decoder (V x E) and its bias (V). ``MlmHead`` holds those parameters in that canonical
form, keeping only the decoder and bias rows of the candidate ids: the loss is a cross-entropy over
the candidates' logits only, so no other row gets a gradient, and the rows of other words never
change a candidate logit (AdamW acts element-wise).

Why an untied copy: HF ties the decoder weight to the input word embeddings. In the original,
training the decoder therefore also changed the encoder's input embeddings (the gradient through the
decoder, the one flowing back through the frozen encoder, and weight decay on every row of the
shared matrix). Here the encoder's hidden states at the mask are computed once and cached
(``hidden.py``), which is only valid if nothing the encoder reads changes, so the probe trains a
copy of the candidate rows and the embeddings stay as pre-trained. This is a documented deviation:
the probe is "frozen encoder + trained output head", which is what the paper describes.

Every run builds its probe from the extracted head with fresh tensor copies, so a run never sees
another run's updates. ``forward(hidden (B, H), candidates (B, K) local row indices) -> (B, K)``;
local indices index the probe's ``candidate_ids`` (see ``local_indices``).

Saved heads are one safetensors file whose only metadata key holds sorted-key JSON (activation,
eps, model type, candidate ids), so the same head gives the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors
from safetensors.torch import save as save_safetensors
from torch import nn
from torch.nn.utils import skip_init

from lmprobes.engine.lm import LM
from lmprobes.io import atomic_path

BERT_TYPES = ("bert",)
ROBERTA_TYPES = ("roberta", "xlm-roberta", "camembert")
DISTILBERT_TYPES = ("distilbert",)
ALBERT_TYPES = ("albert",)
SUPPORTED_TYPES = BERT_TYPES + ROBERTA_TYPES + DISTILBERT_TYPES + ALBERT_TYPES
TENSOR_NAMES = ("dense_weight", "dense_bias", "norm_weight", "norm_bias", "decoder_weight", "decoder_bias")
METADATA_KEY = "lmprobes"
FORMAT_VERSION = 1


# The head activations that transformers computes with one torch function: the same numbers without
# importing transformers (~3 s of each MC-MLM curve job, which reads cached states and no model).
TORCH_ACTIVATIONS = {"gelu": nn.GELU, "relu": nn.ReLU, "silu": nn.SiLU, "swish": nn.SiLU, "tanh": nn.Tanh,
                     "gelu_pytorch_tanh": lambda: nn.GELU(approximate="tanh")}


def _transformers_activations():
    from transformers.activations import ACT2FN

    return ACT2FN


def is_known_activation(name: str) -> bool:
    return name in TORCH_ACTIVATIONS or name in _transformers_activations()


def activation_module(name: str) -> nn.Module:
    """The activation transformers names ``name``: torch's own module where it is one torch function."""
    if name in TORCH_ACTIVATIONS:
        return TORCH_ACTIVATIONS[name]()
    return _transformers_activations()[name]


class HeadError(ValueError):
    """A model, head file or candidate list that cannot give an MLM head probe; the message names it."""


@dataclass(frozen=True, eq=False)
class MlmHead:
    """An MLM head in canonical form, with the decoder/bias rows of ``candidate_ids`` only (in that order)."""

    model_type: str
    activation: str
    eps: float
    dense_weight: torch.Tensor  # (E, H)
    dense_bias: torch.Tensor  # (E,)
    norm_weight: torch.Tensor  # (E,)
    norm_bias: torch.Tensor  # (E,)
    decoder_weight: torch.Tensor  # (C, E): row c is the decoder row of candidate_ids[c]
    decoder_bias: torch.Tensor  # (C,)
    candidate_ids: tuple[int, ...]

    def __post_init__(self) -> None:
        if not is_known_activation(self.activation):
            raise HeadError(f"MLM head activation {self.activation!r} is not a known transformers activation")
        n_rows, width = len(self.candidate_ids), self.dense_weight.shape[0]
        if self.decoder_weight.shape != (n_rows, width) or self.decoder_bias.shape != (n_rows,):
            raise HeadError(f"MLM head decoder {tuple(self.decoder_weight.shape)} / bias "
                            f"{tuple(self.decoder_bias.shape)} do not match {n_rows} candidates of width {width}")

    @property
    def hidden_size(self) -> int:
        return int(self.dense_weight.shape[1])

    def tensors(self) -> dict[str, torch.Tensor]:
        return {name: getattr(self, name) for name in TENSOR_NAMES}


def extract_head(lm: LM, candidate_ids: Iterable[int]) -> MlmHead:
    """A detached float32 copy of ``lm``'s MLM head, keeping the decoder/bias rows of the (sorted, unique) ids."""
    ids = _checked_ids(lm, candidate_ids)
    model_type = str(getattr(lm.model.config, "model_type", type(lm.model).__name__))
    dense, activation, norm, decoder, bias = _head_parts(lm.model, model_type)
    rows = torch.tensor(ids, dtype=torch.long, device=decoder.weight.device)
    return MlmHead(
        model_type=model_type,
        activation=activation,
        eps=float(norm.eps),
        dense_weight=_copy(dense.weight),
        dense_bias=_copy(dense.bias),
        norm_weight=_copy(norm.weight),
        norm_bias=_copy(norm.bias),
        decoder_weight=_copy(decoder.weight[rows]),
        decoder_bias=_copy(bias[rows]),
        candidate_ids=tuple(ids),
    )


def _checked_ids(lm: LM, candidate_ids: Iterable[int]) -> list[int]:
    ids = sorted({int(i) for i in candidate_ids})
    if not ids:
        raise HeadError(f"{lm.name}: no candidate ids to extract an MLM head for")
    bad = [i for i in ids if not 0 <= i < lm.vocab_size]
    if bad:
        raise HeadError(f"{lm.name}: candidate ids {bad} are outside the vocabulary (size {lm.vocab_size})")
    return ids


def _head_parts(model: nn.Module, model_type: str) -> tuple[nn.Linear, str, nn.LayerNorm, nn.Linear, torch.Tensor]:
    """(dense, activation name, LayerNorm, decoder, decoder bias) of a supported HF masked-LM class."""
    config = model.config
    try:
        if model_type in BERT_TYPES:
            head = model.cls.predictions
            parts = (head.transform.dense, config.hidden_act, head.transform.LayerNorm, head.decoder, head.bias)
        elif model_type in ROBERTA_TYPES:
            head = model.lm_head  # RobertaLMHead.forward applies gelu whatever config.hidden_act says
            parts = (head.dense, "gelu", head.layer_norm, head.decoder, head.bias)
        elif model_type in DISTILBERT_TYPES:
            parts = (model.vocab_transform, config.activation, model.vocab_layer_norm, model.vocab_projector, None)
        elif model_type in ALBERT_TYPES:
            head = model.predictions
            parts = (head.dense, config.hidden_act, head.LayerNorm, head.decoder, head.bias)
        else:
            raise HeadError(f"MLM head probes support model types {list(SUPPORTED_TYPES)}, not {model_type!r} "
                            f"({type(model).__name__})")
    except AttributeError as err:
        raise HeadError(f"{type(model).__name__} (model type {model_type!r}) has no MLM head: {err}") from None
    dense, activation, norm, decoder, bias = parts
    if not isinstance(activation, str):
        raise HeadError(f"{model_type}: the head activation must be named in the config, got {activation!r}")
    # The decoder's own bias is the one its forward adds (HF ties it to the head's ``bias``).
    effective_bias = decoder.bias if decoder.bias is not None else bias
    if effective_bias is None:
        raise HeadError(f"{model_type}: the MLM decoder has no bias")
    return dense, activation, norm, decoder, effective_bias


def _copy(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.detach().to("cpu", torch.float32).clone().contiguous()


def save_head(head: MlmHead, path: str | Path) -> None:
    """One safetensors file, written atomically; the same head gives the same bytes."""
    metadata = {
        "format_version": FORMAT_VERSION, "model_type": head.model_type, "activation": head.activation,
        "eps": head.eps, "candidate_ids": list(head.candidate_ids),
    }
    tensors = {name: tensor.contiguous() for name, tensor in head.tensors().items()}
    tensors["candidate_ids"] = torch.tensor(head.candidate_ids, dtype=torch.int64)
    data = save_safetensors(tensors, metadata={METADATA_KEY: json.dumps(metadata, sort_keys=True)})
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def load_head(path: str | Path) -> MlmHead:
    """The head saved by ``save_head``; an error names the file when it is not one."""
    path = Path(path)
    try:
        data = path.read_bytes()
        tensors = load_safetensors(data)
        metadata = json.loads(_safetensors_metadata(data)[METADATA_KEY])
    except (OSError, KeyError, ValueError, RuntimeError, SafetensorError) as err:
        raise HeadError(f"{path}: not an MLM head file written by save_head ({err})") from None
    missing = [name for name in (*TENSOR_NAMES, "candidate_ids") if name not in tensors]
    if missing:
        raise HeadError(f"{path}: MLM head file lacks tensors {missing}")
    ids = tuple(int(i) for i in metadata["candidate_ids"])
    if ids != tuple(tensors["candidate_ids"].tolist()):
        raise HeadError(f"{path}: candidate ids in the metadata and the tensor differ")
    return MlmHead(model_type=metadata["model_type"], activation=metadata["activation"], eps=float(metadata["eps"]),
                   candidate_ids=ids, **{name: tensors[name] for name in TENSOR_NAMES})


def _safetensors_metadata(data: bytes) -> dict[str, str]:
    """The ``__metadata__`` block of a safetensors file (8-byte little-endian header length, then JSON)."""
    length = int.from_bytes(data[:8], "little")
    return json.loads(data[8:8 + length]).get("__metadata__", {})


def local_indices(candidate_ids: Sequence[int], rows: Iterable[Sequence[int]]) -> torch.Tensor:
    """(n, K) positions of each row's token ids in ``candidate_ids``; an error names a missing id."""
    position = {int(token): index for index, token in enumerate(candidate_ids)}
    table = []
    for number, row in enumerate(rows):
        missing = [int(t) for t in row if int(t) not in position]
        if missing:
            raise HeadError(f"row {number}: candidate ids {missing} are not among the head's {len(position)} rows")
        table.append([position[int(t)] for t in row])
    widths = {len(r) for r in table}
    if len(widths) > 1:
        raise HeadError(f"rows have different numbers of choices {sorted(widths)}; one tensor needs one width")
    return torch.tensor(table, dtype=torch.long).reshape(len(table), widths.pop() if widths else 0)


class HeadProbe(nn.Module):
    """A fresh copy of an MLM head restricted to ``task_candidate_ids``; subclasses choose what trains.

    Parameter names follow the original's weight-decay groups (``training.NO_DECAY``): biases and
    the LayerNorm weight are not decayed, the dense and decoder weights are.
    """

    trains_transform = True

    def __init__(self, head: MlmHead, task_candidate_ids: Sequence[int] | None = None) -> None:
        super().__init__()
        ids = tuple(head.candidate_ids if task_candidate_ids is None else (int(i) for i in task_candidate_ids))
        rows = local_indices(head.candidate_ids, [ids])[0]
        width, hidden = head.dense_weight.shape
        self.candidate_ids = ids
        # skip_init: the weights are overwritten below, so the global RNG is left untouched.
        self.dense = skip_init(nn.Linear, hidden, width)
        self.activation = activation_module(head.activation)
        self.layer_norm = nn.LayerNorm(width, eps=head.eps)
        self.decoder = skip_init(nn.Linear, width, len(ids))
        with torch.no_grad():
            self.dense.weight.copy_(head.dense_weight)
            self.dense.bias.copy_(head.dense_bias)
            self.layer_norm.weight.copy_(head.norm_weight)
            self.layer_norm.bias.copy_(head.norm_bias)
            self.decoder.weight.copy_(head.decoder_weight[rows])
            self.decoder.bias.copy_(head.decoder_bias[rows])
        for module in (self.dense, self.layer_norm):
            module.requires_grad_(self.trains_transform)

    def forward(self, hidden: torch.Tensor, candidates: torch.Tensor) -> torch.Tensor:
        """(B, K) logits of each row's candidates (local indices into ``candidate_ids``)."""
        features = self.layer_norm(self.activation(self.dense(hidden)))
        weights = self.decoder.weight[candidates]  # (B, K, E)
        return torch.einsum("be,bke->bk", features, weights) + self.decoder.bias[candidates]


class MlpMlmProbe(HeadProbe):
    """MLP_MLM: dense, LayerNorm, decoder rows and bias all train."""

    trains_transform = True


class LinearProbe(HeadProbe):
    """LINEAR: dense and LayerNorm frozen; only the decoder rows and their bias train."""

    trains_transform = False


PROBES: dict[str, type[HeadProbe]] = {"mlp_mlm": MlpMlmProbe, "linear": LinearProbe}


def make_probe(setting: str, head: MlmHead, task_candidate_ids: Sequence[int] | None = None) -> HeadProbe:
    """A fresh probe of ``setting`` (``mlp_mlm`` or ``linear``)."""
    if setting not in PROBES:
        raise HeadError(f"unknown MC-MLM probe setting {setting!r}; choose one of {list(PROBES)}")
    return PROBES[setting](head, task_candidate_ids)
