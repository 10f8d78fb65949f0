"""The workflow without running a job: its plans on a clean copy (dry runs of the full configuration and
through the cluster profile), its lint and format, and the revision every scripted rule passes."""

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from demo_workflow import ROOT, copy_workflow, job_counts, write_config

pytestmark = pytest.mark.workflow

# The rules that send queries to the Wikidata Query Service, which allows one request at a time.
WDQS_RULES = {"lama_wikidata_fresh", "olmpics_encyclopedic", "olmpics_single_hop"}


def test_lint_is_clean():
    run = subprocess.run([sys.executable, "-m", "snakemake", "--lint"], cwd=ROOT, capture_output=True, text=True,
                         check=False)
    assert run.returncode == 0, run.stdout + run.stderr


def test_snakefmt_is_clean():
    run = subprocess.run(["snakefmt", "--check", "Snakefile", "rules"], cwd=ROOT, capture_output=True, text=True,
                         check=False)
    assert run.returncode == 0, run.stdout + run.stderr


def test_every_rule_that_runs_package_code_passes_its_revision():
    from lmprobes.revisions import REVISIONS, UNREVISED

    rules = {}
    for path in sorted((ROOT / "rules").glob("*.smk")):
        for block in re.split(r"(?m)^(?=rule )", path.read_text())[1:]:
            rules[re.match(r"rule (\w+):", block).group(1)] = block
    scripted = {name for name, block in rules.items() if "    script:" in block}
    assert set(REVISIONS) == scripted - set(UNREVISED) and set(UNREVISED) <= scripted
    for name in REVISIONS:
        assert f'revision=REVISIONS["{name}"],' in rules[name].split("    params:")[1], name


def test_every_gpu_rule_records_a_benchmark_and_retries():
    """The heavy rules: their wall time and memory reach the run page, and an out-of-memory first try
    gets a second with more memory."""
    gpu_rules = {}
    for path in sorted((ROOT / "rules").glob("*.smk")):
        for block in re.split(r"(?m)^(?=rule |use rule )", path.read_text())[1:]:
            if re.search(r"(?m)^\s+gpu=1,", block):
                gpu_rules[re.match(r"(?:use )?rule (\w+)", block).group(1)] = block
    assert {"lama_score", "lama_uhn", "blimp_score", "ettinger_score"} <= set(gpu_rules)
    for name, block in gpu_rules.items():
        assert "    benchmark:" in block and "    retries:" in block, name


def test_the_wikidata_rules_share_one_wdqs_slot_in_both_profiles():
    """The rules that query WDQS ask for wdqs=1 and are localrules (run by the main process, on a cluster
    too, so its global limit binds them); both profiles allow one such job at a time."""
    for profile in ("default", "slurm"):
        settings = yaml.safe_load((ROOT / f"profiles/{profile}/config.yaml").read_text())
        assert "wdqs=1" in settings["resources"], profile
    asking = set()
    for path in sorted((ROOT / "rules").glob("*.smk")):
        for block in re.split(r"(?m)^(?=rule |use rule )", path.read_text())[1:]:
            if re.search(r"(?m)^\s+wdqs=", block):
                assert re.search(r"(?m)^    resources:\n(?:        .*\n)*?        wdqs=1,$", block), block[:200]
                asking.add(re.match(r"(?:use )?rule (\w+)", block).group(1))
    assert asking == WDQS_RULES
    localrules = re.search(r"(?ms)^localrules:\n(.*?)\n\n", (ROOT / "Snakefile").read_text()).group(1)
    assert WDQS_RULES <= {name.strip(" ,") for name in localrules.splitlines()}


