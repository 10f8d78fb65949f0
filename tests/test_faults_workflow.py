"""Workflow-level faults with real processes: a killed run, two runs at once, a full disk, OOM.

Conventions and why:

- Every workflow test runs in its own copy of a prepared workflow (the demo configuration with
  tiny-bert built and the four Ettinger datasets made once per module), and asks for ONE small
  target, tiny-bert's Ettinger scores: one scoring job writing four Parquet files in turn. The
  demo's ``all`` would cost minutes on the shared cores.
- Processes are real: Snakemake is started with ``Popen`` in a session of its own, so that the
  whole process group (Snakemake and its job's script) can be sent SIGKILL/SIGSTOP/SIGCONT, as
  a crash, a kill by a scheduler or a suspended run would do.
- A full disk is simulated with ``RLIMIT_FSIZE`` set in the child process (no root, so no small
  tmpfs or loop device): a write past the limit fails with EFBIG (Python ignores SIGXFSZ from
  startup), and with SIGXFSZ given back its default action the writer is killed mid-write.
- GPU out-of-memory is simulated on the CPU by a memory cap on the forward pass (it raises
  ``torch.cuda.OutOfMemoryError`` above a number of token positions), so that the back-off is
  exercised over several levels of halving.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import torch

from demo_workflow import copy_run, copy_workflow, job_counts, snakemake, snakemake_command
from lmprobes.engine import mask_predictions, runner, sequence_logprobs
from lmprobes.io import read_parquet, write_parquet

DATASETS = ["cprag", "role", "neg_simp", "neg_nat"]
MODEL_DIR = "resources/models/tiny-bert"
DATASET_FILES = [f"results/datasets/ettinger/{d}.parquet" for d in DATASETS]
SCORE_FILES = [f"results/scores/ettinger/tiny-bert/{d}.parquet" for d in DATASETS]
SCORE_LOG = "logs/scores/ettinger/tiny-bert.log"
TARGET = SCORE_FILES[0]  # asks for the one job that writes all four score files
WAIT_S = 240


# Runs argv[2:] with files limited to argv[1] bytes; the limit survives exec and is inherited by
# child processes. Python itself ignores SIGXFSZ (from startup), so a write past the limit fails
# with EFBIG in every Python process here instead of killing it.
LIMITED = """
import os, resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]),) * 2)
os.execv(sys.argv[2], sys.argv[2:])
"""


def file_size_limited(command: list[str], limit: int) -> list[str]:
    """``command`` run so that writes past ``limit`` bytes in a file fail (EFBIG), as on a full disk."""
    return [sys.executable, "-c", LIMITED, str(limit), *command]


@contextmanager
def started(workdir: Path, command: list[str]) -> Iterator[subprocess.Popen]:
    """``command`` running in its own process group, output in ``snakemake.out``; killed if alive at exit."""
    with open(workdir / "snakemake.out", "w") as out:
        process = subprocess.Popen(command, cwd=workdir, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def wait_for(workdir: Path, name: str, process: subprocess.Popen) -> None:
    """Poll until ``workdir/name`` exists; fail with Snakemake's output if it ends first or takes too long."""
    deadline = time.monotonic() + WAIT_S
    while not (workdir / name).exists():
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"{name} never appeared:\n{(workdir / 'snakemake.out').read_text()[-3000:]}")
        time.sleep(0.02)


def unreadable_parquet(workdir: Path) -> list[str]:
    """Every ``*.parquet`` under results/ that Parquet cannot read back completely."""
    bad = []
    for path in sorted((workdir / "results").rglob("*.parquet")):
        try:
            pq.read_table(path)
        except (OSError, pa.ArrowException):
            bad.append(str(path.relative_to(workdir)))
    return bad


def mtimes(workdir: Path, names: list[str]) -> dict[str, int]:
    """``st_mtime_ns`` of each named file, and of every file inside each named folder."""
    stamps = {}
    for name in names:
        path = workdir / name
        for file in [path, *sorted(path.rglob("*"))] if path.is_dir() else [path]:
            stamps[str(file.relative_to(workdir))] = file.stat().st_mtime_ns
    return stamps


def assert_complete_scores(workdir: Path) -> None:
    for dataset, scores in zip(DATASET_FILES, SCORE_FILES, strict=True):
        assert list(read_parquet(workdir / scores)["row_id"]) == list(read_parquet(workdir / dataset)["row_id"])


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> Path:
    """The demo workflow with tiny-bert and the Ettinger datasets made, no scores yet."""
    workdir = copy_workflow(tmp_path_factory.mktemp("faults") / "prepared")
    run = snakemake(workdir, MODEL_DIR, *DATASET_FILES)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return workdir


@pytest.fixture
def workdir(prepared, tmp_path) -> Path:
    """A private copy of the prepared workflow (timestamps and Snakemake's records kept)."""
    return copy_run(prepared, tmp_path / "w")


