"""Session fixtures: the three tiny random-weight models, built once and loaded as ``LM`` objects, and the
demo run the workflow tests share."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from demo_workflow import SharedDemoRun, copy_run
from lmprobes.engine.lm import LM
from lmprobes.tiny import TinySpec, build_tiny_model

CORPUS = Path(__file__).resolve().parents[1] / "resources" / "tiny" / "corpus.txt"
# Small enough that the test texts are really split over several batches.
TEST_BATCH_TOKENS = 256


@pytest.fixture(scope="session", autouse=True)
def one_torch_thread():
    """Every test's tiny models run on one torch thread: two or more cost two to four times the CPU time
    (their matrices are too small to share out), far more with another process on the cores, and
    pytest-xdist gives each of its workers a core of its own. Snakemake's jobs set their own."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def shared_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every process of the session sees: pytest-xdist's workers each have their own base."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session", autouse=True)
def demo_run_started(request, tmp_path_factory):
    """Starts the shared demo run at the session's start when a collected test needs it."""
    if not any("demo_run" in item.fixturenames for item in request.session.items):
        yield None
        return
    run = SharedDemoRun(shared_tmp(tmp_path_factory) / "demo-run")
    run.start()
    yield run
    run.finish(abandon=bool(request.session.shouldfail or request.session.shouldstop))


@pytest.fixture(scope="session")
def demo_run(demo_run_started) -> Path:
    """The finished demo run's folder, shared by every test: copy it (``demo_copy``), never change it."""
    return demo_run_started.wait()


@pytest.fixture
def demo_copy(demo_run, tmp_path) -> Path:
    """A private copy of the finished demo run."""
    return copy_run(demo_run, tmp_path / "demo")


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


# --- a LAMA release in the real format (tests/test_lama_*.py and the workflow test) ---------

RELATIONS = [
    {"relation": "P19", "template": "[X] was born in [Y] .", "label": "place of birth", "type": "N-1"},
    {"relation": "P36", "template": "The capital of [X] is [Y] .", "label": "capital", "type": "1-1"},
    {"relation": "P166", "template": "[X] was awarded the [Y] .", "label": "award received", "type": "N-M"},
]
COMMON_VOCAB = ["Paris", "London", "France", "1941", "Rome", "fly", "linebacker", "Alexandra"]


def _jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def trex(uuid, sub, obj, pid="P19", sub_uri="Q1", obj_uri="Q90"):
    return {"uuid": uuid, "obj_uri": obj_uri, "obj_label": obj, "sub_uri": sub_uri, "sub_label": sub, "predicate_id": pid,
            "evidences": [{"sub_surface": sub, "obj_surface": obj, "masked_sentence": f"{sub} was born in [MASK]."}]}


def google(sub, obj, yes, no):
    judgments = [{"rater": f"r{i}", "judgment": "yes"} for i in range(yes)] + [{"rater": f"s{i}", "judgment": "no"} for i in range(no)]
    return {"pred": "/people/person/place_of_birth", "sub": "/m/0x", "obj": "/m/0y", "evidences": [], "judgments": judgments,
            "sub_w": None, "sub_label": sub, "sub_aliases": [], "obj_w": None, "obj_label": obj, "obj_aliases": [],
            "uuid": f"g-{sub}", "masked_sentences": [f"{sub} was born in [MASK] ."]}


