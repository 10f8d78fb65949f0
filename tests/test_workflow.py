"""The workflow end to end on the demo configuration, in a temporary copy of the repository."""

import hashlib
import json
import re
import shutil
import zipfile
from pathlib import Path

import pandas as pd
import pytest
import yaml

import fake_slurm
from demo_workflow import DEMO, DEMO_RUN, ROOT, copy_run, copy_workflow, job_counts, snakemake, write_config
from fake_bridges import FakeBridgeService, bridges_to_gold
from fake_wdqs import empty_answer, recorded_service
from lmprobes.io import read_metadata, read_parquet
from lmprobes.revisions import REVISIONS
from lmprobes.suites.lama.wikidata import cache_key
from lmprobes.suites.olmpics.schema import TASKS as OLMPICS_TASKS
from loopback import serve_http

ROLE_TSV = "raw.githubusercontent.com/aetting/lm-diagnostics/080de8d8b29a3d6f5fe133af73d7e9170f4d4c0c/datasets/ROLE-88/ROLE-88.tsv"

TREX_RAW = ROOT / "tests/data/trex_raw"
WIKIDATA = ROOT / "tests/data/wikidata_fresh"

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def demo(demo_run, tmp_path_factory):
    """This module's copy of the demo run; a test that changes it puts it back for the tests after it.
    A test that deletes or rewrites an input takes a private copy (``demo_copy``) instead: the file put
    back is newer than what was made from it, and the next ``all`` in this copy would remake it all."""
    return copy_run(demo_run, tmp_path_factory.mktemp("demo") / "workflow")


def test_demo_leaves_every_table(demo):
    tables = demo / "results/tables/ettinger"
    for table in ("table4", "table4_constraint", "table5", "table6", "table7", "table8", "table9",
                  "table10", "table11", "table12", "table13", "table14", "table15"):
        assert (tables / f"{table}.csv").stat().st_size > 0
        assert (tables / f"{table}.md").read_text().startswith("## Table")
    table4 = (tables / "table4.md").read_text()
    assert "tiny-bert" in table4 and "tiny-gpt2" in table4 and "bert-base-uncased" in table4 and "± " in table4
    assert (demo / "results/plots/ettinger/accuracy.png").read_bytes()[:4] == b"\x89PNG"


def test_scores_cover_every_item_with_provenance(demo):
    for model, method in (("tiny-bert", "mask"), ("tiny-roberta", "mask"), ("tiny-gpt2", "next_token")):
        for dataset in ("cprag", "role", "neg_simp", "neg_nat"):
            items = read_parquet(demo / f"results/datasets/ettinger/{dataset}.parquet")
            scores = read_parquet(demo / f"results/scores/ettinger/{model}/{dataset}.parquet")
            assert list(scores["row_id"]) == list(items["row_id"])
            assert set(scores["method"]) == {method}
            kept = scores[scores["kept"]]
            assert kept["target_prob"].between(0, 1).all() and scores.loc[~scores["kept"], "target_prob"].isna().all()
            meta = read_metadata(demo / f"results/scores/ettinger/{model}/{dataset}.parquet")
            assert meta["model"] == model and meta["dtype"] == "float32" and meta["transformers"]
            assert meta["model_source"] == "tiny" and meta["model_revision"] == "" and meta["pyarrow"]
            assert re.fullmatch(r"[0-9a-f]{64}", meta["model_files_sha256"])
    roberta = read_parquet(demo / "results/scores/ettinger/tiny-roberta/neg_simp.parquet")
    assert roberta["input_text"].iloc[0].endswith(" <mask> .")
    dataset_meta = read_metadata(demo / "results/datasets/ettinger/cprag.parquet")
    assert dataset_meta["source_sha256"] == "d06ea9e3d97f8647839fe69b77817f4554e1fd1c79b8a3074bbfec44bbc05afb"
    assert dataset_meta["shuffles"] == 3
    # The release datasets name every file they read, with its sha256 from the manifest.
    for dataset, manifest, count in (("blimp/blimp", "resources/demo/blimp_release.tsv", 67),
                                     ("olmpics/release", "resources/demo/olmpics_release.tsv", 16)):
        files = read_metadata(demo / f"results/datasets/{dataset}.parquet")["sources"]["files"]
        assert len(files) == count and all(re.fullmatch(r"[0-9a-f]{64}", f["sha256"]) for f in files), dataset
        assert {f["sha256"] for f in files} <= set((ROOT / manifest).read_text().split()), dataset


def test_demo_scores_blimp_with_every_method_of_each_family(demo):
    pairs = read_parquet(demo / "results/datasets/blimp/blimp.parquet")
    assert len(pairs) == 67 * 20 and pairs["paradigm"].nunique() == 67, "the demo mirror's 20 pairs per paradigm"
    for model, methods in (("tiny-gpt2", {"blimp_paper", "lmeval04", "salazar", "one_prefix", "two_prefix"}),
                           ("tiny-bert", {"pll_original", "pll_within_word_l2r"})):
        scores = read_parquet(demo / f"results/scores/blimp/{model}/blimp.parquet")
        assert set(scores["method"]) == methods
        assert (scores.groupby("method")["row_id"].apply(list) == [list(pairs["row_id"])] * len(methods)).all()
    table3 = (demo / "results/tables/blimp/table3.md").read_text()
    assert "tiny-gpt2 (blimp_paper)" in table3 and "gpt2-large (blimp_paper, paper)" in table3
    for figure in ("figure1", "figure2", "figure3", "figure4", "figure6"):
        assert (demo / f"results/plots/blimp/{figure}.png").read_bytes()[:4] == b"\x89PNG"


def test_demo_verdicts_cover_every_published_number_and_say_stand_in(demo):
    from lmprobes.report.published import read_published

    published = read_published(ROOT / "resources")
    verdicts = pd.concat([pd.read_csv(demo / f"results/report/verdicts/{suite}.csv")
                          for suite in ("lama", "blimp", "olmpics", "ettinger")])
    assert len(verdicts) == len(published)
    assert set(verdicts["verdict"]) <= {"within", "outside", "missing"}
    # Every number of ours is a stand-in's: tiny models, and the baselines (report.stand_ins).
    assert verdicts.loc[verdicts["model"].notna(), "stand_in"].all()
    assert verdicts.loc[verdicts["model"] == "mlm_baseline", "stand_in"].any()
    # LAMA is not run in the demo: its verdicts are missing, whatever an earlier run left in tables/.
    assert set(verdicts.loc[verdicts["suite"] == "lama", "verdict"]) == {"missing"}
    summary = (demo / "results/report/verdicts/summary.md").read_text()
    for suite in ("LAMA", "BLiMP", "oLMpics", "Ettinger"):
        assert f"{suite}: " in summary and "published numbers reproduced within tolerance" in summary
    assert "STAND-INS (tiny random-weight models, report.stand_ins): not a reproduction" in summary
    board = pd.read_csv(demo / "results/report/leaderboard.csv")
    assert set(board["model"]) == {"tiny-bert", "tiny-roberta", "tiny-gpt2"} and board["stand_in"].all()
    assert (demo / "results/report/models.md").read_text().startswith("**Numbers from stand-ins (tiny-")
    for tex in ("results/report/models.tex", "results/tables/blimp/table3.tex", "results/report/verdicts/blimp.tex"):
        text = (demo / tex).read_text()
        assert "\\toprule" in text and "\\bottomrule" in text, tex
    run_page = (demo / "results/report/run.html").read_text()
    assert "tiny random-weight models" in run_page and "torch" in run_page
    # In the order they apply: config.yaml (the Snakefile's) under the files given with --configfile.
    assert "<td>config.yaml, resources/demo/config.yaml, fast.yaml</td>" in run_page


def test_report_renders_offline_with_every_output(demo):
    run = snakemake(demo, "--report", "report.html")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    text = (demo / "report.html").read_text()
    assert "they are not a reproduction of any paper" in text and "<script src" not in text
    start = text.index("categories = ") + len("categories = ")
    categories, _ = json.JSONDecoder().raw_decode(text[start:])
    listed = {p for sub in categories.values() for files in sub.values() for p in files}
    made = {str(p.relative_to(demo)) for d in ("results/tables", "results/plots", "results/report")
            for p in (demo / d).rglob("*") if p.is_file()}
    assert made == listed and {"Overview", "Ettinger", "BLiMP", "oLMpics"} <= set(categories)
    for models in ("tiny-bert, tiny-gpt2, tiny-roberta", "esim_baseline, mlm_baseline, tiny-bert, tiny-roberta"):
        assert f"Numbers from stand-ins ({models}: tiny random-weight models" in text, models


