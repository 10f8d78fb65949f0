"""A conceptnet-lite database -> the same English edges Parquet as ``conceptnet.stream_to_parquet``.

conceptnet-lite (0.2.0) loads the ConceptNet 5.7 assertions into SQLite through its peewee models
(``conceptnet_lite.db``): ``relation(id, name)``, ``language(id, name)``, ``label(id, text,
language_id)``, ``concept(id, label_id, sense_label)`` and ``edge(id, relation_id, start_id,
end_id, etc)``. Its prebuilt database is a 9 GB download, so the workflow streams the CSV by
default; a user who already has the database can read the edges from it instead.

The database is opened directly with ``sqlite3`` in read-only mode, never through
``conceptnet_lite.connect``: that call downloads the database when the path does not exist, and
creates tables in it when it does. Nothing here imports conceptnet_lite or touches the network.

How each EDGE_SCHEMA column is recovered (the loader keeps every field of the assertion line
except the edge URI):

- ``relation``: stored in snake case (``at_location``, ``dbpedia/influenced_by``), mapped back to
  ConceptNet's names (``AtLocation``) through the list of 5.7 relations; a name outside it is
  camel-cased by rule (``has_a`` -> ``HasA``, ``dbpedia/x_y`` -> ``dbpedia/xY``).
- ``start_uri``/``end_uri``, terms and parts of speech: ``/c/<language>/<label text>[/<sense_label>]``,
  parsed as the CSV streamer parses the URI (term: label text with ``_`` as space; pos: the first
  segment of the sense label, null when there is none). English means language ``en`` at both ends
  (external URLs have no language and are never English).
- ``weight``, ``dataset``, ``surface_text``, ``sources``: from ``etc``, the assertion's JSON info
  column as the loader found it in the dump. An absent ``surfaceText`` or ``dataset`` is null, an
  absent ``sources`` is ``[]`` (both as in the CSV streamer); an absent, non-numeric or non-finite weight is
  an error naming the database and the edge id.
- ``row``: the edge id. conceptnet-lite inserts the dump's lines in order with ids from 1, so for a
  database built from the assertions file it is the same 1-based line number the CSV streamer
  records (and the output order, by edge id, is the CSV's line order).
"""

from __future__ import annotations

import heapq
import json
import re
import sqlite3
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from lmprobes.io import METADATA_KEY, atomic_path
from lmprobes.suites.lama.conceptnet import EDGE_SCHEMA, checked_info, encode_json, rechunk

ENGLISH = "en"
# Every relation of the ConceptNet 5.7 assertions, as the CSV names them.
CONCEPTNET_RELATIONS = (
    "Antonym", "AtLocation", "CapableOf", "Causes", "CausesDesire", "CreatedBy", "DefinedAs",
    "DerivedFrom", "Desires", "DistinctFrom", "Entails", "EtymologicallyDerivedFrom",
    "EtymologicallyRelatedTo", "ExternalURL", "FormOf", "HasA", "HasContext", "HasFirstSubevent",
    "HasLastSubevent", "HasPrerequisite", "HasProperty", "HasSubevent", "InstanceOf", "IsA",
    "LocatedNear", "MadeOf", "MannerOf", "MotivatedByGoal", "NotCapableOf", "NotDesires",
    "NotHasProperty", "NotUsedFor", "ObstructedBy", "PartOf", "ReceivesAction", "RelatedTo",
    "SimilarTo", "SymbolOf", "Synonym", "UsedFor",
    "dbpedia/capital", "dbpedia/field", "dbpedia/genre", "dbpedia/genus", "dbpedia/influencedBy",
    "dbpedia/knownFor", "dbpedia/language", "dbpedia/leader", "dbpedia/occupation", "dbpedia/product",
)
# The columns read, per table of conceptnet_lite.db's models.
TABLE_COLUMNS = {
    "relation": ("id", "name"),
    "language": ("id", "name"),
    "label": ("id", "text", "language_id"),
    "concept": ("id", "label_id", "sense_label"),
    "edge": ("id", "relation_id", "start_id", "end_id", "etc"),
}
EDGES_SQL = """
SELECT e.id, e.relation_id, sl.text, sc.sense_label, el.text, ec.sense_label, e.etc
FROM edge AS e
JOIN concept AS sc ON sc.id = e.start_id JOIN label AS sl ON sl.id = sc.label_id
JOIN concept AS ec ON ec.id = e.end_id JOIN label AS el ON el.id = ec.label_id
WHERE e.relation_id = ? AND sl.language_id = ? AND el.language_id = ?
ORDER BY e.id
"""
FETCH_ROWS = 50_000


class ConceptNetLiteError(ValueError):
    """An unusable conceptnet-lite database; the message names the file (and the edge id)."""


# --- relation names ------------------------------------------------------------------------


def snake_case(name: str) -> str:
    """conceptnet-lite's stored relation name (its ``utils._to_snake_case``): ``IsA`` -> ``is_a``."""
    return re.sub(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))", r"_\1", name).lower()


KNOWN_RELATIONS = {snake_case(name): name for name in CONCEPTNET_RELATIONS}


def camel_case(stored: str) -> str:
    """The rule for a relation missing from CONCEPTNET_RELATIONS: ``has_a`` -> ``HasA``."""
    *namespace, last = stored.split("/")
    words = last.split("_")
    if namespace:  # dbpedia/... names start lower case
        return "/".join([*namespace, words[0] + "".join(word.capitalize() for word in words[1:])])
    return "".join(word.capitalize() for word in words)


def relation_name(stored: str) -> str:
    return KNOWN_RELATIONS.get(stored) or camel_case(stored)


# --- reading -------------------------------------------------------------------------------


