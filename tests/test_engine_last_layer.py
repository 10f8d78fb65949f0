"""The last layer at the scored rows equals the full encoder's output there."""

from __future__ import annotations

import pytest
import torch

from lmprobes.engine.last_layer import rows_only_tail
from lmprobes.engine.masked import masked_projection

SIZE = {"vocab_size": 99, "hidden_size": 32, "num_hidden_layers": 3, "num_attention_heads": 4, "intermediate_size": 64}


def _encoder(kind: str, **extra) -> torch.nn.Module:
    import transformers

    config_class, model_class = {
        "bert": (transformers.BertConfig, transformers.BertModel),
        "roberta": (transformers.RobertaConfig, transformers.RobertaModel),
        "electra": (transformers.ElectraConfig, transformers.ElectraModel),
        "xlm-roberta": (transformers.XLMRobertaConfig, transformers.XLMRobertaModel),
        "camembert": (transformers.CamembertConfig, transformers.CamembertModel),
    }[kind]
    torch.manual_seed(0)
    return model_class(config_class(**SIZE, **extra)).eval()


@pytest.mark.parametrize("kind", ["bert", "roberta", "electra", "xlm-roberta", "camembert"])
@pytest.mark.parametrize("padded", [False, True])
def test_rows_equal_the_full_last_hidden_state(kind, padded):
    base = _encoder(kind)
    ids = torch.randint(5, 99, (4, 11))
    mask = torch.ones_like(ids)
    if padded:
        mask[1, 7:] = 0
        mask[3, 4:] = 0
    batch_index = torch.tensor([0, 1, 1, 2, 3, 0])
    position_index = torch.tensor([3, 0, 6, 10, 2, 3])
    stack, tail = rows_only_tail(base)
    with torch.inference_mode():
        want = base(input_ids=ids, attention_mask=mask)[0][batch_index, position_index]
        # unpadded batches hand the tail no mask, as the runner does (it knows the lengths on the host)
        got = tail(stack(input_ids=ids, attention_mask=mask)[0], mask if padded else None, batch_index, position_index)
        assert len(base.encoder.layer) == SIZE["num_hidden_layers"]  # restored after the short call
    assert (got - want).abs().max().item() < 1e-5


def test_unchecked_encoders_run_whole():
    from transformers import DistilBertConfig, DistilBertModel

    assert rows_only_tail(DistilBertModel(DistilBertConfig(vocab_size=50, dim=32, n_layers=2, n_heads=4))) is None
    assert rows_only_tail(_encoder("bert", position_embedding_type="relative_key")) is None
    assert rows_only_tail(_encoder("bert", chunk_size_feed_forward=2)) is None


def test_masked_lms_score_through_the_tail(tiny_bert, tiny_roberta):
    # test_engine_pll and test_engine_masked compare these models' scores with plain full forwards.
    assert masked_projection(tiny_bert).tail is not None
    assert masked_projection(tiny_roberta).tail is not None
