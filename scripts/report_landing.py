from lmprobes.report.landing import write_landing_page
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    write_landing_page(
        snakemake.output[0],
        snakemake.config,
        snakemake.params.lock,
        snakemake.params.benchmarks,
        scores=snakemake.input.scores,
        configfiles=snakemake.params.configfiles,
    )
