from lmprobes.suites.olmpics.pipeline import make_release
from lmprobes.workflow import logged, provenance

with logged(snakemake.log):
    make_release(
        list(snakemake.input),
        snakemake.params.manifest,
        snakemake.output[0],
        provenance=provenance(snakemake),
    )
