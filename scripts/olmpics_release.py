from lmprobes.suites.olmpics.pipeline import make_release
from lmprobes.workflow import provenance, rule_job

with rule_job(snakemake):
    make_release(
        list(snakemake.input),
        snakemake.params.manifest,
        snakemake.output[0],
        provenance=provenance(snakemake),
    )
