"""Prefix-tree packing of causal sequences: the tree, the masks, and equality with a plain loop."""

from __future__ import annotations

import dataclasses
import types

import numpy as np
import pytest
import torch
from model_zoo import random_model

from lmprobes.engine import packing, sequence_logprobs
from lmprobes.engine.fusion import fuse_activations
from lmprobes.engine.lm import LM
from lmprobes.engine.packing import PACKABLE, PackedRow, can_pack, pack

run_rows = packing._run_rows

TEXTS = [
    "The cat sat on the mat.",
    "The cat sat on a mat.",
    "The cat sat.",
    "The dog ran.",
    "The dog ran.",
    "A",
    "Who is there?",
    "The cat sat on the mat. " * 4,
]


def distinct_prefixes(sequences: list[list[int]]) -> int:
    return len({tuple(s[: i + 1]) for s in sequences for i in range(len(s))})


def test_one_row_holds_each_distinct_prefix_once():
    sequences = [[1, 2, 3], [1, 2, 4], [1, 5], [1, 2, 3], [7]]
    packing = pack(sequences, row_tokens=100)
    assert len(packing) == 1
    row = packing.row(0)
    assert len(row.tokens) == distinct_prefixes(sequences) == 6
    for index, sequence in enumerate(sequences):
        nodes = packing.nodes_of(index)
        assert [row.tokens[k] for k in nodes] == sequence
        assert [row.depth[k] for k in nodes] == list(range(len(sequence)))


def test_rows_respect_their_size_and_a_long_sequence_gets_its_own_row():
    sequences = [[1, 2, 3, 4], [1, 2, 3, 5], [2, 2, 2, 2], [9] * 12, [3, 1]]
    packing = pack(sequences, row_tokens=6)
    sizes = packing.row_lengths().tolist()
    assert all(size <= 6 for size in sizes if size != 12)
    assert 12 in sizes
    for index, sequence in enumerate(sequences):
        row = packing.row(packing.home[index])
        assert [row.tokens[k] for k in packing.nodes_of(index)] == sequence


def plain_pack(sequences: list[list[int]], row_tokens: int) -> tuple[list[PackedRow], list[int], list[list[int]]]:
    """The reference: a trie walk in sorted order, one token at a time, closing subtrees as it goes."""
    rows: list[PackedRow] = []
    home, nodes = [0] * len(sequences), [[] for _ in sequences]
    path: list[int] = []
    previous: list[int] = []

    def close(row: PackedRow, keep: int) -> None:
        for node in path[keep:]:
            row.ends[node] = len(row.tokens)
        del path[keep:]

    for index in sorted(range(len(sequences)), key=lambda i: sequences[i]):
        sequence = sequences[index]
        shared = 0
        while rows and shared < min(len(previous), len(sequence)) and previous[shared] == sequence[shared]:
            shared += 1
        if not rows or len(rows[-1].tokens) + len(sequence) - shared > row_tokens:
            if rows:
                close(rows[-1], 0)
            rows.append(PackedRow())
            shared = 0
        row = rows[-1]
        close(row, shared)
        for depth in range(shared, len(sequence)):
            path.append(len(row.tokens))
            row.tokens.append(sequence[depth])
            row.depth.append(depth)
            row.ends.append(-1)
        home[index], nodes[index], previous = len(rows) - 1, list(path), sequence
    if rows:
        close(rows[-1], 0)
    return rows, home, nodes


@pytest.mark.parametrize("seed", range(6))
def test_pack_equals_a_plain_trie_walk(seed):
    """The array-built packing equals the token-by-token walk: rows, depths, subtree ends, homes,
    nodes; with duplicates, empty sequences, prefixes of others and sequences longer than a row."""
    generator = torch.Generator().manual_seed(seed)
    count = int(torch.randint(0, 60, (1,), generator=generator))
    sequences = [torch.randint(0, 4, (int(n),), generator=generator).tolist()
                 for n in torch.randint(0, 10, (count,), generator=generator)]
    for row_tokens in (1, 4, 9, 23, 128):
        rows, home, nodes = plain_pack(sequences, row_tokens)
        packing = pack(sequences, row_tokens)
        assert [packing.row(r) for r in range(len(packing))] == rows
        assert packing.home.tolist() == home
        assert [packing.nodes_of(i) for i in range(len(sequences))] == nodes


def subtree_ends(row: PackedRow) -> list[int]:
    """The plain reference: one past the last node of each node's subtree, by a stack walk over the depths."""
    ends = [len(row.tokens)] * len(row.tokens)
    open_nodes: list[int] = []
    for k, d in enumerate(row.depth):
        while open_nodes and row.depth[open_nodes[-1]] >= d:
            ends[open_nodes.pop()] = k
        open_nodes.append(k)
    return ends


