# The reproduction report (issue 7): the run page, the paper-vs-reproduction verdicts and the per-model
# summary, all in the "Overview" category of `snakemake --report report.html`.
# Built after every suite output, so that every benchmark file of the run is there to be read.
rule report_landing:
    input:
        outputs=get_suite_outputs(),
        scores=get_report_scores,
    output:
        report(
            "results/report/run.html",
            caption="report/overview/run.rst",
            category="Overview",
            subcategory="Run",
            labels={"page": "run"},
        ),
    log:
        "logs/report/run.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["report_landing"],
        lock=LOCKFILE,
        benchmarks="benchmarks",
        configfiles=get_config_file_labels(),
        shown=get_run_page_settings(),
    script:
        "../scripts/report_landing.py"


rule report_verdicts:
    input:
        unpack(get_report_verdict_inputs),
    output:
        [
            report(
                f"results/report/verdicts/{suite}.{ext}",
                caption="report/overview/verdicts.rst",
                category="Overview",
                subcategory="Verdicts",
                labels={"suite": suite, "format": ext},
            )
            for suite in REPORT_SUITES
            for ext in ("csv", "md", "tex")
        ],
    log:
        "logs/report/verdicts.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["report_verdicts"],
        systems=config["report"]["systems"],
        tiny_models=REPORT_TINY_MODELS,
        resources="resources",
        tables="results/tables",
    script:
        "../scripts/report_verdicts.py"


rule report_models:
    input:
        unpack(get_report_model_inputs),
    output:
        [
            report(
                f"results/report/models.{ext}",
                caption="report/overview/models.rst",
                category="Overview",
                subcategory="Models",
                labels={"table": "models", "format": ext},
            )
            for ext in ("csv", "md", "tex")
        ],
        [
            report(
                f"results/report/leaderboard.{ext}",
                caption="report/overview/models.rst",
                category="Overview",
                subcategory="Models",
                labels={"table": "leaderboard", "format": ext},
            )
            for ext in ("csv", "md", "tex")
        ],
    log:
        "logs/report/models.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["report_models"],
        tables="results/tables",
        models=REPORT_MODELS,
        tiny_models=stand_ins_among(REPORT_MODELS),
        suites=REPORT_RUN_SUITES,
    script:
        "../scripts/report_models.py"
