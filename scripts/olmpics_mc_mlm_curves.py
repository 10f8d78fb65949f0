import torch

from lmprobes.suites.olmpics.learning import mc_mlm_curves_file
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    torch.set_num_threads(snakemake.threads)
    mc_mlm_curves_file(
        snakemake.input.hidden,
        snakemake.input.head,
        snakemake.output[0],
        model=snakemake.wildcards.model,
        curves=snakemake.params.curves,
        progress=snakemake.config["progress"],
    )
