from lmprobes.suites.olmpics.pipeline import make_figure3
from lmprobes.workflow import logged

with logged(snakemake.log):
    make_figure3(snakemake.output[0])
