"""Property-based fuzzing of every input parser: it parses, or raises its own error naming file and line.

For each loader three kinds of input are drawn: arbitrary bytes, JSON-ish variants of a valid
record (fields dropped, fields replaced by arbitrary JSON values, a key repeated), and valid
files mutated at the byte level (bytes deleted, inserted or replaced, the file cut short, a line
repeated). The property (``check_outcome``): the loader returns, or raises its documented error
type, a ValueError subclass, whose message names the file and a line number that exists in the
input (at most one past the last line, where a compressed stream stopped), or, for a problem of
the whole file (an empty one), names the file and says so. Any other exception fails the test.

Wikidata answers have no file: there the "file" is the query's cache key and the "line" the
result row (see lmprobes.suites.lama.wikidata). config.yaml is checked through
``check_config_file`` (the text) and through the schema plus ``check_config`` (the parsed dict).

Hypothesis runs derandomized (the same examples on every run, so CI is reproducible), without an
example database and without deadlines; ``max_examples`` keeps the file well under a minute on
two cores.
"""

from __future__ import annotations

import copy
import gzip
import itertools
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from lmprobes.config import ConfigError, check_config, check_config_file
from lmprobes.suites.blimp.dataset import BlimpDataError, build_blimp
from lmprobes.suites.ettinger import datasets as ettinger
from lmprobes.suites.lama import paraphrases as pararel
from lmprobes.suites.lama import release as lama
from lmprobes.suites.lama.conceptnet import ConceptNetError, iter_english_edges
from lmprobes.suites.lama.wikidata import SparqlClient, WikidataError, WikidataResponseError, cache_key
from lmprobes.suites.olmpics.release import ReleaseError, read_release
from lmprobes.suites.olmpics.wordnet import WordNetError, load_wordnet
from loopback import send, serve_http

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
FUZZ = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FEW = settings(FUZZ, max_examples=50)

# --- the property --------------------------------------------------------------------------


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def check_outcome(load: Callable[[], object], error_type: type[ValueError], path: Path, lines: int,
                  whole_file: tuple[str, ...]) -> None:
    """``load()`` returns, or raises ``error_type`` naming ``path`` and a line in 1..lines+1 (or a whole-file problem)."""
    assert issubclass(error_type, ValueError)
    try:
        load()
    except error_type as error:
        message = str(error)
        named = re.search(re.escape(str(path)) + r"(?::|, line )(\d+): ", message)
        if named:
            assert 1 <= int(named.group(1)) <= lines + 1, message
        else:
            assert message.startswith(f"{path}: ") and any(p in message for p in whole_file), message


# --- strategies ----------------------------------------------------------------------------

SCALARS = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=8)


def json_values(keys: st.SearchStrategy[str]) -> st.SearchStrategy:
    return st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
                        max_leaves=8)


@st.composite
def record_variants(draw, good: dict) -> str:
    """One JSON line: ``good`` with keys dropped and values replaced, or with a key written twice."""
    keys = st.sampled_from(sorted(good)) | st.text(max_size=4)
    record = {k: v for k, v in good.items() if k not in draw(st.sets(st.sampled_from(sorted(good)), max_size=3))}
    record.update(draw(st.dictionaries(keys, json_values(keys), max_size=3)))
    line = json.dumps(record)
    if draw(st.booleans()) and record:
        key = draw(st.sampled_from(sorted(record)))
        line = "{" + json.dumps(key) + ": " + json.dumps(draw(SCALARS)) + ", " + line[1:]
    return line


TOKENS = [b'"', b"{", b"}", b"[", b"]", b",", b":", b"\n", b"\t", b"\r", b"\xff", b"\xc3", b"NaN", b'"a": 1, ',
          b"|", b" ", b"0", b"-1", b"99999999999"]


@st.composite
def mutated(draw, original: bytes) -> bytes:
    """``original`` with 1-3 byte-level edits."""
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["delete", "insert", "replace", "truncate", "repeat-line"]))
        pos = draw(st.integers(0, len(data)))
        if kind == "delete":
            del data[pos:pos + draw(st.integers(1, 20))]
        elif kind == "insert":
            data[pos:pos] = draw(st.sampled_from(TOKENS) | st.binary(min_size=1, max_size=6))
        elif kind == "replace" and data:
            data[min(pos, len(data) - 1)] = draw(st.integers(0, 255))
        elif kind == "truncate":
            del data[pos:]
        else:
            lines = bytes(data).split(b"\n")
            index = draw(st.integers(0, len(lines) - 1))
            data = bytearray(b"\n".join(lines[:index + 1] + lines[index:]))
    return bytes(data)


