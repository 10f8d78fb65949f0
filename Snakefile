from snakemake.utils import min_version

min_version("9.0")


import sys
from pathlib import Path

# The package is imported from this checkout, here and in the scripts: Snakemake appends this
# process's sys.path to each script's (also in a conda env under --use-conda).
sys.path.insert(0, workflow.basedir)

from lmprobes.config import check_config_file

if Path("config.yaml").exists():
    # Checked before Snakemake reads it (from the working directory, as Snakemake does): Snakemake's
    # own message names neither the line nor, for bytes that are not UTF-8, the file.
    check_config_file("config.yaml")


configfile: "config.yaml"


report: "rules/report/workflow.rst"


include: "rules/common.smk"
include: "rules/sources.smk"
include: "rules/models.smk"
include: "rules/ettinger.smk"
include: "rules/lama.smk"
include: "rules/blimp.smk"
include: "rules/olmpics.smk"
include: "rules/report.smk"


localrules:
    all,
    download_source,
    download_blimp,
    download_olmpics,
    download_model,
    build_tiny_model,
    extract_source,
    lama_wikidata_fresh,
    olmpics_encyclopedic,
    olmpics_single_hop,
    olmpics_mc_qa_curves,
    report_landing,
    report_verdicts,
    report_models,


rule all:
    default_target: True
    input:
        get_final_outputs(),
