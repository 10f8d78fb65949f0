"""Bad input, loader by loader: every case parses or fails with the loader's error naming file and line.

Each case writes one malformed input next to good lines (so the line number is not trivially 1)
and checks the error type (the loader's ValueError subclass), the ``file:line`` it names (``file,
line N`` for ConceptNet) and the gist of the message. Whole-file problems (an empty file) name the
file alone. The last section checks that a file-to-file pipeline step given bad input writes no
output, and leaves an older output untouched.

"Duplicate key", as decided per format (see the loaders' docstrings):
- JSON lines (LAMA, BLiMP, oLMpics) and Wikidata answers: a key repeated within one JSON object
  is refused (``json.loads`` would keep the last silently); so is a relation listed twice in
  LAMA's relations.jsonl, since relations are keyed by id;
- Ettinger TSV: a column name repeated in the header, and an item id repeated, are refused;
- WordNet: a lemma listed twice in one index file is refused (nltk would keep the last);
- config.yaml: a key repeated within one mapping is refused by ``check_config_file``;
- ConceptNet info JSON: not looked for (cost on the 34M-line stream); the last value wins.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from lmprobes.config import ConfigError, check_config, check_config_file
from lmprobes.io import atomic_path, read_parquet, write_parquet
from lmprobes.suites.blimp import pipeline as blimp_pipeline
from lmprobes.suites.blimp.dataset import BlimpDataError, build_blimp
from lmprobes.suites.ettinger import datasets as ettinger
from lmprobes.suites.ettinger import pipeline as ettinger_pipeline
from lmprobes.suites.lama import pipeline as lama_pipeline
from lmprobes.suites.lama import release as lama
from lmprobes.suites.lama.conceptnet import ConceptNetError, iter_english_edges, stream_to_parquet
from lmprobes.suites.lama.wikidata import SparqlClient, WikidataError, WikidataResponseError, cache_key
from lmprobes.suites.olmpics import pipeline as olmpics_pipeline
from lmprobes.suites.olmpics.release import ReleaseError, read_release
from lmprobes.suites.olmpics.schema import SCHEMA as OLMPICS_SCHEMA
from lmprobes.suites.olmpics.wordnet import WordNetError, load_wordnet
from loopback import send, serve_http

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
BLIMP_GOOD = json.loads((DATA / "blimp" / "anaphor_gender_agreement.jsonl").read_text().splitlines()[0])
OLMPICS_GOOD = json.loads((DATA / "olmpics" / "number_comparison_age_compare_masked_dev.jsonl").read_text().splitlines()[0])
SQUAD_GOOD = {"masked_sentences": ["Von Miller plays in [MASK] position ."], "obj_label": "linebacker", "id": "56bf_0",
              "sub_label": "Squad"}
WORDNET = DATA / "olmpics_sources" / "wordnet"


def assert_names(error: BaseException, path: Path, line: int | None) -> None:
    """The message names ``path`` and ``line`` (``path:line:`` or ConceptNet's ``path, line N:``), or the file alone."""
    message = str(error)
    if line is None:
        assert message.startswith(f"{path}: "), message
    else:
        assert f"{path}:{line}: " in message or f"{path}, line {line}: " in message, message


def json_line(record: dict, **changes) -> str:
    """``record`` with fields changed (``...`` drops one), as one JSON line."""
    changed = {**record, **changes}
    return json.dumps({k: v for k, v in changed.items() if v is not ...})


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


# Bad JSON lines every JSON-lines loader must refuse; the good record's text is passed in.
def json_line_cases(good: str, key: str) -> list:
    return [
        pytest.param(good[: len(good) // 2], "valid JSON", id="truncated-line"),
        pytest.param(good[:-1] + f', "{key}": "again"}}', f"key '{key}' appears twice", id="duplicate-key"),
        pytest.param(good[:-1] + ', "extra": NaN}', "NaN is not a JSON value", id="nan"),
        pytest.param(good[:-1] + ', "extra": ' + "9" * 5000 + "}", "valid JSON.*digits", id="5000-digit-integer"),
        pytest.param("[" * 100_000, "nested too deeply", id="deep-nesting"),
        pytest.param("[1, 2]", "expected a JSON object", id="array-not-object"),
        pytest.param(good.encode()[:-2] + b'\xff"}', "not UTF-8", id="non-utf8"),
    ]


# --- LAMA release (jsonl) ------------------------------------------------------------------


@pytest.fixture
def release(tmp_path, lama_release_writer) -> Path:
    return lama_release_writer(tmp_path)


def build_lama(release: Path, corpus: str):
    return lama.build_corpus(corpus, release, release / "relations.jsonl", release / "common_vocab_cased.txt")


@pytest.mark.parametrize(("bad", "message"), json_line_cases(json.dumps(SQUAD_GOOD), "obj_label"))
def test_lama_malformed_json_line(release, bad, message):
    path = release / "Squad" / "test.jsonl"
    write(path, json.dumps(SQUAD_GOOD).encode() + b"\n" + (bad.encode() if isinstance(bad, str) else bad) + b"\n")
    with pytest.raises(lama.ReleaseError, match=message) as caught:
        build_lama(release, "squad")
    assert_names(caught.value, path, 2)


@pytest.mark.parametrize(
    ("corpus", "file", "bad", "message"),
    [
        pytest.param("squad", "Squad/test.jsonl", json_line(SQUAD_GOOD, obj_label=5), "'obj_label' should be a str",
                     id="squad-obj-label-int"),
        pytest.param("squad", "Squad/test.jsonl", json_line(SQUAD_GOOD, masked_sentences=[1]), "list of strings",
                     id="squad-sentences-ints"),
        pytest.param("squad", "Squad/test.jsonl", json_line(SQUAD_GOOD, id={"a": 1}), "'id' should be a str",
                     id="squad-id-object"),
        pytest.param("squad", "Squad/test.jsonl", json_line(SQUAD_GOOD, masked_sentences=...),
                     "missing field 'masked_sentences'", id="squad-missing-sentences"),
        pytest.param("google_re", "Google_RE/place_of_birth_test.jsonl",
                     json_line({"sub_label": "A", "obj_label": "B", "judgments": "yes"}),
                     "'judgments' should be a list of objects", id="google-judgments-string"),
        pytest.param("google_re", "Google_RE/place_of_birth_test.jsonl",
                     json_line({"sub_label": ["A"], "obj_label": "B", "judgments": []}), "'sub_label' should be a str",
                     id="google-sub-label-list"),
        pytest.param("google_re", "Google_RE/place_of_birth_test.jsonl",
                     json_line({"sub_label": "A", "obj_label": "B", "judgments": [], "sub_aliases": 5}),
                     "'sub_aliases' should be a list of strings", id="google-aliases-int"),
        pytest.param("google_re", "Google_RE/place_of_birth_test.jsonl",
                     json_line({"sub_label": "A", "obj_label": "B"}), "missing field 'judgments'",
                     id="google-missing-judgments"),
        pytest.param("trex", "TREx/P19.jsonl", json_line({"sub_label": 7, "obj_label": "Paris"}),
                     "'sub_label' should be a str", id="trex-sub-label-int"),
        pytest.param("trex", "relations.jsonl", json_line({"relation": "P20", "template": 5}),
                     "'template' should be a str", id="relations-template-int"),
        pytest.param("trex", "relations.jsonl", json_line({"relation": "P19/../../x", "template": "[X] [Y]"}),
                     "not a Wikidata property id", id="relations-bad-id"),
        pytest.param("trex", "relations.jsonl", json_line({"relation": "P19", "template": "[X] is [Y] ."}),
                     "relation P19 is listed twice", id="relations-duplicate-relation"),
    ],
)
def test_lama_wrong_or_missing_fields(release, corpus, file, bad, message):
    path = release / file
    lines = path.read_text(encoding="utf-8").splitlines()
    write(path, "\n".join([lines[0], bad, *lines[1:]]) + "\n")
    with pytest.raises(lama.ReleaseError, match=message) as caught:
        build_lama(release, corpus)
    assert_names(caught.value, path, 2)


def test_lama_empty_file_and_empty_vocabulary(release):
    squad = write(release / "Squad" / "test.jsonl", "\n")
    with pytest.raises(lama.ReleaseError, match="no squad facts found") as caught:
        build_lama(release, "squad")
    assert_names(caught.value, squad, None)
    vocab = write(release / "common_vocab_cased.txt", "")
    with pytest.raises(lama.ReleaseError, match="empty common vocabulary") as caught:
        build_lama(release, "conceptnet")
    assert_names(caught.value, vocab, None)


def test_lama_vocabulary_not_utf8(release):
    vocab = write(release / "common_vocab_cased.txt", b"Paris\nLondon\nK\xf6ln\n")
    with pytest.raises(lama.ReleaseError, match="not UTF-8") as caught:
        build_lama(release, "squad")
    assert_names(caught.value, vocab, 3)


# --- BLiMP (jsonl) -------------------------------------------------------------------------


def blimp_file(tmp_path: Path, bad: str | bytes) -> Path:
    bad = bad.encode() if isinstance(bad, str) else bad
    return write(tmp_path / "anaphor_gender_agreement.jsonl", json.dumps(BLIMP_GOOD).encode() + b"\n" + bad + b"\n")


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        *json_line_cases(json.dumps(BLIMP_GOOD), "UID"),
        pytest.param(json_line(BLIMP_GOOD, dependency_length=2**40, pairID="1"), "dependency_length must be an integer",
                     id="dependency-length-beyond-int32"),
        pytest.param(json_line(BLIMP_GOOD, pairID="²"), "pairID must be a number", id="pair-id-superscript-digit"),
        pytest.param(json_line(BLIMP_GOOD, pairID="1" * 40), "pairID must be a number", id="pair-id-40-digits"),
        pytest.param(json_line(BLIMP_GOOD, sentence_good=...), r"missing key\(s\) \['sentence_good'\]",
                     id="missing-sentence-good"),
        pytest.param(json_line(BLIMP_GOOD, simple_LM_method="yes"), "must be true or false", id="flag-string"),
        pytest.param(json_line(BLIMP_GOOD, crucial_item=3), "crucial_item must be a string, got 3", id="crucial-item-number"),
        pytest.param(json_line(BLIMP_GOOD, two_prefix_word=["he"]), r"two_prefix_word must be a string, got \['he'\]",
                     id="prefix-word-list"),
    ],
)
def test_blimp_bad_line(tmp_path, bad, message):
    path = blimp_file(tmp_path, bad)
    with pytest.raises(BlimpDataError, match=message) as caught:
        build_blimp([path])
    assert_names(caught.value, path, 2)


def test_blimp_empty_file(tmp_path):
    path = write(tmp_path / "passive_1.jsonl", "")
    with pytest.raises(BlimpDataError, match="no records") as caught:
        build_blimp([path])
    assert_names(caught.value, path, None)


# --- Ettinger (TSV) ------------------------------------------------------------------------

CPRAG_HEADER = "\t".join(ettinger.REGISTRY["cprag"].columns)
CPRAG_ROW = "1\tHe caught the pass.\tHe was a good\treceiver\tquarterback\tbrother\tH"
ROLE_HEADER = "\t".join(ettinger.REGISTRY["role"].columns)
ROLE_ROWS = "1-a\tthe cop arrested the\tcrook\t0.5\tcrook\t0.5\t0.5\n1-b\tthe crook arrested the\tcop\t0.5\tcop\t0.5\t0.5"


@pytest.mark.parametrize(
    ("dataset", "content", "line", "message"),
    [
        pytest.param("cprag", f"{CPRAG_HEADER}\n{CPRAG_ROW}\n2\tHe caught\n", 3, "2 fields, header has 7",
                     id="truncated-row"),
        pytest.param("cprag", f"{CPRAG_HEADER}\n{CPRAG_ROW}\n{CPRAG_ROW.replace('1', 'x', 1)}\n", 3,
                     "item must be a number", id="item-not-a-number"),
        pytest.param("cprag", f"{CPRAG_HEADER}\n{CPRAG_ROW}\n{CPRAG_ROW.replace('1', '9' * 30, 1)}\n", 3,
                     "item must be a number", id="item-30-digits"),
        pytest.param("cprag", f"{CPRAG_HEADER}\n{CPRAG_ROW}\n{CPRAG_ROW}\n", 3, "item '1' already given on line 2",
                     id="duplicate-item"),
        pytest.param("cprag", f"{CPRAG_HEADER}\titem\n{CPRAG_ROW}\t2\n", 1, r"\['item'\] appear twice",
                     id="duplicate-column"),
        pytest.param("cprag", f"{CPRAG_HEADER.replace('constraint', 'constrain')}\n{CPRAG_ROW}\n", 1,
                     r"missing column\(s\) \['constraint'\]", id="missing-column"),
        pytest.param("cprag", f"{CPRAG_HEADER}\n{CPRAG_ROW}\n2\tHe ca\rught\tx\ty\tz\tw\tL\n", 3, "not a TSV line",
                     id="carriage-return-inside-row"),
        pytest.param("cprag", (f"{CPRAG_HEADER}\n{CPRAG_ROW}\n".encode() + b"2\tK\xf6ln\tx\ty\tz\tw\tL\n"), 3,
                     "not UTF-8", id="non-utf8"),
        pytest.param("role", f"{ROLE_HEADER}\n{ROLE_ROWS.replace('0.5', 'abc', 1)}\n", 2, "cloze value is not a number",
                     id="cloze-not-a-number"),
        pytest.param("role", f"{ROLE_HEADER}\n{ROLE_ROWS.replace('0.5', 'nan', 1)}\n", 2, "cloze values must be finite",
                     id="cloze-nan"),
        pytest.param("role", f"{ROLE_HEADER}\n{ROLE_ROWS.splitlines()[0]}\n", 2, "without both an a and a b",
                     id="role-pair-incomplete"),
        pytest.param("neg_simp", "\t".join(ettinger.REGISTRY["neg_simp"].columns) + "\nx\tA robin is (a|an)\tA robin is not (a|an)"
                     "\tbird\ttree\n", 2, "item must be a number", id="neg-item-not-a-number"),
    ],
)
def test_ettinger_bad_tsv(tmp_path, dataset, content, line, message):
    path = write(tmp_path / f"{dataset}.tsv", content)
    with pytest.raises(ettinger.DatasetError, match=message) as caught:
        ettinger.build_dataset(dataset, path, shuffles=2)
    assert_names(caught.value, path, line)


@pytest.mark.parametrize(("content", "message"), [pytest.param("", "empty file", id="empty-file"),
                                                  pytest.param(CPRAG_HEADER + "\n\n", "no data rows", id="header-only")])
def test_ettinger_empty_file(tmp_path, content, message):
    path = write(tmp_path / "cprag.tsv", content)
    with pytest.raises(ettinger.DatasetError, match=message) as caught:
        ettinger.build_dataset("cprag", path, shuffles=2)
    assert_names(caught.value, path, None)


# --- oLMpics release (jsonl, plain or gzip) -----------------------------------------------


def olmpics_file(tmp_path: Path, bad: str | bytes, name: str = "age_dev.jsonl") -> Path:
    bad = bad.encode() if isinstance(bad, str) else bad
    return write(tmp_path / name, json.dumps(OLMPICS_GOOD).encode() + b"\n" + bad + b"\n")


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        *json_line_cases(json.dumps(OLMPICS_GOOD), "answerKey"),
        pytest.param(json_line(OLMPICS_GOOD, answerKey=1), "'answerKey' should be a str", id="answer-key-int"),
        pytest.param(json_line(OLMPICS_GOOD, question="A 15 year old ..."), "'question' should be a dict",
                     id="question-string"),
        pytest.param(json_line(OLMPICS_GOOD, question=...), "missing field 'question'", id="missing-question"),
    ],
)
def test_olmpics_bad_line(tmp_path, bad, message):
    path = olmpics_file(tmp_path, bad)
    with pytest.raises(ReleaseError, match=message) as caught:
        read_release(path, "age_comparison", "dev")
    assert_names(caught.value, path, 2)


