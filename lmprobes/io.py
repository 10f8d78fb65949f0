"""Deterministic, atomic file outputs: Parquet tables with provenance, CSV and Markdown."""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

METADATA_KEY = b"lmprobes"


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary sibling of ``path``; move it into place only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_parquet(df: pd.DataFrame, path, schema: pa.Schema, metadata: dict) -> None:
    """Write ``df`` with an explicit schema, zstd, no index and provenance metadata.

    Only our own metadata is kept (no pandas block), so the bytes depend on the data alone.
    """
    missing = [name for name in schema.names if name not in df.columns]
    if missing:
        raise ValueError(f"{path}: columns {missing} missing from the table to write")
    table = pa.Table.from_pandas(df[schema.names], schema=schema, preserve_index=False)
    encoded = json.dumps(metadata, sort_keys=True, default=str).encode()
    table = table.replace_schema_metadata({METADATA_KEY: encoded})
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd", write_statistics=True)


def read_parquet(path) -> pd.DataFrame:
    return pq.read_table(path).to_pandas()


def read_metadata(path) -> dict:
    raw = pq.read_schema(path).metadata or {}
    return json.loads(raw.get(METADATA_KEY, b"{}"))


def parse_json_object(line: str, where: str, error: type[Exception]) -> dict:
    """One JSON-lines record, or ``error`` naming ``where`` (``file:line``)."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise error(f"{where}: not valid JSON ({err.msg})") from None
    if not isinstance(record, dict):
        raise error(f"{where}: expected a JSON object")
    return record


def write_text(text: str, path) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def to_markdown(df: pd.DataFrame, floatfmt: str = ".1f") -> str:
    """A GitHub-flavoured Markdown table (no extra dependency)."""
    header = [str(c) for c in df.columns]
    rows = [[_cell(v, floatfmt) for v in row] for row in df.itertuples(index=False)]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _cell(value, floatfmt: str) -> str:
    if isinstance(value, float):
        return "" if pd.isna(value) else format(value, floatfmt)
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ""
    return str(value).replace("|", "\\|")


def write_table(df: pd.DataFrame, csv_path, md_path, title: str = "", floatfmt: str = ".1f",
                markdown_frame: pd.DataFrame | None = None, note: str = "") -> None:
    """The CSV keeps full precision (tidy); the Markdown is the readable layout, rounded."""
    with atomic_path(csv_path) as tmp:
        df.to_csv(tmp, index=False, lineterminator="\n")
    heading = f"## {title}\n\n" if title else ""
    body = to_markdown(df if markdown_frame is None else markdown_frame, floatfmt)
    write_text(heading + body + note, md_path)
