"""Getting models: hub snapshots at a pinned revision, offline loading, device and dtype.

A model folder is treated as untrusted input, because loading one can run code:

- ``auto_map`` in ``config.json`` or ``tokenizer_config.json`` names Python files shipped with
  the weights that ``trust_remote_code`` would import. Such a folder is refused unless the
  model's entry in config.yaml says ``trust_remote_code: true``; otherwise transformers is
  told ``trust_remote_code=False`` explicitly (never left to ask on a terminal).
- Pickle weights (``pytorch_model.bin`` and friends) are unpickled by ``torch.load``. A folder
  whose only weights are pickles is refused unless the entry says ``allow_pickle: true``;
  loads pass ``use_safetensors=True`` otherwise, so a stray ``.bin`` beside the safetensors
  is never read. ``transformers_weights`` in ``config.json`` (which transformers obeys before
  looking at use_safetensors) must name a safetensors file under the same rule.

The hub download asks only for the top-level safetensors, JSON and tokenizer files (``*.bin``, ``*.pt``,
``*.pkl``... and ``*.py`` are listed in ``ignore_patterns`` too, unless the entry allows
them) and checks the snapshot by the same rules before it becomes ``resources/models/<slug>``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from lmprobes.config import load_schema

if TYPE_CHECKING:  # torch and the engine load with the model, not with a download job (tests/test_light_imports.py)
    import torch

    from lmprobes.engine.lm import LM

log = logging.getLogger("lmprobes.models")

# What a scoring job needs from a hub repository: weights as safetensors, configs and tokenizer
# files (vocab.txt, merges.txt, vocab.json, tokenizer.json, sentencepiece *.model).
SNAPSHOT_PATTERNS = ["*.json", "*.safetensors", "*.txt", "*.model"]
# Files that torch.load / pickle would open, fetched only with allow_pickle.
PICKLE_PATTERNS = ["*.bin", "*.pt", "*.pth", "*.pkl", "*.pickle", "*.ckpt", "*.joblib"]
PICKLE_WEIGHTS_PATTERNS = ["pytorch_model*.bin"]
# Remote code, fetched only with trust_remote_code.
CODE_PATTERNS = ["*.py"]
SUBFOLDER_PATTERNS = ["*/*"]

SAFE_WEIGHTS = ("model.safetensors", "model.safetensors.index.json")
PICKLE_WEIGHTS = ("pytorch_model.bin", "pytorch_model.bin.index.json")
# Files whose auto_map makes transformers import Python code from the folder.
CODE_CONFIGS = ("config.json", "tokenizer_config.json")
# Written into a downloaded snapshot: the hub commit it was taken at (its revision resolved).
COMMIT_FILE = "lmprobes_commit.txt"
# What transformers builds a tokenizer from: tokenizer.json, or a vocabulary (WordPiece vocab.txt, BPE
# vocab.json + merges.txt or bpe.codes, sentencepiece *.model), or tokenizer_config.json alone for a
# byte-level tokenizer (ByT5, Perceiver). Without any, transformers 5 builds an empty one.
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "vocab.json", "merges.txt", "bpe.codes")
TOKENIZER_PATTERNS = ("*.model",)
TOKENIZER_JSON = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
                  "vocab.json")
# A tokenizer with fewer tokens than this share of the model's input embeddings is refused. Real checkpoints
# pad the rows to a multiple of 64 or 128 or keep some free for tokens to come (t5 32100 tokens for 32128
# rows, Qwen2.5 151665 for 151936, phi-2 50295 for 51200, deepseek-llm 100015 for 102400); a tokenizer built
# without its vocabulary has a handful (transformers 5: BERT 5, GPT-2 1). Half is far from both.
MIN_TOKENIZER_SHARE = 0.5
# What transformers raises for a folder it cannot load a model from (a bug's AssertionError is not wrapped).
MODEL_LOAD_ERRORS = (OSError, ValueError, RuntimeError, KeyError, TypeError, AttributeError, ImportError)
# The options of a model's entry in config.yaml that ``load_lm`` reads (the others say where it comes from).
LOADING_OPTIONS = ("family", "dtype", "batch_tokens", "packing", "padding", "start_token", "head_dtype", "residual_dtype",
                   "trust_remote_code", "allow_pickle", "allow_missing_weights")


class ModelError(RuntimeError):
    """A model that cannot be used as configured; the message names the model and the path."""


class UnsafeModelError(ModelError, ValueError):
    """A model folder that would run code or unpickle objects without the config allowing it."""


class ModelFileError(ModelError, OSError):
    """A file of a model folder that transformers could not find or open (its OSError, named)."""


# ---------------------------------------------------------------------------------------------
# Checking a model folder


def check_model_folder(slug: str, spec: dict, model_dir: Path) -> None:
    """Refuse remote code and pickle-only weights in ``model_dir`` unless ``spec`` allows them."""
    model_dir = Path(model_dir)
    if not spec.get("trust_remote_code", False):
        _refuse_remote_code(slug, model_dir)
    if not spec.get("allow_pickle", False):
        _refuse_pickle_weights(slug, model_dir)
    if not any((model_dir / name).is_file() for name in (*SAFE_WEIGHTS, *PICKLE_WEIGHTS)):
        raise ModelError(f"model {slug!r}: no weights in {model_dir} (model.safetensors or pytorch_model.bin)")


def _refuse_remote_code(slug: str, model_dir: Path) -> None:
    for name in CODE_CONFIGS:
        path = model_dir / name
        if path.is_file() and "auto_map" in read_json_object(slug, path):
            raise UnsafeModelError(
                f"model {slug!r}: {path} has auto_map, i.e. Python code shipped with the model that "
                "loading it would run; set `trust_remote_code: true` in this model's entry of "
                "config.yaml only if you trust that code"
            )


def _refuse_pickle_weights(slug: str, model_dir: Path) -> None:
    config = model_dir / "config.json"
    explicit = read_json_object(slug, config).get("transformers_weights") if config.is_file() else None
    if explicit is not None and not str(explicit).endswith((".safetensors", ".safetensors.index.json")):
        raise UnsafeModelError(
            f"model {slug!r}: {config} names transformers_weights {explicit!r}, not a safetensors file; "
            "set `allow_pickle: true` in this model's entry of config.yaml to load pickle weights"
        )
    has_safe = any((model_dir / name).is_file() for name in SAFE_WEIGHTS)
    pickles = sorted(name for name in PICKLE_WEIGHTS if (model_dir / name).is_file())
    if pickles and not has_safe:
        raise UnsafeModelError(
            f"model {slug!r}: {model_dir} has only pickle weights ({', '.join(pickles)}), which "
            "torch.load would unpickle; convert them to model.safetensors, or set `allow_pickle: true` "
            "in this model's entry of config.yaml"
        )


def read_json_object(slug: str, path: Path) -> dict:
    """A model folder's JSON file, which must hold an object; anything else names the file."""
    try:
        value = json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelError(f"model {slug!r}: {path} is not valid JSON ({error})") from error
    if not isinstance(value, dict):
        raise ModelError(f"model {slug!r}: {path} holds a JSON {type(value).__name__}, not an object")
    return value


