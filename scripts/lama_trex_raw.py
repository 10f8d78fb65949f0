from lmprobes.suites.lama.pipeline import make_trex_raw
from lmprobes.workflow import provenance, rule_job

with rule_job(snakemake):
    make_trex_raw(
        snakemake.input.trex,
        snakemake.input.relations,
        snakemake.input.common_vocab,
        snakemake.output.dataset,
        snakemake.output.objects,
        seed=snakemake.params.seed,
        settings=snakemake.params.settings,
        provenance=provenance(snakemake),
    )
