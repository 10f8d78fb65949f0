from lmprobes.suites.olmpics.seed_curves import merge_seed_curves
from lmprobes.workflow import logged

with logged(snakemake.log):
    merge_seed_curves(snakemake.input, snakemake.output[0])
