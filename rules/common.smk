import re
from pathlib import Path

from lmprobes.config import (
    canonical_entries,
    check_config,
    check_config_file,
    check_model_entries,
    curve_settings,
    config_file_labels,
    download_spec,
    finetuning_spec,
    in_precedence,
    model_dir,
    model_kind,
    published_systems,
    require_masked_for_curves,
    require_masked_for_method,
    scoring_spec,
    source_path,
    validate_config,
)
from lmprobes.report.landing import RELEASES as RUN_PAGE_RELEASES
from lmprobes.report.landing import models_in_run
from lmprobes.suites.blimp.generator import GENERATED as BLIMP_GENERATED
from lmprobes.suites.blimp.pipeline import FIGURES as BLIMP_FIGURES
from lmprobes.suites.blimp.pipeline import read_release_manifest
from lmprobes.suites.blimp.tables import TITLES as BLIMP_TITLES
from lmprobes.suites.ettinger.datasets import DATASETS as ETTINGER_DATASETS
from lmprobes.suites.ettinger.tables import QUALITATIVE, QUANTITATIVE
from lmprobes.suites.lama.pipeline import TABLES as LAMA_TABLES
from lmprobes.suites.olmpics.pipeline import (
    CANDIDATE_SETTING as OLMPICS_CANDIDATE_SETTING,
)
from lmprobes.suites.olmpics.pipeline import DETERMINISTIC as OLMPICS_DETERMINISTIC
from lmprobes.suites.olmpics.pipeline import GENERATED_SOURCES as OLMPICS_GENERATED
from lmprobes.suites.olmpics.pipeline import WORDNET_TASKS as OLMPICS_WORDNET_TASKS
from lmprobes.suites.olmpics.pipeline import (
    read_release_manifest as read_olmpics_manifest,
)
from lmprobes.suites.lama.release import CORPORA as LAMA_CORPORA
from lmprobes.suites.lama.release import PARAPHRASE_CORPUS as LAMA_PARAPHRASE_CORPUS
from lmprobes.suites.lama.uhn import CORPORA as LAMA_UHN_CORPORA
from lmprobes.suites.lama.wikidata import answer_settings as wikidata_answer_settings
from lmprobes.suites.olmpics.learning_tables import (
    BASELINE_LABELS as OLMPICS_BASELINE_SYSTEMS,
)
from lmprobes.revisions import REVISIONS
from lmprobes.sources import LOCKFILE
from lmprobes.suites.olmpics.schema import TASKS as OLMPICS_TASKS
from lmprobes.suites.olmpics.schema import baseline_kind

# Snakemake's YAML loader keeps the last of two equal keys: catch them first.
for path in workflow.configfiles:
    check_config_file(path)
check_model_entries(config)
validate_config(config, workflow.source_path("schemas/config.schema.yaml"))
canonical_entries(config)
BLIMP = config["suites"]["blimp"]
BLIMP_PARADIGMS = read_release_manifest(BLIMP["release"]["manifest"])
OLMPICS = config["suites"]["olmpics"]
OLMPICS_RELEASE = read_olmpics_manifest(OLMPICS["release"]["manifest"])
check_config(config, published_systems(Path("resources")))

