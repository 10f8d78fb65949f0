rule extract_source:
    input:
        get_archive,
    output:
        directory("resources/extracted/{source}"),
    log:
        "logs/sources/{source}.extract.log",
    conda:
        "../envs/lmprobes.yaml"
    script:
        "../scripts/extract_archive.py"


rule lama_dataset:
    input:
        release=f"resources/extracted/{LAMA['sources']['release']}",
        relations=get_lama_source("relations"),
        common_vocab=get_lama_source("common_vocab"),
    output:
        "results/datasets/lama/{corpus}.parquet",
    log:
        "logs/datasets/lama/{corpus}.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        provenance=get_lama_provenance,
    script:
        "../scripts/lama_dataset.py"


# One job per model: the model is loaded once and scores every corpus.
rule lama_score:
    input:
        datasets=expand(
            "results/datasets/lama/{corpus}.parquet", corpus=LAMA["corpora"]
        ),
        common_vocab=get_lama_source("common_vocab"),
        model=get_model_dir,
    output:
        expand("results/scores/lama/{{model}}/{corpus}.parquet", corpus=LAMA["corpora"]),
    log:
        "logs/scores/lama/{model}.log",
    benchmark:
        "benchmarks/scores/lama/{model}.tsv"
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
        top_k=LAMA["top_k"],
        causal_methods=LAMA["causal_methods"],
        policy=LAMA["candidate_policy"],
        device=config["device"],
        progress=config["progress"],
    script:
        "../scripts/lama_score.py"


rule lama_tables:
    input:
        datasets=expand(
            "results/datasets/lama/{corpus}.parquet", corpus=LAMA["corpora"]
        ),
        scores=get_lama_scores,
        published="resources/lama/published.csv",
        paper_examples="resources/lama/table3_paper.tsv",
    output:
        expand("results/tables/lama/{table}.{ext}", table=LAMA_TABLES, ext=["csv", "md"]),
        plot="results/plots/lama/precision_at_k.png",
    log:
        "logs/tables/lama.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        qualitative_model=LAMA["qualitative_model"],
        seed=config["seed"],
    script:
        "../scripts/lama_tables.py"
