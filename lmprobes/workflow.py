"""Glue between Snakemake rule scripts and the package: logging into the rule's log file."""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def logged(log_files, name: str = "lmprobes") -> Iterator[logging.Logger]:
    """Send logging and stderr (progress bars included) to the rule's log; record any failure there."""
    path = Path(log_files[0]) if log_files else None
    if path is None:
        yield logging.getLogger(name)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as stream, contextlib.redirect_stderr(stream):
        handler = logging.StreamHandler(stream)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root = logging.getLogger()
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        try:
            yield logging.getLogger(name)
        except BaseException:
            logging.getLogger(name).exception("failed")
            raise
        finally:
            root.removeHandler(handler)
