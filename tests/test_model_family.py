"""A model folder whose attention does not fit its configured ``family`` is refused when loaded,
naming the model and the folder; every causal type of the zoo passes the look-ahead probe. So is a
folder whose tokenizer, config or weights transformers cannot load or that do not fit each other,
and a spec that config.yaml's schema would refuse, naming the file or the option."""

from __future__ import annotations

import json
import re
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


def load(slug: str, family: str, folder: Path, dtype: str = "float32", **options) -> LM:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_lm(slug, {"family": family, "path": str(folder), "dtype": dtype, **options}, folder, "cpu")


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


def roberta_as_vocab_and_merges(tiny_dir, folder: Path) -> Path:
    """The tiny RoBERTa as older hub checkpoints ship it: ``vocab.json`` and ``merges.txt``, a config naming
    ``<mask>`` as a plain string, no ``tokenizer.json`` (transformers 5 then builds a mask without ``lstrip``)."""
    source = tiny_dir("roberta")
    folder.mkdir()
    for name in ("config.json", "model.safetensors"):
        shutil.copy(source / name, folder / name)
    bpe = json.loads((source / "tokenizer.json").read_text())["model"]
    (folder / "vocab.json").write_text(json.dumps(bpe["vocab"]))
    merges = [" ".join(merge) if isinstance(merge, list) else merge for merge in bpe["merges"]]
    (folder / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n")
    settings = json.loads((source / "tokenizer_config.json").read_text())
    settings.pop("backend", None)
    (folder / "tokenizer_config.json").write_text(json.dumps(settings))
    return folder


def test_a_mask_that_leaves_the_space_before_it_a_token_is_made_to_strip_it(tiny_dir, tmp_path, caplog):
    """Without it "a robin is a <mask> ." reaches the model as ... Ġa Ġ <mask> Ġ. and every masked
    query predicts from another input than the released RoBERTa connector's."""
    from transformers import AutoTokenizer

    from lmprobes.engine import mask_predictions

    folder = roberta_as_vocab_and_merges(tiny_dir, tmp_path / "roberta")
    query = "a robin is a <mask> ."
    as_built = AutoTokenizer.from_pretrained(folder)
    pieces = as_built.convert_ids_to_tokens(as_built(query)["input_ids"])
    assert pieces[pieces.index("<mask>") - 2:pieces.index("<mask>")] == ["Ġa", "Ġ"]
    with caplog.at_level("WARNING", logger="lmprobes.models"):
        lm = load("mine", "masked", folder)
    assert "mine: the tokenizer's mask token '<mask>' left the space before it as a token of its own" in caplog.text
    released = load("tiny-roberta", "masked", tiny_dir("roberta"))  # its tokenizer.json's mask strips the space
    assert lm.tokenizer(query)["input_ids"] == released.tokenizer(query)["input_ids"]
    (got,), (want,) = (mask_predictions(model, [query], progress=False) for model in (lm, released))
    assert got.top_ids == want.top_ids and got.top_logprobs == pytest.approx(want.top_logprobs, abs=1e-6)


def test_a_tokenizer_that_splits_its_mask_token_is_refused_naming_it(tiny_dir, tmp_path):
    folder = Path(shutil.copytree(tiny_dir("bert"), tmp_path / "bert"))
    settings = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(json.dumps({**settings, "split_special_tokens": True}))
    split = re.escape(f"model 'mine': the tokenizer in {folder} encodes 'a [MASK]' as ['a', '[UNK]', ") + r"'\S+'.*"
    with pytest.raises(ModelError, match=split + re.escape(", not as 'a' followed by its mask token '[MASK]'")):
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


# ---------------------------------------------------------------------------------------------
# A folder whose tokenizer, config or weights are broken, or a spec the schema would refuse, is
# refused naming the model, the folder and the file or option.


def copied(tiny_dir, arch: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(tiny_dir(arch), tmp_path / arch))


def edit_config(folder: Path, **changes) -> None:
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, **changes}))


FAMILY = {"bert": "masked", "gpt2": "causal"}


@pytest.mark.parametrize("arch", ["bert", "gpt2"])
def test_a_folder_without_tokenizer_files_is_refused_naming_them(arch, tiny_dir, tmp_path, monkeypatch):
    """transformers 5 builds an empty tokenizer for such a folder (BERT: 5 tokens, GPT-2: 1), so every
    word would be unknown and the run would score noise."""
    folder = copied(tiny_dir, arch, tmp_path)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (folder / name).unlink()
    weights_never_load(monkeypatch)
    with pytest.raises(ModelError, match=f"model 'mine': no tokenizer files in {re.escape(str(folder))} "
                                         r"\(looked for tokenizer\.json, tokenizer_config\.json, vocab\.txt, "
                                         r"vocab\.json, merges\.txt, bpe\.codes, \*\.model\)"):
        load("mine", FAMILY[arch], folder)