def file_contents(valid: bytes, good_record: dict | None = None) -> st.SearchStrategy[bytes]:
    """Arbitrary bytes, mutations of ``valid``, and (for JSON lines) ``valid`` plus one record variant."""
    options = [st.binary(max_size=200), mutated(valid)]
    if good_record is not None:
        options.append(record_variants(good_record).map(lambda line: valid + line.encode() + b"\n"))
    return st.one_of(options)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def head(path: Path, lines: int) -> bytes:
    return b"".join(path.read_bytes().splitlines(keepends=True)[:lines])


# --- LAMA ------------------------------------------------------------------------------------

LAMA_TARGETS = {  # the file fuzzed, and the corpus whose build reads it
    "Squad/test.jsonl": "squad",
    "Google_RE/place_of_birth_test.jsonl": "google_re",
    "TREx/P19.jsonl": "trex",
    "relations.jsonl": "trex",
    "common_vocab_cased.txt": "conceptnet",
}


@pytest.fixture(scope="module")
def lama_release(workdir, lama_release_writer) -> Path:
    return lama_release_writer(workdir / "lama")


@FUZZ
@given(data=st.data(), target=st.sampled_from(sorted(LAMA_TARGETS)))
def test_lama_release_files(lama_release, data, target):
    path = lama_release / target
    valid = path.read_bytes()
    good = json.loads(valid.splitlines()[0]) if target.endswith(".jsonl") else None
    content = data.draw(file_contents(valid, good))
    path.write_bytes(content)
    try:
        check_outcome(lambda: lama.build_corpus(LAMA_TARGETS[target], lama_release, lama_release / "relations.jsonl",
                                                lama_release / "common_vocab_cased.txt"),
                      lama.ReleaseError, path, line_count(content),
                      ("facts found", "empty common vocabulary", "no relations"))
    finally:
        path.write_bytes(valid)


@FUZZ
@given(data=st.data())
def test_pararel_relation_file(workdir, pararel_writer, data):
    folder = pararel_writer(workdir / "pararel")
    path = folder / "P19.jsonl"
    valid = path.read_bytes()
    content = data.draw(file_contents(valid, json.loads(valid.splitlines()[0])))
    path.write_bytes(content)
    try:
        check_outcome(lambda: pararel.read_pararel_file(path, ("P19", "P36")), pararel.ParaphraseError, path,
                      line_count(content), ("no patterns",))
    finally:
        path.write_bytes(valid)


# --- BLiMP -----------------------------------------------------------------------------------

BLIMP = DATA / "blimp" / "anaphor_gender_agreement.jsonl"


@FUZZ
@given(content=file_contents(head(BLIMP, 2), json.loads(head(BLIMP, 1))))
def test_blimp_paradigm_file(workdir, content):
    path = workdir / "anaphor_gender_agreement.jsonl"
    path.write_bytes(content)
    check_outcome(lambda: build_blimp([path]), BlimpDataError, path, line_count(content), ("no records",))


# --- Ettinger --------------------------------------------------------------------------------

ETTINGER = (ROOT / "resources/demo/mirror/raw.githubusercontent.com/aetting/lm-diagnostics"
            / "080de8d8b29a3d6f5fe133af73d7e9170f4d4c0c/datasets")
ETTINGER_FILES = {
    "cprag": ETTINGER / "CPRAG-102/CPRAG-102.tsv",
    "role": ETTINGER / "ROLE-88/ROLE-88.tsv",
    "neg_simp": ETTINGER / "NEG-136/NEG-136-SIMP.tsv",
    "neg_nat": ETTINGER / "NEG-136/NEG-136-NAT.tsv",
}


@FUZZ
@given(data=st.data(), dataset=st.sampled_from(sorted(ETTINGER_FILES)))
def test_ettinger_tsv(workdir, data, dataset):
    content = data.draw(file_contents(head(ETTINGER_FILES[dataset], 5)))
    path = workdir / f"{dataset}.tsv"
    path.write_bytes(content)
    check_outcome(lambda: ettinger.build_dataset(dataset, path, shuffles=1), ettinger.DatasetError, path,
                  line_count(content), ("empty file", "no data rows"))


