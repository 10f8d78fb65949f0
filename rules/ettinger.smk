rule ettinger_dataset:
    input:
        get_ettinger_source,
    output:
        "results/datasets/ettinger/{dataset}.parquet",
    log:
        "logs/datasets/ettinger/{dataset}.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["ettinger_dataset"],
        shuffles=get_cprag_only(ETTINGER["shuffles"]),
        seed=get_cprag_only(config["seed"]),
        provenance=get_ettinger_provenance,
    script:
        "../scripts/ettinger_dataset.py"


# One job per model: the model is loaded once and scores every dataset.
rule ettinger_score:
    input:
        datasets=expand(
            "results/datasets/ettinger/{dataset}.parquet", dataset=ETTINGER_DATASETS
        ),
        model=get_method_model_dir("ettinger"),
    output:
        expand(
            "results/scores/ettinger/{{model}}/{dataset}.parquet",
            dataset=ETTINGER_DATASETS,
        ),
    log:
        "logs/scores/ettinger/{model}.log",
    benchmark:
        "benchmarks/scores/ettinger/{model}.tsv"
    retries: 1
    conda:
        "../envs/lmprobes.yaml"
    threads: get_model_threads
    resources:
        gpu=1,
        mem_mb=get_scoring_mem_mb,
        batch_tokens=get_model_batch_tokens,
        runtime=get_runtime(60),
    params:
        revision=REVISIONS["ettinger_score"],
        spec=get_model_spec,
        method=get_for_family("causal", ETTINGER["method"]),
        top_k=ETTINGER["top_k"],
        multi_piece_targets=get_for_family("causal", ETTINGER["multi_piece_targets"]),
        device=config["device"],
    script:
        "../scripts/ettinger_score.py"


rule ettinger_tables:
    input:
        datasets=expand(
            "results/datasets/ettinger/{dataset}.parquet", dataset=ETTINGER_DATASETS
        ),
        scores=get_ettinger_scores,
        published="resources/ettinger/published.csv",
        qualitative="resources/ettinger/qualitative.csv",
    output:
        [
            report(
                f"results/tables/ettinger/{table}.{ext}",
                caption=f"report/ettinger/{table}.rst",
                category="Ettinger",
                subcategory=(
                    "Accuracy tables" if table in QUANTITATIVE else "Top-5 predictions"
                ),
                labels={"table": table, "format": ext},
            )
            for table in ETTINGER_TABLES
            for ext in ("csv", "md", "tex")
        ],
        plot=report(
            "results/plots/ettinger/accuracy.png",
            caption="report/ettinger/accuracy.rst",
            category="Ettinger",
            subcategory="Figures",
            labels={"figure": "accuracy"},
        ),
    log:
        "logs/tables/ettinger.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["ettinger_tables"],
        tiny_models=REPORT_TINY_BY_TABLES["ettinger"],
        models=ETTINGER["models"],
        threshold=ETTINGER["threshold"],
        unscorable=ETTINGER["unscorable"],
        qualitative_model=ETTINGER["qualitative_model"],
    script:
        "../scripts/ettinger_tables.py"
