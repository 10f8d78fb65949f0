"""The BLiMP throughput command: issue 8's sample rule on a synthetic release, and a run with tiny
models on the release-format fixtures."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from lmprobes.engine import runner
from lmprobes.io import read_metadata, read_parquet
from lmprobes.suites.blimp import bench
from lmprobes.suites.blimp.dataset import BlimpDataError
from lmprobes.suites.blimp.paradigms import PARADIGM_CATEGORY
from lmprobes.suites.blimp.scoring import score_pairs

FIXTURES = Path(__file__).parent / "data" / "blimp"


def record(uid: str, pair_id: int) -> dict:
    return {
        "sentence_good": f"Good sentence {pair_id}.", "sentence_bad": f"Bad sentence {pair_id}.", "field": "syntax",
        "linguistics_term": PARADIGM_CATEGORY[uid], "UID": uid, "simple_LM_method": True, "one_prefix_method": False,
        "two_prefix_method": False, "lexically_identical": False, "pairID": str(pair_id),
    }


@pytest.fixture(scope="module")
def synthetic_release(tmp_path_factory) -> tuple[Path, dict[str, list[str]]]:
    """All 67 paradigm files, 31 pairs each with pair ids in shuffled file order (one blank line)."""
    folder = tmp_path_factory.mktemp("blimp")
    rng = random.Random(4)
    order = {}
    for uid in reversed(list(PARADIGM_CATEGORY)):  # creation order must not matter
        ids = list(range(1000))
        rng.shuffle(ids)
        order[uid] = [str(i) for i in ids[:31]]
        lines = [json.dumps(record(uid, int(i))) for i in order[uid]]
        lines.insert(5, "")
        (folder / f"{uid}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder, order


def plain_sample(order: dict[str, list[str]], n: int, per_paradigm: int = 30) -> list[tuple[str, str]]:
    by_file_name = sorted(order, key=lambda uid: f"{uid}.jsonl")
    return [(uid, pid) for uid in by_file_name for pid in order[uid][:per_paradigm]][:n]


def test_sample_is_the_first_30_of_each_file_by_name_cut_at_2000(synthetic_release) -> None:
    folder, order = synthetic_release
    sample = bench.bench_sample(folder)
    keys = list(zip(sample["paradigm"], sample["pairID"]))
    assert keys == plain_sample(order, 2000) and len(keys) == 2000
    counts = sample.groupby("paradigm", sort=False).size()
    assert counts.iloc[-1] == 20 and (counts.iloc[:-1] == 30).all() and len(counts) == 67
    assert counts.index[-1] == "wh_vs_that_with_gap_long_distance"
    small = bench.bench_sample(folder, 45)
    assert list(zip(small["paradigm"], small["pairID"])) == plain_sample(order, 45)
    assert small["paradigm"].nunique() == 2
    every = bench.bench_sample(folder, 10**6, per_paradigm=1000)  # --per-paradigm: whole files
    assert list(zip(every["paradigm"], every["pairID"])) == plain_sample(order, 10**6, 1000) and len(every) == 67 * 31


def test_sample_errors_name_the_file_and_line(tmp_path) -> None:
    with pytest.raises(BlimpDataError, match="no BLiMP paradigm files"):
        bench.bench_sample(tmp_path)
    (tmp_path / "passive_1.jsonl").write_text(json.dumps(record("passive_1", 1)) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(BlimpDataError, match=r"passive_1.jsonl:2: invalid JSON"):
        bench.bench_sample(tmp_path)
    # As strict as the dataset: a repeated key and bytes that are not UTF-8 are errors too.
    line = json.dumps(record("passive_1", 1))
    (tmp_path / "passive_1.jsonl").write_text(line[:-1] + ', "pairID": "2"}\n', encoding="utf-8")
    with pytest.raises(BlimpDataError, match=r"passive_1.jsonl:1: invalid JSON.*pairID"):
        bench.bench_sample(tmp_path)
    (tmp_path / "passive_1.jsonl").write_bytes(line.encode() + b"\n\xff\n")
    with pytest.raises(BlimpDataError, match=r"passive_1.jsonl:2"):
        bench.bench_sample(tmp_path)


def test_profile_prints_the_operators_that_took_longest_after_timing(tiny_dir, tmp_path, capsys) -> None:
    argv = ["--blimp", str(FIXTURES), "--bert-tokenizer", str(tiny_dir("bert")), "--tiny", "--pairs", "5",
            "--modes", "pll-float32", "--profile", "--trace", str(tmp_path / "traces")]
    assert bench.main(argv) == 0
    trace = json.loads((tmp_path / "traces" / "pll-float32.json").read_text())
    assert {"lmprobes.prepare", "lmprobes.batch", "lmprobes.collect"} <= {e.get("name") for e in trace["traceEvents"]}
    printed = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(printed) if line.startswith("# profile pll-float32: "))
    assert "under the profiler" in printed[header] and "GPU kernels" not in printed[header]  # CPU: no kernel time
    table = printed[header + 1 :]
    assert any("Self CPU" in line for line in table) and any("aten::" in line for line in table)
    assert next(line for line in table if not line.startswith("#")).startswith("pll-float32 ")


def test_profile_counts_gpu_kernel_time_against_the_wall_time(monkeypatch) -> None:
    """On a GPU the header adds up the kernels the profiler saw and the next line splits the GPU's idle
    time by host phase (simulated: CPU has none). Run 0-1,000,000 us: prepare to 100,000, batches,
    collect from 900,000; kernels 100,000-400,000 and 500,000-700,000. The profiler also puts each
    range on the GPU's timeline (a user annotation over its kernels): those count for nothing."""

    class Event:
        def __init__(self, name: str, start: float, end: float, device: str = "CPU") -> None:
            self.name, self.device_type = name, getattr(torch.autograd.DeviceType, device)
            self.time_range = type("Interval", (), {"start": start, "end": end})()
            self.is_user_annotation = name.startswith("lmprobes.")  # a profiler range, on either side
            self.device_time = end - start if device == "CUDA" else 0.0

    class FakeProfile:
        def __init__(self, activities) -> None:
            self.activities = activities

        def __enter__(self):
            return self

        def __exit__(self, *exc) -> None:
            return None

        def events(self):
            return [Event("lmprobes.profiled", 0, 1_000_000), Event("lmprobes.prepare", 0, 100_000),
                    Event("lmprobes.batch", 100_000, 500_000), Event("lmprobes.batch", 500_000, 850_000),
                    Event("lmprobes.collect", 900_000, 1_000_000), Event("gemm", 100_000, 400_000, "CUDA"),
                    Event("gemm", 500_000, 700_000, "CUDA"),
                    # the GPU's copies of the ranges: neither kernels nor host phases
                    Event("lmprobes.profiled", 100_000, 700_000, "CUDA"), Event("lmprobes.prepare", 0, 1e6, "CUDA")]

        def key_averages(self):
            return type("Averages", (), {"table": lambda self, **kw: f"sorted by {kw['sort_by']}"})()

    import torch.profiler

    monkeypatch.setattr(torch.profiler, "profile", FakeProfile)
    monkeypatch.setattr(bench, "_synchronize", lambda device: None)
    times = iter([10.0, 11.0])
    monkeypatch.setattr(bench.time, "perf_counter", lambda: next(times))
    lines = bench.profiled_lines("pll-bf16", lambda: None, torch.device("cuda"))
    assert lines == ["# profile pll-bf16: 1.000 s under the profiler; GPU kernels 0.500 s (50.0% busy)",
                     ("# GPU idle 0.500 of 1.000 s, by host phase: prepare 0.100, batch 0.250, collect 0.100, "
                      "outside the engine 0.050"),
                     "# sorted by device_time_total"]


