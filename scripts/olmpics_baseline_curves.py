import torch

from lmprobes.suites.olmpics.learning import baseline_curves_file
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    torch.set_num_threads(snakemake.threads)
    baseline_curves_file(
        snakemake.input.release,
        snakemake.input.controls,
        snakemake.input.glove,
        snakemake.output[0],
        task=snakemake.wildcards.curve_task,
        curves=snakemake.params.curves,
        seed=snakemake.params.seed,
        progress=snakemake.config["progress"],
    )
