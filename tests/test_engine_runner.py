"""Shared pieces of the forward loop: tie-breaking, targets, the full-forward fallback."""

from __future__ import annotations

import dataclasses
import gc
import itertools
import logging
import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from torch.nn.attention import SDPBackend

from lmprobes.engine import mask_predictions, runner, sequence_logprobs
from lmprobes.engine import masked as masked_module
from lmprobes.engine.masked import map_mask_logprobs
from lmprobes.engine.runner import (
    RowPlan,
    attention_backends,
    forward_mode,
    gathered,
    host_threads,
    logit_chunk_rows,
    target_logprobs,
    top_k_low_id_first,
)
from lmprobes.io import gc_paused


def test_top_k_breaks_ties_towards_the_lower_id() -> None:
    logprobs = torch.tensor([[-1.0, -0.5, -2.0, -0.5, -0.5], [-3.0, -1.0, -1.0, -1.0, -0.25]])
    assert top_k_low_id_first(logprobs, 2) == [[(1, -0.5), (3, -0.5)], [(4, -0.25), (1, -1.0)]]
    assert [i for i, _ in top_k_low_id_first(logprobs, 10)[0]] == [1, 3, 4, 0, 2]


def test_target_logprobs_are_nan_for_unresolved_targets() -> None:
    logprobs = torch.tensor([[-1.0, -2.0, -3.0], [-0.5, -1.5, -2.5], [-4.0, -5.0, -6.0]])
    first, second, third = target_logprobs(logprobs, [[2, -1, 0], [], [1]])
    assert first[0] == -3.0 and math.isnan(first[1]) and first[2] == -1.0
    assert second == [] and third == [-5.0]
    assert target_logprobs(logprobs, [[], [], []]) == [[], [], []]


def plain_top_k(row: list[float], k: int) -> list[tuple[int, float]]:
    return sorted(enumerate(row), key=lambda p: (-p[1], p[0]))[:k]


@pytest.mark.parametrize("k", [1, 3, 5, 9])
def test_top_k_equals_a_full_sort_with_ties_inside_and_beyond_the_slack(k) -> None:
    generator = torch.Generator().manual_seed(k)
    logprobs = torch.randn(40, 12, generator=generator).round(decimals=0)  # few distinct values: many ties
    logprobs[0] = 0.0  # all tied
    logprobs[1, :3] = float("-inf")
    logprobs[2] = float("-inf")
    logprobs[2, 5] = -1.0  # fewer finite values than k
    got = top_k_low_id_first(logprobs, k)
    assert got == [plain_top_k(row, k) for row in logprobs.tolist()]


def test_masked_full_forward_fallback_gives_the_same_results(tiny_roberta, monkeypatch, caplog) -> None:
    texts = ["A robin is a <mask>.", "The <mask> sat on the mat and looked out of the window."]
    expected = mask_predictions(tiny_roberta, texts, progress=False)
    monkeypatch.setattr(masked_module, "MLM_HEAD_ATTRIBUTES", ())
    with caplog.at_level(logging.INFO, logger="lmprobes.engine.masked"):
        got = mask_predictions(tiny_roberta, texts, progress=False)
    assert "full forward" in caplog.text
    for g, e in zip(got, expected):
        assert g.top_ids == e.top_ids
        assert g.top_logprobs == pytest.approx(e.top_logprobs, abs=1e-5)


def test_causal_full_forward_fallback_gives_the_same_results(tiny_gpt2, monkeypatch, caplog) -> None:
    texts = ["A robin is a bird.", "The cat sat on the mat and looked out of the window."]
    expected = sequence_logprobs(tiny_gpt2, texts, progress=False)
    # A config field of a logit-rescaling architecture sends the engine down the full-forward path.
    monkeypatch.setattr(tiny_gpt2.model.config, "final_logit_softcapping", 30.0, raising=False)
    with caplog.at_level(logging.INFO, logger="lmprobes.engine.causal"):
        got = sequence_logprobs(tiny_gpt2, texts, progress=False)
    assert "full forward" in caplog.text
    for g, e in zip(got, expected):
        assert g.token_logprobs == pytest.approx(e.token_logprobs, abs=1e-5)


def sdpa_flags() -> dict[str, bool]:
    backends = torch.backends.cuda
    return {"cudnn": backends.cudnn_sdp_enabled(), "flash": backends.flash_sdp_enabled(),
            "efficient": backends.mem_efficient_sdp_enabled(), "math": backends.math_sdp_enabled()}


def sdpa_order() -> list[int]:
    return torch._C._get_sdp_priority_order()


