"""Cross-checks of a schema-validated config.yaml, and the facts rules derive from it.

The JSON schema (rules/schemas/config.schema.yaml) checks keys and types and fills defaults;
what a schema cannot say (a suite naming a model that does not exist, a source a suite needs
that is not configured, a causal model under a masked-only method) is checked here.
"""

from __future__ import annotations

from pathlib import Path

MODELS_DIR = Path("resources/models")
SOURCES_DIR = Path("resources/sources")

# Suites the workflow knows; each has a block under suites: in config.yaml.
SUITES = ("ettinger", "lama", "blimp", "olmpics")
GENERATED_CORPORA = ("trex_raw", "conceptnet_gen", "wikidata_fresh")


class ConfigError(ValueError):
    """A config value that is well-typed but wrong; the message names its key."""


def check_config(config: dict) -> None:
    for suite in config.get("suites", {}):
        if suite not in SUITES:
            raise ConfigError(f"suites.{suite}: unknown suite; known suites: {', '.join(SUITES)}")
    for suite, settings in config.get("suites", {}).items():
        _check_suite_models(config, suite, settings)
        _check_suite_sources(config, suite, settings)
    suites = config.get("suites", {})
    if suites.get("ettinger"):
        _check_ettinger(config, suites["ettinger"])
    if suites.get("lama"):
        _check_lama(config, suites["lama"])


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
    qualitative = settings.get("qualitative_model")
    if qualitative is not None and qualitative not in settings.get("models", []):
        raise ConfigError(f"suites.lama.qualitative_model: {qualitative!r} is not in suites.lama.models")
    if settings.get("method") == "masked":
        for i, slug in enumerate(settings.get("models", [])):
            if config["models"][slug]["family"] == "causal":
                raise ConfigError(
                    f"suites.lama.models[{i}]: {slug!r} is a causal model but suites.lama.method is 'masked' "
                    "(the released LAMA protocol only)"
                )


def model_kind(spec: dict) -> str:
    """``hub`` (downloaded), ``local`` (a path used as is) or ``tiny`` (built by the workflow)."""
    for kind, key in (("hub", "hub_id"), ("local", "path"), ("tiny", "tiny")):
        if key in spec:
            return kind
    raise ConfigError(f"model has none of hub_id, path, tiny: {spec}")


def model_dir(config: dict, slug: str) -> Path:
    """The folder a model is loaded from."""
    spec = config["models"][slug]
    if model_kind(spec) == "local":
        return Path(spec["path"])
    return MODELS_DIR / slug


def source_path(config: dict, name: str) -> Path:
    """Where a source is stored: resources/sources/<name>/<file name of the URL>."""
    url = config["sources"][name]["url"]
    return SOURCES_DIR / name / url.rstrip("/").rsplit("/", 1)[-1]
