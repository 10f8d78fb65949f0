"""Hostile input: archives that try to escape or explode, model folders that would run code or
unpickle objects, and config values that a shell or a path would misread.

Archive cases already in test_sources.py (``..``, absolute names, escaping symlinks and hard
links, tar device files) are not repeated here; these tests add what it lacks. Every refusal is
checked to leave nothing behind: no target, no staging folder beside it.
"""

from __future__ import annotations

import gzip
import io
import json
import shutil
import stat
import struct
import sys
import tarfile
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from safetensors.torch import load_file
from snakemake.utils import validate
from snakemake_interface_common.exceptions import WorkflowError

from lmprobes import sources
from lmprobes.models import (
    ModelError,
    UnsafeModelError,
    check_model_folder,
    download_model,
    load_lm,
    snapshot_commit,
    snapshot_patterns,
)
from lmprobes.sources import ArchiveLimitError, BadArchiveError, UnsafeArchiveError, safe_extract
from lmprobes.suites.olmpics.mcqa import load_encoder

SCHEMA = Path(__file__).resolve().parents[1] / "rules" / "schemas" / "config.schema.yaml"
MIB = 1 << 20


# ---------------------------------------------------------------------------------------------
# Archive helpers


def everything_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture
def place(tmp_path) -> Path:
    folder = tmp_path / "place"
    folder.mkdir()
    return folder


def refused(archive: Path, error: type[Exception], **limits) -> Exception:
    """Run safe_extract expecting ``error``; check nothing but the archive is left in its folder."""
    before = everything_under(archive.parent)
    with pytest.raises(error) as caught:
        safe_extract(archive, archive.parent / "out", **limits)
    assert str(archive) in str(caught.value)
    assert everything_under(archive.parent) == before
    return caught.value