# ---------------------------------------------------------------------------------------------
# Hub snapshots


def snapshot_patterns(*, allow_pickle: bool = False, trust_remote_code: bool = False) -> tuple[list[str], list[str]]:
    """``(allow_patterns, ignore_patterns)`` for ``snapshot_download``: top-level files only (the hub's
    patterns match across ``/``, and a subfolder holds other formats or checkpoints: ``onnx/``,
    ``original/consolidated.safetensors``, ``checkpoint-500/``, which loading the folder never reads)."""
    allow, ignore = list(SNAPSHOT_PATTERNS), list(SUBFOLDER_PATTERNS)
    if allow_pickle:
        allow += PICKLE_WEIGHTS_PATTERNS
    else:
        ignore += PICKLE_PATTERNS
    if trust_remote_code:
        allow += CODE_PATTERNS
    else:
        ignore += CODE_PATTERNS
    return allow, ignore


def download_model(
    hub_id: str, revision: str, dest: Path, *, allow_pickle: bool = False, trust_remote_code: bool = False
) -> Path:
    """Snapshot ``hub_id`` at ``revision`` into ``dest`` (meant for a cluster's login node).

    The revision (a branch such as ``main``, a tag or a commit) is resolved to its commit first and
    the snapshot taken at that commit, which is written to ``COMMIT_FILE`` and recorded in every
    score file. The snapshot goes to a hidden sibling first and replaces ``dest`` only once it
    passed ``check_model_folder``; a refused snapshot is deleted.
    """
    from huggingface_hub import model_info, snapshot_download

    dest = Path(dest)
    name = f"{hub_id}@{revision}"
    tmp = dest.with_name(f".{dest.name}.partial")
    allow, ignore = snapshot_patterns(allow_pickle=allow_pickle, trust_remote_code=trust_remote_code)
    with _hub_errors_named(name, dest, tmp):
        commit = model_info(hub_id, revision=revision).sha
    if not commit:
        raise ModelError(f"model {name!r}: the hub did not resolve the revision to a commit")
    shutil.rmtree(tmp, ignore_errors=True)  # never top up a snapshot an interrupted download left
    with _hub_errors_named(name, dest, tmp):
        snapshot_download(repo_id=hub_id, revision=commit, local_dir=tmp, allow_patterns=allow, ignore_patterns=ignore)
    try:
        check_model_folder(name, {"allow_pickle": allow_pickle, "trust_remote_code": trust_remote_code}, tmp)
    except UnsafeModelError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    except ModelError as error:
        shutil.rmtree(tmp, ignore_errors=True)
        if allow_pickle:
            raise
        raise ModelError(f"{error}; pickle weights (*.bin) are not downloaded unless the model's entry "
                         "in config.yaml sets `allow_pickle: true`") from error
    shutil.rmtree(tmp / ".cache", ignore_errors=True)
    (tmp / COMMIT_FILE).write_text(f"{commit}\n", encoding="utf-8")
    if dest.exists():
        shutil.rmtree(dest)
    os.replace(tmp, dest)
    return dest


