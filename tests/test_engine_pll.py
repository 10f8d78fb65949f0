"""Pseudo-log-likelihood against a plain loop: one full forward per masked copy."""

from __future__ import annotations

import copy
import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from lmprobes.engine import pseudo_log_likelihoods

SENTENCES = [
    "Katherine can't help herself.",
    "The cat sat on the mat.",
    "Some dog stunned these committee.",
    "He was reading a long book about the history of science in the old library, while the children played.",
    "Dogs run.",
    "A zebra ☃ is a bird.",
]


def plain_pll(lm, text: str, variant: str) -> tuple[list[int], list[float]]:
    """Mask each ordinary token (and, for l2r, the rest of its word) and run one forward per copy.

    Ordinary: a token with a word id whose id is no special token's, the unknown token's aside
    (a special token written in the text gets a word id, and stays as it is in every copy)."""
    enc = lm.tokenizer(text)
    ids, words = enc["input_ids"], enc.word_ids()
    specials = set(lm.tokenizer.all_special_ids) - {lm.tokenizer.unk_token_id}
    token_ids, values = [], []
    for i, word in enumerate(words):
        if word is None or ids[i] in specials:
            continue
        copy = list(ids)
        copy[i] = lm.tokenizer.mask_token_id
        if variant == "within_word_l2r":
            for j in range(i + 1, len(ids)):
                if words[j] == word:
                    copy[j] = lm.tokenizer.mask_token_id
        with torch.no_grad():
            logits = lm.model(torch.tensor([copy])).logits[0, i]
        token_ids.append(ids[i])
        values.append(torch.log_softmax(logits.float(), dim=-1)[ids[i]].item())
    return token_ids, values


def last_piece_of_word(lm, text: str) -> list[bool]:
    """Per ordinary token: is it the last piece of its word?"""
    words = lm.tokenizer(text).word_ids()
    return [w is not None and (i + 1 == len(words) or words[i + 1] != w) for i, w in enumerate(words) if w is not None]


@pytest.mark.parametrize("model", ["tiny_bert", "tiny_roberta"])
@pytest.mark.parametrize("variant", ["original", "within_word_l2r"])
def test_equals_a_plain_loop_over_masked_copies(model, variant, request) -> None:
    lm = request.getfixturevalue(model)
    scores = pseudo_log_likelihoods(lm, SENTENCES, variant=variant, progress=False)
    for text, score in zip(SENTENCES, scores, strict=True):
        token_ids, values = plain_pll(lm, text, variant)
        assert score.token_ids == token_ids
        assert score.token_logprobs == pytest.approx(values, abs=1e-5)
        assert score.total == pytest.approx(math.fsum(values), abs=1e-4)


@pytest.mark.parametrize("model", ["tiny_bert", "tiny_roberta"])
@pytest.mark.parametrize("variant", ["original", "within_word_l2r"])
def test_special_tokens_written_in_the_text_are_neither_masked_nor_scored(model, variant, request) -> None:
    """"a [SEP] b", a [MASK] or a <pad> in the text: those ids stay in every copy, never a target; the
    unknown token, written or not, is scored like text (a suite must see it among the scored ids)."""
    lm = request.getfixturevalue(model)
    tok = lm.tokenizer
    texts = [f"The cat {tok.sep_token} sat.", f"A {tok.mask_token} sat on the mat.",
             f"{tok.cls_token} the {tok.pad_token} dog.", f"{tok.bos_token or tok.cls_token} a dog {tok.eos_token or tok.sep_token}"]
    unknown = [f"A {tok.unk_token} sat.", "A zebra ☃ is a bird."]  # byte-level BPE spells ☃ in bytes
    specials = set(tok.all_special_ids) - {tok.unk_token_id}
    scores = pseudo_log_likelihoods(lm, texts + unknown, variant=variant, progress=False)
    assert tok.unk_token_id in scores[len(texts)].token_ids
    for text, score in zip(texts + unknown, scores, strict=True):
        written = tok(text, add_special_tokens=False)["input_ids"]
        assert (text in unknown) == (not specials & set(written)), text
        assert (tok.unk_token_id in score.token_ids) == (tok.unk_token_id in written), text
        assert not specials & set(score.token_ids)
        assert score.token_ids == [t for t in written if t not in specials]
        token_ids, values = plain_pll(lm, text, variant)
        assert score.token_ids == token_ids
        assert score.token_logprobs == pytest.approx(values, abs=1e-5)


