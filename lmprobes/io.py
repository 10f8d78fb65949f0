"""Deterministic, atomic file outputs: Parquet tables with provenance, CSV and Markdown; strict input lines.

Inputs are read line by line from bytes (``utf8_lines``), so that a byte that is not UTF-8, or a
gzip stream that is cut short, is reported with its file and line instead of escaping as a bare
UnicodeDecodeError or EOFError. JSON records are parsed strictly (``parse_json`` /
``parse_json_object``): a key repeated within one object is refused (``json.loads`` would keep the
last one silently; the releases are written by JSON encoders, which never repeat a key, so a
repeat means a hand-edited or damaged record), and so are ``NaN``/``Infinity``, which Python
accepts but JSON does not have.
"""

from __future__ import annotations

import contextvars
import functools
import gc
import gzip
import itertools
import json
import os
import secrets
import zlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from lmprobes.report.latex import MISSING, note_tables, prose_note, to_booktabs

METADATA_KEY = b"lmprobes"
# The workflow job writing (``job_metadata``): its rule and method revision, added to every Parquet file's metadata.
_JOB: contextvars.ContextVar[dict | None] = contextvars.ContextVar("lmprobes_job", default=None)


@contextmanager
def job_metadata(job: dict) -> Iterator[None]:
    """Within the block, every ``write_parquet`` records ``job`` under the metadata's ``job`` key."""
    token = _JOB.set(job)
    try:
        yield
    finally:
        _JOB.reset(token)


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary sibling of ``path``; move it into place only if the block succeeds.

    A process killed inside the block leaves at most the hidden ``.{name}.*.tmp`` sibling, never
    a partial ``path``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _new_sibling(path)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _new_sibling(path: Path) -> Path:
    """A new empty ``.{name}.<random>.tmp`` next to ``path``.

    Created with mode 0666 less the umask, as any new file; ``tempfile.mkstemp`` would make it
    0600, and ``os.replace`` would carry that owner-only mode over to the finished output.
    """
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        return tmp


def write_parquet(df: pd.DataFrame, path, schema: pa.Schema, metadata: dict) -> None:
    """Write ``df`` with an explicit schema, zstd, no index and provenance metadata.

    Only our own metadata is kept (no pandas block), so the bytes depend on the data alone. Inside a
    workflow job (``job_metadata``) the rule and its revision are added under ``job``.
    """
    job = _JOB.get()
    if job is not None:
        metadata = {**metadata, "job": job}
    missing = [name for name in schema.names if name not in df.columns]
    if missing:
        raise ValueError(f"{path}: columns {missing} missing from the table to write")
    table = pa.Table.from_pandas(df[schema.names], schema=schema, preserve_index=False)
    encoded = json.dumps(metadata, sort_keys=True, default=str).encode()
    table = table.replace_schema_metadata({METADATA_KEY: encoded})
    with atomic_path(path) as tmp:
        try:
            pq.write_table(table, tmp, compression="zstd", write_statistics=True)
        except OSError as err:  # a full disk or quota: Arrow's message does not name the file
            raise OSError(err.errno, f"{path}: not written ({err.strerror or err})") from err


def read_parquet(path, columns: list[str] | None = None) -> pd.DataFrame:
    """A Parquet file as a frame; with ``columns``, only those (one the file lacks is an error naming
    the file), each in a block of its own, so a column dropped from the frame is freed where a block
    of several object columns would live on in a view of the others."""
    if columns is None:
        return pq.read_table(path).to_pandas()
    present = set(pq.read_schema(path).names)
    missing = [name for name in columns if name not in present]
    if missing:
        raise ValueError(f"{path}: column(s) {missing} missing")
    return pq.read_table(path, columns=columns).to_pandas(split_blocks=True)


def read_metadata(path) -> dict:
    raw = pq.read_schema(path).metadata or {}
    return json.loads(raw.get(METADATA_KEY, b"{}"))


