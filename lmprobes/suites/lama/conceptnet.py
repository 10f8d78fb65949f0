"""ConceptNet 5.7 assertions (TSV, plain or gzip) -> a Parquet table of English edges, streamed.

Each line holds: edge URI, relation URI, start URI, end URI, JSON info (dataset, license,
sources, optional surfaceText, weight). The file (34M lines) is never loaded whole: pyarrow's
CSV reader splits it block by block and the English filter is vectorised; only the kept lines'
JSON is decoded in Python. A line the CSV reader rejects (wrong field count, not UTF-8) hands
the rest of the file to a plain line-by-line parser that can name the offending line.

Only kept (English, selected-relation) lines have their JSON checked: decoding the JSON of the
~90% non-English lines of the real file would cost more than everything else together, for
lines that never reach the output. Every line's field count is checked.

Bad input always names the file and line: a gzip stream that is cut short or corrupt is reported at
the line where reading stopped (always an error, also with ``on_error="skip"``: the rest of the file
cannot be read), and a file without a single line is an error. The info JSON must be standard JSON
(``NaN``/``Infinity`` are refused) with a finite weight. A key repeated within the info object is
not looked for: the exporter writes each key once, and the check (a Python hook on every decoded
object) would about double the decoding time of the kept lines, which dominates the stream.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv
import pyarrow.parquet as pq

from lmprobes.io import METADATA_KEY, atomic_path

EDGE_SCHEMA = pa.schema(
    [
        pa.field("relation", pa.string(), nullable=False),
        pa.field("start_uri", pa.string(), nullable=False),
        pa.field("end_uri", pa.string(), nullable=False),
        pa.field("start_term", pa.string(), nullable=False),
        pa.field("end_term", pa.string(), nullable=False),
        pa.field("start_pos", pa.string()),
        pa.field("end_pos", pa.string()),
        pa.field("weight", pa.float64(), nullable=False),
        pa.field("dataset", pa.string()),
        pa.field("surface_text", pa.string()),
        pa.field("sources", pa.string(), nullable=False),
        pa.field("row", pa.int64(), nullable=False),
    ]
)

FIELDS = ("edge", "relation", "start", "end", "info")
ENGLISH = "/c/en/"
RELATION_PREFIX = "/r/"
GZIP_MAGIC = b"\x1f\x8b"
READ_BLOCK_BYTES = 1 << 20  # larger blocks are no faster and the reader holds several at once
FALLBACK_BLOCK_LINES = 50_000
ON_ERROR = ("raise", "skip")


class ConceptNetError(ValueError):
    """A malformed assertion line; the message names the file and the 1-based line number."""


def new_stats() -> dict[str, int]:
    return {"rows_read": 0, "english_edges": 0, "skipped_non_english": 0, "skipped_relation": 0, "malformed": 0}


@dataclass
class LineBlock:
    """Consecutive parsed lines: the five string columns and each line's 1-based number."""

    columns: dict[str, pa.Array]
    lines: pa.Array


# --- reading -------------------------------------------------------------------------------


def is_gzip(path: str | os.PathLike) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def open_binary(path: str | os.PathLike) -> pa.NativeFile:
    raw = pa.OSFile(str(path), "rb")
    return pa.CompressedInputStream(raw, "gzip") if is_gzip(path) else raw


