"""WordNet 3.0 through nltk's own reader, from a pinned corpus folder (never ``nltk.download``).

The workflow fetches nltk_data's ``wordnet.zip`` (the WordNet 3.0 database files ``data.noun``,
``index.noun``, ``noun.exc``, ``lexnames``, ``cntlist.rev`` ... in a ``wordnet/`` folder),
checks it and extracts it; ``load_wordnet`` opens that folder with
``nltk.corpus.reader.wordnet.WordNetCorpusReader``. Two things nltk does on its own are turned
off because they would leave the pinned folder: the mapping of synsets to "the" installed
``wordnet`` corpus (``map_wn``, which looks the corpus up on nltk's data path; the pinned folder
is WordNet 3.0 itself, so there is nothing to map) and the Open Multilingual WordNet (English
only here). nltk (3.9+) refuses to open files outside its data path, so the folder is added to
``nltk.data.path`` (only that folder).

nltk reads the index files when it opens the folder, and a data file line only when a synset is
asked for, by seeking to its byte offset; its parse errors name neither the file nor the line, and
some are not even its own error type (an IndexError on a blank exception line). So ``load_wordnet``
first checks what nltk relies on, line by line, and names the file and line of the first problem:
every file is UTF-8 and not empty; ``lexnames`` numbers its lines from 00; an exception line is
not blank; an index line has the fields its counts call for, numbers where nltk reads numbers, and
a lemma not listed before in its file (nltk would keep only the last entry); a
data line ends in LF alone (a CRLF copy shifts every offset), starts with its own byte offset and
holds one ``|`` (before the gloss); the last line
ends with a newline. (What a data line says beyond that is still only parsed when it is read.)

Helpers the probe generators share: hypernym closures with distances, the words of lemmas and
which lemmas are usable as single words.
"""

from __future__ import annotations

import re
import warnings
from collections import deque
from functools import lru_cache
from pathlib import Path

import nltk
from nltk.corpus.reader.wordnet import Lemma, Synset, WordNetCorpusReader
from nltk.corpus.reader.wordnet import WordNetError as NltkWordNetError

from lmprobes.io import utf8_lines

ARCHIVE_FOLDER = "wordnet"  # the folder the archive extracts to

