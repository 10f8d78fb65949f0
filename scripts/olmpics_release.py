from lmprobes.suites.olmpics.pipeline import make_release
from lmprobes.workflow import logged

with logged(snakemake.log):
    make_release(
        list(snakemake.input),
        snakemake.params.manifest,
        snakemake.output[0],
        provenance=snakemake.params.provenance,
    )
