from pathlib import Path

from lmprobes.suites.olmpics.pipeline import make_tables
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    make_tables(
        snakemake.input.grids,
        snakemake.input.zero_shot,
        snakemake.input.grid_scores,
        snakemake.input.published,
        snakemake.input.paper_table4,
        Path(snakemake.output.table[0]).parent,
        snakemake.output.figures,
        snakemake.params.models,
        stand_ins=snakemake.params.tiny_models,
    )
