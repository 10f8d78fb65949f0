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
        pinned_by=OLMPICS["release"]["manifest"],
        lockfile=LOCKFILE,
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
        revision=REVISIONS["olmpics_release"],
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
    params:
        revision=REVISIONS["olmpics_grids"],
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
    threads: get_model_threads
    resources:
        gpu=1,
        mem_mb=get_scoring_mem_mb,
        batch_tokens=get_model_batch_tokens,
        runtime=get_runtime(120),
    params:
        revision=REVISIONS["olmpics_zero_shot"],
        spec=get_model_spec,
        settings=get_olmpics_zero_shot_settings,
        device=config["device"],
    script:
        "../scripts/olmpics_zero_shot.py"


# The generated MC-MLM tasks' dev items, scored as the release's (a job of their own: the release's
# scores need none of the generators' sources).
rule olmpics_zero_shot_generated:
    input:
        generated=get_olmpics_scored_generated,
        model=get_model_dir,
    output:
        "results/scores/olmpics/{model}/generated.parquet",
    log:
        "logs/scores/olmpics/{model}.generated.log",
    benchmark:
        "benchmarks/scores/olmpics/{model}.generated.tsv"
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
        revision=REVISIONS["olmpics_zero_shot_generated"],
        spec=get_model_spec,
        settings=get_olmpics_generated_zero_shot_settings,
        device=config["device"],
    script:
        "../scripts/olmpics_zero_shot_generated.py"


rule olmpics_tables:
    input:
        grids="results/datasets/olmpics/grids.parquet",
        zero_shot=get_olmpics_zero_shot_scores,
        grid_scores=get_olmpics_scores("grids"),
        published="resources/olmpics/published.csv",
        paper_table4="resources/olmpics/table4_paper.csv",
    output:
        table=[
            report(
                f"results/tables/olmpics/zero_shot.{ext}",
                caption="report/olmpics/zero_shot.rst",
                category="oLMpics",
                subcategory="Zero-shot",
                labels={"table": "zero_shot", "format": ext},
            )
            for ext in ("csv", "md", "tex")
        ],
        table4=[
            report(
                f"results/tables/olmpics/table4_{model}.{ext}",
                caption="report/olmpics/table4.rst",
                category="oLMpics",
                subcategory="Table 4 (objects grid)",
                labels={"model": model, "format": ext},
            )
            for model in OLMPICS["models"]
            for ext in ("csv", "md", "tex")
        ],
        figures=[
            report(
                f"results/plots/olmpics/figure3_{model}.png",
                caption="report/olmpics/figure3.rst",
                category="oLMpics",
                subcategory="Figure 3 (age grids)",
                labels={"model": model},
            )
            for model in OLMPICS["models"]
        ],
    log:
        "logs/tables/olmpics.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["olmpics_tables"],
        tiny_models=REPORT_TINY_BY_TABLES["olmpics"],
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
        revision=REVISIONS["olmpics_generated"],
        seed=get_olmpics_generator_seed,
        provenance=get_olmpics_generator_provenance,
        settings=get_olmpics_generator_settings,
    script:
        "../scripts/olmpics_generated.py"


# Sends SPARQL queries, so it runs where the network is (a localrule); answers are cached. wdqs=1:
# the query service allows one request at a time, and the profiles let one such job run.
rule olmpics_encyclopedic:
    output:
        "results/datasets/olmpics/generated/encyclopedic_composition.parquet",
    log:
        "logs/datasets/olmpics/generated/encyclopedic_composition.log",
    conda:
        "../envs/lmprobes.yaml"
    resources:
        wdqs=1,
    params:
        revision=REVISIONS["olmpics_encyclopedic"],
        seed=config["seed"],
        wikidata=WIKIDATA_ENDPOINT,
        provenance={"wikidata": LAMA["generated"]["wikidata_fresh"]["endpoint"]},
    script:
        "../scripts/olmpics_encyclopedic.py"


