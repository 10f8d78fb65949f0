from lmprobes.sources import fetch_configured
from lmprobes.workflow import logged

with logged(snakemake.log) as log:
    fetch_configured(
        snakemake.params.source,
        snakemake.output[0],
        mirror=snakemake.params.mirror,
        lockfile=snakemake.params.lockfile,
        download=snakemake.params.download,
        log=log.warning,
    )
