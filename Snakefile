from snakemake.utils import min_version

min_version("9.0")


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