class StrictJsonError(ValueError):
    """JSON that ``json.loads`` accepts but a release record must not have (repeated key, NaN)."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        repeated = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise StrictJsonError(f"key {repeated!r} appears twice in one object")
    return record


def _no_constant(name: str) -> float:
    raise StrictJsonError(f"{name} is not a JSON value")


_STRICT_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_no_constant)


def loads_strict(text: str) -> object:
    """``json.loads`` refusing repeated keys and NaN/Infinity; every failure is a ValueError."""
    try:
        return _STRICT_DECODER.decode(text)
    except (json.JSONDecodeError, StrictJsonError):
        raise
    except ValueError as err:  # an integer of more than 4300 digits (sys.get_int_max_str_digits)
        raise StrictJsonError(str(err)) from None
    except RecursionError:
        raise StrictJsonError("nested too deeply") from None


def parse_json(text: str, where: str, error: type[Exception]) -> object:
    """One JSON value, parsed strictly (see the module docstring), or ``error`` naming ``where``."""
    try:
        return loads_strict(text)
    except json.JSONDecodeError as err:
        raise error(f"{where}: not valid JSON ({err.msg})") from None
    except StrictJsonError as err:
        raise error(f"{where}: not valid JSON ({err})") from None


def parse_json_object(line: str, where: str, error: type[Exception]) -> dict:
    """One JSON-lines record, or ``error`` naming ``where`` (``file:line``)."""
    record = parse_json(line, where, error)
    if not isinstance(record, dict):
        raise error(f"{where}: expected a JSON object")
    return record


def has_letter_or_digit(text: str) -> bool:
    """Whether ``text`` holds a word character a tokenizer keeps, not only spaces, format or control
    characters (a zero-width space), punctuation or lone combining marks: the test every reader applies
    to a text that will be scored."""
    return any(char.isalnum() for char in text)


def utf8_lines(path, error: type[Exception], opener: Callable = open) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` for each line of ``path`` (split at ``\\n``, ending kept), decoded as UTF-8.

    ``opener`` is ``open`` or ``gzip.open``. Bytes that are not UTF-8, and compressed data that is
    truncated or corrupt, raise ``error`` naming ``file:line``.
    """
    lineno = 0
    try:
        with opener(path, "rb") as handle:
            for lineno, data in enumerate(handle, start=1):
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError as err:
                    raise error(f"{path}:{lineno}: not UTF-8 ({err.reason} at byte {err.start + 1})") from None
                yield lineno, text
    except (EOFError, zlib.error, gzip.BadGzipFile) as err:
        raise error(f"{path}:{lineno + 1}: compressed data is truncated or corrupt ({err})") from None


def write_text(text: str, path) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def to_markdown(df: pd.DataFrame, floatfmt: str = ".1f") -> str:
    """A GitHub-flavoured Markdown table (no extra dependency)."""
    header = [str(c).replace("|", "\\|") for c in df.columns]
    rows = [[_cell(v, floatfmt) for v in row] for row in df.itertuples(index=False)]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _cell(value, floatfmt: str) -> str:
    if isinstance(value, bool | np.bool_):  # as the LaTeX tables write them (``report.latex.format_cell``)
        return "yes" if value else "no"
    if isinstance(value, float | np.floating):
        return "" if pd.isna(value) else format(value, floatfmt)
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return ""
    return str(value).replace("|", "\\|")


# The most system columns one Markdown or LaTeX table holds: the default config's BLiMP Table 4 (25
# systems and the paper's 5) stays whole; wider tables are split (``column_parts``).
MAX_SYSTEM_COLUMNS = 30


@dataclass(frozen=True)
class SystemColumns:
    """The layout of a table with a column per system, for ``column_parts``: its first ``labels``
    columns are row labels; of the system columns after them, ``references`` (the papers' own systems
    and baselines) are shown in every part, and ``models`` maps a configured system's column to its
    model, whose adjacent columns (its methods) stay in one part. A column not in ``models`` is a model
    of its own. Each suite builds its tables' layouts from its own constants and tidy rows
    (``blimp.tables.table4_columns``, ``lama.tables.table2_columns``, ``olmpics.learning_tables.medal_columns``)."""

    labels: int
    references: frozenset[str] = frozenset()
    models: Mapping[str, str] = field(default_factory=dict)