MODELS = config["models"]
ETTINGER = config["suites"]["ettinger"]
ETTINGER_TABLES = QUANTITATIVE + QUALITATIVE
LAMA = config["suites"]["lama"]
# Table 2 and its kin read every scored corpus but the paraphrase one (paraphrases.* reads that).
LAMA_TABLE_CORPORA = [c for c in LAMA["corpora"] if c != LAMA_PARAPHRASE_CORPUS]
# The candidates methods' BOS/EOS policy, while one of them runs (left_context reads none).
LAMA_CANDIDATE_POLICY = (
    LAMA["candidate_policy"]
    if any(m != "left_context" for m in LAMA["causal_methods"])
    else None
)
BLIMP_TABLES = list(BLIMP_TITLES)
CONCEPTNET_LITE_DB = LAMA["generated"]["conceptnet_gen"]["conceptnet_lite_db"]
CURVES = OLMPICS["learning_curves"]
CURVES_MLM_TASKS = [t for t in CURVES["tasks"] if OLMPICS_TASKS[t].setup == "mc_mlm"]
CURVES_QA_TASKS = [t for t in CURVES["tasks"] if OLMPICS_TASKS[t].setup == "mc_qa"]
# The settings each curve job reads, its params: adding a model or task, or another setting, reruns none.
MC_MLM_CURVE_SETTINGS = curve_settings(
    CURVES, "grid", "seeds", "mc_mlm_settings", training=["mc_mlm"]
)
# Without the seeds: one job runs one seed, so adding a seed reruns none of the others.
MC_QA_SEED_SETTINGS = curve_settings(
    CURVES, "grid", "mc_qa_segment_ids", training=["mc_qa"]
)
STAGE_ONE_SETTINGS = curve_settings(CURVES, "mc_qa_segment_ids", training=["mc_qa"])
# Generated tasks scored zero-shot beside the release (MC-QA tasks have no zero-shot setting).
OLMPICS_SCORED_GENERATED = [
    t
    for t in OLMPICS["generate"]
    if OLMPICS["score_generated"] and OLMPICS_TASKS[t].setup == "mc_mlm"
]
# MC-MLM tasks also fine-tuned as MC-QA, standard variant only (the paper's Figure 2D).
CURVES_QA_COMPARISON = [
    t
    for t in CURVES["mc_qa_comparison"]
    if t in CURVES["tasks"] and "standard" in CURVES["variants"]
]
# What decides the Wikidata rules' answers (their params): for LAMA's, the endpoint and sample sizes;
# for oLMpics', which read no sizes, the endpoint. The User-Agent, pause and cache come from config.
WIKIDATA_ANSWERS = wikidata_answer_settings(LAMA["generated"]["wikidata_fresh"])
WIKIDATA_ENDPOINT = {"endpoint": WIKIDATA_ANSWERS["endpoint"]}
# The report: tiny stand-ins, the verdict tables, the models some suite runs.
REPORT_SUITES = ["summary", "lama", "blimp", "olmpics", "ettinger"]
# The models some suite runs (config order) and the suites that run any model.
REPORT_SUITE_MODELS = {
    "lama": LAMA["models"],
    "blimp": BLIMP["models"],
    "olmpics": OLMPICS["models"] + CURVES["models"],
    "ettinger": ETTINGER["models"],
}
REPORT_MODELS = [s for s in MODELS if any(s in m for m in REPORT_SUITE_MODELS.values())]


def tiny_models_among(slugs):
    """The tiny models among these slugs, sorted: a table or caption showing them says they are no reproduction."""
    return sorted({s for s in slugs if model_kind(MODELS[s]) == "tiny"})


# Tiny models, and the systems the config names stand-ins (the demo's baselines): never a reproduction.
REPORT_TINY_MODELS = sorted(
    set(tiny_models_among(REPORT_MODELS)) | set(config["report"]["stand_ins"])
)


def stand_ins_among(systems):
    """The tiny models and configured stand-ins among the systems a table shows: its caption warns."""
    return sorted(
        set(tiny_models_among(s for s in systems if s in MODELS))
        | (set(config["report"]["stand_ins"]) & set(systems))
    )


REPORT_TINY_BY_TABLES = {
    "lama": stand_ins_among(LAMA["models"]),
    "blimp": stand_ins_among(BLIMP["models"]),
    "olmpics": stand_ins_among(OLMPICS["models"]),
    "olmpics_learning": stand_ins_among(
        CURVES["models"]
        + (list(OLMPICS_BASELINE_SYSTEMS) if CURVES["baselines"] else [])
    ),
    "ettinger": stand_ins_among(ETTINGER["models"]),
}
REPORT_RUN_SUITES = [suite for suite, models in REPORT_SUITE_MODELS.items() if models]


def alternatives(names):
    """A wildcard regex matching exactly these names (and nothing when there are none)."""
    return "|".join(re.escape(n) for n in sorted(names)) or "(?!)"


