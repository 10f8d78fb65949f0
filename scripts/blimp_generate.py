from lmprobes.suites.blimp.generator.pipeline import make_generated
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    make_generated(
        snakemake.wildcards.uid,
        snakemake.output[0],
        lexicon=snakemake.input.lexicon,
        release=list(snakemake.input.release),
        **snakemake.params.settings,
    )
