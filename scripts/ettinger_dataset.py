from lmprobes.suites.ettinger.pipeline import make_dataset
from lmprobes.workflow import provenance, rule_job

with rule_job(snakemake):
    make_dataset(
        snakemake.wildcards.dataset,
        snakemake.input[0],
        snakemake.output[0],
        shuffles=snakemake.params.shuffles,
        seed=snakemake.params.seed,
        provenance=provenance(snakemake),
    )