wildcard_constraints:
    model=alternatives(MODELS),
    hub_model=alternatives(s for s in MODELS if model_kind(MODELS[s]) == "hub"),
    tiny_model=alternatives(s for s in MODELS if model_kind(MODELS[s]) == "tiny"),
    source=alternatives(config["sources"]),
    filename=r"[^/]+",
    dataset=alternatives(ETTINGER_DATASETS),
    corpus=alternatives(LAMA_CORPORA),
    uhn_corpus=alternatives(LAMA_UHN_CORPORA),
    olmpics_task=alternatives(
        t for t in OLMPICS_GENERATED if t != "encyclopedic_composition"
    ),
    mlm_task=alternatives(CURVES_MLM_TASKS),
    qa_task=alternatives(CURVES_QA_TASKS + CURVES_QA_COMPARISON),
    seed=r"\d+",
    curve_task=alternatives(CURVES["tasks"]),
    variant=alternatives(CURVES["variants"]),


def get_final_outputs():
    """Every output of the suites and the report, so that a deleted file is remade with its dependents."""
    return get_suite_outputs() + get_report_outputs()


def get_report_outputs():
    """The run page, the verdicts and the per-model summary (rules/report.smk)."""
    targets = ["results/report/run.html"]
    targets += expand(
        "results/report/verdicts/{suite}.{ext}",
        suite=REPORT_SUITES,
        ext=["csv", "md", "tex"],
    )
    targets += expand("results/report/models.{ext}", ext=["csv", "md", "tex"])
    targets += expand("results/report/leaderboard.{ext}", ext=["csv", "md", "tex"])
    return targets


def get_report_scores(wildcards):
    """The score files of every model and suite: the run page reads their metadata."""
    return [path for path in get_suite_outputs() if path.startswith("results/scores/")]


def get_suite_outputs():
    """Every dataset, score, table and plot of the suites: what the report is made of."""
    targets = []
    if ETTINGER["models"]:
        targets += expand(
            "results/datasets/ettinger/{dataset}.parquet", dataset=ETTINGER_DATASETS
        )
        targets += get_ettinger_scores(None)
        targets += expand(
            "results/tables/ettinger/{table}.{ext}",
            table=ETTINGER_TABLES,
            ext=["csv", "md", "tex"],
        )
        targets.append("results/plots/ettinger/accuracy.png")
    targets += expand("results/datasets/lama/{corpus}.parquet", corpus=LAMA["generate"])
    if LAMA["models"]:
        targets += expand(
            "results/datasets/lama/{corpus}.parquet", corpus=LAMA["corpora"]
        )
        targets += get_lama_scores(None)
        if LAMA_TABLE_CORPORA:
            targets += expand(
                "results/tables/lama/{table}.{ext}",
                table=LAMA_TABLES,
                ext=["csv", "md", "tex"],
            )
            targets.append("results/plots/lama/precision_at_k.png")
        if LAMA_PARAPHRASE_CORPUS in LAMA["corpora"]:
            targets += expand(
                "results/tables/lama/paraphrases.{ext}", ext=["csv", "md", "tex"]
            )
    if BLIMP["models"]:
        targets.append("results/datasets/blimp/blimp.parquet")
        targets += get_blimp_scores(None)
        targets += expand(
            "results/tables/blimp/{table}.{ext}",
            table=BLIMP_TABLES,
            ext=["csv", "md", "tex"],
        )
        targets += expand("results/plots/blimp/{figure}.png", figure=BLIMP_FIGURES)
    targets += expand(
        "results/datasets/olmpics/generated/{task}.parquet", task=OLMPICS["generate"]
    )
    if OLMPICS["models"]:
        targets.append("results/datasets/olmpics/controls.parquet")
        targets += expand(
            "results/datasets/olmpics/{dataset}.parquet", dataset=["release", "grids"]
        )
        targets += get_olmpics_zero_shot_scores(None)
        targets += get_olmpics_scores("grids")(None)
        targets += expand(
            "results/tables/olmpics/table4_{model}.{ext}",
            model=OLMPICS["models"],
            ext=["csv", "md", "tex"],
        )
        targets += expand(
            "results/tables/olmpics/zero_shot.{ext}", ext=["csv", "md", "tex"]
        )
        targets += expand(
            "results/plots/olmpics/figure3_{model}.png", model=OLMPICS["models"]
        )
    if CURVES["models"]:
        targets += get_olmpics_curves(None)
        targets += expand(
            "results/tables/olmpics/{table}.{ext}",
            table=["learning_curves", "learning_curves_comparison", "table12_medals"],
            ext=["csv", "md", "tex"],
        )
        targets += expand(
            "results/plots/olmpics/learning_curves_{task}.png", task=CURVES["tasks"]
        )
        targets += expand(
            "results/plots/olmpics/mc_mlm_vs_mc_qa_{task}.png",
            task=CURVES_QA_COMPARISON,
        )
    return targets


