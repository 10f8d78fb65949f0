from lmprobes.sources import fetch_configured
from lmprobes.workflow import rule_job

# mirror and download settings come from the config, not params: changing them refetches nothing.
with rule_job(snakemake) as log:
    fetch_configured(
        snakemake.params.source,
        snakemake.output[0],
        mirror=snakemake.config["mirror"],
        lockfile=snakemake.params.lockfile,
        download=snakemake.config["download"],
        log=log.warning,
        pinned_by=f"sources.{snakemake.wildcards.source}",
    )