def plain_idle(busy, phases, window) -> dict[str, float]:
    """Microsecond by microsecond: idle when no busy interval covers it, labelled by the covering phase
    that started last."""
    idle: dict[str, float] = {}
    for t in range(*window):
        if any(a <= t < b for a, b in busy):
            continue
        covering = [(start, label) for start, end, label in phases if start <= t < end]
        label = max(covering, key=lambda c: c[0])[1] if covering else bench.OUTSIDE
        idle[label] = idle.get(label, 0) + 1
    return idle


@pytest.mark.parametrize("seed", range(12))
def test_idle_time_by_phase_equals_a_plain_count(seed) -> None:
    """Random overlapping kernels, phases that nest or overlap (the innermost counts), some reaching past
    the window: against a microsecond-by-microsecond count."""
    generator = torch.Generator().manual_seed(seed)

    def intervals(n: int, longest: int) -> list[tuple[int, int]]:
        starts = torch.randint(-20, 300, (n,), generator=generator).tolist()
        lengths = torch.randint(1, longest, (n,), generator=generator).tolist()
        return [(a, a + d) for a, d in zip(starts, lengths, strict=True)]

    busy = intervals(int(torch.randint(0, 30, (1,), generator=generator)), 40)
    phases = [(a, b, ("prepare", "batch", "collect")[k % 3]) for k, (a, b) in enumerate(intervals(8, 120))]
    window = (0, 280)
    idle = bench.idle_by_phase(busy, phases, window)
    expected = plain_idle(busy, phases, window)
    assert {label: seconds for label, seconds in idle.items() if seconds} == pytest.approx(expected)
    assert sum(idle.values()) == pytest.approx(sum(expected.values()))
    assert list(idle)[:3] == ["prepare", "batch", "collect"] and list(idle)[-1] == bench.OUTSIDE


