import torch

from lmprobes.suites.ettinger.pipeline import score_datasets
from lmprobes.workflow import model_spec, rule_job

with rule_job(snakemake):
    torch.set_num_threads(snakemake.threads)
    score_datasets(
        snakemake.input.datasets,
        snakemake.input.model,
        snakemake.output,
        slug=snakemake.wildcards.model,
        spec=model_spec(snakemake),
        # None for masked models: both methods score them masked.
        method=snakemake.params.method or "masked",
        top_k=snakemake.params.top_k,
        # None for masked models (the setting is the causal ones'), which always exclude them.
        multi_piece_targets=snakemake.params.multi_piece_targets or "exclude",
        device=snakemake.params.device,
        progress=snakemake.config["progress"],
    )
