"""Session fixtures: the three tiny random-weight models, built once and loaded as ``LM`` objects."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from lmprobes.engine.lm import LM
from lmprobes.tiny import TinySpec, build_tiny_model

CORPUS = Path(__file__).resolve().parents[1] / "resources" / "tiny" / "corpus.txt"
# Small enough that the test texts are really split over several batches.
TEST_BATCH_TOKENS = 256


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """``tiny_dir(arch)``: the saved tiny model of ``arch``, built on first use."""
    root = tmp_path_factory.mktemp("tiny")
    built: dict[str, Path] = {}

    def get(arch: str) -> Path:
        if arch not in built:
            built[arch] = build_tiny_model(TinySpec(arch=arch, vocab_size=1200), CORPUS, root / arch)
        return built[arch]

    return get


def load_tiny(path: Path, name: str, family: str) -> LM:
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    auto = AutoModelForMaskedLM if family == "masked" else AutoModelForCausalLM
    model = auto.from_pretrained(path, local_files_only=True, dtype=torch.float32).eval()
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    return LM(name=name, model=model, tokenizer=tokenizer, family=family, batch_tokens=TEST_BATCH_TOKENS, source="tiny")


@pytest.fixture(scope="session")
def tiny_bert(tiny_dir) -> LM:
    return load_tiny(tiny_dir("bert"), "tiny-bert", "masked")


@pytest.fixture(scope="session")
def tiny_roberta(tiny_dir) -> LM:
    return load_tiny(tiny_dir("roberta"), "tiny-roberta", "masked")


@pytest.fixture(scope="session")
def tiny_gpt2(tiny_dir) -> LM:
    return load_tiny(tiny_dir("gpt2"), "tiny-gpt2", "causal")


@pytest.fixture
def with_budget() -> Callable[[LM, int], LM]:
    """``with_budget(lm, n)``: the same model and tokenizer with a token budget of ``n``."""
    return lambda lm, batch_tokens: dataclasses.replace(lm, batch_tokens=batch_tokens)


ETTINGER_RELEASE = (
    Path(__file__).resolve().parents[1]
    / "resources/demo/mirror/raw.githubusercontent.com/aetting/lm-diagnostics"
    / "080de8d8b29a3d6f5fe133af73d7e9170f4d4c0c/datasets"
)


@pytest.fixture(scope="session")
def ettinger_tsvs() -> dict[str, Path]:
    """The released Ettinger TSVs, as bundled for the offline demo."""
    return {
        "cprag": ETTINGER_RELEASE / "CPRAG-102/CPRAG-102.tsv",
        "role": ETTINGER_RELEASE / "ROLE-88/ROLE-88.tsv",
        "neg_simp": ETTINGER_RELEASE / "NEG-136/NEG-136-SIMP.tsv",
        "neg_nat": ETTINGER_RELEASE / "NEG-136/NEG-136-NAT.tsv",
    }
