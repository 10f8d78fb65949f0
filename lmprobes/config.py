"""Cross-checks of a schema-validated config.yaml, and the facts rules derive from it.

The JSON schema (rules/schemas/config.schema.yaml) checks keys and types and fills defaults;
what a schema cannot say (a suite naming a model that does not exist, a source a suite needs
that is not configured, a causal model under a masked-only method) is checked here.

``check_config_file`` checks the file as written, which the loaded dict no longer shows: a key
given twice in one mapping (two ``models:`` blocks, a model listed twice) is refused, naming both
lines, since Snakemake's loader silently keeps the last one; bytes that are not UTF-8 and YAML
syntax errors are reported with their line. The Snakefile runs it on config.yaml before Snakemake
reads that; a file given with ``--configfile`` is parsed by Snakemake first, so ``python -m
lmprobes.config FILE ...`` is there to name the line of a syntax error Snakemake reports without one
(and to check the files layered over config.yaml as the workflow would, schema and cross-checks).
A schema violation is reported in one line naming its key (``schema_error``), not with the schema.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

import yaml

from lmprobes.suites.olmpics.hyperparameters import HyperParameters, TrainingError

MODELS_DIR = Path("resources/models")
SOURCES_DIR = Path("resources/sources")

GENERATED_CORPORA = ("trex_raw", "conceptnet_gen", "wikidata_fresh")
PARAPHRASE_CORPUS = "trex_paraphrases"  # lama.release.PARAPHRASE_CORPUS (not imported: this module stays light)

# A model's settings that say how its jobs run, not what they compute. Rules pass them as threads
# and resources, never as params, so that tuning one does not rerun a model's jobs. (Another
# token budget or thread count can move a score in its last float32 bits; each score file's
# metadata records the ones it ran with.)
RUN_SETTINGS = ("batch_tokens", "mem_mb", "threads")
# Systems the suites compute themselves, which report.systems may map a paper's system to besides a
# configured model (lama.tables.FREQ, olmpics.learning_tables.BASELINES).
REPORT_BASELINES = {"lama": ("Freq",), "olmpics": ("mlm_baseline", "esim_baseline")}
# The methods a suite's system names carry, ``model (method)``, by the family that runs them (the schema's
# method enums; a test holds these to them). A masked model's LAMA system and an oLMpics mc_mlm system
# are the bare slug; Ettinger's systems carry no method.
SYSTEM_METHODS = {
    "lama": {"causal": ("left_context", "candidates", "candidates_mean")},
    "blimp": {"causal": ("blimp_paper", "lmeval04", "salazar", "one_prefix", "two_prefix", "two_prefix_joint",
                         "blimp_paper_mean", "lmeval04_mean", "salazar_mean", "one_prefix_mean", "two_prefix_mean",
                         "two_prefix_joint_mean"),
              "masked": ("pll_original", "pll_within_word_l2r", "pll_original_mean", "pll_within_word_l2r_mean")},
    "olmpics": {"causal": ("candidates", "candidates_mean"), "masked": ("candidates", "candidates_mean")},
    "ettinger": {},
}
# Suites whose causal systems always carry their method (BLiMP's may take it from the paper system's name).
CAUSAL_SYSTEMS_NAME_A_METHOD = ("lama", "olmpics")
# Names a model cannot take: the baselines, and the row-label columns of the tables with a column per
# system (LAMA's TABLE2_LABELS, BLiMP's TABLE4_LABELS, oLMpics Table 12's "Task"; a test holds these to
# them), which a model's column would collide with.
RESERVED_MODEL_NAMES = (*(name for names in REPORT_BASELINES.values() for name in names),
                        "corpus", "row", "subset", "lines", "facts", "category", "paradigm", "Task")
# What a hub snapshot depends on: the other settings do not download it again.
DOWNLOAD_SETTINGS = ("hub_id", "revision", "trust_remote_code", "allow_pickle")
# Model settings the schema gives no default (one added later would rerun every model's jobs), and the
# value their absence means: written out, they are dropped, so that they rerun nothing either.
ABSENT_MEANS = {"allow_missing_weights": False, "padding": "auto", "head_dtype": "auto", "residual_dtype": "auto",
                "start_token": "auto"}
# How a model's scores are computed; its fine-tuning (oLMpics MC-QA) reads none of them.
SCORING_ONLY_SETTINGS = ("dtype", "head_dtype", "residual_dtype", "packing", "start_token")


# The checkout's committed inputs (published numbers), beside the package.
RESOURCES = Path(__file__).resolve().parents[1] / "resources"


class ConfigError(ValueError):
    """A config value that is well-typed but wrong; the message names its key."""


def check_config(config: dict, paper_systems: dict[str, set[str]] | None = None) -> None:
    """The cross-checks the schema cannot make; ``paper_systems``: the systems with published numbers,
    per suite (``report.published.paper_systems``), which ``report.systems`` may name."""
    if not isinstance(config.get("models"), dict):  # the schema lets it be absent; every check below needs it
        raise ConfigError("models: missing; config.yaml must define the models block")
    for slug in config["models"]:
        if slug in RESERVED_MODEL_NAMES:
            raise ConfigError(f"models.{slug}: a baseline or a table's row label has this name; rename the model "
                              f"(reserved: {', '.join(RESERVED_MODEL_NAMES)})")
    for name in config.get("sources", {}):
        source_path(config, name)
    for suite, settings in config.get("suites", {}).items():
        _check_suite_models(config, suite, settings)
        _check_suite_sources(config, suite, settings)
    suites = config.get("suites", {})
    if suites.get("ettinger"):
        _check_ettinger(config, suites["ettinger"])
    if suites.get("lama"):
        _check_lama(config, suites["lama"])
    if suites.get("olmpics"):
        _check_olmpics_curves(config, suites["olmpics"].get("learning_curves", {}))
    _check_report_systems(config, paper_systems)
    _check_report_stand_ins(config)
    _check_local_model_folders(config)


# (label, suite, keys to its list of models): the lists of models the suites run; the learning curves list their own.
MODEL_LISTS = (
    ("ettinger", "ettinger", ("models",)),
    ("lama", "lama", ("models",)),
    ("blimp", "blimp", ("models",)),
    ("olmpics", "olmpics", ("models",)),
    ("olmpics curves", "olmpics", ("learning_curves", "models")),
)


def suite_model_lists(config: dict) -> Iterator[tuple[str, str, list[str]]]:
    """``(label, config key, slugs)`` of each list of ``MODEL_LISTS``, in that order (absent lists empty)."""
    for label, suite, keys in MODEL_LISTS:
        settings = config.get("suites", {}).get(suite, {})
        for key in keys:
            settings = settings.get(key, {}) if isinstance(settings, dict) else {}
        yield label, ".".join(("suites", suite, *keys)), list(settings or [])


def models_run_by_suites(config: dict) -> dict[str, str]:
    """``{slug: the first config key that runs it}`` over the suites' model lists (``suite_model_lists``)
    and LAMA-UHN's filter model."""
    runs: dict[str, str] = {}
    for _, key, slugs in suite_model_lists(config):
        for slug in slugs:
            runs.setdefault(slug, key)
    lama = config.get("suites", {}).get("lama", {})
    if lama.get("models") and lama.get("uhn", {}).get("filter_model"):
        runs.setdefault(lama["uhn"]["filter_model"], "suites.lama.uhn.filter_model")
    return runs


