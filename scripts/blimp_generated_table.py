from pathlib import Path

from lmprobes.suites.blimp.pipeline import make_generated_table
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    make_generated_table(
        snakemake.input.release,
        snakemake.input.generated,
        Path(snakemake.output[0]).parent,
    )