def write_lama_release(root: Path) -> Path:
    """A LAMA release in the real format, small enough to read: every filter fires at least once."""
    data = root / "data"
    _jsonl(data / "relations.jsonl", RELATIONS)
    _jsonl(data / "TREx" / "P19.jsonl", [
        # Subject and object ids of tests/data/trex_raw where a test joins that in (Q7186, Q142, Q90).
        trex("t1", "Allan Peiper", "Alexandra", sub_uri="Q7186", obj_uri="Q2643563"),
        trex("t2", "Ann Smith", "Paris", sub_uri="Q2"),
        trex("t3", "Ann Smith", "Paris", sub_uri="Q2"),            # duplicate (subject, object)
        trex("t4", "Bob Jones", "Saint-Denis", sub_uri="Q3", obj_uri="Q191"),  # object outside the common vocab
    ])
    _jsonl(data / "TREx" / "P36.jsonl", [trex("t5", "France", "Paris", "P36", sub_uri="Q142")])
    _jsonl(data / "Google_RE" / "place_of_birth_test.jsonl", [google("Peter Martin", "London", 1, 4), google("Mary Lee", "Rome", 3, 1)])
    _jsonl(data / "Google_RE" / "date_of_birth_test.jsonl", [google("Peter Martin", "1941", 2, 0)])
    _jsonl(data / "Google_RE" / "place_of_death_test.jsonl", [google("Mary Lee", "Paris", 2, 2)])
    long_sentence = " ".join(["word"] * 100) + " birds can [MASK] ."
    _jsonl(data / "ConceptNet" / "test.jsonl", [
        {"sub": "bird", "obj": "fly", "pred": "CapableOf", "obj_label": "fly", "masked_sentences": ["A bird can [MASK] ."], "uuid": "c1"},
        {"sub": "bird", "obj": "fly", "pred": "CapableOf", "obj_label": "fly", "masked_sentences": [long_sentence], "uuid": "c2"},
    ])
    _jsonl(data / "Squad" / "test.jsonl", [
        {"masked_sentences": ["Von Miller plays in [MASK] position for the Denver Broncos."], "obj_label": "linebacker", "id": "56bf_0", "sub_label": "Squad"},
        {"masked_sentences": ["Von Miller plays in [MASK] position for the Denver Broncos."], "obj_label": "linebacker", "id": "56bf_1", "sub_label": "Squad"},
    ])
    (data / "common_vocab_cased.txt").write_text("\n".join(COMMON_VOCAB) + "\n", encoding="utf-8")
    lowercased = sorted({word.lower() for word in COMMON_VOCAB})
    (data / "common_vocab_lowercased.txt").write_text("\n".join(lowercased) + "\n", encoding="utf-8")
    return data




# ParaRel's relation files for the fixture release's relations, in the real format (yanaiela/pararel,
# data/pattern_data/graphs_json/<relation>.jsonl: one object a line, "pattern" and three fields not
# read): P19 repeats LAMA's own template but for its spacing, and one of its own up to whitespace,
# and puts the object first once; P36 has no file; P166 has no T-REx facts.
PARAREL = {
    "P19": [
        ("[X] was born in [Y].", "born", "born-in", "past"),
        ("[X] is originally from [Y].", "originate", "is-originally-from", "present"),
        ("[X] was originally from [Y].", "originate", "was-originally-from", "past"),
        ("[X]  is originally from [Y].", "originate", "is-originally-from", "present"),
        ("[Y] is the birthplace of [X].", "birthplace", "is-birthplace", "present"),
    ],
    "P166": [("[X] received the [Y].", "receive", "received", "past")],
}
PARAREL_FOLDER = "data/pattern_data/graphs_json"
# The fixture's templates of P19 once read: LAMA's, then ParaRel's less its two repeats.
PARAREL_P19_TEMPLATES = ["[X] was born in [Y] .", "[X] is originally from [Y].", "[X] was originally from [Y].",
                         "[Y] is the birthplace of [X]."]


def write_pararel(root: Path, top: str = "pararel-0123456789abcdef") -> Path:
    """ParaRel's pattern files laid out as in GitHub's archive of its repository (under one top
    folder ``top``); returns the folder of the relation files."""
    folder = root / top / PARAREL_FOLDER
    for relation, patterns in PARAREL.items():
        _jsonl(folder / f"{relation}.jsonl", [{"pattern": pattern, "lemma": lemma, "extended_lemma": extended,
                                               "tense": tense} for pattern, lemma, extended, tense in patterns])
    return folder


@pytest.fixture(scope="session")
def pararel_writer():
    """``writer(root)`` writes the fixture ParaRel files under ``root/<top>/data/pattern_data/graphs_json``."""
    return write_pararel


@pytest.fixture(scope="session")
def lama_release_writer():
    """``writer(root)`` writes the fixture release under ``root/data`` and returns that folder."""
    return write_lama_release


@pytest.fixture(scope="session")
def lama_records():
    """The fixture's record builders, for tests that write their own release files."""
    import types

    return types.SimpleNamespace(jsonl=_jsonl, google=google, trex=trex)
