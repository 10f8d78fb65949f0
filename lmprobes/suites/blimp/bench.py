"""Scoring throughput of the engine: BLiMP pairs and LAMA template facts, random models of real sizes.

    python -m lmprobes.suites.blimp.bench --blimp DIR --gpt2-tokenizer DIR --bert-tokenizer DIR \\
        [--lama-relations FILE --lama-common-vocab FILE] [--modes causal-float32 pll-float32 ...] \\
        [--pairs 2000] [--out scores.parquet]

The sample (issue 8): the paradigm files of ``--blimp`` sorted by file name; the first 30 pairs
of each in file order; concatenated; the first 2,000 pairs kept (with the 67 release files, the
last paradigm contributes 20). ``--pairs N`` keeps the first N of that concatenation and
``--per-paradigm K`` takes K per file (``--per-paradigm 1000 --pairs 67000``: all of BLiMP, a
workload large enough to fill a GPU). Key: (UID, pairID).

Models: GPT-2-small-sized (default ``GPT2Config``) and BERT-base-sized (default ``BertConfig``)
with random weights, seed 0, around the given tokenizers (``--tiny``: 2 layers, width 64, for
tests), or saved models given by folder (``--causal-model``, ``--masked-model``; their vocabulary
must cover the tokenizer's). Modes: ``causal-*`` scores both sentences with the ``lmeval04`` preset (BOS, leading
space, no EOS), ``pll-*`` with the ``original`` pseudo-log-likelihood, ``lama-*`` ranks the
common vocabulary at the mask of ``--facts`` template facts (T-REx templates, seeded subjects
and objects; LAMA's ``masked`` method); in float32 or bfloat16, and ``*-bf16-head32`` in bfloat16
with the logits in float32 (``head_dtype: float32``, ``engine.head``), ``*-bf16-res32`` with bfloat16
linear layers around a float32 residual stream (``residual_dtype: float32``, ``engine.precision``).

Per mode it prints items/s, tokens/s and two FLOP rates, against the peak of a square matmul in
the mode's dtype timed on the same device in the same run (best of five windows):
- ``exec``: the FLOPs the engine executed, 2 x (layer-stack parameters) x (positions fed) plus
  2 x hidden x vocabulary per LM-head row; with prefix packing, positions are prefix-tree nodes.
  Attention score FLOPs and embedding lookups are left out, so this slightly understates.
- ``model``: the same count for the plain algorithm (every token of every distinct sentence, or of
  every masked copy, and the head at every scored row), the work a naive scorer must do; above
  ``exec`` when packing saves work.

``--profile`` scores each mode once more under ``torch.profiler`` (after the timed run, which it
does not slow) and prints the GPU's kernel time against the wall time, the GPU's idle time split
by the host phase running meanwhile (``runner.PHASES``: preparing items, running batches,
collecting scores; or outside the engine), and the longest operators; ``--trace DIR`` also writes
each mode's Chrome trace (``DIR/<mode>.json``, for chrome://tracing or Perfetto).
"""

from __future__ import annotations

import argparse
import dataclasses
import heapq
import itertools
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import torch

from lmprobes.engine.causal import causal_projection
from lmprobes.engine.lm import LM
from lmprobes.engine.masked import masked_projection
from lmprobes.engine.packing import Packing, can_pack, fits_attention_window, pack
from lmprobes.engine.pll import DistinctCopies, MaskedCopies, masked_spans
from lmprobes.engine.precision import load_dtype
from lmprobes.engine.runner import CUDA_HOST_THREADS, PHASES, freeze_collector
from lmprobes.io import utf8_lines, write_parquet
from lmprobes.suites.blimp.dataset import SCHEMA, BlimpDataError, load_json, parse_record
from lmprobes.suites.blimp.scoring import score_pairs
from lmprobes.suites.lama.bench import template_facts
from lmprobes.suites.lama.release import load_common_vocab
from lmprobes.suites.lama.scoring import case_for, score_facts

PER_PARADIGM = 30
SAMPLE_PAIRS = 2000
SEED = 0
WARMUP_PAIRS = 8
PROFILE_ROWS = 20
PROFILED = "lmprobes.profiled"  # the profiler range around the whole profiled run
OUTSIDE = "outside the engine"