def test_texts_that_spell_no_special_token_keep_every_word_piece_scored() -> None:
    """The rule for written special tokens leaves ordinary text alone: real BLiMP sentences under the real
    bert-base-cased WordPiece give the same copies with it and without it."""
    from lmprobes.engine import pll
    from lmprobes.engine.batching import flatten
    from lmprobes.suites.blimp.bench import load_bert_tokenizer
    from lmprobes.suites.blimp.dataset import build_blimp

    tokenizer = load_bert_tokenizer(Path(__file__).parent / "data" / "bert-base-cased")
    pairs = build_blimp(sorted((Path(__file__).parent / "data" / "blimp").glob("*.jsonl")))
    texts = pairs["sentence_good"].tolist() + pairs["sentence_bad"].tolist()
    sequences, words = pll.encode_ids_and_words(tokenizer, texts)
    unscored = np.isin(flatten(sequences), pll.special_ids_not_scored(tokenizer))
    for variant in ("original", "within_word_l2r"):
        with_rule, without = pll.copy_spans(words, variant, unscored), pll.copy_spans(words, variant)
        assert all(np.array_equal(a, b) for a, b in zip(with_rule, without, strict=True))
        assert len(without[0]) == sum(len(ids) - 2 for ids in sequences)


@pytest.mark.parametrize("model", ["tiny_bert", "tiny_roberta"])
def test_l2r_differs_only_on_non_final_pieces_of_multi_piece_words(model, request, with_budget) -> None:
    # One copy per forward pass: a copy that is the same under both variants gives the same bits.
    lm = with_budget(request.getfixturevalue(model), 1)
    original = pseudo_log_likelihoods(lm, SENTENCES, variant="original", progress=False)
    l2r = pseudo_log_likelihoods(lm, SENTENCES, variant="within_word_l2r", progress=False)
    n_multi = 0
    for text, a, b in zip(SENTENCES, original, l2r, strict=True):
        assert a.token_ids == b.token_ids
        for last, x, y in zip(last_piece_of_word(lm, text), a.token_logprobs, b.token_logprobs, strict=True):
            assert (x == y) == last
            n_multi += not last
    assert n_multi > 3  # the fixture sentences really contain multi-piece words


@pytest.mark.parametrize("model", ["tiny_bert", "tiny_roberta"])
def test_single_piece_words_give_identical_scores(model, request) -> None:
    lm = request.getfixturevalue(model)
    text = "The house is in the water and the water is playing."
    assert all(last_piece_of_word(lm, text)), lm.tokenizer.tokenize(text)
    original, l2r = (pseudo_log_likelihoods(lm, [text], variant=v, progress=False)[0] for v in ("original", "within_word_l2r"))
    assert l2r.token_ids == original.token_ids
    assert l2r.token_logprobs == original.token_logprobs


@pytest.mark.parametrize("variant", ["original", "within_word_l2r"])
def test_batch_budget_does_not_change_scores(tiny_roberta, with_budget, variant) -> None:
    one_by_one = pseudo_log_likelihoods(with_budget(tiny_roberta, 1), SENTENCES, variant=variant, progress=False)
    large = pseudo_log_likelihoods(with_budget(tiny_roberta, 100_000), SENTENCES, variant=variant, progress=False)
    for a, b in zip(one_by_one, large, strict=True):
        assert a.token_ids == b.token_ids
        assert a.token_logprobs == pytest.approx(b.token_logprobs, abs=1e-5)