def test_cuda_forwards_try_memory_efficient_attention_first_leave_out_cudnn_and_restore_the_flags(monkeypatch) -> None:
    before, order = sdpa_flags(), sdpa_order()
    assert before["cudnn"]  # torch's default, which the engine overrides on CUDA only
    with attention_backends(torch.device("cuda")):
        assert sdpa_flags() == {"cudnn": False, "flash": True, "efficient": True, "math": True}
        tried = [int(b) for b in (SDPBackend.EFFICIENT_ATTENTION, SDPBackend.FLASH_ATTENTION, SDPBackend.MATH)]
        assert sdpa_order()[:3] == tried
    assert sdpa_flags() == before and sdpa_order() == order
    with attention_backends(torch.device("cpu")):
        assert sdpa_flags() == before and sdpa_order() == order
    monkeypatch.setattr(runner, "CUDA_ATTENTION_BACKENDS", None)
    with attention_backends(torch.device("cuda")):
        assert sdpa_flags() == before and sdpa_order() == order


def test_scoring_on_cuda_runs_the_host_ops_on_one_thread_and_restores_the_pool(monkeypatch) -> None:
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with host_threads(torch.device("cuda")):
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        with pytest.raises(RuntimeError, match="boom"), host_threads(torch.device("cuda")):
            raise RuntimeError("boom")
        assert torch.get_num_threads() == 2
        with host_threads(torch.device("cpu")):  # on CPU the pool does the model's work
            assert torch.get_num_threads() == 2
        cuda_lm = SimpleNamespace(device=torch.device("cuda"))
        with forward_mode(cuda_lm), forward_mode(cuda_lm):  # nested: the outer restores
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        monkeypatch.setattr(runner, "CUDA_HOST_THREADS", None)
        with host_threads(torch.device("cuda")):
            assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_logit_chunks_are_cache_sized_on_cpu_and_large_on_cuda(tiny_gpt2) -> None:
    vocab = tiny_gpt2.model.get_output_embeddings().weight.shape[0]
    # model=None skips __post_init__'s module swaps; the same model is attached afterwards.
    on_cuda = dataclasses.replace(tiny_gpt2, model=None, device=torch.device("cuda"))
    on_cuda.model = tiny_gpt2.model
    assert logit_chunk_rows(tiny_gpt2) == 2**22 // vocab
    assert logit_chunk_rows(on_cuda) == 2**27 // vocab


def test_the_scoring_loop_runs_with_the_garbage_collector_paused_and_restores_it(tiny_roberta) -> None:
    seen = []

    def record(logprobs, items):
        seen.append(gc.isenabled())
        return [None] * len(items)

    assert gc.isenabled()
    map_mask_logprobs(tiny_roberta, ["A robin is a <mask>.", "A <mask> sat."], record, progress=False)
    assert seen and not any(seen) and gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # a collector the caller had turned off stays off
    finally:
        gc.enable()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


class RecordingTokenizer:
    """A tokenizer that notes whether the collector was on each time it was called."""

    def __init__(self, tokenizer) -> None:
        self.tokenizer = tokenizer
        self.collector_on: list[bool] = []

    def __getattr__(self, name: str):
        return getattr(self.tokenizer, name)

    def __call__(self, *args, **kwargs):
        self.collector_on.append(gc.isenabled())
        return self.tokenizer(*args, **kwargs)


def test_the_primitives_keep_the_collector_paused_while_they_tokenize(tiny_gpt2, tiny_roberta) -> None:
    from lmprobes.engine import continuation_logprobs, pseudo_log_likelihoods

    causal = dataclasses.replace(tiny_gpt2, tokenizer=RecordingTokenizer(tiny_gpt2.tokenizer))
    masked = dataclasses.replace(tiny_roberta, tokenizer=RecordingTokenizer(tiny_roberta.tokenizer))
    sequence_logprobs(causal, ["A cat sat."], progress=False)
    continuation_logprobs(causal, ["A cat"], [" sat."], progress=False)
    pseudo_log_likelihoods(masked, ["A cat sat."], progress=False)
    map_mask_logprobs(masked, ["A <mask> sat."], lambda logprobs, items: items, progress=False)
    assert len(causal.tokenizer.collector_on) == 3 and len(masked.tokenizer.collector_on) == 2
    assert not any(causal.tokenizer.collector_on + masked.tokenizer.collector_on)
    assert gc.isenabled()