def test_olmpics_empty_file(tmp_path):
    path = write(tmp_path / "age_dev.jsonl", "\n")
    with pytest.raises(ReleaseError, match="no records") as caught:
        read_release(path, "age_comparison", "dev")
    assert_names(caught.value, path, None)


def test_olmpics_gzip_cut_short_or_not_gzip(tmp_path):
    lines = (json.dumps(OLMPICS_GOOD) + "\n") * 2000
    cut = write(tmp_path / "cut.jsonl.gz", gzip.compress(lines.encode(), mtime=0)[:-100])
    with pytest.raises(ReleaseError, match="compressed data is truncated or corrupt") as caught:
        read_release(cut, "age_comparison", "dev")
    line = int(str(caught.value).split(":")[1])
    assert 1 < line <= 2001  # where reading stopped: after the lines that were read whole
    plain = write(tmp_path / "plain.jsonl.gz", lines)
    with pytest.raises(ReleaseError, match="compressed data is truncated or corrupt") as caught:
        read_release(plain, "age_comparison", "dev")
    assert_names(caught.value, plain, 1)
    latin1 = (json.dumps(OLMPICS_GOOD) + "\n").replace("younger", "j\u00fcnger").encode("latin-1")
    good = (json.dumps(OLMPICS_GOOD) + "\n").encode()
    bad_bytes = write(tmp_path / "latin1.jsonl.gz", gzip.compress(good * 2 + latin1, mtime=0))
    with pytest.raises(ReleaseError, match="not UTF-8") as caught:
        read_release(bad_bytes, "age_comparison", "dev")
    assert_names(caught.value, bad_bytes, 3)


