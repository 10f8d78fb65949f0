# The 16 release files in one job (each fetched, or copied from the mirror, and sha256-checked).
rule download_olmpics:
    output:
        expand(
            "resources/sources/olmpics/{file}",
            file=[row["file"] for row in OLMPICS_RELEASE],
        ),
    log:
        "logs/sources/olmpics.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        release=get_olmpics_release,
        mirror=config["mirror"],
        download=config["download"],
        lockfile="resources/sources/sources.lock.tsv",
    script:
        "../scripts/download_release.py"


rule olmpics_release:
    input:
        rules.download_olmpics.output,
    output:
        "results/datasets/olmpics/release.parquet",
    log:
        "logs/datasets/olmpics/release.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        manifest=OLMPICS_RELEASE,
        provenance=get_olmpics_provenance,
    script:
        "../scripts/olmpics_release.py"


rule olmpics_figure3:
    output:
        "results/datasets/olmpics/figure3.parquet",
    log:
        "logs/datasets/olmpics/figure3.log",
    conda:
        "../envs/lmprobes.yaml"
    script:
        "../scripts/olmpics_figure3.py"


# One job per model: zero-shot on the dev items and the Figure 3 grids after a single load.
rule olmpics_zero_shot:
    input:
        release="results/datasets/olmpics/release.parquet",
        figure3="results/datasets/olmpics/figure3.parquet",
        model=get_model_dir,
    output:
        zero_shot="results/scores/olmpics/{model}/zero_shot.parquet",
        figure3="results/scores/olmpics/{model}/figure3.parquet",
    log:
        "logs/scores/olmpics/{model}.log",
    benchmark:
        "benchmarks/scores/olmpics/{model}.tsv"
    retries: 1
    conda:
        "../envs/lmprobes.yaml"
    threads: 2
    resources:
        gpu=1,
        mem_mb=get_scoring_mem_mb,
        runtime=120,
    params:
        spec=get_model_spec,
        settings=OLMPICS,
        device=config["device"],
        progress=config["progress"],
    script:
        "../scripts/olmpics_zero_shot.py"


rule olmpics_tables:
    input:
        figure3="results/datasets/olmpics/figure3.parquet",
        zero_shot=get_olmpics_scores("zero_shot"),
        figure3_scores=get_olmpics_scores("figure3"),
        published="resources/olmpics/published.csv",
    output:
        table=expand("results/tables/olmpics/zero_shot.{ext}", ext=["csv", "md"]),
        figures=expand(
            "results/plots/olmpics/figure3_{model}.png", model=OLMPICS["models"]
        ),
    log:
        "logs/tables/olmpics.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        models=OLMPICS["models"],
    script:
        "../scripts/olmpics_tables.py"
