from lmprobes.suites.blimp.pipeline import make_generated_dataset
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    make_generated_dataset(
        list(snakemake.input.pairs),
        snakemake.input.lexicon,
        snakemake.output[0],
        settings=snakemake.params.settings,
    )
