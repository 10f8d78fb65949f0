"""The benchmark command runs end to end (no timing assertions)."""

from __future__ import annotations

import pytest
import torch

from lmprobes import bench


def test_synthetic_items_split_sentences_at_a_word() -> None:
    items = bench.synthetic_items(bench.CORPUS, 50)
    assert len(items) == 50
    for item in items:
        assert item.sentence.startswith(item.context + item.continuation)
        masked = bench.masked_text(item, "[MASK]")
        assert masked.count("[MASK]") == 1 and masked.startswith(item.context + " [MASK]")


@pytest.mark.parametrize(
    ("arch", "primitives"),
    [
        ("bert", ["mask_predictions", "mask_predictions_full_head"]),
        ("gpt2", ["next_token_predictions", "sequence_logprobs", "continuation_logprobs"]),
    ],
)
def test_bench_prints_one_line_per_primitive(tiny_dir, capsys, arch: str, primitives: list[str]) -> None:
    assert bench.main(["--model", str(tiny_dir(arch)), "--n", "20", "--batch-tokens", "128"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("#")]
    assert [line.split()[0] for line in lines] == primitives
    for line in lines:
        assert "items=20" in line and "items/s=" in line and "tokens/s=" in line


def test_bench_runs_bfloat16_linear_layers_around_a_float32_residual_stream(tiny_dir, capsys) -> None:
    argv = ["--model", str(tiny_dir("bert")), "--n", "20", "--batch-tokens", "128", "--dtype", "bfloat16",
            "--residual-dtype", "float32"]
    assert bench.main(argv) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert "dtype=bfloat16 residual_dtype=float32" in header


def test_bench_needs_a_model() -> None:
    with pytest.raises(SystemExit):
        bench.main([])


def test_random_bert_base_times_an_untrained_bert_base_sized_model(capsys, monkeypatch) -> None:
    # The README's `lmprobes-bench --random-bert-base`: no --model, so the tokenizer is trained on the tiny corpus.
    built = []
    load = bench.load_lm
    monkeypatch.setattr(bench, "load_lm", lambda args: built.append(load(args)) or built[-1])
    assert bench.main(["--random-bert-base", "--family", "masked", "--n", "4", "--batch-tokens", "128"]) == 0
    config = built[0].model.config
    assert (config.num_hidden_layers, config.hidden_size, config.num_attention_heads) == (12, 768, 12)
    assert config.vocab_size == 30522 > len(built[0].tokenizer)  # the trained vocabulary, padded to BERT's
    header, *lines = capsys.readouterr().out.splitlines()
    assert header.startswith("# random-bert-base family=masked device=cpu dtype=float32") and "vocab=30522" in header
    assert [line.split()[0] for line in lines] == ["mask_predictions", "mask_predictions_full_head"]


def test_cuda_without_a_cuda_device_is_refused(monkeypatch, capsys) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit):
        bench.main(["--random-bert-base", "--device", "cuda"])
    assert "--device cuda: torch sees no CUDA device" in capsys.readouterr().err


def test_a_model_of_neither_family_asks_for_family(tmp_path) -> None:
    from transformers import BertConfig

    BertConfig(architectures=["BertModel"]).save_pretrained(tmp_path)
    with pytest.raises(SystemExit, match=r"cannot tell the family from architectures 'BertModel'; pass --family"):
        bench.main(["--model", str(tmp_path)])