@contextmanager
def _hub_errors_named(name: str, dest: Path, partial: Path) -> Iterator[None]:
    """A failed hub call (offline, unknown repository or revision, HTTP error) as a ModelError that
    names the model and the folder, with the partial snapshot removed."""
    try:
        yield
    except Exception as error:  # the hub client raises its own, httpx's and OSError subclasses
        shutil.rmtree(partial, ignore_errors=True)
        raise ModelError(f"model {name!r}: the hub could not provide it ({type(error).__name__}: {error}); "
                         f"nothing was written to {dest}") from error


def download_configured(spec: dict, dest: Path) -> Path:
    """``download_model`` with a model's config entry (hub_id, revision, allow_pickle, trust_remote_code)."""
    return download_model(
        spec["hub_id"],
        spec.get("revision", "main"),
        dest,
        allow_pickle=bool(spec.get("allow_pickle", False)),
        trust_remote_code=bool(spec.get("trust_remote_code", False)),
    )


# ---------------------------------------------------------------------------------------------
# Loading


def snapshot_commit(model_dir: Path) -> str | None:
    """The hub commit ``download_model`` took the folder's snapshot at (None for other folders)."""
    path = Path(model_dir) / COMMIT_FILE
    return path.read_text(encoding="utf-8").strip() or None if path.is_file() else None


def model_source(spec: dict) -> str:
    """Where a model comes from, as score metadata records it: the hub id, ``tiny``, or ``path:`` and the
    folder's name (not the whole path, which names this machine's layout)."""
    if "hub_id" in spec:
        return spec["hub_id"]
    if "path" in spec:
        return f"path:{Path(spec['path']).name}"
    return "tiny"


def _lm_provenance(provenance: dict[str, str]) -> dict[str, str]:
    """``model_provenance`` as ``LM``'s fields, which ``LM.describe`` records under the same names."""
    return {"source": provenance["model_source"], "revision": provenance["model_revision"],
            "commit": provenance["model_commit"], "files_sha256": provenance["model_files_sha256"]}


def model_provenance(spec: dict, model_dir: Path) -> dict[str, str]:
    """What identifies a model's weights, as ``LM.describe`` records it, for files made by code that loads
    the model another way (the oLMpics fine-tuning): source, revision and hub commit, or the folder's sha256."""
    hub = "hub_id" in spec
    return {
        "model_source": model_source(spec),
        "model_revision": str(spec.get("revision") or "") if hub else "",
        "model_commit": snapshot_commit(model_dir) or "",
        "model_files_sha256": "" if hub else folder_sha256(model_dir),
    }