@dataclass(frozen=True)
class Mode:
    family: str  # "causal" | "masked"
    method: str
    dtype: torch.dtype
    head_dtype: str = "auto"  # "float32": logits in float32 (engine.head)
    residual_dtype: str = "auto"  # "float32": bf16 linear layers, float32 residual stream (engine.precision)


MODES = {
    "causal-float32": Mode("causal", "lmeval04", torch.float32),
    "causal-bf16": Mode("causal", "lmeval04", torch.bfloat16),
    "pll-float32": Mode("masked", "pll_original", torch.float32),
    "pll-bf16": Mode("masked", "pll_original", torch.bfloat16),
    "lama-float32": Mode("masked", "lama_masked", torch.float32),
    "lama-bf16": Mode("masked", "lama_masked", torch.bfloat16),
    "causal-bf16-head32": Mode("causal", "lmeval04", torch.bfloat16, "float32"),
    "pll-bf16-head32": Mode("masked", "pll_original", torch.bfloat16, "float32"),
    "lama-bf16-head32": Mode("masked", "lama_masked", torch.bfloat16, "float32"),
    "causal-bf16-res32": Mode("causal", "lmeval04", torch.bfloat16, residual_dtype="float32"),
    "pll-bf16-res32": Mode("masked", "pll_original", torch.bfloat16, residual_dtype="float32"),
    "lama-bf16-res32": Mode("masked", "lama_masked", torch.bfloat16, residual_dtype="float32"),
}
LAMA_FACTS = 2000
OUT_SCHEMA = pa.schema(
    [
        pa.field("UID", pa.string()),
        pa.field("pairID", pa.string()),
        pa.field("mode", pa.string()),
        pa.field("ll_good", pa.float64()),
        pa.field("ll_bad", pa.float64()),
    ]
)


@dataclass(frozen=True)
class Work:
    """What one mode asks of the model: positions fed and LM-head rows, as run and as a plain loop.

    Positions are tokens of the sequences, padding not counted (a padded batch runs more)."""

    tokens: int
    positions: int
    head_rows: int
    plain_head_rows: int
    skipped: int = 0  # parameter x positions the rows-only last layer does not run


@dataclass(frozen=True)
class Result:
    mode: str
    items: int
    unit: str
    seconds: float
    work: Work
    body_params: int
    head_params: int
    peak_gflops: float

    @property
    def exec_gflops(self) -> float:
        return self._gflops(self.work.positions, self.work.head_rows, self.work.skipped)

    @property
    def model_gflops(self) -> float:
        return self._gflops(self.work.tokens, self.work.plain_head_rows)

    def _gflops(self, positions: int, head_rows: int, skipped: int = 0) -> float:
        flops = 2.0 * (self.body_params * positions - skipped + self.head_params * head_rows)
        return flops / self.seconds / 1e9

    def line(self) -> str:
        return (
            f"{self.mode:<14} {self.unit}={self.items:<5d} seconds={self.seconds:8.2f} "
            f"{self.unit}/s={self.items / self.seconds:8.1f} tokens/s={self.work.tokens / self.seconds:9.1f} "
            f"exec_GFLOP/s={self.exec_gflops:7.1f} ({self.exec_gflops / self.peak_gflops:6.1%} of peak) "
            f"model_GFLOP/s={self.model_gflops:7.1f} ({self.model_gflops / self.peak_gflops:6.1%}) "
            f"peak_GFLOP/s={self.peak_gflops:7.1f}"
        )


# --- the sample ----------------------------------------------------------------------------


def bench_sample(folder: Path, n_pairs: int = SAMPLE_PAIRS, per_paradigm: int = PER_PARADIGM) -> pd.DataFrame:
    """Issue 8's sample: first ``per_paradigm`` pairs of each file (by file name), first ``n_pairs`` kept.

    Rows have the dataset's columns (``SCHEMA``), in sample order.
    """
    files = sorted(Path(folder).glob("*.jsonl"), key=lambda p: p.name)
    if not files:
        raise BlimpDataError(f"{folder}: no BLiMP paradigm files (*.jsonl)")
    records: list[dict] = []
    for path in files:
        if len(records) >= n_pairs:
            break
        records += _first_records(path, per_paradigm)
    records = records[:n_pairs]
    return pd.DataFrame.from_records([{name: r[name] for name in SCHEMA.names} for r in records], columns=SCHEMA.names)


