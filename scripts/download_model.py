from lmprobes.models import download_configured
from lmprobes.workflow import logged

with logged(snakemake.log):
    download_configured(snakemake.params.spec, snakemake.output[0])
