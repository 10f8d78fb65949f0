from lmprobes.suites.lama.pipeline import make_conceptnet_gen
from lmprobes.workflow import provenance, rule_job

with rule_job(snakemake):
    make_conceptnet_gen(
        snakemake.input.edges,
        snakemake.input.common_vocab,
        snakemake.output[0],
        seed=snakemake.params.seed,
        settings=snakemake.params.settings,
        provenance=provenance(snakemake),
    )