# Sends SPARQL queries, so it runs where the network is (a localrule); answers are cached. wdqs=1:
# the query service allows one request at a time, and the profiles let one such job run.
rule olmpics_single_hop:
    input:
        "results/datasets/olmpics/release.parquet",
    output:
        "results/datasets/olmpics/single_hop.parquet",
    log:
        "logs/datasets/olmpics/single_hop.log",
    conda:
        "../envs/lmprobes.yaml"
    resources:
        wdqs=1,
    params:
        revision=REVISIONS["olmpics_single_hop"],
        seed=config["seed"],
        wikidata=WIKIDATA_ENDPOINT,
        provenance={"wikidata": LAMA["generated"]["wikidata_fresh"]["endpoint"]},
    script:
        "../scripts/olmpics_single_hop.py"


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
        revision=REVISIONS["olmpics_controls"],
        seed=config["seed"],
    script:
        "../scripts/olmpics_controls.py"


# --- learning curves (paper Sections 3.2-3.3) ---------------------------------------------------


# One job per model: the encoder runs once over every (task, split, variant) of the MC-MLM tasks and
# the mask hidden states are cached with the MLM head's weights; every head is then trained from them.
rule olmpics_encode:
    input:
        release="results/datasets/olmpics/release.parquet",
        controls="results/datasets/olmpics/controls.parquet",
        model=get_masked_model_dir,
    output:
        hidden=expand(
            "results/cache/olmpics/{{model}}/hidden/{task}.{variant}.parquet",
            task=CURVES_MLM_TASKS,
            variant=CURVES["variants"],
        ),
        head="results/cache/olmpics/{model}/head.safetensors",
    log:
        "logs/cache/olmpics/{model}.log",
    benchmark:
        "benchmarks/cache/olmpics/{model}.tsv"
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
        revision=REVISIONS["olmpics_encode"],
        spec=get_model_spec,
        tasks=CURVES_MLM_TASKS,
        variants=CURVES["variants"],
        mask_encoding=OLMPICS["mask_encoding"],
        device=config["device"],
    script:
        "../scripts/olmpics_encode.py"


# The MLP_MLM and LINEAR curves of one (model, task): every N, seed and variant, from the cache.
rule olmpics_mc_mlm_curves:
    input:
        hidden=get_olmpics_task_hidden,
        head="results/cache/olmpics/{model}/head.safetensors",
    output:
        "results/curves/olmpics/{model}/{mlm_task}.parquet",
    log:
        "logs/curves/olmpics/{model}/{mlm_task}.log",
    benchmark:
        "benchmarks/curves/olmpics/{model}/{mlm_task}.tsv"
    conda:
        "../envs/lmprobes.yaml"
    threads: get_model_threads
    resources:
        mem_mb=4000,
        runtime=get_runtime(120),
    params:
        revision=REVISIONS["olmpics_mc_mlm_curves"],
        curves=MC_MLM_CURVE_SETTINGS,
    script:
        "../scripts/olmpics_mc_mlm_curves.py"


# Encyclopedic composition's first stage: one seed's fine-tuning on the single-hop facts, which that
# seed's runs in every variant start from. Temporary: a large model's copy is gigabytes.
rule olmpics_single_hop_stage:
    input:
        single_hop="results/datasets/olmpics/single_hop.parquet",
        model=get_masked_model_dir,
    output:
        temp("results/cache/olmpics/{model}/single_hop/seed{seed}.safetensors"),
    log:
        "logs/cache/olmpics/{model}/single_hop/seed{seed}.log",
    benchmark:
        "benchmarks/cache/olmpics/{model}/single_hop/seed{seed}.tsv"
    retries: 2
    conda:
        "../envs/lmprobes.yaml"
    threads: get_model_threads
    resources:
        gpu=1,
        mem_mb=get_finetuning_mem_mb,
        batch_tokens=get_model_batch_tokens,
        runtime=get_runtime(240),
    params:
        revision=REVISIONS["olmpics_single_hop_stage"],
        spec=get_finetuning_spec,
        curves=STAGE_ONE_SETTINGS,
        device=config["device"],
    script:
        "../scripts/olmpics_single_hop_stage.py"


