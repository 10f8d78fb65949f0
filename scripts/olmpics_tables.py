from pathlib import Path

from lmprobes.suites.olmpics.pipeline import make_tables
from lmprobes.workflow import logged

with logged(snakemake.log):
    make_tables(
        snakemake.input.figure3,
        snakemake.input.zero_shot,
        snakemake.input.figure3_scores,
        snakemake.input.published,
        Path(snakemake.output.table[0]).parent,
        snakemake.output.figures,
        snakemake.params.models,
    )
