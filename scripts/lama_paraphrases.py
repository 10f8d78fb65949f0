from lmprobes.suites.lama.pipeline import make_paraphrases
from lmprobes.workflow import provenance, rule_job

with rule_job(snakemake):
    make_paraphrases(
        snakemake.input.release,
        snakemake.input.relations,
        snakemake.input.common_vocab,
        snakemake.input.pararel,
        snakemake.output[0],
        settings=snakemake.params.settings,
        provenance=provenance(snakemake),
    )