def _check_local_model_folders(config: dict) -> None:
    """A ``path:`` model that a suite runs must be a folder here: Snakemake would otherwise report a
    missing input, or, for a model scored before from another folder, keep its old scores silently."""
    for slug, key in models_run_by_suites(config).items():
        path = config["models"].get(slug, {}).get("path")
        if path is not None and not Path(path).is_dir():
            raise ConfigError(f"models.{slug}.path: {path!r} is not a folder (the model's weights, config and "
                              f"tokenizer files); {key} runs it")


def _check_report_systems(config: dict, paper_systems: dict[str, set[str]] | None) -> None:
    """A misspelled paper system or model in report.systems would turn that system's verdicts into "missing"."""
    for suite, mapping in config.get("report", {}).get("systems", {}).items():
        known = set(config["models"]) | set(REPORT_BASELINES.get(suite, ()))
        for paper_system, ours in mapping.items():
            if paper_systems is not None and paper_system not in paper_systems.get(suite, ()):
                raise ConfigError(f"report.systems.{suite}[{paper_system!r}]: no published number names this "
                                  f"system; the {suite} paper systems: {', '.join(sorted(paper_systems.get(suite, ())))}")
            if _system_model(ours) not in known:
                raise ConfigError(f"report.systems.{suite}[{paper_system!r}]: unknown model {ours!r}; configured "
                                  f"models{' and baselines' if suite in REPORT_BASELINES else ''}: "
                                  f"{', '.join(sorted(known))}")
            _check_system_method(config, suite, paper_system, ours)