def test_slurm_profile_sends_every_gpu_job_to_the_gpu_partition(tmp_path):
    """A dry run through the SLURM profile (its executor line dropped: the plugin is not needed to
    plan): every job that asks for a GPU gets the GPU partition, every other one the default; the jobs
    that query Wikidata ask for its one wdqs slot."""
    workdir = copy_workflow(tmp_path / "wf")
    profile = tmp_path / "profile"
    profile.mkdir()
    lines = (ROOT / "profiles/slurm/config.yaml").read_text().splitlines()
    (profile / "config.yaml").write_text("\n".join(line for line in lines if not line.startswith("executor:")) + "\n")
    run = subprocess.run([sys.executable, "-m", "snakemake", "-n", "all", "--workflow-profile", str(profile)],
                         cwd=workdir, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    jobs = [block for block in run.stdout.split("\nrule ")[1:] if "resources:" in block]
    gpu_rules = {block.split(":", 1)[0] for block in jobs if "gpu=1" in block}
    assert gpu_rules == {"lama_score", "lama_uhn", "blimp_score", "ettinger_score", "olmpics_zero_shot",
                         "olmpics_zero_shot_generated", "olmpics_encode", "olmpics_single_hop_stage",
                         "olmpics_mc_qa_seed"}
    for block in jobs:
        partition = "slurm_partition=gpu" if "gpu=1" in block else "slurm_partition=cpu"
        assert partition in block, block[:300]
    assert {block.split(":", 1)[0] for block in jobs if re.search(r"\bwdqs=1\b", block)} == WDQS_RULES


def dry_runs(workdir, plans: dict) -> dict:
    """``{key: args}`` planned side by side (each is a process of its own; two cores halve the wait)."""
    started = {key: subprocess.Popen([sys.executable, "-m", "snakemake", "-n", *args], cwd=workdir, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE) for key, args in plans.items()}
    done = {}
    for key, process in started.items():
        stdout, stderr = process.communicate(timeout=600)
        assert process.returncode == 0, (key, stderr[-3000:])
        done[key] = job_counts(stdout)
    return done


def test_full_config_plans_every_rule_for_every_model(tmp_path):
    workdir = copy_workflow(tmp_path)  # a clean copy: nothing built yet, whatever the checkout holds
    plans = {"full": ["all"]}
    # Generated tasks are scored only when asked, and MC-QA ones never (no zero-shot setting).
    generated = {"none": ({"score_generated": False}, 0), "mc_qa": ({"generate": ["property_conjunction"]}, 0),
                 "both": ({"generate": ["property_conjunction", "age_comparison"]}, 6)}
    for key, (olmpics, _) in generated.items():
        name = write_config(workdir, f"generated_{key}.yaml", {"suites": {"olmpics": olmpics}})
        plans[key] = ["all", "--configfile", "config.yaml", name]
    # Encyclopedic composition's curves, and only they, start from the single-hop stage, one job per seed
    # that the three variants share, unless turned off.
    for single_hop in (True, False):
        name = write_config(workdir, f"single_hop_{single_hop}.yaml", {"suites": {"olmpics": {"learning_curves": {
            "single_hop": single_hop}}}})
        for task in ("encyclopedic_composition", "property_conjunction"):
            targets = [f"results/curves/olmpics/roberta-base/{task}.{variant}.parquet"
                       for variant in ("standard", "no_lang", "perturbed_lang")]
            plans[single_hop, task] = [*targets, "--configfile", "config.yaml", name]
    counts = dry_runs(workdir, plans)
    assert counts["full"] == {"all": 1, "download_model": 11, "ettinger_dataset": 4,
                              "ettinger_score": 10, "ettinger_tables": 1, "extract_source": 2, "lama_dataset": 4,
                              "download_source": 13, "conceptnet_edges": 1, "lama_trex_raw": 1,
                              "lama_conceptnet_gen": 1, "lama_wikidata_fresh": 1,
                              "lama_score": 9, "lama_uhn": 2, "lama_tables": 1,
                              "download_blimp": 1, "blimp_dataset": 1, "blimp_score": 8, "blimp_tables": 1,
                              "download_olmpics": 1, "olmpics_release": 1, "olmpics_grids": 1,
                              "olmpics_zero_shot": 6, "olmpics_zero_shot_generated": 6, "olmpics_tables": 1,
                              "olmpics_generated": 6,
                              "olmpics_encyclopedic": 1, "olmpics_single_hop": 1, "olmpics_controls": 1,
                              "olmpics_single_hop_stage": 5 * 6, "olmpics_encode": 5, "olmpics_mc_mlm_curves": 5 * 6,
                              "olmpics_mc_qa_seed": (5 * 2 * 3 + 5) * 6, "olmpics_mc_qa_curves": 5 * 2 * 3 + 5,
                              "olmpics_baseline_curves": 8, "olmpics_learning_tables": 1,
                              "report_landing": 1, "report_verdicts": 1, "report_models": 1}
    for key, (olmpics, planned) in generated.items():
        assert counts[key].get("olmpics_zero_shot_generated", 0) == planned, olmpics
    for single_hop in (True, False):
        for task in ("encyclopedic_composition", "property_conjunction"):
            wanted = int(single_hop and task == "encyclopedic_composition")
            plan = counts[single_hop, task]
            assert plan.get("olmpics_single_hop", 0) == wanted, (single_hop, task)
            assert plan.get("olmpics_single_hop_stage", 0) == 6 * wanted, (single_hop, task)
            assert (plan["olmpics_mc_qa_seed"], plan["olmpics_mc_qa_curves"]) == (3 * 6, 3)


def zipped(folder: Path, archive: Path) -> Path:
    """``folder``'s files in a zip archive, named relative to ``folder``'s parent (one top folder)."""
    with zipfile.ZipFile(archive, "w") as bundle:
        for path in sorted(folder.rglob("*")):
            bundle.write(path, path.relative_to(folder.parent).as_posix())
    return archive


def test_a_setting_a_dataset_does_not_read_does_not_remake_it(tmp_path, lama_release_writer, pararel_writer):
    """Age comparison draws nothing from the seed, and ParaRel's a/an filter is the paraphrase table's
    setting: neither remakes its dataset, which every model's score job reads (LAMA's scores every corpus
    in one job), while the seed and the spacing remake the datasets they draw or write."""
    workdir = copy_workflow(tmp_path / "wf")
    data = lama_release_writer(tmp_path / "release")
    pararel_writer(tmp_path / "pararel")
    sources = {"lama_release": zipped(data, tmp_path / "data.zip"),
               "lama_pararel": zipped(next((tmp_path / "pararel").iterdir()), tmp_path / "pararel.zip"),
               "lama_relations": data / "relations.jsonl", "lama_common_vocab": data / "common_vocab_cased.txt"}
    local = write_config(workdir, "local.yaml", {"sources": {name: {"url": path.as_uri(), "sha256": None}
                                                             for name, path in sources.items()}})
    targets = [f"results/datasets/olmpics/generated/{task}.parquet"
               for task in ("age_comparison", "multihop_composition")]
    targets.append("results/datasets/lama/trex_paraphrases.parquet")
    run = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", *targets, "--configfile", "config.yaml",
                          local], cwd=workdir, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    changes = {"seed": ({"seed": 99}, {"olmpics_generated": 1}),
               "a_an_filter": ({"suites": {"lama": {"paraphrases": {"a_an_filter": False}}}}, {}),
               "spacing": ({"suites": {"lama": {"paraphrases": {"spacing": "lama"}}}}, {"lama_paraphrases": 1})}
    plans = {key: [*targets, "--configfile", "config.yaml", local, write_config(workdir, f"{key}.yaml", change)]
             for key, (change, _) in changes.items()}
    counts = dry_runs(workdir, plans)
    assert {key: counts[key] for key in changes} == {key: remade for key, (_, remade) in changes.items()}