def get_config_file_labels():
    """The config files in the order they apply, as the run page lists them (relative to the working directory)."""
    files = in_precedence(workflow.configfiles, workflow.overwrite_configfiles)
    return config_file_labels(files, Path.cwd())


def get_run_page_settings():
    """What the run page shows of the config, so that editing any of it (a source's note included) reruns
    the page; a model's run settings (batch_tokens, threads, ...) and models no suite runs are not shown.
    """
    shown = ("hub_id", "path", "tiny", "revision", "dtype", "family")
    return {
        "device": config.get("device", "auto"),
        "seed": config["seed"],
        "mirror": config.get("mirror"),
        "sources": config["sources"],
        "releases": {
            suite: config["suites"].get(suite, {}).get("release")
            for suite in RUN_PAGE_RELEASES
        },
        "models": {
            slug: {
                key: value
                for key, value in config["models"][slug].items()
                if key in shown
            }
            for slug in models_in_run(config)
        },
    }


def source_entry(name):
    """A configured source as jobs see it: its ``note`` is for people, so editing it reruns nothing."""
    return {
        key: value for key, value in config["sources"][name].items() if key != "note"
    }


def get_source(wildcards):
    return source_entry(wildcards.source)


def get_finetuning_mem_mb(wildcards, attempt):
    """Fine-tuning holds weights, gradients and two AdamW moments: four times the weights."""
    return 4 * MODELS[wildcards.model]["mem_mb"] * attempt


def get_model_spec(wildcards):
    """The model's settings that decide its scores: a change reruns its jobs, tuning a run setting does not."""
    return scoring_spec(MODELS[wildcards.model])


def get_finetuning_spec(wildcards):
    """The model's settings that decide its fine-tuning: a change of its scoring dtype reruns none."""
    return finetuning_spec(MODELS[wildcards.model])


def get_for_family(family, value):
    """A param only models of ``family`` read (None for the others): changing it reruns none of theirs."""

    def param(wildcards):
        return value if MODELS[wildcards.model]["family"] == family else None

    return param


def get_cprag_only(value):
    """A setting only CPRAG's dataset reads (its shuffles and their seed): None for the others."""

    def param(wildcards):
        return value if wildcards.dataset == "cprag" else None

    return param


def get_blimp_methods(wildcards):
    """The BLiMP methods of the model's family, all a scoring job reads."""
    key = f"{MODELS[wildcards.model]['family']}_methods"
    return {key: BLIMP[key]}


def get_olmpics_zero_shot_settings(wildcards):
    """What the release's zero-shot job reads: the generated items' settings and, for masked models,
    how the release's dev items are batched."""
    settings = get_olmpics_generated_zero_shot_settings(wildcards)
    if MODELS[wildcards.model]["family"] == "masked":
        settings["zero_shot_batches"] = OLMPICS["zero_shot_batches"]
    return settings


