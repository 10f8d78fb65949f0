"""Jobs start without what they do not use: dataset, table and merge jobs without torch, the jobs that
train on cached states or GloVe without transformers, and the jobs that neither draw nor read WordNet
without matplotlib and NLTK (each costs a share of every job's start). Snakemake reads the workflow with
none of them: every dry run and every cluster job step parses it."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("matplotlib", "nltk", "torch", "transformers")
CHECK = "import sys\n{code}\nprint(*sorted(m for m in {heavy} if m in sys.modules))"


def heavy_modules_loaded(code: str) -> list[str]:
    run = subprocess.run([sys.executable, "-c", CHECK.format(code=code, heavy=HEAVY)], capture_output=True, text=True,
                         check=False, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


@pytest.mark.parametrize(("module", "heavy"), [
    ("lmprobes.suites.blimp.pipeline", []), ("lmprobes.suites.ettinger.pipeline", []),
    ("lmprobes.suites.lama.pipeline", []), ("lmprobes.suites.olmpics.pipeline", []),
    ("lmprobes.suites.olmpics.seed_curves", []),
    ("lmprobes.suites.olmpics.learning_report", ["matplotlib"]),  # its one job draws the curves
])
def test_pipeline_module_loads_without_torch_or_plotting(module, heavy):
    assert heavy_modules_loaded(f"import {module}") == heavy


@pytest.mark.parametrize("module", ["lmprobes.suites.olmpics.probing", "lmprobes.suites.olmpics.baselines"])
def test_curve_module_on_cached_inputs_loads_without_transformers(module):
    assert heavy_modules_loaded(f"import {module}") == ["torch"]


def test_the_workflow_is_read_without_torch_or_plotting():
    """What ``rules/common.smk`` imports from the package, and the config check it runs on the full config."""
    common = (ROOT / "rules/common.smk").read_text()
    imports = re.findall(r"^from lmprobes[.\w]* import (?:\([^)]*\)|.*)$", common, re.MULTILINE)
    assert len(imports) > 10
    code = "\n".join([*imports, "import yaml", "from snakemake.utils import validate",
                      "from lmprobes.config import check_config", "config = yaml.safe_load(open('config.yaml'))",
                      "validate(config, 'rules/schemas/config.schema.yaml')", "check_config(config)"])
    assert heavy_modules_loaded(code) == []