def test_idle_time_lists_every_engine_phase_in_order_even_one_that_never_ran() -> None:
    """The GPU idle line has the same columns in every profile: prepare, batch, collect (0 where a phase
    did not run or started in another order), then the time outside the engine."""
    idle = bench.idle_by_phase([(5, 8)], [(0, 10, "collect"), (12, 15, "batch")], (0, 20))
    assert idle == {"prepare": 0.0, "batch": 3.0, "collect": 7.0, bench.OUTSIDE: 7.0}
    assert list(idle) == ["prepare", "batch", "collect", bench.OUTSIDE]

def test_command_writes_scores_keyed_by_uid_and_pair(tiny_dir, tmp_path, capsys) -> None:
    out = tmp_path / "scores.parquet"
    modes = ["causal-float32", "causal-bf16", "pll-float32"]
    argv = ["--blimp", str(FIXTURES), "--gpt2-tokenizer", str(tiny_dir("gpt2")), "--bert-tokenizer", str(tiny_dir("bert")),
            "--tiny", "--pairs", "17", "--modes", *modes, "--out", str(out)]
    assert bench.main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("# BLiMP bench: 17 pairs") and "float32 matmul" in printed[0]
    assert " cpu=" in printed[0]  # which matrix extensions (AMX, AVX-512 bf16) the figures ran on
    assert printed[-1].startswith("# causal-bf16 vs causal-float32: ") and "pair decisions equal" in printed[-1]
    for mode, line in zip(modes, printed[1:-1], strict=True):
        assert line.startswith(mode) and all(
            f" {key}=" in line for key in ("pairs/s", "tokens/s", "exec_GFLOP/s", "model_GFLOP/s", "peak_GFLOP/s"))
    scores = read_parquet(out)
    assert list(scores.columns) == ["UID", "pairID", "mode", "ll_good", "ll_bad"]
    sample = bench.bench_sample(FIXTURES, 17)
    expected = list(zip(sample["paradigm"], sample["pairID"]))
    # The tiny BERT's small vocabulary has no piece for some words: those pairs are skipped ([UNK]).
    bert = bench.load_bert_tokenizer(tiny_dir("bert"), lowercase=True)
    unknown = [any(bert.unk_token_id in bert(s)["input_ids"] for s in pair) for pair in
               zip(sample["sentence_good"], sample["sentence_bad"])]
    assert any(unknown) and not all(unknown)
    for mode in modes:
        mine = scores[scores["mode"] == mode]
        assert list(zip(mine["UID"], mine["pairID"])) == expected
        skipped = unknown if mode.startswith("pll") else [False] * len(mine)
        for good, bad, unk in zip(mine["ll_good"], mine["ll_bad"], skipped, strict=True):
            assert (math.isnan(good) and math.isnan(bad)) if unk else (math.isfinite(good) and 0 > good and 0 > bad)
    identical = sample["identical"].to_numpy()
    assert identical.any()
    for mode in modes:
        mine = scores[scores["mode"] == mode]
        assert np.array_equal(mine["ll_good"].to_numpy()[identical], mine["ll_bad"].to_numpy()[identical], equal_nan=True)
    assert read_metadata(out)["modes"] == modes
    float32 = scores[scores["mode"] == "causal-float32"]["ll_good"].to_numpy()
    bf16 = scores[scores["mode"] == "causal-bf16"]["ll_good"].to_numpy()
    assert float32 == pytest.approx(bf16, rel=0.05) and (float32 != bf16).any()


