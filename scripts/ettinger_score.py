import torch

from lmprobes.suites.ettinger.pipeline import score_dataset
from lmprobes.workflow import logged

with logged(snakemake.log):
    torch.set_num_threads(snakemake.threads)
    score_dataset(
        snakemake.input.dataset,
        snakemake.input.model,
        snakemake.output[0],
        slug=snakemake.wildcards.model,
        spec=snakemake.params.spec,
        method=snakemake.params.method,
        top_k=snakemake.params.top_k,
        device=snakemake.params.device,
        progress=snakemake.params.progress,
    )