def _check_system_method(config: dict, suite: str, paper_system: str, ours: str) -> None:
    """A method the suite's tables never put after this model's name would leave the system "missing"; a
    BLiMP system with no method, its own or its paper system's, would stop the report."""
    from lmprobes.report.reproduced import split_system

    model, method = split_system(ours)
    family = config["models"].get(model, {}).get("family")
    methods = SYSTEM_METHODS.get(suite, {}).get(family, ())
    named = repr(ours)
    if not method and suite == "blimp":  # a bare BLiMP system takes the paper system's method (reproduced.py)
        method = split_system(paper_system)[1]
        named = f"{ours!r} (the method of {paper_system!r})"
        if not method:
            raise ConfigError(f"report.systems.blimp[{paper_system!r}]: {ours!r}: the paper system names no method; "
                              f"name one: one of {', '.join(f'{model} ({m})' for m in methods)}")
    if not method and family == "causal" and suite in CAUSAL_SYSTEMS_NAME_A_METHOD:
        raise ConfigError(f"report.systems.{suite}[{paper_system!r}]: {ours!r} is causal, and the {suite} tables "
                          f"name a causal system with its method: one of {', '.join(f'{model} ({m})' for m in methods)}")
    if method and family is None:
        raise ConfigError(f"report.systems.{suite}[{paper_system!r}]: {named}: {model!r} is a baseline, which the "
                          f"{suite} tables name without a method: {model!r}")
    if not method:
        return
    if method not in methods:
        allowed = ", ".join(methods) if methods else "none (the bare model name)"
        raise ConfigError(f"report.systems.{suite}[{paper_system!r}]: {named}: the {suite} tables name no "
                          f"{family} system by the method {method!r}; its methods: {allowed}")


def _check_report_stand_ins(config: dict) -> None:
    """A misspelled stand-in would leave the system it meant unflagged: its numbers read as a reproduction."""
    known = set(config["models"]) | {name for names in REPORT_BASELINES.values() for name in names}
    for i, name in enumerate(config.get("report", {}).get("stand_ins", [])):
        if name not in known:
            raise ConfigError(f"report.stand_ins[{i}]: unknown system {name!r}; configured models and baselines: "
                              f"{', '.join(sorted(known))}")


def _system_model(system: object) -> object:
    """The model of a report system, ``slug`` or ``slug (method)`` (a causal model's LAMA method, a
    BLiMP method for a paper system that names none)."""
    from lmprobes.report.reproduced import split_system

    return split_system(system)[0] if isinstance(system, str) else system


ORIGINS = ("hub_id", "path", "tiny")


