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
                      "from pathlib import Path", "from lmprobes.config import check_config, published_systems",
                      "config = yaml.safe_load(open('config.yaml'))", "validate(config, 'rules/schemas/config.schema.yaml')",
                      "check_config(config, published_systems(Path('resources')))"])
    assert heavy_modules_loaded(code) == []


def test_a_saved_head_loads_and_runs_without_transformers(tmp_path):
    """What an MC-MLM curve job does with its cached head: BERT's and RoBERTa's activation is torch's GELU."""
    code = f"""
import torch
from lmprobes.suites.olmpics.heads import MlmHead, load_head, make_probe, save_head
head = MlmHead(model_type="bert", activation="gelu", eps=1e-12, dense_weight=torch.randn(8, 8),
               dense_bias=torch.zeros(8), norm_weight=torch.ones(8), norm_bias=torch.zeros(8),
               decoder_weight=torch.randn(3, 8), decoder_bias=torch.zeros(3), candidate_ids=(4, 5, 6))
save_head(head, {str(tmp_path / "head.safetensors")!r})
probe = make_probe("mlp_mlm", load_head({str(tmp_path / "head.safetensors")!r}))
assert probe(torch.randn(2, 8), torch.tensor([[0, 1], [2, 0]])).shape == (2, 2)
"""
    assert heavy_modules_loaded(code) == ["torch"]


def test_a_model_download_job_loads_without_torch():
    """What ``scripts/download_model.py`` imports, the hub client ``download_model`` calls included."""
    code = ("from lmprobes.models import download_configured\nfrom lmprobes.workflow import logged\n"
            "from huggingface_hub import model_info, snapshot_download")
    assert heavy_modules_loaded(code) == []
