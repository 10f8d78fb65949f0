import torch

from lmprobes.suites.olmpics.learning import single_hop_stage_file
from lmprobes.workflow import model_spec, rule_job

with rule_job(snakemake):
    torch.set_num_threads(snakemake.threads)
    single_hop_stage_file(
        snakemake.input.single_hop,
        snakemake.input.model,
        snakemake.output[0],
        slug=snakemake.wildcards.model,
        spec=model_spec(snakemake),
        seed=int(snakemake.wildcards.seed),
        curves=snakemake.params.curves,
        device=snakemake.params.device,
        progress=snakemake.config["progress"],
    )