def get_olmpics_generated_zero_shot_settings(wildcards):
    """What a zero-shot job reads for the model's family: the one setting of `candidates` its family
    reads (for masked models only when a candidates method runs), and for masked models their methods
    and the mask's spelling."""
    family = MODELS[wildcards.model]["family"]
    read = OLMPICS_CANDIDATE_SETTING[family]
    candidates = {k: v for k, v in OLMPICS.get("candidates", {}).items() if k == read}
    if family == "causal":
        # Passed only when asked for: the default adds no param, so it reruns no causal job.
        if OLMPICS["causal_methods"] != ["candidates"]:
            return {
                "causal_methods": OLMPICS["causal_methods"],
                "candidates": candidates,
            }
        return {"candidates": candidates}
    settings = {
        "masked_methods": OLMPICS["masked_methods"],
        "mask_encoding": OLMPICS["mask_encoding"],
    }
    if any(method != "mc_mlm" for method in OLMPICS["masked_methods"]):
        settings["candidates"] = candidates  # read by the candidates methods only
    return settings


def get_olmpics_mc_qa_seed_settings(wildcards):
    """The curve settings an MC-QA seed job reads; the mask's spelling only for an MC-MLM task."""
    if OLMPICS_TASKS[wildcards.qa_task].setup != "mc_mlm":
        return MC_QA_SEED_SETTINGS
    return {**MC_QA_SEED_SETTINGS, "mask_encoding": OLMPICS["mask_encoding"]}


def get_model_batch_tokens(wildcards):
    return MODELS[wildcards.model]["batch_tokens"]


def get_download_spec(wildcards):
    return download_spec(MODELS[wildcards.hub_model])


def get_tiny_spec(wildcards):
    return MODELS[wildcards.tiny_model]["tiny"]


def get_model_dir(wildcards):
    return str(model_dir(config, wildcards.model))


def get_method_model_dir(suite):
    """A model's folder for a suite with a ``method`` option: under ``masked``, a causal model asked
    for by a target path fails here, before any job."""

    def model(wildcards):
        method = config["suites"][suite]["method"]
        require_masked_for_method(MODELS, wildcards.model, suite, method)
        return get_model_dir(wildcards)

    return model


def get_masked_model_dir(wildcards):
    """A masked model's folder, for oLMpics fine-tuning: a causal model asked for by a target path
    (not in a suite's checked lists) fails here, before any job."""
    require_masked_for_curves(MODELS, wildcards.model)
    return get_model_dir(wildcards)


def get_scoring_mem_mb(wildcards, attempt):
    return MODELS[wildcards.model]["mem_mb"] * attempt


def get_runtime(minutes):
    """A job's time limit: ``minutes``, times the attempt (a retry after a timeout gets longer)."""

    def runtime(wildcards, attempt):
        return minutes * attempt

    return runtime


def get_model_threads(wildcards):
    return MODELS[wildcards.model]["threads"]


def get_ettinger_source(wildcards):
    return str(source_path(config, ETTINGER["sources"][wildcards.dataset]))


def get_ettinger_provenance(wildcards):
    name = ETTINGER["sources"][wildcards.dataset]
    return {"source": name, **source_entry(name)}


def get_ettinger_scores(wildcards):
    return expand(
        "results/scores/ettinger/{model}/{dataset}.parquet",
        model=ETTINGER["models"],
        dataset=ETTINGER_DATASETS,
    )


def get_archive(wildcards):
    return str(source_path(config, wildcards.source))


def get_lama_source(role):
    """An input function for one of LAMA's sources (release, relations, common_vocab)."""

    def source(wildcards):
        return str(source_path(config, LAMA["sources"][role]))

    return source


def get_lama_provenance(wildcards):
    """The sources a LAMA dataset is built from (the lowercased vocabulary is the scorer's only)."""
    return {
        role: source_entry(name)
        for role, name in LAMA["sources"].items()
        if role != "common_vocab_lowercased"
    }


def get_lama_valid_objects(wildcards):
    """Raw T-REx's every object of each subject, for the release T-REx facts' filtered rank
    (``release_valid_objects: trex_raw``)."""
    if wildcards.corpus != "trex" or LAMA["release_valid_objects"] != "trex_raw":
        return {}
    return {"valid_objects": "results/datasets/lama/trex_raw_objects.parquet"}


