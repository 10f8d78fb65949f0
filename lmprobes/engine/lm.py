"""The loaded language model that every engine primitive takes as its first argument."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import torch

from lmprobes.engine.fusion import fuse_activations, fuse_linear_gelu
from lmprobes.engine.head import HEAD_DTYPES, align_head_on_cuda, use_float32_head
from lmprobes.engine.precision import RESIDUAL_DTYPES, keep_residual_float32

Family = Literal["masked", "causal"]

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
PADDINGS = ("auto", "right", "equal_length")
STARTS = ("auto", "bos", "eos")
# Bidirectional model types whose outputs at a sequence's own tokens change when a batch pads it:
# convolutions over the pad positions (ConvBERT), Fourier mixing of the whole row (FNet), pooling
# that depends on the padded length (Funnel), hashed attention (YOSO). Each is checked against an
# unpadded forward in tests/test_engine_zoo.py, as are the masked types that pad safely.
PADDING_SENSITIVE_MODEL_TYPES = frozenset({"convbert", "fnet", "funnel", "yoso"})


def library_versions() -> dict[str, str]:
    """The thread count and the versions of the libraries a score depends on, for a file's metadata."""
    import numpy
    import pyarrow
    import tokenizers
    import transformers

    return {
        "threads": str(torch.get_num_threads()),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "tokenizers": tokenizers.__version__,
        "numpy": numpy.__version__,
        "pyarrow": pyarrow.__version__,  # writes the Parquet bytes
    }


