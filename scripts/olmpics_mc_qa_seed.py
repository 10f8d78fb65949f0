import torch

from lmprobes.suites.olmpics.learning import mc_qa_seed_file
from lmprobes.workflow import model_spec, rule_job

with rule_job(snakemake):
    torch.set_num_threads(snakemake.threads)
    mc_qa_seed_file(
        snakemake.input.release,
        snakemake.input.controls,
        snakemake.input.model,
        snakemake.output[0],
        slug=snakemake.wildcards.model,
        spec=model_spec(snakemake),
        task=snakemake.wildcards.qa_task,
        variant=snakemake.wildcards.variant,
        seed=int(snakemake.wildcards.seed),
        curves=snakemake.params.curves,
        device=snakemake.params.device,
        progress=snakemake.config["progress"],
        stage_one=snakemake.input.stage_one or None,
    )
