from pathlib import Path

from lmprobes.suites.lama.pipeline import make_tables
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    make_tables(
        snakemake.input.datasets,
        snakemake.input.scores,
        snakemake.input.published,
        snakemake.input.paper_examples,
        Path(snakemake.output[0]).parent,
        snakemake.output.plot,
        qualitative_model=snakemake.params.qualitative_model,
        seed=snakemake.params.seed,
        uhn_hits=snakemake.input.uhn_hits,
        stand_ins=snakemake.params.tiny_models,
        fact_set=snakemake.params.fact_set,
    )