def get_lama_lowercased_vocab(wildcards):
    """The lowercased common vocabulary, unless every model is scored cased (``case: cased``)."""
    if LAMA["case"] == "cased":
        return []
    return get_lama_source("common_vocab_lowercased")(wildcards)


def get_lama_uhn_common_vocabs(wildcards):
    """The common vocabularies LAMA-UHN's filter reads its answers among (none with vocabulary: full):
    both, whatever `case` says, since the filter model's own tokenizer decides which it reads.
    """
    if LAMA["uhn"]["vocabulary"] != "common":
        return {}
    return {
        "common_vocab": get_lama_source("common_vocab")(wildcards),
        "common_vocab_lowercased": get_lama_source("common_vocab_lowercased")(
            wildcards
        ),
    }


def get_lama_scores(wildcards):
    return expand(
        "results/scores/lama/{model}/{corpus}.parquet",
        model=LAMA["models"],
        corpus=LAMA["corpora"],
    )


def get_lama_table_scores(wildcards):
    """The score files Table 2 and its kin read: every corpus but the paraphrase one."""
    return expand(
        "results/scores/lama/{model}/{corpus}.parquet",
        model=LAMA["models"],
        corpus=LAMA_TABLE_CORPORA,
    )


def get_lama_paraphrase_scores(wildcards):
    return expand(
        "results/scores/lama/{model}/{corpus}.parquet",
        model=LAMA["models"],
        corpus=LAMA_PARAPHRASE_CORPUS,
    )


def get_lama_paraphrase_settings():
    """What the paraphrase job reads of ``suites.lama.paraphrases`` besides its source (in provenance):
    not ``a_an_filter``, the table's alone, so toggling it rescores no model."""
    return {key: LAMA["paraphrases"][key] for key in ("folder", "spacing")}


def get_lama_paraphrase_provenance(wildcards):
    """The LAMA sources of the T-REx facts, and the paraphrase source (ParaRel)."""
    return {
        **get_lama_provenance(wildcards),
        "paraphrases": source_entry(LAMA["paraphrases"]["source"]),
    }


def get_lama_uhn_hits(wildcards):
    """The LAMA-UHN person-name filter's answers for each UHN corpus scored (none when it is off)."""
    if LAMA["uhn"]["filter_model"] is None:
        return []
    return expand(
        "results/datasets/lama/uhn/{model}/{corpus}.parquet",
        model=LAMA["uhn"]["filter_model"],
        corpus=[c for c in LAMA["corpora"] if c in LAMA_UHN_CORPORA],
    )


def get_lama_generated_settings(corpus):
    return LAMA["generated"][corpus]


def get_lama_generated_source(corpus):
    """An input function for the source a generated LAMA corpus is built from."""

    def source(wildcards):
        return str(source_path(config, LAMA["generated"][corpus]["source"]))

    return source


# The LAMA sources, by role, that each generated corpus reads besides its own. Its provenance names
# these and no others: another source may not be downloaded, nor its sha256 locked, when the job runs.
LAMA_GENERATED_READS = {
    "trex_raw": ("relations", "common_vocab"),
    "conceptnet_gen": ("common_vocab",),
    "wikidata_fresh": ("relations", "common_vocab"),
}


def get_lama_generated_inputs(corpus):
    """An input function for the LAMA sources a generated corpus reads, by role."""

    def inputs(wildcards):
        return {
            role: get_lama_source(role)(wildcards)
            for role in LAMA_GENERATED_READS[corpus]
        }

    return inputs


def get_lama_generated_provenance(corpus):
    """The sources a generated LAMA corpus is built from (URL and sha256 as configured)."""
    provenance = {
        role: source_entry(LAMA["sources"][role])
        for role in LAMA_GENERATED_READS[corpus]
    }
    name = LAMA["generated"][corpus].get("source")
    if name in config["sources"]:
        provenance[corpus] = source_entry(name)
    if corpus == "conceptnet_gen" and CONCEPTNET_LITE_DB:
        provenance[corpus] = {"conceptnet_lite_db": CONCEPTNET_LITE_DB}
    return provenance