def folder_sha256(model_dir: Path) -> str:
    """One sha256 over the files at the top of a model folder, where transformers loads config,
    tokenizer and weights from (names and contents; hidden files and subfolders such as
    ``checkpoint-*`` aside): what identifies a local or tiny model, which has no hub commit."""
    from lmprobes.sources import sha256_of

    digest = hashlib.sha256()
    for path in sorted(Path(model_dir).iterdir()):
        if path.is_file() and not path.name.startswith("."):
            digest.update(f"{path.name}\t{sha256_of(path)}\n".encode())
    return digest.hexdigest()


def check_loaded_weights(slug: str, model_dir: Path, model_class: str, loading: dict, allow: bool) -> None:
    """Refuse a checkpoint whose weights have other shapes than config.json gives ``model_class``, or one
    that left weights of ``model_class`` at their random initialisation (unless ``allow``)."""
    mismatched = sorted(loading.get("mismatched_keys") or [], key=str)
    if mismatched:
        raise ModelError(f"model {slug!r}: the weights of {len(mismatched)} tensors in {model_dir} do not have the "
                         f"shapes its config.json gives {model_class} ({_first_few(map(_shapes, mismatched))}); "
                         "config.json and weights come from different models")
    missing = sorted(loading.get("missing_keys") or [])
    if not missing:
        return
    problem = f"{model_dir} has no weights for {len(missing)} tensors of {model_class} ({_first_few(missing)})"
    if allow:
        log.warning("model %r: %s; scored anyway with them at random (allow_missing_weights)", slug, problem)
        return
    raise ModelError(f"model {slug!r}: {problem}: transformers would initialise them at random and the results "
                     "would be noise. Use a checkpoint that holds them (a masked LM saved with its LM head), or set "
                     "`allow_missing_weights: true` in its entry in config.yaml to run it anyway")


def _first_few(names, shown: int = 4) -> str:
    names = list(names)
    return ", ".join(names[:shown]) + (", ..." if len(names) > shown else "")


def _shapes(mismatch) -> str:
    """transformers' ``(name, shape in the weights, shape the config gives)`` as words."""
    if not (isinstance(mismatch, tuple) and len(mismatch) == 3):
        return str(mismatch)
    name, stored, expected = mismatch
    return f"{name}: {'x'.join(map(str, stored))} in the weights, {'x'.join(map(str, expected))} in the config"


def check_spec(slug: str, spec: dict) -> None:
    """Refuse a value of ``LOADING_OPTIONS`` that config.yaml's schema refuses, naming the option and what
    the schema allows."""
    import jsonschema

    options = load_schema()["properties"]["models"]["additionalProperties"]["properties"]
    if "family" not in spec:
        raise ModelError(f"model {slug!r}: no family given (one of {', '.join(options['family']['enum'])})")
    for option in LOADING_OPTIONS:
        if option not in spec:
            continue
        validator = jsonschema.validators.validator_for(load_schema())(options[option])
        error = jsonschema.exceptions.best_match(validator.iter_errors(spec[option]))
        if error is not None:
            raise ModelError(f"model {slug!r}: {option}: {error.message}")


def resolve_device(device: str) -> torch.device:
    import torch

    devices = load_schema()["properties"]["device"]["enum"]
    if device not in devices:
        raise ModelError(f"device: {device!r} is not one of {devices}")
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ModelError("device: cuda was asked for but torch sees no CUDA device")
    return torch.device(device)


def check_special_ids(slug: str, model_dir: Path, tokenizer, model, family: str) -> None:
    """Refuse a tokenizer whose scoring tokens (mask; BOS and EOS of a causal model) have ids beyond
    the model's input embeddings, which would fail later as a bare index error inside the model."""
    embeddings = model.get_input_embeddings()
    rows = getattr(embeddings, "num_embeddings", None)
    if rows is None:
        return
    roles = ("mask_token",) if family == "masked" else ("bos_token", "eos_token")
    for role in roles:
        token_id = getattr(tokenizer, f"{role}_id", None)
        if token_id is not None and not 0 <= token_id < rows:
            raise ModelError(f"model {slug!r}: the tokenizer in {model_dir} gives its {role} "
                             f"{getattr(tokenizer, role)!r} the id {token_id}, but the model has {rows} input "
                             f"embeddings (ids 0 to {rows - 1}); tokenizer and weights do not match")