@pytest.mark.parametrize("arch", ["bert", "gpt2"])
def test_a_tokenizer_without_its_vocabulary_is_refused(arch, tiny_dir, tmp_path):
    """tokenizer_config.json alone (its vocabulary file lost) gives the same empty tokenizer."""
    folder = copied(tiny_dir, arch, tmp_path)
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ModelError, match=f"model 'mine': the tokenizer in {re.escape(str(folder))} has [1-5] tokens "
                                         "for the model's 1200 input embeddings"):
        load("mine", FAMILY[arch], folder)


def test_a_folder_with_only_its_vocabulary_file_loads(tiny_dir, tmp_path):
    """vocab.txt alone makes a BERT tokenizer: no more than that is asked of a folder."""
    folder = copied(tiny_dir, "bert", tmp_path)
    vocab = json.loads((folder / "tokenizer.json").read_text())["model"]["vocab"]
    (folder / "vocab.txt").write_text("".join(f"{token}\n" for token in sorted(vocab, key=vocab.get)))
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (folder / name).unlink()
    assert len(load("mine", "masked", folder).tokenizer) == 1200


def test_a_tokenizer_with_ids_beyond_the_embeddings_is_refused(tiny_dir, tmp_path):
    from transformers import AutoTokenizer

    folder = copied(tiny_dir, "bert", tmp_path)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.add_tokens(["quokka", "axolotl"])  # ids 1200 and 1201, beyond the 1200 rows
    tokenizer.save_pretrained(folder)
    with pytest.raises(ModelError, match=f"model 'mine': the tokenizer in {re.escape(str(folder))} has ids up to "
                                         "1201, but the model has 1200 input embeddings"):
        load("mine", "masked", folder)


def test_embeddings_padded_beyond_the_tokenizer_load(tiny_bert, tmp_path):
    """Rows padded past the tokenizer's tokens (t5: 32100 tokens, 32128 rows) are no mismatch."""
    from transformers import BertConfig, BertForMaskedLM

    folder = tmp_path / "padded"
    BertForMaskedLM(BertConfig(vocab_size=1280, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                               intermediate_size=64)).save_pretrained(folder)
    tiny_bert.tokenizer.save_pretrained(folder)
    assert load("mine", "masked", folder).model.get_input_embeddings().num_embeddings == 1280


def test_a_tokenizer_file_that_is_not_json_is_named(tiny_dir, tmp_path):
    folder = copied(tiny_dir, "bert", tmp_path)
    (folder / "tokenizer.json").write_text("{not json")
    with pytest.raises(ModelError, match=f"model 'mine': {re.escape(str(folder / 'tokenizer.json'))} is not valid "
                                         "JSON \\(Expecting property name") as caught:
        load("mine", "masked", folder)
    assert isinstance(caught.value.__cause__, json.JSONDecodeError)


def test_a_tokenizer_transformers_cannot_read_is_named(tiny_dir, tmp_path):
    folder = copied(tiny_dir, "bert", tmp_path)
    (folder / "tokenizer.json").write_text('{"version": "1.0"}')
    with pytest.raises(ModelError, match=f"model 'mine': the tokenizer files in {re.escape(str(folder))} "
                                         r"\(tokenizer\.json, tokenizer_config\.json\) cannot be loaded "
                                         r"\(KeyError: 'added_tokens'\)") as caught:
        load("mine", "masked", folder)
    assert isinstance(caught.value.__cause__, KeyError)


def test_an_unknown_model_type_is_named_with_its_config(tiny_dir, tmp_path):
    folder = copied(tiny_dir, "bert", tmp_path)
    edit_config(folder, model_type="bertt")
    with pytest.raises(ModelError, match=f"model 'mine': {re.escape(str(folder / 'config.json'))} cannot be loaded "
                                         r"\(ValueError: The checkpoint you are trying to load has model type "
                                         "`bertt`") as caught:
        load("mine", "masked", folder)
    assert isinstance(caught.value.__cause__, ValueError)


