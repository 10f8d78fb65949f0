"""A model folder whose attention does not fit its configured ``family`` is refused when loaded,
naming the model and the folder; every causal type of the zoo passes the look-ahead probe."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest
import torch
from model_zoo import CAUSAL, UNCHECKED_CAUSAL, ZOO_CAUSAL, random_model

from lmprobes.engine.lm import LM
from lmprobes.engine.runner import sees_later_tokens
from lmprobes.models import ModelError, load_lm


def saved_masked(model_type: str, tokenizer, folder: Path) -> Path:
    model = random_model(model_type, tokenizer, "masked")
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def load(slug: str, family: str, folder: Path, dtype: str = "float32") -> LM:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_lm(slug, {"family": family, "path": str(folder), "dtype": dtype}, folder, "cpu")


# Encoders that transformers also has a causal class for: loaded by it without ``is_decoder``, each
# attends both ways, in any dtype (the probe alone misses a random tiny encoder in bfloat16).
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("model_type", ["bert", "roberta", "xlm-roberta", "electra"])
def test_an_encoder_configured_as_causal_is_refused(model_type, dtype, tiny_bert, tmp_path):
    folder = saved_masked(model_type, tiny_bert.tokenizer, tmp_path / model_type)
    with pytest.raises(ModelError, match=f"model 'mine': {folder} holds a '{model_type}' encoder, which "
                                         r"\w+ runs with attention both ways unless its config sets is_decoder"):
        load("mine", "causal", folder, dtype)
    assert load("mine", "masked", folder, dtype).family == "masked"


def test_an_encoder_flagged_as_a_decoder_is_a_causal_lm(tiny_bert, tmp_path):
    folder = saved_masked("bert", tiny_bert.tokenizer, tmp_path / "bert")
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "is_decoder": True}))
    assert load("mine", "causal", folder).family == "causal"


def test_a_model_that_looks_ahead_on_the_probe_is_refused(tiny_gpt2, tmp_path):
    """XLNet, no encoder type, attends both ways when run without a permutation mask."""
    from transformers import XLNetConfig, XLNetLMHeadModel

    torch.manual_seed(0)
    model = XLNetLMHeadModel(XLNetConfig(vocab_size=len(tiny_gpt2.tokenizer), d_model=32, n_layer=2, n_head=2,
                                         d_inner=64))
    folder = tmp_path / "xlnet"
    model.save_pretrained(folder)
    tiny_gpt2.tokenizer.save_pretrained(folder)
    with pytest.raises(ModelError, match=f"model 'mine': {folder} loaded as a causal LM \\(XLNetLMHeadModel\\) "
                                         "looks ahead"):
        load("mine", "causal", folder)


def test_a_type_without_a_class_of_the_family_is_named_with_its_family(tiny_bert, tmp_path):
    folder = saved_masked("albert", tiny_bert.tokenizer, tmp_path / "albert")
    with pytest.raises(ModelError, match=f"model 'mine': {folder} holds a 'albert' model, which transformers has "
                                         "no causal LM class for; is its `family: causal`"):
        load("mine", "causal", folder)


def test_a_masked_model_flagged_as_a_decoder_is_refused(tiny_dir, tmp_path):
    folder = Path(shutil.copytree(tiny_dir("bert"), tmp_path / "bert"))
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "is_decoder": True}))
    with pytest.raises(ModelError, match="model 'mine': .*config.json sets is_decoder, so its attention is causal"):
        load("mine", "masked", folder)


def test_a_mask_token_beyond_the_embeddings_is_refused_naming_it(tiny_dir, tmp_path):
    folder = Path(shutil.copytree(tiny_dir("bert"), tmp_path / "bert"))
    settings = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(json.dumps({**settings, "mask_token": "<mask>"}))  # a new id
    rows = json.loads((folder / "config.json").read_text())["vocab_size"]
    with pytest.raises(ModelError, match=f"model 'mine': the tokenizer in {folder} gives its mask_token '<mask>' "
                                         f"the id {rows}, but the model has {rows} input embeddings"):
        load("mine", "masked", folder)


def test_a_damaged_weights_file_is_named(tiny_dir, tmp_path):
    folder = Path(shutil.copytree(tiny_dir("gpt2"), tmp_path / "gpt2"))
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    with pytest.raises(ModelError, match=f"model 'mine': model.safetensors in {folder} cannot be read"):
        load("mine", "causal", folder)


@pytest.mark.parametrize("model_type", sorted(set(CAUSAL) - set(ZOO_CAUSAL) | set(UNCHECKED_CAUSAL)))
def test_causal_types_the_zoo_test_does_not_load_do_not_look_ahead(model_type, tiny_gpt2):
    """The zoo test loads ``ZOO_CAUSAL`` through ``load_lm``, so the probe passes them; these are the rest
    (and the types outside the engine's checked list)."""
    lm = LM(name=model_type, model=random_model(model_type, tiny_gpt2.tokenizer, "causal"),
            tokenizer=tiny_gpt2.tokenizer, family="causal")
    assert not sees_later_tokens(lm)


def test_the_probe_sees_a_bidirectional_model_and_not_a_causal_one(tiny_bert, tiny_gpt2):
    assert not sees_later_tokens(tiny_gpt2)
    as_causal = LM(name="bert", model=tiny_bert.model, tokenizer=tiny_bert.tokenizer, family="causal")
    assert sees_later_tokens(as_causal)


def weights_never_load(monkeypatch) -> None:
    import transformers

    def refuse(*args, **kwargs):
        raise AssertionError("the weights were loaded")

    for auto in (transformers.AutoModelForCausalLM, transformers.AutoModelForMaskedLM):
        monkeypatch.setattr(auto, "from_pretrained", refuse)


def test_a_family_mismatch_is_refused_before_the_weights_load(tiny_bert, tiny_dir, tmp_path, monkeypatch):
    """Both config checks run on the class built on the meta device, before any weight is read
    (a large checkpoint would load in minutes, then be refused, then load again on the job's retry)."""
    encoder = saved_masked("bert", tiny_bert.tokenizer, tmp_path / "encoder")
    decoder = Path(shutil.copytree(tiny_dir("bert"), tmp_path / "decoder"))
    config = json.loads((decoder / "config.json").read_text())
    (decoder / "config.json").write_text(json.dumps({**config, "is_decoder": True}))
    weights_never_load(monkeypatch)
    with pytest.raises(ModelError, match=f"model 'mine': {encoder} holds a 'bert' encoder, which BertLMHeadModel"):
        load("mine", "causal", encoder)
    with pytest.raises(ModelError, match="model 'mine': .*config.json sets is_decoder, so its attention is causal"):
        load("mine", "masked", decoder)
    with pytest.raises(AssertionError, match="the weights were loaded"):  # no mismatch: on to the weights
        load("mine", "masked", encoder)


def checked_configs(monkeypatch) -> list[tuple[str, object]]:
    """The (class name, config) of every config check from now on."""
    from lmprobes import models

    seen: list[tuple[str, object]] = []
    check = models.check_family_config

    def recorded(slug, family, config, class_name, model_dir):
        seen.append((class_name, config))
        check(slug, family, config, class_name, model_dir)

    monkeypatch.setattr(models, "check_family_config", recorded)
    return seen


def test_a_class_that_makes_itself_a_decoder_passes_the_check_before_loading(tiny_gpt2, tmp_path, monkeypatch):
    """BART is an encoder type (it has a masked-LM class) whose config.json does not set is_decoder, but
    ``BartForCausalLM`` sets it in ``__init__``: the check on the built class lets it through, where a
    check of config.json alone would refuse it."""
    from transformers import AutoConfig, AutoModelForCausalLM, BartConfig

    from lmprobes.models import check_family_before_loading, check_family_config

    folder = tmp_path / "bart"
    BartConfig(vocab_size=len(tiny_gpt2.tokenizer), d_model=32, encoder_layers=1, decoder_layers=1,
               encoder_attention_heads=2, decoder_attention_heads=2).save_pretrained(folder)
    seen = checked_configs(monkeypatch)
    check_family_before_loading("mine", "causal", AutoModelForCausalLM, folder, False)
    assert [(name, config.is_decoder) for name, config in seen] == [("BartForCausalLM", True)]  # built, then checked
    with pytest.raises(ModelError, match="holds a 'bart' encoder"):
        check_family_config("mine", "causal", AutoConfig.from_pretrained(folder), "BartForCausalLM", folder)


def test_a_class_that_cannot_be_built_is_left_to_the_load(tiny_bert, tmp_path, monkeypatch):
    """A config whose class fails in ``__init__`` (64 wide, 3 heads), or one whose type transformers does
    not know, is not checked before loading: the real load names what is wrong."""
    from transformers import AutoModelForCausalLM

    from lmprobes.models import check_family_before_loading

    broken = saved_masked("bert", tiny_bert.tokenizer, tmp_path / "broken")
    config = json.loads((broken / "config.json").read_text())
    (broken / "config.json").write_text(json.dumps({**config, "hidden_size": 64, "num_attention_heads": 3}))
    unknown = tmp_path / "unknown"
    unknown.mkdir()
    (unknown / "config.json").write_text(json.dumps({"model_type": "no-such-type"}))
    seen = checked_configs(monkeypatch)
    for folder in (broken, unknown):
        check_family_before_loading("mine", "causal", AutoModelForCausalLM, folder, False)  # no error here
    assert seen == []


def test_a_model_with_its_own_code_is_not_built_before_loading(tiny_bert, tmp_path, monkeypatch):
    """``from_config`` would fetch a model's own code without the loader's offline, pinned settings."""
    import transformers
    from transformers import AutoModelForCausalLM

    from lmprobes.models import check_family_before_loading

    folder = saved_masked("bert", tiny_bert.tokenizer, tmp_path / "own-code")
    monkeypatch.setattr(transformers.AutoConfig, "from_pretrained", lambda *a, **k: pytest.fail("config read"))
    monkeypatch.setattr(AutoModelForCausalLM, "from_config", lambda *a, **k: pytest.fail("class built"))
    check_family_before_loading("mine", "causal", AutoModelForCausalLM, folder, True)
