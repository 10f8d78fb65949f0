"""The README's "From Python" block runs as written, on tiny models and a BLiMP dataset laid out as the demo leaves them."""

import ast
import re
import subprocess
import sys
from pathlib import Path

from lmprobes.suites.blimp.dataset import build_blimp

ROOT = Path(__file__).resolve().parents[1]


def readme_python_block() -> str:
    section = ROOT.joinpath("README.md").read_text(encoding="utf-8").split("## From Python\n", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def test_the_readme_python_block_runs_on_the_demo_layout(tmp_path, tiny_dir):
    models = tmp_path / "resources/models"
    models.mkdir(parents=True)
    for arch in ("gpt2", "bert"):
        (models / f"tiny-{arch}").symlink_to(tiny_dir(arch), target_is_directory=True)
    datasets = tmp_path / "results/datasets/blimp"
    datasets.mkdir(parents=True)
    pairs = build_blimp(sorted((ROOT / "tests/data/blimp").glob("*.jsonl")))
    pairs.to_parquet(datasets / "blimp.parquet")
    run = subprocess.run([sys.executable, "-c", readme_python_block()], cwd=tmp_path, capture_output=True, text=True, check=False,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    good, bad = (float(x) for x in lines[0].split()[:2])
    assert good < 0 and bad < 0 and float(lines[1]) < 0
    assert len(ast.literal_eval(lines[2])) == 5  # the top-5 tokens, as a list
    assert set(pairs["paradigm"]) <= set(run.stdout.split())