@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="Debian chromium is not installed")
def test_report_opens_in_headless_chromium(demo):
    import matplotlib.image
    import numpy as np

    from lmprobes.report.screenshot import screenshot

    if not (demo / "report.html").exists():
        assert snakemake(demo, "--report", "report.html").returncode == 0
    pixels = matplotlib.image.imread(screenshot(demo / "report.html", demo / "report.png"))
    assert pixels.shape[:2] == (1800, 1400)
    assert len(np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)) > 50


def test_rerun_does_nothing(demo):
    run = snakemake(demo, "-n", "all")
    assert run.returncode == 0
    assert "Nothing to be done" in run.stdout + run.stderr


def test_where_and_how_sources_are_fetched_reruns_nothing(demo):
    """The mirror's path and the download settings say how a pinned file is fetched, not what it holds."""
    name = write_config(demo, "fetch.yaml", {"mirror": str(demo / "resources/demo/mirror"),
                                             "download": {"timeout": 5, "retries": 1, "backoff": 1.0}})
    run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stderr[-3000:]
    assert set(job_counts(run.stdout)) == {"all", "report_landing"}, "the run page lists the config files given"


def test_every_parquet_file_names_the_rule_and_revision_that_made_it(demo):
    files = sorted((demo / "results").rglob("*.parquet"))
    assert len(files) > 40
    made_by = {}
    for path in files:
        job = read_metadata(path)["job"]
        assert job == {"rule": job["rule"], "revision": REVISIONS[job["rule"]]}, path
        made_by[path.relative_to(demo / "results").as_posix()] = job["rule"]
    assert made_by["scores/ettinger/tiny-gpt2/cprag.parquet"] == "ettinger_score"
    assert made_by["datasets/blimp/blimp.parquet"] == "blimp_dataset"
    assert made_by["curves/olmpics/baselines/age_comparison.parquet"] == "olmpics_baseline_curves"


def test_two_clean_runs_give_byte_identical_parquet(demo, tmp_path):
    files = sorted(p.relative_to(demo) for p in (demo / "results").rglob("*.parquet"))
    # datasets (2 generated), scores (generated too), caches, curves (2 for Figure 2D), MC-QA seed files
    olmpics = 3 + 2 + 2 * 3 + 2 * 2 * 3 + (2 * 2 + 2 * 3 + 2 + 3) + 2 * (3 + 1)
    assert len(files) == 4 + 12 + 1 + 3 + olmpics, "Ettinger datasets and scores, BLiMP's, then oLMpics'"
    # Every dataset, and a file of each other rule that writes Parquet: tiny-gpt2's Ettinger scores (the
    # causal family), tiny-bert's elsewhere (MC-QA: one seed's file and its curve; both baseline kinds).
    made = ["scores/ettinger/tiny-gpt2/cprag", "scores/blimp/tiny-bert/blimp", "scores/olmpics/tiny-bert/zero_shot",
            "scores/olmpics/tiny-bert/generated", "cache/olmpics/tiny-bert/hidden/age_comparison.standard",
            "curves/olmpics/tiny-bert/age_comparison", "curves/olmpics/tiny-bert/property_conjunction.standard",
            "curves/olmpics/tiny-bert/seeds/property_conjunction.standard.seed1",
            "curves/olmpics/baselines/age_comparison", "curves/olmpics/baselines/property_conjunction"]
    again = [rel for rel in files if rel.parts[1] == "datasets"] + [Path(f"results/{m}.parquet") for m in made]
    assert set(again) <= set(files)
    rules = {"ettinger_dataset", "ettinger_score", "blimp_dataset", "blimp_score", "olmpics_release", "olmpics_grids",
             "olmpics_controls", "olmpics_generated", "olmpics_zero_shot", "olmpics_zero_shot_generated",
             "olmpics_encode", "olmpics_mc_mlm_curves", "olmpics_mc_qa_seed", "olmpics_mc_qa_curves",
             "olmpics_baseline_curves"}
    other = copy_workflow(tmp_path / "again")
    # Another job order (other targets) and string hashing: no output may depend on either.
    run = snakemake(other, *map(str, again), "--resources", "gpu=2", env={"PYTHONHASHSEED": "12345"})
    assert run.returncode == 0, run.stderr[-5000:]
    assert rules <= set(re.findall(r"^(?:local)?rule (\w+):", run.stdout + run.stderr, flags=re.MULTILINE))
    for rel in again:
        assert (demo / rel).read_bytes() == (other / rel).read_bytes(), rel


