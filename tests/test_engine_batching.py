"""Token-budget batching."""

from __future__ import annotations

import numpy as np
import pytest

from lmprobes.engine import token_budget_batches
from lmprobes.engine.batching import offsets_of, pad_right, ranges, sort_order


def flatten(batches: list[list[int]]) -> list[int]:
    return [i for batch in batches for i in batch]


@pytest.mark.parametrize("budget", [1, 10, 37, 100, 10_000])
def test_every_index_once_and_budget_respected(budget: int) -> None:
    lengths = [5, 12, 3, 12, 7, 1, 9, 9, 30, 2, 12]
    batches = token_budget_batches(lengths, budget)
    assert sorted(flatten(batches)) == list(range(len(lengths)))
    for batch in batches:
        assert batch, "no empty batches"
        padded = max(lengths[i] for i in batch)
        assert len(batch) == 1 or len(batch) * padded <= budget


def test_order_is_length_descending_with_ties_by_index() -> None:
    lengths = [4, 8, 4, 8, 1, 4]
    order = flatten(token_budget_batches(lengths, 16))
    assert order == [1, 3, 0, 2, 5, 4]
    for batch in token_budget_batches(lengths, 16):
        assert lengths[batch[0]] == max(lengths[i] for i in batch)


def test_oversize_item_gets_its_own_batch() -> None:
    batches = token_budget_batches([50, 3, 3], 10)
    assert batches == [[0], [1, 2]]


def test_batches_are_filled_greedily() -> None:
    assert token_budget_batches([4] * 10, 16) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def greedy_per_item(lengths: list[int], budget: int, equal_lengths: bool) -> list[list[int]]:
    """The plain algorithm: walk the length-sorted items, adding each to the open batch while it fits."""
    batches: list[list[int]] = []
    for index in sorted(range(len(lengths)), key=lambda i: (-lengths[i], i)):
        open_batch = batches[-1] if batches else None
        fits = open_batch is not None and (len(open_batch) + 1) * max(lengths[open_batch[0]], 1) <= budget
        same = open_batch is not None and (not equal_lengths or lengths[open_batch[0]] == lengths[index])
        if fits and same:
            open_batch.append(index)
        else:
            batches.append([index])
    return batches


@pytest.mark.parametrize("equal_lengths", [False, True])
@pytest.mark.parametrize("budget", [1, 7, 64, 4_096])
def test_batches_are_the_plain_per_item_greedy(budget: int, equal_lengths: bool) -> None:
    rng = np.random.default_rng(budget)
    lengths = rng.integers(0, 40, 3_000).tolist() + [200, 0, 0]
    assert token_budget_batches(lengths, budget, equal_lengths=equal_lengths) == greedy_per_item(
        lengths, budget, equal_lengths)


def test_empty_input() -> None:
    assert token_budget_batches([], 100) == []


def test_pad_right_masks_padding() -> None:
    import torch

    ids, mask = pad_right([[5, 6, 7], [8]], pad_id=0, device=torch.device("cpu"))
    assert ids.tolist() == [[5, 6, 7], [8, 0, 0]]
    assert mask.tolist() == [[1, 1, 1], [1, 0, 0]]


@pytest.mark.parametrize("high", [3, 50_000, 2**40])
def test_sort_order_is_lexsorts_with_ties_kept_in_input_order(high):
    rng = np.random.default_rng(0)
    keys = [rng.integers(0, high, 5_000) for _ in range(3)]  # 2**40 cubed overflows: lexsort itself
    keys[1][:100] = keys[1][100:200]  # whole-key ties
    keys[0][:100], keys[2][:100] = keys[0][100:200], keys[2][100:200]
    order = sort_order(*keys)
    assert order.tolist() == np.lexsort(keys[::-1]).tolist()
    rows = np.stack(keys, axis=1)[order]
    assert all(tuple(a) <= tuple(b) for a, b in zip(rows[:-1].tolist(), rows[1:].tolist(), strict=True))


def test_sort_order_of_negative_empty_and_full_width_keys():
    keys = [np.array([1, -1, 1, 0]), np.array([5, 2, -3, 2])]
    assert sort_order(*keys).tolist() == np.lexsort(keys[::-1]).tolist() == [1, 3, 2, 0]
    assert sort_order(np.array([], dtype=np.int64), np.array([], dtype=np.int64)).tolist() == []
    rng = np.random.default_rng(1)
    size = rng.integers(3, 9, 4_000)
    digest = rng.integers(0, 50, 4_000).astype(np.uint64) * np.uint64(2**58)  # hashes: all 64 bits, ties
    big = rng.integers(-(2**40), 2**40, 4_000)
    assert sort_order(size, digest).tolist() == np.lexsort((digest, size)).tolist()
    small = (digest >> np.uint64(58)).astype(np.uint64)  # unsigned but narrow: folded into one key
    assert sort_order(size, small).tolist() == np.lexsort((small, size)).tolist()
    assert sort_order(big, size).tolist() == np.lexsort((size, big)).tolist()


@pytest.mark.parametrize("high", [2**15 - 1, 2**15, 2**16 - 1, 2**16])
def test_sort_order_narrows_keys_to_int16_only_where_they_fit(high):
    """Keys up to and just past int16's range, folded (non-negative) and key by key (one negative value)."""
    rng = np.random.default_rng(2)
    key = rng.integers(0, high + 1, 3_000)
    key[:2] = [high, 0]
    signed = np.append(key, -1)
    assert sort_order(key).tolist() == np.argsort(key, kind="stable").tolist()
    assert sort_order(signed).tolist() == np.argsort(signed, kind="stable").tolist()
    assert sort_order(key, key[::-1].copy()).tolist() == np.lexsort((key[::-1], key)).tolist()


@pytest.mark.parametrize("counts", [[], [0], [3, 0, 2, 5], [1] * 7])
def test_offsets_and_ranges_are_the_plain_cumulative_sums_and_aranges(counts):
    counts = np.array(counts, dtype=np.int64)
    plain = [0]
    for c in counts.tolist():
        plain.append(plain[-1] + c)
    assert offsets_of(counts).dtype == np.int64 and offsets_of(counts).tolist() == plain
    assert offsets_of(counts.tolist()).tolist() == plain
    starts = np.arange(len(counts), dtype=np.int64) * 10
    expected = [s + k for s, c in zip(starts.tolist(), counts.tolist(), strict=True) for k in range(c)]
    assert ranges(starts, counts).tolist() == expected
