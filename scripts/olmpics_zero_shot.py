import torch

from lmprobes.suites.olmpics.pipeline import score_model
from lmprobes.workflow import logged

with logged(snakemake.log):
    torch.set_num_threads(snakemake.threads)
    score_model(
        snakemake.input.release,
        snakemake.input.figure3,
        snakemake.input.model,
        {"zero_shot": snakemake.output.zero_shot, "figure3": snakemake.output.figure3},
        slug=snakemake.wildcards.model,
        spec=snakemake.params.spec,
        device=snakemake.params.device,
        settings=snakemake.params.settings,
        progress=snakemake.params.progress,
    )