# --- oLMpics -----------------------------------------------------------------------------------

OLMPICS = DATA / "olmpics" / "number_comparison_age_compare_masked_dev.jsonl"


@FUZZ
@given(content=file_contents(head(OLMPICS, 2), json.loads(head(OLMPICS, 1))))
def test_olmpics_release_file(workdir, content):
    path = workdir / "age_dev.jsonl"
    path.write_bytes(content)
    check_outcome(lambda: read_release(path, "age_comparison", "dev"), ReleaseError, path, line_count(content),
                  ("no records",))


@FEW
@given(compressed=mutated(gzip.compress(head(OLMPICS, 3) * 50, mtime=0)))
def test_olmpics_gzip_release_file(workdir, compressed):
    path = workdir / "age_dev.jsonl.gz"
    path.write_bytes(compressed)
    check_outcome(lambda: read_release(path, "age_comparison", "dev"), ReleaseError, path,
                  line_count(head(OLMPICS, 3) * 50) + 50, ("no records",))


# --- ConceptNet --------------------------------------------------------------------------------

CONCEPTNET = (
    b'/a/[/r/IsA/,/c/en/cat/,/c/en/animal/]\t/r/IsA\t/c/en/cat\t/c/en/animal\t{"dataset": "/d/x", "sources": [], '
    b'"weight": 1.0}\n'
    b'/a/[/r/IsA/,/c/fr/chat/,/c/fr/animal/]\t/r/IsA\t/c/fr/chat\t/c/fr/animal\t{"weight": 2.0}\n'
    b'/a/[/r/HasA/,/c/en/bird/n/,/c/en/wing/]\t/r/HasA\t/c/en/bird/n\t/c/en/wing\t{"surfaceText": "[[a bird]] has '
    b'[[wings]]", "weight": 0.5}\n'
)


def conceptnet_rows(path: Path) -> int:
    return sum(batch.num_rows for batch in iter_english_edges(path))


@FUZZ
@given(content=file_contents(CONCEPTNET))
def test_conceptnet_assertions(workdir, content):
    path = workdir / "assertions.csv"
    path.write_bytes(content)
    check_outcome(lambda: conceptnet_rows(path), ConceptNetError, path, line_count(content), ("empty file",))


@FEW
@given(compressed=mutated(gzip.compress(CONCEPTNET * 200, mtime=0)))
def test_conceptnet_gzip_assertions(workdir, compressed):
    path = workdir / "assertions.csv.gz"
    path.write_bytes(compressed)
    check_outcome(lambda: conceptnet_rows(path), ConceptNetError, path, line_count(CONCEPTNET) * 200 + 50,
                  ("empty file",))


# --- WordNet -----------------------------------------------------------------------------------

WORDNET = DATA / "olmpics_sources" / "wordnet"
WORDNET_FILES = sorted(p.name for p in WORDNET.iterdir())
FOLDERS = itertools.count()  # load_wordnet caches per folder: each example gets its own


@FEW
@given(data=st.data(), name=st.sampled_from(WORDNET_FILES))
def test_wordnet_database_file(workdir, data, name):
    content = data.draw(st.binary(max_size=200) | mutated((WORDNET / name).read_bytes()))
    folder = (workdir / f"wordnet{next(FOLDERS)}").resolve()
    shutil.copytree(WORDNET, folder)
    (folder / name).write_bytes(content)
    check_outcome(lambda: load_wordnet(folder), WordNetError, folder / name, line_count(content),
                  ("empty file",))
    shutil.rmtree(folder)


# --- Wikidata answers --------------------------------------------------------------------------

UA = "lmprobes-tests/0.1 (https://example.org/lmprobes; tests@example.org)"
QUERY = "SELECT ?subject ?subjectLabel WHERE { ?subject ?p ?o }"
ANSWER = {"head": {"vars": ["subject", "subjectLabel"]}, "results": {"bindings": [
    {"subject": {"type": "uri", "value": "http://www.wikidata.org/entity/Q1"},
     "subjectLabel": {"type": "literal", "value": "universe", "xml:lang": "en"}},
    {"subject": {"type": "uri", "value": "http://www.wikidata.org/entity/Q2"}},
]}}
ANSWER_KEYS = st.sampled_from(["head", "results", "bindings", "vars", "subject", "type", "value"]) | st.text(max_size=3)


