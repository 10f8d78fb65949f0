from lmprobes.suites.olmpics.pipeline import make_generated
from lmprobes.workflow import provenance, rule_job

with rule_job(snakemake):
    make_generated(
        snakemake.wildcards.olmpics_task,
        dict(snakemake.input.items()),
        snakemake.output[0],
        seed=snakemake.params.seed,
        provenance=provenance(snakemake),
        **snakemake.params.settings,
    )
