from lmprobes.suites.lama.pipeline import make_dataset
from lmprobes.workflow import provenance, rule_job

with rule_job(snakemake):
    make_dataset(
        snakemake.wildcards.corpus,
        snakemake.input.release,
        snakemake.input.relations,
        snakemake.input.common_vocab,
        snakemake.output[0],
        provenance=provenance(snakemake),
        valid_objects=snakemake.input.get("valid_objects"),
    )
