"""Dataset and table jobs start without torch: their modules must not import it at load time."""

import subprocess
import sys

import pytest

CHECK = "import sys, {module}; print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))"


@pytest.mark.parametrize("module", ["lmprobes.suites.blimp.pipeline", "lmprobes.suites.ettinger.pipeline",
                                    "lmprobes.suites.lama.pipeline", "lmprobes.suites.olmpics.pipeline"])
def test_pipeline_module_loads_without_torch(module):
    run = subprocess.run([sys.executable, "-c", CHECK.format(module=module)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