def test_subtree_ends_follow_depth_first_order():
    # root a(0) with children b(1) -> c(2), and d(3); then a second root e(4)
    row = pack([[10, 11, 12], [10, 13], [14]], row_tokens=100).row(0)
    assert (row.tokens, row.depth) == ([10, 11, 12, 13, 14], [0, 1, 2, 1, 0])
    assert row.ends == subtree_ends(row) == [4, 3, 3, 4, 5]


def test_the_batch_mask_lets_each_node_see_exactly_its_ancestors():
    """``pack`` finds each node's subtree end as it fills a row (equal to the stack walk over the
    depths), and the batch mask lets key ``j`` be seen from ``j..end[j]-1`` only (padding sees
    itself only), over rows of many shapes and widths."""
    generator = torch.Generator().manual_seed(0)
    sequences = [torch.randint(0, 3, (int(n),), generator=generator).tolist()
                 for n in torch.randint(1, 9, (120,), generator=generator)]
    packed = pack(sequences, row_tokens=23)
    rows = [packed.row(r) for r in range(len(packed))]
    assert len(rows) > 5 and all(row.ends == subtree_ends(row) for row in rows)
    on_cpu = types.SimpleNamespace(device=torch.device("cpu"), dtype=torch.float32)  # all it reads of an LM
    input_ids, position_ids, mask = packing._batch_tensors(packed, list(range(len(packed))), -5, on_cpu)
    width = max(len(row.tokens) for row in rows)
    for b, row in enumerate(rows):
        n, ends = len(row.tokens), subtree_ends(row)
        expected = torch.eye(width, dtype=torch.bool)
        for key in range(n):
            expected[key : ends[key], key] = True
        assert torch.equal(mask[b, 0] == 0, expected)
        assert input_ids[b].tolist() == row.tokens + [-5] * (width - n)
        assert position_ids[b].tolist() == row.depth + [0] * (width - n)
    assert set(mask.unique().tolist()) == {0.0, torch.finfo(torch.float32).min}


def plain_logprobs(lm: LM, texts: list[str]) -> list[list[float]]:
    """One full forward per sentence (BOS + tokens), log-softmax of every row: no engine code."""
    out = []
    with torch.inference_mode():
        for text in texts:
            ids = [lm.tokenizer.bos_token_id] + lm.tokenizer(text, add_special_tokens=False)["input_ids"]
            logits = lm.model(input_ids=torch.tensor([ids])).logits[0].float().log_softmax(-1)
            out.append([logits[p, ids[p + 1]].item() for p in range(len(ids) - 1)])
    return out


def assert_close(scores, expected, tol=1e-5):
    for score, values in zip(scores, expected, strict=True):
        assert len(score.token_logprobs) == len(values)
        assert max((abs(a - b) for a, b in zip(score.token_logprobs, values)), default=0.0) < tol


@pytest.mark.parametrize("budget", [16, 64, 4096])
def test_packed_scores_equal_a_plain_forward_per_sentence(tiny_gpt2, budget):
    lm = dataclasses.replace(tiny_gpt2, batch_tokens=budget)
    assert can_pack(lm)
    assert_close(sequence_logprobs(lm, TEXTS, progress=False), plain_logprobs(lm, TEXTS))


def test_batches_of_several_packed_rows_score_as_a_plain_forward(tiny_gpt2, monkeypatch):
    """Rows of a batch are padded to its widest: each row's nodes are read at its own offset."""
    batches = []

    def run_and_note_rows(lm, projection, packed, wanted, batch, pad_id):
        batches.append(packed.row_lengths()[batch].tolist())
        return run_rows(lm, projection, packed, wanted, batch, pad_id)

    monkeypatch.setattr(packing, "_run_rows", run_and_note_rows)
    monkeypatch.setattr(packing, "ROW_TOKENS", 16)
    lm = dataclasses.replace(tiny_gpt2, batch_tokens=4096)
    assert_close(sequence_logprobs(lm, TEXTS, progress=False), plain_logprobs(lm, TEXTS))
    assert any(len(rows) > 2 and len(set(rows)) > 1 for rows in batches), "batches of several rows, of several widths"


