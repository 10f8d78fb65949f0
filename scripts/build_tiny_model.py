from lmprobes.tiny import TinySpec, build_tiny_model
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    spec = TinySpec(**snakemake.params.spec)
    build_tiny_model(spec, snakemake.input.corpus, snakemake.output[0])
