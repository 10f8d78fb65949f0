"""Batch encoding through the tokenizers backend gives exactly what the transformers wrapper gives."""

from __future__ import annotations

import copy

import pytest
from transformers import PreTrainedTokenizerFast

from lmprobes.engine.encoding import direct_backend, encode_ids, encode_ids_and_words
from tokenizer_zoo import gemma_style_tokenizer, sentencepiece_tokenizer

TEXTS = [
    "The bird sang.",
    "  leading and trailing spaces  ",
    "Ünïcödé naïve café, ☃ and 東京",
    "",
    "a",
    "Many sentences open alike; many don't.",
    "tabs\tand\nnewlines",
]


@pytest.fixture(params=["bert", "roberta", "gpt2", "unigram", "llama_style", "gemma_style"])
def tokenizer(request, tiny_bert, tiny_roberta, tiny_gpt2):
    built = {
        "bert": lambda: tiny_bert.tokenizer,
        "roberta": lambda: tiny_roberta.tokenizer,
        "gpt2": lambda: tiny_gpt2.tokenizer,
        "unigram": lambda: sentencepiece_tokenizer(llama_style=False),
        "llama_style": lambda: sentencepiece_tokenizer(llama_style=True),
        "gemma_style": gemma_style_tokenizer,
    }
    return built[request.param]()


def _texts(tokenizer) -> list[str]:
    """TEXTS plus the tokenizer's own special tokens written in running text."""
    specials = [t for t in (tokenizer.mask_token, tokenizer.unk_token, tokenizer.eos_token) if t]
    return TEXTS + [f"A {special} in the middle." for special in specials]


@pytest.mark.parametrize("special_tokens", [True, False])
def test_the_direct_path_is_taken_and_gives_the_wrappers_ids(tokenizer, special_tokens) -> None:
    texts = _texts(tokenizer)
    assert direct_backend(tokenizer) is not None
    wrapper = [list(ids) for ids in tokenizer(texts, add_special_tokens=special_tokens)["input_ids"]]
    assert encode_ids(tokenizer, texts, special_tokens=special_tokens) == wrapper


def test_word_ids_are_the_wrappers(tokenizer) -> None:
    texts = _texts(tokenizer)
    encoded = tokenizer(texts)
    ids, words = encode_ids_and_words(tokenizer, texts)
    assert ids == [list(x) for x in encoded["input_ids"]]
    assert words == [encoded.word_ids(i) for i in range(len(texts))]
    assert any(None in w for w in words) == (tokenizer.num_special_tokens_to_add() > 0)


def test_a_mask_token_in_the_text_stays_one_token(tiny_bert) -> None:
    tokenizer = tiny_bert.tokenizer
    ids = encode_ids(tokenizer, [f"The {tokenizer.mask_token} sang."])[0]
    assert ids.count(tokenizer.mask_token_id) == 1


def test_no_texts_encode_to_nothing(tiny_gpt2) -> None:
    assert encode_ids(tiny_gpt2.tokenizer, []) == []
    assert encode_ids_and_words(tiny_gpt2.tokenizer, []) == ([], [])


class ShoutingTokenizer(PreTrainedTokenizerFast):
    """A tokenizer class with its own encoding step, as LayoutLM's or TAPAS's have."""

    def _encode_plus(self, text, *args, **kwargs):
        upper = [t.upper() for t in text] if isinstance(text, list) else text.upper()
        return super()._encode_plus(upper, *args, **kwargs)


def test_a_class_with_its_own_encoding_goes_through_it(tiny_bert) -> None:
    tokenizer = ShoutingTokenizer(tokenizer_object=copy.deepcopy(tiny_bert.tokenizer.backend_tokenizer),
                                  unk_token="[UNK]", mask_token="[MASK]")
    tokenizer.backend_tokenizer.normalizer = None  # so upper case survives and differs from lower
    assert direct_backend(tokenizer) is None
    ids = encode_ids(tokenizer, ["the bird sang"], special_tokens=False)
    assert ids == [tokenizer.backend_tokenizer.encode("THE BIRD SANG", add_special_tokens=False).ids]
    assert ids != [tokenizer.backend_tokenizer.encode("the bird sang", add_special_tokens=False).ids]


@pytest.mark.parametrize("leftover", ["truncation", "padding"])
def test_padding_or_truncation_left_on_the_backend_is_cleared_as_the_wrapper_clears_it(tiny_gpt2, leftover) -> None:
    """``tokenizer(texts, padding=True)`` leaves padding set on the backend until the wrapper's next plain
    call: the direct path clears it the same way, so earlier calls neither pad nor truncate its ids nor
    send it down the slow path."""
    tokenizer = copy.deepcopy(tiny_gpt2.tokenizer)
    tokenizer.pad_token = tokenizer.eos_token
    text = "the bird sang in the garden"
    if leftover == "truncation":
        tokenizer([text], truncation=True, max_length=2)
    else:
        tokenizer([text, "a"], padding="max_length", max_length=32)
    assert getattr(tokenizer.backend_tokenizer, leftover) is not None
    assert direct_backend(tokenizer) is tokenizer.backend_tokenizer
    assert tokenizer.backend_tokenizer.truncation is None and tokenizer.backend_tokenizer.padding is None
    ids = encode_ids(tokenizer, [text, "a"], special_tokens=False)
    assert ids == [tiny_gpt2.tokenizer(t, add_special_tokens=False)["input_ids"] for t in (text, "a")]


def test_split_special_tokens_goes_through_the_wrapper_and_splits_them(tiny_bert) -> None:
    tokenizer = copy.deepcopy(tiny_bert.tokenizer)
    tokenizer.split_special_tokens = True
    assert direct_backend(tokenizer) is None
    ids = encode_ids(tokenizer, [f"The {tokenizer.mask_token} sang."])[0]
    assert tokenizer.mask_token_id not in ids
    assert ids == tokenizer(f"The {tokenizer.mask_token} sang.")["input_ids"]


def test_a_tokenizer_without_a_rust_backend_is_called_as_it_is() -> None:
    class Characters:
        def __call__(self, texts, add_special_tokens=True):
            return {"input_ids": [[ord(c) for c in text] + ([0] if add_special_tokens else []) for text in texts]}

    assert direct_backend(Characters()) is None
    assert encode_ids(Characters(), ["ab"]) == [[97, 98, 0]]
    assert encode_ids(Characters(), ["ab"], special_tokens=False) == [[97, 98]]