def test_packed_and_padded_paths_agree(tiny_gpt2):
    packed = sequence_logprobs(tiny_gpt2, TEXTS, policy="bos_eos", progress=False)
    padded = sequence_logprobs(dataclasses.replace(tiny_gpt2, packing="none"), TEXTS, policy="bos_eos", progress=False)
    for a, b in zip(packed, padded, strict=True):
        assert a.token_ids == b.token_ids
        assert a.total == pytest.approx(b.total, abs=1e-4)


def test_an_empty_sequence_scores_nothing_and_its_row_is_not_run(tiny_gpt2, monkeypatch):
    """With no BOS an empty text is a sequence of no tokens: sorted first, it opened a row of width 0
    that reached the model (a reshape error); rows nothing is wanted from are skipped."""
    widths = []

    def run_and_note_width(lm, projection, packed, wanted, batch, pad_id):
        widths.append(int(packed.row_lengths()[batch].min()))
        return run_rows(lm, projection, packed, wanted, batch, pad_id)

    monkeypatch.setattr(packing, "_run_rows", run_and_note_width)
    monkeypatch.setattr(packing, "ROW_TOKENS", 4)  # the sentence gets a row of its own; the empty one's is empty
    texts = ["", TEXTS[0]]
    packed = sequence_logprobs(tiny_gpt2, texts, policy="none", progress=False)
    padded = sequence_logprobs(dataclasses.replace(tiny_gpt2, packing="none"), texts, policy="none", progress=False)
    assert [s.token_ids for s in packed] == [s.token_ids for s in padded] and packed[0].token_ids == []
    assert packed[1].total == pytest.approx(padded[1].total, abs=1e-4)
    assert widths and min(widths) > 0
    assert sequence_logprobs(tiny_gpt2, [""], policy="none", progress=False)[0].token_logprobs == []


def tiny_causal(tokenizer, model_type: str) -> torch.nn.Module:
    return random_model(model_type, tokenizer, "causal")


@pytest.mark.parametrize("model_type", sorted(PACKABLE))
def test_every_packable_architecture_scores_as_a_plain_forward(tiny_gpt2, model_type, monkeypatch):
    """Packed rows hold several sentences (shared prefixes, positions by depth): the same numbers."""
    model = tiny_causal(tiny_gpt2.tokenizer, model_type)
    lm = LM(name=model_type, model=model, tokenizer=tiny_gpt2.tokenizer, family="causal", batch_tokens=64)
    assert can_pack(lm)
    widths = []

    def run_and_note_width(lm, projection, packed, wanted, batch, pad_id):
        widths.append(int(packed.row_lengths()[batch].max()))
        return run_rows(lm, projection, packed, wanted, batch, pad_id)

    monkeypatch.setattr(packing, "_run_rows", run_and_note_width)
    assert_close(sequence_logprobs(lm, TEXTS[:7], progress=False), plain_logprobs(lm, TEXTS[:7]))
    assert widths and max(widths) > 14, "sentences share packed rows"


def test_packing_modes(tiny_gpt2):
    assert not can_pack(dataclasses.replace(tiny_gpt2, packing="none"))
    model = tiny_causal(tiny_gpt2.tokenizer, "llama")
    model.config.model_type = "bloom"  # ALiBi from the 2-D mask: not packable
    lm = LM(name="other", model=model, tokenizer=tiny_gpt2.tokenizer, family="causal")
    assert not can_pack(lm)
    with pytest.raises(ValueError, match="packing 'trie'.*'bloom'"):
        can_pack(dataclasses.replace(lm, packing="trie"))


def test_fused_gelu_matches_gpt2s_python_gelu():
    from transformers import GPT2Config, GPT2LMHeadModel
    from transformers.activations import GELUTanh, NewGELUActivation

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(n_embd=32, n_layer=1, n_head=2, vocab_size=100)).eval()
    original = model.transformer.h[0].mlp.act
    assert type(original) is NewGELUActivation
    x = torch.linspace(-8, 8, 1001)
    expected = original(x)
    fuse_activations(model)
    assert type(model.transformer.h[0].mlp.act) is GELUTanh
    assert torch.allclose(model.transformer.h[0].mlp.act(x), expected, atol=1e-6)


def test_packed_scores_do_not_depend_on_how_the_head_rows_are_chunked(tiny_gpt2, monkeypatch):
    from lmprobes.engine import runner

    monkeypatch.setattr(runner, "LOGIT_CHUNK_ELEMENTS", 5 * tiny_gpt2.model.config.vocab_size)  # 5 head rows a chunk
    lm = dataclasses.replace(tiny_gpt2, batch_tokens=4096)
    assert_close(sequence_logprobs(lm, TEXTS, progress=False), plain_logprobs(lm, TEXTS))


