from lmprobes.suites.olmpics.pipeline import make_grids
from lmprobes.workflow import logged

with logged(snakemake.log):
    make_grids(snakemake.output[0])
