from lmprobes.sources import safe_extract
from lmprobes.workflow import logged

with logged(snakemake.log):
    safe_extract(snakemake.input[0], snakemake.output[0])