def _first_records(path: Path, count: int) -> list[dict]:
    """The first ``count`` records of a paradigm file, read as strictly as the dataset reads it."""
    records = []
    for lineno, line in utf8_lines(path, BlimpDataError):
        if len(records) == count:
            break
        if line.strip():
            records.append(parse_record(load_json(line, path, lineno), path, lineno))
    return records


# --- models --------------------------------------------------------------------------------


def load_gpt2_tokenizer(path: Path):
    from transformers import GPT2Tokenizer

    tokenizer = GPT2Tokenizer.from_pretrained(path, local_files_only=True)
    if tokenizer.bos_token_id is None or len(tokenizer) < 256:
        raise ValueError(f"{path}: not a GPT-2 tokenizer (vocabulary {len(tokenizer)}, BOS {tokenizer.bos_token!r})")
    return tokenizer


def load_bert_tokenizer(path: Path, lowercase: bool | None = None):
    """WordPiece from ``vocab.txt``; casing from ``tokenizer_config.json`` if there is one, else cased."""
    from transformers import BertTokenizer

    if lowercase is None and not (Path(path) / "tokenizer_config.json").exists():
        lowercase = False
    kwargs = {} if lowercase is None else {"do_lower_case": lowercase}
    tokenizer = BertTokenizer.from_pretrained(path, local_files_only=True, **kwargs)
    # transformers 5 builds a 5-token stub when it does not find the vocabulary.
    if tokenizer.mask_token_id is None or len(tokenizer) < 100:
        raise ValueError(f"{path}: not a BERT WordPiece tokenizer (vocabulary {len(tokenizer)})")
    return tokenizer


def random_model(family: str, tokenizer, tiny: bool) -> torch.nn.Module:
    """GPT-2-small / BERT-base-sized (default configs) random weights, seed 0; ``tiny``: 2 x 64."""
    from transformers import BertConfig, BertForMaskedLM, GPT2Config, GPT2LMHeadModel

    torch.manual_seed(SEED)
    if family == "causal":
        size = {"n_embd": 64, "n_layer": 2, "n_head": 2} if tiny else {}
        config = GPT2Config(vocab_size=len(tokenizer), bos_token_id=tokenizer.bos_token_id,
                            eos_token_id=tokenizer.eos_token_id, **size)
        return GPT2LMHeadModel(config).eval()
    size = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 256} if tiny else {}
    config = BertConfig(vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id, **size)
    return BertForMaskedLM(config).eval()


def bench_model(family: str, tokenizer, tiny: bool, folder: Path | None) -> torch.nn.Module:
    """The saved model in ``folder`` (float32, offline) when one is given, else ``random_model``."""
    if folder is None:
        return random_model(family, tokenizer, tiny)
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

    auto = AutoModelForCausalLM if family == "causal" else AutoModelForMaskedLM
    model = auto.from_pretrained(folder, local_files_only=True, dtype=torch.float32).eval()
    if model.get_output_embeddings().weight.shape[0] < len(tokenizer):
        raise ValueError(f"{folder}: the model's vocabulary is smaller than the tokenizer's ({len(tokenizer)})")
    return model


def param_split(model: torch.nn.Module) -> tuple[int, int]:
    """(parameters of the layer stack, parameters of one LM-head row times the vocabulary).

    The stack is everything in the base model but its embedding tables (token, position and
    segment lookups, whatever a model names them: ``wte``, ``embed_tokens``, ``embed_in``,
    ``embed_positions``, ...), which are read, not multiplied; the head is counted as hidden x
    vocabulary (its transform layers are negligible).
    """
    base = getattr(model, "base_model", model)
    embeddings = {id(p) for module in base.modules() if isinstance(module, torch.nn.Embedding)
                  for p in module.parameters()}
    body = sum(p.numel() for p in base.parameters() if id(p) not in embeddings)
    head = model.get_output_embeddings().weight
    return body, head.shape[0] * head.shape[1]