def check_mask_spacing(slug: str, model_dir: Path, tokenizer) -> None:
    """Make a masked model's mask token take the space before it (``engine.tokens``), logged; refuse a
    tokenizer that still splits ``"a <mask>"`` otherwise than ``"a"`` then the mask."""
    from lmprobes.engine.tokens import make_the_mask_take_the_space_before_it, mask_takes_the_space_before_it

    mask = tokenizer.mask_token
    if make_the_mask_take_the_space_before_it(tokenizer):
        log.warning("%s: the tokenizer's mask token %r left the space before it as a token of its own; it now "
                    "strips that space (lstrip), as RoBERTa's does", slug, mask)
    if not mask_takes_the_space_before_it(tokenizer):
        pieces = tokenizer.convert_ids_to_tokens(tokenizer(f"a {mask}", add_special_tokens=False)["input_ids"])
        raise ModelError(f"model {slug!r}: the tokenizer in {model_dir} encodes 'a {mask}' as {pieces}, not as "
                         f"'a' followed by its mask token {mask!r}, so a masked query cannot be built")


def check_tokenizer_files(slug: str, model_dir: Path) -> list[str]:
    """The tokenizer files in ``model_dir``. A folder with none is refused, as is one with a tokenizer JSON
    file that does not parse."""
    present = [name for name in TOKENIZER_FILES if (model_dir / name).is_file()]
    present += sorted(path.name for pattern in TOKENIZER_PATTERNS for path in model_dir.glob(pattern))
    if not present:
        raise ModelError(f"model {slug!r}: no tokenizer files in {model_dir} (looked for "
                         f"{', '.join((*TOKENIZER_FILES, *TOKENIZER_PATTERNS))}); copy them with the weights")
    for name in TOKENIZER_JSON:
        if (model_dir / name).is_file():
            read_json_object(slug, model_dir / name)
    return present


def check_tokenizer_size(slug: str, model_dir: Path, tokenizer, model) -> None:
    """Refuse a tokenizer whose ids go beyond the model's input embeddings, or one with far fewer tokens
    than the embeddings have rows (``MIN_TOKENIZER_SHARE``): one built without its vocabulary file."""
    rows = getattr(model.get_input_embeddings(), "num_embeddings", None)
    if rows is None:
        return
    top = max(tokenizer.get_vocab().values(), default=-1)
    if top >= rows:
        raise ModelError(f"model {slug!r}: the tokenizer in {model_dir} has ids up to {top}, but the model has "
                         f"{rows} input embeddings (ids 0 to {rows - 1}); tokenizer and weights do not match")
    if len(tokenizer) < MIN_TOKENIZER_SHARE * rows:
        raise ModelError(f"model {slug!r}: the tokenizer in {model_dir} has {len(tokenizer)} tokens for the model's "
                         f"{rows} input embeddings: its vocabulary file is missing or from another model")


def load_tokenizer(slug: str, model_dir: Path, trust_remote_code: bool):
    """The folder's tokenizer (``check_tokenizer_files`` first). Its config.json is read before it, so that
    a config transformers cannot read is named as such, not as the tokenizer (which reads it too)."""
    from transformers import AutoConfig, AutoTokenizer

    files = check_tokenizer_files(slug, model_dir)
    with _load_errors_named(slug, str(model_dir / "config.json")):
        AutoConfig.from_pretrained(model_dir, local_files_only=True, trust_remote_code=trust_remote_code)
    with _load_errors_named(slug, f"the tokenizer files in {model_dir} ({', '.join(files)})"):
        return AutoTokenizer.from_pretrained(model_dir, local_files_only=True, trust_remote_code=trust_remote_code)


@contextmanager
def _load_errors_named(slug: str, what: str) -> Iterator[None]:
    """What transformers raises while loading ``what`` (a file or files of a model folder) as a ModelError
    naming the model and ``what``, with transformers' own message."""
    try:
        yield
    except ModelError:
        raise
    except Exception as error:  # transformers and tokenizers raise ValueError, OSError, KeyError, plain Exception...
        raise _named(f"model {slug!r}: {what} cannot be loaded", error) from error


def _named(message: str, error: Exception) -> ModelError:
    """``error`` as a ModelError with ``message`` before its own; still an OSError if it was one."""
    kind = ModelFileError if isinstance(error, OSError) else ModelError
    return kind(f"{message} ({type(error).__name__}: {error})")


