"""The glue every rule script runs in (``workflow.rule_job``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import sys
from types import SimpleNamespace

from lmprobes.models import load_lm
from lmprobes.workflow import rule_job

smk = SimpleNamespace(rule="blimp_score", params=SimpleNamespace(), log=[], config={"progress": sys.argv[2] == "on"})
with rule_job(smk):
    load_lm("tiny-bert", {"family": "masked"}, sys.argv[1], "cpu")
"""


@pytest.mark.parametrize("progress", ["on", "off"])
def test_progress_false_also_silences_the_libraries_loading_bar(tiny_dir, progress):
    """transformers draws its own "Loading weights" bar; ``progress: false`` turns it off with the package's."""
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(tiny_dir("bert")), progress], capture_output=True,
                         text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert ("Loading weights" in run.stderr) == (progress == "on"), run.stderr[-2000:]