def test_float32_head_modes_run_bf16_with_float32_logits(tiny_dir, capsys, monkeypatch) -> None:
    heads = []
    real_lm = bench.LM

    def recording_lm(**kwargs):
        lm = real_lm(**kwargs)
        head = lm.model.get_output_embeddings()
        with torch.inference_mode():
            heads.append((lm.head_dtype, head(torch.zeros(1, head.in_features, dtype=lm.dtype)).dtype))
        return lm

    monkeypatch.setattr(bench, "LM", recording_lm)
    argv = ["--blimp", str(FIXTURES), "--gpt2-tokenizer", str(tiny_dir("gpt2")), "--tiny", "--pairs", "9",
            "--modes", "causal-float32", "causal-bf16-head32"]
    assert bench.main(argv) == 0
    assert heads == [("auto", torch.float32), ("float32", torch.float32)]
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("# causal-bf16-head32 vs causal-float32: ") and "of 9 pair decisions equal" in last


def test_float32_residual_modes_run_bf16_linear_layers_on_a_float32_model(tiny_dir, capsys, monkeypatch) -> None:
    seen = []
    real_lm = bench.LM

    def recording_lm(**kwargs):
        lm = real_lm(**kwargs)
        dtypes = {p.dtype for p in lm.model.parameters()}
        seen.append((lm.residual_dtype, lm.dtype, dtypes))
        return lm

    monkeypatch.setattr(bench, "LM", recording_lm)
    argv = ["--blimp", str(FIXTURES), "--bert-tokenizer", str(tiny_dir("bert")), "--tiny", "--pairs", "9",
            "--modes", "pll-float32", "pll-bf16-res32"]
    assert bench.main(argv) == 0
    assert seen == [("auto", torch.float32, {torch.float32}),
                    ("float32", torch.bfloat16, {torch.float32, torch.bfloat16})]
    last = capsys.readouterr().out.splitlines()[-1]
    # The tiny BERT skips the pairs with [UNK]: those are left out of the comparison and counted.
    assert last.startswith("# pll-bf16-res32 vs pll-float32: ") and "pair decisions equal" in last
    decided, skipped = int(last.split(" of ")[1].split()[0]), int(last.rsplit(", ", 1)[1].split()[0])
    assert decided > 0 and decided + skipped == 9


def test_a_saved_model_folder_is_scored_instead_of_the_random_one(tiny_dir, tmp_path, tiny_gpt2) -> None:
    out = tmp_path / "scores.parquet"
    argv = ["--blimp", str(FIXTURES), "--gpt2-tokenizer", str(tiny_dir("gpt2")), "--causal-model", str(tiny_dir("gpt2")),
            "--pairs", "6", "--modes", "causal-float32", "--out", str(out)]
    assert bench.main(argv) == 0
    got = read_parquet(out)
    expected = score_pairs(tiny_gpt2, bench.bench_sample(FIXTURES, 6), "lmeval04", progress=False)
    assert got["ll_good"].to_numpy() == pytest.approx(expected["score_good"].to_numpy(), abs=1e-5)
    assert got["ll_bad"].to_numpy() == pytest.approx(expected["score_bad"].to_numpy(), abs=1e-5)


