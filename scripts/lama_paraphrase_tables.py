from pathlib import Path

from lmprobes.suites.lama.pipeline import make_paraphrase_tables
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    make_paraphrase_tables(snakemake.input.dataset, snakemake.input.scores, Path(snakemake.output[0]).parent,
                           a_an_filter=snakemake.params.a_an_filter)
