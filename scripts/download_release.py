from lmprobes.sources import fetch_configured
from lmprobes.workflow import rule_job

# mirror and download settings come from the config, not params: changing them refetches nothing.
with rule_job(snakemake) as log:
    for source, out in zip(snakemake.params.release, snakemake.output, strict=True):
        fetch_configured(
            source,
            out,
            mirror=snakemake.config["mirror"],
            lockfile=snakemake.params.lockfile,
            download=snakemake.config["download"],
            log=log.warning,
            pinned_by=snakemake.params.pinned_by,
        )