def test_work_counts_each_distinct_text_and_each_packed_prefix_once(tiny_dir, tiny_gpt2, monkeypatch) -> None:
    import copy

    from lmprobes.engine import packing
    from lmprobes.engine.lm import LM

    tokenizer = bench.load_bert_tokenizer(tiny_dir("bert"))
    pairs = bench.bench_sample(FIXTURES, 21)
    lm = LM(name="t", model=None, tokenizer=tokenizer, family="masked")
    texts = set(pairs["sentence_good"]) | set(pairs["sentence_bad"])
    plain, copies, distinct = 0, 0, set()
    for text in texts:
        ids = tokenizer(text)["input_ids"]
        plain += len(ids) * (len(ids) - 2)  # one copy per token between [CLS] and [SEP]
        copies += len(ids) - 2
        distinct |= {tuple(ids[:i] + [tokenizer.mask_token_id] + ids[i + 1 :]) for i in range(1, len(ids) - 1)}
    fed = sum(len(copy) for copy in distinct)
    assert fed < plain  # the fixture has minimal pairs differing in one token
    assert bench.work_of(lm, pairs, bench.MODES["pll-float32"]) == bench.Work(plain, fed, len(distinct), copies)

    gpt2 = bench.load_gpt2_tokenizer(tiny_dir("gpt2"))
    sequences = [[gpt2.bos_token_id, *gpt2(" " + t, add_special_tokens=False)["input_ids"]] for t in texts]
    plain = sum(len(s) for s in sequences)
    scored = plain - len(sequences)
    padded = LM(name="g", model=tiny_gpt2.model, tokenizer=gpt2, family="causal", packing="none")
    assert bench.work_of(padded, pairs, bench.MODES["causal-float32"]) == bench.Work(plain, plain, scored, scored)
    # A head that rescales its logits runs in a full forward: the head at every position, nothing packed.
    rescaled = copy.deepcopy(tiny_gpt2.model)
    rescaled.config.logits_scaling = 8.0
    full = LM(name="g", model=rescaled, tokenizer=gpt2, family="causal")
    assert bench.work_of(full, pairs, bench.MODES["causal-float32"]) == bench.Work(plain, plain, plain, scored)

    monkeypatch.setattr(packing, "ROW_TOKENS", 10**6)  # one row: every distinct prefix exactly once
    prefixes = {tuple(s[: i + 1]) for s in sequences for i in range(len(s))}
    with_children = {p for p in prefixes if any(len(q) == len(p) + 1 and q[:-1] == p for q in prefixes)}
    packed = LM(name="g", model=tiny_gpt2.model, tokenizer=gpt2, family="causal")
    work = bench.work_of(packed, pairs, bench.MODES["causal-float32"])
    assert work == bench.Work(plain, len(prefixes), len(with_children), scored)
    assert len(prefixes) < plain


@pytest.mark.parametrize("model_type", ["gpt2", "llama", "opt", "gpt_neox"])
def test_the_layer_stack_leaves_out_every_embedding_table_whatever_its_name(tiny_gpt2, model_type) -> None:
    """wte/wpe, embed_tokens, OPT's embed_positions, NeoX's embed_in: lookups, not matmuls."""
    from model_zoo import random_model

    model = random_model(model_type, tiny_gpt2.tokenizer, "causal")
    base = model.base_model
    lookups = {"wte", "wpe", "embed_tokens", "embed_positions", "embed_in"}
    stack = sum(p.numel() for name, p in base.named_parameters() if not lookups & set(name.split(".")))
    head = model.get_output_embeddings().weight
    assert bench.param_split(model) == (stack, head.shape[0] * head.shape[1])


def test_out_needs_a_mode_that_scores_pairs(tmp_path) -> None:
    with pytest.raises(SystemExit):
        bench.parse_args(["--blimp", str(tmp_path), "--modes", "lama-float32", "--bert-tokenizer", str(tmp_path),
                          "--lama-relations", str(tmp_path), "--lama-common-vocab", str(tmp_path),
                          "--out", str(tmp_path / "x.parquet")])


def test_modes_need_their_tokenizer(tmp_path) -> None:
    with pytest.raises(SystemExit):
        bench.parse_args(["--blimp", str(tmp_path), "--modes", "pll-float32", "--gpt2-tokenizer", str(tmp_path)])


@pytest.mark.parametrize(("argv", "message"), [
    (["--modes", "causal-float32", "--bert-tokenizer", "."], "causal modes need --gpt2-tokenizer"),
    (["--gpt2-tokenizer", ".", "--modes", "causal-float32", "--pairs", "0"], "--pairs and --per-paradigm must be at least 1"),
    (["--gpt2-tokenizer", ".", "--modes", "causal-float32", "--per-paradigm", "0"],
     "--pairs and --per-paradigm must be at least 1"),
    (["--gpt2-tokenizer", ".", "--modes", "causal-float32", "--device", "cuda"], "--device cuda: torch sees no CUDA device"),
])
def test_bad_arguments_are_refused_naming_them(tmp_path, capsys, monkeypatch, argv, message) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit):
        bench.parse_args(["--blimp", str(tmp_path), *argv])
    assert message in capsys.readouterr().err