def test_load_lm_freezes_what_is_alive_once_the_model_is_loaded(tiny_dir) -> None:
    from lmprobes.models import load_lm

    gc.unfreeze()
    try:
        lm = load_lm("tiny-gpt2", {"family": "causal"}, tiny_dir("gpt2"), "cpu")
        assert gc.get_freeze_count() > 10_000
        later = dataclasses.replace(lm)
        tracked = {id(o) for o in gc.get_objects()}  # frozen objects are not listed
        assert id(lm) not in tracked and id(lm.model) not in tracked and id(lm.tokenizer) not in tracked
        assert id(later) in tracked
    finally:
        gc.unfreeze()


def test_score_metadata_identifies_a_local_model_by_its_files_not_its_path(tiny_dir, tmp_path) -> None:
    import hashlib
    import shutil

    from lmprobes.models import load_lm

    folder = tmp_path / "checkout" / "my-bert"
    shutil.copytree(tiny_dir("bert"), folder)
    spec = {"path": str(folder), "revision": "main", "family": "masked"}  # the schema's default revision filled in
    described = load_lm("mine", spec, folder, "cpu").describe()
    plain = hashlib.sha256("".join(
        f"{p.relative_to(folder).as_posix()}\t{hashlib.sha256(p.read_bytes()).hexdigest()}\n"
        for p in sorted(folder.iterdir()) if p.is_file()
    ).encode()).hexdigest()
    assert described["model_source"] == "path:my-bert" and str(tmp_path) not in str(described)
    assert described["model_revision"] == "" and described["model_commit"] == ""
    assert described["model_files_sha256"] == plain

    moved = tmp_path / "elsewhere" / "my-bert"
    shutil.copytree(folder, moved)
    (moved / ".cache").mkdir()
    (moved / ".cache" / "lock").write_text("hidden files are not the model's")
    (moved / "checkpoint-10").mkdir()  # nor are subfolders: transformers loads from the top
    (moved / "checkpoint-10" / "model.safetensors").write_text("an older checkpoint")
    again = load_lm("mine", {**spec, "path": str(moved)}, moved, "cpu").describe()
    assert again == {**described, "threads": again["threads"]}  # same files, same provenance, wherever they lie
    (moved / "notes.txt").write_text("another file")
    assert load_lm("mine", {**spec, "path": str(moved)}, moved, "cpu").describe()["model_files_sha256"] != plain
    tiny = load_lm("tiny-bert", {"tiny": {"arch": "bert"}, "revision": "main", "family": "masked"}, folder, "cpu")
    assert tiny.describe()["model_source"] == "tiny" and tiny.describe()["model_files_sha256"] == plain


def test_a_hidden_file_beside_a_local_models_files_changes_nothing_of_its_provenance(tiny_dir, tmp_path) -> None:
    import shutil

    from lmprobes.models import folder_sha256, model_provenance

    folder = shutil.copytree(tiny_dir("bert"), tmp_path / "my-bert")
    before = folder_sha256(folder)
    (folder / ".gitattributes").write_text("*.safetensors filter=lfs\n")  # what a git checkout of a model has
    assert folder_sha256(folder) == before
    hub = model_provenance({"hub_id": "org/my-bert", "revision": "v1.0"}, folder)
    assert hub == {"model_source": "org/my-bert", "model_revision": "v1.0", "model_commit": "",
                   "model_files_sha256": ""}


def test_gathered_writes_every_stored_index_once_brought_back():
    stored = [(np.array([3, 1]), torch.tensor([0.5, -1.25])), (np.array([4]), torch.tensor([-2.0])),
              (np.array([1]), torch.tensor([-1.25]))]  # index 1 again: a batch rerun after running out of memory
    out = gathered(stored, 6)
    assert out.dtype == np.float64
    assert np.array_equal(out, [math.nan, -1.25, math.nan, 0.5, -2.0, math.nan], equal_nan=True)
    assert np.isnan(gathered([], 2)).all()


def test_to_device_copies_strided_arrays_and_tensors():
    from lmprobes.engine.batching import to_device

    assert to_device(np.arange(8)[::3], torch.device("cpu")).tolist() == [0, 3, 6]
    assert torch.equal(to_device(torch.ones(2, 3), torch.device("cpu")), torch.ones(2, 3))


