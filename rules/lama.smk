rule extract_source:
    input:
        get_archive,
    output:
        directory("resources/extracted/{source}"),
    log:
        "logs/sources/{source}.extract.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        source=get_source,
    script:
        "../scripts/extract_archive.py"


rule conceptnet_edges:
    input:
        get_conceptnet_input,
    output:
        "results/sources/conceptnet/english_edges.parquet",
    log:
        "logs/sources/conceptnet_edges.log",
    benchmark:
        "benchmarks/sources/conceptnet_edges.tsv"
    conda:
        "../envs/lmprobes.yaml"
    resources:
        mem_mb=2000,
    params:
        revision=REVISIONS["conceptnet_edges"],
        from_conceptnet_lite=bool(CONCEPTNET_LITE_DB),
        provenance=get_conceptnet_provenance,
    script:
        "../scripts/conceptnet_edges.py"


rule lama_trex_raw:
    input:
        unpack(get_lama_generated_inputs("trex_raw")),
        trex=get_lama_generated_source("trex_raw"),
    output:
        dataset="results/datasets/lama/trex_raw.parquet",
        objects="results/datasets/lama/trex_raw_objects.parquet",
    log:
        "logs/datasets/lama/trex_raw.log",
    benchmark:
        "benchmarks/datasets/lama/trex_raw.tsv"
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["lama_trex_raw"],
        settings=get_lama_generated_settings("trex_raw"),
        seed=config["seed"],
        provenance=get_lama_generated_provenance("trex_raw"),
    script:
        "../scripts/lama_trex_raw.py"


rule lama_conceptnet_gen:
    input:
        unpack(get_lama_generated_inputs("conceptnet_gen")),
        edges="results/sources/conceptnet/english_edges.parquet",
    output:
        "results/datasets/lama/conceptnet_gen.parquet",
    log:
        "logs/datasets/lama/conceptnet_gen.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["lama_conceptnet_gen"],
        settings=get_lama_generated_settings("conceptnet_gen"),
        seed=config["seed"],
        provenance=get_lama_generated_provenance("conceptnet_gen"),
    script:
        "../scripts/lama_conceptnet_gen.py"


# Sends SPARQL queries, so it runs where the network is (a localrule); answers are cached. wdqs=1:
# the query service allows one request at a time, and the profiles let one such job run.
rule lama_wikidata_fresh:
    input:
        unpack(get_lama_generated_inputs("wikidata_fresh")),
    output:
        "results/datasets/lama/wikidata_fresh.parquet",
    log:
        "logs/datasets/lama/wikidata_fresh.log",
    conda:
        "../envs/lmprobes.yaml"
    resources:
        wdqs=1,
    params:
        revision=REVISIONS["lama_wikidata_fresh"],
        settings=WIKIDATA_ANSWERS,
        seed=config["seed"],
        provenance=get_lama_generated_provenance("wikidata_fresh"),
    script:
        "../scripts/lama_wikidata_fresh.py"


rule lama_dataset:
    input:
        unpack(get_lama_valid_objects),
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
        revision=REVISIONS["lama_dataset"],
        provenance=get_lama_provenance,
    script:
        "../scripts/lama_dataset.py"


# The release T-REx facts under LAMA's template and each ParaRel paraphrase of their relation.
rule lama_paraphrases:
    input:
        release=f"resources/extracted/{LAMA['sources']['release']}",
        relations=get_lama_source("relations"),
        common_vocab=get_lama_source("common_vocab"),
        pararel=f"resources/extracted/{LAMA['paraphrases']['source']}",
    output:
        f"results/datasets/lama/{LAMA_PARAPHRASE_CORPUS}.parquet",
    log:
        f"logs/datasets/lama/{LAMA_PARAPHRASE_CORPUS}.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["lama_paraphrases"],
        settings=get_lama_paraphrase_settings(),
        provenance=get_lama_paraphrase_provenance,
    script:
        "../scripts/lama_paraphrases.py"


