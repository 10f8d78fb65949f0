from lmprobes.suites.olmpics.pipeline import make_controls
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    make_controls(snakemake.input[0], snakemake.output[0], seed=snakemake.params.seed)