def check_model_entries(config: dict) -> None:
    """Each model's origin, before the schema fills in defaults: exactly one of ``ORIGINS``, and a
    ``revision`` only for a hub model (the schema's own message for these is hard to read)."""
    models = config.get("models")
    for slug, spec in models.items() if isinstance(models, dict) else ():
        if not isinstance(spec, dict):
            continue  # the schema names the type
        origins = [key for key in ORIGINS if key in spec]
        if len(origins) != 1:
            given = f"not both {' and '.join(origins)}" if origins else "none is given"
            raise ConfigError(f"models.{slug}: give exactly one of hub_id (a hub repository), path (a local "
                              f"folder) or tiny (built by the workflow); {given}")
        if "revision" in spec and origins != ["hub_id"]:
            raise ConfigError(f"models.{slug}.revision: only a hub_id model is pinned to a revision; a {origins[0]} "
                              "model is identified by the sha256 of its files, recorded in each score file")


def _check_suite_models(config: dict, suite: str, settings: dict) -> None:
    for i, slug in enumerate(settings.get("models", [])):
        if slug not in config["models"]:
            known = ", ".join(sorted(config["models"]))
            raise ConfigError(f"suites.{suite}.models[{i}]: unknown model {slug!r}; configured models: {known}")


def _check_suite_sources(config: dict, suite: str, settings: dict) -> None:
    for role, name in settings.get("sources", {}).items():
        if name not in config.get("sources", {}):
            raise ConfigError(f"suites.{suite}.sources.{role}: source {name!r} is not defined under sources")


def _check_ettinger(config: dict, settings: dict) -> None:
    from lmprobes.suites.ettinger.datasets import REGISTRY

    for dataset in REGISTRY:
        if dataset not in settings.get("sources", {}):
            raise ConfigError(f"suites.ettinger.sources.{dataset}: missing; every Ettinger dataset "
                              f"({', '.join(REGISTRY)}) needs a source, and {dataset!r} has none "
                              "(add it to the schema's suites.ettinger.sources)")
    if settings["method"] == "masked":
        for i, slug in enumerate(settings["models"]):
            if config["models"][slug]["family"] == "causal":
                raise ConfigError(
                    f"suites.ettinger.models[{i}]: {slug!r} is a causal model but "
                    "suites.ettinger.method is 'masked' (masked-only scoring); use method 'auto'"
                )
    qualitative = settings.get("qualitative_model")
    if qualitative is not None and qualitative not in settings["models"]:
        raise ConfigError(f"suites.ettinger.qualitative_model: {qualitative!r} is not in suites.ettinger.models")


def _check_lama(config: dict, settings: dict) -> None:
    generated = settings.get("generated", {})
    wanted = set(settings.get("generate", [])) | (set(settings.get("corpora", [])) & set(GENERATED_CORPORA))
    for corpus in sorted(wanted):
        entry = generated.get(corpus, {})
        needs_source = corpus == "trex_raw" or (corpus == "conceptnet_gen" and not entry.get("conceptnet_lite_db"))
        if needs_source and entry.get("source") not in config.get("sources", {}):
            raise ConfigError(
                f"suites.lama.generated.{corpus}.source: source {entry.get('source')!r} is not defined under sources"
            )
    _check_lama_paraphrases(config, settings.get("paraphrases", {}))  # its dataset is a target even when unscored
    qualitative = settings.get("qualitative_model")
    if qualitative is not None and qualitative not in settings.get("models", []):
        raise ConfigError(f"suites.lama.qualitative_model: {qualitative!r} is not in suites.lama.models")
    _check_lama_uhn(config, settings.get("uhn", {}), settings.get("models"))
    if settings.get("method") == "masked":
        for i, slug in enumerate(settings.get("models", [])):
            if config["models"][slug]["family"] == "causal":
                raise ConfigError(
                    f"suites.lama.models[{i}]: {slug!r} is a causal model but suites.lama.method is 'masked' "
                    "(the released LAMA protocol only)"
                )


