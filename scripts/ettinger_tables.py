from pathlib import Path

from lmprobes.suites.ettinger.pipeline import make_tables
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    make_tables(
        snakemake.input.datasets,
        snakemake.input.scores,
        snakemake.input.published,
        snakemake.input.qualitative,
        Path(snakemake.output[0]).parent,
        snakemake.output.plot,
        models=snakemake.params.models,
        threshold=snakemake.params.threshold,
        unscorable=snakemake.params.unscorable,
        qualitative_model=snakemake.params.qualitative_model,
        stand_ins=snakemake.params.tiny_models,
    )
