import torch

from lmprobes.suites.lama.pipeline import score_datasets
from lmprobes.workflow import model_spec, rule_job

with rule_job(snakemake):
    torch.set_num_threads(snakemake.threads)
    score_datasets(
        snakemake.input.datasets,
        {"cased": snakemake.input.common_vocab, "lowercase": snakemake.input.common_vocab_lowercased or None},
        snakemake.input.model,
        snakemake.output,
        slug=snakemake.wildcards.model,
        spec=model_spec(snakemake),
        device=snakemake.params.device,
        top_k=snakemake.params.top_k,
        causal_methods=snakemake.params.causal_methods,
        policy=snakemake.params.policy,
        case=snakemake.params.case,
        tokenization=snakemake.params.tokenization,
        progress=snakemake.config["progress"],
    )