def _check_lama_uhn(config: dict, settings: dict, lama_models: list | None) -> None:
    """LAMA-UHN's filter model: configured and masked (read only when LAMA's tables are made)."""
    filter_model = settings.get("filter_model")
    if filter_model is not None and lama_models:
        if filter_model not in config["models"]:
            raise ConfigError(f"suites.lama.uhn.filter_model: unknown model {filter_model!r}; configured models: "
                              f"{', '.join(sorted(config['models']))}")
        if config["models"][filter_model]["family"] != "masked":
            raise ConfigError(f"suites.lama.uhn.filter_model: {filter_model!r} is a causal model; the person-name "
                              "filter reads a masked model's answers at [MASK]")


def _check_lama_paraphrases(config: dict, settings: dict) -> None:
    """The paraphrase corpus' source exists, and its folder stays inside the extracted archive."""
    name = settings.get("source")
    if name not in config.get("sources", {}):
        raise ConfigError(f"suites.lama.paraphrases.source: source {name!r} is not defined under sources "
                          f"(it holds the templates of corpus {PARAPHRASE_CORPUS})")
    folder = PurePosixPath(settings.get("folder", ""))
    if folder.is_absolute() or ".." in folder.parts or "\\" in str(folder):
        raise ConfigError(f"suites.lama.paraphrases.folder: {str(folder)!r} must be a relative path inside the "
                          "extracted archive, without '..'")


def _check_olmpics_curves(config: dict, settings: dict) -> None:
    """Learning curves train MLM heads or fine-tune encoders: masked models only, valid training options."""
    key = "suites.olmpics.learning_curves"
    for i, slug in enumerate(settings.get("models", [])):
        if slug not in config["models"]:
            raise ConfigError(f"{key}.models[{i}]: unknown model {slug!r}; configured models: "
                              f"{', '.join(sorted(config['models']))}")
        require_masked_for_curves(config["models"], slug, where=f"{key}.models[{i}]: ")
    for setting, options in settings.get("training", {}).items():
        try:
            HyperParameters.from_config({"lr": 1.0, **options})  # lr defaults per setting
        except (TrainingError, TypeError) as error:
            raise ConfigError(f"{key}.training.{setting}: {error}") from None


def require_masked_for_curves(models: dict, slug: str, *, where: str = "model ") -> None:
    """The oLMpics learning curves (MC-MLM heads on mask states, MC-QA fine-tuning of an encoder) and
    their caches need a masked LM; ``where`` starts the message (the config key, or ``model ``)."""
    if models[slug]["family"] != "masked":
        raise ConfigError(f"{where}{slug!r} is a causal model; oLMpics learning curves and their caches need a "
                          "masked LM (MC-MLM heads on its mask states, MC-QA fine-tuning of its encoder)")


def require_masked_for_method(models: dict, slug: str, suite: str, method: str) -> None:
    """A suite whose ``method`` is ``masked`` scores masked LMs only: a causal model asked for by a
    target path (not in the suite's checked list) is refused before any job."""
    if method == "masked" and models[slug]["family"] != "masked":
        raise ConfigError(f"model {slug!r} is a causal model but suites.{suite}.method is 'masked' "
                          "(masked-only scoring); use method 'auto' or a masked model")


def model_kind(spec: dict) -> str:
    """``hub`` (downloaded), ``local`` (a path used as is) or ``tiny`` (built by the workflow)."""
    for kind, key in zip(("hub", "local", "tiny"), ORIGINS, strict=True):
        if key in spec:
            return kind
    raise ConfigError(f"model has none of hub_id, path, tiny: {spec}")


def curve_settings(curves: dict, *keys: str, training: Sequence[str] = ()) -> dict:
    """The ``learning_curves`` keys a curve rule reads, and the blocks of its ``training`` it reads: the
    rule's params, so that any other key (or a model or task added) reruns none of its jobs."""
    settings = {key: curves[key] for key in keys if key in curves}
    blocks = curves.get("training", {})
    settings["training"] = {block: blocks[block] for block in training if block in blocks}
    return settings


