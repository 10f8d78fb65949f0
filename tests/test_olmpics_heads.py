"""MLM head extraction and probes: logits at init equal the model's own, parameters are untied copies."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from lmprobes.engine import word_ids
from lmprobes.engine.lm import LM
from lmprobes.suites.olmpics.heads import (
    TORCH_ACTIVATIONS,
    HeadError,
    LinearProbe,
    MlpMlmProbe,
    activation_module,
    extract_head,
    load_head,
    local_indices,
    make_probe,
    save_head,
)

STEMS = ["A 24 year old person age is {} than a 55 year old person.", "The cat is {} than the dog."]
WORDS = ["younger", "older", "the", "cat", "dog", "person"]


def _candidate_ids(lm: LM) -> list[int]:
    return [word_ids(lm.tokenizer, w).first_id for w in WORDS]


def _reference(lm: LM) -> tuple[torch.Tensor, torch.Tensor]:
    """Final hidden states and full-vocabulary logits at each stem's mask, from one full forward."""
    texts = [s.format(lm.tokenizer.mask_token) for s in STEMS]
    inputs = lm.tokenizer(texts, return_tensors="pt", padding=True)
    with torch.no_grad():
        out = lm.model(**inputs, output_hidden_states=True)
    rows, columns = (inputs["input_ids"] == lm.tokenizer.mask_token_id).nonzero(as_tuple=True)
    return out.hidden_states[-1][rows, columns], out.logits[rows, columns]


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_roberta"])
@pytest.mark.parametrize("probe_class", [MlpMlmProbe, LinearProbe])
def test_probe_logits_at_init_equal_the_models_mlm_logits(request, fixture, probe_class):
    lm = request.getfixturevalue(fixture)
    ids = _candidate_ids(lm)
    head = extract_head(lm, ids)
    hidden, logits = _reference(lm)
    probe = probe_class(head)
    # each row asks for the candidates in a different order: local indices must follow it
    rows = [ids[:3], ids[::-1][:3]]
    got = probe(hidden, local_indices(probe.candidate_ids, rows))
    expected = torch.stack([logits[i, rows[i]] for i in range(len(rows))])
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-5)


def test_task_subset_of_the_head_rows_gives_the_same_logits(tiny_bert):
    ids = _candidate_ids(tiny_bert)
    head = extract_head(tiny_bert, ids)
    hidden, logits = _reference(tiny_bert)
    task_ids = [ids[1], ids[0]]
    probe = MlpMlmProbe(head, task_ids)
    assert probe.decoder.weight.shape[0] == 2
    got = probe(hidden, torch.tensor([[0, 1], [1, 0]]))
    expected = torch.stack([logits[0, [ids[1], ids[0]]], logits[1, [ids[0], ids[1]]]])
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-5)


def test_extracted_rows_are_the_decoder_rows_of_sorted_unique_ids(tiny_roberta):
    ids = _candidate_ids(tiny_roberta)
    head = extract_head(tiny_roberta, ids + ids[:2])
    assert head.candidate_ids == tuple(sorted(set(ids)))
    decoder = tiny_roberta.model.get_output_embeddings()
    for row, token in enumerate(head.candidate_ids):
        assert torch.equal(head.decoder_weight[row], decoder.weight[token].detach())
        assert torch.equal(head.decoder_bias[row], decoder.bias[token].detach())
    assert head.activation == "gelu" and head.model_type == "roberta"


def test_only_linear_freezes_dense_and_layer_norm(tiny_bert):
    head = extract_head(tiny_bert, _candidate_ids(tiny_bert))
    trainable = {s: {n for n, p in make_probe(s, head).named_parameters() if p.requires_grad}
                 for s in ("mlp_mlm", "linear")}
    assert trainable["linear"] == {"decoder.weight", "decoder.bias"}
    assert trainable["mlp_mlm"] == {"decoder.weight", "decoder.bias", "dense.weight", "dense.bias",
                                    "layer_norm.weight", "layer_norm.bias"}
    with pytest.raises(HeadError, match="unknown MC-MLM probe setting 'mlp'"):
        make_probe("mlp", head)