# --- ConceptNet assertions (TSV with JSON info, streamed) ----------------------------------


def assertion(info: str = '{"dataset": "/d/x", "sources": [], "weight": 1.0}', start: str = "/c/en/cat") -> str:
    return f"/a/[/r/IsA/,{start}/,/c/en/animal/]\t/r/IsA\t{start}\t/c/en/animal\t{info}\n"


def edges(path: Path) -> list[dict]:
    return [row for batch in iter_english_edges(path) for row in batch.to_pylist()]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        pytest.param("/a/[x]\t/r/IsA\t/c/en/cat\n", "3 tab-separated fields, expected 5", id="truncated-line"),
        pytest.param(assertion('{"weight": "heavy"}'), "weight 'heavy' is not a number", id="weight-string"),
        pytest.param(assertion('{"weight": NaN}'), "NaN is not a JSON value", id="weight-nan"),
        pytest.param(assertion('{"weight": 1e999}'), "weight inf is not a finite number", id="weight-overflow"),
        pytest.param(assertion('{"weight": ' + "9" * 400 + "}"), "is not a finite number", id="weight-400-digits"),
        pytest.param(assertion('{"dataset": "/d/x"}'), "weight None is not a number", id="missing-weight"),
        pytest.param(assertion('["weight", 1]'), "info is not a JSON object", id="info-array"),
        pytest.param(assertion('{"weight": 1.0'), "info is not JSON", id="info-truncated"),
        pytest.param(assertion('{"weight": 1.0}', start="/c/en/caf\xe9").encode("latin-1"), "not UTF-8", id="non-utf8"),
        pytest.param("\n", "empty info field", id="blank-line"),
    ],
)
def test_conceptnet_bad_line(tmp_path, bad, message):
    bad = bad.encode() if isinstance(bad, str) else bad
    path = write(tmp_path / "assertions.csv", (assertion() * 2).encode() + bad + assertion().encode())
    with pytest.raises(ConceptNetError, match=message) as caught:
        edges(path)
    assert_names(caught.value, path, 3)


