from lmprobes.sources import fetch
from lmprobes.workflow import logged

with logged(snakemake.log) as log:
    download = snakemake.params.download
    for source, out in zip(snakemake.params.release, snakemake.output, strict=True):
        fetch(
            source["url"],
            out,
            source.get("sha256"),
            mirror=snakemake.params.mirror,
            lockfile=snakemake.params.lockfile,
            timeout=download["timeout"],
            retries=download["retries"],
            backoff=download["backoff"],
            log=log.warning,
        )
