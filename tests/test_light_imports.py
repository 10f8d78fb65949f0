"""Jobs start without what they do not use: dataset, table and merge jobs without torch, the jobs that
train on cached states or GloVe without transformers (each costs seconds of every job's start)."""

import subprocess
import sys

import pytest

CHECK = "import sys, {module}; print(*sorted(m for m in ('torch', 'transformers') if m in sys.modules))"


def heavy_modules_loaded(module: str) -> list[str]:
    run = subprocess.run([sys.executable, "-c", CHECK.format(module=module)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    return run.stdout.split()


@pytest.mark.parametrize("module", ["lmprobes.suites.blimp.pipeline", "lmprobes.suites.ettinger.pipeline",
                                    "lmprobes.suites.lama.pipeline", "lmprobes.suites.olmpics.pipeline",
                                    "lmprobes.suites.olmpics.seed_curves", "lmprobes.suites.olmpics.learning_report"])
def test_pipeline_module_loads_without_torch(module):
    assert heavy_modules_loaded(module) == []


@pytest.mark.parametrize("module", ["lmprobes.suites.olmpics.probing", "lmprobes.suites.olmpics.baselines"])
def test_curve_module_on_cached_inputs_loads_without_transformers(module):
    assert heavy_modules_loaded(module) == ["torch"]