def get_conceptnet_input(wildcards):
    """The conceptnet-lite database when one is configured, else the assertions CSV."""
    if CONCEPTNET_LITE_DB:
        return CONCEPTNET_LITE_DB
    return str(source_path(config, LAMA["generated"]["conceptnet_gen"]["source"]))


def get_conceptnet_provenance(wildcards):
    if CONCEPTNET_LITE_DB:
        return {"conceptnet_lite_db": CONCEPTNET_LITE_DB}
    return source_entry(LAMA["generated"]["conceptnet_gen"]["source"])


def get_blimp_release(wildcards):
    """URL and sha256 of each paradigm file, in the manifest's order."""
    return [
        {"url": f"{BLIMP['release']['url']}{p['uid']}.jsonl", "sha256": p["sha256"]}
        for p in BLIMP_PARADIGMS
    ]


def get_blimp_provenance(wildcards):
    """The release folder, its manifest, and the URL and sha256 of every file read."""
    return {
        "url": BLIMP["release"]["url"],
        "manifest": BLIMP["release"]["manifest"],
        "files": get_blimp_release(wildcards),
    }


def get_blimp_scores(wildcards):
    return expand("results/scores/blimp/{model}/blimp.parquet", model=BLIMP["models"])


def get_blimp_generated_scores(wildcards):
    return expand(
        "results/scores/blimp/{model}/generated.parquet", model=BLIMP["models"]
    )


def get_blimp_generated_targets(wildcards):
    """The generated paradigms, and the comparison table when BLiMP scores models."""
    targets = expand(
        "results/datasets/blimp/generated/{uid}.jsonl", uid=BLIMP_GENERATED
    )
    if BLIMP["models"]:
        targets.append("results/tables/blimp/generated.md")
    return targets


def get_blimp_generator_settings(wildcards):
    """What a generated paradigm's pairs depend on besides the lexicon and the release file."""
    return {key: BLIMP["generator"][key] for key in ("seed", "pairs")}


def get_blimp_generator_release(wildcards):
    """The paradigm's release file when its sentences are excluded (and its structure checked), else none."""
    if BLIMP["generator"]["exclude_release"]:
        return [f"resources/sources/blimp/{wildcards.uid}.jsonl"]
    return []


def get_olmpics_release(wildcards):
    """URL and sha256 of each release file, in the manifest's order."""
    return [
        {"url": f"{OLMPICS['release']['url']}{row['file']}", "sha256": row["sha256"]}
        for row in OLMPICS_RELEASE
    ]


def get_olmpics_provenance(wildcards):
    """The release folder, its manifest, and the URL and sha256 of every file read."""
    return {
        "url": OLMPICS["release"]["url"],
        "manifest": OLMPICS["release"]["manifest"],
        "files": get_olmpics_release(wildcards),
    }


def get_olmpics_scores(name):
    """An input function for one kind of oLMpics score file of every model."""

    def scores(wildcards):
        return expand(
            "results/scores/olmpics/{model}/{name}.parquet",
            model=OLMPICS["models"],
            name=name,
        )

    return scores


def get_olmpics_zero_shot_scores(wildcards):
    """The zero-shot score files of every model: the release's, and the generated tasks' if scored."""
    scores = get_olmpics_scores("zero_shot")(wildcards)
    if OLMPICS_SCORED_GENERATED:
        scores += get_olmpics_scores("generated")(wildcards)
    return scores


def get_olmpics_scored_generated(wildcards):
    """The generated MC-MLM datasets scored zero-shot (suites.olmpics.score_generated)."""
    return expand(
        "results/datasets/olmpics/generated/{task}.parquet",
        task=OLMPICS_SCORED_GENERATED,
    )


OLMPICS_SOURCE_FILES = {
    "wordnet": lambda: f"resources/extracted/{OLMPICS['sources']['wordnet']}",
    "conceptnet_edges": lambda: "results/sources/conceptnet/english_edges.parquet",
    "doq": lambda: str(source_path(config, OLMPICS["sources"]["doq"])),
}


