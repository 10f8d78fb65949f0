from lmprobes.suites.olmpics.pipeline import make_grids
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    make_grids(snakemake.output[0])
