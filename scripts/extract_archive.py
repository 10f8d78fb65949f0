from lmprobes.sources import extract_verified
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    extract_verified(snakemake.input[0], snakemake.output[0], snakemake.params.source)
