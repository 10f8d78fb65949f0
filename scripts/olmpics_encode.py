import torch

from lmprobes.suites.olmpics.learning import encode_model
from lmprobes.workflow import model_spec, rule_job

with rule_job(snakemake):
    torch.set_num_threads(snakemake.threads)
    encode_model(
        snakemake.input.release,
        snakemake.input.controls,
        snakemake.input.model,
        snakemake.output.hidden,
        snakemake.output.head,
        slug=snakemake.wildcards.model,
        spec=model_spec(snakemake),
        tasks=snakemake.params.tasks,
        variants=snakemake.params.variants,
        mask_encoding=snakemake.params.mask_encoding,
        device=snakemake.params.device,
        progress=snakemake.config["progress"],
    )
