from lmprobes.suites.olmpics.pipeline import make_single_hop
from lmprobes.workflow import provenance, rule_job, wikidata_settings

with rule_job(snakemake):
    make_single_hop(
        snakemake.input[0],
        snakemake.output[0],
        seed=snakemake.params.seed,
        wikidata=wikidata_settings(snakemake, snakemake.params.wikidata),
        provenance=provenance(snakemake),
        mirror=snakemake.config["mirror"],  # config, not params: switching it reruns nothing
        download=snakemake.config["download"],  # how to ask, not what: config, not params
    )
