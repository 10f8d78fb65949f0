"""The shared forward loop: batches by token budget, log-probs at chosen positions, OOM back-off.

Every primitive reduces to "for each token sequence, the vocabulary distribution at some of its
positions". The loop pads a batch on the right, runs the model's encoder/decoder stack, gathers
only the requested rows of the last hidden state and applies the LM head to those rows, so the
(large) vocabulary projection is never computed for positions nobody asked about.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import logging
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from tqdm import tqdm

from lmprobes.engine.batching import (
    TokenTable,
    as_token_table,
    flatten,
    offsets_of,
    ranges,
    split_lists,
    to_device,
    token_budget_batches,
)
from lmprobes.engine.lm import LM
from lmprobes.io import gc_paused

logger = logging.getLogger(__name__)

# Float32 logit elements per head call. On CPU 16 MiB keeps each chunk's log-softmax in the
# last-level cache (3x faster than 256 MiB chunks on GPT-2's 50,257-word vocabulary); on CUDA
# 512 MiB (2,670 GPT-2 rows) keeps the head a few large matmuls instead of hundreds of launches.
LOGIT_CHUNK_ELEMENTS = 2**22
CUDA_LOGIT_CHUNK_ELEMENTS = 2**27
# Attention kernels allowed on CUDA, in the order tried. cuDNN's fused attention, which torch prefers
# on Hopper, builds an execution plan for every new (batch, length) shape: 4-65 ms of host time each
# on an H100, more than the whole forward pass, and scoring batches rarely repeat a shape. The
# memory-efficient kernel goes before flash: flash's 128-query tiles are mostly empty for probe
# sentences of ~14 tokens, and PLL bf16 on all of BLiMP ran 16% faster on an H100 (15.0-15.4
# against 17.7-18.7 s, alternated in one process). Flash stays second, for inputs the
# memory-efficient kernel refuses: in some torch versions grouped-query attention, which
# transformers hands to SDPA unexpanded (``enable_gqa``) when there is no mask. None: torch's choice.
CUDA_ATTENTION_BACKENDS: tuple[SDPBackend, ...] | None = (
    SDPBackend.EFFICIENT_ATTENTION,
    SDPBackend.FLASH_ATTENTION,
    SDPBackend.MATH,
)
# Torch's intra-op CPU threads while a scoring loop runs on a GPU. The host's torch work there is
# per-batch bookkeeping on tensors of some ten thousand elements (padding, masked copies, pinning),
# which one thread runs in microseconds. With a 16-thread pool (an H200 host, PLL bf16 on 3,000
# BLiMP pairs under torch.profiler) about one batch in eight stalled: each of its small ops took
# ~6 ms instead of ~0.06 ms, and the GPU sat idle 70-80 ms; with one thread no op did. None: torch's.
CUDA_HOST_THREADS: int | None = 1


class Row(NamedTuple):
    """One position of one item whose next/masked-token distribution is wanted."""

    item: int
    position: int


RowFn = Callable[[torch.Tensor, list[Row]], list]
ItemFn = Callable[[torch.Tensor, list[int]], list]


@dataclass(frozen=True)
class Projection:
    """How to get logits at chosen rows: ``head(base(...)[0][rows])``, or a full forward when ``head`` is None.

    With a ``tail`` (``engine.last_layer``), ``base`` stops one layer short and
    ``tail(hidden, attention_mask, batch_index, position_index)`` runs the last layer at the rows.
    ``log_softmax=False`` hands the head's rows over as they are (float32), e.g. hidden states
    through an identity head.
    """

    base: torch.nn.Module | None
    head: torch.nn.Module | None
    forward_kwargs: dict[str, Any] = field(default_factory=dict)
    log_softmax: bool = True
    tail: Callable[..., torch.Tensor] | None = None

    @property
    def full_forward(self) -> bool:
        return self.head is None


# The head-only path's log-probs against the full forward's on the probe: float32 kernels on different
# shapes agree to about 1e-6 and half-precision ones to a few 1e-2, while a soft cap or a multiplier on
# the logits of a trained model moves them by whole nats.
PROBE_TOLERANCE = {torch.float32: 1e-3}
HALF_PROBE_TOLERANCE = 0.1
PROBE_LENGTH = 16
# Two rows of one batch with the same prefix go through the same kernels: a causal model's prefix
# log-probs agree to rounding (exactly, for every causal type of the test zoo), while a model that
# looks ahead moves them by far more (3e-4 to 1e-2 for random tiny encoders, nats for trained ones).
LOOK_AHEAD_TOLERANCE = {torch.float32: 1e-5}
HALF_LOOK_AHEAD_TOLERANCE = 0.05


def checked_projection(lm: LM, projection: Projection, checked_types: frozenset[str]) -> Projection:
    """``projection`` if its rows are the model's own logits, else a full forward.

    The head-only path skips whatever a class's ``forward`` does after its output layer. For the
    ``checked_types`` the tests compare it with a plain forward; any other architecture is compared
    once per loaded model on a probe input, and one whose forward rescales or soft-caps the logits
    (RecurrentGemma's ``logits_soft_cap``, Falcon-H1's ``lm_head_multiplier``) is run whole.
    """
    if projection.full_forward or getattr(lm.model.config, "model_type", None) in checked_types:
        return projection
    if lm.head_path_checked is None:
        lm.head_path_checked = head_path_matches(lm, projection)
        if not lm.head_path_checked:
            logger.warning("%s: the model's forward changes the logits after its output layer (model type %r); "
                           "running full forwards", lm.name, lm.model.config.model_type)
    return projection if lm.head_path_checked else Projection(base=None, head=None,
                                                              forward_kwargs=projection.forward_kwargs)


def head_path_matches(lm: LM, projection: Projection) -> bool:
    """Whether ``projection`` gives the full forward's log-probs at every position of a probe sequence."""
    input_ids = _probe_ids(lm).unsqueeze(0).to(lm.device)
    attention_mask = torch.ones_like(input_ids)
    positions = torch.arange(PROBE_LENGTH, device=lm.device)
    batch = torch.zeros_like(positions)
    with forward_mode(lm):
        whole = run_model(lm.model, input_ids, attention_mask, **projection.forward_kwargs).logits[0]
        rows = torch.cat(list(logits_at_rows(lm, projection, input_ids, attention_mask, batch, positions)))
    gap = (rows.float().log_softmax(-1) - whole.float().log_softmax(-1)).abs().max().item()
    return gap <= PROBE_TOLERANCE.get(lm.dtype, HALF_PROBE_TOLERANCE)


