"""lmprobes: what pre-trained language models know, reproduced as a Snakemake workflow.

All logic of the workflow lives in this package so that it can be unit-tested and imported
outside Snakemake; the rule scripts under ``scripts/`` only unpack ``snakemake`` objects.
"""

__version__ = "0.1.0"
