from lmprobes.suites.blimp.pipeline import make_dataset
from lmprobes.workflow import logged, provenance

with logged(snakemake.log):
    make_dataset(list(snakemake.input), snakemake.output[0], provenance=provenance(snakemake))