@pytest.mark.parametrize(("texts", "padded"), [(["one two", "one two"], False), (["one", "three four five six"], True)])
def test_the_model_and_the_tail_get_a_mask_only_when_the_batch_is_padded(tiny_bert, texts, padded, monkeypatch):
    """Whether a batch is padded is known from the lengths on the host. Given a mask, transformers asks
    the device whether it pads anything, and the host waits there for the GPU to run all queued work."""
    projection = masked_module.masked_projection(tiny_bert)
    masks, model_masks = [], []

    def recording_tail(hidden, attention_mask, batch_index, position_index):
        masks.append(attention_mask)
        return projection.tail(hidden, attention_mask, batch_index, position_index)

    real_run_model = runner.run_model
    monkeypatch.setattr(runner, "run_model", lambda module, ids, mask, **kw: model_masks.append(mask) or
                        real_run_model(module, ids, mask, **kw))
    sequences = tiny_bert.tokenizer(texts)["input_ids"]
    run_rows = runner.run_rows
    run_rows(tiny_bert, dataclasses.replace(projection, tail=recording_tail), sequences, RowPlan.of([[1], [1]]),
             lambda logprobs, rows: None, pad_id=tiny_bert.tokenizer.pad_token_id, progress=False, desc="rows")
    assert (len(sequences[0]) != len(sequences[1])) == padded
    assert len(masks) == 1 and (masks[0] is not None) == padded
    assert len(model_masks) == 1 and (model_masks[0] is not None) == padded


@pytest.mark.parametrize("model", ["tiny_bert", "tiny_gpt2"])
def test_a_full_forward_gets_a_mask_only_when_the_batch_is_padded(model, request, monkeypatch):
    lm = request.getfixturevalue(model)
    masks = []
    real_run_model = runner.run_model
    monkeypatch.setattr(runner, "run_model", lambda module, ids, mask, **kw: masks.append(mask) or
                        real_run_model(module, ids, mask, **kw))
    full = runner.Projection(base=None, head=None)
    for texts, padded in ((["one two", "one two"], False), (["one", "three four five six"], True)):
        sequences = lm.tokenizer(texts)["input_ids"]
        runner.run_rows(lm, full, sequences, RowPlan.of([[0], [0]]), lambda logprobs, rows: None, pad_id=0,
                        progress=False, desc="rows")
        assert (masks.pop() is not None) == padded