def test_probes_are_fresh_untied_copies(tiny_bert):
    ids = _candidate_ids(tiny_bert)
    embeddings = tiny_bert.model.get_input_embeddings().weight.detach().clone()
    head = extract_head(tiny_bert, ids)
    first, second = MlpMlmProbe(head), MlpMlmProbe(head)
    before = head.decoder_weight.clone()
    with torch.no_grad():
        first.decoder.weight.add_(1.0)
        first.dense.weight.add_(1.0)
    assert torch.equal(second.decoder.weight, before)
    assert torch.equal(head.decoder_weight, before)
    assert torch.equal(second.dense.weight, head.dense_weight)
    assert torch.equal(tiny_bert.model.get_input_embeddings().weight, embeddings)


def test_save_load_round_trip_is_byte_deterministic(tiny_roberta, tmp_path):
    head = extract_head(tiny_roberta, _candidate_ids(tiny_roberta))
    save_head(head, tmp_path / "a.safetensors")
    save_head(extract_head(tiny_roberta, _candidate_ids(tiny_roberta)), tmp_path / "b.safetensors")
    assert (tmp_path / "a.safetensors").read_bytes() == (tmp_path / "b.safetensors").read_bytes()
    loaded = load_head(tmp_path / "a.safetensors")
    assert (loaded.candidate_ids, loaded.activation, loaded.eps, loaded.model_type) == \
           (head.candidate_ids, head.activation, head.eps, head.model_type)
    for name, tensor in head.tensors().items():
        assert torch.equal(getattr(loaded, name), tensor), name


def test_load_head_names_a_bad_file(tmp_path):
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a head")
    with pytest.raises(HeadError, match="bad.safetensors"):
        load_head(bad)


def test_unsupported_architecture_and_bad_ids_are_named(tiny_gpt2, tiny_bert):
    with pytest.raises(HeadError, match="'gpt2'"):
        extract_head(tiny_gpt2, [1, 2])
    with pytest.raises(HeadError, match=r"outside the vocabulary"):
        extract_head(tiny_bert, [tiny_bert.vocab_size])
    head = extract_head(tiny_bert, [5, 6])
    with pytest.raises(HeadError, match=r"\[7\] are not among"):
        MlpMlmProbe(head, [5, 7])


def _random_lm(model: torch.nn.Module) -> LM:
    return LM(name=type(model).__name__, model=model.eval(), tokenizer=None, family="masked")


@pytest.mark.parametrize("arch", ["distilbert", "albert"])
def test_distilbert_and_albert_heads_match_their_full_forward(arch):
    from transformers import AlbertConfig, AlbertForMaskedLM, DistilBertConfig, DistilBertForMaskedLM

    torch.manual_seed(0)
    if arch == "distilbert":
        model = DistilBertForMaskedLM(DistilBertConfig(vocab_size=50, dim=16, n_layers=1, n_heads=2, hidden_dim=32))
    else:
        model = AlbertForMaskedLM(AlbertConfig(vocab_size=50, embedding_size=8, hidden_size=16, num_hidden_layers=1,
                                               num_attention_heads=2, intermediate_size=32, hidden_act="gelu_new"))
    lm = _random_lm(model)
    input_ids = torch.randint(5, 50, (3, 7))
    with torch.no_grad():
        out = model(input_ids=input_ids, output_hidden_states=True)
    ids = [9, 3, 41, 17]
    head = extract_head(lm, ids)
    assert head.model_type == arch
    probe = LinearProbe(head)
    candidates = torch.tensor([[0, 1, 2, 3]] * 3)
    got = probe(out.hidden_states[-1][:, 4], candidates)
    torch.testing.assert_close(got, out.logits[:, 4][:, sorted(ids)], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(TORCH_ACTIVATIONS))
def test_torch_activations_compute_what_transformers_does_bit_for_bit(name):
    from transformers.activations import ACT2FN

    x = torch.cat([torch.randn(4096, generator=torch.Generator().manual_seed(0)) * 4, torch.tensor([0.0, -30.0, 30.0])])
    assert torch.equal(activation_module(name)(x), ACT2FN[name](x))


def test_other_activations_come_from_transformers_and_unknown_ones_are_refused(tiny_bert):
    head = extract_head(tiny_bert, _candidate_ids(tiny_bert))
    probe = MlpMlmProbe(dataclasses.replace(head, activation="gelu_new"))
    assert type(probe.activation).__name__ == "NewGELUActivation"
    with pytest.raises(HeadError, match="MLM head activation 'gelu_nope' is not a known transformers activation"):
        dataclasses.replace(head, activation="gelu_nope")