def test_conceptnet_empty_file(tmp_path):
    path = write(tmp_path / "assertions.csv", b"")
    with pytest.raises(ConceptNetError, match="empty file") as caught:
        edges(path)
    assert_names(caught.value, path, None)


def test_conceptnet_gzip_cut_short_or_corrupt(tmp_path):
    content = "".join(assertion(start=f"/c/en/cat{i}") for i in range(20_000)).encode()
    cut = write(tmp_path / "cut.csv.gz", gzip.compress(content, mtime=0)[:-200])
    with pytest.raises(ConceptNetError, match="compressed data is truncated or corrupt") as caught:
        edges(cut)
    line = int(str(caught.value).split(", line ")[1].split(":")[0])
    assert 1 < line <= 20_001
    corrupt = write(tmp_path / "corrupt.csv.gz", b"\x1f\x8b" + b"\x00" * 40)
    with pytest.raises(ConceptNetError, match="compressed data is truncated or corrupt") as caught:
        edges(corrupt)
    assert_names(caught.value, corrupt, 1)


def test_conceptnet_repeated_info_key_keeps_the_last_value(tmp_path):
    # Documented decision: the info JSON is not checked for repeated keys (see conceptnet.py).
    path = write(tmp_path / "assertions.csv", assertion('{"weight": 1.0, "weight": 2.5}'))
    assert [row["weight"] for row in edges(path)] == [2.5]


