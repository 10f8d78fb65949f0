from lmprobes.suites.lama.pipeline import make_conceptnet_gen
from lmprobes.workflow import logged, provenance

with logged(snakemake.log):
    make_conceptnet_gen(
        snakemake.input.edges,
        snakemake.input.common_vocab,
        snakemake.output[0],
        seed=snakemake.params.seed,
        settings=snakemake.params.settings,
        provenance=provenance(snakemake),
    )