@pytest.mark.parametrize("chunk_texts", [1, 2, 4, 5])
def test_texts_queued_in_chunks_score_as_the_plain_loop(tiny_bert, chunk_texts, monkeypatch) -> None:
    """The GPU path prepares and queues a few texts at a time: each chunk runs as its own set of
    copies (the twins of the last text of one chunk and the first of the next run twice), and
    the scores come back in text order."""
    from lmprobes.engine import pll

    texts = [*SENTENCES, "The man is on the mat.", "The man was on the mat."]
    runs = []
    original = pll.run_rows
    monkeypatch.setattr(pll, "run_rows",
                        lambda lm, proj, seqs, *a, **k: runs.append(len(seqs)) or original(lm, proj, seqs, *a, **k))
    scores = pseudo_log_likelihoods(tiny_bert, texts, progress=False, chunk_texts=chunk_texts)
    assert len(runs) == -(-len(texts) // chunk_texts)
    copies = sum(len(tiny_bert.tokenizer(text)["input_ids"]) - 2 for text in texts)
    twins_together = chunk_texts > 1  # the last two texts, 6 and 7, share a chunk unless chunks hold one
    assert sum(runs) == copies - twins_together
    for text, score in zip(texts, scores, strict=True):
        token_ids, values = plain_pll(tiny_bert, text, "original")
        assert score.token_ids == token_ids
        assert score.token_logprobs == pytest.approx(values, abs=1e-5)


@pytest.mark.parametrize("model", ["tiny_bert", "tiny_roberta"])
def test_a_too_long_text_in_a_late_chunk_is_refused_before_any_chunk_runs(model, request, monkeypatch) -> None:
    """Chunked (the GPU path), a text over the model's 128 positions in the last chunk is refused up
    front, not after the chunks before it ran; a text with many bytes but few tokens passes."""
    from lmprobes.engine import pll

    lm = request.getfixturevalue(model)
    runs = []
    original = pll.run_rows
    monkeypatch.setattr(pll, "run_rows", lambda *a, **k: runs.append(1) or original(*a, **k))
    words = lm.tokenizer("zebra " * 200, add_special_tokens=False)["input_ids"]
    too_long = lm.tokenizer.decode(words[:127])  # 129 tokens with the two special ones
    with pytest.raises(ValueError, match=rf"{lm.name}: a sequence of 129 tokens .* longer than the 128 positions"):
        pseudo_log_likelihoods(lm, [*SENTENCES, too_long], progress=False, chunk_texts=2)
    assert runs == [], "no chunk ran"
    fits = lm.tokenizer.decode(words[:126])  # 128 tokens in some 750 bytes: tokenized up front, let through
    assert len(fits.encode()) > 128
    assert len(pseudo_log_likelihoods(lm, [*SENTENCES, fits], progress=False, chunk_texts=2)) == len(SENTENCES) + 1


@pytest.mark.parametrize(("model", "text"), [("tiny_bert", "a," * 63 + "a"), ("tiny_roberta", "a," * 63 + "a"),
                                           ("tiny_roberta", "☃" * 42 + "a")],  # ☃: three bytes, three tokens
                         ids=["bert", "roberta", "roberta-snowmen"])
def test_a_text_of_few_bytes_but_one_token_a_byte_is_refused_before_any_chunk_runs(model, text, request,
                                                                                    monkeypatch) -> None:
    """127 bytes in 127 tokens: with the two special tokens the text is one token over the 128 positions
    though under 128 bytes (and far fewer characters), so the up-front check must count the special tokens
    and bytes. Two chunks, the text in the second."""
    from lmprobes.engine import pll

    lm = request.getfixturevalue(model)
    runs = []
    original = pll.run_rows
    monkeypatch.setattr(pll, "run_rows", lambda *a, **k: runs.append(1) or original(*a, **k))
    assert len(text.encode()) == 127 and len(lm.tokenizer(text)["input_ids"]) == 129
    with pytest.raises(ValueError, match=rf"{lm.name}: a sequence of 129 tokens .* longer than the 128 positions"):
        pseudo_log_likelihoods(lm, [SENTENCES[0], text], progress=False, chunk_texts=1)
    assert runs == [], "no chunk ran"


def test_a_text_its_normalizer_lengthens_is_refused_before_any_chunk_runs(tiny_roberta, monkeypatch) -> None:
    """NFKC (XLM-R's normalizer) expands ``ﷺ``, 3 bytes, to a 33-byte phrase: the up-front check counts
    the bytes the tokenizer's model sees, after normalization, not the raw text's."""
    from tokenizers import normalizers

    from lmprobes.engine import pll

    tokenizer = copy.deepcopy(tiny_roberta.tokenizer)
    tokenizer.backend_tokenizer.normalizer = normalizers.NFKC()
    lm = dataclasses.replace(tiny_roberta, tokenizer=tokenizer)
    text = "ﷺ" * 3 + " a" * 28
    assert len(text.encode()) == 65 and len(tokenizer(text)["input_ids"]) == 129
    runs = []
    original = pll.run_rows
    monkeypatch.setattr(pll, "run_rows", lambda *a, **k: runs.append(1) or original(*a, **k))
    with pytest.raises(ValueError, match=rf"{lm.name}: a sequence of 129 tokens .* longer than the 128 positions"):
        pseudo_log_likelihoods(lm, [SENTENCES[0], text], progress=False, chunk_texts=1)
    assert runs == [], "no chunk ran"


@pytest.mark.parametrize("chunk_texts", [0, -1])
def test_a_chunk_size_below_one_is_refused(tiny_bert, chunk_texts) -> None:
    with pytest.raises(ValueError, match=f"chunk_texts must be at least 1, not {chunk_texts}"):
        pseudo_log_likelihoods(tiny_bert, SENTENCES, progress=False, chunk_texts=chunk_texts)


def test_distinct_copies_know_which_hold_a_token(tiny_bert) -> None:
    from lmprobes.engine import pll

    texts = ["the cat sat", "the [PAD] sat", "a dog"]
    sequences, words = pll.encode_ids_and_words(tiny_bert.tokenizer, texts)
    copies = pll.MaskedCopies.of_flat(sequences, *pll.copy_spans(words, "original"), tiny_bert.tokenizer.mask_token_id)
    distinct = pll.DistinctCopies(copies)
    pad = tiny_bert.tokenizer.pad_token_id
    owners = copies.owner[distinct.alias_order[distinct.alias_offsets[:-1]]]
    assert distinct.holding(pad).tolist() == [owner == 1 for owner in owners.tolist()]


def test_cuda_models_are_queued_in_chunks_and_cpu_models_at_once(tiny_bert, monkeypatch) -> None:
    from lmprobes.engine import pll

    texts = [f"Dog number {n} runs." for n in range(7)]
    monkeypatch.setattr(pll, "CUDA_CHUNK_TEXTS", 3)
    chunks = []
    monkeypatch.setattr(pll, "_queue_chunk", lambda lm, proj, part, *a, **k: chunks.append(list(part)) or
                        pll.MaskedCopies([], [], 0))
    pseudo_log_likelihoods(tiny_bert, texts, progress=False)
    assert chunks == [texts]
    chunks.clear()
    monkeypatch.setattr(tiny_bert, "device", torch.device("cuda"))
    pseudo_log_likelihoods(tiny_bert, texts, progress=False)
    assert chunks == [texts[0:3], texts[3:6], texts[6:7]]


def test_empty_text_and_no_texts(tiny_bert) -> None:
    assert pseudo_log_likelihoods(tiny_bert, [], progress=False) == []
    (empty,) = pseudo_log_likelihoods(tiny_bert, [""], progress=False)
    assert empty.token_ids == [] and empty.total == 0.0


def test_rejects_causal_models_and_unknown_variants(tiny_gpt2, tiny_bert) -> None:
    with pytest.raises(ValueError, match="masked-only"):
        pseudo_log_likelihoods(tiny_gpt2, ["A cat."], progress=False)
    with pytest.raises(ValueError, match="unknown PLL variant 'whole_word'"):
        pseudo_log_likelihoods(tiny_bert, ["A cat."], variant="whole_word", progress=False)


def test_identical_masked_copies_run_once_and_score_each_target(tiny_bert, monkeypatch) -> None:
    from lmprobes.engine import pll

    pair = ["The man is on the mat.", "The man was on the mat."]  # differ in one token
    ids = [tiny_bert.tokenizer(text)["input_ids"] for text in pair]
    assert len(ids[0]) == len(ids[1]) and sum(a != b for a, b in zip(*ids, strict=True)) == 1
    runs = []
    original = pll.run_rows
    monkeypatch.setattr(
        pll,
        "run_rows",
        lambda lm, proj, seqs, *a, **k: runs.append(len(seqs)) or original(lm, proj, seqs, *a, **k),
    )
    scores = pseudo_log_likelihoods(tiny_bert, pair, progress=False)
    assert runs == [2 * (len(ids[0]) - 2) - 1]
    for text, score in zip(pair, scores, strict=True):
        token_ids, values = plain_pll(tiny_bert, text, "original")
        assert score.token_ids == token_ids
        assert score.token_logprobs == pytest.approx(values, abs=1e-5)


@pytest.mark.parametrize("variant", ["original", "within_word_l2r"])
def test_batches_of_distinct_copies_equal_the_copies_padded_as_lists(tiny_bert, variant) -> None:
    from lmprobes.engine.batching import pad_right
    from lmprobes.engine.pll import DistinctCopies, MaskedCopies, masked_spans

    texts = [*SENTENCES, "The man is on the mat.", "The man was on the mat."]
    encoded = tiny_bert.tokenizer(texts)
    sequences = [list(ids) for ids in encoded["input_ids"]]
    spans = [masked_spans(encoded.word_ids(i), variant) for i in range(len(texts))]
    copies = MaskedCopies(sequences, spans, tiny_bert.tokenizer.mask_token_id)
    distinct = DistinctCopies(copies)
    as_lists = [copies[aliases[0]] for aliases in distinct.aliases]
    assert len(set(map(tuple, as_lists))) == len(distinct) < len(copies)  # the pair shares copies
    assert distinct.lengths() == [len(ids) for ids in as_lists]
    for batch in ([0], [5, 1, 30, 2], list(range(len(distinct)))[::-1]):
        ids, mask = distinct.padded(batch, 7, torch.device("cpu"))
        expected_ids, expected_mask = pad_right([as_lists[i] for i in batch], 7, torch.device("cpu"))
        assert torch.equal(ids, expected_ids) and torch.equal(mask, expected_mask)


def test_scores_do_not_depend_on_how_the_logits_are_chunked(tiny_bert, monkeypatch) -> None:
    from lmprobes.engine import runner

    whole = pseudo_log_likelihoods(tiny_bert, SENTENCES, progress=False)
    monkeypatch.setattr(runner, "LOGIT_CHUNK_ELEMENTS", 3 * tiny_bert.model.config.vocab_size)  # 3 rows a chunk
    chunked = pseudo_log_likelihoods(tiny_bert, SENTENCES, progress=False)
    for a, b in zip(whole, chunked, strict=True):
        assert a.token_ids == b.token_ids
        assert a.token_logprobs == pytest.approx(b.token_logprobs, abs=1e-6)


def test_a_text_holding_the_mask_token_scores_as_alone_beside_its_twin(tiny_bert) -> None:
    """``[MASK] the`` with ``the`` masked and ``the [MASK]`` with ``the`` masked are the same ids, scored at
    different positions: each text's scores equal the plain loop's, whatever it is scored with."""
    mask = tiny_bert.tokenizer.mask_token
    texts = [f"{mask} the", f"the {mask}"]
    assert len(tiny_bert.tokenizer(texts[0])["input_ids"]) == 4  # one piece each
    together = pseudo_log_likelihoods(tiny_bert, texts, progress=False)
    for text, score in zip(texts, together, strict=True):
        token_ids, values = plain_pll(tiny_bert, text, "original")
        assert score.token_ids == token_ids
        assert score.token_logprobs == pytest.approx(values, abs=1e-5)
        assert pseudo_log_likelihoods(tiny_bert, [text], progress=False)[0].token_logprobs == pytest.approx(values, abs=1e-5)


@pytest.mark.parametrize("collide", [False, True])
def test_equal_masked_copies_are_grouped_as_a_plain_dictionary_groups_them(collide, monkeypatch) -> None:
    """Groups in first-occurrence order, members ascending, exactly the copies with equal ids scored at the
    same position: texts that share all but one token, repeat, or hold the mask id itself (``[9, 1]`` with 1
    masked equals ``[1, 9]`` with 1 masked, scored elsewhere); with every hash forced equal too."""
    from lmprobes.engine import pll

    if collide:
        monkeypatch.setattr(pll, "_mix", lambda ids, positions: np.zeros(len(ids), dtype=np.uint64))
    generator = torch.Generator().manual_seed(0)
    texts = [torch.randint(0, 4, (int(n),), generator=generator).tolist() for n in torch.randint(1, 7, (60,), generator=generator)]
    texts += [texts[3], [9, 9, 9], [9, 1, 9], [9, 1], [1, 9]]  # 9 is the mask id
    spans = [pll.masked_spans([0] * len(t), "original") for t in texts]
    copies = pll.MaskedCopies(texts, spans, mask_id=9)
    expected: dict[tuple, list[int]] = {}
    for index in range(len(copies)):
        expected.setdefault((tuple(copies[index]), int(copies.spans[index][0])), []).append(index)
    assert pll.DistinctCopies(copies).aliases == list(expected.values())
    assert len(expected) < len(copies)


@pytest.mark.parametrize("variant", ["original", "within_word_l2r"])
def test_copy_spans_are_each_texts_masked_spans_flattened(variant) -> None:
    from lmprobes.engine import pll

    word_ids = [
        [None, 0, 0, 1, None],
        [],
        [None, None],
        [None, 0, 1, 1, 1, 2, None],
        [0, 0, None, 0, 1],  # a word id again after a special token: a new run
        [3, 3, 3],
        [None, 0, None, 1, 1],
        [0, 0],  # runs up to the end of its text, and the next text opens with the same word id:
        [0, 1],  # a run never crosses into the next text
        [2],
        [2, 2, None],
    ]
    owner, spans = pll.copy_spans(word_ids, variant)
    expected = [(text, span) for text, ids in enumerate(word_ids) for span in pll.masked_spans(ids, variant)]
    assert list(zip(owner.tolist(), map(tuple, spans.tolist()), strict=True)) == expected
    assert pll.copy_spans([], variant)[1].shape == (0, 2)


def test_masked_copies_from_lists_and_from_arrays_agree() -> None:
    from lmprobes.engine import pll

    sequences = [[101, 5, 6, 102], [101, 102], [101, 7, 7, 8, 102]]
    word_ids = [[None, 0, 1, None], [None, None], [None, 0, 0, 1, None]]
    lists = pll.MaskedCopies(sequences, [pll.masked_spans(w, "within_word_l2r") for w in word_ids], mask_id=9)
    arrays = pll.MaskedCopies.of_flat(sequences, *pll.copy_spans(word_ids, "within_word_l2r"), mask_id=9)
    assert list(lists) == list(arrays) == [[101, 9, 6, 102], [101, 5, 9, 102], [101, 9, 9, 8, 102],
                                           [101, 7, 9, 8, 102], [101, 7, 7, 9, 102]]
    assert lists.targets.tolist() == arrays.targets.tolist() == [5, 6, 7, 7, 8]
    assert lists.per_text.tolist() == arrays.per_text.tolist() == [2, 0, 3]

