"""The benchmark command runs end to end (no timing assertions)."""

from __future__ import annotations

import pytest

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