def csv_reader(path: str | os.PathLike) -> pcsv.CSVStreamingReader:
    """Every physical line becomes one row: no quoting (the JSON holds quotes), no skipped blanks."""
    return pcsv.open_csv(
        open_binary(path),
        read_options=pcsv.ReadOptions(column_names=list(FIELDS), block_size=READ_BLOCK_BYTES, use_threads=False),
        parse_options=pcsv.ParseOptions(
            delimiter="\t", quote_char=False, double_quote=False, escape_char=False,
            newlines_in_values=False, ignore_empty_lines=False,
        ),
        convert_options=pcsv.ConvertOptions(
            column_types={name: pa.string() for name in FIELDS}, strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
    )


def read_line_blocks(path, stats: dict[str, int], on_error: str) -> Iterator[LineBlock]:
    """Blocks of lines via the fast CSV reader; from its first rejected line on, line by line."""
    done = 0
    try:
        for batch in csv_reader(path):
            lines = pa.array(range(done + 1, done + batch.num_rows + 1), pa.int64())
            done += batch.num_rows
            yield LineBlock({name: batch.column(name) for name in FIELDS}, lines)
    except (pa.ArrowInvalid, OSError):  # a line with the wrong field count, not UTF-8, or corrupt gzip data
        yield from read_line_blocks_slowly(path, done, stats, on_error)


def read_line_blocks_slowly(path, skip_lines: int, stats: dict[str, int], on_error: str) -> Iterator[LineBlock]:
    """Plain Python parsing of the lines after ``skip_lines``; reports malformed lines precisely."""
    columns: list[list[str]] = [[] for _ in FIELDS]
    lines: list[int] = []
    for number, data in raw_lines(path):
        if number <= skip_lines:
            continue
        fields = split_line(path, number, data)
        if isinstance(fields, ConceptNetError):
            if lines:  # so that an earlier bad line among them is reported first
                yield block_from_lists(columns, lines)
                columns, lines = [[] for _ in FIELDS], []
            stats["rows_read"] += 1
            report_malformed(fields, stats, on_error)
            continue
        for column, value in zip(columns, fields):
            column.append(value)
        lines.append(number)
        if len(lines) >= FALLBACK_BLOCK_LINES:
            yield block_from_lists(columns, lines)
            columns, lines = [[] for _ in FIELDS], []
    if lines:
        yield block_from_lists(columns, lines)


def raw_lines(path) -> Iterator[tuple[int, bytes]]:
    """``(number, bytes)`` of every line; corrupt or truncated gzip data raises, naming the line."""
    number = 0
    opener = gzip.open if is_gzip(path) else open
    try:
        with opener(path, "rb") as handle:
            for number, data in enumerate(handle, start=1):
                yield number, data
    except (EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise malformed_error(path, number + 1, f"compressed data is truncated or corrupt ({error})") from None


def split_line(path, number: int, data: bytes) -> list[str] | ConceptNetError:
    """The five fields of one raw line, or the error describing it."""
    try:
        text = data.decode("utf-8").rstrip("\r\n")
    except UnicodeDecodeError as error:
        return malformed_error(path, number, f"not UTF-8 ({error.reason})")
    fields = text.split("\t")
    if len(fields) != len(FIELDS):
        return malformed_error(path, number, f"{len(fields)} tab-separated fields, expected {len(FIELDS)}")
    return fields


def block_from_lists(columns: list[list[str]], lines: list[int]) -> LineBlock:
    arrays = {name: pa.array(values, pa.string()) for name, values in zip(FIELDS, columns)}
    return LineBlock(arrays, pa.array(lines, pa.int64()))


# --- parsing -------------------------------------------------------------------------------

TERM_AND_POS = r"^/c/en/(?P<term>[^/]*)(?:/(?P<pos>[^/]*))?"
encode_json = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps builds an encoder per call


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON value")


decode_json = json.JSONDecoder(parse_constant=_no_constant).decode


def malformed_error(path, number: int, problem: str) -> ConceptNetError:
    return ConceptNetError(f"{path}, line {number}: malformed ConceptNet assertion: {problem}")


def report_malformed(error: ConceptNetError, stats: dict[str, int], on_error: str) -> None:
    if on_error == "raise":
        raise error
    stats["malformed"] += 1


def report_first(errors: list[tuple[int, ConceptNetError]], stats: dict[str, int], on_error: str) -> None:
    """Raise the earliest line's error, or count them all."""
    if errors and on_error == "raise":
        raise min(errors, key=lambda item: item[0])[1]
    stats["malformed"] += len(errors)


def filter_block(block: LineBlock, mask: pa.Array) -> LineBlock:
    return LineBlock({name: pc.filter(column, mask) for name, column in block.columns.items()},
                     pc.filter(block.lines, mask))


def reject(path, block: LineBlock, bad: pa.Array, problem: str) -> tuple[LineBlock, list[tuple[int, ConceptNetError]]]:
    """Split off the lines flagged ``bad``, each with its error."""
    if not pc.any(bad).as_py():
        return block, []
    errors = [(number, malformed_error(path, number, problem)) for number in pc.filter(block.lines, bad).to_pylist()]
    return filter_block(block, pc.invert(bad)), errors


def parse_info(path, number: int, text: str) -> dict:
    """The JSON info of a kept line, checked: an object with a numeric weight."""
    return checked_info(text, "info", lambda problem: malformed_error(path, number, problem))


def checked_info(text: str | bytes, field: str, error: Callable[[str], Exception]) -> dict:
    """An assertion's JSON ``field`` (the CSV's info, conceptnet-lite's etc) as an object with a finite
    numeric weight and string texts; anything else raises ``error(problem)``."""
    try:
        info = decode_json(text if isinstance(text, str) else text.decode("utf-8"))
    except json.JSONDecodeError as failure:
        raise error(f"{field} is not JSON ({failure.msg})") from None
    except (ValueError, RecursionError) as failure:  # NaN / Infinity, not UTF-8, or absurdly deep nesting
        raise error(f"{field} is not JSON ({failure or 'nested too deeply'})") from None
    if not isinstance(info, dict):
        raise error(f"{field} is not a JSON object")
    weight = info.get("weight")
    if isinstance(weight, bool) or not isinstance(weight, (int, float)):
        raise error(f"weight {weight!r} is not a number")
    if not is_finite_number(weight):
        raise error(f"weight {weight!r} is not a finite number")
    for key in ("dataset", "surfaceText"):
        if not isinstance(info.get(key), (str, type(None))):
            raise error(f"{key} {info[key]!r} is not a string")
    return info


def is_finite_number(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond the range of a float
        return False


def info_columns(path, block: LineBlock) -> tuple[dict[str, list], list[bool], list[tuple[int, ConceptNetError]]]:
    """weight, dataset, surface_text, sources of each line; which lines parsed; the errors."""
    columns: dict[str, list] = {"weight": [], "dataset": [], "surface_text": [], "sources": []}
    parsed: list[bool] = []
    errors: list[tuple[int, ConceptNetError]] = []
    for number, text in zip(block.lines.to_pylist(), block.columns["info"].to_pylist()):
        try:
            info = parse_info(path, number, text)
        except ConceptNetError as error:
            errors.append((number, error))
            parsed.append(False)
            continue
        parsed.append(True)
        columns["weight"].append(float(info["weight"]))
        columns["dataset"].append(info.get("dataset"))
        columns["surface_text"].append(info.get("surfaceText"))
        columns["sources"].append(encode_json(info.get("sources", [])))
    return columns, parsed, errors


def term_and_pos(uris: pa.Array) -> tuple[pa.Array, pa.Array]:
    """``/c/en/ice_cream/n/wikt/en_1`` -> ("ice cream", "n"); ``/c/en/run`` -> ("run", null)."""
    parts = pc.extract_regex(uris, TERM_AND_POS)
    term = pc.replace_substring(parts.field("term"), "_", " ")
    pos = parts.field("pos")
    return term, pc.if_else(pc.equal(pos, ""), pa.scalar(None, pa.string()), pos)


def edge_batch(block: LineBlock, info: dict[str, list]) -> pa.RecordBatch:
    start_term, start_pos = term_and_pos(block.columns["start"])
    end_term, end_pos = term_and_pos(block.columns["end"])
    columns = {
        "relation": pc.utf8_slice_codeunits(block.columns["relation"], len(RELATION_PREFIX)),
        "start_uri": block.columns["start"], "end_uri": block.columns["end"],
        "start_term": start_term, "end_term": end_term, "start_pos": start_pos, "end_pos": end_pos,
        "row": block.lines,
        **{name: pa.array(values, EDGE_SCHEMA.field(name).type) for name, values in info.items()},
    }
    return pa.RecordBatch.from_arrays([columns[name] for name in EDGE_SCHEMA.names], schema=EDGE_SCHEMA)


def english_mask(block: LineBlock) -> pa.Array:
    return pc.and_(
        pc.starts_with(block.columns["start"], ENGLISH), pc.starts_with(block.columns["end"], ENGLISH)
    )


def relation_mask(block: LineBlock, relations: set[str]) -> pa.Array:
    wanted = pa.array(sorted(RELATION_PREFIX + name for name in relations), pa.string())
    return pc.is_in(block.columns["relation"], value_set=wanted)


def keep_selected(block: LineBlock, relations: set[str] | None, stats: dict[str, int]) -> LineBlock:
    """The English lines (of the wanted relations), counting the others."""
    english = english_mask(block)
    english_count = pc.sum(english).as_py() or 0
    stats["skipped_non_english"] += len(block.lines) - english_count
    keep = english
    if relations is not None:
        keep = pc.and_(english, relation_mask(block, relations))
        stats["skipped_relation"] += english_count - (pc.sum(keep).as_py() or 0)
    return filter_block(block, keep)


def block_edges(path, block: LineBlock, relations: set[str] | None, stats: dict[str, int], on_error: str) -> pa.RecordBatch:
    """The English edges of one block of lines, checking only what reaches the output."""
    stats["rows_read"] += len(block.lines)
    # The CSV reader turns an empty line into five empty fields instead of rejecting it.
    block, blank_errors = reject(path, block, pc.equal(block.columns["info"], ""), "empty info field (blank line?)")
    block = keep_selected(block, relations, stats)
    block, relation_errors = reject(path, block, pc.invert(pc.starts_with(block.columns["relation"], RELATION_PREFIX)),
                                    f"relation is not under {RELATION_PREFIX}")
    info, parsed, info_errors = info_columns(path, block)
    report_first(blank_errors + relation_errors + info_errors, stats, on_error)
    if info_errors:
        block = filter_block(block, pa.array(parsed))
    return edge_batch(block, info)


def rechunk(batches: Iterable[pa.RecordBatch], size: int) -> Iterator[pa.RecordBatch]:
    """Batches of exactly ``size`` rows (the last may be shorter), whatever the input sizes."""
    pending: list[pa.RecordBatch] = []
    pending_rows = 0
    for batch in batches:
        pending.append(batch)
        pending_rows += batch.num_rows
        if pending_rows < size:
            continue
        table = pa.Table.from_batches(pending, schema=EDGE_SCHEMA)
        whole = pending_rows - pending_rows % size
        for offset in range(0, whole, size):
            yield table.slice(offset, size).combine_chunks().to_batches()[0]
        pending = table.slice(whole).to_batches()
        pending_rows -= whole
    if pending_rows:
        yield pa.Table.from_batches(pending, schema=EDGE_SCHEMA).combine_chunks().to_batches()[0]


# --- public API ----------------------------------------------------------------------------


def iter_english_edges(
    path: str | os.PathLike,
    *,
    chunk_rows: int = 200_000,
    relations: set[str] | None = None,
    on_error: str = "raise",
    stats: dict[str, int] | None = None,
) -> Iterator[pa.RecordBatch]:
    """Record batches (EDGE_SCHEMA, at most ``chunk_rows`` rows) of edges with both ends English.

    ``relations`` keeps only those relation names (``"IsA"``, ``"dbpedia/genre"``). A malformed
    line raises ConceptNetError, or with ``on_error="skip"`` is counted. Counts go to ``stats``
    (updated in place; see ``new_stats``).
    """
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be one of {ON_ERROR}, not {on_error!r}")
    if chunk_rows < 1:
        raise ValueError(f"chunk_rows must be positive, not {chunk_rows}")
    stats = new_stats() if stats is None else stats
    batches = (block_edges(path, block, relations, stats, on_error)
               for block in read_line_blocks(path, stats, on_error))
    for batch in rechunk(batches, chunk_rows):
        stats["english_edges"] += batch.num_rows
        yield batch
    if stats["rows_read"] == 0:
        raise ConceptNetError(f"{path}: empty file, no ConceptNet assertions")


def stream_to_parquet(
    path: str | os.PathLike,
    out: str | os.PathLike,
    *,
    chunk_rows: int = 200_000,
    relations: set[str] | None = None,
    metadata: dict | None = None,
    on_error: str = "raise",
) -> dict[str, int]:
    """Write the English edges of ``path`` to ``out`` (zstd Parquet, atomically); return the counts.

    The Parquet metadata key ``lmprobes`` holds ``metadata`` plus ``{"stats": counts}``. Only
    our own key is written (no stored Arrow schema), so equal inputs give equal bytes.
    """
    stats = new_stats()
    # store_schema=False: key-value metadata added at the end then reads back as schema metadata.
    with atomic_path(out) as tmp, pq.ParquetWriter(tmp, EDGE_SCHEMA, compression="zstd", store_schema=False) as writer:
        for batch in iter_english_edges(path, chunk_rows=chunk_rows, relations=relations,
                                        on_error=on_error, stats=stats):
            writer.write_batch(batch)
        provenance = {**(metadata or {}), "stats": stats}
        writer.add_key_value_metadata({METADATA_KEY: json.dumps(provenance, sort_keys=True, default=str).encode()})
    return stats