# --- WordNet (nltk's reader over the extracted archive) ------------------------------------


@pytest.fixture
def wordnet_copy(tmp_path) -> Path:
    folder = tmp_path / "wordnet"
    shutil.copytree(WORDNET, folder)
    return folder.resolve()


def line_of(path: Path, prefix: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), start=1) if line.startswith(prefix))


def cut_inside_line(data: bytes, line: int) -> bytes:
    start = sum(len(piece) for piece in data.splitlines(keepends=True)[: line - 1])
    return data[: start + 20]


@pytest.mark.parametrize(
    ("file", "mutate", "line", "message"),
    [
        pytest.param("data.noun", lambda data, path: cut_inside_line(data, line_of(path, "00003273")),
                     lambda path: line_of(path, "00003273"), "exactly one '|'", id="data-truncated"),
        pytest.param("data.noun", lambda data, path: data + b"garbage\n",
                     lambda path: len(path.read_text().splitlines()), "must start with its byte offset",
                     id="data-garbage-line"),
        pytest.param("data.verb", lambda data, path: data.replace(b"\n", b"\r\n"), lambda path: 1,
                     "Windows \\(CRLF\\) line endings", id="data-crlf"),
        pytest.param("index.noun", lambda data, path: data + b"zebra n 1 0 1 0 notanumber \n",
                     lambda path: len(path.read_text().splitlines()), "numbers after the pointers", id="index-offset-text"),
        pytest.param("index.noun", lambda data, path: data + b"zebra n 2 0 2 0 00001740 \n",
                     lambda path: len(path.read_text().splitlines()), "call for 8 fields", id="index-too-few-offsets"),
        pytest.param("index.noun", lambda data, path: data + data.splitlines(keepends=True)[-1],
                     lambda path: len(path.read_text().splitlines()), "already listed on line", id="index-duplicate-lemma"),
        pytest.param("lexnames", lambda data, path: data.replace(b"01\tadj.pert", b"07\tadj.pert"), lambda path: 2,
                     "expected '<number 01>", id="lexnames-misnumbered"),
        pytest.param("noun.exc", lambda data, path: data + b"\n", lambda path: 3, "blank line", id="exc-blank-line"),
        pytest.param("verb.exc", lambda data, path: data.replace(b"\n", b"\xe9\n", 1), lambda path: 1, "not UTF-8",
                     id="exc-non-utf8"),
    ],
)
def test_wordnet_bad_database_file(wordnet_copy, file, mutate, line, message):
    path = wordnet_copy / file
    write(path, mutate(path.read_bytes(), path))
    expected_line = line(path)
    with pytest.raises(WordNetError, match=message) as caught:
        load_wordnet(wordnet_copy)
    assert_names(caught.value, path, expected_line)