def scoring_spec(spec: dict) -> dict:
    """The settings of a model that decide its scores: all but ``RUN_SETTINGS``, and ``packing`` and
    ``start_token`` for a masked model (how causal sequences share rows and start: it never reads them)."""
    unread = RUN_SETTINGS + (("packing", "start_token") if spec.get("family") == "masked" else ())
    return {key: value for key, value in spec.items() if key not in unread}


def finetuning_spec(spec: dict) -> dict:
    """The settings of a model that decide its fine-tuning: the scoring ones but those of how scores are
    computed (fine-tuning runs in float32 and pads as ``padding`` says, whatever the scoring dtype)."""
    return {key: value for key, value in scoring_spec(spec).items() if key not in SCORING_ONLY_SETTINGS}


def sorted_mapping(value):
    """``value`` with the keys of every mapping in it sorted (lists keep their order)."""
    if isinstance(value, dict):
        return {key: sorted_mapping(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [sorted_mapping(item) for item in value]
    return value


def canonical_entries(config: dict) -> None:
    """Sort the keys of each model's and each source's entry, in place (the entries keep their order),
    and drop the model settings written out with the value their absence means (``ABSENT_MEANS``).

    Snakemake compares a job's params by their ``repr``, in which a dict's key order counts: without
    this, writing out a default the schema fills in (``dtype: float32``), which puts it elsewhere in
    the entry, or listing an entry's keys in another order, reruns every job of that model."""
    for section in ("models", "sources"):
        entries = config.get(section) or {}
        for name, entry in entries.items():
            if section == "models":
                entry = {key: value for key, value in entry.items()
                         if key not in ABSENT_MEANS or value != ABSENT_MEANS[key]}
            entries[name] = sorted_mapping(entry)


def download_spec(spec: dict) -> dict:
    """The settings of a hub model that decide its snapshot."""
    return {key: spec[key] for key in DOWNLOAD_SETTINGS if key in spec}


def model_dir(config: dict, slug: str) -> Path:
    """The folder a model is loaded from."""
    spec = config["models"][slug]
    if model_kind(spec) == "local":
        return Path(spec["path"])
    return MODELS_DIR / slug


def source_path(config: dict, name: str) -> Path:
    """Where a source is stored: resources/sources/<name>/<file name of the URL>."""
    from lmprobes.sources import url_filename

    url = config["sources"][name]["url"]
    filename = url_filename(url)
    if filename in ("", ".", "..") or filename.endswith(":"):
        raise ConfigError(f"sources.{name}.url: {url!r} names no file (its last path segment is {filename!r})")
    return SOURCES_DIR / name / filename


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a key given twice in one mapping (PyYAML keeps the last)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        first_line: dict = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                repeated = key in first_line
            except TypeError:  # an unhashable key: the base class reports it
                break
            if repeated:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} given twice in one mapping (first on line {first_line[key]})",
                    key_node.start_mark,
                )
            first_line[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _UniqueKeyLoader.construct_mapping)


def check_config_file(path: str | Path) -> dict:
    """The config file as written: UTF-8, YAML (or JSON), no key twice in a mapping; else ConfigError naming
    file:line. Returns the mapping it holds."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}: not UTF-8 ({error.reason})") from None
    try:
        loaded = yaml.load(text, Loader=_UniqueKeyLoader)  # a SafeLoader subclass: no arbitrary objects
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else 1
        raise ConfigError(f"{path}:{line}: {error.problem or error}") from None
    except (yaml.YAMLError, RecursionError) as error:
        raise ConfigError(f"{path}:1: not valid YAML ({error!r:.200})") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"{path}:1: expected a mapping of keys at the top level, got {type(loaded).__name__}")
    return loaded


def in_precedence(loaded, given) -> list:
    """The config files in the order they apply, each over those before it: Snakemake lists the files
    ``given`` with ``--configfile`` first, then the Snakefile's own ``configfile:``, which they override.
    A file given and also the Snakefile's is listed once, where it was given."""
    given = list(given)
    named = {Path(path).resolve() for path in given}
    return [path for path in loaded if Path(path).resolve() not in named] + given