def open_read_only(db_path: Path) -> sqlite3.Connection:
    if not db_path.is_file():
        raise FileNotFoundError(f"{db_path}: no conceptnet-lite database there (it is never downloaded "
                                "here; build it with conceptnet_lite or use the assertions CSV)")
    return sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True)


def check_schema(db_path: Path, connection: sqlite3.Connection) -> None:
    for table, wanted in TABLE_COLUMNS.items():
        try:
            present = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}
        except sqlite3.DatabaseError as error:
            raise ConceptNetLiteError(f"{db_path}: not an SQLite database ({error})") from None
        missing = [column for column in wanted if column not in present]
        if missing:
            raise ConceptNetLiteError(f"{db_path}: not a conceptnet-lite database (table {table!r} "
                                      f"lacks columns {missing})")


def english_id(connection: sqlite3.Connection) -> int | None:
    row = connection.execute("SELECT id FROM language WHERE name = ?", (ENGLISH,)).fetchone()
    return None if row is None else row[0]


def relation_ids(connection: sqlite3.Connection, relations: set[str] | None) -> dict[int, str]:
    """Database id -> ConceptNet relation name, for the wanted relations (all when None)."""
    names = {row[0]: relation_name(row[1]) for row in connection.execute("SELECT id, name FROM relation")}
    return {key: name for key, name in names.items() if relations is None or name in relations}


def relation_rows(connection: sqlite3.Connection, relation_id: int, english: int) -> Iterator[tuple]:
    """One relation's English edges in id order (read along the relation index, no sorting)."""
    cursor = connection.execute(EDGES_SQL, (relation_id, english, english))
    while block := cursor.fetchmany(FETCH_ROWS):
        yield from block


def english_rows(db_path: Path, relations: set[str] | None) -> Iterator[list[tuple]]:
    """Blocks of (edge id, relation name, start text, start sense, end text, end sense, etc), by
    edge id: the relations' streams merged, so SQLite never sorts the selected edges."""
    connection = open_read_only(db_path)
    try:
        check_schema(db_path, connection)
        english, names = english_id(connection), relation_ids(connection, relations)
        if english is None:
            return
        streams = [relation_rows(connection, relation_id, english) for relation_id in sorted(names)]
        rows = heapq.merge(*streams, key=lambda row: row[0])
        while block := list(islice(rows, FETCH_ROWS)):
            yield [(row[0], names[row[1]], *row[2:]) for row in block]
    finally:
        connection.close()


# --- converting ----------------------------------------------------------------------------


def edge_error(db_path: Path, edge_id: int, problem: str) -> ConceptNetLiteError:
    return ConceptNetLiteError(f"{db_path}, edge id {edge_id}: {problem}")


def parse_etc(db_path: Path, edge_id: int, etc: str | bytes | None) -> dict:
    """The edge's JSON info, checked as the CSV streamer checks it."""
    if etc is None:
        raise edge_error(db_path, edge_id, "etc is not a JSON object")
    return checked_info(etc, "etc", lambda problem: edge_error(db_path, edge_id, problem))


def concept_columns(text: str, sense: str | None) -> tuple[str, str, str | None]:
    """(uri, term, pos) of an English concept: ("ice_cream", "n/wikt/en_1") ->
    ("/c/en/ice_cream/n/wikt/en_1", "ice cream", "n")."""
    uri = f"/c/{ENGLISH}/{text}" + (f"/{sense}" if sense else "")
    return uri, text.replace("_", " "), (sense.split("/")[0] or None) if sense else None


def edge_record(db_path: Path, row: tuple) -> dict:
    edge_id, relation, start_text, start_sense, end_text, end_sense, etc = row
    info = parse_etc(db_path, edge_id, etc)
    start_uri, start_term, start_pos = concept_columns(start_text, start_sense)
    end_uri, end_term, end_pos = concept_columns(end_text, end_sense)
    return {
        "relation": relation, "start_uri": start_uri, "end_uri": end_uri, "start_term": start_term,
        "end_term": end_term, "start_pos": start_pos, "end_pos": end_pos, "weight": float(info["weight"]),
        "dataset": info.get("dataset"), "surface_text": info.get("surfaceText"),
        "sources": encode_json(info.get("sources", [])), "row": edge_id,
    }


def edge_batches(db_path: Path, relations: set[str] | None) -> Iterator[pa.RecordBatch]:
    for block in english_rows(db_path, relations):
        records = [edge_record(db_path, row) for row in block]
        yield pa.RecordBatch.from_pylist(records, schema=EDGE_SCHEMA)


# --- public API ----------------------------------------------------------------------------


def edges_from_conceptnet_lite(
    db_path: Path,
    out: Path,
    *,
    relations: set[str] | None = None,
    metadata: dict | None = None,
    chunk_rows: int = 200_000,
) -> dict[str, int]:
    """Write the English-English edges of a conceptnet-lite database to ``out`` as
    ``stream_to_parquet`` writes them from the CSV (EDGE_SCHEMA, zstd, atomic, ordered by edge id,
    row groups of ``chunk_rows``, metadata key ``lmprobes``: ``metadata`` plus the counts);
    ``relations`` keeps those ConceptNet relation names. Returns ``{"english_edges": n}``."""
    db_path = Path(db_path)
    stats = {"english_edges": 0}
    with atomic_path(out) as tmp, pq.ParquetWriter(tmp, EDGE_SCHEMA, compression="zstd", store_schema=False) as writer:
        for batch in rechunk(edge_batches(db_path, relations), chunk_rows):
            stats["english_edges"] += batch.num_rows
            writer.write_batch(batch)
        provenance = {**(metadata or {}), "stats": stats}
        writer.add_key_value_metadata({METADATA_KEY: json.dumps(provenance, sort_keys=True, default=str).encode()})
    return stats
