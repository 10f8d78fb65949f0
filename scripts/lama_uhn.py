import torch

from lmprobes.suites.lama.pipeline import score_uhn_names
from lmprobes.workflow import model_spec, rule_job

with rule_job(snakemake):
    torch.set_num_threads(snakemake.threads)
    score_uhn_names(
        snakemake.input.dataset,
        {
            "cased": snakemake.input.get("common_vocab"),
            "lowercase": snakemake.input.get("common_vocab_lowercased") or None,
        },
        snakemake.input.model,
        snakemake.output[0],
        slug=snakemake.wildcards.model,
        spec=model_spec(snakemake),
        device=snakemake.params.device,
        vocabulary=snakemake.params.vocabulary,
        top_k=snakemake.params.top_k,
        progress=snakemake.config["progress"],
    )
