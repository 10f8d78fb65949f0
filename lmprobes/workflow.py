"""Glue between Snakemake rule scripts and the package: logging into the rule's log file, model settings."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path


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


@contextlib.contextmanager
def rule_job(smk) -> Iterator[logging.Logger]:
    """A rule script's job: logging into the rule's log (``logged``) and, in the metadata of every Parquet
    file it writes, which rule made it at which method revision (``revisions.REVISIONS``), so that a file
    passed around says how it was made."""
    from lmprobes.io import job_metadata

    job = {"rule": smk.rule, "revision": getattr(smk.params, "revision", None)}
    if not getattr(smk, "config", {}).get("progress", True):
        quiet_library_progress_bars()
    with job_metadata(job), logged(smk.log) as log:
        yield log


def quiet_library_progress_bars() -> None:
    """Turn off transformers' and huggingface_hub's own bars ("Loading weights"), as ``progress: false``
    turns off the package's: by the environment variable both read on import, and directly where they
    are imported already."""
    import os
    import sys

    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    if "huggingface_hub" in sys.modules:
        sys.modules["huggingface_hub"].utils.disable_progress_bars()
    if "transformers" in sys.modules:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()


def provenance(smk) -> dict:
    """A dataset job's source provenance (``params.provenance``), unpinned sources' sha256 filled in
    from the lockfile their download wrote; a source file read that no longer has its sha256 is refused."""
    from lmprobes.sources import check_sources_unchanged, locked_provenance

    sources = locked_provenance(smk.params.provenance)
    check_sources_unchanged(smk.input, sources)
    return sources


def model_spec(smk) -> dict:
    """A model's settings in a rule script: those that decide scores (``params.spec``) and the
    token budget, which rules pass as a resource so that tuning it reruns nothing."""
    return {**smk.params.spec, "batch_tokens": smk.resources.batch_tokens}


def wikidata_settings(smk, answers: dict) -> dict:
    """A Wikidata job's client settings: ``answers`` from its params (``wikidata.answer_settings``), how
    to ask (``wikidata.CLIENT_SETTINGS``: the User-Agent, the pause between queries, the cache folder)
    from its config."""
    from lmprobes.suites.lama.wikidata import CLIENT_SETTINGS

    configured = smk.config["suites"]["lama"]["generated"]["wikidata_fresh"]
    return {**answers, **{name: configured[name] for name in CLIENT_SETTINGS}}
