"""Random tiny models of HuggingFace architectures, built from a config (no download): one shape
table for the engine's architecture tests (``test_engine_zoo``, ``test_engine_packing``)."""

from __future__ import annotations

import warnings

import torch

SIZES = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}
GQA = {"num_key_value_heads": 1}
# model_type -> config keys added to SIZES; under ``own`` the type names its sizes itself (no SIZES).
MASKED = {
    "bert": {}, "roberta": {}, "xlm-roberta": {}, "camembert": {}, "roberta-prelayernorm": {}, "data2vec-text": {},
    "albert": {"embedding_size": 16}, "electra": {"embedding_size": 16}, "deberta": {}, "deberta-v2": {},
    "mpnet": {}, "megatron-bert": {}, "ernie": {}, "roformer": {}, "esm": {}, "ibert": {},
    "luke": {"entity_vocab_size": 16, "entity_emb_size": 16},  # not its 500,000 x 256 entities (128M weights)
    "rembert": {"input_embedding_size": 16, "output_embedding_size": 16}, "big_bird": {"attention_type": "original_full"},
    "mobilebert": {"embedding_size": 16, "intra_bottleneck_size": 32, "true_hidden_size": 32,
                   "num_feedforward_networks": 1},
    "modernbert": {"global_attn_every_n_layers": 2, "local_attention": 4},  # layer 1 local: a 4-token window
    "longformer": {"attention_window": 4}, "squeezebert": {"embedding_size": 32},
    "distilbert": {"own": {"dim": 32, "n_layers": 2, "n_heads": 2, "hidden_dim": 64}},
    "xlm": {"own": {"emb_dim": 32, "n_layers": 2, "n_heads": 2}},
    "flaubert": {"own": {"emb_dim": 32, "n_layers": 2, "n_heads": 2}},
    "convbert": {}, "fnet": {}, "yoso": {},
    "funnel": {"own": {"block_sizes": [1, 1], "d_model": 32, "n_head": 2, "d_head": 16, "d_inner": 64}},
}
CAUSAL = {
    "gpt2": {"own": {"n_embd": 32, "n_layer": 2, "n_head": 2}}, "opt": {"ffn_dim": 64, "word_embed_proj_dim": 32},
    "bloom": {"n_layer": 2, "n_head": 2},
    "gpt_neo": {"own": {"hidden_size": 32, "num_layers": 2, "num_heads": 2,
                        "attention_types": [[["global", "local"], 1]]}},
    "gptj": {"own": {"n_embd": 32, "n_layer": 2, "n_head": 2, "rotary_dim": 8}}, "falcon": {}, "phi": {},
    "gemma": {"head_dim": 16, **GQA}, "gemma2": {"head_dim": 16, **GQA}, "gemma3_text": {"head_dim": 16, **GQA},
    "cohere": GQA, "granite": GQA, "llama": GQA, "mistral": GQA, "qwen2": GQA, "qwen3": {"head_dim": 16, **GQA},
    "smollm3": GQA, "gpt_neox": {}, "olmo": {}, "olmo2": {}, "starcoder2": {}, "phi3": {},
    "xglm": {"own": {"d_model": 32, "num_layers": 2, "attention_heads": 2, "ffn_dim": 64}},
}
# Causal types outside the engine's checked list (``causal.HEAD_CHECKED_TYPES``), found by the probe:
# two whose forward changes the logits after the output layer, and a plain one.
UNCHECKED_CAUSAL = {
    "recurrent_gemma": {"lru_width": 32, "attention_window_size": 16, "block_types": ["recurrent", "attention"],
                        "head_dim": 16, **GQA},  # logits_soft_cap 30 by default
    "falcon_h1": {"mamba_d_ssm": 32, "mamba_n_heads": 2, "mamba_d_head": 16, "mamba_d_state": 8, "mamba_n_groups": 1,
                  "mamba_chunk_size": 8, "lm_head_multiplier": 0.0390625, **GQA},
    "stablelm": GQA,
}
# A masked type outside ``masked.HEAD_CHECKED_TYPES``, whose head the probe finds plain.
UNCHECKED_MASKED = {"mra": {}}
# The causal types the zoo test loads (the others are checked by the packing tests).
ZOO_CAUSAL = ("gpt2", "opt", "bloom", "gpt_neo", "gptj", "falcon", "phi", "gemma", "gemma2", "cohere", "granite",
              "llama", "mistral", "qwen2", "gpt_neox", "olmo", "starcoder2", "phi3", "xglm")


def random_model(model_type: str, tokenizer, family: str, **config) -> torch.nn.Module:
    """A seeded random ``family`` model of ``model_type`` sized by the tables, around ``tokenizer``, with
    ``config``'s keys set before it is built (GPT-Neo builds its window into a buffer, for one)."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForMaskedLM

    shape = dict((MASKED | UNCHECKED_MASKED if family == "masked" else CAUSAL | UNCHECKED_CAUSAL)[model_type])
    shape = {**(shape.pop("own", None) or {**SIZES, **shape}), **config}
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    config = AutoConfig.for_model(model_type, vocab_size=len(tokenizer), max_position_embeddings=256,
                                  pad_token_id=pad, bos_token_id=tokenizer.bos_token_id,
                                  eos_token_id=tokenizer.eos_token_id, **shape)
    torch.manual_seed(0)
    auto = AutoModelForMaskedLM if family == "masked" else AutoModelForCausalLM
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return auto.from_config(config).eval()