def test_wordnet_empty_file(wordnet_copy):
    path = write(wordnet_copy / "data.adj", b"")
    with pytest.raises(WordNetError, match="empty file") as caught:
        load_wordnet(wordnet_copy)
    assert_names(caught.value, path, None)


# --- Wikidata answers (SparqlClient over a local HTTP server) -------------------------------

UA = "lmprobes-tests/0.1 (https://example.org/lmprobes; tests@example.org)"
QUERY = "SELECT ?subject WHERE { ?subject ?p ?o }"


@pytest.fixture
def answer(tmp_path):
    """``answer(body)``: query a local endpoint that answers ``body`` (HTTP 200), once, without retries."""
    served: dict[str, bytes] = {}

    def respond(handler):
        handler.rfile.read(int(handler.headers.get("Content-Length", 0)))
        send(handler, 200, served["body"], {"Content-Type": "application/sparql-results+json"})

    with serve_http(respond) as url:
        def ask(body: bytes) -> list[dict]:
            served["body"] = body
            client = SparqlClient(ask.endpoint, cache_dir=tmp_path / "cache", user_agent=UA, retries=0,
                                  min_interval=0, log=lambda message: None)
            with client:
                return client.query(QUERY)

        ask.endpoint = f"{url}/sparql"
        yield ask


def bindings(*rows) -> bytes:
    return json.dumps({"head": {"vars": ["subject"]}, "results": {"bindings": list(rows)}}).encode()


CELL = {"type": "uri", "value": "http://www.wikidata.org/entity/Q1"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param(b'{"results": []}', "no results.bindings", id="results-array"),
        pytest.param(b'{"head": {}}', "no results.bindings", id="missing-results"),
        pytest.param(bindings({"subject": CELL}, ["Q2"]), "result row 2 is not an object", id="row-array"),
        pytest.param(bindings({"subject": {"type": "uri"}}), "result row 1, subject: no string value",
                     id="cell-without-value"),
        pytest.param(bindings({"subject": {"type": "literal", "value": 5}}), "result row 1, subject: no string value",
                     id="value-int"),
        pytest.param(b'{"results": {"bindings": [], "bindings": [{}]}}', "key 'bindings' appears twice",
                     id="duplicate-key"),
        pytest.param(b'{"results": {"bindings": [{"subject": {"value": NaN}}]}}', "NaN is not a JSON value", id="nan"),
    ],
)
def test_wikidata_malformed_answer_names_query_and_row_and_is_not_cached(answer, tmp_path, body, message):
    with pytest.raises(WikidataResponseError, match=message) as caught:
        answer(body)
    assert isinstance(caught.value, ValueError)
    # The "file" of an answer is its cache file, named by the key: sha256 of endpoint and query.
    key = caught.value.key
    assert str(caught.value).startswith(f"Wikidata query {key}: ") and key == cache_key(answer.endpoint, QUERY)
    assert not list((tmp_path / "cache").rglob("*.json"))


def test_wikidata_body_that_is_not_json_fails_after_the_retries(answer, tmp_path):
    # Treated as a transfer problem (a body cut short), so retried; then the client's transport error.
    with pytest.raises(WikidataError, match="not complete JSON") as caught:
        answer(bindings({"subject": CELL})[:25])
    assert not isinstance(caught.value, ValueError)
    assert not list((tmp_path / "cache").rglob("*.json"))


def test_wikidata_malformed_cache_file_is_fetched_again(answer, tmp_path):
    assert answer(bindings({"subject": CELL})) == [{"subject": CELL["value"]}]
    cache_file = next((tmp_path / "cache").rglob("*.json"))
    record = json.loads(cache_file.read_text())
    record["response"]["results"]["bindings"] = [{"subject": {"type": "uri"}}]  # valid JSON, not SPARQL results
    cache_file.write_text(json.dumps(record))
    assert answer(bindings({"subject": CELL})) == [{"subject": CELL["value"]}]
    assert json.loads(cache_file.read_text())["response"] == json.loads(bindings({"subject": CELL}))


