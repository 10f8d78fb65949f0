"""Word lookup conventions for WordPiece, byte-level BPE and SentencePiece tokenizers."""

from __future__ import annotations

import copy

import pytest
from tokenizers import AddedToken

from lmprobes.engine import WordIds, leading_space, tokenizer_kind, word_ids
from lmprobes.engine.tokens import make_the_mask_take_the_space_before_it, mask_takes_the_space_before_it
from tokenizer_zoo import gemma_style_tokenizer, sentencepiece_tokenizer


def test_kinds_of_the_tiny_tokenizers(tiny_bert, tiny_roberta, tiny_gpt2) -> None:
    assert tokenizer_kind(tiny_bert.tokenizer) == "wordpiece"
    assert tokenizer_kind(tiny_roberta.tokenizer) == "bytelevel"
    assert tokenizer_kind(tiny_gpt2.tokenizer) == "bytelevel"


def test_wordpiece_single_word_is_lower_cased(tiny_bert) -> None:
    bird = word_ids(tiny_bert.tokenizer, "Bird")
    assert bird.pieces == ("bird",)
    assert bird.single and not bird.is_unk
    assert bird.first_id == tiny_bert.tokenizer.convert_tokens_to_ids("bird")


def test_wordpiece_multi_piece_word(tiny_bert) -> None:
    # "quickly" occurs once in the tiny corpus, so it is not a whole-word entry.
    quickly = word_ids(tiny_bert.tokenizer, "quickly")
    assert quickly.n_pieces > 1
    assert quickly.pieces[0] != "quickly" and all(piece.startswith("##") for piece in quickly.pieces[1:])
    assert not quickly.single


def test_wordpiece_unknown_character_is_unk(tiny_bert) -> None:
    snowman = word_ids(tiny_bert.tokenizer, "☃")
    assert snowman.is_unk
    assert snowman.ids == (tiny_bert.tokenizer.unk_token_id,)
    assert not snowman.single


def test_bytelevel_word_carries_its_leading_space(tiny_roberta, tiny_gpt2) -> None:
    for lm in (tiny_roberta, tiny_gpt2):
        bird = word_ids(lm.tokenizer, "bird")
        assert bird.pieces == ("Ġbird",)
        assert bird.ids == (lm.tokenizer.convert_tokens_to_ids("Ġbird"),)
        assert bird.single


def test_bytelevel_sentence_initial_word_has_no_space(tiny_roberta) -> None:
    initial = word_ids(tiny_roberta.tokenizer, "bird", sentence_initial=True)
    assert "".join(initial.pieces) == "bird"
    assert not any("Ġ" in piece for piece in initial.pieces)
    assert initial.first_id != word_ids(tiny_roberta.tokenizer, "bird").first_id


def test_roberta_mask_eats_the_space_before_it(tiny_roberta) -> None:
    tokenizer = tiny_roberta.tokenizer
    pieces = tokenizer.convert_ids_to_tokens(tokenizer("A robin is a <mask>.")["input_ids"])
    at = pieces.index("<mask>")
    assert pieces[at - 1] == "Ġa"
    assert "Ġ" not in pieces


@pytest.mark.parametrize("kind", ["bytelevel", "sentencepiece"])
def test_a_mask_that_leaves_the_space_before_it_a_token_is_made_to_strip_it(kind, tiny_roberta) -> None:
    """A mask added as a plain string (or built so by transformers 5 from RoBERTa's vocab.json and
    merges.txt) leaves ``Ġ`` / ``▁`` before it; once made to strip it, the query reads as RoBERTa's."""
    if kind == "bytelevel":
        tokenizer = copy.deepcopy(tiny_roberta.tokenizer)
        tokenizer.add_special_tokens({"mask_token": AddedToken("<mask>", lstrip=False, normalized=False, special=True)})
    else:
        tokenizer = sentencepiece_tokenizer(llama_style=False)
        tokenizer.add_special_tokens({"mask_token": "<mask>"})
    space = {"bytelevel": "Ġ", "sentencepiece": "▁"}[kind]

    def before_mask() -> str:
        pieces = tokenizer.convert_ids_to_tokens(tokenizer("the cat is <mask> .")["input_ids"])
        return pieces[pieces.index("<mask>") - 1]

    assert before_mask() == space and not mask_takes_the_space_before_it(tokenizer)
    assert make_the_mask_take_the_space_before_it(tokenizer)
    assert before_mask() == f"{space}is" and mask_takes_the_space_before_it(tokenizer)
    assert not make_the_mask_take_the_space_before_it(tokenizer)  # once is enough
    assert not make_the_mask_take_the_space_before_it(tiny_roberta.tokenizer)


def test_empty_word() -> None:
    empty = WordIds(word="", ids=(), pieces=(), is_unk=False)
    assert empty.first_id == -1 and empty.n_pieces == 0 and not empty.single


