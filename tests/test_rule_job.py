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


def test_a_rule_scripts_model_spec_takes_the_token_budget_from_the_rules_resources():
    """Rules pass ``batch_tokens`` as a resource (tuning it reruns nothing); ``model_spec`` hands it to ``load_lm``."""
    from types import SimpleNamespace

    from lmprobes.workflow import model_spec

    smk = SimpleNamespace(params=SimpleNamespace(spec={"family": "causal", "dtype": "bfloat16"}),
                          resources=SimpleNamespace(batch_tokens=512))
    assert model_spec(smk) == {"family": "causal", "dtype": "bfloat16", "batch_tokens": 512}


def test_a_rule_jobs_log_gets_its_info_messages_and_its_failure(tmp_path):
    from lmprobes.workflow import logged

    path = tmp_path / "logs" / "job.log"
    with pytest.raises(ValueError, match="bad row"), logged([str(path)]) as log:
        log.info("scored %d items", 3)
        raise ValueError("bad row")
    text = path.read_text(encoding="utf-8")
    assert "INFO lmprobes: scored 3 items" in text
    assert "ERROR lmprobes: failed" in text and "ValueError: bad row" in text


def test_a_dataset_jobs_provenance_has_the_lockfiles_hash_and_refuses_a_source_changed_since(tmp_path, monkeypatch):
    """``workflow.provenance``: an unpinned source's sha256 as its download recorded it in the lockfile,
    and the job refused once the file it reads no longer has those bytes."""
    import hashlib
    from pathlib import Path
    from types import SimpleNamespace

    from lmprobes import sources
    from lmprobes.workflow import provenance

    monkeypatch.chdir(tmp_path)
    path = Path("resources/sources/lama_relations/relations.jsonl")
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"relation": "P19"}\n')
    url, digest = "https://example.org/lama/relations.jsonl", hashlib.sha256(path.read_bytes()).hexdigest()
    sources._record_in_lockfile(Path(sources.LOCKFILE), url, digest, path.stat().st_size)
    smk = SimpleNamespace(params=SimpleNamespace(provenance={"relations": {"url": url, "sha256": None}}),
                          input=[str(path)])
    assert provenance(smk) == {"relations": {"url": url, "sha256": digest, "sha256_from": "lockfile"}}
    path.write_bytes(b'{"relation": "P20"}\n')
    with pytest.raises(sources.SourceChangedError, match=r"relations\.jsonl: sha256 [0-9a-f]{64}, not the " + digest):
        provenance(smk)