def sees_later_tokens(lm: LM) -> bool:
    """Whether a position's log-probs change with a later token, on a probe sequence whose last token
    is swapped. A causal LM's must not: a bidirectional encoder loaded by its causal class (BERT or
    RoBERTa without ``is_decoder``) looks ahead, and its next-token scores would be nonsense."""
    ids = _probe_ids(lm)
    swapped = ids.clone()
    swapped[-1] = (ids[-1] + 1) % vocab_size(lm)
    input_ids = torch.stack([ids, swapped]).to(lm.device)
    with forward_mode(lm):
        logits = run_model(lm.model, input_ids, torch.ones_like(input_ids)).logits[:, :-1]
    logprobs = logits.float().log_softmax(-1)
    gap = (logprobs[0] - logprobs[1]).abs().max().item()
    return gap > LOOK_AHEAD_TOLERANCE.get(lm.dtype, HALF_LOOK_AHEAD_TOLERANCE)


def _probe_ids(lm: LM) -> torch.Tensor:
    """``PROBE_LENGTH`` ids spread over the vocabulary, the same for every run."""
    return (torch.arange(PROBE_LENGTH) * 7919 + 11) % vocab_size(lm)


@dataclass
class TokenPrediction:
    """The distribution at one position: its top ids and the log-probs of requested targets."""

    top_ids: list[int]
    top_logprobs: list[float]
    target_logprobs: list[float]