# MC-QA fine-tunes the whole network for every N: one GPU job per (model, task, variant, seed), on the
# MC-QA tasks and, standard variant only, on the MC-MLM tasks of mc_qa_comparison.
rule olmpics_mc_qa_seed:
    input:
        release="results/datasets/olmpics/release.parquet",
        controls="results/datasets/olmpics/controls.parquet",
        stage_one=get_olmpics_single_hop_stage,
        model=get_masked_model_dir,
    output:
        "results/curves/olmpics/{model}/seeds/{qa_task}.{variant}.seed{seed}.parquet",
    log:
        "logs/curves/olmpics/{model}/seeds/{qa_task}.{variant}.seed{seed}.log",
    benchmark:
        "benchmarks/curves/olmpics/{model}/seeds/{qa_task}.{variant}.seed{seed}.tsv"
    retries: 2
    conda:
        "../envs/lmprobes.yaml"
    threads: get_model_threads
    resources:
        gpu=1,
        mem_mb=get_finetuning_mem_mb,
        batch_tokens=get_model_batch_tokens,
        runtime=get_runtime(240),
    params:
        revision=REVISIONS["olmpics_mc_qa_seed"],
        spec=get_finetuning_spec,
        curves=get_olmpics_mc_qa_seed_settings,
        device=config["device"],
    script:
        "../scripts/olmpics_mc_qa_seed.py"


# A (model, task, variant)'s curve file: its seeds' runs, merged.
rule olmpics_mc_qa_curves:
    input:
        get_olmpics_mc_qa_seeds,
    output:
        "results/curves/olmpics/{model}/{qa_task}.{variant}.parquet",
    log:
        "logs/curves/olmpics/{model}/{qa_task}.{variant}.merge.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["olmpics_mc_qa_curves"],
    script:
        "../scripts/olmpics_mc_qa_curves.py"


# The non-pretrained baselines over GloVe: MLM-BASELINE (MC-MLM tasks) or ESIM (MC-QA tasks).
rule olmpics_baseline_curves:
    input:
        release="results/datasets/olmpics/release.parquet",
        controls="results/datasets/olmpics/controls.parquet",
        glove=get_olmpics_glove,
    output:
        "results/curves/olmpics/baselines/{curve_task}.parquet",
    log:
        "logs/curves/olmpics/baselines/{curve_task}.log",
    benchmark:
        "benchmarks/curves/olmpics/baselines/{curve_task}.tsv"
    conda:
        "../envs/lmprobes.yaml"
    threads: 2
    resources:
        mem_mb=4000,
        runtime=get_runtime(240),
    params:
        revision=REVISIONS["olmpics_baseline_curves"],
        curves=get_baseline_curve_settings,
        seed=config["seed"],
    script:
        "../scripts/olmpics_baseline_curves.py"


rule olmpics_learning_tables:
    input:
        curves=get_olmpics_curves,
        zero_shot=get_olmpics_scores("zero_shot"),
        published="resources/olmpics/published.csv",
    output:
        tables=[
            report(
                f"results/tables/olmpics/{table}.{ext}",
                caption=f"report/olmpics/{table}.rst",
                category="oLMpics",
                subcategory="Learning curves",
                labels={"table": table, "format": ext},
            )
            for table in (
                "learning_curves",
                "learning_curves_comparison",
                "table12_medals",
            )
            for ext in ("csv", "md", "tex")
        ],
        figures=[
            report(
                f"results/plots/olmpics/learning_curves_{task}.png",
                caption="report/olmpics/learning_curves_figure.rst",
                category="oLMpics",
                subcategory="Learning-curve figures",
                labels={"task": task},
            )
            for task in CURVES["tasks"]
        ],
        comparison_figures=[
            report(
                f"results/plots/olmpics/mc_mlm_vs_mc_qa_{task}.png",
                caption="report/olmpics/mc_mlm_vs_mc_qa_figure.rst",
                category="oLMpics",
                subcategory="MC-MLM vs MC-QA (Figure 2D)",
                labels={"task": task},
            )
            for task in CURVES_QA_COMPARISON
        ],
    log:
        "logs/tables/olmpics_learning.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["olmpics_learning_tables"],
        tiny_models=REPORT_TINY_BY_TABLES["olmpics_learning"],
        models=CURVES["models"],
        tasks=CURVES["tasks"],
        comparison_tasks=CURVES_QA_COMPARISON,
    script:
        "../scripts/olmpics_learning_tables.py"
