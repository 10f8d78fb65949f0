"""The ``blimp_generate`` rule's job: one paradigm's generated pairs, checked against its release file."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from lmprobes.io import parse_json_object, utf8_lines, write_text
from lmprobes.suites.blimp.generator.check import check_against_release
from lmprobes.suites.blimp.generator.core import GeneratorError, generate, release_sentences, to_jsonl

log = logging.getLogger("lmprobes.blimp")


def read_records(path: str | Path) -> list[dict]:
    """The records of a release (or generated) jsonl file, keys in file order; blank lines skipped."""
    return [parse_json_object(line, f"{path}:{lineno}", GeneratorError)
            for lineno, line in utf8_lines(path, GeneratorError) if line.strip()]


def make_generated(uid: str, out: str | Path, *, lexicon: str | Path, seed: int, pairs: int,
                   release: Sequence[str | Path] = ()) -> list[dict]:
    """Write ``pairs`` pairs of paradigm ``uid`` (seed ``seed``) to ``out`` as jsonl.

    With ``release`` (the paradigm's release file), no pair repeats one of its sentences, and the
    pairs' structure must match its pairs' (``check_against_release``): a structural error fails the job
    and writes nothing; warnings are logged.
    """
    release_rows = [row for path in release for row in read_records(path)]
    rows = generate(uid, pairs, seed, lexicon=lexicon, exclude=release_sentences(release_rows))
    log.info("%s: %d pairs generated (seed %d, lexicon %s)", uid, len(rows), seed, lexicon)
    if release_rows:
        report = check_against_release(rows, release_rows)
        log.info("structure against %s:\n%s", ", ".join(map(str, release)), report.format())
        if not report.ok:
            raise GeneratorError(f"{uid}: the generated pairs' structure differs from the release's:\n"
                                 f"{report.format()}")
    write_text(to_jsonl(rows), out)
    return rows