def test_lama_modes_rank_template_facts_and_compare_top1(tiny_dir, tmp_path, capsys, lama_release_writer) -> None:
    data = lama_release_writer(tmp_path)
    vocab = tmp_path / "common_vocab.txt"  # capitalised, single pieces for the (uncased) tiny BERT once lowercased
    vocab.write_text("Bird\nFish\nTree\nFlower\nTool\nInsect\nChess\nZebra\n")
    argv = ["--blimp", str(FIXTURES), "--bert-tokenizer", str(tiny_dir("bert")), "--tiny", "--pairs", "5",
            "--lama-relations", str(data / "relations.jsonl"), "--lama-common-vocab", str(vocab),
            "--facts", "12", "--modes", "lama-float32", "lama-bf16"]
    assert bench.main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[1].startswith("lama-float32   facts=12 ") and "facts/s=" in printed[1]
    assert "head_rows=12" in printed[1]  # the LM head runs at the mask row of each fact only
    # The tiny BERT is uncased: LAMA's lowercase mode, so every fact is scored, none skipped.
    assert printed[-1].startswith("# lama-bf16 vs lama-float32: ") and printed[-1].endswith("%)")
    assert "of 12 top-1 predictions equal" in printed[-1]


def test_lama_modes_need_their_files(tmp_path) -> None:
    with pytest.raises(SystemExit):
        bench.parse_args(["--blimp", str(tmp_path), "--modes", "lama-float32", "--bert-tokenizer", str(tmp_path)])


def test_exec_flops_leave_out_the_last_layer_work_the_rows_only_tail_skips(tiny_bert) -> None:
    d, inner = tiny_bert.model.config.hidden_size, tiny_bert.model.config.intermediate_size
    query_and_output, two_layer_norms, feed_forward = 2 * (d * d + d), 4 * d, 2 * d * inner + inner + d
    work = bench.with_rows_only_savings(tiny_bert, bench.Work(1000, 1000, 80, 80))
    assert work.skipped == (query_and_output + two_layer_norms + feed_forward) * (1000 - 80)
    result = bench.Result("pll-float32", 10, "pairs", 1.0, work, body_params=10**6, head_params=0, peak_gflops=1.0)
    assert result.exec_gflops == pytest.approx(2 * (10**6 * 1000 - work.skipped) / 1e9)
    assert result.model_gflops == pytest.approx(2 * 10**9 / 1e9)


def test_agreement_counts_only_items_both_modes_decided() -> None:
    decisions = {"pll-float32": np.array([True, False, None, True], dtype=object),
                 "pll-bf16": np.array([True, True, None, None], dtype=object),
                 "lama-float32": np.array(["Paris", float("nan"), "Rome"], dtype=object),
                 "lama-bf16": np.array(["Paris", float("nan"), "Oslo"], dtype=object)}
    assert bench.agreement_lines(decisions) == [
        "# pll-bf16 vs pll-float32: 1 of 2 pair decisions equal (50.00%), 2 skipped",
        "# lama-bf16 vs lama-float32: 1 of 2 top-1 predictions equal (50.00%), 1 skipped",
    ]


def test_idle_line_reads_a_real_profile(tiny_bert) -> None:
    """``idle_line`` on the events of a real (CPU) profile of PLL, with the matmuls standing in for GPU
    kernels: the attributes it reads exist, and the idle time is the window less the matmuls' time."""
    from torch.profiler import ProfilerActivity, profile

    from lmprobes.engine import pseudo_log_likelihoods

    with profile(activities=[ProfilerActivity.CPU]) as profiler, torch.profiler.record_function(bench.PROFILED):
        pseudo_log_likelihoods(tiny_bert, ["The cat sat on the mat.", "A dog barked."], progress=False)
    events = profiler.events()
    matmuls = [e for e in events if e.name in ("aten::mm", "aten::addmm")]
    window = next(e for e in events if e.name == bench.PROFILED).time_range
    line = bench.idle_line(events, matmuls)
    numbers = dict(part.rsplit(" ", 1) for part in line.split(": ", 1)[1].split(", "))
    assert list(numbers) == [*runner.PHASES, bench.OUTSIDE] and float(numbers["batch"]) > 0
    idle, of = (float(x) for x in line.removeprefix("# GPU idle ").split(" s,")[0].split(" of "))
    busy = sum(e.time_range.end - e.time_range.start for e in matmuls) / 1e6  # matmuls do not overlap on one thread
    assert of == pytest.approx((window.end - window.start) / 1e6, abs=1e-3)
    assert idle == pytest.approx(of - busy, abs=2e-3)


