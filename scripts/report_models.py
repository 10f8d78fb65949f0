from pathlib import Path

from lmprobes.report.models import make_model_summary
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    make_model_summary(
        Path(snakemake.params.tables),
        list(snakemake.params.models),
        set(snakemake.params.tiny_models),
        Path(snakemake.output[0]).parent,
        tuple(snakemake.params.suites),
        table_files=list(snakemake.input.tables),
    )
