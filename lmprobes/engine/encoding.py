"""Batch tokenization through the Rust backend directly, where that gives the wrapper's ids.

A transformers fast tokenizer's ``__call__`` hands the batch to the ``tokenizers`` library's
``encode_batch`` and then converts every ``Encoding`` into Python lists (type ids, attention
mask, a ``BatchEncoding``). The engine needs the ids (and, for PLL, the word ids) only; for the
39,995 distinct sentences of 20,000 BLiMP pairs and GPT-2's tokenizer the conversion took 0.80 of
the call's 1.44 s on a 2-core AMD EPYC, and the Rust part parallelises over cores where the
conversion does not. It is host time a GPU waits through.

The direct path is taken only when the tokenizer's class encodes with transformers' stock code
(``__call__`` and ``_encode_plus`` not overridden, as they are for LayoutLM, TAPAS, LUKE, the
translation tokenizers...), and the backend is in the state that code leaves it in for a plain
call: no truncation, no padding, special tokens in the text matched as specials unless the
tokenizer says otherwise. Any other tokenizer, a slow (Python) one included, goes through its own
``__call__``. The tests compare both paths on every tokenizer family in use.
"""

from __future__ import annotations

from collections.abc import Sequence


def encode_ids(tokenizer, texts: Sequence[str], *, special_tokens: bool = True) -> list[list[int]]:
    """``tokenizer(texts, add_special_tokens=special_tokens)["input_ids"]``, as lists."""
    if not texts:
        return []
    backend = direct_backend(tokenizer)
    if backend is None:
        return [list(ids) for ids in tokenizer(list(texts), add_special_tokens=special_tokens)["input_ids"]]
    # encode_batch_fast skips the character offsets, which ids do not need (word ids do): all of
    # BLiMP's 134,000 distinct sentences under GPT-2's tokenizer, 2 threads: 2.3-2.8 against 3.1-3.4 s.
    encode = getattr(backend, "encode_batch_fast", backend.encode_batch)
    return [encoding.ids for encoding in encode(list(texts), add_special_tokens=special_tokens)]


def encode_ids_and_words(tokenizer, texts: Sequence[str]) -> tuple[list[list[int]], list[list[int | None]]]:
    """The ids (with the tokenizer's special tokens) and each token's word index (None for specials)."""
    if not texts:
        return [], []
    backend = direct_backend(tokenizer)
    if backend is None:
        encoded = tokenizer(list(texts))
        return [list(ids) for ids in encoded["input_ids"]], [encoded.word_ids(i) for i in range(len(texts))]
    encodings = backend.encode_batch(list(texts), add_special_tokens=True)
    return [encoding.ids for encoding in encodings], [encoding.word_ids for encoding in encodings]


def direct_backend(tokenizer):
    """The ``tokenizers.Tokenizer`` to call directly, or None where the wrapper must encode.

    Padding or truncation left on the backend by an earlier call (``tokenizer(texts, padding=True)``
    sets them and leaves them) is cleared first, as the wrapper's own next plain call clears it.
    """
    from transformers.tokenization_utils_base import PreTrainedTokenizerBase
    from transformers.tokenization_utils_tokenizers import TokenizersBackend

    if not isinstance(tokenizer, TokenizersBackend):
        return None
    cls = type(tokenizer)
    stock = (
        cls.__call__ is PreTrainedTokenizerBase.__call__
        and cls._encode_plus is TokenizersBackend._encode_plus
        and not hasattr(cls, "_switch_to_input_mode")  # seq2seq tokenizers that switch languages
        and cls._get_padding_truncation_strategies is PreTrainedTokenizerBase._get_padding_truncation_strategies
    )
    backend = tokenizer.backend_tokenizer
    if not stock or backend.encode_special_tokens != bool(tokenizer.split_special_tokens):
        return None
    if backend.truncation is not None:
        backend.no_truncation()
    if backend.padding is not None:
        backend.no_padding()
    return backend