@dataclass
class LM:
    """A model, its tokenizer and how to run it.

    ``batch_tokens`` is the token budget of one forward pass (batch size x padded length);
    the engine halves it for a batch that runs out of CUDA memory. ``packing`` says how causal
    sequences are scored: ``auto`` packs shared prefixes (``engine.packing``) for the
    architectures checked to support it, ``trie`` insists on it, ``none`` pads each sequence.
    ``head_dtype="float32"`` keeps a bfloat16/float16 model's logits in float32 (``engine.head``);
    float32 models always run their head that way (oneDNN on CPU). ``residual_dtype="float32"``
    takes a float32 model and runs its linear layers in ``dtype`` with the residual stream, norms
    and embeddings kept in float32 (``engine.precision``). ``padding``: ``right`` pads the shorter
    sequences of a batch, ``equal_length`` batches only sequences of one length (nothing padded:
    slower, for models whose outputs depend on padding), ``auto`` picks ``equal_length`` for
    ``PADDING_SENSITIVE_MODEL_TYPES`` (causal models never see their right padding). ``start``: the
    token a causal sequence starts from (``start_token``).
    """

    name: str
    model: torch.nn.Module
    tokenizer: object
    family: Family
    device: torch.device = field(default_factory=lambda: torch.device("cpu"))
    dtype: torch.dtype = torch.float32
    batch_tokens: int = 4096
    packing: str = "auto"
    head_dtype: str = "auto"
    residual_dtype: str = "auto"
    padding: str = "auto"
    start: str = "auto"
    revision: str | None = None
    source: str | None = None
    commit: str | None = None  # the hub commit a downloaded snapshot was taken at
    files_sha256: str | None = None  # identifies a local or tiny model's folder (``models.folder_sha256``)
    # Whether the head-only path gave the model's own logits on the probe (``runner.checked_projection``).
    head_path_checked: bool | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.head_dtype not in HEAD_DTYPES:
            raise ValueError(f"{self.name}: head_dtype must be one of {HEAD_DTYPES}, not {self.head_dtype!r}")
        if self.residual_dtype not in RESIDUAL_DTYPES:
            raise ValueError(
                f"{self.name}: residual_dtype must be one of {RESIDUAL_DTYPES}, not {self.residual_dtype!r}"
            )
        if self.padding not in PADDINGS:
            raise ValueError(f"{self.name}: padding must be one of {PADDINGS}, not {self.padding!r}")
        if self.start not in STARTS:
            raise ValueError(f"{self.name}: start_token must be one of {STARTS}, not {self.start!r}")
        if self.family == "causal":
            self.start_token()  # a start token the model lacks is refused when it is loaded, not mid-scoring
        if isinstance(self.model, torch.nn.Module):
            self.check_tokenizer_fits()
            fuse_activations(self.model)
            fuse_linear_gelu(self.model)
            if self.residual_dtype == "float32" and self.dtype != torch.float32:
                try:
                    keep_residual_float32(self.model, self.dtype, self.head_dtype)
                except ValueError as error:
                    raise ValueError(f"{self.name}: {error}") from None
            use_float32_head(self.model, self.head_dtype)
            align_head_on_cuda(self.model, torch.device(self.device))

    def check_tokenizer_fits(self) -> None:
        """Refuse a tokenizer with more tokens than the model has input embeddings (tokens added
        without resizing them), which would fail as a bare index error inside the model."""
        rows = getattr(self.model.get_input_embeddings(), "num_embeddings", None)
        try:
            size = len(self.tokenizer)
        except TypeError:  # a tokenizer-like object without a size: nothing to check
            return
        if rows is not None and size > rows:
            raise ValueError(f"{self.name}: the tokenizer has {size} tokens but the model only {rows} input "
                             f"embeddings; resize them (model.resize_token_embeddings) or use the model's tokenizer")

    @property
    def equal_length_batches(self) -> bool:
        """Whether batches hold sequences of one length only (``padding``)."""
        if self.padding != "auto":
            return self.padding == "equal_length"
        model_type = getattr(getattr(self.model, "config", None), "model_type", None)
        return self.family == "masked" and model_type in PADDING_SENSITIVE_MODEL_TYPES

    def special_id(self, attribute: str) -> int | None:
        """A special token's id (``bos_token_id``, ...) from the tokenizer, else the model's config."""
        token = getattr(self.tokenizer, attribute, None)
        if token is None:
            token = getattr(getattr(self.model, "config", None), attribute, None)
        if isinstance(token, list):  # some configs list several EOS ids; the first is the canonical one
            token = token[0] if token else None
        return token

    def start_token(self) -> tuple[int, str] | None:
        """The id a causal sequence starts from and which token it is. ``start`` auto: the tokenizer's
        BOS, else its EOS, as lm-evaluation-harness's ``prefix_token_id`` (Qwen's tokenizers have no BOS,
        though their configs name one; GPT-2's ``<|endoftext|>`` is both); only a tokenizer with neither
        falls back to the config's. None when the model has no BOS or EOS anywhere. ``bos``/``eos``: that
        token (the tokenizer's, else the config's); a model without it is an error."""
        if self.start != "auto":
            token = self.special_id(f"{self.start}_token_id")
            if token is None:
                raise ValueError(f"{self.name}: start_token: {self.start} asks for the {self.start.upper()} token, "
                                 "which neither the tokenizer nor the config has")
            return token, self.start
        for attribute in ("bos_token_id", "eos_token_id"):
            token = getattr(self.tokenizer, attribute, None)
            if token is not None:
                return token, attribute.removesuffix("_token_id")
        for attribute in ("bos_token_id", "eos_token_id"):
            token = self.special_id(attribute)
            if token is not None:
                return token, attribute.removesuffix("_token_id")
        return None

    @property
    def vocab_size(self) -> int:
        return self.model.get_output_embeddings().weight.shape[0]

    def describe(self) -> dict[str, str]:
        """Provenance recorded in the metadata of every score file."""
        return {
            "model": self.name,
            "model_source": str(self.source or ""),
            "model_revision": str(self.revision or ""),
            "model_commit": str(self.commit or ""),
            "model_files_sha256": str(self.files_sha256 or ""),
            "model_family": self.family,
            **({"start_token": self._describe_start()} if self.family == "causal" else {}),
            "dtype": str(self.dtype).removeprefix("torch."),
            "device": str(self.device),
            "batch_tokens": str(self.batch_tokens),
            **({"packing": self.packing} if self.family == "causal" else {}),
            "padding": "equal_length" if self.equal_length_batches else "right",
            "head_dtype": self.head_dtype,
            "residual_dtype": self.residual_dtype,
            **library_versions(),
        }

    def _describe_start(self) -> str:
        """``'<|endoftext|>' (bos)``: what a BOS-prefixed sequence of this model starts with."""
        start = self.start_token()
        if start is None:
            return "none"
        token, kind = start
        return f"{self.tokenizer.convert_ids_to_tokens(token)!r} ({kind})"