def work_of(lm: LM, items: pd.DataFrame, mode: Mode) -> Work:
    """Positions and head rows the scorer runs (each distinct text once, as ``score_pairs`` does)."""
    if mode.method == "lama_masked":
        ids = lm.tokenizer([q.replace("[MASK]", lm.tokenizer.mask_token) for q in items["query"]])["input_ids"]
        tokens = sum(len(x) for x in ids)
        return Work(tokens, tokens, len(ids), len(ids))
    sentences = list(items["sentence_good"]) + list(items["sentence_bad"])
    if mode.family == "causal":
        texts = sorted({" " + s for s in sentences})
        sequences = [[lm.tokenizer.bos_token_id, *ids] for ids in lm.tokenizer(texts, add_special_tokens=False)["input_ids"]]
        tokens = sum(len(x) for x in sequences)
        scored = tokens - len(sequences)
        if causal_projection(lm).full_forward:  # the head at every position (a head that rescales its logits)
            return Work(tokens, tokens, tokens, scored)
        if not (can_pack(lm) and fits_attention_window(lm, sequences)):
            return Work(tokens, tokens, scored, scored)
        packing = pack(sequences)
        return Work(tokens, len(packing.tokens), _nodes_with_children(packing), scored)
    texts = sorted(set(sentences))
    encoded = lm.tokenizer(texts)
    sequences = [list(ids) for ids in encoded["input_ids"]]
    spans = [masked_spans(encoded.word_ids(i), "original") for i in range(len(texts))]
    copies = MaskedCopies(sequences, spans, lm.tokenizer.mask_token_id)
    distinct = DistinctCopies(copies)  # as the scorer runs them: equal copies once
    tokens = sum(len(sequences[owner]) for owner in copies.owner)
    return Work(tokens, sum(distinct.lengths()), len(distinct), len(copies))


def with_rows_only_savings(lm: LM, work: Work) -> Work:
    """``work`` less the last-layer work a rows-only tail skips: all but its key/value
    projections, at every position that is not scored."""
    if lm.family != "masked" or masked_projection(lm).tail is None:
        return work
    last = lm.model.base_model.encoder.layer[-1]
    kept = {id(p) for part in (last.attention.self.key, last.attention.self.value) for p in part.parameters()}
    skipped_params = sum(p.numel() for p in last.parameters() if id(p) not in kept)
    return dataclasses.replace(work, skipped=skipped_params * (work.positions - work.head_rows))


def _nodes_with_children(packing: Packing) -> int:
    """Nodes whose next node in their row is deeper, i.e. a child (rows are in depth-first order)."""
    deeper = packing.depth[1:] > packing.depth[:-1]
    deeper[packing.offsets[1:-1] - 1] = False  # a row's last node and the next row's first
    return int(deeper.sum())


def cpu_features() -> str:
    """The CPU's matrix extensions that decide bf16 speed (Linux), e.g. ``cpu=amx_bf16+avx512_bf16``."""
    try:
        flags = set(Path("/proc/cpuinfo").read_text(encoding="utf-8").split())
    except OSError:
        return "cpu=unknown"
    found = [flag for flag in ("amx_bf16", "avx512_bf16", "avx512f", "avx2") if flag in flags]
    return "cpu=" + ("+".join(found) or "none of amx_bf16/avx512_bf16/avx512f/avx2")


