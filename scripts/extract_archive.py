from lmprobes.sources import extract_verified
from lmprobes.workflow import logged

with logged(snakemake.log):
    extract_verified(snakemake.input[0], snakemake.output[0], snakemake.params.source)
