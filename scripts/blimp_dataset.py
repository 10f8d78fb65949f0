from lmprobes.suites.blimp.pipeline import make_dataset
from lmprobes.workflow import provenance, rule_job

with rule_job(snakemake):
    make_dataset(list(snakemake.input), snakemake.output[0], provenance=provenance(snakemake))