def get_olmpics_generator_inputs(wildcards):
    """The sources a generated oLMpics task is built from, by role (wordnet, conceptnet_edges, doq)."""
    return {
        role: OLMPICS_SOURCE_FILES[role]()
        for role in OLMPICS_GENERATED[wildcards.olmpics_task]
    }


def get_olmpics_generator_provenance(wildcards):
    return {
        role: (
            source_entry(OLMPICS["sources"][role])
            if OLMPICS["sources"].get(role) in config["sources"]
            else role
        )
        for role in OLMPICS_GENERATED[wildcards.olmpics_task]
    }


def get_olmpics_generator_seed(wildcards):
    """The seed a generated task is drawn with; None for age comparison (deterministic), so that `seed` reruns none of its jobs."""
    if wildcards.olmpics_task in OLMPICS_DETERMINISTIC:
        return None
    return config["seed"]


def get_olmpics_generator_settings(wildcards):
    """The WordNet tasks' lemma frequency filter (so changing it reruns only them); none for the others."""
    if wildcards.olmpics_task in OLMPICS_WORDNET_TASKS:
        return {"min_count": OLMPICS["wordnet_min_count"]}
    return {}


def get_olmpics_task_hidden(wildcards):
    """The cached mask hidden states of one (model, task), every variant."""
    return expand(
        "results/cache/olmpics/{model}/hidden/{task}.{variant}.parquet",
        model=wildcards.model,
        task=wildcards.mlm_task,
        variant=CURVES["variants"],
    )


def get_olmpics_single_hop_stage(wildcards):
    """The seed's single-hop stage, where encyclopedic composition's curve runs start."""
    if CURVES["single_hop"] and wildcards.qa_task == "encyclopedic_composition":
        return f"results/cache/olmpics/{wildcards.model}/single_hop/seed{wildcards.seed}.safetensors"
    return []


def get_olmpics_mc_qa_seeds(wildcards):
    """The MC-QA runs of every seed of one (model, task, variant), which make its curve file."""
    return expand(
        "results/curves/olmpics/{model}/seeds/{qa_task}.{variant}.seed{seed}.parquet",
        seed=CURVES["seeds"],
        **wildcards,
    )


def get_olmpics_glove(wildcards):
    return str(source_path(config, OLMPICS["sources"]["glove"]))


def get_baseline_curve_settings(wildcards):
    """The baseline curve job's settings: its own baseline's training block only (MLM-BASELINE or ESIM)."""
    return curve_settings(
        CURVES,
        "grid",
        "seeds",
        "variants",
        training=[baseline_kind(wildcards.curve_task)],
    )


def get_olmpics_curves(wildcards):
    """Every learning-curve file: MC-MLM per (model, task), MC-QA per (model, task, variant) and on the
    compared MC-MLM tasks, baselines."""
    curves = expand(
        "results/curves/olmpics/{model}/{task}.parquet",
        model=CURVES["models"],
        task=CURVES_MLM_TASKS,
    )
    curves += expand(
        "results/curves/olmpics/{model}/{task}.{variant}.parquet",
        model=CURVES["models"],
        task=CURVES_QA_TASKS,
        variant=CURVES["variants"],
    )
    curves += expand(
        "results/curves/olmpics/{model}/{task}.standard.parquet",
        model=CURVES["models"],
        task=CURVES_QA_COMPARISON,
    )
    if CURVES["baselines"]:
        curves += expand(
            "results/curves/olmpics/baselines/{task}.parquet", task=CURVES["tasks"]
        )
    return curves


def get_report_tables(wildcards):
    """The CSV of every suite table: what the verdicts and the per-model summary read."""
    return [
        path
        for path in get_suite_outputs()
        if path.startswith("results/tables/") and path.endswith(".csv")
    ]


def get_report_verdict_inputs(wildcards):
    return {
        "tolerances": "resources/report/tolerances.csv",
        "published": sorted(str(p) for p in Path("resources").glob("*/published*.csv")),
        "tables": get_report_tables(wildcards),
    }


def get_report_model_inputs(wildcards):
    return {"tables": get_report_tables(wildcards)}
