"""A one-machine stand-in for the SLURM commands the executor plugin calls, for the cluster profile's test.

``install(bin_dir, state_dir)`` writes ``sbatch``, ``srun``, ``sacct``, ``squeue``, ``sinfo`` and
``scontrol`` into ``bin_dir``. ``sbatch`` records its arguments as JSON under ``state_dir``, runs the job
at once (its ``--wrap`` command or the script on stdin, in its ``-D`` folder, output to its ``--output``
file) and prints the job id; ``sacct`` reports each recorded job of a ``--name`` as COMPLETED or FAILED by
its exit status; ``srun`` runs the command after its options. Nothing is queued and nothing is
scheduled: the test checks what a real cluster would be asked for and that the jobs then run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

COMMANDS = ("sbatch", "srun", "sacct", "squeue", "sinfo", "scontrol")
PARTITIONS = ("cpu", "gpu")


def install(bin_dir: Path, state_dir: Path) -> dict[str, str]:
    """Write the commands; returns the environment that puts them first on PATH."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    state_dir.mkdir(parents=True, exist_ok=True)
    for command in COMMANDS:
        wrapper = bin_dir / command
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).resolve()}" {command} "$@"\n')
        wrapper.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "FAKE_SLURM_STATE": str(state_dir)}


def submissions(state_dir: Path) -> list[list[str]]:
    """Every sbatch call's arguments, in submission order."""
    calls = sorted(state_dir.glob("*.json"), key=lambda path: int(path.stem))
    return [json.loads(path.read_text())["args"] for path in calls]


def option(args: list[str], *names: str) -> str | None:
    """The value of the first of ``names`` in ``args`` (``--name value`` or ``--name=value``)."""
    for i, arg in enumerate(args):
        for name in names:
            if arg == name and i + 1 < len(args):
                return args[i + 1]
            if arg.startswith(name + "="):
                return arg.split("=", 1)[1]
    return None


def _new_job_id(state: Path) -> int:
    job_id = 1000
    while True:
        try:
            os.close(os.open(state / f"{job_id}.json", os.O_CREAT | os.O_EXCL))
            return job_id
        except FileExistsError:
            job_id += 1


def _write_atomic(path: Path, text: str) -> None:
    """sacct may read while sbatch writes (the plugin submits from several threads)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def sbatch(args: list[str]) -> int:
    state = Path(os.environ["FAKE_SLURM_STATE"])
    job_id = _new_job_id(state)
    script = sys.stdin.read() if "/dev/stdin" in args else option(args, "--wrap")
    record = {"args": args, "name": option(args, "--job-name", "-J")}
    _write_atomic(state / f"{job_id}.json", json.dumps(record))
    log = Path(option(args, "--output", "-o").replace("%j", str(job_id)))
    log.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SLURM_JOB_ID": str(job_id), "SLURM_JOBID": str(job_id)}
    with log.open("w") as out:
        status = subprocess.run(["sh", "-c", script], cwd=option(args, "-D", "--chdir"), stdout=out,
                                stderr=subprocess.STDOUT, env=env, check=False).returncode
    _write_atomic(state / f"{job_id}.state", "COMPLETED" if status == 0 else "FAILED")
    print(job_id)
    return 0


def sacct(args: list[str]) -> int:
    state = Path(os.environ["FAKE_SLURM_STATE"])
    name = option(args, "--name")
    for path in sorted(state.glob("*.json"), key=lambda p: int(p.stem)):
        done = path.with_suffix(".state")
        if json.loads(path.read_text() or "{}").get("name") == name:
            print(f"{path.stem}|{done.read_text() if done.exists() else 'RUNNING'}")
    return 0


# srun options written with their value as a separate word (the rest are ``--name=value`` or flags).
SRUN_VALUE_OPTIONS = {"-J", "--job-name", "--jobid", "-c", "--cpus-per-task", "-n", "--ntasks", "--mem",
                      "--mem-per-cpu", "-N", "--nodes"}


def srun(args: list[str]) -> int:
    """Run the step's command as srun would: its own argument list, no shell in between."""
    command = list(args)
    while command and command[0].startswith("-"):
        if command.pop(0) in SRUN_VALUE_OPTIONS:
            command.pop(0)
    return subprocess.run(command, check=False).returncode


def main(argv: list[str]) -> int:
    command, args = argv[0], argv[1:]
    if command == "sbatch":
        return sbatch(args)
    if command == "sacct":
        return sacct(args)
    if command == "srun":
        return srun(args)
    if command == "scontrol":
        print("MinJobAge               = 300 sec")
        return 0
    if command == "sinfo":
        print("PARTITION\n" + "\n".join(PARTITIONS))
        return 0
    return 0  # squeue: every job is known to sacct


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
