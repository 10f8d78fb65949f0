from pathlib import Path

from lmprobes.suites.blimp.pipeline import FIGURES, make_tables
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    make_tables(
        snakemake.input.dataset,
        snakemake.input.scores,
        snakemake.input.published,
        snakemake.input.published_paradigms,
        Path(snakemake.output[0]).parent,
        dict(zip(FIGURES, snakemake.output.figures, strict=True)),
        stand_ins=snakemake.params.tiny_models,
    )
