from lmprobes.suites.lama.pipeline import make_conceptnet_edges
from lmprobes.workflow import logged, provenance

with logged(snakemake.log):
    make_conceptnet_edges(
        snakemake.input[0],
        snakemake.output[0],
        from_conceptnet_lite=snakemake.params.from_conceptnet_lite,
        provenance=provenance(snakemake),
    )
