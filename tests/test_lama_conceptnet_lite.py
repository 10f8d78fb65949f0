"""conceptnet-lite database -> English edges Parquet: same table as the CSV streamer, read-only, offline."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import conceptnet_lite
import conceptnet_lite.db
import pyarrow.parquet as pq
import pytest
from conceptnet_lite.utils import _to_snake_case

from lmprobes.io import read_metadata
from lmprobes.suites.lama.conceptnet import EDGE_SCHEMA, stream_to_parquet
from lmprobes.suites.lama.conceptnet_lite import (
    CONCEPTNET_RELATIONS,
    ConceptNetLiteError,
    edges_from_conceptnet_lite,
    relation_name,
)

WIKT = [{"contributor": "/s/resource/wiktionary/en", "process": "/s/process/wikiparsec/2"}]
OMCS = [{"activity": "/s/activity/omcs/omcs1_possibly_free_text", "contributor": "/s/contributor/omcs/user1"}]


def line(relation: str, start: str, end: str, info: dict) -> str:
    """One assertion in the 5.7 layout: edge URI, relation, start, end, JSON info."""
    edge = f"/a/[{relation}/,{start}/,{end}/]"
    return "\t".join([edge, relation, start, end, json.dumps(info, ensure_ascii=False)]) + "\n"


LINES = [
    line("/r/AtLocation", "/c/en/wheat", "/c/en/field", {
        "dataset": "/d/conceptnet/4/en", "license": "cc:by/4.0", "sources": OMCS, "surfaceEnd": "a field",
        "surfaceStart": "wheat", "surfaceText": "You are likely to find [[wheat]] in [[a field]]", "weight": 2.0}),
    line("/r/Synonym", "/c/en/test/n", "/c/fr/essai/n", {
        "dataset": "/d/wiktionary/fr", "license": "cc:by-sa/4.0", "sources": WIKT, "weight": 1.0}),
    line("/r/IsA", "/c/en/run/v", "/c/en/hard_questions/n/wikt/en_1", {
        "dataset": "/d/wiktionary/en", "license": "cc:by-sa/4.0", "sources": WIKT, "weight": 1}),
    line("/r/ExternalURL", "/c/en/test", "http://dbpedia.org/resource/Test", {
        "dataset": "/d/dbpedia/en", "license": "cc:by-sa/4.0", "sources": [], "weight": 1.0}),
    line("/r/dbpedia/genre", "/c/en/ice_cream_truck/n", "/c/en/music", {
        "dataset": "/d/dbpedia/en", "sources": [], "surfaceText": None, "weight": 0.5}),
    # no sources and no dataset in the info: [] and null, as the CSV streamer makes them
    line("/r/CapableOf", "/c/en/dog", "/c/en/bark", {"surfaceText": "[[a dog]] can [[bark]]", "weight": 1.0}),
    line("/r/CapableOf", "/c/ja/犬", "/c/ja/吠える", {"dataset": "/d/kyoto_yahoo", "sources": [], "weight": 1.0}),
    line("/r/dbpedia/influencedBy", "/c/en/jazz/n/wp/music", "/c/en/blues", {
        "dataset": "/d/dbpedia/en", "sources": [{"contributor": "/s/resource/dbpedia/2015/en"}], "weight": 0.5}),
    line("/r/RelatedTo", "/c/fr/chien", "/c/en/dog", {"dataset": "/d/wiktionary/fr", "sources": WIKT, "weight": 1.0}),
    line("/r/HasA", "/c/en/bird", "/c/en/feathers", {
        "dataset": "/d/conceptnet/4/en", "sources": OMCS, "surfaceText": "[[Birds]] have [[feathers]]",
        "weight": 3.46}),
]
ENGLISH_ROWS = [1, 3, 5, 6, 8, 10]


@pytest.fixture(scope="module")
def assertions(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("csv") / "assertions.csv"
    path.write_text("".join(LINES), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def database(assertions: Path, tmp_path_factory) -> Path:
    """A database built by conceptnet_lite's own loader from the CSV (offline: no download)."""
    db_path = tmp_path_factory.mktemp("db") / "conceptnet.db"
    conceptnet_lite.db.load_dump_to_db(assertions, db_path, edge_count=None, delete_dump=False)
    conceptnet_lite.db.db.close()
    return db_path


