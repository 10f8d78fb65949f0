# The 67 paradigm files in one job (each fetched, or copied from the mirror, and sha256-checked).
rule download_blimp:
    output:
        expand(
            "resources/sources/blimp/{uid}.jsonl",
            uid=[p["uid"] for p in BLIMP_PARADIGMS],
        ),
    log:
        "logs/sources/blimp.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        release=get_blimp_release,
        pinned_by=BLIMP["release"]["manifest"],
        lockfile=LOCKFILE,
    script:
        "../scripts/download_release.py"


rule blimp_dataset:
    input:
        rules.download_blimp.output,
    output:
        "results/datasets/blimp/blimp.parquet",
    log:
        "logs/datasets/blimp.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["blimp_dataset"],
        provenance=get_blimp_provenance,
    script:
        "../scripts/blimp_dataset.py"


# One job per model: the model is loaded once and scores every pair with each of its methods.
rule blimp_score:
    input:
        dataset="results/datasets/blimp/blimp.parquet",
        model=get_model_dir,
    output:
        "results/scores/blimp/{model}/blimp.parquet",
    log:
        "logs/scores/blimp/{model}.log",
    benchmark:
        "benchmarks/scores/blimp/{model}.tsv"
    retries: 1
    conda:
        "../envs/lmprobes.yaml"
    threads: get_model_threads
    resources:
        gpu=1,
        mem_mb=get_scoring_mem_mb,
        batch_tokens=get_model_batch_tokens,
        runtime=get_runtime(240),
    params:
        revision=REVISIONS["blimp_score"],
        spec=get_model_spec,
        settings=get_blimp_methods,
        device=config["device"],
    script:
        "../scripts/blimp_score.py"


rule blimp_tables:
    input:
        dataset="results/datasets/blimp/blimp.parquet",
        scores=get_blimp_scores,
        published="resources/blimp/published.csv",
        published_paradigms="resources/blimp/published_paradigms.csv",
    output:
        [
            report(
                f"results/tables/blimp/{table}.{ext}",
                caption=f"report/blimp/{table}.rst",
                category="BLiMP",
                subcategory="Tables",
                labels={"table": table, "format": ext},
            )
            for table in BLIMP_TABLES
            for ext in ("csv", "md", "tex")
        ],
        figures=[
            report(
                f"results/plots/blimp/{figure}.png",
                caption=f"report/blimp/{figure}.rst",
                category="BLiMP",
                subcategory="Figures",
                labels={"figure": figure},
            )
            for figure in BLIMP_FIGURES
        ],
    log:
        "logs/tables/blimp.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["blimp_tables"],
        tiny_models=REPORT_TINY_BY_TABLES["blimp"],
    script:
        "../scripts/blimp_tables.py"


# Fresh pairs of one morphology paradigm from our own lexicon, seeded (not part of `all`): with
# suites.blimp.generator.exclude_release, none repeats a release sentence and their structure is
# checked against the release file's pairs (a difference fails the job).
rule blimp_generate:
    input:
        lexicon="resources/blimp/lexicon.csv",
        release=get_blimp_generator_release,
    output:
        "results/datasets/blimp/generated/{uid}.jsonl",
    log:
        "logs/datasets/blimp/generated/{uid}.log",
    wildcard_constraints:
        uid=alternatives(BLIMP_GENERATED),
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["blimp_generate"],
        settings=get_blimp_generator_settings,
    script:
        "../scripts/blimp_generate.py"


rule blimp_generated_dataset:
    input:
        pairs=expand(
            "results/datasets/blimp/generated/{uid}.jsonl", uid=BLIMP_GENERATED
        ),
        lexicon="resources/blimp/lexicon.csv",
    output:
        "results/datasets/blimp/generated.parquet",
    log:
        "logs/datasets/blimp/generated.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["blimp_generated_dataset"],
        settings=get_blimp_generator_settings,
    script:
        "../scripts/blimp_generated_dataset.py"


# The generated pairs, scored as the release's by each BLiMP model.
use rule blimp_score as blimp_score_generated with:
    input:
        dataset="results/datasets/blimp/generated.parquet",
        model=get_model_dir,
    output:
        "results/scores/blimp/{model}/generated.parquet",
    log:
        "logs/scores/blimp/{model}.generated.log",
    benchmark:
        "benchmarks/scores/blimp/{model}.generated.tsv"


rule blimp_generated_table:
    input:
        release=get_blimp_scores,
        generated=get_blimp_generated_scores,
    output:
        expand("results/tables/blimp/generated.{ext}", ext=["csv", "md", "tex"]),
    log:
        "logs/tables/blimp_generated.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["blimp_generated_table"],
    script:
        "../scripts/blimp_generated_table.py"


# Every generated paradigm, and its table when BLiMP scores models: snakemake blimp_generated
rule blimp_generated:
    input:
        get_blimp_generated_targets,
