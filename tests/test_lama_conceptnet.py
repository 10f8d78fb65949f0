"""ConceptNet assertions -> English edges Parquet: parsing, chunking, determinism, malformed lines."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lmprobes.io import read_metadata
from lmprobes.suites.lama.conceptnet import (
    EDGE_SCHEMA,
    ConceptNetError,
    iter_english_edges,
    new_stats,
    stream_to_parquet,
)

WIKT_SOURCES = [{"contributor": "/s/resource/wiktionary/en", "process": "/s/process/wikiparsec/2"}]
OMCS_SOURCES = [
    {"activity": "/s/activity/omcs/omcs1_possibly_free_text", "contributor": "/s/contributor/omcs/user1"},
    {"activity": "/s/activity/omcs/vote", "contributor": "/s/contributor/omcs/user2"},
]


def line(relation: str, start: str, end: str, info: dict) -> str:
    """One assertion in the 5.7 layout: edge URI, relation, start, end, JSON info."""
    edge = f"/a/[{relation}/,{start}/,{end}/]"
    return "\t".join([edge, relation, start, end, json.dumps(info, ensure_ascii=False)]) + "\n"


LINES = [
    # 1: English/English with a surface text and two sources
    line("/r/AtLocation", "/c/en/wheat", "/c/en/field", {
        "dataset": "/d/conceptnet/4/en", "license": "cc:by/4.0", "sources": OMCS_SOURCES,
        "surfaceEnd": "a field", "surfaceStart": "wheat",
        "surfaceText": "You are likely to find [[wheat]] in [[a field]]", "weight": 2.0}),
    # 2: English/French: skipped
    line("/r/Synonym", "/c/en/test/n", "/c/fr/essai/n", {
        "dataset": "/d/wiktionary/fr", "license": "cc:by-sa/4.0", "sources": WIKT_SOURCES, "weight": 1.0}),
    # 3: parts of speech, underscores, no surfaceText, integer weight
    line("/r/IsA", "/c/en/run/v", "/c/en/hard_questions/n/wikt/en_1", {
        "dataset": "/d/wiktionary/en", "license": "cc:by-sa/4.0", "sources": WIKT_SOURCES, "weight": 1}),
    # 4: Japanese/Japanese: skipped
    line("/r/CapableOf", "/c/ja/科学者", "/c/ja/テスト", {
        "dataset": "/d/kyoto_yahoo", "license": "cc:by/4.0",
        "sources": [{"activity": "/s/activity/kyoto_yahoo"}], "weight": 1.0}),
    # 5: English to an external URL: skipped
    line("/r/ExternalURL", "/c/en/test", "http://dbpedia.org/resource/Test", {
        "dataset": "/d/dbpedia/en", "license": "cc:by-sa/4.0",
        "sources": [{"contributor": "/s/resource/dbpedia/2015/en"}], "weight": 1.0}),
    # 6: a null surfaceText and a slashed relation name
    line("/r/dbpedia/genre", "/c/en/ice_cream_truck/n", "/c/en/music", {
        "dataset": "/d/dbpedia/en", "license": "cc:by-sa/4.0", "sources": [], "surfaceText": None,
        "weight": 0.5}),
]

EXPECTED = [
    {"relation": "AtLocation", "start_uri": "/c/en/wheat", "end_uri": "/c/en/field",
     "start_term": "wheat", "end_term": "field", "start_pos": None, "end_pos": None, "weight": 2.0,
     "dataset": "/d/conceptnet/4/en", "surface_text": "You are likely to find [[wheat]] in [[a field]]",
     "sources": '[{"activity": "/s/activity/omcs/omcs1_possibly_free_text", "contributor": '
                '"/s/contributor/omcs/user1"}, {"activity": "/s/activity/omcs/vote", '
                '"contributor": "/s/contributor/omcs/user2"}]',
     "row": 1},
    {"relation": "IsA", "start_uri": "/c/en/run/v", "end_uri": "/c/en/hard_questions/n/wikt/en_1",
     "start_term": "run", "end_term": "hard questions", "start_pos": "v", "end_pos": "n", "weight": 1.0,
     "dataset": "/d/wiktionary/en", "surface_text": None,
     "sources": '[{"contributor": "/s/resource/wiktionary/en", "process": "/s/process/wikiparsec/2"}]',
     "row": 3},
    {"relation": "dbpedia/genre", "start_uri": "/c/en/ice_cream_truck/n", "end_uri": "/c/en/music",
     "start_term": "ice cream truck", "end_term": "music", "start_pos": "n", "end_pos": None,
     "weight": 0.5, "dataset": "/d/dbpedia/en", "surface_text": None, "sources": "[]", "row": 6},
]


def write_assertions(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.fixture
def assertions(tmp_path: Path) -> Path:
    return write_assertions(tmp_path / "assertions.csv", LINES)


@pytest.fixture
def assertions_gz(tmp_path: Path) -> Path:
    # No .gz suffix: gzip must be recognised by its magic bytes.
    path = tmp_path / "assertions-compressed.csv"
    path.write_bytes(gzip.compress("".join(LINES).encode(), mtime=0))
    return path


def edges(path: Path, **kwargs) -> pa.Table:
    return pa.Table.from_batches(list(iter_english_edges(path, **kwargs)), schema=EDGE_SCHEMA)


def test_parsed_values(assertions: Path) -> None:
    assert edges(assertions).to_pylist() == EXPECTED


def test_gzip_input_gives_the_same_edges(assertions_gz: Path) -> None:
    assert edges(assertions_gz).to_pylist() == EXPECTED


def test_relation_filter(assertions: Path, tmp_path: Path) -> None:
    assert edges(assertions, relations={"IsA", "dbpedia/genre"}).column("row").to_pylist() == [3, 6]
    stats = stream_to_parquet(assertions, tmp_path / "isa.parquet", relations={"IsA"})
    assert stats == {"rows_read": 6, "english_edges": 1, "skipped_non_english": 3, "skipped_relation": 2,
                     "malformed": 0}


def test_chunking_does_not_change_the_table(assertions: Path) -> None:
    batches = list(iter_english_edges(assertions, chunk_rows=1))
    assert [batch.num_rows for batch in batches] == [1, 1, 1]
    assert pa.Table.from_batches(batches).equals(edges(assertions, chunk_rows=1_000))


def test_stream_to_parquet_stats_metadata_and_schema(assertions: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "edges.parquet"
    stats = stream_to_parquet(assertions, out, metadata={"source": "fixture"})
    expected_stats = {"rows_read": 6, "english_edges": 3, "skipped_non_english": 3, "skipped_relation": 0,
                      "malformed": 0}
    assert stats == expected_stats
    assert read_metadata(out) == {"source": "fixture", "stats": expected_stats}
    table = pq.read_table(out)
    assert table.schema.remove_metadata().equals(EDGE_SCHEMA)
    assert table.to_pylist() == EXPECTED


def test_output_is_byte_identical_across_runs(assertions: Path, assertions_gz: Path, tmp_path: Path) -> None:
    first, second, third = tmp_path / "a.parquet", tmp_path / "b.parquet", tmp_path / "c.parquet"
    stream_to_parquet(assertions, first, chunk_rows=2)
    stream_to_parquet(assertions, second, chunk_rows=2)
    stream_to_parquet(assertions_gz, third, chunk_rows=2)
    assert first.read_bytes() == second.read_bytes() == third.read_bytes()


BAD_JSON = "/a/[/r/IsA/,/c/en/cat/,/c/en/pet/]\t/r/IsA\t/c/en/cat\t/c/en/pet\t{\"weight\": 1.0,\n"
SHORT = "/a/[/r/IsA/,/c/en/cat/,/c/en/pet/]\t/r/IsA\t/c/en/cat\t/c/en/pet\n"
WORDY_WEIGHT = line("/r/IsA", "/c/en/cat", "/c/en/pet", {"dataset": "/d/x", "sources": [], "weight": "heavy"})
NUMBER_DATASET = line("/r/IsA", "/c/en/cat", "/c/en/pet", {"dataset": 4, "sources": [], "weight": 1.0})
NO_RELATION_PREFIX = line("IsA", "/c/en/cat", "/c/en/pet", {"dataset": "/d/x", "sources": [], "weight": 1.0})
ALL_BAD = [BAD_JSON, SHORT, WORDY_WEIGHT, NUMBER_DATASET, NO_RELATION_PREFIX, "\n"]


@pytest.mark.parametrize(
    ("bad", "problem"),
    [(BAD_JSON, "not JSON"), (SHORT, "4 tab-separated fields"), (WORDY_WEIGHT, "not a number"),
     (NUMBER_DATASET, "dataset 4 is not a string"), (NO_RELATION_PREFIX, "not under /r/"),
     ("\n", "blank line")],
)
def test_malformed_line_raises_naming_file_and_line(tmp_path: Path, bad: str, problem: str) -> None:
    source = write_assertions(tmp_path / "broken.csv", LINES[:3] + [bad] + LINES[3:])
    out = tmp_path / "edges.parquet"
    with pytest.raises(ConceptNetError, match=rf"broken\.csv, line 4: .*{problem}"):
        stream_to_parquet(source, out)
    assert list(tmp_path.iterdir()) == [source]


@pytest.mark.parametrize("bad", ALL_BAD)
def test_malformed_line_skipped_and_counted(tmp_path: Path, bad: str) -> None:
    source = write_assertions(tmp_path / "broken.csv", LINES[:3] + [bad] + LINES[3:])
    stats = stream_to_parquet(source, tmp_path / "edges.parquet", on_error="skip")
    assert stats == {"rows_read": 7, "english_edges": 3, "skipped_non_english": 3, "skipped_relation": 0,
                     "malformed": 1}
    rows = pq.read_table(tmp_path / "edges.parquet").column("row").to_pylist()
    assert rows == [1, 3, 7]


def test_malformed_line_in_gzip_names_the_line(tmp_path: Path) -> None:
    source = tmp_path / "broken.csv.gz"
    source.write_bytes(gzip.compress("".join(LINES[:5] + [SHORT]).encode()))
    with pytest.raises(ConceptNetError, match=r"broken\.csv\.gz, line 6: "):
        list(iter_english_edges(source))


def test_earliest_malformed_line_is_named(tmp_path: Path) -> None:
    # Line 2 is only caught by the JSON check, line 4 already by the field count.
    source = write_assertions(tmp_path / "broken.csv", [LINES[0], BAD_JSON, LINES[2], SHORT])
    with pytest.raises(ConceptNetError, match=r"broken\.csv, line 2: "):
        list(iter_english_edges(source))


def test_many_skipped_lines_keep_their_numbers(tmp_path: Path) -> None:
    source = write_assertions(tmp_path / "broken.csv", ALL_BAD + LINES + ALL_BAD)
    stats = new_stats()
    rows = edges(source, on_error="skip", stats=stats).column("row").to_pylist()
    assert rows == [7, 9, 12]
    assert stats["malformed"] == 12 and stats["rows_read"] == 18


@pytest.mark.parametrize("gzipped", [False, True])
def test_the_stream_benchmark_streams_every_generated_row(capsys, gzipped: bool) -> None:
    # The command behind the README's rows/s and peak memory; its synthetic file must parse as 5.7 assertions.
    from lmprobes.suites.lama.conceptnet_bench import main

    main(["--rows", "2000", *(["--gzip"] if gzipped else [])])
    generated, streamed = capsys.readouterr().out.splitlines()
    assert generated.startswith("generated 2,000 rows (")
    english = int(streamed.split(" rows/s, ")[1].split(" English edges")[0].replace(",", ""))
    assert streamed.startswith("streamed 2,000 rows in ") and 0 < english < 2000
    assert streamed.endswith(" MiB (ru_maxrss of the streaming process)")
