"""Objects comparison (oLMpics Section 4.1) generated from Distribution over Quantities (DoQ).

``The size of a {x} is usually much [MASK] than the size of a {y} .``, answer ``larger`` or
``smaller``. Sizes are DoQ's medians (Elazar et al. 2019; public bucket ``gs://measures-grounding/``,
https://github.com/google-research-datasets/distribution-over-quantities): the per-object noun
table is tab-separated, without a header, one row per (object, dimension)::

    obj  head  dim  mean  perc_5  perc_25  median  perc_75  perc_95  std

Objects are bucketed by the order of magnitude of their median (``floor(log10(median))``) and
paired only across buckets, so each pair differs clearly in size. A split asks about each
unordered pair at most once, in a random order (the release's 500 dev items are 500 distinct
pairs, never one pair both ways). Dev uses the paper's 35 hand-picked everyday objects, train
its animals (``DEV_OBJECTS``, ``TRAIN_OBJECTS``: the objects of the release's size_comparison
files, with the release's misspelling ``niddle`` as ``needle``); an object in both lists is dev
only, so the splits share no object. Listed objects missing from DoQ, or with a non-positive
median, are left out (``read_sizes`` reports them).
"""

from __future__ import annotations

import gzip
import logging
import math
import random
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from lmprobes.suites.olmpics.controls import items_frame, numbered, shuffled_choices
from lmprobes.suites.olmpics.schema import MASK

logger = logging.getLogger("lmprobes.suites.olmpics.generate_objects")

TASK = "objects_comparison"
TEMPLATE_ID = "objects_comparison/size"
TEMPLATE = f"The size of a {{x}} is usually much {MASK} than the size of a {{y}} ."
DOQ_COLUMNS = ("obj", "head", "dim", "mean", "perc_5", "perc_25", "median", "perc_75", "perc_95", "std")
DEFAULT_DIM = "LENGTH"

DEV_OBJECTS = (
    "airplane", "backpack", "battery", "bed", "bench", "bike", "boat", "car", "city", "desk", "drinking glass",
    "earth", "feather", "fork", "hat", "house", "house plant", "laptop", "mars", "moon", "mountain", "nail",
    "needle", "pen", "pencil", "planet", "plate", "river", "seed", "shoe", "spoon", "street", "sun", "table",
    "train",
)
TRAIN_OBJECTS = (
    "alligators", "alpaca", "anaconda", "ant", "baboons", "bald eagle", "bat", "beagle", "bear", "bee", "billy",
    "blue whale", "bobcat", "border collie", "boxer", "brown bear", "bull shark", "bulldog", "butterfly", "camel",
    "capybara", "cat", "cattle", "chamois", "cheetah", "chihuahua", "chimpanzee", "chinchilla", "chinook",
    "chipmunk", "cockapoo", "cod", "collie", "common carp", "cougar", "coyote", "crocodiles", "dachshund", "deer",
    "dinosaur", "dog", "donkey", "elephant", "elk", "ferret", "flea", "german shepherd", "giant squid", "giraffe",
    "goat", "golden retriever", "goldendoodle", "goldfish", "gorilla", "great white shark", "greyhound",
    "grizzly bear", "guinea pig", "hamster", "hippopotamus", "horse", "human", "hummingbird", "humpback whale",
    "jaguar", "killer whale", "koala", "koi", "labradoodle", "largemouth bass", "leopard", "liger", "lion", "llama",
    "lobster", "manatee", "mirror carp", "moose", "mosquito", "mouse", "mule", "northern pike", "octopus",
    "orangutan", "owl", "pan", "parrot", "pelican", "penguin", "pit bull", "pointer", "polar bear", "pomeranian",
    "pony", "poodle", "pug", "puppy", "rabbit", "raccoon", "raccoons", "rat", "rat terrier", "reindeer",
    "rottweiler", "salmon", "sea lion", "shark", "sheep", "sheltie", "shih tzu", "snail", "sperm whale", "spider",
    "sturgeon", "swallow", "tiger", "tortoise", "toy poodle", "tuna", "turtle", "walrus", "whale shark",
    "wild boar", "wildebeest", "wolf", "wombat",
)


class DoqError(ValueError):
    """A malformed DoQ line; the message names the file and the 1-based line number."""


@dataclass(frozen=True)
class Size:
    obj: str
    median: float
    line: int  # 1-based line of the DoQ file

    @property
    def bucket(self) -> int:
        """The order of magnitude of the median."""
        return math.floor(math.log10(self.median))


def open_text(path: Path):
    with open(path, "rb") as handle:
        gzipped = handle.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rt", encoding="utf-8") if gzipped else open(path, encoding="utf-8")


