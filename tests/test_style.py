"""The Python sources pass ruff under the project's settings (pyproject.toml)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff comes with the test extras")
def test_ruff_is_clean():
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT, capture_output=True,
                         text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