def freeze_collector() -> None:
    """Take every object alive now out of the cyclic collector's reach (``gc.freeze``): call once, after loading.

    A loaded model leaves ~380,000 long-lived objects (imported modules, the tokenizer, the
    model) that every full collection walks again: 0.2 s each time, in half the runs of causal
    scoring of the 2,000-pair BLiMP sample with the model's compute stubbed out (host time 0.41 s
    median, 0.18 s with the collector frozen). Frozen objects freed by reference counting (models
    and tokenizers are) still go; only reference cycles among them stay until ``gc.unfreeze()``.
    """
    gc.collect()
    gc.freeze()


# The host's phases of a scoring call, as named ranges for ``torch.profiler``: tokenizing and
# building the items, running the batches, gathering the scores. The bench's ``--profile`` splits
# the GPU's idle time by them.
PHASES = ("prepare", "batch", "collect")


def phase(name: str) -> contextlib.AbstractContextManager:
    """A ``torch.profiler`` range named ``lmprobes.<name>`` (one of ``PHASES``) around host work."""
    if name not in PHASES:
        raise ValueError(f"unknown phase {name!r}; choose one of {PHASES}")
    return torch.profiler.record_function(f"lmprobes.{name}")


def run_model(module: torch.nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor | None, **kwargs: Any):
    """One forward pass; the seam that tests patch to simulate CUDA out-of-memory."""
    return module(input_ids=input_ids, attention_mask=attention_mask, **kwargs)


def attention_backends(device: torch.device) -> contextlib.AbstractContextManager:
    """The scaled-dot-product attention kernels a forward pass on ``device`` may use, in the order tried."""
    if device.type != "cuda" or CUDA_ATTENTION_BACKENDS is None:
        return contextlib.nullcontext()
    return sdpa_kernel(list(CUDA_ATTENTION_BACKENDS), set_priority=True)


@contextlib.contextmanager
def host_threads(device: torch.device) -> Iterator[None]:
    """Torch's intra-op CPU threads cut to ``CUDA_HOST_THREADS`` while scoring on a GPU, then restored."""
    before = torch.get_num_threads()
    if device.type != "cuda" or CUDA_HOST_THREADS is None or before <= CUDA_HOST_THREADS:
        yield
        return
    torch.set_num_threads(CUDA_HOST_THREADS)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@contextlib.contextmanager
def forward_mode(lm: LM) -> Iterator[None]:
    """How the scoring loops run: no autograd, ``lm``'s device's attention kernels and host threads,
    the collector paused."""
    with torch.inference_mode(), attention_backends(lm.device), host_threads(lm.device), gc_paused():
        yield


