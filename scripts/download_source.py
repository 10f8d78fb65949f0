from lmprobes.sources import fetch
from lmprobes.workflow import logged

with logged(snakemake.log) as log:
    source, download = snakemake.params.source, snakemake.params.download
    fetch(
        source["url"],
        snakemake.output[0],
        source.get("sha256"),
        mirror=snakemake.params.mirror,
        lockfile=snakemake.params.lockfile,
        timeout=download["timeout"],
        retries=download["retries"],
        backoff=download["backoff"],
        log=log.warning,
    )
