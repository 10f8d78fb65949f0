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


rule olmpics_grids:
    output:
        "results/datasets/olmpics/grids.parquet",
    log:
        "logs/datasets/olmpics/grids.log",
    conda:
        "../envs/lmprobes.yaml"
    script:
        "../scripts/olmpics_grids.py"


# One job per model: zero-shot on the dev items and the Figure 3 / Table 4 grids after a single load.
rule olmpics_zero_shot:
    input:
        release="results/datasets/olmpics/release.parquet",
        grids="results/datasets/olmpics/grids.parquet",
        model=get_model_dir,
    output:
        zero_shot="results/scores/olmpics/{model}/zero_shot.parquet",
        grids="results/scores/olmpics/{model}/grids.parquet",
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
        grids="results/datasets/olmpics/grids.parquet",
        zero_shot=get_olmpics_scores("zero_shot"),
        grid_scores=get_olmpics_scores("grids"),
        published="resources/olmpics/published.csv",
        paper_table4="resources/olmpics/table4_paper.csv",
    output:
        table=expand("results/tables/olmpics/zero_shot.{ext}", ext=["csv", "md"]),
        table4=expand(
            "results/tables/olmpics/table4_{model}.{ext}",
            model=OLMPICS["models"],
            ext=["csv", "md"],
        ),
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


rule olmpics_generated:
    input:
        unpack(get_olmpics_generator_inputs),
    output:
        "results/datasets/olmpics/generated/{olmpics_task}.parquet",
    log:
        "logs/datasets/olmpics/generated/{olmpics_task}.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        seed=config["seed"],
        provenance=get_olmpics_generator_provenance,
    script:
        "../scripts/olmpics_generated.py"


# Sends SPARQL queries, so it runs where the network is (a localrule); answers are cached.
rule olmpics_encyclopedic:
    output:
        "results/datasets/olmpics/generated/encyclopedic_composition.parquet",
    log:
        "logs/datasets/olmpics/generated/encyclopedic_composition.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        seed=config["seed"],
        wikidata=LAMA["generated"]["wikidata_fresh"],
        provenance={"wikidata": LAMA["generated"]["wikidata_fresh"]["endpoint"]},
    script:
        "../scripts/olmpics_encyclopedic.py"


rule olmpics_controls:
    input:
        "results/datasets/olmpics/release.parquet",
    output:
        "results/datasets/olmpics/controls.parquet",
    log:
        "logs/datasets/olmpics/controls.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        seed=config["seed"],
    script:
        "../scripts/olmpics_controls.py"