def logit_chunk_rows(lm: LM) -> int:
    """Rows per LM-head call, from the float32 logit elements one call may hold on ``lm``'s device."""
    elements = CUDA_LOGIT_CHUNK_ELEMENTS if lm.device.type == "cuda" else LOGIT_CHUNK_ELEMENTS
    return max(1, elements // vocab_size(lm))


@dataclass(frozen=True)
class RowPlan:
    """The wanted rows of all items, flat: item ``i``'s rows are ``offsets[i]:offsets[i + 1]``.

    Rows are numbered in item order, and within an item in the order of its positions.
    """

    item: np.ndarray
    position: np.ndarray
    offsets: np.ndarray
    counts: np.ndarray

    @classmethod
    def of(cls, positions: Sequence[Sequence[int]] | RowPlan) -> RowPlan:
        """The plan of per-item position lists (itself when already a plan)."""
        if isinstance(positions, RowPlan):
            return positions
        counts = np.fromiter(map(len, positions), dtype=np.int64, count=len(positions))
        return cls._from(counts, flatten(positions))

    @classmethod
    def one_each(cls, position: np.ndarray) -> RowPlan:
        """One row per item, at ``position[i]``."""
        return cls._from(np.ones(len(position), dtype=np.int64), np.asarray(position, dtype=np.int64))

    @classmethod
    def _from(cls, counts: np.ndarray, position: np.ndarray) -> RowPlan:
        return cls(item=np.repeat(np.arange(len(counts)), counts), position=position, offsets=offsets_of(counts),
                   counts=counts)

    def __len__(self) -> int:
        return len(self.position)

    def rows_of(self, items: np.ndarray) -> np.ndarray:
        """The numbers of the rows of ``items``, item after item."""
        return ranges(self.offsets[items], self.counts[items])


RowChunkFn = Callable[[torch.Tensor, np.ndarray], None]


def map_row_logprobs(
    lm: LM,
    projection: Projection,
    sequences: Sequence[Sequence[int]] | TokenTable,
    positions: Sequence[Sequence[int]] | RowPlan,
    fn: RowFn,
    *,
    pad_id: int,
    progress: bool,
    desc: str,
) -> list[list]:
    """For each sequence, ``fn``'s results at its ``positions`` (in the order given).

    ``fn`` gets float32 log-softmax rows over the full vocabulary (the raw rows when the projection
    says ``log_softmax=False``) and the matching ``Row``s and returns one result per row. Items
    without positions are not run and get an empty list.
    """
    plan = RowPlan.of(positions)
    slots: list = [None] * len(plan)

    def collect(logprobs: torch.Tensor, rows: np.ndarray) -> None:
        results = fn(logprobs, list(map(Row, plan.item[rows].tolist(), plan.position[rows].tolist())))
        if len(results) != len(rows):
            raise ValueError(f"scoring function returned {len(results)} results for {len(rows)} rows")
        for row, result in zip(rows.tolist(), results, strict=True):
            slots[row] = result

    run_rows(lm, projection, sequences, plan, collect, pad_id=pad_id, progress=progress, desc=desc)
    with phase("collect"):
        return [slots[start:stop] for start, stop in itertools.pairwise(plan.offsets.tolist())]


def run_rows(
    lm: LM,
    projection: Projection,
    sequences: Sequence[Sequence[int]] | TokenTable,
    positions: Sequence[Sequence[int]] | RowPlan,
    fn: RowChunkFn,
    *,
    pad_id: int,
    progress: bool,
    desc: str,
    backoff: Backoff | None = None,
) -> None:
    """``fn(logprobs, rows)`` for every chunk of wanted rows, ``rows`` their numbers in ``RowPlan.of(positions)``.

    The loop under ``map_row_logprobs``, with no Python object per row: ``fn`` stores by row number.
    After a CUDA out-of-memory error a batch is run again in halves, so rows already handed over
    may come again (with the same values); storing by number makes that harmless. A ``backoff``
    shared by several calls carries the smallest batch that ran out of memory from one to the next.
    """
    with phase("prepare"):
        table = as_token_table(sequences)
        plan = RowPlan.of(positions)
        lengths = np.asarray(table.lengths(), dtype=np.int64)
        check_positions(lm, table, lengths.tolist())
        holds_pad = table.holding(pad_id)
        todo = np.flatnonzero(plan.counts > 0)
    lm.model.eval()

    def run(batch: list[int]) -> list:
        needs_mask = bool(np.ptp(lengths[batch]) > 0 or holds_pad[batch].any())
        _run_batch(lm, projection, table, plan, batch, fn, pad_id, needs_mask=needs_mask)
        return []

    backoff = backoff if backoff is not None else Backoff()
    backoff.size = padded_size(lengths.tolist())
    with _progress_bar(len(lengths), progress, desc) as bar, forward_mode(lm):
        bar.update(len(lengths) - len(todo))
        for local_batch in token_budget_batches(lengths[todo], lm.batch_tokens, equal_lengths=lm.equal_length_batches):
            batch = todo[local_batch].tolist()
            with phase("batch"):
                run_halving_on_oom(batch, run, backoff)
            bar.update(len(batch))


def check_positions(lm: LM, sequences: Sequence[Sequence[int]] | TokenTable,
                    lengths: Sequence[int] | None = None) -> None:
    """Refuse, naming it, a sequence longer than the model's positions: learned position embeddings
    would fail on it with an index error, rotary ones run past the length the model was trained on.
    A tokenizer grown past the model's embeddings is refused too (``LM.check_tokenizer_fits``).
    ``lengths``: the sequences' lengths, where the caller has them already."""
    lm.check_tokenizer_fits()  # tokens may have been added to the tokenizer since the LM was built
    limit = max_positions(lm.model)
    table = as_token_table(sequences)
    lengths = table.lengths() if lengths is None else lengths
    if limit is None or not lengths or max(lengths) <= limit:
        return
    longest = int(np.argmax(lengths))
    ids, _ = table.padded([longest], 0, torch.device("cpu"))
    start = lm.tokenizer.decode(ids[0, :12].tolist())
    raise ValueError(f"{lm.name}: a sequence of {lengths[longest]} tokens ({start!r} ...) is longer than the "
                     f"{limit} positions of the model's config")


def max_positions(model: torch.nn.Module) -> int | None:
    """The longest sequence a model takes, from its config (``n_positions``, ``max_position_embeddings``),
    less the offset of RoBERTa-style positions, which start after the padding id (514 - 2 for RoBERTa)."""
    config = getattr(model, "config", None)
    count = next((value for key in ("n_positions", "max_position_embeddings")
                  if isinstance(value := getattr(config, key, None), int) and value > 0), None)  # XLNet says -1
    embeddings = getattr(getattr(model, "base_model", model), "embeddings", None)
    padding_idx = getattr(getattr(embeddings, "position_embeddings", None), "padding_idx", None)
    if count is not None and padding_idx is not None:
        count -= padding_idx + 1
    return count


@dataclass
class Backoff:
    """A memory lesson: the padded size (``size(batch)``) of the smallest batch that ran out of CUDA
    memory. A later batch as large is split before it runs, not after failing again. ``run_rows``
    sets ``size`` for its own sequences, so one lesson can serve several calls."""

    size: Callable[[list[int]], int] = len
    failed_at: float = math.inf


def run_halving_on_oom(batch: list[int], run: Callable[[list[int]], list], backoff: Backoff | None = None) -> list:
    """``run(batch)``; on CUDA out-of-memory, run each half of the batch instead (recursively).

    With a ``backoff`` shared by a loop's batches, a batch at least as large as one that failed
    is halved straight away.
    """
    backoff = backoff if backoff is not None else Backoff()
    if len(batch) > 1 and backoff.failed_at < math.inf and backoff.size(batch) >= backoff.failed_at:
        return _run_halves(batch, run, backoff)
    try:
        return run(batch)
    except torch.cuda.OutOfMemoryError:
        if len(batch) == 1:
            raise
    # Retried outside the except block so the failed attempt's tensors can be freed first.
    backoff.failed_at = min(backoff.failed_at, backoff.size(batch))
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    half = (len(batch) + 1) // 2
    logger.warning(
        "CUDA out of memory on a batch of %d items; retrying as batches of %d and %d "
        "(later batches as large are split first)",
        len(batch),
        half,
        len(batch) - half,
    )
    return _run_halves(batch, run, backoff)


def _run_halves(batch: list[int], run: Callable[[list[int]], list], backoff: Backoff) -> list:
    half = (len(batch) + 1) // 2
    return run_halving_on_oom(batch[:half], run, backoff) + run_halving_on_oom(batch[half:], run, backoff)


def gathered(stored: Sequence[tuple[np.ndarray, torch.Tensor]], size: int) -> np.ndarray:
    """A float64 array of ``size`` (nan where nothing was stored) with each ``(index, values)`` written
    in turn, values brought from the device in one copy. An index may come twice (a batch rerun
    after running out of memory): the same values, written again."""
    out = np.full(size, math.nan)
    if stored:
        index = np.concatenate([index for index, _ in stored])
        out[index] = torch.cat([values.reshape(-1).float() for _, values in stored]).cpu().numpy()
    return out


def padded_size(lengths: Sequence[int]) -> Callable[[list[int]], int]:
    """The padded token count of a batch of the items with these ``lengths``."""

    def size(batch: list[int]) -> int:
        return len(batch) * max((lengths[i] for i in batch), default=0)

    return size


def _progress_bar(total: int, progress: bool, desc: str) -> tqdm:
    return tqdm(total=total, disable=not progress, file=sys.stderr, desc=desc, unit="item", leave=False)


def _run_batch(
    lm: LM,
    projection: Projection,
    table: TokenTable,
    plan: RowPlan,
    batch: list[int],
    fn: RowChunkFn,
    pad_id: int,
    *,
    needs_mask: bool,
) -> None:
    """``fn`` over the wanted rows of the items in ``batch``, chunk by chunk (``needs_mask``: see ``logits_at_rows``)."""
    input_ids, attention_mask = table.padded(batch, pad_id, lm.device)
    items = np.asarray(batch, dtype=np.int64)
    rows = plan.rows_of(items)
    batch_index = to_device(np.repeat(np.arange(len(batch)), plan.counts[items]), lm.device)
    position_index = to_device(plan.position[rows], lm.device)
    start = 0
    row_logits = logits_at_rows(lm, projection, input_ids, attention_mask, batch_index, position_index,
                             needs_mask=needs_mask)
    for logits in row_logits:
        fn(logits.float().log_softmax(dim=-1) if projection.log_softmax else logits.float(),
           rows[start : start + logits.shape[0]])
        start += logits.shape[0]


def logits_at_rows(
    lm: LM,
    projection: Projection,
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor | None,
    batch_index: torch.Tensor,
    position_index: torch.Tensor,
    *,
    needs_mask: bool = True,
) -> Iterator[torch.Tensor]:
    """Vocabulary logits at the gathered rows, in chunks of bounded size.

    The model and a rows-only tail get no mask unless ``needs_mask``: the batch is padded, or a
    sequence holds the pad id itself (XLM and Flaubert, given no mask, mask every pad id), both
    known on the host. Given a mask, transformers asks the device whether it holds any padding,
    which makes the host wait until the GPU has run every batch queued before this one: the host
    could then not prepare the next batch while the GPU runs this one.
    """
    chunk = logit_chunk_rows(lm)
    mask = attention_mask if needs_mask else None
    if projection.full_forward:
        output = run_model(lm.model, input_ids, mask, **projection.forward_kwargs)
        yield from output.logits[batch_index, position_index].split(chunk)
        return
    hidden = run_model(projection.base, input_ids, mask, **projection.forward_kwargs)[0]
    if projection.tail is None:
        rows = hidden[batch_index, position_index]
    else:
        rows = projection.tail(hidden, mask, batch_index, position_index)
    for chunk_rows in rows.split(chunk):
        yield projection.head(chunk_rows)


def predict_items(targets: Sequence[Sequence[int]] | None, top_k: int) -> ItemFn:
    """An item function that turns each log-prob row into a ``TokenPrediction``."""

    def predict(logprobs: torch.Tensor, items: list[int]) -> list[TokenPrediction]:
        tops = top_k_low_id_first(logprobs, top_k)
        wanted = [targets[item] if targets is not None else [] for item in items]
        return [
            TokenPrediction(top_ids=[token for token, _ in top], top_logprobs=[value for _, value in top],
                            target_logprobs=values)
            for top, values in zip(tops, target_logprobs(logprobs, wanted), strict=True)
        ]

    return predict


# Ranks beyond k that ``top_k_low_id_first`` asks ``topk`` for, to see the ties at the k-th value.
TIE_SLACK = 3


def top_k_low_id_first(logprobs: torch.Tensor, k: int) -> list[list[tuple[int, float]]]:
    """Per row, the ``k`` best ``(id, logprob)`` pairs, by log-prob descending, ties to the lower id.

    ``torch.topk`` leaves the order of ties unspecified, so every id reaching the k-th value is
    collected and sorted explicitly. They are all among the ``k + TIE_SLACK`` best unless the last
    of those reaches the k-th value too, and only such rows are scanned whole: scanning every row
    cost as much as ``topk`` itself.
    """
    vocab = logprobs.shape[-1]
    k = min(k, vocab)
    if k <= 0:
        return [[] for _ in range(logprobs.shape[0])]
    values, ids = logprobs.topk(min(k + TIE_SLACK, vocab), dim=-1)
    kth = values[:, k - 1]
    seen_all = values[:, -1] < kth if values.shape[1] < vocab else torch.ones_like(kth, dtype=torch.bool)
    best = zip(ids.tolist(), values.tolist(), kth.tolist(), seen_all.tolist(), strict=True)
    candidates = [[(token, value) for token, value in zip(row_ids, row_values) if value >= threshold] if whole else None
                  for row_ids, row_values, threshold, whole in best]
    scan = [row for row, pairs in enumerate(candidates) if pairs is None]
    if scan:
        for row, pairs in zip(scan, _reaching(logprobs[scan], kth[scan]), strict=True):
            candidates[row] = pairs
    return [sorted(pairs, key=lambda p: (-p[1], p[0]))[:k] for pairs in candidates]


def _reaching(logprobs: torch.Tensor, threshold: torch.Tensor) -> list[list[tuple[int, float]]]:
    """Per row, every ``(id, logprob)`` whose log-prob reaches the row's ``threshold``, by id."""
    rows, ids = (logprobs >= threshold[:, None]).nonzero(as_tuple=True)
    pairs: list[list[tuple[int, float]]] = [[] for _ in range(logprobs.shape[0])]
    for row, token, value in zip(rows.tolist(), ids.tolist(), logprobs[rows, ids].tolist(), strict=True):
        pairs[row].append((token, value))
    return pairs


def target_logprobs(logprobs: torch.Tensor, ids: Sequence[Sequence[int]]) -> list[list[float]]:
    """``logprobs[r, id]`` for each id of row ``r``'s list (one gather for all rows); nan for -1
    (a target the caller could not resolve)."""
    counts = [len(row_ids) for row_ids in ids]
    flat = flatten(ids)
    if not len(flat):
        return [[] for _ in ids]
    rows = to_device(np.repeat(np.arange(len(ids)), counts), logprobs.device)
    values = logprobs[rows, to_device(np.maximum(flat, 0), logprobs.device)].tolist()
    values = [value if t >= 0 else math.nan for t, value in zip(flat.tolist(), values, strict=True)]
    return split_lists(values, counts)


def check_targets(targets: Sequence[Sequence[int]] | None, n_items: int, n_vocab: int) -> None:
    """Raise ValueError unless there is one target list per item, each id in range or -1."""
    if targets is None:
        return
    if len(targets) != n_items:
        raise ValueError(f"got {len(targets)} target lists for {n_items} items")
    for index, ids in enumerate(targets):
        bad = [t for t in ids if not (t == -1 or 0 <= t < n_vocab)]
        if bad:
            raise ValueError(f"item {index}: target ids {bad} are outside the vocabulary (size {n_vocab}) and not -1")


def vocab_size(lm: LM) -> int:
    """Size of the model's output distribution."""
    head = lm.model.get_output_embeddings()
    weight = getattr(head, "weight", None)
    if weight is not None:
        return int(weight.shape[0])
    return int(lm.model.config.vocab_size)
