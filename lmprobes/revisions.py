"""The revision of each rule's method, passed to the rule as ``params.revision``.

Snakemake reruns a job when its script or params change, but not when the package code it calls
does. So a change that alters what a rule writes for the same inputs and settings bumps that rule's
revision here, in the same commit (as lm-evaluation-harness versions its tasks): ``snakemake all``
then remakes exactly those jobs and what depends on them, and nothing else. Refactors, speed-ups
with identical outputs, changes to messages and new provenance fields in a file's metadata leave
revisions alone (a file made before keeps the metadata it had).
"""

# Their outputs are the upstream bytes, whatever the code that fetched them.
UNREVISED = ("download_source", "download_blimp", "download_olmpics", "download_model", "extract_source")

REVISIONS = {
    # sources and models
    "conceptnet_edges": 2,
    "build_tiny_model": 1,
    # Ettinger
    "ettinger_dataset": 2,
    "ettinger_score": 5,
    "ettinger_tables": 8,
    # LAMA
    "lama_dataset": 2,
    "lama_trex_raw": 2,
    "lama_conceptnet_gen": 4,
    "lama_wikidata_fresh": 2,
    "lama_score": 4,
    "lama_uhn": 2,
    "lama_tables": 16,
    "lama_paraphrases": 2,
    "lama_paraphrase_tables": 2,
    # BLiMP
    "blimp_dataset": 2,
    "blimp_score": 2,
    "blimp_tables": 15,
    "blimp_generate": 1,
    "blimp_generated_dataset": 1,
    "blimp_generated_table": 2,
    # oLMpics
    "olmpics_release": 2,
    "olmpics_grids": 1,
    "olmpics_generated": 3,
    "olmpics_encyclopedic": 3,
    "olmpics_single_hop": 3,
    "olmpics_controls": 2,
    "olmpics_zero_shot": 3,
    "olmpics_zero_shot_generated": 3,
    "olmpics_tables": 7,
    "olmpics_encode": 2,
    "olmpics_mc_mlm_curves": 2,
    "olmpics_single_hop_stage": 2,
    "olmpics_mc_qa_seed": 2,
    "olmpics_mc_qa_curves": 2,
    "olmpics_baseline_curves": 1,
    "olmpics_learning_tables": 13,
    # report
    "report_landing": 2,
    "report_verdicts": 6,
    "report_models": 5,
}