def copy_of(database: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "conceptnet.db"
    copy.write_bytes(database.read_bytes())
    return copy


def table(path: Path):
    return pq.read_table(path)


def test_same_edges_as_the_csv_streamer(assertions: Path, database: Path, tmp_path: Path) -> None:
    csv_out, db_out = tmp_path / "csv.parquet", tmp_path / "db.parquet"
    stream_to_parquet(assertions, csv_out)
    stats = edges_from_conceptnet_lite(database, db_out, metadata={"source": "conceptnet-lite"})
    assert stats == {"english_edges": len(ENGLISH_ROWS)}
    assert table(db_out).schema.remove_metadata().equals(EDGE_SCHEMA)
    assert table(db_out).column("row").to_pylist() == ENGLISH_ROWS
    assert table(db_out).to_pylist() == table(csv_out).to_pylist()
    assert read_metadata(db_out) == {"source": "conceptnet-lite", "stats": stats}


def test_fields_recovered_from_the_database(database: Path, tmp_path: Path) -> None:
    out = tmp_path / "db.parquet"
    edges_from_conceptnet_lite(database, out)
    by_row = {edge["row"]: edge for edge in table(out).to_pylist()}
    assert by_row[6] == {
        "relation": "CapableOf", "start_uri": "/c/en/dog", "end_uri": "/c/en/bark", "start_term": "dog",
        "end_term": "bark", "start_pos": None, "end_pos": None, "weight": 1.0, "dataset": None,
        "surface_text": "[[a dog]] can [[bark]]", "sources": "[]", "row": 6,
    }
    jazz = by_row[8]
    assert (jazz["relation"], jazz["start_uri"], jazz["start_term"], jazz["start_pos"]) == \
        ("dbpedia/influencedBy", "/c/en/jazz/n/wp/music", "jazz", "n")
    assert by_row[3]["end_term"] == "hard questions" and by_row[3]["weight"] == 1.0


def test_relation_filter_matches_the_csv_streamer(assertions: Path, database: Path, tmp_path: Path) -> None:
    wanted = {"CapableOf", "IsA", "dbpedia/genre", "Synonym"}
    csv_out, db_out = tmp_path / "csv.parquet", tmp_path / "db.parquet"
    stream_to_parquet(assertions, csv_out, relations=wanted)
    assert edges_from_conceptnet_lite(database, db_out, relations=wanted) == {"english_edges": 3}
    assert table(db_out).to_pylist() == table(csv_out).to_pylist()
    assert table(db_out).column("row").to_pylist() == [3, 5, 6]


def test_deterministic_and_chunked(database: Path, tmp_path: Path) -> None:
    first, second, chunked = tmp_path / "a.parquet", tmp_path / "b.parquet", tmp_path / "c.parquet"
    edges_from_conceptnet_lite(database, first)
    edges_from_conceptnet_lite(database, second)
    assert first.read_bytes() == second.read_bytes()
    edges_from_conceptnet_lite(database, chunked, chunk_rows=4)
    assert pq.ParquetFile(chunked).metadata.num_row_groups == 2
    assert table(chunked).equals(table(first))


def test_database_is_left_untouched(database: Path, tmp_path: Path) -> None:
    copy = copy_of(database, tmp_path)
    before = hashlib.sha256(copy.read_bytes()).hexdigest()
    edges_from_conceptnet_lite(copy, tmp_path / "out.parquet")
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["conceptnet.db", "out.parquet"]


def test_missing_database_is_never_downloaded(tmp_path: Path, monkeypatch) -> None:
    def no_network(*args, **kwargs):
        raise AssertionError("conceptnet_lite tried to download")

    for module, name in [(conceptnet_lite, "download_db"), (conceptnet_lite.db, "download_db"),
                         (conceptnet_lite.db, "download_dump"), (conceptnet_lite.db, "SmartDL")]:
        monkeypatch.setattr(module, name, no_network)
    missing = tmp_path / "conceptnet.db"
    with pytest.raises(FileNotFoundError, match=r"conceptnet\.db: no conceptnet-lite database"):
        edges_from_conceptnet_lite(missing, tmp_path / "out.parquet")
    assert list(tmp_path.iterdir()) == []  # no empty database created either


@pytest.mark.parametrize(
    ("etc", "problem"),
    [('{"weight": ', "etc is not JSON"), ('{"dataset": "/d/x"}', "weight None is not a number"),
     ("[1, 2]", "etc is not a JSON object"), ('{"weight": 1, "surfaceText": 3}', "surfaceText 3 is not a string"),
     # Refused as the CSV streamer refuses them (not standard JSON; not a finite weight).
     ('{"weight": NaN}', r"etc is not JSON \(NaN is not a JSON value\)"),
     ('{"weight": 1e999}', "weight inf is not a finite number")],
)
def test_bad_etc_names_database_and_edge(database: Path, tmp_path: Path, etc: str, problem: str) -> None:
    copy = copy_of(database, tmp_path)
    with sqlite3.connect(copy) as connection:
        connection.execute("UPDATE edge SET etc = ? WHERE id = 6", (etc,))
    connection.close()
    with pytest.raises(ConceptNetLiteError, match=rf"conceptnet\.db, edge id 6: {problem}"):
        edges_from_conceptnet_lite(copy, tmp_path / "out.parquet")
    assert not (tmp_path / "out.parquet").exists()


def test_not_a_conceptnet_lite_database(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE edge (id INTEGER PRIMARY KEY, start TEXT)")
    connection.close()
    with pytest.raises(ConceptNetLiteError, match=r"other\.db: not a conceptnet-lite database"):
        edges_from_conceptnet_lite(other, tmp_path / "out.parquet")
    text = tmp_path / "notes.db"
    text.write_text("not sqlite at all, just some text that is long enough " * 4, encoding="utf-8")
    with pytest.raises(ConceptNetLiteError, match=r"notes\.db: not an SQLite database"):
        edges_from_conceptnet_lite(text, tmp_path / "out.parquet")


def test_relation_names_invert_conceptnet_lites_snake_case() -> None:
    for name in CONCEPTNET_RELATIONS:
        assert relation_name(_to_snake_case(name)) == name
    # names outside the list: camel-cased by rule
    assert relation_name(_to_snake_case("HasShape")) == "HasShape"
    assert relation_name(_to_snake_case("dbpedia/bornIn")) == "dbpedia/bornIn"


def test_the_workflows_edges_name_the_database_by_contents_not_path(database: Path, tmp_path: Path) -> None:
    """The same database in two folders gives byte-identical edges, recording its sha256, and the
    conceptnet_gen dataset built on them carries that identity instead of the configured path."""
    import hashlib

    from lmprobes.suites.lama.pipeline import make_conceptnet_edges, make_conceptnet_gen

    outs = []
    for folder in ("here", "elsewhere/deeper"):
        (tmp_path / folder).mkdir(parents=True)
        copy = copy_of(database, tmp_path / folder)
        outs.append(tmp_path / folder / "edges.parquet")
        make_conceptnet_edges(copy, outs[-1], from_conceptnet_lite=True, provenance={"conceptnet_lite_db": str(copy)})
    assert outs[0].read_bytes() == outs[1].read_bytes()
    expected = {"name": "conceptnet.db", "sha256": hashlib.sha256(database.read_bytes()).hexdigest()}
    assert read_metadata(outs[0])["source"] == {"conceptnet_lite_db": expected}
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(table(outs[0]).column("end_term").to_pylist()) + "\n", encoding="utf-8")
    settings = {"max_per_relation": 1000, "sentence_end": ".", "conceptnet_lite_db": str(tmp_path / "here")}
    make_conceptnet_gen(outs[0], vocab, tmp_path / "gen.parquet", seed=0, settings=settings,
                        provenance={"conceptnet_gen": {"conceptnet_lite_db": settings["conceptnet_lite_db"]}})
    generated = read_metadata(tmp_path / "gen.parquet")
    assert generated["sources"] == {"conceptnet_gen": {"conceptnet_lite_db": expected}}
    assert "conceptnet_lite_db" not in generated["settings"]


def test_edges_come_in_the_csvs_line_order_across_relations(tmp_path: Path) -> None:
    """The relations' streams are merged by edge id, not read one relation after another."""
    omcs = {"dataset": "/d/conceptnet/4/en", "sources": OMCS, "weight": 1.0}
    assertions = tmp_path / "assertions.csv"
    assertions.write_text("".join([
        line("/r/AtLocation", "/c/en/wheat", "/c/en/field", omcs),
        line("/r/CapableOf", "/c/en/dog", "/c/en/bark", omcs),
        line("/r/AtLocation", "/c/en/cow", "/c/en/farm", omcs),
    ]), encoding="utf-8")
    db_path = tmp_path / "conceptnet.db"
    conceptnet_lite.db.load_dump_to_db(assertions, db_path, edge_count=None, delete_dump=False)
    conceptnet_lite.db.db.close()
    csv_out, db_out = tmp_path / "csv.parquet", tmp_path / "db.parquet"
    stream_to_parquet(assertions, csv_out)
    edges_from_conceptnet_lite(db_path, db_out)
    assert table(db_out).column("row").to_pylist() == [1, 2, 3]
    assert table(db_out).to_pylist() == table(csv_out).to_pylist()