def _weights_error(slug: str, family: str, model_dir: Path, error: Exception) -> ModelError:
    return _named(f"model {slug!r}: the weights in {model_dir} cannot be loaded as a {family} LM", error)


def load_lm(slug: str, spec: dict, model_dir: Path, device: str = "auto") -> LM:
    """Load a configured model from a local folder, offline, on ``device`` in ``spec['dtype']``.

    The spec (``check_spec``) and the folder (``check_model_folder``, ``check_tokenizer_files``) are
    checked first; what transformers raises on the folder is a ModelError naming the model and the
    file. A masked model whose tokenizer has no mask token is refused here, before any scoring (its
    mask is made to take the space before it, ``check_mask_spacing``), and so is a tokenizer that
    does not fit the weights (``check_tokenizer_size``). Meant for a scoring
    job (one model per process): everything alive once the model is loaded is frozen out of the
    cyclic collector (``engine.runner.freeze_collector``).
    """
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

    from lmprobes.engine.lm import DTYPES, LM
    from lmprobes.engine.precision import load_dtype
    from lmprobes.engine.runner import freeze_collector

    check_spec(slug, spec)
    target = resolve_device(device)
    model_dir = Path(model_dir)
    if not (model_dir / "config.json").exists():
        raise ModelError(f"model {slug!r}: no config.json in {model_dir} (download or build it first)")
    check_model_folder(slug, spec, model_dir)
    trust_remote_code = bool(spec.get("trust_remote_code", False))
    family = spec["family"]
    tokenizer = load_family_tokenizer(slug, family, model_dir, trust_remote_code)
    auto = AutoModelForMaskedLM if family == "masked" else AutoModelForCausalLM
    check_family_before_loading(slug, family, auto, model_dir, trust_remote_code)
    dtype = DTYPES[spec.get("dtype", "float32")]
    residual_dtype = spec.get("residual_dtype", "auto")
    model = load_weights(slug, spec, auto, model_dir, load_dtype(dtype, residual_dtype))
    check_special_ids(slug, model_dir, tokenizer, model, family)
    check_tokenizer_size(slug, model_dir, tokenizer, model)
    model = model.to(target).eval()
    lm = LM(
        name=slug,
        model=model,
        tokenizer=tokenizer,
        family=family,
        device=target,
        dtype=dtype,
        batch_tokens=spec.get("batch_tokens", 8192),
        packing=spec.get("packing", "auto"),
        padding=spec.get("padding", "auto"),
        start=spec.get("start_token", "auto"),
        head_dtype=spec.get("head_dtype", "auto"),
        residual_dtype=residual_dtype,
        **_lm_provenance(model_provenance(spec, model_dir)),
    )
    check_family(lm, model_dir)
    freeze_collector()
    return lm


def load_family_tokenizer(slug: str, family: str, model_dir: Path, trust_remote_code: bool):
    """``load_tokenizer``, and for a masked model its mask checked: present, taking the space before it."""
    tokenizer = load_tokenizer(slug, model_dir, trust_remote_code)
    if family == "masked" and tokenizer.mask_token is None:
        raise ModelError(
            f"model {slug!r}: the tokenizer in {model_dir} has no mask token, "
            "so it cannot be scored as a masked LM (family: masked)"
        )
    if family == "masked":
        check_mask_spacing(slug, model_dir, tokenizer)
    return tokenizer


def load_weights(slug: str, spec: dict, auto, model_dir: Path, dtype):
    """The ``auto`` class's model from ``model_dir`` in ``dtype``, offline, its weights checked
    (``check_loaded_weights``); what transformers raises is a ModelError naming the model and file."""
    from safetensors import SafetensorError

    family = spec["family"]
    try:
        model, loading = auto.from_pretrained(
            model_dir,
            local_files_only=True,
            dtype=dtype,
            trust_remote_code=bool(spec.get("trust_remote_code", False)),
            # None lets transformers prefer safetensors and fall back to the pickle only when allowed.
            use_safetensors=None if spec.get("allow_pickle", False) else True,
            output_loading_info=True,
            ignore_mismatched_sizes=True,  # reported in ``loading`` and refused, named, by check_loaded_weights
        )
    except ValueError as error:
        if "Unrecognized configuration class" not in str(error):
            raise _weights_error(slug, family, model_dir, error) from error
        raise ModelError(
            f"model {slug!r}: {model_dir} holds a {_model_type(slug, model_dir)!r} model, which transformers has "
            f"no {family} LM class for; is its `family: {family}` in config.yaml right?"
        ) from None
    except SafetensorError as error:  # a truncated or damaged weights file (a path: model has no checksum)
        weights = ", ".join(sorted(p.name for p in model_dir.glob("*.safetensors"))) or "its weights"
        raise ModelError(f"model {slug!r}: {weights} in {model_dir} cannot be read ({error}); "
                         "download or copy the model again") from None
    except MODEL_LOAD_ERRORS as error:
        raise _weights_error(slug, family, model_dir, error) from error
    check_loaded_weights(slug, model_dir, type(model).__name__, loading, spec.get("allow_missing_weights", False))
    return model


