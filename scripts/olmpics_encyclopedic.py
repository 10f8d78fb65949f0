from lmprobes.suites.olmpics.pipeline import make_generated
from lmprobes.workflow import logged, provenance

with logged(snakemake.log):
    make_generated(
        "encyclopedic_composition",
        {},
        snakemake.output[0],
        seed=snakemake.params.seed,
        provenance=provenance(snakemake),
        wikidata=snakemake.params.wikidata,
    )