def column_parts(frame: pd.DataFrame, layout: SystemColumns, most: int = MAX_SYSTEM_COLUMNS) -> list[pd.DataFrame]:
    """``frame`` whole while at most ``most`` system columns follow its row labels; past that, its panels
    printed one under another, each led by the row labels and holding the reference columns where the
    whole table has them, the configured systems spread over the parts in order.

    Each part holds at most ``most`` system columns, references included (the limit is the page's
    width, whatever fills it), so the configured systems get ``most`` less the references (at least
    one; a table of references alone stays whole). The parts are as few as keep a model's columns
    together, and near-equal (the least sum of squared widths; on a tie the first ones wider). A model
    with more columns than a part's share gets parts of its own, as few as hold it, near-equal: the only
    case where a model's columns are split, and the parts before and after it are counted apart.
    """
    systems = list(frame.columns[layout.labels:])
    # Columns are taken by place: a system may share a row label's name (``lama.tables.row_label_count``).
    configured = [i for i, column in enumerate(systems) if column not in layout.references]
    if len(systems) <= most or not configured:
        return [frame]
    references = [i for i, column in enumerate(systems) if column in layout.references]
    share = max(most - len(references), 1)
    parts = []
    for places in _split(_model_runs(configured, systems, layout.models), share):
        shown = sorted({*places, *references})
        parts.append(frame.iloc[:, [*range(layout.labels), *(layout.labels + i for i in shown)]])
    return parts


def _model_runs(places: list[int], systems: list[str], models: Mapping[str, str]) -> list[list[int]]:
    """``places`` (in ``systems``) cut where the model changes: each run one model's adjacent columns."""
    keyed = [(i, models.get(systems[i], ("column", i))) for i in places]
    return [[i for i, _ in run] for _, run in itertools.groupby(keyed, key=lambda pair: pair[1])]


