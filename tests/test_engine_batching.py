"""Token-budget batching."""

from __future__ import annotations

import pytest

from lmprobes.engine import token_budget_batches
from lmprobes.engine.batching import pad_right


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


def test_empty_input() -> None:
    assert token_budget_batches([], 100) == []


def test_pad_right_masks_padding() -> None:
    import torch

    ids, mask = pad_right([[5, 6, 7], [8]], pad_id=0, device=torch.device("cpu"))
    assert ids.tolist() == [[5, 6, 7], [8, 0, 0]]
    assert mask.tolist() == [[1, 1, 1], [1, 0, 0]]
