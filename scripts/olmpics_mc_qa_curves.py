from lmprobes.suites.olmpics.seed_curves import merge_seed_curves
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    merge_seed_curves(snakemake.input, snakemake.output[0])
