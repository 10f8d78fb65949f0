from lmprobes.suites.olmpics.pipeline import make_generated
from lmprobes.workflow import provenance, rule_job, wikidata_settings

with rule_job(snakemake):
    make_generated(
        "encyclopedic_composition",
        {},
        snakemake.output[0],
        seed=snakemake.params.seed,
        provenance=provenance(snakemake),
        mirror=snakemake.config["mirror"],  # config, not params: switching it reruns nothing
        download=snakemake.config["download"],  # how to ask, not what: config, not params
        wikidata=wikidata_settings(snakemake, snakemake.params.wikidata),
    )