def zip_of(path: Path, entries: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", method) as bundle:
        for name, data in entries.items():
            bundle.writestr(name, data)
    return path


def zip_member_with_mode(path: Path, name: str, mode: int, data: bytes) -> Path:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    with zipfile.ZipFile(path, "w") as bundle:
        bundle.writestr("ok.txt", b"ok")
        bundle.writestr(info, data)
    return path


def tar_header(name: str, size: int) -> bytes:
    info = tarfile.TarInfo(name)
    info.size = size
    return info.tobuf(tarfile.GNU_FORMAT)


# ---------------------------------------------------------------------------------------------
# Hostile members test_sources.py does not cover


def test_zip_device_member_is_refused(place):
    archive = zip_member_with_mode(place / "a.zip", "dev", stat.S_IFCHR | 0o644, b"")
    error = refused(archive, UnsafeArchiveError)
    assert error.member == "dev" and "device" in error.reason


def test_zip_symlink_with_an_oversized_target_is_refused_before_it_is_read(place):
    archive = zip_member_with_mode(place / "a.zip", "link", stat.S_IFLNK | 0o777, b"a" * 5000)
    error = refused(archive, UnsafeArchiveError)
    assert error.member == "link" and "5000 bytes" in error.reason


def test_tar_hardlink_to_an_absolute_path_is_refused(place):
    info = tarfile.TarInfo("hard")
    info.type, info.linkname = tarfile.LNKTYPE, "/etc/passwd"
    archive = place / "a.tar"
    with tarfile.open(archive, "w") as bundle:
        bundle.addfile(info)
    assert refused(archive, UnsafeArchiveError).member == "hard"


def test_tar_hardlink_through_a_symlink_that_escapes_only_when_followed_is_refused(place):
    # "a/../x" normalises lexically to "x", inside; but a -> "b/.." is the root, so it is "../x".
    alias = tarfile.TarInfo("a")
    alias.type, alias.linkname = tarfile.SYMTYPE, "b/.."
    hard = tarfile.TarInfo("hard")
    hard.type, hard.linkname = tarfile.LNKTYPE, "a/../x"
    archive = place / "a.tar"
    with tarfile.open(archive, "w") as bundle:
        bundle.addfile(alias)
        bundle.addfile(hard)
    assert refused(archive, UnsafeArchiveError).member == "hard"


def test_unsafe_archive_errors_are_value_errors():
    assert issubclass(UnsafeArchiveError, ValueError) and issubclass(BadArchiveError, ValueError)


# ---------------------------------------------------------------------------------------------
# Decompression bombs


def test_defaults_are_the_module_constants():
    import inspect

    defaults = {k: p.default for k, p in inspect.signature(safe_extract).parameters.items() if k.startswith("max_")}
    assert defaults == {
        "max_total_bytes": sources.MAX_TOTAL_BYTES,
        "max_members": sources.MAX_MEMBERS,
        "max_ratio": sources.MAX_RATIO,
    }


def test_zip_member_expanding_past_the_ratio_is_refused(place):
    data = b"\0" * (2 * MIB)
    archive = zip_of(place / "bomb.zip", {"small.txt": b"fine", "zeros.bin": data})
    (info,) = [i for i in zipfile.ZipFile(archive).infolist() if i.filename == "zeros.bin"]
    assert info.file_size / info.compress_size > sources.MAX_RATIO  # really a bomb-like ratio
    error = refused(archive, ArchiveLimitError)
    assert error.member == "zeros.bin" and "max_ratio=200" in error.reason


def test_ratio_limit_is_overridable_by_keyword(place):
    data = b"\0" * (2 * MIB)
    archive = zip_of(place / "bomb.zip", {"zeros.bin": data})
    files = safe_extract(archive, place / "out", max_ratio=1e6)
    assert files == [place / "out" / "zeros.bin"]
    assert (place / "out" / "zeros.bin").read_bytes() == data


def test_small_members_are_exempt_from_the_ratio(place):
    # 512 KiB of zeros compress about 1000:1, but a member under RATIO_MIN_BYTES is no bomb.
    data = b"\0" * (sources.RATIO_MIN_BYTES // 2)
    archive = zip_of(place / "a.zip", {"zeros.bin": data})
    assert safe_extract(archive, place / "out") == [place / "out" / "zeros.bin"]


@pytest.mark.parametrize("limit,refused_at", [(2999, "c.txt"), (2000, "c.txt"), (1999, "b.txt"), (3000, None)])
def test_total_size_limit_names_the_member_that_crosses_it(place, limit, refused_at):
    entries = {"a.txt": b"a" * 1000, "b.txt": b"b" * 1000, "c.txt": b"c" * 1000}
    archive = zip_of(place / "a.zip", entries)
    # The member where the running total first exceeds the limit, by a plain loop.
    total, expected = 0, None
    for name, data in entries.items():
        total += len(data)
        if total > limit:
            expected = name
            break
    assert expected == refused_at
    if refused_at is None:
        assert len(safe_extract(archive, place / "out", max_total_bytes=limit)) == 3
    else:
        error = refused(archive, ArchiveLimitError, max_total_bytes=limit)
        assert error.member == refused_at and f"max_total_bytes={limit}" in error.reason


def test_member_count_limit(place):
    archive = zip_of(place / "a.zip", {f"f{i}.txt": b"x" for i in range(5)})
    assert refused(archive, ArchiveLimitError, max_members=4).member == "f4.txt"
    assert len(safe_extract(archive, place / "out", max_members=5)) == 5


def test_tar_gz_expanding_past_the_ratio_is_refused(place):
    archive = place / "bomb.tar.gz"
    with tarfile.open(archive, "w:gz") as bundle:
        info = tarfile.TarInfo("zeros.bin")
        info.size = 4 * MIB
        bundle.addfile(info, io.BytesIO(b"\0" * info.size))
    assert info.size / archive.stat().st_size > sources.MAX_RATIO
    error = refused(archive, ArchiveLimitError)
    assert error.member == "zeros.bin" and "max_ratio" in error.reason


def test_tar_member_declaring_a_huge_size_is_refused_before_its_data_is_read(place):
    # A header claiming 9 GiB and no data at all: refused on the header, not as a truncated archive.
    archive = place / "huge.tar.gz"
    archive.write_bytes(gzip.compress(tar_header("huge.bin", 9 << 30) + b"\0" * 1024, mtime=0))
    error = refused(archive, ArchiveLimitError)
    assert error.member == "huge.bin" and "max_total_bytes" in error.reason


def test_zip_lying_about_its_uncompressed_size_writes_nothing(place):
    # The headers say 100 bytes; the data inflates to 10 MB. zipfile stops at 100 and the CRC fails.
    archive = zip_of(place / "liar.zip", {"big.bin": b"\0" * 10_000_000})
    raw = bytearray(archive.read_bytes())
    central = raw.rfind(b"PK\x01\x02")
    local = raw.find(b"PK\x03\x04")
    struct.pack_into("<I", raw, central + 24, 100)
    struct.pack_into("<I", raw, local + 22, 100)
    archive.write_bytes(bytes(raw))
    assert zipfile.ZipFile(archive).getinfo("big.bin").file_size == 100
    assert "CRC" in str(refused(archive, BadArchiveError))


# ---------------------------------------------------------------------------------------------
# Model folders


@pytest.fixture
def bert_folder(tiny_dir, tmp_path) -> Path:
    """A private copy of the tiny BERT (config.json, tokenizer, model.safetensors)."""
    return Path(shutil.copytree(tiny_dir("bert"), tmp_path / "bert"))


def edit_json(path: Path, **changes) -> None:
    data = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps({**data, **changes}))


def word_embeddings(lm) -> torch.Tensor:
    return lm.model.get_input_embeddings().weight.detach()


def saved_embeddings(folder: Path) -> torch.Tensor:
    return load_file(folder / "model.safetensors")["bert.embeddings.word_embeddings.weight"]


def to_pickle_only(folder: Path) -> dict[str, torch.Tensor]:
    """Replace model.safetensors by the same tensors in pytorch_model.bin (torch.save's pickle)."""
    tensors = load_file(folder / "model.safetensors")
    torch.save(tensors, folder / "pytorch_model.bin")
    (folder / "model.safetensors").unlink()
    return tensors


MASKED = {"family": "masked"}


def test_plain_folder_loads_its_safetensors(bert_folder):
    lm = load_lm("tiny", MASKED, bert_folder, "cpu")
    assert torch.equal(word_embeddings(lm), saved_embeddings(bert_folder))


CUSTOM_CODE = '''
import os
from pathlib import Path

from transformers import BertForMaskedLM

Path(os.environ["LMPROBES_REMOTE_CODE_MARKER"]).write_text("ran")


class CustomBertForMaskedLM(BertForMaskedLM):
    pass
'''


@pytest.fixture
def remote_code_folder(bert_folder, tmp_path, monkeypatch) -> tuple[Path, Path]:
    """The tiny BERT with auto_map pointing at custom_bert.py, which leaves a marker when imported."""
    (bert_folder / "custom_bert.py").write_text(CUSTOM_CODE)
    edit_json(bert_folder / "config.json", auto_map={"AutoModelForMaskedLM": "custom_bert.CustomBertForMaskedLM"})
    marker = tmp_path / "remote-code-ran"
    monkeypatch.setenv("LMPROBES_REMOTE_CODE_MARKER", str(marker))
    # transformers copies remote code to its modules cache and puts that on sys.path: keep both private.
    import transformers.dynamic_module_utils as dynamic

    monkeypatch.setattr(dynamic, "HF_MODULES_CACHE", str(tmp_path / "hf-modules"))
    monkeypatch.setattr(sys, "path", list(sys.path))
    return bert_folder, marker


def test_remote_code_is_refused_and_never_run(remote_code_folder):
    folder, marker = remote_code_folder
    with pytest.raises(UnsafeModelError) as caught:
        load_lm("sneaky", MASKED, folder, "cpu")
    message = str(caught.value)
    assert "'sneaky'" in message and str(folder / "config.json") in message and "trust_remote_code: true" in message
    assert not marker.exists()


def test_remote_code_runs_only_when_the_config_entry_trusts_it(remote_code_folder):
    folder, marker = remote_code_folder
    lm = load_lm("trusted", {**MASKED, "trust_remote_code": True}, folder, "cpu")
    assert marker.read_text() == "ran"
    assert type(lm.model).__name__ == "CustomBertForMaskedLM"
    assert torch.equal(word_embeddings(lm), saved_embeddings(folder))


def test_auto_map_in_the_tokenizer_config_is_refused(bert_folder):
    edit_json(bert_folder / "tokenizer_config.json", auto_map={"AutoTokenizer": ["tok.EvilTokenizer", None]})
    with pytest.raises(UnsafeModelError, match="tokenizer_config.json has auto_map"):
        load_lm("sneaky", MASKED, bert_folder, "cpu")


def test_pickle_only_weights_are_refused_by_default(bert_folder):
    to_pickle_only(bert_folder)
    with pytest.raises(UnsafeModelError) as caught:
        load_lm("pickled", MASKED, bert_folder, "cpu")
    message = str(caught.value)
    assert "'pickled'" in message and "pytorch_model.bin" in message and "allow_pickle: true" in message


def test_pickle_only_weights_load_when_allowed(bert_folder):
    tensors = to_pickle_only(bert_folder)
    lm = load_lm("pickled", {**MASKED, "allow_pickle": True}, bert_folder, "cpu")
    assert torch.equal(word_embeddings(lm), tensors["bert.embeddings.word_embeddings.weight"])


def test_a_checkpoint_without_its_mlm_head_is_refused_naming_the_weights(bert_folder, caplog):
    """An encoder saved without its head would score with a randomly initialised one: noise."""
    from safetensors.torch import save_file

    tensors = load_file(bert_folder / "model.safetensors")
    save_file({name: t for name, t in tensors.items() if not name.startswith("cls.")},
              bert_folder / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(ModelError) as caught:
        load_lm("headless", MASKED, bert_folder, "cpu")
    message = str(caught.value)
    assert "'headless'" in message and str(bert_folder) in message and "BertForMaskedLM" in message
    assert "cls.predictions.bias" in message and "allow_missing_weights: true" in message
    lm = load_lm("headless", {**MASKED, "allow_missing_weights": True}, bert_folder, "cpu")
    assert lm.family == "masked" and "scored anyway with them at random" in caplog.text


def rewrite_safetensors(folder: Path, rename, drop=(), add=None) -> dict[str, torch.Tensor]:
    """Rewrite a folder's model.safetensors: names renamed, some dropped, some added; returns the
    original tensors."""
    from safetensors.torch import save_file

    tensors = load_file(folder / "model.safetensors")
    kept = {rename(name): t for name, t in tensors.items() if name not in drop}
    save_file({**kept, **(add or {})}, folder / "model.safetensors", metadata={"format": "pt"})
    return tensors


def gamma_beta_names(name: str) -> str:
    return name.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta")


def test_legacy_hub_layouts_load_whole_without_refusal(bert_folder, tiny_dir, tmp_path):
    """What real checkpoints look like must not trip the missing-weights check: bert-base-*'s
    LayerNorm ``gamma``/``beta`` names and pre-training heads (NSP, pooler), tied decoders left out,
    and GPT-2's base-model-only tensors (no ``transformer.`` prefix, no ``lm_head``)."""
    extra = {"cls.seq_relationship.weight": torch.ones(2, 64), "cls.seq_relationship.bias": torch.ones(2)}
    saved = rewrite_safetensors(bert_folder, gamma_beta_names, drop={"cls.predictions.decoder.weight"}, add=extra)
    assert any(".LayerNorm.weight" in name for name in saved)
    lm = load_lm("legacy-bert", MASKED, bert_folder, "cpu")
    state = lm.model.state_dict()
    for name, tensor in saved.items():
        assert torch.equal(state[name], tensor), name
    encoder = load_encoder(bert_folder, slug="legacy-bert", device=torch.device("cpu"))  # oLMpics MC-QA's loader
    assert all(key.startswith("pooler.") for key in encoder.fresh_keys)
    assert torch.equal(encoder.encoder.state_dict()["embeddings.LayerNorm.weight"],
                       saved["bert.embeddings.LayerNorm.weight"])
    gpt2 = Path(shutil.copytree(tiny_dir("gpt2"), tmp_path / "gpt2"))
    saved = rewrite_safetensors(gpt2, lambda name: name.removeprefix("transformer."), drop={"lm_head.weight"})
    assert any(name.startswith("transformer.") for name in saved)
    lm = load_lm("legacy-gpt2", {"family": "causal"}, gpt2, "cpu")
    state = lm.model.state_dict()
    for name, tensor in saved.items():
        assert torch.equal(state[name], tensor), name
    assert torch.equal(state["lm_head.weight"], saved["transformer.wte.weight"])


def test_a_pickle_beside_the_safetensors_is_never_read(bert_folder):
    # A different pytorch_model.bin (all zeros): the loaded weights must be the safetensors ones.
    zeros = {name: torch.zeros_like(t) for name, t in load_file(bert_folder / "model.safetensors").items()}
    torch.save(zeros, bert_folder / "pytorch_model.bin")
    lm = load_lm("both", MASKED, bert_folder, "cpu")
    assert torch.equal(word_embeddings(lm), saved_embeddings(bert_folder))
    assert word_embeddings(lm).abs().sum() > 0


def test_loader_itself_refuses_pickles_if_the_folder_check_is_bypassed(bert_folder, monkeypatch):
    # Defence in depth: use_safetensors=True makes transformers refuse a pickle-only folder too.
    import lmprobes.models

    to_pickle_only(bert_folder)
    monkeypatch.setattr(lmprobes.models, "check_model_folder", lambda *args: None)
    with pytest.raises(OSError, match="model.safetensors"):
        load_lm("pickled", MASKED, bert_folder, "cpu")


def test_transformers_weights_naming_a_sharded_safetensors_index_is_accepted(bert_folder):
    edit_json(bert_folder / "config.json", transformers_weights="model.safetensors.index.json")
    check_model_folder("sharded", MASKED, bert_folder)


def test_transformers_weights_naming_a_pickle_is_refused(bert_folder):
    # transformers obeys this key before use_safetensors, and accepts adapter_model.bin there.
    torch.save(load_file(bert_folder / "model.safetensors"), bert_folder / "adapter_model.bin")
    edit_json(bert_folder / "config.json", transformers_weights="adapter_model.bin")
    with pytest.raises(UnsafeModelError, match="transformers_weights 'adapter_model.bin'"):
        load_lm("redirected", MASKED, bert_folder, "cpu")


@pytest.mark.parametrize("content,reason", [("{not json", "not valid JSON"), ("[1, 2]", "JSON list, not an object")])
def test_malformed_config_json_names_the_file(bert_folder, content, reason):
    (bert_folder / "config.json").write_text(content)
    with pytest.raises(ModelError, match=reason) as caught:
        load_lm("broken", MASKED, bert_folder, "cpu")
    assert str(bert_folder / "config.json") in str(caught.value)


def test_folder_without_weights_is_refused(bert_folder):
    (bert_folder / "model.safetensors").unlink()
    with pytest.raises(ModelError, match="no weights"):
        check_model_folder("empty", MASKED, bert_folder)


# ---------------------------------------------------------------------------------------------
# Hub downloads

# The files of google-bert/bert-base-uncased, plus what a hostile repository could add.
HUB_FILES = [
    ".gitattributes",
    "LICENSE",
    "README.md",
    "config.json",
    "coreml/fill-mask/float32_model.mlpackage/Data/com.apple.CoreML/model.mlmodel",
    "coreml/fill-mask/float32_model.mlpackage/Data/com.apple.CoreML/weights/weight.bin",
    "coreml/fill-mask/float32_model.mlpackage/Manifest.json",
    "flax_model.msgpack",
    "model.onnx",
    "model.safetensors",
    "pytorch_model.bin",
    "rust_model.ot",
    "tf_model.h5",
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
    "vocab.pkl",
    "optimizer.pt",
    "training_args.bin",
    "modeling_evil.py",
    "sentencepiece.bpe.model",
    "merges.txt",
    "vocab.json",
    # Other formats and training states in subfolders: from_pretrained on the folder reads none of them.
    "onnx/config.json",
    "onnx/tokenizer.json",
    "original/consolidated.safetensors",
    "checkpoint-500/model.safetensors",
    "checkpoint-500/modeling_evil.py",
]
SAFE_DOWNLOAD = {
    "config.json",
    "merges.txt",
    "model.safetensors",
    "sentencepiece.bpe.model",
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.json",
    "vocab.txt",
}


def hub_filter(files: list[str], allow_pickle: bool = False, trust_remote_code: bool = False) -> set[str]:
    """What huggingface_hub's own filter keeps of ``files`` with our patterns."""
    from huggingface_hub.utils import filter_repo_objects

    allow, ignore = snapshot_patterns(allow_pickle=allow_pickle, trust_remote_code=trust_remote_code)
    return set(filter_repo_objects(files, allow_patterns=allow, ignore_patterns=ignore))


def test_hub_download_asks_for_no_pickle_and_no_code():
    assert hub_filter(HUB_FILES) == SAFE_DOWNLOAD


def test_allow_pickle_adds_only_the_pytorch_weights():
    assert hub_filter(HUB_FILES, allow_pickle=True) == SAFE_DOWNLOAD | {"pytorch_model.bin"}


def test_trust_remote_code_adds_only_the_python_files():
    assert hub_filter(HUB_FILES, trust_remote_code=True) == SAFE_DOWNLOAD | {"modeling_evil.py"}


@pytest.fixture
def fake_hub(monkeypatch):
    """Replace snapshot_download (network) by a copy of ``repo`` filtered by the hub's own filter.

    A loopback imitation of the hub API is not cheap; what is under test here is which files
    download_model asks for and what it does with the snapshot.
    """
    import huggingface_hub
    from huggingface_hub.utils import filter_repo_objects

    repo: dict[str, bytes] = {}
    calls: list[dict] = []

    def snapshot_download(*, repo_id, revision, local_dir, allow_patterns=None, ignore_patterns=None):
        calls.append({"repo_id": repo_id, "revision": revision})
        for name in filter_repo_objects(repo, allow_patterns=allow_patterns, ignore_patterns=ignore_patterns):
            path = Path(local_dir, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(repo[name])
        Path(local_dir, ".cache", "huggingface").mkdir(parents=True)
        return str(local_dir)

    def model_info(repo_id, *, revision):
        calls.append({"resolve": repo_id, "revision": revision})
        return SimpleNamespace(sha="c0ffee" + revision)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    monkeypatch.setattr(huggingface_hub, "model_info", model_info)
    return repo, calls


def test_download_keeps_only_safe_files(fake_hub, tmp_path):
    repo, calls = fake_hub
    repo.update({name: b"{}" if name.endswith(".json") else name.encode() for name in HUB_FILES})
    stale = tmp_path / "models" / ".m.partial" / "old_only.json"  # an interrupted download's leftover
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")
    dest = download_model("org/model", "abc123", tmp_path / "models" / "m")
    assert not (dest / "old_only.json").exists()
    # The revision is resolved to its commit, and the snapshot taken and recorded at that commit.
    assert calls == [{"resolve": "org/model", "revision": "abc123"}, {"repo_id": "org/model", "revision": "c0ffeeabc123"}]
    assert snapshot_commit(dest) == "c0ffeeabc123"
    assert set(everything_under(dest)) >= SAFE_DOWNLOAD
    assert not any(name.endswith((".bin", ".pkl", ".pt", ".py")) for name in everything_under(dest))
    assert sorted(p.name for p in dest.parent.iterdir()) == ["m"]


def test_a_configured_download_is_pinned_to_the_entrys_revision_and_keeps_its_permissions(fake_hub, tmp_path):
    from lmprobes.models import download_configured

    repo, calls = fake_hub
    repo.update({"config.json": json.dumps({"auto_map": {"AutoModel": "m.M"}}).encode(),
                 "model.safetensors": b"weights", "m.py": b"import os"})
    dest = download_configured({"hub_id": "org/model", "revision": "v1.0", "trust_remote_code": True},
                               tmp_path / "models" / "m")
    assert calls == [{"resolve": "org/model", "revision": "v1.0"}, {"repo_id": "org/model", "revision": "c0ffeev1.0"}]
    assert snapshot_commit(dest) == "c0ffeev1.0" and (dest / "m.py").is_file()


def test_download_of_a_pickle_only_repo_is_refused_and_leaves_nothing(fake_hub, tmp_path):
    repo, _ = fake_hub
    repo.update({"config.json": b"{}", "pytorch_model.bin": b"pickle", "vocab.txt": b"[UNK]\n"})
    dest = tmp_path / "models" / "m"
    with pytest.raises(ModelError, match="'org/model@abc123': no weights.*allow_pickle: true"):
        download_model("org/model", "abc123", dest)
    assert list(dest.parent.iterdir()) == []


def test_download_of_a_remote_code_repo_is_refused_unless_trusted(fake_hub, tmp_path):
    repo, _ = fake_hub
    repo.update({"config.json": json.dumps({"auto_map": {"AutoModel": "m.M"}}).encode(),
                 "model.safetensors": b"weights", "m.py": b"import os"})
    dest = tmp_path / "models" / "m"
    with pytest.raises(UnsafeModelError, match="auto_map"):
        download_model("org/model", "abc123", dest)
    assert list(dest.parent.iterdir()) == []
    download_model("org/model", "abc123", dest, trust_remote_code=True)
    assert sorted(p.name for p in dest.iterdir()) == ["config.json", "lmprobes_commit.txt", "m.py", "model.safetensors"]


@pytest.mark.parametrize("failing", ["model_info", "snapshot_download"])
def test_a_hub_that_cannot_be_reached_is_named_and_leaves_nothing(fake_hub, monkeypatch, tmp_path, failing):
    import huggingface_hub

    repo, _ = fake_hub
    repo.update({"config.json": b"{}", "model.safetensors": b"weights"})
    partial = tmp_path / "models" / ".m.partial"

    def offline(*args, **kwargs):
        partial.mkdir(parents=True, exist_ok=True)  # what a download cut short leaves
        raise ConnectionError("[Errno -2] Name or service not known")

    monkeypatch.setattr(huggingface_hub, failing, offline)
    dest = tmp_path / "models" / "m"
    with pytest.raises(ModelError, match=r"model 'org/model@abc123': the hub could not provide it "
                                         r"\(ConnectionError: .*Name or service not known\); nothing was written to .*models/m"):
        download_model("org/model", "abc123", dest)
    assert list(dest.parent.iterdir()) == []


# ---------------------------------------------------------------------------------------------
# Config values that reach paths and (potentially) shells


def minimal_config(models: dict | None = None, sources_: dict | None = None) -> dict:
    config = {"models": models or {"tiny-bert": {"tiny": {"arch": "bert"}, "family": "masked"}}}
    if sources_ is not None:
        config["sources"] = sources_
    return config


@pytest.mark.parametrize("slug", ["bert-base-uncased", "gpt2.v2_x", "A1"])
def test_ordinary_model_slugs_are_accepted(slug):
    validate(minimal_config({slug: {"tiny": {"arch": "bert"}, "family": "masked"}}), str(SCHEMA))


@pytest.mark.parametrize(
    "slug", ["bert base", "bert'x", 'bert"x', "bert;rm -rf ~", "$(id)", "`id`", "../up", "a/b", "-flag", "a\nb", ""]
)
def test_model_slugs_a_shell_or_path_would_misread_are_rejected(slug):
    with pytest.raises(WorkflowError, match="does not match"):
        validate(minimal_config({slug: {"tiny": {"arch": "bert"}, "family": "masked"}}), str(SCHEMA))


@pytest.mark.parametrize("name", ["../../evil", "a b", "x;y"])
def test_source_names_that_leave_resources_sources_are_rejected(name):
    with pytest.raises(WorkflowError):
        validate(minimal_config(sources_={name: {"url": "https://example.org/a.tsv"}}), str(SCHEMA))
