import torch

from lmprobes.suites.olmpics.pipeline import score_model
from lmprobes.workflow import model_spec, rule_job

with rule_job(snakemake):
    torch.set_num_threads(snakemake.threads)
    score_model(
        snakemake.input.release,
        snakemake.input.grids,
        snakemake.input.model,
        {"zero_shot": snakemake.output.zero_shot, "grids": snakemake.output.grids},
        slug=snakemake.wildcards.model,
        spec=model_spec(snakemake),
        device=snakemake.params.device,
        settings=snakemake.params.settings,
        progress=snakemake.config["progress"],
    )