def test_trace_without_profile_is_refused(tiny_dir, tmp_path, capsys) -> None:
    argv = ["--blimp", str(FIXTURES), "--bert-tokenizer", str(tiny_dir("bert")), "--tiny", "--modes", "pll-float32",
            "--trace", str(tmp_path)]
    with pytest.raises(SystemExit):
        bench.main(argv)
    assert "--trace needs --profile" in capsys.readouterr().err


def test_the_scores_written_are_each_sides_plain_log_probability(tiny_dir, tmp_path) -> None:
    """ll_good is the good sentence's log P and ll_bad the bad one's: a plain forward of the same seeded
    random GPT-2 (BOS, leading space, no EOS)."""
    out = tmp_path / "scores.parquet"
    gpt2 = tiny_dir("gpt2")
    argv = ["--blimp", str(FIXTURES), "--gpt2-tokenizer", str(gpt2), "--tiny", "--pairs", "6",
            "--modes", "causal-float32", "--out", str(out)]
    assert bench.main(argv) == 0
    tokenizer = bench.load_gpt2_tokenizer(gpt2)
    model = bench.random_model("causal", tokenizer, tiny=True)

    def plain_logprob(sentence: str) -> float:
        ids = [tokenizer.bos_token_id, *tokenizer(" " + sentence, add_special_tokens=False)["input_ids"]]
        with torch.no_grad():
            logits = model(torch.tensor([ids])).logits[0].double()
        logprobs = torch.log_softmax(logits, dim=-1)
        return sum(logprobs[i - 1, ids[i]].item() for i in range(1, len(ids)))

    scores, sample = read_parquet(out), bench.bench_sample(FIXTURES, 6)
    assert not sample["identical"].all()
    for good, bad, ll_good, ll_bad in zip(sample["sentence_good"], sample["sentence_bad"], scores["ll_good"],
                                          scores["ll_bad"], strict=True):
        assert (ll_good, ll_bad) == pytest.approx((plain_logprob(good), plain_logprob(bad)), abs=1e-3)


def test_flops_count_the_head_at_its_rows_executed_and_plain() -> None:
    work = bench.Work(tokens=1000, positions=600, head_rows=50, plain_head_rows=80)
    result = bench.Result("causal-float32", 10, "pairs", 2.0, work, body_params=10**6, head_params=10**4, peak_gflops=1.0)
    assert result.exec_gflops == pytest.approx(2 * (10**6 * 600 + 10**4 * 50) / 2.0 / 1e9)
    assert result.model_gflops == pytest.approx(2 * (10**6 * 1000 + 10**4 * 80) / 2.0 / 1e9)


def test_the_matmul_peak_is_2n3_flops_per_matmul_in_the_best_window(monkeypatch) -> None:
    """Two windows of two matmuls: 2 s, then 1 s on the clock; the peak is the faster one's rate."""
    clock = iter([0.0, 1.0, 2.0, 10.0, 10.5, 11.0])
    monkeypatch.setattr(bench.time, "perf_counter", lambda: next(clock))
    n = 16
    peak = bench.matmul_peak(torch.device("cpu"), torch.float32, n, seconds=0.2, windows=2)
    assert peak == pytest.approx(2 * n**3 * 2 / 1.0 / 1e9)


def test_nodes_with_children_leave_out_leaves_beside_a_sibling() -> None:
    from lmprobes.engine.packing import pack

    # BOS, a, x | y: the prefix tree 0 -> 1 -> {2, 3}; nodes 0 and 1 have children, the leaves 2 and 3 not
    assert bench._nodes_with_children(pack([[0, 1, 2], [0, 1, 3]])) == 2
    assert bench._nodes_with_children(pack([[0, 1, 2], [0, 1, 3], [0, 4]])) == 2