@pytest.mark.parametrize("llama_style", [False, True])
def test_sentencepiece_word_gets_the_metaspace(llama_style: bool) -> None:
    tokenizer = sentencepiece_tokenizer(llama_style=llama_style)
    assert tokenizer_kind(tokenizer) == "sentencepiece"
    bird = word_ids(tokenizer, "bird")
    assert bird.pieces[0].startswith("▁")
    if llama_style:
        return  # BPE trained without a pre-tokenizer merges across ▁, unlike real SentencePiece
    in_sentence = tokenizer.convert_ids_to_tokens(tokenizer.encode("a bird", add_special_tokens=False))
    assert in_sentence[-bird.n_pieces :] == list(bird.pieces)


def test_a_tokenizer_that_prepends_no_metaspace_looks_a_word_up_after_a_space(tiny_bert, tiny_gpt2) -> None:
    tokenizer = gemma_style_tokenizer()
    running = tokenizer.convert_ids_to_tokens(tokenizer.encode("A robin is a bird", add_special_tokens=False))
    assert running[0] == "A" and running[1].startswith("▁"), running
    assert tokenizer_kind(tokenizer) == "sentencepiece" and leading_space(tokenizer)
    bird = word_ids(tokenizer, "bird")
    assert bird.pieces[0].startswith("▁") and running[-bird.n_pieces:] == list(bird.pieces)
    initial = word_ids(tokenizer, "bird", sentence_initial=True)
    assert "".join(initial.pieces) == "bird" and not initial.pieces[0].startswith("▁")
    assert leading_space(tiny_gpt2.tokenizer) and not leading_space(tiny_bert.tokenizer)
    assert not any(leading_space(sentencepiece_tokenizer(llama_style=style)) for style in (False, True))


def test_kind_falls_back_to_vocabulary_pieces() -> None:
    class VocabOnly:
        def __init__(self, vocab: dict[str, int]) -> None:
            self.vocab = vocab

        def get_vocab(self) -> dict[str, int]:
            return self.vocab

    assert tokenizer_kind(VocabOnly({"a": 0, "##b": 1})) == "wordpiece"
    assert tokenizer_kind(VocabOnly({"a": 0, "Ġb": 1})) == "bytelevel"
    assert tokenizer_kind(VocabOnly({"a": 0, "▁b": 1, "▁c": 2})) == "sentencepiece"
    with pytest.raises(ValueError):
        tokenizer_kind(VocabOnly({"a": 0}))


WORDS = ["bird", "", "robin", "unbelievably", "Paris", "☃", "bird", "New York", "x"]


@pytest.mark.parametrize("kind", ["tiny_bert", "tiny_roberta", "tiny_gpt2", "unigram", "llama", "gemma"])
@pytest.mark.parametrize("sentence_initial", [False, True])
def test_batched_lookup_equals_one_encode_per_word(kind: str, sentence_initial: bool, request) -> None:
    from lmprobes.engine import words_ids

    if kind in ("unigram", "llama"):
        tokenizer = sentencepiece_tokenizer(llama_style=kind == "llama")
    elif kind == "gemma":
        tokenizer = gemma_style_tokenizer()
    else:
        tokenizer = request.getfixturevalue(kind).tokenizer
    # A word inside a sentence follows a space where the tokenizer does not write one itself.
    space = " " if kind in ("tiny_roberta", "tiny_gpt2", "gemma") and not sentence_initial else ""
    for word, found in zip(WORDS, words_ids(tokenizer, WORDS, sentence_initial=sentence_initial), strict=True):
        ids = tokenizer.encode(space + word, add_special_tokens=False) if word else []
        assert found.word == word and list(found.ids) == ids
        assert list(found.pieces) == tokenizer.convert_ids_to_tokens(ids)
        assert found.is_unk == (tokenizer.unk_token_id in ids)
        assert found == word_ids(tokenizer, word, sentence_initial=sentence_initial)
    assert words_ids(tokenizer, []) == []


OLMPICS_CHOICES = ["younger", "older", "never", "always", "sometimes", "nail", "airplane", "larger", "quickly",
                   "bird", "Paris", "ice-cream", "1990", "don't"]


# The Llama-style toy tokenizer is left out: trained without a pre-tokenizer, it merges across ``▁``
# ("a" is two pieces), which real SentencePiece models do not.
@pytest.mark.parametrize("family", ["wordpiece", "bytelevel", "gemma"])
def test_a_choice_word_has_the_ids_olmpics_took_from_a_space_after_a(family, tiny_bert, tiny_roberta) -> None:
    """oLMpics represented a choice by ``encode("a " + word)[1:]`` (its first piece scored): the word in
    running text after a one-piece word, which is what ``word_ids`` returns, multi-piece words included."""
    tokenizer = {"wordpiece": tiny_bert.tokenizer, "bytelevel": tiny_roberta.tokenizer,
                 "gemma": gemma_style_tokenizer() if family == "gemma" else None}[family]
    assert len(tokenizer.encode("a", add_special_tokens=False)) == 1
    for word in OLMPICS_CHOICES:
        olmpics = tokenizer.encode("a " + word, add_special_tokens=False)[1:]
        assert list(word_ids(tokenizer, word).ids) == olmpics, word