@pytest.mark.workflow
def test_killed_scoring_job_is_redone_alone_after_unlock(workdir):
    finished = mtimes(workdir, [MODEL_DIR, *DATASET_FILES])
    with started(workdir, snakemake_command(TARGET)) as run:
        wait_for(workdir, SCORE_FILES[0], run)  # the job is between its first and last output
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    assert unreadable_parquet(workdir) == []
    assert not (workdir / SCORE_FILES[-1]).exists()
    left_by_killed_run = (workdir / SCORE_FILES[0]).read_bytes()

    # The killed run's lock is still there: a plain rerun refuses and says how to go on.
    refused = snakemake(workdir, TARGET)
    assert refused.returncode != 0
    assert "Directory cannot be locked" in refused.stderr and "--unlock" in refused.stderr
    assert (workdir / SCORE_FILES[0]).read_bytes() == left_by_killed_run

    assert snakemake(workdir, "--unlock", TARGET).returncode == 0
    rerun = snakemake(workdir, "--rerun-incomplete", TARGET)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert job_counts(rerun.stdout + rerun.stderr) == {"ettinger_score": 1}, "only the killed job is run again"
    assert mtimes(workdir, [MODEL_DIR, *DATASET_FILES]) == finished, "finished outputs are not rewritten"
    assert unreadable_parquet(workdir) == []
    assert_complete_scores(workdir)
    # The file the killed run had finished was whole: the rerun writes the same bytes.
    assert (workdir / SCORE_FILES[0]).read_bytes() == left_by_killed_run


@pytest.mark.workflow
def test_second_run_on_the_same_outputs_refuses_while_the_first_finishes(workdir):
    with started(workdir, snakemake_command(TARGET)) as first:
        wait_for(workdir, SCORE_LOG, first)
        # Suspended mid-job, so the second run meets the lock however fast or slow the machine is.
        os.killpg(first.pid, signal.SIGSTOP)
        try:
            second = snakemake(workdir, TARGET)
        finally:
            os.killpg(first.pid, signal.SIGCONT)
        assert first.wait(timeout=WAIT_S) == 0, (workdir / "snakemake.out").read_text()[-3000:]
    assert second.returncode != 0
    assert "Directory cannot be locked" in second.stderr
    assert "rule ettinger_score" not in second.stdout + second.stderr, "the second run started no job"
    assert unreadable_parquet(workdir) == []
    assert_complete_scores(workdir)


@pytest.mark.workflow
def test_disk_full_during_scoring_fails_the_job_and_keeps_no_score(workdir):
    sizes = {path: (workdir / path).stat().st_size for path in DATASET_FILES}
    # Below what cprag's scores take (about 40 kB), above Snakemake's own records, the job log and
    # the copy of the config schema that its source cache writes (the file's own size, 34 kB now).
    limit = (workdir / "rules/schemas/config.schema.yaml").stat().st_size + 2_000
    with started(workdir, file_size_limited(snakemake_command(TARGET), limit)) as run:
        assert run.wait(timeout=WAIT_S) != 0
    log = (workdir / SCORE_LOG).read_text()
    assert "File too large" in log and SCORE_FILES[0] in log, log[-3000:]
    assert "Error in rule ettinger_score" in (workdir / "snakemake.out").read_text()
    assert not any((workdir / path).exists() for path in SCORE_FILES)
    assert list((workdir / "results/scores").rglob("*.tmp")) == [], "no temporary file is left behind"
    assert {path: (workdir / path).stat().st_size for path in DATASET_FILES} == sizes
    # Unlike a kill, a failed job releases the lock (Snakemake's lock files): the next run needs no --unlock.
    assert list((workdir / ".snakemake/locks").glob("*")) == []


# A write_parquet call in a child process, on a table far larger than the file-size limit;
# with argv[2] == "killed", SIGXFSZ is given back its default action (end the process).
WRITE_BIG_TABLE = """
import signal, sys
import numpy as np, pandas as pd, pyarrow as pa
from lmprobes.io import write_parquet
if sys.argv[2] == "killed":
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
values = np.random.default_rng(0).random(200_000)
write_parquet(pd.DataFrame({"x": values}), sys.argv[1], pa.schema([("x", pa.float64())]), {"run": "big"})
"""


def write_big_table(path: Path, limit: int, on_limit: str) -> subprocess.CompletedProcess:
    command = file_size_limited([sys.executable, "-c", WRITE_BIG_TABLE, str(path), on_limit], limit)
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def small_table(path: Path) -> bytes:
    write_parquet(pd.DataFrame({"x": [1.0, 2.0]}), path, pa.schema([("x", pa.float64())]), {"run": "small"})
    return path.read_bytes()


def test_full_disk_write_fails_naming_the_file_and_keeps_the_old_one(tmp_path):
    path = tmp_path / "scores.parquet"
    before = small_table(path)
    run = write_big_table(path, limit=64_000, on_limit="error")
    assert run.returncode == 1
    last_line = run.stderr.strip().splitlines()[-1]
    assert last_line.startswith("OSError: ") and str(path) in last_line and "File too large" in last_line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.parquet"], "the temporary file is removed"
    assert path.read_bytes() == before, "the previous complete file is untouched"