# One job per model: the model is loaded once and scores every corpus.
rule lama_score:
    input:
        datasets=expand(
            "results/datasets/lama/{corpus}.parquet", corpus=LAMA["corpora"]
        ),
        common_vocab=get_lama_source("common_vocab"),
        common_vocab_lowercased=get_lama_lowercased_vocab,
        model=get_method_model_dir("lama"),
    output:
        expand("results/scores/lama/{{model}}/{corpus}.parquet", corpus=LAMA["corpora"]),
    log:
        "logs/scores/lama/{model}.log",
    benchmark:
        "benchmarks/scores/lama/{model}.tsv"
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
        revision=REVISIONS["lama_score"],
        spec=get_model_spec,
        top_k=LAMA["top_k"],
        causal_methods=get_for_family("causal", LAMA["causal_methods"]),
        policy=get_for_family("causal", LAMA_CANDIDATE_POLICY),
        case=LAMA["case"],
        tokenization=LAMA["tokenization"],
        device=config["device"],
    script:
        "../scripts/lama_score.py"


# LAMA-UHN's person-name filter: a masked model's top answers to "<name part> is a common name in
# the following city/country/language: [MASK]." for the subjects of one corpus.
rule lama_uhn:
    input:
        unpack(get_lama_uhn_common_vocabs),
        dataset="results/datasets/lama/{uhn_corpus}.parquet",
        model=get_model_dir,
    output:
        "results/datasets/lama/uhn/{model}/{uhn_corpus}.parquet",
    log:
        "logs/datasets/lama/uhn/{model}/{uhn_corpus}.log",
    benchmark:
        "benchmarks/datasets/lama/uhn/{model}/{uhn_corpus}.tsv"
    retries: 1
    conda:
        "../envs/lmprobes.yaml"
    threads: get_model_threads
    resources:
        gpu=1,
        mem_mb=get_scoring_mem_mb,
        batch_tokens=get_model_batch_tokens,
        runtime=get_runtime(30),
    params:
        revision=REVISIONS["lama_uhn"],
        spec=get_model_spec,
        top_k=LAMA["uhn"]["top_k"],
        vocabulary=LAMA["uhn"]["vocabulary"],
        device=config["device"],
    script:
        "../scripts/lama_uhn.py"


rule lama_tables:
    input:
        datasets=expand(
            "results/datasets/lama/{corpus}.parquet", corpus=LAMA_TABLE_CORPORA
        ),
        scores=get_lama_table_scores,
        uhn_hits=get_lama_uhn_hits,
        published="resources/lama/published.csv",
        paper_examples="resources/lama/table3_paper.tsv",
    output:
        [
            report(
                f"results/tables/lama/{table}.{ext}",
                caption=f"report/lama/{table}.rst",
                category="LAMA",
                subcategory="Tables",
                labels={"table": table, "format": ext},
            )
            for table in LAMA_TABLES
            for ext in ("csv", "md", "tex")
        ],
        plot=report(
            "results/plots/lama/precision_at_k.png",
            caption="report/lama/precision_at_k.rst",
            category="LAMA",
            subcategory="Figures",
            labels={"figure": "Figure 2 (P@k)"},
        ),
    log:
        "logs/tables/lama.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["lama_tables"],
        tiny_models=REPORT_TINY_BY_TABLES["lama"],
        qualitative_model=LAMA["qualitative_model"],
        seed=config["seed"],
        fact_set=LAMA["fact_set"],
    script:
        "../scripts/lama_tables.py"


rule lama_paraphrase_tables:
    input:
        dataset=f"results/datasets/lama/{LAMA_PARAPHRASE_CORPUS}.parquet",
        scores=get_lama_paraphrase_scores,
    output:
        [
            report(
                f"results/tables/lama/paraphrases.{ext}",
                caption="report/lama/paraphrases.rst",
                category="LAMA",
                subcategory="Tables",
                labels={"table": "paraphrases", "format": ext},
            )
            for ext in ("csv", "md", "tex")
        ],
    log:
        "logs/tables/lama_paraphrases.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["lama_paraphrase_tables"],
        tiny_models=REPORT_TINY_BY_TABLES["lama"],
        a_an_filter=LAMA["paraphrases"]["a_an_filter"],
    script:
        "../scripts/lama_paraphrase_tables.py"
