from lmprobes.sources import fetch_configured
from lmprobes.workflow import logged

with logged(snakemake.log) as log:
    for source, out in zip(snakemake.params.release, snakemake.output, strict=True):
        fetch_configured(
            source,
            out,
            mirror=snakemake.params.mirror,
            lockfile=snakemake.params.lockfile,
            download=snakemake.params.download,
            log=log.warning,
        )
