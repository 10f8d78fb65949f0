from lmprobes.suites.blimp.pipeline import make_dataset
from lmprobes.workflow import logged

with logged(snakemake.log):
    make_dataset(list(snakemake.input), snakemake.output[0], provenance=snakemake.params.provenance)
