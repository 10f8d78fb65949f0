"""The workflow in a temporary copy of the repository, and the demo run the workflow tests share.

The demo run (``snakemake all`` on the demo configuration, about three minutes on two cores) is made
once per test session, in the background from the session's start, so that it runs beside the unit
tests instead of before the workflow tests. Under pytest-xdist the first worker starts it and the
others wait for the same run. Tests never touch that run: each module works on its own copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import yaml
from filelock import FileLock

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW_FILES = ["Snakefile", "config.yaml", "rules", "scripts", "envs", "profiles", "resources/tiny",
                  "resources/demo", "resources/ettinger", "resources/lama", "resources/blimp", "resources/olmpics",
                  "resources/report"]
DEMO = "resources/demo/config.yaml"
FAST = {"suites": {"ettinger": {"shuffles": 3}}}

# The default profile lets one model at a time hold the accelerator (or the CPU); the demo's tiny
# models take one thread each, so two can score at once on two cores (305 -> 212 s for the demo).
DEMO_RUN = ("all", "--resources", "gpu=2")
DEMO_RUN_TIMEOUT_S = 1800


def copy_workflow(dest: Path) -> Path:
    for name in WORKFLOW_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    (dest / "fast.yaml").write_text(yaml.safe_dump(FAST))
    return dest


def copy_run(src: Path, dest: Path) -> Path:
    """A copy of a workflow that has run, with its timestamps and Snakemake's records, so nothing reruns."""
    return Path(shutil.copytree(src, dest, symlinks=True))


def snakemake_command(*args: str, configs=(DEMO, "fast.yaml"), cores: int = 2) -> list[str]:
    cmd = [sys.executable, "-m", "snakemake", "--cores", str(cores), *args]
    return cmd + ["--configfile", *configs] if configs else cmd


def snakemake(workdir: Path, *args: str, configs=(DEMO, "fast.yaml"), cores: int = 2,
              env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(snakemake_command(*args, configs=configs, cores=cores), cwd=workdir, capture_output=True,
                          text=True, timeout=900, check=False, env=None if env is None else {**os.environ, **env})


def write_config(workdir: Path, name: str, config: dict) -> str:
    (workdir / name).write_text(yaml.safe_dump(config))
    return name


def job_counts(dry_run_output: str) -> dict[str, int]:
    """The 'Job stats' block of a dry run as {rule: count}; {} when it has nothing to do."""
    if "Job stats:" not in dry_run_output and "Nothing to be done" in dry_run_output:
        return {}
    lines = dry_run_output.split("Job stats:")[1].splitlines()[3:]
    counts = {}
    for line in lines:
        parts = line.split()
        if len(parts) != 2 or parts[0] == "total":
            break
        counts[parts[0]] = int(parts[1])
    return counts


class SharedDemoRun:
    """The demo run in ``root``: started by the first test process to ask, awaited by every one.

    The starting process writes the run's exit status to ``root/rc`` when it ends, which is how the
    other processes (pytest-xdist's workers) learn it is done.
    """

    def __init__(self, root: Path):
        self.root = root
        self.workdir = root / "workflow"
        self.process: subprocess.Popen | None = None
        self.watcher: threading.Thread | None = None

    def start(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        with FileLock(self.root / "start.lock"):
            if self.workdir.exists():
                return
            copy_workflow(self.workdir)
            with (self.root / "log").open("w") as log:
                self.process = subprocess.Popen(snakemake_command(*DEMO_RUN), cwd=self.workdir, stdout=log,
                                                stderr=subprocess.STDOUT)
        self.watcher = threading.Thread(target=self._write_exit_status, daemon=True)
        self.watcher.start()

    def _write_exit_status(self) -> None:
        (self.root / "rc.part").write_text(str(self.process.wait()))
        (self.root / "rc.part").rename(self.root / "rc")

    def wait(self) -> Path:
        """The finished run's folder; fails with the end of its log if it failed."""
        deadline = time.monotonic() + DEMO_RUN_TIMEOUT_S
        while not (self.root / "rc").exists():
            if time.monotonic() > deadline:
                raise TimeoutError(f"the demo run in {self.workdir} took over {DEMO_RUN_TIMEOUT_S} s")
            time.sleep(0.5)
        if (self.root / "rc").read_text().strip() != "0":
            raise AssertionError("the demo run failed:\n" + (self.root / "log").read_text()[-8000:])
        return self.workdir

    def finish(self, abandon: bool) -> None:
        """At the session's end: let a started run end (another worker may still wait for it) or stop it."""
        if self.process is None:
            return
        if abandon and self.process.poll() is None:
            self.process.terminate()
        self.watcher.join()