def config_file_labels(paths, root: str | Path) -> list[str]:
    """The config files as the run page names them: relative to ``root`` (the working directory) where they
    lie below it, so that the page, and the rule that writes it, do not change with the checkout's location."""
    root = Path(root).resolve()
    labels = []
    for path in paths:
        resolved = (root / path).resolve()
        labels.append(resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else str(resolved))
    return labels


SCHEMA = Path(__file__).resolve().parents[1] / "rules" / "schemas" / "config.schema.yaml"


@functools.cache
def load_schema(schema_path: str | Path = SCHEMA) -> dict:
    """The config's JSON schema (read once per process)."""
    return yaml.safe_load(Path(schema_path).read_text(encoding="utf-8"))


def schema_error(config: dict, schema_path: str | Path = SCHEMA) -> ConfigError | None:
    """The config's most relevant schema violation as a one-line ConfigError naming its key, or None.

    Snakemake's own message prints the whole schema (over 2,000 lines for a misspelled top-level key).
    """
    import jsonschema

    schema = load_schema(schema_path)
    validator = jsonschema.validators.validator_for(schema)(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(config))
    if error is None:
        return None
    where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path).lstrip(".")
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(known))
        message = f"unknown key(s) {unknown}" + (f"; known: {', '.join(known)}" if known else "")
    else:
        message = error.message if len(error.message) <= 300 else error.message[:300] + " ..."
    return ConfigError(f"{where or 'config'}: {message}")


def validate_config(config: dict, schema_path: str | Path = SCHEMA) -> None:
    """The JSON schema's checks, filling its defaults (Snakemake's ``validate``); a violation is a
    ConfigError of one line naming its key."""
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    try:
        validate(config, str(schema_path))
    except WorkflowError:
        error = schema_error(config, schema_path)
        if error is None:
            raise
        raise error from None


def check_files(paths: Sequence[str | Path], base: str | Path | None) -> dict:
    """The config the workflow would see: each file checked as written, layered over ``base`` in order
    (as ``--configfile`` files over config.yaml), then the schema and the cross-checks. ConfigError if not."""
    from snakemake.utils import update_config

    config: dict = {}
    for path in ([base] if base is not None else []) + list(paths):
        update_config(config, check_config_file(path))
    check_model_entries(config)
    validate_config(config)
    check_config(config, published_systems(RESOURCES))
    return config


def published_systems(resources: Path) -> dict[str, set[str]]:
    """The systems the committed published-number files name, per suite."""
    from lmprobes.report.published import read_published

    published = read_published(resources)
    return {suite: set(group) for suite, group in published.groupby("suite")["paper_system"]}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m lmprobes.config FILE ...``: the files as the workflow would read them."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m lmprobes.config",
        description="Check config files as the workflow does before any job runs: each file's syntax (file and "
                    "line of an error), then the files layered over the base config in the order given, as "
                    "snakemake --configfile layers them, against the schema and the cross-checks.")
    parser.add_argument("files", nargs="+", type=Path, help="config files, as given to --configfile")
    parser.add_argument("--base", type=Path, default=Path("config.yaml"),
                        help="the workflow's own config file, read first (default: config.yaml)")
    parser.add_argument("--no-base", action="store_true", help="check the files alone, over no base config")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    base = None if args.no_base or args.base in args.files else args.base
    try:
        check_files(args.files, base)
    except (ConfigError, OSError) as error:
        print(error, file=sys.stderr)
        return 1
    layered = " over ".join(map(str, [*reversed(args.files), *([base] if base is not None else [])]))
    print(f"ok: {layered}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