def matmul_peak(device: torch.device, dtype: torch.dtype, n: int, seconds: float = 1.0, windows: int = 5) -> float:
    """GFLOP/s of repeated ``n x n`` matmuls in ``dtype``: the best of ``windows`` timed windows
    sharing about ``seconds`` (the best window is the least disturbed on a shared machine)."""
    a = torch.randn(n, n, device=device).to(dtype)
    b = torch.randn(n, n, device=device).to(dtype)
    torch.matmul(a, b)
    _synchronize(device)
    best = 0.0
    for _ in range(windows):
        repeats, elapsed = 0, 0.0
        start = time.perf_counter()
        while elapsed < seconds / windows or repeats < 2:
            torch.matmul(a, b)
            repeats += 1
            _synchronize(device)
            elapsed = time.perf_counter() - start
        best = max(best, 2.0 * n**3 * repeats / elapsed / 1e9)
    return best


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def run_mode(name: str, lm: LM, items: pd.DataFrame, peak: float, lama_vocab: list[str] | None = None,
             *, profile: bool = False, trace: Path | None = None) -> tuple[Result, pd.DataFrame]:
    """Time one mode after a warm-up; return its per-pair scores (LAMA: each fact's top-1 token).
    ``profile``: then score the items once more under ``torch.profiler`` and print what it saw
    (and write its Chrome trace to ``trace``)."""
    mode = MODES[name]

    def score(frame: pd.DataFrame) -> pd.DataFrame:
        if mode.method == "lama_masked":
            vocab, case = lama_vocabulary(lm, lama_vocab)
            return score_facts(lm, frame, vocab, method="masked", case=case, progress=False)
        return score_pairs(lm, frame, mode.method, progress=False)

    score(items.head(WARMUP_PAIRS))
    _synchronize(lm.device)
    start = time.perf_counter()
    scores = score(items)
    _synchronize(lm.device)
    seconds = time.perf_counter() - start
    if profile:
        for line in profiled_lines(name, lambda: score(items), lm.device, trace=trace):
            print(line, flush=True)
    body, head = param_split(lm.model)
    unit = "facts" if mode.method == "lama_masked" else "pairs"
    work = with_rows_only_savings(lm, work_of(lm, items, mode))
    result = Result(name, len(items), unit, seconds, work, body, head, peak)
    if mode.method == "lama_masked":
        return result, pd.DataFrame({"row_id": scores["row_id"], "top1": scores["top_tokens"].str[0]})
    rows = pd.DataFrame({
        "UID": items["paradigm"].to_numpy(), "pairID": items["pairID"].to_numpy(), "mode": name,
        "ll_good": scores["score_good"].to_numpy(), "ll_bad": scores["score_bad"].to_numpy(),
    })
    return result, rows


def profiled_lines(name: str, run, device: torch.device, rows: int = PROFILE_ROWS,
                   trace: Path | None = None) -> list[str]:
    """``run()`` under ``torch.profiler``: how busy the GPU was (kernel time against the wall time,
    the profiler's own overhead included), its idle time by host phase (``idle_line``) and the
    operators that took longest (on the GPU, by kernel time; on CPU, by their own time). ``trace``:
    where to write the Chrome trace."""
    from torch.profiler import ProfilerActivity, profile

    on_gpu = device.type == "cuda"
    activities = [ProfilerActivity.CPU, *([ProfilerActivity.CUDA] if on_gpu else [])]
    with profile(activities=activities) as profiler:
        start = time.perf_counter()
        with torch.profiler.record_function(PROFILED):
            run()
            _synchronize(device)
        wall = time.perf_counter() - start
    if trace is not None:
        profiler.export_chrome_trace(str(trace))
    sort_by = "self_cpu_time_total"
    lines = [f"# profile {name}: {wall:.3f} s under the profiler"]
    if on_gpu:
        events = profiler.events()
        # The GPU's own copy of each profiler range (a "user annotation" spanning its kernels) is no kernel.
        kernels = [event for event in events if event.device_type.name == "CUDA" and not event.is_user_annotation]
        busy = sum(event.device_time for event in kernels) / 1e6
        lines[0] += f"; GPU kernels {busy:.3f} s ({busy / wall:.1%} busy)"
        lines.append(idle_line(events, kernels))
        sort_by = "device_time_total"
    table = profiler.key_averages().table(sort_by=sort_by, row_limit=rows, max_name_column_width=60)
    return lines + ["# " + line for line in table.splitlines() if line.strip()]