@pytest.mark.parametrize("allow_missing_weights", [False, True])
def test_weights_of_other_shapes_than_the_config_are_named(allow_missing_weights, tiny_dir, tmp_path):
    """A config.json that does not describe the weights is refused even with allow_missing_weights: its
    weights are there, the model transformers would build is another one."""
    folder = copied(tiny_dir, "bert", tmp_path)
    edit_config(folder, hidden_size=128)
    with pytest.raises(ModelError, match=f"model 'mine': the weights of 39 tensors in {re.escape(str(folder))} do "
                                         r"not have the shapes its config\.json gives BertForMaskedLM "
                                         r"\(bert\.embeddings\.LayerNorm\.bias: 64 in the weights, 128 in the "
                                         r"config.*\); config\.json and weights come from different models"):
        load("mine", "masked", folder, allow_missing_weights=allow_missing_weights)


@pytest.mark.parametrize(("change", "named"), [
    ({"dtype": "fp16"}, r"dtype: 'fp16' is not one of \['float32', 'bfloat16', 'float16'\]"),
    ({"family": "encoder"}, r"family: 'encoder' is not one of \['masked', 'causal'\]"),
    ({"packing": "tree"}, r"packing: 'tree' is not one of \['auto', 'trie', 'none'\]"),
    ({"batch_tokens": 0}, "batch_tokens: 0 is less than the minimum of 16"),
    ({"allow_pickle": "yes"}, "allow_pickle: 'yes' is not of type 'boolean'"),
    ({"start_token": "eot"}, r"start_token: 'eot' is not one of \['auto', 'bos', 'eos'\]"),
])
def test_a_spec_value_the_schema_refuses_is_named(change, named, tiny_dir, monkeypatch):
    weights_never_load(monkeypatch)
    with pytest.raises(ModelError, match=f"model 'mine': {named}"):
        load_lm("mine", {"family": "masked", **change}, tiny_dir("bert"), "cpu")


def test_start_token_reaches_the_loaded_model(tiny_dir):
    lm = load_lm("mine", {"family": "causal", "start_token": "eos"}, tiny_dir("gpt2"), "cpu")
    assert lm.start == "eos" and lm.start_token() == (lm.tokenizer.eos_token_id, "eos")


def test_a_spec_without_a_family_is_named(tiny_dir, monkeypatch):
    weights_never_load(monkeypatch)
    with pytest.raises(ModelError, match=r"model 'mine': no family given \(one of masked, causal\)"):
        load_lm("mine", {"dtype": "float32"}, tiny_dir("bert"), "cpu")


def test_an_unknown_device_is_named(tiny_dir, monkeypatch):
    weights_never_load(monkeypatch)
    with pytest.raises(ModelError, match=r"device: 'gpu' is not one of \['auto', 'cpu', 'cuda'\]"):
        load_lm("mine", {"family": "masked"}, tiny_dir("bert"), "gpu")


def test_cuda_without_a_cuda_device_is_named(tiny_dir, monkeypatch):
    weights_never_load(monkeypatch)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ModelError, match=r"^device: cuda was asked for but torch sees no CUDA device$"):
        load_lm("mine", {"family": "masked"}, tiny_dir("bert"), "cuda")


def test_a_folder_without_config_json_is_named(tmp_path, monkeypatch):
    # A `path:` model folder not yet filled (or a hub download that did not finish).
    weights_never_load(monkeypatch)
    with pytest.raises(ModelError, match=rf"^model 'mine': no config.json in {re.escape(str(tmp_path))} "
                                         r"\(download or build it first\)$"):
        load_lm("mine", {"family": "masked"}, tmp_path, "cpu")