def test_process_killed_mid_write_never_leaves_a_partial_parquet(tmp_path):
    """SIGXFSZ at its default kills the writer in the middle of the file: only the hidden
    temporary file is partial (a later run ignores it), the Parquet path never is."""
    path = tmp_path / "scores.parquet"
    run = write_big_table(path, limit=64_000, on_limit="killed")
    assert run.returncode == -signal.SIGXFSZ
    assert not path.exists()
    leftovers = list(tmp_path.iterdir())
    assert [p.name.startswith(".scores.parquet.") and p.suffix == ".tmp" for p in leftovers] == [True]
    assert 0 < leftovers[0].stat().st_size <= 64_000, "killed at the limit, mid-write"
    with pytest.raises(pa.ArrowException):
        pq.read_table(leftovers[0])
    before = small_table(path)  # the next write is not disturbed by the leftover
    assert read_parquet(path)["x"].tolist() == [1.0, 2.0] and path.read_bytes() == before


def test_outputs_get_the_usual_permissions_of_the_umask(tmp_path):
    """Atomic writes go through a temporary file; the result must still be readable as any new
    file would be (0666 less the umask), not owner-only, or a shared results folder breaks."""
    old = os.umask(0o027)
    try:
        small_table(tmp_path / "t.parquet")
    finally:
        os.umask(old)
    assert (tmp_path / "t.parquet").stat().st_mode & 0o777 == 0o640


# Eight sentences that each tokenizer cuts into the same number of tokens (checked below), so
# that the memory a batch takes depends on its size alone.
WORDS = ["bird", "fish", "car", "tree", "house", "man", "woman", "king"]
CASES = {"masked": ("tiny_bert", "the {} is a [MASK] ."), "causal": ("tiny_gpt2", "the {} is a bird .")}


class CappedForward:
    """The forward pass under a memory cap: more than ``limit`` token positions raise CUDA OOM."""

    def __init__(self, real: Callable) -> None:
        self.real = real
        self.limit: int | None = None
        self.seen: list[tuple[int, int]] = []  # (batch, width) of every forward attempted

    def __call__(self, module, input_ids, attention_mask, **kwargs):
        self.seen.append((input_ids.shape[0], input_ids.shape[1]))
        if self.limit is not None and input_ids.numel() > self.limit:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory (simulated cap)")
        return self.real(module, input_ids, attention_mask, **kwargs)


@pytest.fixture
def capped_forward(monkeypatch) -> CappedForward:
    forward = CappedForward(runner.run_model)
    monkeypatch.setattr(runner, "run_model", forward)
    return forward


def predictions(lm, texts: list[str]) -> list[tuple[list[int], list[float]]]:
    """Per text, the ids and log-probs the engine reports (top-k at the mask, or every token)."""
    if lm.family == "masked":
        return [(p.top_ids, p.top_logprobs) for p in mask_predictions(lm, texts, progress=False)]
    return [(s.token_ids, s.token_logprobs) for s in sequence_logprobs(lm, texts, progress=False)]


@pytest.mark.parametrize("family", sorted(CASES))
def test_memory_cap_halves_down_to_batches_that_fit(family, request, with_budget, capped_forward):
    model, template = CASES[family]
    # Padded batches: packed causal rows share the prefix "the" (their halving: test_engine_oom).
    lm = dataclasses.replace(with_budget(request.getfixturevalue(model), 10**6), packing="none")
    texts = [template.format(word) for word in WORDS]
    expected = predictions(lm, texts)
    (batch, width), = capped_forward.seen
    assert batch == 8, "without a cap, one batch"
    capped_forward.seen.clear()
    capped_forward.limit = 2 * width
    got = predictions(lm, texts)
    assert {w for _, w in capped_forward.seen} == {width}, "equal widths: memory depends on the batch size alone"
    # 8 does not fit, 4 does not fit, then pairs do; the second 4 is split without being tried,
    # since a batch of 4 (same width) already ran out of memory: worked out by hand.
    assert [b for b, _ in capped_forward.seen] == [8, 4, 2, 2, 2, 2]
    assert [ids for ids, _ in got] == [ids for ids, _ in expected], "same items, same order"
    for (_, g), (_, e) in zip(got, expected, strict=True):
        assert np.allclose(g, e, atol=1e-5)


def test_memory_cap_below_one_item_fails_with_the_oom_error(tiny_bert, with_budget, capped_forward):
    capped_forward.limit = 1
    with pytest.raises(torch.cuda.OutOfMemoryError, match="simulated cap"):
        mask_predictions(with_budget(tiny_bert, 10**6), [f"the {w} is a [MASK] ." for w in WORDS[:3]], progress=False)
    assert [b for b, _ in capped_forward.seen] == [3, 2, 1]