def check_family_before_loading(slug: str, family: str, auto, model_dir: Path, trust_remote_code: bool) -> None:
    """``check_family``'s config checks before the weights load, on the class built on the meta
    device (no memory, no weights): the config as the class's ``__init__`` leaves it, since some set
    ``is_decoder`` there (``BartForCausalLM``), which config.json alone would not show. A class that
    cannot be built this way is left to the checks after loading, and so is a model with its own code
    (``trust_remote_code``): transformers would fetch that code for ``from_config`` without the
    loader's offline, pinned settings."""
    import torch
    from transformers import AutoConfig

    if trust_remote_code:
        return
    try:
        config = AutoConfig.from_pretrained(model_dir, local_files_only=True)
        with torch.device("meta"):
            skeleton = auto.from_config(config)
    except Exception:  # noqa: BLE001 - any failure here is met, and named, by the real load
        return
    check_family_config(slug, family, skeleton.config, type(skeleton).__name__, model_dir)


def check_family(lm, model_dir: Path) -> None:
    """Refuse a checkpoint whose attention does not fit its configured family: a masked LM flagged
    ``is_decoder`` sees only the words before a mask; a causal LM must never see the words after
    the token it predicts. An encoder type (one transformers has a masked-LM class for) runs its
    causal class with attention both ways unless its config says it is a decoder; any other model
    is checked on a probe (``engine.runner.sees_later_tokens``)."""
    name = type(lm.model).__name__
    check_family_config(lm.name, lm.family, lm.model.config, name, model_dir)
    if lm.family == "causal" and _looks_ahead(lm, model_dir):
        raise ModelError(
            f"model {lm.name!r}: {model_dir} loaded as a causal LM ({name}) looks ahead: its log-probs at a "
            "position change with a later token, so next-token scores would be meaningless; is it `family: masked`?"
        )


def check_family_config(slug: str, family: str, config, class_name: str, model_dir: Path) -> None:
    """The checks of ``check_family`` that need only the config of a model of class ``class_name``."""
    flag = decoder_flag(config)
    decoder = bool(getattr(config, flag, False))
    if family == "masked" and decoder:
        raise ModelError(
            f"model {slug!r}: {model_dir / 'config.json'} sets {flag}, so its attention is causal and a "
            "masked position would not see the words after it; is it `family: causal`?"
        )
    if family == "causal" and not decoder and _is_encoder_type(config.model_type):
        raise ModelError(
            f"model {slug!r}: {model_dir} holds a {config.model_type!r} encoder, which {class_name} runs with "
            f"attention both ways unless its config sets {flag}, so next-token scores would be meaningless; "
            "is it `family: masked`?"
        )


def decoder_flag(config) -> str:
    """The config key that makes an encoder's attention causal: XLM and FlauBERT call it ``causal``."""
    return "causal" if hasattr(config, "causal") else "is_decoder"


def _is_encoder_type(model_type: str) -> bool:
    from transformers.models.auto.modeling_auto import MODEL_FOR_MASKED_LM_MAPPING_NAMES

    return model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES


def _looks_ahead(lm, model_dir: Path) -> bool:
    from lmprobes.engine.runner import sees_later_tokens

    try:
        return sees_later_tokens(lm)
    except (RuntimeError, ValueError, IndexError) as error:
        raise ModelError(f"model {lm.name!r}: {model_dir} could not run the look-ahead probe as a causal LM "
                         f"({type(lm.model).__name__}): {error}") from error


def _model_type(slug: str, model_dir: Path) -> str:
    return str(read_json_object(slug, model_dir / "config.json").get("model_type", "unknown"))