def test_a_missing_weights_shard_is_named_and_still_an_os_error(tiny_dir, tmp_path):
    from safetensors.torch import load_file

    folder = copied(tiny_dir, "bert", tmp_path)
    names = sorted(load_file(folder / "model.safetensors"))
    (folder / "model.safetensors").rename(folder / "model-00001-of-00002.safetensors")
    shards = {name: f"model-0000{1 + index % 2}-of-00002.safetensors" for index, name in enumerate(names)}
    (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": shards}))
    with pytest.raises(OSError, match=f"model 'mine': the weights in {re.escape(str(folder))} cannot be loaded as a "
                                      r"masked LM \(FileNotFoundError: .*model-00002-of-00002\.safetensors") as caught:
        load("mine", "masked", folder)
    assert isinstance(caught.value, ModelError)


class SizedTokenizer:
    """A tokenizer of ``size`` tokens with ids 0 to size - 1, as far as ``check_tokenizer_size`` looks."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size

    def get_vocab(self) -> dict[str, int]:
        return {str(token): token for token in range(self.size)}


# (tokens, embedding rows) of real checkpoints: bert-base-cased, gpt2, roberta-base, t5-base, Qwen2.5-0.5B, phi-2.
@pytest.mark.parametrize(("tokens", "rows"), [(28996, 28996), (50257, 50257), (50265, 50265), (32100, 32128),
                                              (151665, 151936), (50295, 51200)])
def test_the_tokenizer_size_check_passes_real_checkpoints(tokens, rows):
    from types import SimpleNamespace

    from lmprobes.models import check_tokenizer_size

    model = SimpleNamespace(get_input_embeddings=lambda: SimpleNamespace(num_embeddings=rows))
    check_tokenizer_size("real", Path("folder"), SizedTokenizer(tokens), model)
    with pytest.raises(ModelError, match=f"has 5 tokens for the model's {rows} input embeddings"):
        check_tokenizer_size("real", Path("folder"), SizedTokenizer(5), model)


def test_the_loading_options_reach_the_loaded_model_unchanged(tiny_dir):
    spec = {"family": "causal", "dtype": "bfloat16", "batch_tokens": 512, "packing": "none", "padding": "equal_length",
            "head_dtype": "float32"}
    lm = load_lm("mine", spec, tiny_dir("gpt2"), "cpu")
    assert (lm.dtype, lm.batch_tokens, lm.packing, lm.padding, lm.head_dtype) == (
        torch.bfloat16, 512, "none", "equal_length", "float32")
    assert lm.model.get_input_embeddings().weight.dtype == torch.bfloat16


def test_a_spec_with_only_a_family_loads_with_the_schema_defaults(tiny_dir):
    lm = load_lm("mine", {"family": "masked"}, tiny_dir("bert"), "cpu")
    assert (lm.dtype, lm.batch_tokens, lm.packing, lm.padding, lm.head_dtype, lm.start) == (
        torch.float32, 8192, "auto", "auto", "auto", "auto")
    assert lm.model.get_input_embeddings().weight.dtype == torch.float32


def test_a_masked_model_whose_tokenizer_has_no_mask_token_is_refused_naming_it(tiny_dir, monkeypatch):
    weights_never_load(monkeypatch)
    folder = tiny_dir("gpt2")
    with pytest.raises(ModelError, match=rf"^model 'mine': the tokenizer in {re.escape(str(folder))} has no mask "
                                         r"token, so it cannot be scored as a masked LM \(family: masked\)$"):
        load_lm("mine", {"family": "masked"}, folder, "cpu")


def test_an_eos_token_beyond_the_embeddings_of_a_causal_model_is_refused_naming_it(tiny_dir, tmp_path):
    folder = copied(tiny_dir, "gpt2", tmp_path)
    settings = json.loads((folder / "tokenizer_config.json").read_text())
    (folder / "tokenizer_config.json").write_text(json.dumps({**settings, "eos_token": "<eos>"}))  # a new id
    with pytest.raises(ModelError, match=f"model 'mine': the tokenizer in {re.escape(str(folder))} gives its eos_token "
                                         "'<eos>' the id 1200, but the model has 1200 input embeddings"):
        load("mine", "causal", folder)


def test_a_tokenizer_one_id_beyond_the_embeddings_is_refused(tiny_dir, tmp_path):
    from transformers import AutoTokenizer

    folder = copied(tiny_dir, "bert", tmp_path)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.add_tokens(["quokka"])  # id 1200, the first beyond the 1200 rows
    tokenizer.save_pretrained(folder)
    with pytest.raises(ModelError, match=f"model 'mine': the tokenizer in {re.escape(str(folder))} has ids up to "
                                         "1200, but the model has 1200 input embeddings"):
        load("mine", "masked", folder)


def test_an_xlm_trained_as_a_causal_lm_passes_the_family_check():
    """XLM says ``causal`` where other encoders say ``is_decoder`` (xlm-clm-enfr-1024 is a causal LM): it is
    read, and named, in both directions."""
    from transformers import XLMConfig

    from lmprobes.models import check_family_config

    check_family_config("xlm-clm", "causal", XLMConfig(causal=True), "XLMWithLMHeadModel", Path("xlm-clm"))
    with pytest.raises(ModelError, match="model 'xlm-mlm': xlm-mlm holds a 'xlm' encoder, which XLMWithLMHeadModel "
                                         "runs with attention both ways unless its config sets causal,"):
        check_family_config("xlm-mlm", "causal", XLMConfig(), "XLMWithLMHeadModel", Path("xlm-mlm"))
    with pytest.raises(ModelError, match=r"model 'xlm-clm': xlm-clm/config\.json sets causal, so its attention is causal"):
        check_family_config("xlm-clm", "masked", XLMConfig(causal=True), "XLMWithLMHeadModel", Path("xlm-clm"))
