"""The mask-state cache: states equal single-item forwards, one encoder pass per item, exact round trip."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import torch
from test_olmpics_zeroshot import plain_ids

from lmprobes.engine import word_ids
from lmprobes.io import read_metadata
from lmprobes.suites.olmpics.age import age_comparison
from lmprobes.suites.olmpics.hidden import (
    ENCODER_COUNTS,
    HiddenCacheError,
    encode_mask_states,
    read_hidden_cache,
    split_hidden,
    write_hidden_cache,
)
from lmprobes.suites.olmpics.schema import make_item


def age_items(n_train: int = 6, n_dev: int = 4) -> pd.DataFrame:
    return pd.DataFrame(age_comparison("train")[:n_train] + age_comparison("dev")[:n_dev])


def plain_mask_state(lm, stem: str, mask_encoding: str = "original") -> torch.Tensor:
    """The last hidden state at the mask from one unbatched, unpadded forward of the whole model, the
    stem's ids as zero-shot scoring reads them (``plain_ids``: transformers 2.x's, or the whole stem)."""
    ids = plain_ids(lm.tokenizer, stem, mask_encoding)
    with torch.no_grad():
        output = lm.model(input_ids=torch.tensor([ids]), output_hidden_states=True)
    return output.hidden_states[-1][0, ids.index(lm.tokenizer.mask_token_id)]


@pytest.mark.parametrize("mask_encoding", ["original", "tokenizer"])
@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_roberta"])
def test_states_equal_single_item_forwards(request, fixture, mask_encoding, with_budget):
    lm = with_budget(request.getfixturevalue(fixture), 64)  # a few items per batch, padded to the longest
    short = make_item("age_comparison", "generated", "standard", "dev", 9, id="s", stem="[MASK] cat .",
                      choices=["younger", "older"], answer=0)
    items = pd.concat([age_items(), pd.DataFrame([short]),
                       age_items(3, 0).assign(stem=lambda f: f["stem"] + "  ", row_id=lambda f: f["row_id"] + "x")])
    frame = encode_mask_states(lm, items, mask_encoding=mask_encoding, progress=False)
    assert frame["row_id"].tolist() == items["row_id"].tolist()
    _, states = split_hidden(frame)
    assert states.dtype == torch.float32 and states.shape == (len(items), lm.model.config.hidden_size)
    for state, stem in zip(states, items["stem"], strict=True):
        torch.testing.assert_close(state, plain_mask_state(lm, stem, mask_encoding), atol=1e-5, rtol=1e-5)


def test_candidates_multi_piece_and_unknown_choices(tiny_bert):
    specs = [("The cat is [MASK] .", ["younger", "older"], 0), ("The cat is [MASK] .", ["snow\u2603", "older"], 1)]
    items = pd.DataFrame([make_item("age_comparison", "generated", "standard", "dev", i, id=str(i), stem=stem,
                                    choices=choices, answer=answer) for i, (stem, choices, answer) in enumerate(specs, 1)])
    frame = encode_mask_states(tiny_bert, items)
    for choices, ids, multi in zip(items["choices"], frame["candidate_ids"], frame["n_multi_piece"], strict=True):
        pieces = [word_ids(tiny_bert.tokenizer, c) for c in choices]
        assert list(ids) == [p.ids[0] for p in pieces]
        assert multi == sum(len(p.ids) > 1 for p in pieces)
    assert frame["kept"].tolist() == [True, False]
    assert frame["skip_reason"].tolist() == ["", "unknown_choice"]


def test_encoder_runs_once_per_item_in_token_budget_batches(tiny_bert, with_budget):
    items = age_items(5, 3)
    ENCODER_COUNTS.reset()
    encode_mask_states(with_budget(tiny_bert, 10**6), items)
    assert ENCODER_COUNTS.passes == 1
    assert dict(ENCODER_COUNTS.items) == {("tiny-bert", "age_comparison", "train", "standard"): 5,
                                          ("tiny-bert", "age_comparison", "dev", "standard"): 3}
    ENCODER_COUNTS.reset()
    encode_mask_states(with_budget(tiny_bert, 1), items)  # every item alone over the budget
    assert ENCODER_COUNTS.passes == len(items)


def test_cache_round_trip_is_exact_and_deterministic(tiny_roberta, tmp_path):
    frame = encode_mask_states(tiny_roberta, age_items())
    rows, states = split_hidden(frame)
    write_hidden_cache(frame, tmp_path / "a.parquet", {"model": "tiny-roberta"})
    write_hidden_cache(encode_mask_states(tiny_roberta, age_items()), tmp_path / "b.parquet", {"model": "tiny-roberta"})
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    read_rows, read_states = read_hidden_cache(tmp_path / "a.parquet")
    assert torch.equal(read_states, states)
    pd.testing.assert_frame_equal(read_rows.assign(candidate_ids=read_rows["candidate_ids"].map(list)),
                                  rows.assign(candidate_ids=rows["candidate_ids"].map(list)), check_dtype=False)
    assert read_metadata(tmp_path / "a.parquet") == {"model": "tiny-roberta", "hidden_size": 64}
    stored = pq.read_schema(tmp_path / "a.parquet").field("hidden").type
    assert (stored.list_size, stored.value_type) == (64, pa.float32())


def test_bad_items_and_files_are_named(tiny_bert, tiny_gpt2, tmp_path):
    qa = make_item("property_conjunction", "release", "standard", "dev", 1, id="q", stem="What is x?",
                   choices=["a", "b", "c"], answer=0)
    with pytest.raises(HiddenCacheError, match="property_conjunction:release:standard:dev:1"):
        encode_mask_states(tiny_bert, pd.DataFrame([qa]))
    two = make_item("age_comparison", "generated", "standard", "dev", 7, id="t", stem="[MASK] and [MASK]",
                    choices=["a", "b"], answer=0)
    with pytest.raises(HiddenCacheError, match="age_comparison:generated:standard:dev:7"):
        encode_mask_states(tiny_bert, pd.DataFrame([two]))
    with pytest.raises(HiddenCacheError, match="masked LM"):
        encode_mask_states(tiny_gpt2, age_items(1, 0))
    (tmp_path / "bad.parquet").write_text("nope")
    with pytest.raises(HiddenCacheError, match="bad.parquet"):
        read_hidden_cache(tmp_path / "bad.parquet")