def read_sizes(path: str | Path, objects: set[str], *, dim: str = DEFAULT_DIM) -> dict[str, Size]:
    """The medians of ``objects`` in dimension ``dim`` (the first row of an object counts).

    Every line is checked for its field count and the number format of its median; objects
    asked for but absent (or whose median is not a positive finite number: no order of magnitude)
    are logged.
    """
    path = Path(path)
    sizes: dict[str, Size] = {}
    for number, text in _numbered_lines(path):
        if not text.strip():
            continue  # a blank line (a trailing one, say), as the release, GloVe and WordNet readers allow
        fields = text.rstrip("\r\n").split("\t")
        if number == 1 and fields[0] == "obj":
            continue  # a header, should a copy carry one
        if len(fields) != len(DOQ_COLUMNS):
            raise DoqError(f"{path}, line {number}: {len(fields)} tab-separated fields, expected {len(DOQ_COLUMNS)}")
        row = dict(zip(DOQ_COLUMNS, fields))
        median = parse_median(path, number, row["median"])
        obj = row["obj"].strip().lower()
        if row["dim"] == dim and obj in objects and median > 0 and math.isfinite(median) and obj not in sizes:
            sizes[obj] = Size(obj, median, number)
    missing = sorted(objects - sizes.keys())
    if missing:
        logger.warning("%s: no positive %s median for %d objects: %s", path, dim, len(missing), ", ".join(missing))
    return sizes


def _numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """The file's lines from 1; bytes that are not UTF-8 or a cut-short gzip stream raise DoqError
    naming the file and the last line read whole (text is decoded in blocks, so the bad byte is
    somewhere after it)."""
    number = 0
    try:
        with open_text(path) as handle:
            for number, text in enumerate(handle, start=1):
                yield number, text
    except (UnicodeDecodeError, EOFError, gzip.BadGzipFile, zlib.error) as error:
        raise DoqError(f"{path}, after line {number}: cannot read ({error})") from None


def parse_median(path: Path, number: int, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise DoqError(f"{path}, line {number}: median {text!r} is not a number") from None
    return value


def cross_bucket_pairs(sizes: dict[str, Size]) -> list[tuple[Size, Size]]:
    """Every unordered pair of objects from different size buckets, once, in name order."""
    ordered = [sizes[obj] for obj in sorted(sizes)]
    return [(x, y) for i, x in enumerate(ordered) for y in ordered[i + 1:] if x.bucket != y.bucket]


def sampled_pairs(pairs: list[tuple[Size, Size]], n: int, rng: random.Random) -> list[tuple[Size, Size]]:
    """``n`` of the unordered ``pairs`` (all when fewer), each asked in a random order."""
    return [(x, y) if rng.random() < 0.5 else (y, x) for x, y in rng.sample(pairs, min(n, len(pairs)))]


def pair_item(x: Size, y: Size, dim: str, rng: random.Random) -> dict:
    answer = "larger" if x.median > y.median else "smaller"
    choices, index = shuffled_choices(rng, answer, ["smaller" if answer == "larger" else "larger"])
    return {
        "stem": TEMPLATE.format(x=x.obj, y=y.obj), "choices": choices, "answer": index, "template_id": TEMPLATE_ID,
        "arguments": {"x": x.obj, "y": y.obj},
        "provenance": {"source": "doq", "dim": dim,
                       "x": {"median": x.median, "bucket": x.bucket, "line": x.line},
                       "y": {"median": y.median, "bucket": y.bucket, "line": y.line}},
    }


def generate_objects_comparison(doq_path: str | Path, *, n_train: int, n_dev: int, seed: int,
                                dev_objects: tuple[str, ...] = DEV_OBJECTS,
                                train_objects: tuple[str, ...] = TRAIN_OBJECTS,
                                dim: str = DEFAULT_DIM) -> pd.DataFrame:
    """SCHEMA rows: ``n_dev`` dev pairs of everyday objects and ``n_train`` train pairs of
    animals (all cross-bucket pairs when there are fewer), seeded; no two items of a split ask
    about the same two objects, in either order."""
    dev_set = {obj.lower() for obj in dev_objects}
    train_set = {obj.lower() for obj in train_objects} - dev_set
    sizes = read_sizes(doq_path, dev_set | train_set, dim=dim)
    rng = random.Random(seed)
    rows = []
    for split, objects, n in (("train", train_set, n_train), ("dev", dev_set, n_dev)):
        pairs = cross_bucket_pairs({obj: size for obj, size in sizes.items() if obj in objects})
        rows += numbered(TASK, split, [pair_item(x, y, dim, rng) for x, y in sampled_pairs(pairs, n, rng)], seed)
    return items_frame(rows)