# --- config.yaml -----------------------------------------------------------------------------

SCHEMA = str(ROOT / "rules/schemas/config.schema.yaml")


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        pytest.param(b"seed: 1\nmodels:\n  gpt2: {family: causal}\n  gpt2: {family: masked}\n", 4,
                     r"key 'gpt2' given twice in one mapping \(first on line 3\)", id="duplicate-key"),
        pytest.param(b"seed: 1\nmodels: {}\nmodels: {}\n", 3, "key 'models' given twice", id="duplicate-block"),
        pytest.param(b"seed: 1\nmirror: 'caf\xe9'\n", 2, "not UTF-8", id="non-utf8"),
        pytest.param(b"seed: 1\nmodels: [gpt2, bert\ndevice: cpu\n", 3, "expected ',' or ']'", id="truncated-list"),
        pytest.param(b"seed: 1\nmodels:\n\tgpt2: {}\n", 3, "character '\\\\t'", id="tab-indent"),
        pytest.param(b"", 1, "expected a mapping of keys", id="empty-file"),
        pytest.param(b"- models\n- suites\n", 1, "expected a mapping of keys", id="top-level-list"),
    ],
)
def test_config_file_bad_text(tmp_path, content, line, message):
    path = write(tmp_path / "config.yaml", content)
    with pytest.raises(ConfigError, match=message) as caught:
        check_config_file(path)
    assert_names(caught.value, path, line)


