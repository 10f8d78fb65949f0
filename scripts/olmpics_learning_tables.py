from lmprobes.suites.olmpics.learning_report import make_learning_tables
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    make_learning_tables(
        snakemake.input.curves,
        snakemake.input.zero_shot,
        snakemake.input.published,
        snakemake.output.tables,
        snakemake.output.figures,
        tasks=snakemake.params.tasks,
        comparison_figures=snakemake.output.comparison_figures,
        comparison_tasks=snakemake.params.comparison_tasks,
        stand_ins=snakemake.params.tiny_models,
        models=snakemake.params.models,
    )