def _split(runs: list[list[int]], share: int) -> list[list[int]]:
    """The parts' columns: ``runs`` kept whole in the fewest near-equal parts of at most ``share``
    columns; a run wider than ``share`` split alone into the fewest near-equal parts that hold it."""
    parts: list[list[int]] = []
    pending: list[list[int]] = []
    for run in runs:
        if len(run) <= share:
            pending.append(run)
            continue
        parts += _balanced(pending, share)
        pending = []
        chunks = -(-len(run) // share)
        size, wider = divmod(len(run), chunks)
        stops = list(itertools.accumulate(size + (index < wider) for index in range(chunks)))
        parts += [run[start:stop] for start, stop in zip([0, *stops], stops)]
    return parts + _balanced(pending, share)


def _balanced(runs: list[list[int]], share: int) -> list[list[int]]:
    """The columns of ``runs`` (none wider than ``share``) in the fewest parts of at most ``share``,
    runs whole and in order, the split with the least sum of squared widths (on a tie, the first
    parts wider)."""
    widths = [len(run) for run in runs]
    count, filled = 0, share
    for width in widths:  # filling each part in turn makes the fewest
        count, filled = (count, filled + width) if filled + width <= share else (count + 1, width)

    @functools.cache
    def best(start: int, parts: int) -> tuple[int, tuple[int, ...], tuple[int, ...]] | None:
        """(sum of squared widths, the widths negated, the stops) of ``runs[start:]`` in ``parts``
        parts, or None where they do not fit."""
        if parts == 0:
            return (0, (), ()) if start == len(runs) else None
        options, width = [], 0
        for stop in range(start + 1, len(runs) + 1):
            width += widths[stop - 1]
            if width > share:
                break
            rest = best(stop, parts - 1)
            if rest is not None:
                options.append((width * width + rest[0], (-width, *rest[1]), (stop, *rest[2])))
        return min(options, default=None)

    stops = best(0, count)[2]
    return [list(itertools.chain.from_iterable(runs[start:stop])) for start, stop in zip((0, *stops), stops)]


def part_caption(title: str, index: int, count: int) -> str:
    """The caption of part ``index`` of ``count``: ``title (part 2 of 5)``, the title alone when whole."""
    return " ".join(filter(None, [title, f"(part {index} of {count})"])) if count > 1 else title


def write_table(df: pd.DataFrame, csv_path, md_path, title: str = "", floatfmt: str = ".1f",
                markdown_frame: pd.DataFrame | None = None, note: str = "",
                systems: SystemColumns | None = None, latex_missing: str = MISSING) -> None:
    """The CSV keeps full precision (tidy); the Markdown is the readable layout, rounded.

    The same layout is also written as a LaTeX booktabs table, ``<md_path stem>.tex`` next to the
    Markdown, with the title as its caption and the note's prose (up to any Markdown table) below; each
    Markdown table in the note follows as a table of its own, captioned by its section's heading.
    ``systems``: the layout has a column per system (``SystemColumns``); past ``MAX_SYSTEM_COLUMNS``
    systems the Markdown and the LaTeX show it in parts (``column_parts``), each LaTeX part a table of
    its own captioned "(part i of n)", the note under the last; the CSV stays one file.
    ``latex_missing``: how the LaTeX prints a missing cell (the Markdown leaves it blank); ``""`` where the
    note says what a blank cell means, so that it holds for both.
    """
    with atomic_path(csv_path) as tmp:
        df.to_csv(tmp, index=False, lineterminator="\n")
    heading = f"## {title}\n\n" if title else ""
    shown = df if markdown_frame is None else markdown_frame
    parts = [shown] if systems is None else column_parts(shown, systems)
    write_text(heading + _markdown_parts(parts, systems, floatfmt) + note, md_path)
    latex = [to_booktabs(part, caption=part_caption(title, index, len(parts)), floatfmt=floatfmt,
                         note=prose_note(note) if index == len(parts) else "", missing=latex_missing)
             for index, part in enumerate(parts, start=1)]
    latex += [to_booktabs(frame, caption=heading or f"{title} (continued)", floatfmt=floatfmt, note=prose,
                          missing=latex_missing)
              for heading, frame, prose in note_tables(note, floatfmt)]
    write_text("\n".join(latex), Path(md_path).with_suffix(".tex"))


def _markdown_parts(parts: list[pd.DataFrame], systems: SystemColumns | None, floatfmt: str) -> str:
    """One Markdown table, or each part under a heading naming the configured systems it shows (and
    how many references every part repeats)."""
    if len(parts) == 1:
        return to_markdown(parts[0], floatfmt)
    shown = [[c for c in part.columns[systems.labels:] if c not in systems.references] for part in parts]
    references = len(parts[0].columns) - systems.labels - len(shown[0])
    total = sum(map(len, shown))
    beside = f", with the {references} reference column{'s' * (references != 1)}" if references else ""
    texts, first = [], 1
    for index, (part, columns) in enumerate(zip(parts, shown), start=1):
        last = first + len(columns) - 1
        texts.append(f"### Part {index} of {len(parts)}: systems {first}-{last} of {total}{beside}\n\n"
                     + to_markdown(part, floatfmt))
        first = last + 1
    return "\n".join(texts)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for the duration (restored after; usable as a decorator).

    Scoring and parsing large JSON allocate millions of small lists, dicts and tuples and no reference
    cycles, and with a large heap alive (a dataset's frame, tokenizer encodings, a parsed T-REx member)
    each collector pass walks all of it: 15% of PLL time on CPU, measured on the 2,000-pair BLiMP sample
    (3.9 s against 3.2 s), a larger share on a GPU, where the model's own time is small, and ~70% of
    the raw T-REx pass (a 47 MB member: 2.6 s against 0.85 s).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