REQUIRED_FILES = (
    "lexnames",
    *(f"{kind}.{pos}" for kind in ("index", "data") for pos in ("noun", "verb", "adj", "adv")),
    *(f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv")),
)
COUNTS_FILE = "cntlist.rev"  # tagged-sense counts (``Lemma.count``); optional

SINGLE_WORD = re.compile(r"[a-z]+")
NUMBER = re.compile(r"[0-9]{1,9}")  # a count or offset of the database files
# A term of a template slot may be a lower-case multiword expression ("howler monkey").
TERM = re.compile(r"[a-z]+(?:[ -][a-z]+)*")


class WordNetError(ValueError):
    """The WordNet folder is missing, incomplete or unreadable; the message names it."""


class PinnedWordNetReader(WordNetCorpusReader):
    """nltk's reader without the cross-version synset mapping (see the module docstring)."""

    def map_wn(self, version: str = "wordnet") -> None:
        return None


def corpus_folder(path: str | Path) -> Path:
    """The folder holding the database files: ``path`` itself or its ``wordnet/`` subfolder."""
    folder = Path(path).resolve()
    if not (folder / "data.noun").is_file() and (folder / ARCHIVE_FOLDER / "data.noun").is_file():
        folder = folder / ARCHIVE_FOLDER
    if not folder.is_dir():
        raise WordNetError(f"{folder}: no such WordNet folder")
    missing = [name for name in REQUIRED_FILES if not (folder / name).is_file()]
    if missing:
        raise WordNetError(f"{folder}: not a WordNet database folder, missing {', '.join(missing)}")
    return folder


def load_wordnet(path: str | Path) -> WordNetCorpusReader:
    """The WordNet database in ``path`` (or ``path/wordnet``), checked, then read by nltk; cached per folder."""
    return _load(corpus_folder(path))


@lru_cache(maxsize=4)
def _load(folder: Path) -> WordNetCorpusReader:
    check_database(folder)
    authorize(folder)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "multilingual functions are not available"
            return PinnedWordNetReader(str(folder), None)
    except (NltkWordNetError, AssertionError, ValueError, StopIteration, IndexError, KeyError) as error:
        raise WordNetError(f"{folder}: unreadable WordNet database: {error!r}") from error


def check_database(folder: Path) -> None:
    """Each database file, line by line, as nltk will read it (see the module docstring)."""
    names = [*REQUIRED_FILES, *([COUNTS_FILE] if (folder / COUNTS_FILE).is_file() else [])]
    for name in names:
        path = folder / name
        check = _line_check(name)
        offset = lineno = 0
        line = ""
        for lineno, line in utf8_lines(path, WordNetError):
            problem = check(lineno, line, offset)
            if problem:
                raise WordNetError(f"{path}:{lineno}: unreadable WordNet database: {problem}: {line[:80]!r}")
            offset += len(line.encode("utf-8"))
        if lineno == 0:
            raise WordNetError(f"{path}: unreadable WordNet database: empty file")
        if not line.endswith("\n"):
            raise WordNetError(f"{path}:{lineno}: unreadable WordNet database: the file ends inside a line (truncated?)")


def _line_check(name: str):
    if name == "lexnames":
        return _lexnames_line
    if name.startswith("index."):
        return _index_checker()
    if name.startswith("data."):
        return _data_line
    if name.endswith(".exc"):
        return lambda lineno, line, offset: None if line.split() else "blank line, expected a form and its base form(s)"
    return lambda lineno, line, offset: None  # cntlist.rev: only read as UTF-8 here


def _lexnames_line(lineno: int, line: str, offset: int) -> str | None:
    fields = line.split()
    if len(fields) != 3 or not NUMBER.fullmatch(fields[0]) or int(fields[0]) != lineno - 1:
        return f"expected '<number {lineno - 1:02d}> <lexicographer file> <category>'"
    return None


def _index_checker():
    """``_index_line`` that also refuses a lemma given twice in one file (nltk would keep the last)."""
    first_line: dict[str, int] = {}

    def check(lineno: int, line: str, offset: int) -> str | None:
        problem = _index_line(lineno, line, offset)
        if problem or line.startswith(" "):
            return problem
        lemma = line.split(" ", 1)[0]
        if lemma in first_line:
            return f"lemma {lemma!r} already listed on line {first_line[lemma]}"
        first_line[lemma] = lineno
        return None

    return check


def _index_line(lineno: int, line: str, offset: int) -> str | None:
    if line.startswith(" "):  # the license header
        return None
    fields = line.split()
    counts = fields[2:4]
    if len(counts) < 2 or not all(NUMBER.fullmatch(c) for c in counts):
        return "expected '<lemma> <pos> <synset count> <pointer count> ...'"
    synsets, pointers = int(counts[0]), int(counts[1])
    numbers = fields[4 + pointers:6 + pointers + synsets]  # sense count, tagged-sense count, synset offsets
    if synsets == 0 or len(numbers) != 2 + synsets or not all(NUMBER.fullmatch(n) for n in numbers):
        needed = 6 + pointers + synsets
        return f"its counts ({synsets} synsets, {pointers} pointers) call for {needed} fields, numbers after the pointers"
    if int(numbers[0]) != synsets:
        return f"sense count {numbers[0]} differs from synset count {synsets}"
    return None


def _data_line(lineno: int, line: str, offset: int) -> str | None:
    if line.endswith("\r\n"):  # a copy whose line endings were converted: every offset after line 1 is off
        return "Windows (CRLF) line endings, where nltk seeks to byte offsets counted with LF endings: use LF files"
    if line.startswith(" "):  # the license header
        return None
    first = line.split(" ", 1)[0]
    if first != f"{offset:08d}":
        return f"a synset line must start with its byte offset {offset:08d}"
    if line.count("|") != 1:
        return "a synset line holds exactly one '|' (before the gloss)"
    return None


def authorize(folder: Path) -> None:
    """Let nltk's path sandbox open files in ``folder`` (and nowhere else we add)."""
    if str(folder) not in [str(entry) for entry in nltk.data.path]:
        nltk.data.path.append(str(folder))


# --- graph helpers -----------------------------------------------------------------------


def parents(synset: Synset) -> list[Synset]:
    """Direct hypernyms, instance hypernyms included, in name order."""
    return sorted(synset.hypernyms() + synset.instance_hypernyms(), key=Synset.name)


def hypernym_closure(synset: Synset) -> dict[Synset, int]:
    """Every ancestor of ``synset`` (not itself) with its shortest hypernym distance."""
    distances: dict[Synset, int] = {}
    queue = deque([(synset, 0)])
    while queue:
        current, distance = queue.popleft()
        for parent in parents(current):
            if parent not in distances and parent != synset:
                distances[parent] = distance + 1
                queue.append((parent, distance + 1))
    return distances


def lemma_word(lemma: Lemma) -> str:
    """``ice_cream`` -> ``ice cream``."""
    return lemma.name().replace("_", " ")


def is_frequent(lemma: Lemma, min_count: int) -> bool:
    """WordNet's tagged-sense count (``cntlist.rev``) reaches ``min_count``; 0 keeps everything."""
    return min_count <= 0 or lemma.count() >= min_count


def single_word(lemma: Lemma, min_count: int = 0, vocabulary: frozenset[str] | None = None) -> str | None:
    """The lemma as one lower-case alphabetic word, if it is one and passes the filters."""
    word = lemma.name()
    if not SINGLE_WORD.fullmatch(word) or not is_frequent(lemma, min_count):
        return None
    if vocabulary is not None and word not in vocabulary:
        return None
    return word


def first_single_word(synset: Synset, min_count: int = 0, vocabulary: frozenset[str] | None = None) -> str | None:
    """The synset's first lemma usable as a single word (WordNet orders lemmas by salience)."""
    for lemma in synset.lemmas():
        word = single_word(lemma, min_count, vocabulary)
        if word is not None:
            return word
    return None


def synset_words(synset: Synset) -> set[str]:
    """All lemma words of the synset, lower case."""
    return {lemma_word(lemma).lower() for lemma in synset.lemmas()}
