from lmprobes.models import download_configured
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    download_configured(snakemake.params.spec, snakemake.output[0])