def idle_line(events, kernels) -> str:
    """``# GPU idle ...``: the GPU's idle time within the profiled run, split by the host phase
    (``runner.PHASES``) running meanwhile (the ranges as the host thread saw them)."""
    host = [e for e in events if e.device_type.name == "CPU" and e.name.startswith("lmprobes.")]
    window = next(((e.time_range.start, e.time_range.end) for e in host if e.name == PROFILED), None)
    if window is None:
        return "# GPU idle: the profiled range is missing from the profile"
    phases = [(e.time_range.start, e.time_range.end, e.name.removeprefix("lmprobes.")) for e in host if e.name != PROFILED]
    idle = idle_by_phase([(k.time_range.start, k.time_range.end) for k in kernels], phases, window)
    parts = ", ".join(f"{label} {seconds / 1e6:.3f}" for label, seconds in idle.items())
    return f"# GPU idle {sum(idle.values()) / 1e6:.3f} of {(window[1] - window[0]) / 1e6:.3f} s, by host phase: {parts}"


def idle_by_phase(busy: Sequence[tuple[float, float]], phases: Sequence[tuple[float, float, str]],
                  window: tuple[float, float]) -> dict[str, float]:
    """The time within ``window`` covered by no ``busy`` interval, split by the phase running then:
    each label of ``phases`` (``(start, end, label)``; where they nest, the innermost, i.e. the one
    that started last), then ``OUTSIDE`` (no phase). Intervals may overlap; ends are exclusive."""
    low, high = window
    spans = sorted((max(a, low), min(b, high)) for a, b in busy if min(b, high) > max(a, low))
    starts, ends = [], []
    for a, b in spans:  # merged into disjoint intervals
        if ends and a <= ends[-1]:
            ends[-1] = max(ends[-1], b)
        else:
            starts.append(a)
            ends.append(b)
    starts, ends = np.asarray(starts, dtype=float), np.asarray(ends, dtype=float)
    before = np.concatenate(([0.0], np.cumsum(ends - starts)))  # busy time before each interval

    def busy_until(t: float) -> float:
        k = int(np.searchsorted(starts, t, side="right")) - 1
        return 0.0 if k < 0 else float(before[k] + min(t - starts[k], ends[k] - starts[k]))

    idle = dict.fromkeys([*PHASES, *(label for _, _, label in phases), OUTSIDE], 0.0)
    for a, b, label in _innermost_segments(phases, window):
        idle[label] += (b - a) - (busy_until(b) - busy_until(a))
    return idle


def _innermost_segments(phases: Sequence[tuple[float, float, str]], window: tuple[float, float]):
    """``window`` cut where a phase starts or ends, each piece labelled with its innermost phase
    (the running one that started last), ``OUTSIDE`` where none runs."""
    low, high = window
    bounds = sorted({low, high, *(t for start, end, _ in phases for t in (start, end) if low < t < high)})
    order = sorted(range(len(phases)), key=lambda i: phases[i][0])
    running: list[tuple[float, int]] = []  # heap of (-start, phase): the latest start on top
    k = 0
    for a, b in itertools.pairwise(bounds):
        while k < len(order) and phases[order[k]][0] <= a:
            heapq.heappush(running, (-phases[order[k]][0], order[k]))
            k += 1
        while running and phases[running[0][1]][1] <= a:  # ended; those below the top go when they reach it
            heapq.heappop(running)
        yield a, b, phases[running[0][1]][2] if running else OUTSIDE


def lama_vocabulary(lm: LM, common_vocab: list[str]) -> tuple[list[str], str]:
    """The common vocabulary and case mode an LM is scored with: an uncased tokenizer in LAMA's
    lowercase mode, against the lowercased words (derived here: a benchmark, not the released
    ``common_vocab_lowercased.txt``)."""
    case = case_for(lm.tokenizer, "auto")
    return (common_vocab if case == "cased" else sorted({word.lower() for word in common_vocab})), case


def lama_facts(relations: Path, common_vocab: Path, n: int) -> tuple[pd.DataFrame, list[str]]:
    """``n`` seeded T-REx template facts over the common vocabulary (``lama.bench.template_facts``)."""
    vocab = sorted(load_common_vocab(common_vocab))
    return template_facts(relations, vocab, n), vocab