def test_wanted_log_probs_are_asked_once_per_node_and_next_token():
    from lmprobes.engine.packing import wanted_log_probs

    sequences = [[1, 2, 3], [1, 2, 3], [1, 2, 4], [5, 6]]
    positions = [[0, 1], [0, 1], [1], [0]]
    packing = pack(sequences, row_tokens=100)
    wanted = wanted_log_probs(packing, positions)
    row = packing.row(0)
    asked = list(zip(wanted.node[wanted.offsets[0] : wanted.offsets[1]].tolist(),
                     wanted.target[wanted.offsets[0] : wanted.offsets[1]].tolist(), strict=True))
    assert len(asked) == len(set(asked)) == 4  # (1->2), (1,2->3), (1,2->4), (5->6)
    per_sequence = np.split(wanted.index, np.cumsum(wanted.counts)[:-1])
    for sequence, at, where in zip(sequences, positions, per_sequence, strict=True):
        for p, k in zip(at, where.tolist(), strict=True):
            node, target = asked[k]
            assert target == sequence[p + 1]
            assert row.depth[node] == p and row.tokens[node] == sequence[p]
    assert per_sequence[0].tolist() == per_sequence[1].tolist()
    with pytest.raises(ValueError, match="sequence 3: position 1 has no next token"):
        wanted_log_probs(packing, [[0], [0], [0], [1]])


@pytest.mark.parametrize(("model_type", "key"), [("mistral", "sliding_window"), ("gpt_neo", "window_size"),
                                                 ("gemma3_text", "sliding_window")])
def test_a_window_narrower_than_the_rows_falls_back_to_padding(tiny_gpt2, model_type, key, monkeypatch):
    """transformers drops sliding windows given a 4-D mask and GPT-Neo counts row positions: packing
    would let a token see past its window, so such models are padded (which keeps the window)."""
    model = random_model(model_type, tiny_gpt2.tokenizer, "causal", **{key: 4})
    lm = LM(name=model_type, model=model, tokenizer=tiny_gpt2.tokenizer, family="causal", batch_tokens=64)
    assert can_pack(lm) and packing.attention_window(lm) == 4
    wide = random_model(model_type, tiny_gpt2.tokenizer, "causal", **{key: 256})
    narrow = plain_logprobs(lm, TEXTS[:7])
    unwindowed = plain_logprobs(dataclasses.replace(lm, model=wide), TEXTS[:7])
    assert not np.allclose(np.concatenate(narrow), np.concatenate(unwindowed), atol=1e-3), "the window is in force"
    rows = []
    monkeypatch.setattr(packing, "_run_rows", lambda *args, **kwargs: rows.append(1) or run_rows(*args, **kwargs))
    assert_close(sequence_logprobs(lm, TEXTS[:7], progress=False), narrow)
    assert not rows, "not packed"


def test_a_window_wider_than_every_sentence_but_narrower_than_a_packed_row_falls_back_to_padding(tiny_gpt2, monkeypatch):
    """GPT-Neo's local window counts row positions, and a row packs several sentences: a window that
    holds every sentence but not a whole row would hide a later sentence's first tokens from it."""
    longest = 1 + max(len(tiny_gpt2.tokenizer(text)["input_ids"]) for text in TEXTS[:7])  # with the BOS
    model = random_model("gpt_neo", tiny_gpt2.tokenizer, "causal", window_size=longest)
    lm = LM(name="gpt_neo", model=model, tokenizer=tiny_gpt2.tokenizer, family="causal", batch_tokens=64)
    assert pack([[1] * longest] * 2 + [[2] * longest]).row_lengths().tolist() == [2 * longest]  # a row is wider
    rows = []
    monkeypatch.setattr(packing, "_run_rows", lambda *args, **kwargs: rows.append(1) or run_rows(*args, **kwargs))
    assert_close(sequence_logprobs(lm, TEXTS[:7], progress=False), plain_logprobs(lm, TEXTS[:7]))
    assert not rows, "not packed"


def test_windows_wider_than_every_row_and_sequence_still_pack(tiny_gpt2):
    model = tiny_causal(tiny_gpt2.tokenizer, "mistral")
    model.config.sliding_window = 4096
    lm = LM(name="mistral", model=model, tokenizer=tiny_gpt2.tokenizer, family="causal")
    assert packing.fits_attention_window(lm, [[1] * 200])
    assert not packing.fits_attention_window(lm, [[1] * 5000])
    model.config.use_sliding_window = False  # Qwen2-style: the window is configured but off
    model.config.sliding_window = 4
    assert packing.attention_window(lm) is None
