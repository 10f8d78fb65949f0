from lmprobes.suites.lama.pipeline import make_conceptnet_edges
from lmprobes.workflow import provenance, rule_job

with rule_job(snakemake):
    make_conceptnet_edges(
        snakemake.input[0],
        snakemake.output[0],
        from_conceptnet_lite=snakemake.params.from_conceptnet_lite,
        provenance=provenance(snakemake),
    )