def agreement_lines(decisions: dict) -> list[str]:
    """For each bf16 mode run beside its float32 mode, the share of pair decisions (LAMA: top-1
    predictions) that agree, among the items both modes decided (a skipped item is None or NaN)."""
    lines = []
    for name, bf16 in decisions.items():
        reference = name.split("-")[0] + "-float32"
        if MODES[name].dtype != torch.float32 and reference in decisions:
            ours, theirs = pd.Series(bf16, dtype=object), pd.Series(decisions[reference], dtype=object)
            both = ours.notna() & theirs.notna()
            same, n = int((ours[both] == theirs[both]).sum()), int(both.sum())
            what = "top-1 predictions" if name.startswith("lama") else "pair decisions"
            skipped = f", {len(ours) - n} skipped" if n < len(ours) else ""
            lines.append(f"# {name} vs {reference}: {same} of {n} {what} equal ({same / max(n, 1):.2%}){skipped}")
    return lines


# --- command -------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m lmprobes.suites.blimp.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--blimp", type=Path, required=True, help="folder of the BLiMP paradigm .jsonl files")
    parser.add_argument("--gpt2-tokenizer", type=Path, help="folder with GPT-2's vocab.json and merges.txt")
    parser.add_argument("--bert-tokenizer", type=Path, help="folder with BERT's vocab.txt")
    parser.add_argument("--lama-relations", type=Path, help="LAMA relations.jsonl (the lama-* modes)")
    parser.add_argument("--lama-common-vocab", type=Path, help="common_vocab_cased.txt (the lama-* modes)")
    parser.add_argument("--facts", type=int, default=LAMA_FACTS, help=f"template facts of the lama-* modes (default {LAMA_FACTS})")
    parser.add_argument("--bert-uncased", action="store_true",
                        help="lower-case for BERT when the folder has no tokenizer_config.json (default: cased)")
    parser.add_argument("--modes", nargs="+", choices=list(MODES), default=["causal-float32", "pll-float32"])
    parser.add_argument("--pairs", type=int, default=SAMPLE_PAIRS, help=f"pairs of the sample to score (default {SAMPLE_PAIRS})")
    parser.add_argument("--per-paradigm", type=int, default=PER_PARADIGM,
                        help=f"pairs taken from the start of each paradigm file (default {PER_PARADIGM})")
    parser.add_argument("--out", type=Path, help="Parquet of the scores (UID, pairID, mode, ll_good, ll_bad)")
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    parser.add_argument("--batch-tokens", type=int, help="token budget per forward pass (default 4096 CPU, 65536 CUDA)")
    parser.add_argument("--matmul-size", type=int, help="side of the timed square matmul (default 2048 CPU, 8192 CUDA)")
    parser.add_argument("--packing", choices=["auto", "none"], default="auto",
                        help="causal prefix packing (engine.packing); 'none' pads every sentence")
    parser.add_argument("--profile", action="store_true",
                        help="after timing a mode, score it once more under torch.profiler and print how busy "
                             "the GPU was, its idle time by host phase, and the operators that took longest")
    parser.add_argument("--trace", type=Path, help="with --profile: write each mode's Chrome trace to DIR/<mode>.json")
    parser.add_argument("--tiny", action="store_true", help="2-layer width-64 models (for tests)")
    parser.add_argument("--causal-model", type=Path,
                        help="a saved causal model folder scored instead of the random GPT-2 (same vocabulary)")
    parser.add_argument("--masked-model", type=Path,
                        help="a saved masked model folder scored instead of the random BERT (same vocabulary)")
    args = parser.parse_args(argv)
    families = {MODES[m].family for m in args.modes}
    if "causal" in families and args.gpt2_tokenizer is None:
        parser.error("causal modes need --gpt2-tokenizer")
    if "masked" in families and args.bert_tokenizer is None:
        parser.error("pll and lama modes need --bert-tokenizer")
    if any(m.startswith("lama") for m in args.modes) and (args.lama_relations is None or args.lama_common_vocab is None):
        parser.error("lama modes need --lama-relations and --lama-common-vocab")
    if args.trace is not None and not args.profile:
        parser.error("--trace needs --profile")
    if args.out is not None and all(m.startswith("lama") for m in args.modes):
        parser.error("--out writes BLiMP pair scores: give a causal or pll mode (lama modes only report top-1 agreement)")
    if args.pairs < 1 or args.per_paradigm < 1:
        parser.error("--pairs and --per-paradigm must be at least 1")
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: torch sees no CUDA device")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    device = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available() else
                          "cpu" if args.device == "auto" else args.device)
    on_gpu = device.type == "cuda"
    batch_tokens = args.batch_tokens or (65536 if on_gpu else 4096)
    matmul_size = args.matmul_size or (256 if args.tiny else 8192 if on_gpu else 2048)
    pairs = bench_sample(args.blimp, args.pairs, args.per_paradigm)
    facts, lama_vocab = (lama_facts(args.lama_relations, args.lama_common_vocab, args.facts)
                         if args.lama_relations is not None else (None, None))
    tokenizers = {}
    if args.gpt2_tokenizer is not None:
        tokenizers["causal"] = load_gpt2_tokenizer(args.gpt2_tokenizer)
    if args.bert_tokenizer is not None:
        tokenizers["masked"] = load_bert_tokenizer(args.bert_tokenizer, True if args.bert_uncased else None)
    dtypes = list(dict.fromkeys(MODES[m].dtype for m in args.modes))
    peaks = {dtype: matmul_peak(device, dtype, matmul_size, 0.2 if args.tiny else 1.0) for dtype in dtypes}
    scoring_threads = f" ({CUDA_HOST_THREADS} while scoring)" if on_gpu and CUDA_HOST_THREADS else ""
    print(
        f"# BLiMP bench: {len(pairs)} pairs from {pairs['paradigm'].nunique()} paradigms, device={device}, "
        f"torch_threads={torch.get_num_threads()}{scoring_threads}, batch_tokens={batch_tokens}, {cpu_features()}, "
        + ", ".join(f"{str(d).removeprefix('torch.')} matmul {matmul_size}: {p:.1f} GFLOP/s" for d, p in peaks.items()),
        flush=True,
    )
    frames, decisions = [], {}
    for name in args.modes:
        mode = MODES[name]
        tokenizer = tokenizers[mode.family]
        items = pairs if mode.method != "lama_masked" else facts
        folder = args.causal_model if mode.family == "causal" else args.masked_model
        model = bench_model(mode.family, tokenizer, args.tiny, folder).to(device=device, dtype=load_dtype(mode.dtype, mode.residual_dtype))
        model_name = folder.name if folder else f"random-{'gpt2' if mode.family == 'causal' else 'bert'}"
        lm = LM(name=model_name, model=model, tokenizer=tokenizer,
                family=mode.family, device=device, dtype=mode.dtype, batch_tokens=batch_tokens, packing=args.packing,
                head_dtype=mode.head_dtype, residual_dtype=mode.residual_dtype)
        freeze_collector()  # as a scoring job does after loading (models.load_lm)
        trace = None
        if args.trace is not None:
            args.trace.mkdir(parents=True, exist_ok=True)
            trace = args.trace / f"{name}.json"
        result, rows = run_mode(name, lm, items, peaks[mode.dtype], lama_vocab, profile=args.profile, trace=trace)
        print(result.line() + f" body_params={result.body_params / 1e6:.1f}M tokens={result.work.tokens} "
              f"positions={result.work.positions} head_rows={result.work.head_rows}", flush=True)
        if "top1" in rows:
            decisions[name] = rows["top1"].to_numpy()
        else:
            frames.append(rows)
            decided = rows["ll_good"].notna() & rows["ll_bad"].notna()  # skipped pairs ([UNK]) are NaN
            decisions[name] = (rows["ll_good"] > rows["ll_bad"]).astype(object).where(decided, None).to_numpy()
        del lm, model
    for line in agreement_lines(decisions):
        print(line, flush=True)
    if args.out is not None and frames:
        metadata = {"sample": f"first {args.per_paradigm} per paradigm file by name, first {len(pairs)} pairs",
                    "modes": args.modes, "seed": SEED, "tiny": args.tiny, "device": device.type,
                    "torch": torch.__version__}
        write_parquet(pd.concat(frames, ignore_index=True), args.out, OUT_SCHEMA, metadata)
    return 0


if __name__ == "__main__":
    sys.exit(main())