def test_editing_a_sources_note_reruns_only_the_run_page_that_shows_it(demo):
    """A note is for people: neither the download nor the datasets built from the source rerun, but the
    run page showing it does (the config file edited in place: the list of config files stays the same)."""
    notes = {"sources": {"ettinger_role": {"note": "ROLE-88, first note"}}}
    name = write_config(demo, "note.yaml", notes)
    run = snakemake(demo, "all", configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stderr[-3000:]
    assert "ROLE-88, first note" in (demo / "results/report/run.html").read_text()
    write_config(demo, "note.yaml", {"sources": {"ettinger_role": {"note": "ROLE-88, edited note"},
                                                 "olmpics_glove": {"note": "edited too"}}})
    run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stderr[-3000:]
    assert job_counts(run.stdout) == {"report_landing": 1, "all": 1}, run.stdout[-3000:]
    restored = snakemake(demo, "all")  # the run page of the demo's own config, which later tests expect
    assert restored.returncode == 0, restored.stderr[-3000:]


def test_bumping_a_revision_reruns_that_rule_and_its_dependents_only(demo):
    """The workflow imports the package from its own folder first: a copy there with one revision
    bumped stands for an upgrade that changed what blimp_tables writes."""
    shutil.copytree(ROOT / "lmprobes", demo / "lmprobes", ignore=shutil.ignore_patterns("__pycache__"))
    try:
        revisions = demo / "lmprobes/revisions.py"
        text = revisions.read_text()
        current = f'"blimp_tables": {REVISIONS["blimp_tables"]},'
        assert current in text
        revisions.write_text(text.replace(current, f'"blimp_tables": {REVISIONS["blimp_tables"] + 1},'))
        run = snakemake(demo, "-n", "all")
    finally:
        shutil.rmtree(demo / "lmprobes")
    assert run.returncode == 0, run.stderr[-3000:]
    counts = job_counts(run.stdout)
    assert counts["blimp_tables"] == 1 and "Params have changed" in run.stdout
    assert set(counts) <= {"all", "blimp_tables", "report_landing", "report_verdicts", "report_models"}
    assert "Nothing to be done" in snakemake(demo, "-n", "all").stdout


def test_the_slurm_profile_submits_each_job_with_its_partition_and_resources(demo, tmp_path):
    """The cluster profile through the real SLURM executor plugin, against stand-in SLURM commands
    (``fake_slurm``): each job is one sbatch call with the partition, memory, time, CPUs and GPU it
    asks for, runs inside its allocation through the jobstep plugin, and writes what a local run does."""
    pytest.importorskip("snakemake_executor_plugin_slurm")
    workdir = copy_workflow(tmp_path / "wf")
    profile = tmp_path / "profile"
    profile.mkdir()
    settings = yaml.safe_load((ROOT / "profiles/slurm/config.yaml").read_text())
    settings.update({"slurm-no-account": True, "slurm-init-seconds-before-status-checks": 1})
    (profile / "config.yaml").write_text(yaml.safe_dump(settings))
    state = tmp_path / "slurm"
    env = fake_slurm.install(tmp_path / "bin", state)
    target = "results/scores/ettinger/tiny-bert/role.parquet"
    run = snakemake(workdir, target, "--workflow-profile", str(profile), env=env)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    pd.testing.assert_frame_equal(read_parquet(workdir / target), read_parquet(demo / target))
    by_rule = {}
    for args in fake_slurm.submissions(state):
        by_rule.setdefault(fake_slurm.option(args, "--comment").split("_wildcards_")[0], []).append(args)
    # The downloads and the tiny model's build are localrules: no sbatch call.
    assert sorted((rule, len(calls)) for rule, calls in by_rule.items()) == [
        ("rule_ettinger_dataset", 4), ("rule_ettinger_score", 1)]
    [score] = by_rule["rule_ettinger_score"]
    assert fake_slurm.option(score, "-p") == "gpu" and "--gpus=1" in score
    assert (fake_slurm.option(score, "--mem"), fake_slurm.option(score, "-t")) == ("1000", "60")
    assert "--cpus-per-task=1" in score and fake_slurm.option(score, "-A") is None  # the model's threads
    for dataset in by_rule["rule_ettinger_dataset"]:
        assert fake_slurm.option(dataset, "-p") == "cpu" and not any(arg.startswith("--gpus") for arg in dataset)
        assert (fake_slurm.option(dataset, "--mem"), fake_slurm.option(dataset, "-t")) == ("4000", "30")
    assert fake_slurm.option(score, "-D") == str(workdir)


def failing(workdir: Path, target: str, *configs: str) -> str:
    run = snakemake(workdir, target, configs=(DEMO, "fast.yaml", *configs))
    assert run.returncode != 0, "expected a failure"
    return run.stdout + run.stderr


def test_unknown_model_fails_before_any_job(demo):
    name = write_config(demo, "unknown.yaml", {"suites": {"ettinger": {"models": ["tiny-bert", "tiny-brt"]}}})
    out = failing(demo, "all", name)
    assert "suites.ettinger.models[1]: unknown model 'tiny-brt'" in out
    assert "localrule " not in out and "rule ettinger" not in out


def test_causal_model_under_masked_only_method_fails_naming_it(demo):
    name = write_config(demo, "masked.yaml", {"suites": {"ettinger": {"method": "masked"}}})
    out = failing(demo, "all", name)
    assert "suites.ettinger.models[2]: 'tiny-gpt2' is a causal model" in out


def test_causal_model_asked_for_curves_by_path_fails_before_any_job(demo):
    target = "results/curves/olmpics/tiny-gpt2/age_comparison.parquet"
    out = failing(demo, target)
    assert "model 'tiny-gpt2' is a causal model; oLMpics learning curves and their caches need a masked LM" in out
    assert "rule olmpics_encode:" not in out and not (demo / "results/cache/olmpics/tiny-gpt2").exists()


@pytest.mark.parametrize("suite, target", [
    ("lama", "results/scores/lama/tiny-gpt2/google_re.parquet"),
    ("ettinger", "results/scores/ettinger/tiny-gpt2/cprag.parquet"),
])
def test_causal_model_asked_for_by_path_under_masked_method_fails_before_any_job(demo, suite, target):
    models = {"lama": {"models": ["tiny-bert"]}, "ettinger": {"models": ["tiny-bert", "tiny-roberta"]}}[suite]
    name = write_config(demo, f"masked_{suite}.yaml", {"suites": {suite: {"method": "masked", **models}}})
    out = failing(demo, target, name)
    assert f"model 'tiny-gpt2' is a causal model but suites.{suite}.method is 'masked'" in out
    assert f"rule {suite}_score:" not in out


def test_wrong_key_fails_naming_it(demo):
    name = write_config(demo, "typo.yaml", {"suites": {"ettinger": {"shufles": 3}}})
    assert "shufles" in failing(demo, "all", name)


def planned_threads(dry_run_output: str, rule: str) -> dict[str, int]:
    """{model: threads} of a dry run's jobs of one rule (Snakemake prints no threads line for one)."""
    threads = {}
    for block in dry_run_output.split(f"rule {rule}:")[1:]:
        block = block.split("\n\n")[0]
        model = block.split("wildcards: model=")[1].split()[0].rstrip(",")
        threads[model] = int(block.split("threads: ")[1].split()[0]) if "threads: " in block else 1
    return threads


def test_a_models_threads_go_to_its_jobs_and_zero_is_refused(demo):
    name = write_config(demo, "threads.yaml", {"models": {"tiny-bert": {"threads": 3}}})
    targets = [f"results/scores/blimp/{m}/blimp.parquet" for m in ("tiny-bert", "tiny-gpt2")]
    run = snakemake(demo, *targets, "-n", "--force", "--cores", "4", configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stderr[-3000:]
    assert planned_threads(run.stdout, "blimp_score") == {"tiny-bert": 3, "tiny-gpt2": 1}
    name = write_config(demo, "no_threads.yaml", {"models": {"tiny-bert": {"threads": 0}}})
    out = failing(demo, "all", name)
    assert "threads" in out and "minimum" in out


def test_tuning_a_models_run_settings_reruns_nothing_and_its_dtype_only_its_jobs(demo):
    tuned = write_config(demo, "tuned.yaml", {"models": {"tiny-bert": {"threads": 2, "batch_tokens": 512,
                                                                        "mem_mb": 900}}})
    run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", tuned))
    assert run.returncode == 0, run.stderr[-3000:]
    # The run page lists the config files given, so it alone is rewritten.
    assert set(job_counts(run.stdout)) - {"all"} == {"report_landing"}
    bf16 = write_config(demo, "bf16.yaml", {"models": {"tiny-bert": {"dtype": "bfloat16"}}})
    run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", bf16))
    assert run.returncode == 0, run.stderr[-3000:]
    counts = job_counts(run.stdout)
    assert counts["blimp_score"] == counts["ettinger_score"] == counts["olmpics_zero_shot"] == 1
    assert "build_tiny_model" not in counts
    assert "olmpics_mc_qa_seed" not in counts, "MC-QA fine-tunes in float32 whatever the scoring dtype"
    assert set(re.findall(r"wildcards: .*?model=([^,\s]+)", run.stdout)) == {"tiny-bert"}


def test_a_default_written_out_or_keys_in_another_order_rerun_nothing(demo):
    """Snakemake compares params by repr, where a dict's key order counts: entries are compared sorted."""
    # Written out, the defaults the schema fills in come before the ones it adds, not in its order.
    explicit = write_config(demo, "explicit.yaml", {"models": {
        "tiny-bert": {"residual_dtype": "auto", "dtype": "float32", "padding": "auto", "trust_remote_code": False}}})
    run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", explicit))
    assert run.returncode == 0, run.stderr[-3000:]
    assert set(job_counts(run.stdout)) - {"all"} == {"report_landing"}, job_counts(run.stdout)


def test_dropping_a_model_from_each_suite_reruns_no_job_of_the_others(demo):
    suites = {"ettinger": {"models": ["tiny-bert", "tiny-roberta"]}, "blimp": {"models": ["tiny-bert", "tiny-roberta"]},
              "olmpics": {"models": ["tiny-bert"], "learning_curves": {"models": ["tiny-bert"]}}}
    name = write_config(demo, "fewer_models.yaml", {"suites": suites})
    run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stderr[-3000:]
    planned = set(job_counts(run.stdout))
    assert planned == {"all", "ettinger_tables", "blimp_tables", "olmpics_tables", "olmpics_learning_tables",
                       "report_landing", "report_verdicts", "report_models"}, planned


def test_ettinger_masked_method_rescores_no_masked_model(demo):
    """Both of Ettinger's methods score a masked model the same way, so with the causal model dropped,
    ``method: masked`` remakes only what reads the model list: the tables and the report."""
    name = write_config(demo, "masked_method.yaml", {"suites": {"ettinger": {
        "models": ["tiny-bert", "tiny-roberta"], "method": "masked"}}})
    run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stderr[-3000:]
    assert set(job_counts(run.stdout)) == {"all", "ettinger_tables", "report_landing", "report_verdicts",
                                          "report_models"}, job_counts(run.stdout)


def test_a_model_no_suite_runs_reruns_nothing(demo):
    name = write_config(demo, "spare.yaml", {"models": {"spare": {"tiny": {"arch": "bert"}, "family": "masked"}}})
    run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stderr[-3000:]
    assert set(job_counts(run.stdout)) == {"all", "report_landing"}, "the run page lists the config files given"


def test_a_setting_of_the_other_model_family_reruns_no_job(demo):
    """BLiMP's masked methods rerun only the masked models' scoring, its causal methods only the causal
    model's; oLMpics' causal BOS/EOS policy reruns none of the demo's masked models."""
    for blimp, rescored in (({"masked_methods": ["pll_original"]}, {"tiny-bert", "tiny-roberta"}),
                            ({"causal_methods": ["lmeval04"]}, {"tiny-gpt2"})):
        name = write_config(demo, "family.yaml", {"suites": {"blimp": blimp,
                                                             "olmpics": {"candidates": {"causal_policy": "none"}}}})
        run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", name))
        assert run.returncode == 0, run.stderr[-3000:]
        counts = job_counts(run.stdout)
        assert counts["blimp_score"] == len(rescored) and "olmpics_zero_shot" not in counts, counts
        blocks = [block for block in run.stdout.split("\nrule ")[1:] if block.startswith("blimp_score:")]
        assert {re.search(r"model=([\w-]+)", block).group(1) for block in blocks} == rescored


def test_a_start_token_reruns_only_the_causal_models_scoring(demo):
    name = write_config(demo, "start.yaml", {"models": {"tiny-gpt2": {"start_token": "eos"},
                                                        "tiny-bert": {"start_token": "eos"}}})
    run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stderr[-3000:]
    counts = job_counts(run.stdout)
    assert counts["blimp_score"] == counts["ettinger_score"] == 1 and "build_tiny_model" not in counts, counts
    assert set(re.findall(r"wildcards: .*?model=([^,\s]+)", run.stdout)) == {"tiny-gpt2"}


def test_a_setting_no_job_of_a_model_reads_reruns_none_of_its_jobs(demo):
    """Ettinger's multi-piece rule is the causal models' (masked ones always exclude); the PLL variant of
    oLMpics' candidates method is read only while a masked model runs that method (the demo's: mc_mlm)."""
    name = write_config(demo, "unread.yaml", {"suites": {
        "ettinger": {"multi_piece_targets": "sum"}, "olmpics": {"candidates": {"pll_variant": "within_word_l2r"}}}})
    run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stderr[-3000:]
    counts = job_counts(run.stdout)
    assert counts["ettinger_score"] == 1 and not {"olmpics_zero_shot", "olmpics_zero_shot_generated"} & set(counts)
    blocks = [b for b in run.stdout.split("\nrule ")[1:] if b.startswith("ettinger_score:")]
    assert re.search(r"model=([\w-]+)", blocks[0]).group(1) == "tiny-gpt2"


def test_a_curve_setting_reruns_only_the_curve_jobs_that_read_it(demo):
    for curves, rerun, jobs in (({"mc_qa_segment_ids": "tokenizer"}, "olmpics_mc_qa_seed", 8),
                                # ESIM is property_conjunction's baseline only, MLM-BASELINE the other two's
                                ({"training": {"esim": {"epochs": 1}}}, "olmpics_baseline_curves", 1),
                                ({"training": {"mlm_baseline": {"epochs": 1}}}, "olmpics_baseline_curves", 2),
                                ({"mc_mlm_settings": ["linear"]}, "olmpics_mc_mlm_curves", None)):
        name = write_config(demo, "curve_setting.yaml", {"suites": {"olmpics": {"learning_curves": curves}}})
        run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", name))
        assert run.returncode == 0, run.stderr[-3000:]
        counts = job_counts(run.stdout)
        planned = {rule for rule in counts if "curves" in rule or "mc_qa" in rule} - {"olmpics_mc_qa_curves"}
        assert planned == {rerun}, (curves, planned)
        assert jobs is None or counts[rerun] == jobs, (curves, counts)


def test_the_mask_encoding_reruns_the_masked_models_jobs_that_spell_a_mask(demo):
    """Zero-shot scoring and the mask states of masked models, and MC-QA seeds of MC-MLM tasks only."""
    name = write_config(demo, "mask_encoding.yaml", {"suites": {"olmpics": {"mask_encoding": "tokenizer"}}})
    run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stderr[-3000:]
    blocks = run.stdout.split("\nrule ")[1:]
    scored = {re.search(r"model=([\w-]+)", b).group(1) for b in blocks if b.startswith("olmpics_zero_shot:")}
    assert scored == {"tiny-bert", "tiny-roberta"}, "not the causal tiny-gpt2"
    assert "olmpics_encode" in job_counts(run.stdout)
    qa_tasks = {re.search(r"qa_task=(\w+)", b).group(1) for b in blocks if b.startswith("olmpics_mc_qa_seed:")}
    assert qa_tasks and all(OLMPICS_TASKS[task].setup == "mc_mlm" for task in qa_tasks), qa_tasks


def test_the_zero_shot_batches_rerun_the_masked_models_release_scoring_alone(demo):
    name = write_config(demo, "zero_shot_batches.yaml", {"suites": {"olmpics": {"zero_shot_batches": "original"}}})
    run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stderr[-3000:]
    counts = job_counts(run.stdout)
    assert counts["olmpics_zero_shot"] == 2, counts
    assert not {"olmpics_zero_shot_generated", "olmpics_encode", "olmpics_mc_qa_seed"} & set(counts), counts


def test_a_seed_added_runs_only_that_seeds_fine_tuning(demo):
    """MC-QA runs one job per seed, so a seed added to the list fine-tunes that seed alone; the curve
    files merge it in (the cheap MC-MLM probes and baselines run every seed again)."""
    name = write_config(demo, "seeds.yaml", {"suites": {"olmpics": {"learning_curves": {"seeds": [1, 2]}}}})
    run = snakemake(demo, "-n", "all", configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stderr[-3000:]
    counts = job_counts(run.stdout)
    assert (counts["olmpics_mc_qa_seed"], counts["olmpics_mc_qa_curves"]) == (8, 8), counts
    seeds = [re.search(r"seed=(\d+)", block).group(1) for block in run.stdout.split("\nrule ")[1:]
             if block.startswith("olmpics_mc_qa_seed:")]
    assert seeds == ["2"] * 8
    assert "olmpics_encode" not in counts and "olmpics_single_hop_stage" not in counts


def test_the_seed_remakes_cprag_alone_of_the_ettinger_datasets(demo):
    run = snakemake(demo, "-n", *(f"results/datasets/ettinger/{d}.parquet" for d in ("cprag", "role", "neg_simp",
                                                                                      "neg_nat")),
                    "--config", "seed=99")
    assert run.returncode == 0, run.stderr[-3000:]
    assert job_counts(run.stdout) == {"ettinger_dataset": 1}
    assert "dataset=cprag" in run.stdout


def test_wrong_sha256_fails_and_leaves_no_file(demo_copy):
    sources = yaml.safe_load((demo_copy / "config.yaml").read_text())["sources"]
    sources["ettinger_role"]["sha256"] = "0" * 64
    name = write_config(demo_copy, "badsha.yaml", {"sources": sources})
    target = "resources/sources/ettinger_role/ROLE-88.tsv"
    (demo_copy / target).unlink()
    out = failing(demo_copy, target, name)
    assert "sha256 mismatch" in out and "ROLE-88.tsv" in out and "0" * 64 in out
    assert not (demo_copy / target).exists()
    assert not list((demo_copy / "resources/sources/ettinger_role").glob("*.part"))
    assert snakemake(demo_copy, target).returncode == 0


def test_source_edited_after_download_fails_the_dataset_naming_it(demo_copy):
    source = demo_copy / "resources/sources/ettinger_role/ROLE-88.tsv"
    dataset = demo_copy / "results/datasets/ettinger/role.parquet"
    original = source.read_bytes()
    try:
        source.write_bytes(original.replace(b"\n", b" \n", 1))
        dataset.unlink()
        out = failing(demo_copy, "results/datasets/ettinger/role.parquet")
        assert "resources/sources/ettinger_role/ROLE-88.tsv: sha256 " in out and "it changed since" in out
        assert not dataset.exists()
    finally:
        source.write_bytes(original)
    assert snakemake(demo_copy, "results/datasets/ettinger/role.parquet").returncode == 0


def test_tsv_missing_a_column_fails_naming_file_and_column(tmp_path):
    """On a clean copy (the dataset job needs no model), so that the shared demo keeps its sources."""
    workdir = copy_workflow(tmp_path)
    mirror = workdir / "broken-mirror"
    broken = mirror / ROLE_TSV
    broken.parent.mkdir(parents=True)
    lines = (workdir / "resources/demo/mirror" / ROLE_TSV).read_text(encoding="utf-8").splitlines()
    broken.write_text("\n".join("\t".join(line.split("\t")[:-1]) for line in lines) + "\n", encoding="utf-8")
    sources = yaml.safe_load((workdir / "config.yaml").read_text())["sources"]
    sources["ettinger_role"]["sha256"] = None
    name = write_config(workdir, "broken.yaml", {"sources": sources, "mirror": str(mirror)})
    out = failing(workdir, "results/datasets/ettinger/role.parquet", name)
    assert "ROLE-88.tsv:1: missing column(s) ['tgt_cloze(strict)']" in out
    assert not (workdir / "results/datasets/ettinger/role.parquet").exists()
    lock = (workdir / "resources/sources/sources.lock.tsv").read_text()
    assert "ROLE-88.tsv" in lock


def test_masked_model_without_mask_token_fails_and_leaves_no_output(demo):
    name = write_config(demo, "nomask.yaml", {
        "models": {"gpt2-as-masked": {"path": "resources/models/tiny-gpt2", "family": "masked"}},
        "suites": {"ettinger": {"models": ["gpt2-as-masked"]}},
    })
    target = "results/scores/ettinger/gpt2-as-masked/neg_simp.parquet"
    out = failing(demo, target, name)
    assert "model 'gpt2-as-masked': the tokenizer in resources/models/tiny-gpt2 has no mask token" in out
    assert not (demo / target).exists()


def test_deleting_one_dataset_reruns_only_its_dependents(demo_copy):
    (demo_copy / "results/datasets/ettinger/neg_nat.parquet").unlink()
    run = snakemake(demo_copy, "-n", "all")
    assert run.returncode == 0
    # One scoring job per model (the model is loaded once for all four datasets).
    assert job_counts(run.stdout) == {"all": 1, "ettinger_dataset": 1, "ettinger_score": 3, "ettinger_tables": 1,
                                      "report_landing": 1, "report_verdicts": 1, "report_models": 1}


def test_lama_release_to_scores(demo, tmp_path, lama_release_writer, pararel_writer):
    """data.zip (a fixture in the real format) -> extracted -> four corpora -> scores of a masked
    and a causal model -> tables, with every filter firing and counted; with ParaRel's archive (a
    fixture in the real format), the T-REx facts under every template -> scores -> paraphrases table."""
    data = lama_release_writer(tmp_path / "release")
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        for path in sorted(data.rglob("*")):
            bundle.write(path, path.relative_to(data.parent).as_posix())
    pararel_writer(tmp_path / "pararel")
    pararel_zip = tmp_path / "pararel.zip"  # as GitHub archives a commit: one top folder
    with zipfile.ZipFile(pararel_zip, "w") as bundle:
        for path in sorted((tmp_path / "pararel").rglob("*")):
            bundle.write(path, path.relative_to(tmp_path / "pararel").as_posix())
    trex_zip = tmp_path / "TREx.zip"  # raw T-REx: the release T-REx facts' other valid objects
    with zipfile.ZipFile(trex_zip, "w") as bundle:
        for member in sorted(TREX_RAW.glob("re-nlg_*.json")):
            bundle.write(member, member.name)
    sources = {
        "lama_release": {"url": archive.as_uri(), "sha256": None},
        "lama_trex_raw": {"url": trex_zip.as_uri(), "sha256": None},
        "lama_relations": {"url": (data / "relations.jsonl").as_uri(), "sha256": None},
        "lama_common_vocab": {"url": (data / "common_vocab_cased.txt").as_uri(), "sha256": None},
        "lama_common_vocab_lowercased": {"url": (data / "common_vocab_lowercased.txt").as_uri(), "sha256": None},
        "lama_pararel": {"url": pararel_zip.as_uri(), "sha256": None},
    }
    corpora = ["google_re", "trex", "conceptnet", "squad", "trex_paraphrases"]
    lama = {"models": ["tiny-bert", "tiny-gpt2"], "corpora": corpora}
    name = write_config(demo, "lama.yaml", {"sources": sources, "suites": {"lama": lama}})
    run = snakemake(demo, *DEMO_RUN, configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    trex = read_parquet(demo / "results/datasets/lama/trex.parquet")
    assert len(trex) == 5 and trex["duplicate"].sum() == 1
    # Raw T-REx's objects of the same (relation, subject id): Q7186 was born in Q270 (Warsaw, its raw
    # label), Q142's capital is Q90 (Paris, the release's label for Q90); the others have none.
    assert [list(v) for v in trex["valid_objects"]] == [["Warsaw"], [], [], [], ["Paris"]]
    assert read_metadata(demo / "results/datasets/lama/trex.parquet")["valid_objects"]["from"] == "trex_raw"
    assert read_metadata(demo / "results/datasets/lama/google_re.parquet")["filter_counts"]["judgment_rejected"] == 1
    for corpus in ("google_re", "trex", "conceptnet", "squad"):
        items = read_parquet(demo / f"results/datasets/lama/{corpus}.parquet")
        assert list(read_parquet(demo / f"results/scores/lama/tiny-bert/{corpus}.parquet")["row_id"]) == list(items["row_id"])
        causal = read_parquet(demo / f"results/scores/lama/tiny-gpt2/{corpus}.parquet")
        assert causal.groupby("method")["row_id"].apply(list).to_dict() == {
            "candidates": list(items["row_id"]), "left_context": list(items["row_id"])}
    conceptnet = read_parquet(demo / "results/scores/lama/tiny-bert/conceptnet.parquet")
    assert conceptnet["skip_reason"].tolist()[1] == "too_long"
    trex_scores = read_parquet(demo / "results/scores/lama/tiny-bert/trex.parquet")
    assert set(trex_scores["skip_reason"]) <= {"", "not_single_token", "not_in_common_vocab", "duplicate"}
    # tiny-bert is uncased, so it runs in the released lowercase mode, against the lowercased vocabulary.
    bert_meta = read_metadata(demo / "results/scores/lama/tiny-bert/trex.parquet")
    gpt2_meta = read_metadata(demo / "results/scores/lama/tiny-gpt2/trex.parquet")
    assert (bert_meta["case"], gpt2_meta["case"]) == ("lowercase", "cased")
    assert bert_meta["common_vocab_words"] == len((data / "common_vocab_lowercased.txt").read_text().split())
    assert gpt2_meta["common_vocab_words"] == len((data / "common_vocab_cased.txt").read_text().split())
    filters = pd.read_csv(demo / "results/tables/lama/filters.csv")
    fired = filters[filters["system"] == "dataset"].groupby("filter")["facts"].sum()
    for name in ("too_long", "not_in_common_vocab", "judgment_rejected", "duplicate"):
        assert fired[name] == 1, name  # the fixture has one fact for each filter
    assert filters.query("system == 'tiny-bert' and filter == 'not_single_token'")["facts"].sum() >= 1
    table2 = pd.read_csv(demo / "results/tables/lama/table2.csv")
    assert {"Freq", "tiny-bert", "tiny-gpt2 (left_context)", "tiny-gpt2 (candidates)", "Bb (paper)"} <= set(table2["system"])
    assert set(zip(table2["model"], table2["method"])) >= {("tiny-gpt2", "left_context"), ("tiny-gpt2", "candidates")}
    assert "| google_re | birth-place |" in (demo / "results/tables/lama/table2.md").read_text()
    assert (demo / "results/plots/lama/precision_at_k.png").stat().st_size > 0
    # LAMA-UHN: the demo's filter model answered for the facts of the name relations (T-REx P19,
    # Google-RE's places of birth and death), and the table sets each corpus' facts beside the subset.
    hits = {corpus: read_parquet(demo / f"results/datasets/lama/uhn/tiny-bert/{corpus}.parquet")
            for corpus in ("trex", "google_re")}
    assert [len(hits["trex"]), len(hits["google_re"])] == [4, 3]
    uhn = pd.read_csv(demo / "results/tables/lama/table2_uhn.csv")
    assert set(zip(uhn["corpus"], uhn["subset"])) == {(c, s) for c in ("trex", "google_re") for s in ("LAMA", "LAMA-UHN")}
    assert "data.zip" in (demo / "resources/sources/sources.lock.tsv").read_text()
    # The unpinned release's hash, as its download recorded it, is in every dataset's metadata.
    release = read_metadata(demo / "results/datasets/lama/trex.parquet")["sources"]["release"]
    assert release["sha256"] == hashlib.sha256(archive.read_bytes()).hexdigest() and release["sha256_from"] == "lockfile"
    # Paraphrases: P19's 4 facts under its 4 templates (LAMA's, then ParaRel's less two repeats),
    # P36's fact under LAMA's alone (no ParaRel file); scored by both models, row for row.
    paraphrases = read_parquet(demo / "results/datasets/lama/trex_paraphrases.parquet")
    assert len(paraphrases) == 4 * 4 + 1 and paraphrases["row_id"].is_unique
    assert list(paraphrases["template_id"]) == [0, 1, 2, 3] * 4 + [0]
    original = paraphrases[paraphrases["template_id"] == 0]
    assert list(original["query"]) == list(trex["query"]) and list(original["duplicate"]) == list(trex["duplicate"])
    meta = read_metadata(demo / "results/datasets/lama/trex_paraphrases.parquet")
    assert meta["sources"]["paraphrases"]["sha256"] == hashlib.sha256(pararel_zip.read_bytes()).hexdigest()
    assert meta["job"] == {"rule": "lama_paraphrases", "revision": REVISIONS["lama_paraphrases"]}
    bert = read_parquet(demo / "results/scores/lama/tiny-bert/trex_paraphrases.parquet")
    gpt2 = read_parquet(demo / "results/scores/lama/tiny-gpt2/trex_paraphrases.parquet")
    assert list(bert["row_id"]) == list(paraphrases["row_id"])
    assert gpt2.groupby("method")["row_id"].apply(list).to_dict() == {
        "candidates": list(paraphrases["row_id"]), "left_context": list(paraphrases["row_id"])}
    table = pd.read_csv(demo / "results/tables/lama/paraphrases.csv")
    systems = ["tiny-bert", "tiny-gpt2 (candidates)", "tiny-gpt2 (left_context)"]
    assert list(table["system"]) == [s for s in systems for _ in range(3)]
    assert list(table["relation"]) == ["P19", "P36", "Total"] * 3 and list(table["n_templates"]) == [4, 1, 5] * 3
    assert table.loc[table["relation"] == "P36", "consistency"].isna().all(), "one template: no pairs"
    # Template 0 is the trex corpus itself: its P@1 is Table 2's T-REx Total, and not in Table 2.
    totals = table[table["relation"] == "Total"].set_index("system")["p1_original"]
    trex_total = table2.query("corpus == 'trex' and row == 'Total' and source == 'reproduction'").set_index("system")["p1"]
    assert totals.to_dict() == pytest.approx(trex_total.drop("Freq").to_dict())
    assert "trex_paraphrases" not in set(table2["corpus"])
    # P19's consistency from the score files by hand: per fact, agreeing pairs of the kept templates' top-1.
    for system, scores in (("tiny-bert", bert), ("tiny-gpt2 (candidates)", gpt2[gpt2["method"] == "candidates"]),
                           ("tiny-gpt2 (left_context)", gpt2[gpt2["method"] == "left_context"])):
        merged = scores.merge(paraphrases[["row_id", "fact_id", "relation"]], on="row_id").query("kept and relation == 'P19'")
        fractions = []
        for _, fact in merged.groupby("fact_id"):
            tops = [tokens[0] for tokens in fact["top_tokens"]]
            pairs = [(a, b) for i, a in enumerate(tops) for b in tops[i + 1:]]
            fractions += [sum(a == b for a, b in pairs) / len(pairs)] if pairs else []
        expected = 100 * sum(fractions) / len(fractions) if fractions else float("nan")
        ours = table.query("system == @system and relation == 'P19'")["consistency"].item()
        assert ours == pytest.approx(expected, nan_ok=True), system
        if system == "tiny-gpt2 (candidates)":
            assert len(fractions) == 2, "every candidate is scored: Allan Peiper's and Ann Smith's facts"
    assert "Consistency (ParaRel" in (demo / "results/tables/lama/paraphrases.md").read_text()


ASSERTIONS = [
    ("/r/CapableOf", "/c/en/bird", "/c/en/fly", "[[A bird]] can [[fly]]"),
    ("/r/CapableOf", "/c/en/fish", "/c/en/swim", "[[a fish]] can [[swim]]"),
    ("/r/AtLocation", "/c/en/book", "/c/en/library", "You are likely to find [[a book]] in [[a library]]"),
    ("/r/IsA", "/c/en/dog", "/c/en/animal", "[[a dog]] is [[an animal]]"),
    ("/r/IsA", "/c/fr/chien", "/c/fr/animal", None),  # not English: never an edge
]


def assertions_csv(path: Path) -> Path:
    """A ConceptNet 5.7 assertions file in the real format (edge URI, relation, start, end, JSON)."""
    lines = []
    for relation, start, end, surface in ASSERTIONS:
        info = {"dataset": "/d/conceptnet/4/en", "license": "cc:by/4.0", "sources": [], "weight": 1.0}
        if surface:
            info["surfaceText"] = surface
        lines.append("\t".join([f"/a/[{relation}/,{start}/,{end}/]", relation, start, end, json.dumps(info)]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_lama_generated_corpora_build_and_score_offline(demo, tmp_path):
    """trex_raw (a TREx.zip fixture), conceptnet_gen (an assertions CSV) and wikidata_fresh (a fake
    query service on loopback) built by the workflow, scored by tiny-bert, and tabulated."""
    trex_zip = tmp_path / "TREx.zip"
    with zipfile.ZipFile(trex_zip, "w") as bundle:
        for member in sorted(TREX_RAW.glob("re-nlg_*.json")):
            bundle.write(member, member.name)
    relations = {}
    for path in (TREX_RAW / "relations.jsonl", WIKIDATA / "relations.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            relations.setdefault(json.loads(line)["relation"], line)
    (tmp_path / "relations.jsonl").write_text("\n".join(relations.values()) + "\n", encoding="utf-8")
    words = set((TREX_RAW / "common_vocab_cased.txt").read_text().split())
    words |= set((WIKIDATA / "common_vocab.txt").read_text().split()) | {"fly", "swim", "library", "animal"}
    (tmp_path / "vocab.txt").write_text("\n".join(sorted(words)) + "\n", encoding="utf-8")
    (tmp_path / "vocab_lower.txt").write_text("\n".join(sorted({w.lower() for w in words})) + "\n", encoding="utf-8")
    sources = {
        "lama_relations": {"url": (tmp_path / "relations.jsonl").as_uri(), "sha256": None},
        "lama_common_vocab": {"url": (tmp_path / "vocab.txt").as_uri(), "sha256": None},
        "lama_common_vocab_lowercased": {"url": (tmp_path / "vocab_lower.txt").as_uri(), "sha256": None},
        "lama_trex_raw": {"url": trex_zip.as_uri(), "sha256": None},
        "conceptnet_assertions": {"url": assertions_csv(tmp_path / "assertions.csv").as_uri(), "sha256": None},
    }
    service = recorded_service()
    service.unknown_relation = empty_answer()
    with serve_http(service.respond, keep_alive=True) as url:
        generated = {"trex_raw": {}, "conceptnet_gen": {},
                     "wikidata_fresh": {"endpoint": f"{url}/sparql", "min_interval": 0.0}}
        corpora = ["trex_raw", "conceptnet_gen", "wikidata_fresh"]
        lama = {"models": ["tiny-bert"], "corpora": corpora, "generate": corpora, "generated": generated}
        name = write_config(demo, "generated.yaml", {"sources": sources, "suites": {"lama": lama}})
        # Each dataset alone first: its provenance may only name sources the job read, whose sha256
        # the lockfile then holds (a source another job downloads later made the bytes race).
        alone = snakemake(demo, *(f"results/datasets/lama/{c}.parquet" for c in corpora), configs=(DEMO, "fast.yaml", name))
        assert alone.returncode == 0, alone.stderr[-3000:]
        for corpus in corpora:
            assert unlocked_sources(read_metadata(demo / f"results/datasets/lama/{corpus}.parquet")["sources"]) == []
        run = snakemake(demo, *DEMO_RUN, configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    datasets = demo / "results/datasets/lama"
    trex_raw = read_parquet(datasets / "trex_raw.parquet")
    assert set(trex_raw["relation"]) <= set(relations) and trex_raw["evidences"].map(len).min() >= 1
    assert read_metadata(datasets / "trex_raw.parquet")["seed"] == 1234
    conceptnet = read_parquet(datasets / "conceptnet_gen.parquet")
    assert sorted(conceptnet["query"]) == ["A bird can [MASK].", "A dog is an [MASK].", "A fish can [MASK].",
                                          "You are likely to find a book in a [MASK]."]
    assert list(conceptnet["obj_label"]) == ["library", "fly", "swim", "animal"]
    edges = read_parquet(demo / "results/sources/conceptnet/english_edges.parquet")
    assert len(edges) == 4, "the French edge is not English"
    fresh = read_parquet(datasets / "wikidata_fresh.parquet")
    assert set(fresh["relation"]) == {"P19", "P47"} and fresh["valid_objects"].map(len).max() >= 2
    assert any(request["kind"] == "aliases" for request in service.requests)
    for corpus in ("trex_raw", "conceptnet_gen", "wikidata_fresh"):
        items = read_parquet(datasets / f"{corpus}.parquet")
        assert list(read_parquet(demo / f"results/scores/lama/tiny-bert/{corpus}.parquet")["row_id"]) == list(items["row_id"])
    filters = pd.read_csv(demo / "results/tables/lama/filters.csv")
    assert {"trex_raw", "conceptnet_gen", "wikidata_fresh"} <= set(filters["corpus"])
    # Rebuilt with the query service gone: every answer comes from the cache, byte for byte.
    before = (datasets / "wikidata_fresh.parquet").read_bytes()
    (datasets / "wikidata_fresh.parquet").unlink()
    rerun = snakemake(demo, "results/datasets/lama/wikidata_fresh.parquet", configs=(DEMO, "fast.yaml", name))
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert (datasets / "wikidata_fresh.parquet").read_bytes() == before
    # How to ask (your contact, the pause, the cache folder) is neither a param nor in the file: setting
    # it reruns nothing.
    assert {"user_agent", "min_interval", "cache"}.isdisjoint(read_metadata(datasets / "wikidata_fresh.parquet")["settings"])
    contact = write_config(demo, "contact.yaml", {"suites": {"lama": {"generated": {"wikidata_fresh": {
        "user_agent": "lmprobes-tests/1 (mailto:someone@lmprobes.invalid)", "min_interval": 2.0,
        "cache": str(tmp_path / "elsewhere")}}}}})
    plan = snakemake(demo, "-n", "results/datasets/lama/wikidata_fresh.parquet",
                     configs=(DEMO, "fast.yaml", name, contact))
    assert plan.returncode == 0 and "Nothing to be done" in plan.stdout + plan.stderr, plan.stdout[-2000:]
    # Offline: the answers, as a cache filled against query.wikidata.org holds them, copied into the
    # demo's mirror; the same facts, and no request (the fake service is gone).
    wdqs = "https://query.wikidata.org/sparql"
    for path in (demo / "resources/wikidata/cache").rglob("*.json"):
        record = json.loads(path.read_text())
        key = cache_key(wdqs, record["query"])
        target = demo / "resources/demo/mirror/query.wikidata.org/sparql" / key[:2] / f"{key}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps({**record, "endpoint": wdqs}))
    offline = write_config(demo, "offline.yaml", {"suites": {"lama": {"generated": {"wikidata_fresh": {
        "endpoint": wdqs}}}}})
    (datasets / "wikidata_fresh.parquet").unlink()
    run = snakemake(demo, "results/datasets/lama/wikidata_fresh.parquet", configs=(DEMO, "fast.yaml", name, offline))
    assert run.returncode == 0, run.stderr[-3000:]
    offline_facts = read_parquet(datasets / "wikidata_fresh.parquet")
    assert set(offline_facts["source_file"]) == {wdqs}
    pd.testing.assert_frame_equal(offline_facts.drop(columns="source_file"), fresh.drop(columns="source_file"))
    (datasets / "wikidata_fresh.parquet").write_bytes(before)


def unlocked_sources(provenance) -> list[str]:
    """The URLs in a dataset's provenance recorded without a sha256."""
    if isinstance(provenance, list):
        return [url for item in provenance for url in unlocked_sources(item)]
    if not isinstance(provenance, dict):
        return []
    found = [url for value in provenance.values() for url in unlocked_sources(value)]
    if isinstance(provenance.get("url"), str) and not provenance.get("sha256"):
        found.append(provenance["url"])
    return found


OLMPICS = ROOT / "tests/data/olmpics"
SOURCES = ROOT / "tests/data/olmpics_sources"


def test_olmpics_release_to_zero_shot_tables(demo, tmp_path):
    """The release (fixture lines of the 16 real files, served as file:// URLs and checked against a
    manifest) -> dataset -> zero-shot scores of a masked and a causal model -> table and Figure 3."""
    from lmprobes.sources import sha256_of
    from lmprobes.suites.olmpics.pipeline import read_release_manifest

    rows = read_release_manifest(ROOT / "resources/olmpics/release.tsv")
    manifest = tmp_path / "release.tsv"
    manifest.write_text("task\tsplit\tfile\tsha256\n" + "".join(
        f"{r['task']}\t{r['split']}\t{r['file']}\t{sha256_of(OLMPICS / r['file'])}\n" for r in rows))
    wordnet = tmp_path / "wordnet.zip"
    with zipfile.ZipFile(wordnet, "w") as bundle:
        for path in sorted((SOURCES / "wordnet").iterdir()):
            bundle.write(path, f"wordnet/{path.name}")
    sources = {
        "olmpics_wordnet": {"url": wordnet.as_uri(), "sha256": None},
        "olmpics_doq": {"url": (SOURCES / "doq_noun_excerpt.tsv").as_uri(), "sha256": None},
        "conceptnet_assertions": {"url": (SOURCES / "conceptnet_assertions.csv").as_uri(), "sha256": None},
    }
    # Taxonomy conjunction needs hypernym chains deeper than the WordNet fixture's (its unit tests
    # lower min_depth); encyclopedic composition needs the query service (its unit tests have one).
    generated = ["age_comparison", "multihop_composition", "antonym_negation", "property_conjunction",
                 "objects_comparison"]
    olmpics = {"release": {"url": OLMPICS.as_uri() + "/", "manifest": str(manifest)},
               "models": ["tiny-bert", "tiny-gpt2"], "masked_methods": ["mc_mlm"], "generate": generated,
               "learning_curves": {"models": []}}
    name = write_config(demo, "olmpics.yaml", {"sources": sources, "suites": {"olmpics": olmpics}})
    run = snakemake(demo, *DEMO_RUN, configs=(DEMO, "fast.yaml", name))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    release = read_parquet(demo / "results/datasets/olmpics/release.parquet")
    assert release.groupby(["task", "split"]).size()["age_comparison", "dev"] == 24
    for model, method in (("tiny-bert", "mc_mlm"), ("tiny-gpt2", "candidates")):
        scores = read_parquet(demo / f"results/scores/olmpics/{model}/zero_shot.parquet")
        assert set(scores["method"]) == {method} and set(scores["split"]) == {"dev"}
        assert "property_conjunction" not in set(scores["task"]), "MC-QA has no zero-shot"
        scores = read_parquet(demo / f"results/scores/olmpics/{model}/generated.parquet")
        assert set(scores["flavour"]) == {"generated"} and set(scores["split"]) == {"dev"}
        assert set(scores["task"]) == set(generated) - {"property_conjunction"}
    table = (demo / "results/tables/olmpics/zero_shot.md").read_text()
    assert "tiny-bert" in table and "tiny-gpt2 (candidates)" in table and "RoBERTa-L (paper)" in table
    assert "| tiny-bert [generated] |" in table and "| tiny-gpt2 (candidates) [generated] |" in table
    for model in ("tiny-bert", "tiny-gpt2"):
        assert (demo / f"results/plots/olmpics/figure3_{model}.png").read_bytes()[:4] == b"\x89PNG"
    table4 = pd.read_csv(demo / "results/tables/olmpics/table4_tiny-bert.csv")
    assert list(table4["x"]) == ["nail", "pen", "laptop", "table", "house", "airplane", "city", "sun"]
    assert "| nail |" in (demo / "results/tables/olmpics/table4_tiny-bert.md").read_text()
    controls = read_parquet(demo / "results/datasets/olmpics/controls.parquet")
    assert set(controls["variant"]) == {"no_lang", "perturbed_lang"}
    release_sources = read_metadata(demo / "results/datasets/olmpics/release.parquet")["sources"]
    assert release_sources and read_metadata(demo / "results/datasets/olmpics/controls.parquet")["sources"] == release_sources
    folder = demo / "results/datasets/olmpics/generated"
    for task in generated:
        items = read_parquet(folder / f"{task}.parquet")
        # Sizes are upper bounds: the small source fixtures fill dev first, train where they can.
        assert set(items["flavour"]) == {"generated"} and "dev" in set(items["split"]), task
    ages = read_parquet(folder / "age_comparison.parquet")
    assert ages.groupby("split").size().to_dict() == {"dev": 500, "train": 4032}
    # The WordNet frequency filter reaches only the WordNet tasks: changing it remakes antonym negation
    # and what is made from it, never the release's zero-shot scores.
    rare = write_config(demo, "rare.yaml", {"suites": {"olmpics": {**olmpics, "wordnet_min_count": 1}}})
    targets = [f"results/datasets/olmpics/generated/{task}.parquet" for task in generated]
    targets += [f"results/scores/olmpics/{model}/{name}.parquet" for model in ("tiny-bert", "tiny-gpt2")
                for name in ("zero_shot", "generated")]
    plan = snakemake(demo, *targets, "-n", configs=(DEMO, "fast.yaml", name, rare))
    assert plan.returncode == 0, plan.stderr[-3000:]
    assert job_counts(plan.stdout) == {"olmpics_generated": 1, "olmpics_zero_shot_generated": 2}
    assert "olmpics_task=antonym_negation" in plan.stdout
    # Another seed: sampled tasks change, the deterministic age task does not (byte for byte).
    before = {task: (folder / f"{task}.parquet").read_bytes() for task in generated}
    targets = [f"results/datasets/olmpics/generated/{task}.parquet" for task in generated]
    for target in targets:
        (demo / target).unlink()
    seed = write_config(demo, "seed.yaml", {"seed": 7})
    rerun = snakemake(demo, *targets, configs=(DEMO, "fast.yaml", name, seed))
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    after = {task: (folder / f"{task}.parquet").read_bytes() for task in generated}
    assert after["age_comparison"] == before["age_comparison"]
    assert after["multihop_composition"] != before["multihop_composition"]
    assert after["antonym_negation"] != before["antonym_negation"]
    # Back to the first seed: every file byte-identical to the first run's.
    for target in targets:
        (demo / target).unlink()
    again = snakemake(demo, *targets, configs=(DEMO, "fast.yaml", name))
    assert again.returncode == 0, again.stderr[-3000:]
    assert {task: (folder / f"{task}.parquet").read_bytes() for task in generated} == before


def test_encyclopedic_curves_start_from_one_single_hop_stage_per_seed(demo):
    """The demo release's composed questions -> single-hop facts (bridges from a fake query service) ->
    one stage job per seed, shared by the variants' curve jobs (two here) and deleted once they are done."""
    # The demo's release (another test may have left its own release in the shared demo folder).
    built = snakemake(demo, "results/datasets/olmpics/release.parquet")
    assert built.returncode == 0, built.stderr[-3000:]
    release = read_parquet(demo / "results/datasets/olmpics/release.parquet")
    service = FakeBridgeService(bridges_to_gold(release[release["task"] == "encyclopedic_composition"]))
    variants = ("standard", "no_lang")
    targets = [f"results/curves/olmpics/tiny-bert/encyclopedic_composition.{variant}.parquet" for variant in variants]
    curves = {"models": ["tiny-bert"], "tasks": ["encyclopedic_composition"], "grid": [8], "seeds": [1, 2]}
    with serve_http(service.respond, keep_alive=True) as url:
        name = write_config(demo, "single_hop.yaml", {"suites": {
            "olmpics": {"learning_curves": curves},
            "lama": {"generated": {"wikidata_fresh": {"endpoint": f"{url}/sparql", "min_interval": 0.0}}}}})
        configs = (DEMO, "fast.yaml", name)
        plan = snakemake(demo, *targets, "-n", configs=configs)
        assert plan.returncode == 0, plan.stderr[-3000:]
        counts = job_counts(plan.stdout)
        assert {rule: counts.get(rule) for rule in ("olmpics_single_hop", "olmpics_single_hop_stage",
                                                    "olmpics_mc_qa_seed", "olmpics_mc_qa_curves")} == {
            "olmpics_single_hop": 1, "olmpics_single_hop_stage": 2, "olmpics_mc_qa_seed": 2 * 2,
            "olmpics_mc_qa_curves": 2}
        run = snakemake(demo, *targets, "--resources", "gpu=2", configs=configs)  # two stage jobs, then seeds, at once
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    facts = read_parquet(demo / "results/datasets/olmpics/single_hop.parquet")
    assert len(facts) == 2 * (release["task"] == "encyclopedic_composition").sum(), "every question has its bridge"
    for variant in variants:
        out = demo / f"results/curves/olmpics/tiny-bert/encyclopedic_composition.{variant}.parquet"
        assert read_metadata(out)["single_hop_items"] == len(facts)
        assert set(zip(read_parquet(out)["n_train"], read_parquet(out)["seed"])) == {(8, 1), (8, 2)}
    stages = demo / "results/cache/olmpics/tiny-bert/single_hop"
    assert not list(stages.glob("*.safetensors")), "the stage is temporary"
    for seed in (1, 2):
        assert "single-hop stage on" in (demo / f"logs/cache/olmpics/tiny-bert/single_hop/seed{seed}.log").read_text()
    again = snakemake(demo, *targets, "-n", configs=configs)
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr


def test_demo_learning_curves(demo):
    """The reduced grid: every (setting, variant, N, seed) per model and task, the encoder run once per
    (task, split, variant) into the cache, baselines with their untrained point, tables and figures."""
    cache = demo / "results/cache/olmpics/tiny-bert/hidden"
    for task in ("age_comparison", "taxonomy_conjunction"):
        for variant in ("standard", "no_lang", "perturbed_lang"):
            rows = read_parquet(cache / f"{task}.{variant}.parquet")
            assert rows["row_id"].is_unique and set(rows["split"]) == {"train", "dev"}
            assert rows.groupby("split").size().to_dict() == {"train": 40, "dev": 24}
        curves = read_parquet(demo / f"results/curves/olmpics/tiny-bert/{task}.parquet")
        runs = set(zip(curves["setting"], curves["variant"], curves["n_train"], curves["seed"]))
        assert runs == {(s, v, n, 1) for s in ("mlp_mlm", "linear")
                        for v in ("standard", "no_lang", "perturbed_lang") for n in (8, 16)}
        assert curves["accuracy"].between(0, 100).all() and (curves["n_dev"] == 24).all()
    for variant in ("standard", "no_lang", "perturbed_lang"):
        qa = read_parquet(demo / f"results/curves/olmpics/tiny-roberta/property_conjunction.{variant}.parquet")
        assert set(zip(qa["setting"], qa["n_train"])) == {("mc_qa", 8), ("mc_qa", 16)}
    for model in ("tiny-bert", "tiny-roberta"):  # Figure 2D: MC-QA on age comparison, standard variant
        qa = read_parquet(demo / f"results/curves/olmpics/{model}/age_comparison.standard.parquet")
        assert set(zip(qa["setting"], qa["variant"], qa["n_train"])) == {("mc_qa", "standard", 8),
                                                                         ("mc_qa", "standard", 16)}
        assert (qa["n_dev"] == 24).all()
    assert not list(demo.glob("results/curves/olmpics/*/age_comparison.no_lang.parquet"))
    baseline = read_parquet(demo / "results/curves/olmpics/baselines/age_comparison.parquet")
    assert set(baseline["n_train"]) == {0, 8, 16} and set(baseline["model"]) == {"mlm_baseline"}
    esim = read_parquet(demo / "results/curves/olmpics/baselines/property_conjunction.parquet")
    assert set(esim["setting"]) == {"esim"} and set(esim["n_train"]) == {8, 16}
    # Each curve file records the grid, seeds and hyper-parameters its runs trained with (the demo's epochs).
    for path, epochs in (("baselines/age_comparison", 3), ("baselines/property_conjunction", 2),
                         ("tiny-bert/age_comparison", 4)):
        metadata = read_metadata(demo / f"results/curves/olmpics/{path}.parquet")
        assert (metadata["grid"], metadata["seeds"], metadata["hyper_parameters"]["epochs"]) == ([8, 16], [1], epochs)
    # A model's curve files name its weights and the libraries, as its scores do (MC-MLM: from its cache).
    hidden = read_metadata(demo / "results/cache/olmpics/tiny-bert/hidden/age_comparison.standard.parquet")
    for path in ("tiny-bert/age_comparison", "tiny-roberta/age_comparison.standard"):
        metadata = read_metadata(demo / f"results/curves/olmpics/{path}.parquet")
        assert metadata["model_source"] == "tiny" and len(metadata["model_files_sha256"]) == 64, path
        assert metadata["torch"] and metadata["transformers"] and metadata["dtype"] == "float32", path
    mc_mlm = read_metadata(demo / "results/curves/olmpics/tiny-bert/age_comparison.parquet")
    assert mc_mlm["model_files_sha256"] == hidden["model_files_sha256"]
    tables = demo / "results/tables/olmpics"
    markdown = (tables / "learning_curves.md").read_text()
    assert "### Table 2: Age comparison" in markdown and "RoBERTa-L (paper)" in markdown and "tiny-bert" in markdown
    assert "✓" in (tables / "table12_medals.md").read_text()
    assert "MC-QA WS" in markdown
    for task in ("age_comparison", "taxonomy_conjunction", "property_conjunction"):
        assert (demo / f"results/plots/olmpics/learning_curves_{task}.png").read_bytes()[:4] == b"\x89PNG"
    assert (demo / "results/plots/olmpics/mc_mlm_vs_mc_qa_age_comparison.png").read_bytes()[:4] == b"\x89PNG"