@pytest.fixture(scope="module")
def endpoint():
    """A local SPARQL endpoint answering ``endpoint.body``."""
    class Endpoint:
        body = b""

    def respond(handler):
        handler.rfile.read(int(handler.headers.get("Content-Length", 0)))
        send(handler, 200, Endpoint.body, {"Content-Type": "application/sparql-results+json"})

    with serve_http(respond) as url:
        Endpoint.url = f"{url}/sparql"
        yield Endpoint


CACHES = itertools.count()


@FUZZ
@given(body=st.one_of(json_values(ANSWER_KEYS).map(lambda value: json.dumps(value).encode()),
                      st.dictionaries(ANSWER_KEYS, json_values(ANSWER_KEYS), max_size=3).map(
                          lambda results: json.dumps({"results": results}).encode()),
                      mutated(json.dumps(ANSWER).encode())))
def test_wikidata_answer(workdir, endpoint, body):
    endpoint.body = body
    client = SparqlClient(endpoint.url, cache_dir=workdir / f"cache{next(CACHES)}", user_agent=UA, retries=0,
                          min_interval=0, log=lambda message: None)
    key = cache_key(endpoint.url, QUERY)
    try:
        with client:
            rows = client.query(QUERY)
    except WikidataResponseError as error:  # the answer's ValueError: names the cache key, and the row if any
        assert str(error).startswith(f"Wikidata query {key}: ")
        named = re.search(r"result row (\d+)", str(error))
        assert named is None or 1 <= int(named.group(1)) <= len(json.loads(body)["results"]["bindings"])
    except WikidataError as error:  # not even complete JSON: a transfer problem, retried, then reported as such
        assert "not complete JSON" in str(error) and str(error).startswith(f"Wikidata query {key}: ")
    else:
        assert all(isinstance(v, str) for row in rows for v in row.values())


# --- config.yaml -------------------------------------------------------------------------------

CONFIG = (ROOT / "config.yaml").read_bytes()
SCHEMA = ROOT / "rules/schemas/config.schema.yaml"


@pytest.fixture(scope="module")
def schema_json(workdir) -> str:
    """The config schema written as JSON: Snakemake's ``validate`` reads its schema file on every call,
    and the YAML one takes 0.1 s to parse, most of test_config_values' time (JSON: a few ms)."""
    path = workdir / "config.schema.json"
    path.write_text(json.dumps(yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))), encoding="utf-8")
    return str(path)


@FUZZ
@given(content=st.binary(max_size=200) | mutated(CONFIG))
def test_config_file_text(workdir, content):
    path = workdir / "config.yaml"
    path.write_bytes(content)
    check_outcome(lambda: check_config_file(path), ConfigError, path, line_count(content), ())


def config_paths(node, prefix=()):
    yield prefix
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        yield from config_paths(child, (*prefix, key))


BASE_CONFIG = yaml.safe_load(CONFIG)
CONFIG_PATHS = [p for p in config_paths(BASE_CONFIG) if p]
CONFIG_VALUES = SCALARS | st.sampled_from([[], {}, ["gpt2"], ["no-such-model"], "masked", "causal", "auto"]) | \
    json_values(st.sampled_from(["family", "models", "hub_id", "method", "url", "sha256"]))


@FUZZ
@given(edits=st.lists(st.tuples(st.sampled_from(CONFIG_PATHS), st.booleans(), CONFIG_VALUES), min_size=1, max_size=3))
def test_config_values(schema_json, edits):
    config = copy.deepcopy(BASE_CONFIG)
    for path, delete, value in edits:
        parent = config
        for key in path[:-1]:
            parent = parent[key] if isinstance(parent, (dict, list)) and _has(parent, key) else None
        if parent is None or not _has(parent, path[-1]):
            continue
        if delete and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = value
    try:
        validate(config, schema_json)
    except WorkflowError:
        return  # the schema's error names the key (tests/test_config.py)
    try:
        check_config(config)
    except ConfigError as error:
        assert re.match(r"[\w.\[\]-]+: ", str(error)), str(error)  # names the key


def _has(container, key) -> bool:
    if isinstance(container, dict):
        return key in container
    return isinstance(container, list) and isinstance(key, int) and key < len(container)