def test_the_candidate_policy_rescores_no_causal_model_without_a_candidates_method(tmp_path, lama_release_writer):
    """LAMA's BOS/EOS policy is read by the candidates methods alone: with left_context only, changing it
    rescores nothing, while top_k, which every method reads, rescores the model."""
    workdir = copy_workflow(tmp_path / "wf")
    data = lama_release_writer(tmp_path / "release")
    sources = {"lama_release": zipped(data, tmp_path / "data.zip"),
               "lama_relations": data / "relations.jsonl", "lama_common_vocab": data / "common_vocab_cased.txt"}
    lama = {"models": ["tiny-gpt2"], "corpora": ["squad"], "causal_methods": ["left_context"], "case": "cased",
            "release_valid_objects": "none", "uhn": {"filter_model": None}}
    local = write_config(workdir, "local.yaml", {"sources": {name: {"url": path.as_uri(), "sha256": None}
                                                             for name, path in sources.items()},
                                                 "suites": {"lama": lama}})
    configs = ["--configfile", "config.yaml", "resources/demo/config.yaml", local]
    target = "results/scores/lama/tiny-gpt2/squad.parquet"
    run = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", target, *configs], cwd=workdir,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    changes = {"candidate_policy": ({"candidate_policy": "none"}, {}), "top_k": ({"top_k": 11}, {"lama_score": 1})}
    plans = {key: [target, *configs, write_config(workdir, f"{key}.yaml", {"suites": {"lama": change}})]
             for key, (change, _) in changes.items()}
    counts = dry_runs(workdir, plans)
    assert counts == {key: rescored for key, (_, rescored) in changes.items()}


def test_lama_uhn_among_the_common_vocabulary_gets_both_cases_whatever_the_scoring_case(tmp_path):
    """The filter reads the common vocabulary of its own tokenizer's case (``case_for(..., "auto")``), not
    of ``suites.lama.case``: an uncased filter model under ``case: cased`` still needs the lowercased one."""
    workdir = copy_workflow(tmp_path)
    name = write_config(workdir, "uhn_common.yaml", {"suites": {"lama": {
        "case": "cased",
        "uhn": {"filter_model": "bert-base-uncased", "vocabulary": "common"}}}})
    target = "results/datasets/lama/uhn/bert-base-uncased/trex.parquet"
    run = subprocess.run([sys.executable, "-m", "snakemake", "-n", target, "--configfile", "config.yaml", name],
                         check=False, cwd=workdir, text=True, capture_output=True, timeout=600)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    [block] = [b for b in run.stdout.split("\nrule ")[1:] if b.startswith("lama_uhn:")]
    inputs = re.search(r"input: (.*)", block).group(1)
    assert "lama_common_vocab/" in inputs and "lama_common_vocab_lowercased/" in inputs, inputs
