"""Word tokenisation and GloVe vectors for the oLMpics baselines (MLM-BASELINE and ESIM).

Tokenisation: the original readers used AllenNLP's ``SpacyTokenizer`` (spaCy's English rules). spaCy
is not a dependency here, so ``tokenize`` approximates it with a few regular expressions on the
NFC-normalised, lower-cased text: runs of letters and digits are words (``mp3``, ``1990s``), decimal
numbers stay whole (``3.5``, ``1,000``), English clitics are split off as spaCy does (``don't`` ->
``do`` ``n't``, ``cat's`` -> ``cat`` ``'s``), every other non-space character is its own token
(punctuation, hyphens inside words: ``well-known`` -> ``well`` ``-`` ``known``), and ``@@`` (what
the MLM-BASELINE puts in place of ``[MASK]``) stays one token. Lower-casing matches GloVe 6B, whose
vocabulary is lower-case (the original did not lower-case, so capitalised words missed GloVe).

GloVe: ``glove.6B.{dim}d.txt`` is one word and ``dim`` space-separated numbers per line; it is read
from the plain file, a ``.txt.gz`` copy, or the published ``glove.6B.zip`` archive (the member is
streamed, never extracted). Out-of-vocabulary words get the zero vector (AllenNLP drew random
vectors for them, with the mean and deviation of the file's vectors); a word repeated in the file
keeps its first vector.
"""

from __future__ import annotations

import gzip
import io
import math
import re
import unicodedata
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import torch

TOKEN = re.compile(
    r"@@"  # the MLM-BASELINE's stand-in for [MASK]
    r"|\d+(?:[.,]\d+)+"  # 3.5, 1,000
    r"|[^\W_]+(?=n't\b)"  # do(n't)
    r"|n't\b"
    r"|'(?:s|re|ve|ll|d|m)\b"
    r"|[^\W_]+"  # words: letters and digits
    r"|\S"  # any other character on its own
)

Glove = tuple[list[str], torch.Tensor]  # words in file order, their vectors (n_words, dim)


class GloveError(ValueError):
    """A GloVe file that cannot be read; the message names the file (and the line)."""


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens, an approximation of spaCy's English tokenizer (see the module notes)."""
    return TOKEN.findall(unicodedata.normalize("NFC", text).lower())


def read_glove(path: str | Path, dim: int = 50, vocabulary: Iterable[str] | None = None) -> Glove:
    """The words and vectors of a GloVe file (``.txt``, ``.txt.gz`` or the ``glove.6B.zip`` archive).

    With ``vocabulary``, only those words are kept (in file order); the other lines are skipped unparsed,
    which makes reading the 400,000-word file for one task's words several times faster.
    """
    path = Path(path)
    wanted = None if vocabulary is None else set(vocabulary)
    words: list[str] = []
    rows: list[list[float]] = []
    seen: set[str] = set()
    for lineno, line in _lines(path, dim):
        if wanted is not None and line.split(" ", 1)[0] not in wanted:
            continue
        word, values = parse_line(line, dim, f"{path}:{lineno}")
        if word in seen:
            continue
        seen.add(word)
        words.append(word)
        rows.append(values)
    if wanted is None and not words:
        raise GloveError(f"{path}: no vectors")
    return words, torch.tensor(rows, dtype=torch.float32).reshape(len(rows), dim)


def parse_line(line: str, dim: int, where: str) -> tuple[str, list[float]]:
    fields = line.rstrip("\r\n").rstrip(" ").split(" ")
    if len(fields) != dim + 1 or not fields[0]:
        raise GloveError(f"{where}: expected a word and {dim} numbers, found {len(fields)} fields")
    try:
        values = [float(value) for value in fields[1:]]
    except ValueError:
        raise GloveError(f"{where}: a vector value is not a number") from None
    if not all(map(math.isfinite, values)):
        raise GloveError(f"{where}: a vector value is not finite (nan or inf)")
    return fields[0], values


def _lines(path: Path, dim: int) -> Iterator[tuple[int, str]]:
    lineno = 0
    try:
        with _open_text(path, dim) as handle:
            for lineno, line in enumerate(handle, start=1):
                if line.strip():
                    yield lineno, line
    except (OSError, EOFError, UnicodeDecodeError, zipfile.BadZipFile) as err:
        # Text is decoded in blocks: the bad byte is somewhere after the last line read whole.
        raise GloveError(f"{path}, after line {lineno}: cannot read ({err})") from None


@contextmanager
def _open_text(path: Path, dim: int) -> Iterator[IO[str]]:
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            member = f"glove.6B.{dim}d.txt"
            if member not in archive.namelist():
                raise GloveError(f"{path}: no member {member} (members: {archive.namelist()})")
            with archive.open(member) as raw, io.TextIOWrapper(raw, encoding="utf-8") as handle:
                yield handle
    elif path.name.endswith(".gz"):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            yield handle
    else:
        with open(path, encoding="utf-8") as handle:
            yield handle


def embedding_matrix(words: Sequence[str], glove: Glove) -> torch.Tensor:
    """``(len(words), dim)``: each word's GloVe vector, the zero vector for a word GloVe lacks."""
    known, table = glove
    index = {word: row for row, word in enumerate(known)}
    result = torch.zeros(len(words), table.shape[1])
    for position, word in enumerate(words):
        row = index.get(word)
        if row is not None:
            result[position] = table[row]
    return result