def test_a_broken_config_yaml_is_named_with_its_line_before_snakemake_reads_it(tmp_path):
    """Snakemake's own loader names no line (and, for bytes that are not UTF-8, no file)."""
    import os
    import subprocess
    import sys

    shutil.copy(ROOT / "Snakefile", tmp_path / "Snakefile")
    for content, message in ((b"seed: 1\nmodels: [gpt2, bert\ndevice: cpu\n", "config.yaml:3: expected ',' or ']'"),
                             (b"seed: 1\nmirror: 'caf\xe9'\n", "config.yaml:2: not UTF-8")):
        write(tmp_path / "config.yaml", content)
        run = subprocess.run([sys.executable, "-m", "snakemake", "-n"], cwd=tmp_path, capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
        assert run.returncode != 0 and message in run.stdout + run.stderr, run.stdout[-2000:] + run.stderr[-2000:]


def test_config_check_command_names_each_bad_file(tmp_path, capsys):
    from lmprobes.config import main

    bad = write(tmp_path / "extra.yaml", b"seed: 1\nmodels:\n\tgpt2: {}\n")
    assert main(["--base", str(ROOT / "config.yaml"), str(bad)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and f"{bad}:3:" in err
    with pytest.raises(SystemExit) as usage:
        main([])
    assert usage.value.code == 2


def test_config_files_of_the_project_pass():
    check_config_file(ROOT / "config.yaml")
    check_config_file(ROOT / "resources" / "demo" / "config.yaml")


def test_config_wrong_type_and_missing_block():
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["seed"] = "1234"
    with pytest.raises(WorkflowError, match="'1234' is not of type 'integer'"):
        validate(config, SCHEMA)
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    del config["models"]
    validate(config, SCHEMA)  # the schema does not require the block ...
    with pytest.raises(ConfigError, match="models: missing"):
        check_config(config)  # ... so the cross-checks refuse it, instead of a KeyError


# --- no output written ----------------------------------------------------------------------


def only(folder: Path) -> list[str]:
    """Every file under ``folder`` (temporary siblings of an atomic write included)."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_atomic_path_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    out = write(tmp_path / "out" / "table.parquet", b"old")
    with pytest.raises(RuntimeError), atomic_path(out) as tmp:
        tmp.write_bytes(b"half written")
        raise RuntimeError("the writer failed")
    assert out.read_bytes() == b"old"
    assert only(tmp_path / "out") == ["table.parquet"]


def test_lama_bad_release_writes_no_dataset(release, tmp_path):
    write(release / "Squad" / "test.jsonl", json.dumps(SQUAD_GOOD) + "\n" + json_line(SQUAD_GOOD, obj_label=5) + "\n")
    out = tmp_path / "out" / "squad.parquet"
    with pytest.raises(lama.ReleaseError):
        lama_pipeline.make_dataset("squad", release, release / "relations.jsonl", release / "common_vocab_cased.txt",
                                   out, provenance={})
    assert not (tmp_path / "out").exists() or only(tmp_path / "out") == []


def test_conceptnet_stream_failing_after_written_batches_leaves_no_file(tmp_path):
    good = "".join(assertion(start=f"/c/en/cat{i}") for i in range(50))
    source = write(tmp_path / "assertions.csv", good + assertion('{"weight": "x"}'))
    out = write(tmp_path / "out" / "edges.parquet", b"old")
    with pytest.raises(ConceptNetError, match="line 51"):
        stream_to_parquet(source, out, chunk_rows=10)  # five batches are written before line 51 fails
    assert out.read_bytes() == b"old" and only(tmp_path / "out") == ["edges.parquet"]
    cut = write(tmp_path / "cut.csv.gz", gzip.compress(good.encode() * 100, mtime=0)[:-50])
    with pytest.raises(ConceptNetError, match="truncated or corrupt"):
        lama_pipeline.make_conceptnet_edges(cut, tmp_path / "out" / "cut.parquet", from_conceptnet_lite=False,
                                            provenance={})
    assert only(tmp_path / "out") == ["edges.parquet"]


def test_blimp_bad_file_writes_no_dataset(tmp_path):
    path = blimp_file(tmp_path / "in", b'{"UID": "x", "UID": "y"}')
    out = tmp_path / "out" / "blimp.parquet"
    with pytest.raises(BlimpDataError, match="appears twice"):
        blimp_pipeline.make_dataset([path], out, provenance={})
    assert not (tmp_path / "out").exists() or only(tmp_path / "out") == []


def test_ettinger_bad_file_writes_no_dataset(tmp_path):
    path = write(tmp_path / "in" / "cprag.tsv", f"{CPRAG_HEADER}\n".encode() + b"1\t\xff\tb\tc\td\te\tH\n")
    out = write(tmp_path / "out" / "cprag.parquet", b"old")
    with pytest.raises(ettinger.DatasetError, match="not UTF-8"):
        ettinger_pipeline.make_dataset("cprag", path, out, shuffles=1, seed=0, provenance={})
    assert out.read_bytes() == b"old" and only(tmp_path / "out") == ["cprag.parquet"]


def test_olmpics_bad_release_or_wordnet_writes_no_items(tmp_path, wordnet_copy):
    good = olmpics_file(tmp_path / "in", json.dumps(OLMPICS_GOOD), "age_train.jsonl")
    bad = olmpics_file(tmp_path / "in", json_line(OLMPICS_GOOD, answerKey="Z"), "age_dev.jsonl")
    out = tmp_path / "out" / "release.parquet"
    manifest = [{"task": "age_comparison", "split": "train"}, {"task": "age_comparison", "split": "dev"}]
    with pytest.raises(ReleaseError, match="answerKey 'Z'"):
        olmpics_pipeline.make_release([good, bad], manifest, out, provenance={})
    write(wordnet_copy / "noun.exc", b"geese goose\n\n")
    with pytest.raises(WordNetError, match="blank line"):
        olmpics_pipeline.make_generated("antonym_negation", {"wordnet": wordnet_copy}, out, seed=0, provenance={})
    assert not (tmp_path / "out").exists() or only(tmp_path / "out") == []
    # The same inputs without the bad line do write (so the failure above is the bad line's doing).
    write(bad, json.dumps(OLMPICS_GOOD) + "\n")
    olmpics_pipeline.make_release([good, bad], manifest, out, provenance={})
    assert len(read_parquet(out)) == 2 + 1 and list(read_parquet(out).columns) == OLMPICS_SCHEMA.names


def test_write_parquet_refuses_a_table_without_the_schema_columns(tmp_path):
    out = tmp_path / "out" / "t.parquet"
    with pytest.raises(ValueError, match=r"columns \['b'\] missing"):
        write_parquet(pd.DataFrame({"a": [1]}), out, pa.schema([("a", pa.int64()), ("b", pa.int64())]), {})
    assert not out.exists()


def test_a_parquet_file_written_in_a_rule_job_names_the_rule_and_its_revision(tmp_path):
    """``rule_job`` adds ``job`` to the metadata of what the script writes inside it, nothing outside."""
    from types import SimpleNamespace

    from lmprobes.io import read_metadata, write_parquet
    from lmprobes.workflow import rule_job

    schema = pa.schema([("x", pa.int64())])
    smk = SimpleNamespace(rule="blimp_score", params=SimpleNamespace(revision=7), log=[str(tmp_path / "job.log")])
    with rule_job(smk):
        write_parquet(pd.DataFrame({"x": [1]}), tmp_path / "in.parquet", schema, {"model": "m"})
    write_parquet(pd.DataFrame({"x": [1]}), tmp_path / "out.parquet", schema, {"model": "m"})
    assert read_metadata(tmp_path / "in.parquet") == {"model": "m", "job": {"rule": "blimp_score", "revision": 7}}
    assert read_metadata(tmp_path / "out.parquet") == {"model": "m"}
