"""Snakemake script: paper-vs-reproduction verdict tables (``lmprobes.report.verdicts.make_verdicts``).

input: ``tolerances`` (resources/report/tolerances.csv), the published-number files and the suite
tables (named so the rule reruns when they change; read from ``params.resources`` and
``params.tables``, only the tables this run makes). params: ``systems`` (config ``report.systems``),
``tiny_models``. output: the verdict files, all in one folder.
"""

from pathlib import Path

from lmprobes.report.verdicts import make_verdicts
from lmprobes.workflow import rule_job

with rule_job(snakemake):
    make_verdicts(
        Path(snakemake.params.resources),
        Path(snakemake.params.tables),
        dict(snakemake.params.systems),
        set(snakemake.params.tiny_models),
        Path(snakemake.output[0]).parent,
        tolerances_path=Path(snakemake.input.tolerances),
        table_files=list(snakemake.input.tables),
    )
