from lmprobes.suites.lama.pipeline import make_wikidata_fresh
from lmprobes.workflow import provenance, rule_job, wikidata_settings

with rule_job(snakemake):
    make_wikidata_fresh(
        snakemake.input.relations,
        snakemake.input.common_vocab,
        snakemake.output[0],
        seed=snakemake.params.seed,
        settings=wikidata_settings(snakemake, snakemake.params.settings),
        download=snakemake.config["download"],
        provenance=provenance(snakemake),
        mirror=snakemake.config["mirror"],  # config, not params: switching it reruns nothing
    )