def test_the_head_runs_at_the_scored_rows_only_under_inference_mode(tiny_bert, tiny_gpt2) -> None:
    """A mask query reaches the head with its one row, a causal sentence with its scored tokens only
    (never the padding of shorter ones), and every forward runs without autograd."""
    from lmprobes.engine import next_token_predictions

    seen: list[tuple[int, bool]] = []

    def count(module, inputs, output) -> None:
        seen.append((inputs[0].shape[0], torch.is_inference_mode_enabled()))

    mask = tiny_bert.tokenizer.mask_token
    queries = [f"A robin is a {mask}.", f"The {mask} sat on the mat and looked out of the window."]
    handle = tiny_bert.model.get_output_embeddings().register_forward_hook(count)
    try:
        mask_predictions(tiny_bert, queries, progress=False)
    finally:
        handle.remove()
    assert sum(rows for rows, _ in seen) == len(queries) and all(mode for _, mode in seen)

    seen.clear()
    texts = ["A robin is a bird.", "Dogs run.", "The cat sat on the mat and looked out of the window."]
    lengths = [len(tiny_gpt2.tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts]
    handle = tiny_gpt2.model.get_output_embeddings().register_forward_hook(count)
    try:
        sequence_logprobs(dataclasses.replace(tiny_gpt2, packing="none"), texts, policy="bos", progress=False)
        scored = sum(rows for rows, _ in seen)
        next_token_predictions(tiny_gpt2, texts, progress=False)
    finally:
        handle.remove()
    assert scored == sum(lengths), "one head row per scored token, none at padding"
    assert sum(rows for rows, _ in seen) - scored == len(texts) and all(mode for _, mode in seen)


def test_a_type_outside_the_checked_list_is_probed_once_per_loaded_model(tiny_gpt2, monkeypatch) -> None:
    from lmprobes.engine import causal

    probes = []
    monkeypatch.setattr(runner, "head_path_matches", lambda lm, projection: probes.append(lm.name) or True)
    monkeypatch.setattr(causal, "HEAD_CHECKED_TYPES", frozenset())
    lm = dataclasses.replace(tiny_gpt2)
    for _ in range(2):
        sequence_logprobs(lm, ["A robin is a bird."], progress=False)
    assert probes == [lm.name] and lm.head_path_checked is True
    assert dataclasses.replace(lm).head_path_checked is None, "a copy is checked again"


@pytest.mark.parametrize(("model", "packing"), [("tiny_gpt2", "auto"), ("tiny_gpt2", "none"), ("tiny_bert", "auto"),
                                              ("tiny_roberta", "auto")])
def test_a_sequence_longer_than_the_models_positions_is_refused_naming_it(model, packing, request) -> None:
    """The tiny models take 128 positions (RoBERTa's 130 embeddings less its offset of 2): 128 tokens
    score, 129 are refused with the text's start, not an index error from the embeddings."""
    from lmprobes.engine import pseudo_log_likelihoods

    lm = dataclasses.replace(request.getfixturevalue(model), packing=packing)
    assert runner.max_positions(lm.model) == 128
    words = lm.tokenizer("zebra " * 200, add_special_tokens=False)["input_ids"]
    specials = 1 if lm.family == "causal" else 2  # BOS; [CLS] ... [SEP]
    score = sequence_logprobs if lm.family == "causal" else pseudo_log_likelihoods
    fits = lm.tokenizer.decode(words[:128 - specials])
    assert len(lm.tokenizer(fits, add_special_tokens=False)["input_ids"]) == 128 - specials
    score(lm, [fits], progress=False)
    too_long = lm.tokenizer.decode(words[:129 - specials])
    with pytest.raises(ValueError, match=rf"{lm.name}: a sequence of 129 tokens \('.*zebra.*' \.\.\.\) is longer than "
                                         "the 128 positions of the model.s config"):
        score(lm, ["a short one .", too_long], progress=False)


@pytest.mark.parametrize("model", ["tiny_gpt2", "tiny_bert"])
def test_a_tokenizer_grown_past_the_models_embeddings_is_refused_naming_the_model(model, request) -> None:
    """A token added without resizing the embeddings was a bare IndexError inside the model."""
    import copy

    from lmprobes.engine import pseudo_log_likelihoods

    lm = request.getfixturevalue(model)
    lm = dataclasses.replace(lm, tokenizer=copy.deepcopy(lm.tokenizer))
    score = sequence_logprobs if lm.family == "causal" else pseudo_log_likelihoods
    rows = lm.model.get_input_embeddings().num_embeddings
    lm.tokenizer.add_tokens([f"zz{k}" for k in range(rows - len(lm.tokenizer) + 1)])
    message = rf"{lm.name}: the tokenizer has {rows + 1} tokens but the model only {rows} input embeddings"
    with pytest.raises(ValueError, match=message):
        score(lm, ["the cat zz0 sat"], progress=False)
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(lm)


def phase_ranges(run) -> list[tuple[str, float, float]]:
    """The ``lmprobes.*`` profiler ranges ``run()`` opened on CPU, in order of start."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as profiler:
        run()
    ranges = [(e.name.removeprefix("lmprobes."), e.time_range.start, e.time_range.end)
              for e in profiler.events() if e.name.startswith("lmprobes.")]
    return sorted(ranges, key=lambda r: r[1])


@pytest.mark.parametrize("family", ["masked", "causal", "mask", "causal-unpacked"])
def test_scoring_marks_its_host_phases_one_after_another(family, tiny_bert, tiny_gpt2) -> None:
    """What the bench's profile splits the GPU's idle time by: preparing (tokenizing included), then
    batches, then collecting (PLL in chunks: each chunk prepared before its batches), never one phase
    inside another; for PLL, causal scoring packed and padded, and the mask predictions LAMA uses."""
    from lmprobes.engine import pseudo_log_likelihoods

    texts = ["The cat sat on the mat.", "A dog barked.", "The cats sat on the mat.", "Birds fly."]
    if family == "masked":
        ranges = phase_ranges(lambda: pseudo_log_likelihoods(tiny_bert, texts, progress=False, chunk_texts=2))
    elif family == "mask":
        masked = [text.replace("cat", tiny_bert.tokenizer.mask_token) for text in texts[:1]] * 3
        ranges = phase_ranges(lambda: mask_predictions(tiny_bert, masked, progress=False))
    else:
        lm = tiny_gpt2 if family == "causal" else dataclasses.replace(tiny_gpt2, packing="none")
        ranges = phase_ranges(lambda: sequence_logprobs(lm, texts, progress=False))
    names = [name for name, _, _ in ranges]
    assert set(names) == set(runner.PHASES) and names[0] == "prepare" and names[-1] == "collect"
    first_batch = names.index("batch")
    assert set(names[:first_batch]) == {"prepare"} and set(names[names.index("collect"):]) == {"collect"}
    assert names[:first_batch].count("prepare") >= 2  # tokenizing, then the batches' set-up
    if family == "masked":  # the second chunk is prepared after the first chunk's batches
        assert "prepare" in names[first_batch : names.index("collect")]
    assert all(end <= next_start for (_, _, end), (_, next_start, _) in itertools.pairwise(ranges))


def test_an_unknown_phase_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown phase 'tokenize'"):
        runner.phase("tokenize")
