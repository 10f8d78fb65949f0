"""config.yaml: schema (keys, types, defaults) and cross-checks, before any job runs."""

from pathlib import Path

import pandas as pd
import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from lmprobes.config import (
    ConfigError,
    canonical_entries,
    check_config,
    check_model_entries,
    config_file_labels,
    download_spec,
    finetuning_spec,
    in_precedence,
    model_dir,
    model_kind,
    published_systems,
    scoring_spec,
    source_path,
)

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = str(ROOT / "rules/schemas/config.schema.yaml")


def load(path="config.yaml") -> dict:
    return yaml.safe_load((ROOT / path).read_text())


def validated(config: dict) -> dict:
    validate(config, SCHEMA)
    check_config(config, published_systems(ROOT / "resources"))
    return config


def object_defaults_missing_on_their_properties(node, path=()):
    """(path, key) of each object default whose key's own property has no equal default."""
    if isinstance(node, dict):
        if node.get("type") == "object" and isinstance(node.get("default"), dict) and "properties" in node:
            for key, value in node["default"].items():
                if node["properties"].get(key, {}).get("default") != value:
                    yield ".".join(path), key
        for key, child in node.items():
            yield from object_defaults_missing_on_their_properties(child, (*path, str(key)))


def test_every_object_default_is_also_its_properties_default_so_a_partial_override_keeps_the_rest():
    # An object's default only applies when the whole object is absent: a config naming one key of
    # it would otherwise lose the others (suites.ettinger.sources: {cprag: mine} lost role, ...).
    assert list(object_defaults_missing_on_their_properties(yaml.safe_load(Path(SCHEMA).read_text()))) == []
    config = load()
    config["suites"]["ettinger"]["sources"] = {"cprag": "ettinger_cprag"}
    config["suites"]["lama"]["sources"] = {"release": "lama_release"}
    config["suites"]["olmpics"]["sources"] = {"glove": "olmpics_glove"}
    validated(config)
    assert config["suites"]["ettinger"]["sources"]["neg_nat"] == "ettinger_neg_nat"
    assert config["suites"]["lama"]["sources"]["common_vocab"] == "lama_common_vocab"
    assert config["suites"]["olmpics"]["sources"]["wordnet"] == "olmpics_wordnet"


def test_each_registered_ettinger_dataset_needs_its_source(monkeypatch):
    from lmprobes.suites.ettinger import datasets

    config = validated(load())
    monkeypatch.setitem(datasets.REGISTRY, "mine", datasets.REGISTRY["cprag"])
    with pytest.raises(ConfigError, match=r"suites\.ettinger\.sources\.mine: missing; .*'mine'"):
        check_config(config, published_systems(ROOT / "resources"))


def test_full_config_is_valid_and_covers_the_papers_models():
    config = validated(load())
    papers = {
        "bert-base-uncased", "bert-large-uncased", "bert-large-uncased-whole-word-masking",
        "bert-base-cased", "bert-large-cased", "roberta-base", "roberta-large",
        "gpt2", "gpt2-medium", "gpt2-large",
    }
    assert papers <= set(config["models"])
    assert papers <= set(config["suites"]["ettinger"]["models"])
    # Every published BLiMP row of a transformer (those with a method) has a configured system.
    published = pd.read_csv(ROOT / "resources/blimp/published.csv").dropna(subset=["method"])
    systems = config["report"]["systems"]["blimp"]
    for model, method in published[["model", "method"]].drop_duplicates().itertuples(index=False):
        assert systems.get(f"{model} ({method})") == model, (model, method)
        assert model in config["suites"]["blimp"]["models"]
    unpinned = sorted(name for name, s in config["sources"].items() if not s["sha256"])
    # Their hashes are unknown offline: recorded in the lock file on first download.
    assert unpinned == ["conceptnet_assertions", "lama_common_vocab_lowercased", "lama_pararel", "lama_release",
                        "lama_trex_raw", "olmpics_doq", "olmpics_glove", "olmpics_wordnet"]


def test_defaults_are_filled_in_nested_entries():
    config = validated(load())
    assert config["models"]["bert-large-uncased"]["dtype"] == "float32"
    demo = load("resources/demo/config.yaml")
    demo["sources"] = load()["sources"]
    validated(demo)
    assert demo["models"]["tiny-bert"]["tiny"]["hidden_size"] == 64
    assert demo["suites"]["ettinger"]["threshold"] == 0.01
    assert demo["seed"] == 1234


def test_lama_fact_set_defaults_to_each_systems_own_facts():
    config = load()
    del config["suites"]["lama"]["fact_set"]
    assert validated(config)["suites"]["lama"]["fact_set"] == "own"
    config["suites"]["lama"]["fact_set"] = "shared"
    assert validated(config)["suites"]["lama"]["fact_set"] == "shared"


@pytest.mark.parametrize(
    "mutate, culprit",
    [
        (lambda c: c.update(modles={}), "modles"),
        (lambda c: c["models"]["gpt2"].update(family="decoder"), "decoder"),
        (lambda c: c["models"]["gpt2"].update(batch_tokens="big"), "big"),
        (lambda c: c["models"]["gpt2"].update(head_dtype="float64"), "float64"),
        (lambda c: c["models"]["gpt2"].update(residual_dtype="bfloat16"), "bfloat16"),
        (lambda c: c["models"]["gpt2"].update(start_token="eot"), "eot"),
        (lambda c: c["sources"]["ettinger_role"].update(sha256="xyz"), "xyz"),
        (lambda c: c["suites"]["ettinger"].update(shufles=3), "shufles"),
        (lambda c: c["suites"]["lama"]["paraphrases"].update(spacing="tight"), "tight"),
        (lambda c: c["suites"]["lama"]["paraphrases"].update(a_an_filter="yes"), "yes"),
        (lambda c: c["suites"]["lama"]["uhn"].update(vocabulary="Full"), "Full"),
        (lambda c: c["suites"]["lama"].update(corpora=["trex", "trex_paraphrase"]), "trex_paraphrase"),
    ],
)
def test_schema_errors_name_the_key(mutate, culprit):
    config = load()
    mutate(config)
    with pytest.raises(WorkflowError, match=culprit):
        validate(config, SCHEMA)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda c: c.update(modles={}), r"^config: unknown key\(s\) \['modles'\]; known: device, download, "),
        (lambda c: c["models"]["gpt2"].update(family="decoder"),
         r"^models\.gpt2\.family: 'decoder' is not one of \['masked', 'causal'\]$"),
        (lambda c: c["models"]["gpt2"].update(batch_token=5), r"^models\.gpt2: unknown key\(s\) \['batch_token'\]; .*batch_tokens"),
        (lambda c: c["sources"]["ettinger_role"].update(sha256="xyz"), r"^sources\.ettinger_role\.sha256: 'xyz' does not match"),
        (lambda c: c["suites"].update(foo={}), r"^suites: unknown key\(s\) \['foo'\]; known: blimp, ettinger, lama, olmpics$"),
        (lambda c: c["suites"]["ettinger"].update(models=["gpt2", 3]), r"^suites\.ettinger\.models\[1\]: 3 is not of type 'string'$"),
        (lambda c: c["suites"]["lama"].update(fact_set="common"),
         r"^suites\.lama\.fact_set: 'common' is not one of \['own', 'shared'\]$"),
    ],
)
def test_a_schema_error_is_one_line_naming_its_key_not_the_schema(mutate, message):
    """Snakemake's own message prints the schema: 2,324 lines for a misspelled top-level key."""
    from lmprobes.config import validate_config

    config = load()
    mutate(config)
    with pytest.raises(ConfigError, match=message) as caught:
        validate_config(config)
    assert "\n" not in str(caught.value)


def test_the_config_command_checks_the_files_layered_over_config_yaml_as_the_workflow_does(tmp_path, capsys,
                                                                                           monkeypatch):
    from lmprobes.config import main

    monkeypatch.chdir(ROOT)
    assert main(["resources/demo/config.yaml"]) == 0
    assert capsys.readouterr().out == "ok: resources/demo/config.yaml over config.yaml\n"
    typo = tmp_path / "typo.yaml"
    typo.write_text("suites:\n  ettinger:\n    models: [tiny-bert, tiny-bret]\n")
    assert main(["resources/demo/config.yaml", str(typo)]) == 1
    assert "suites.ettinger.models[1]: unknown model 'tiny-bret'" in capsys.readouterr().err
    assert main(["--no-base", str(typo)]) == 1  # no models block at all
    assert "models: missing" in capsys.readouterr().err
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0 and "--no-base" in capsys.readouterr().out


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda c: c["suites"]["ettinger"]["models"].append("bert-huge"), r"suites\.ettinger\.models\[10\]: unknown model 'bert-huge'"),
        (lambda c: c["suites"]["ettinger"].update(method="masked"), r"suites\.ettinger\.models\[7\]: 'gpt2' is a causal model.*masked-only"),
        (lambda c: c["suites"]["ettinger"]["sources"].update(role="nowhere"), r"suites\.ettinger\.sources\.role: source 'nowhere'"),
        (lambda c: c["suites"]["ettinger"].update(qualitative_model="tiny"), r"qualitative_model: 'tiny'"),
        (lambda c: c["suites"]["lama"].update(method="masked"), r"suites\.lama\.models\[6\]: 'gpt2' is a causal model.*'masked'"),
        (lambda c: c["suites"]["lama"]["uhn"].update(filter_model="bert-huge"),
         r"suites\.lama\.uhn\.filter_model: unknown model 'bert-huge'"),
        (lambda c: c["suites"]["lama"]["uhn"].update(filter_model="gpt2"),
         r"suites\.lama\.uhn\.filter_model: 'gpt2' is a causal model"),

        (lambda c: c["suites"]["lama"]["generated"]["trex_raw"].update(source="trex_dump"),
         r"suites\.lama\.generated\.trex_raw\.source: source 'trex_dump' is not defined under sources"),
        (lambda c: c["suites"]["lama"]["generated"]["conceptnet_gen"].update(source="conceptnet_dump"),
         r"suites\.lama\.generated\.conceptnet_gen\.source: source 'conceptnet_dump' is not defined under sources"),
        # A generated corpus only scored (in corpora, not in generate) still needs its source.
        (lambda c: (c["suites"]["lama"].update(generate=[], corpora=["trex", "trex_raw"]),
                    c["suites"]["lama"]["generated"]["trex_raw"].update(source="trex_dump")),
         r"suites\.lama\.generated\.trex_raw\.source: source 'trex_dump' is not defined under sources"),
        (lambda c: c["suites"]["lama"].update(qualitative_model="gpt2-xl"),
         r"suites\.lama\.qualitative_model: 'gpt2-xl' is not in suites\.lama\.models"),
        (lambda c: c["suites"]["lama"]["paraphrases"].update(source="pararel"),
         r"suites\.lama\.paraphrases\.source: source 'pararel' is not defined under sources"),
        (lambda c: c["suites"]["lama"]["paraphrases"].update(folder="../graphs_json"),
         r"suites\.lama\.paraphrases\.folder: '\.\./graphs_json' must be a relative path"),
        (lambda c: c["suites"]["lama"]["paraphrases"].update(folder="/data/graphs_json"),
         r"suites\.lama\.paraphrases\.folder: '/data/graphs_json' must be a relative path"),
        (lambda c: c["suites"]["lama"]["paraphrases"].update(folder="data\\graphs_json"),
         r"suites\.lama\.paraphrases\.folder: 'data\\\\graphs_json' must be a relative path"),
        (lambda c: c["suites"]["olmpics"]["learning_curves"]["models"].append("bert-huge"),
         r"suites\.olmpics\.learning_curves\.models\[5\]: unknown model 'bert-huge'; configured models: "),
        (lambda c: c["suites"]["olmpics"]["learning_curves"]["models"].append("gpt2"),
         r"suites\.olmpics\.learning_curves\.models\[5\]: 'gpt2' is a causal model.*need a masked LM"),
        (lambda c: c["suites"]["olmpics"]["learning_curves"]["training"].update(mc_qa={"learning_rate": 1e-5}),
         r"suites\.olmpics\.learning_curves\.training\.mc_qa: unknown training option\(s\) \['learning_rate'\]"),
        (lambda c: c["suites"]["olmpics"]["learning_curves"]["training"].update(mc_qa={1: 2, "x": 3}),
         r"suites\.olmpics\.learning_curves\.training\.mc_qa: unknown training option\(s\) \[1, 'x'\]"),
        (lambda c: c["suites"]["olmpics"]["learning_curves"]["training"].update(esim={"schedule": "cosine"}),
         r"learning_curves\.training\.esim: hyper-parameter schedule='cosine'"),
        (lambda c: c["suites"]["olmpics"]["learning_curves"]["training"].update(mc_mlm={"lr": "5e-5"}),
         r"learning_curves\.training\.mc_mlm: hyper-parameter lr='5e-5' .*write a number with a dot"),
        (lambda c: c["sources"]["olmpics_glove"].update(url="https://example.org/data/.."),
         r"sources\.olmpics_glove\.url: .* names no file"),
        (lambda c: c["report"]["systems"]["ettinger"].update({"bert-base-uncased": "bert-base-uncasd"}),
         r"report\.systems\.ettinger\['bert-base-uncased'\]: unknown model 'bert-base-uncasd'"),
        (lambda c: c["report"]["systems"]["lama"].update(Freq="freq"), r"report\.systems\.lama\['Freq'\]: .*and baselines"),
        (lambda c: c["report"]["systems"]["ettinger"].update({"bert-base-uncasd": "bert-base-uncased"}),
         r"report\.systems\.ettinger\['bert-base-uncasd'\]: no published number names this system; .*: bert-base-uncased, "),
        (lambda c: c["report"]["systems"]["lama"].update({"bert-base-cased": "bert-base-cased (masked)"}),
         (r"report\.systems\.lama\['bert-base-cased'\]: 'bert-base-cased \(masked\)': the lama tables name no masked "
         r"system by the method 'masked'; its methods: none \(the bare model name\)")),
        (lambda c: c["report"]["systems"]["lama"].update(Txl="gpt2"),
         r"report\.systems\.lama\['Txl'\]: 'gpt2' is causal, .*: one of gpt2 \(left_context\), gpt2 \(candidates\)"),
        (lambda c: c["report"]["systems"]["olmpics"].update({"roberta-large": "roberta-large (mc_mlm)"}),
         (r"report\.systems\.olmpics\['roberta-large'\]: .*no masked system by the method 'mc_mlm'; its methods: "
         r"candidates, candidates_mean")),
        (lambda c: c["report"]["systems"]["ettinger"].update({"bert-base-uncased": "bert-base-uncased (masked)"}),
         r"report\.systems\.ettinger\['bert-base-uncased'\]: .*its methods: none"),
        (lambda c: c["report"]["systems"]["blimp"].update({"gpt2-large (blimp_paper)": "gpt2-large (pll_original)"}),
         r"report\.systems\.blimp\['gpt2-large \(blimp_paper\)'\]: .*no causal system by the method 'pll_original'"),
        (lambda c: c["report"]["systems"]["blimp"].update({"gpt2-large (blimp_paper)": "bert-base-cased"}),
         (r"report\.systems\.blimp\['gpt2-large \(blimp_paper\)'\]: 'bert-base-cased' \(the method of 'gpt2-large "
          r"\(blimp_paper\)'\): the blimp tables name no masked system by the method 'blimp_paper'")),
        (lambda c: c["report"]["systems"]["blimp"].update(TXL="gpt2"),
         r"report\.systems\.blimp\['TXL'\]: 'gpt2': the paper system names no method; name one: one of gpt2 \(blimp_paper\), "),
        (lambda c: c["report"]["systems"]["lama"].update(Freq="Freq (left_context)"),
         (r"report\.systems\.lama\['Freq'\]: 'Freq \(left_context\)': 'Freq' is a baseline, which the lama tables "
         r"name without a method: 'Freq'")),
        (lambda c: c["report"]["systems"]["olmpics"].update(esim_baseline="esim_baseline (candidates)"),
         r"report\.systems\.olmpics\['esim_baseline'\]: .*'esim_baseline' is a baseline"),
        (lambda c: c["report"].update(stand_ins=["esim_baseline", "tiny-bret"]),
         r"report\.stand_ins\[1\]: unknown system 'tiny-bret'; configured models and baselines: .*esim_baseline"),
    ],
)
def test_cross_checks_name_the_key(mutate, message):
    config = load()
    validate(config, SCHEMA)
    mutate(config)
    with pytest.raises(ConfigError, match=message):
        check_config(config, published_systems(ROOT / "resources"))


@pytest.mark.parametrize("suite", ["ettinger", "lama", "blimp", "olmpics"])
def test_an_unknown_model_in_any_suites_list_is_named(suite):
    config = validated(load())
    config["suites"][suite]["models"].append("bert-huge")
    at = len(config["suites"][suite]["models"]) - 1
    with pytest.raises(ConfigError, match=rf"^suites\.{suite}\.models\[{at}\]: unknown model 'bert-huge'"):
        check_config(config, published_systems(ROOT / "resources"))


def test_lama_uhns_filter_model_is_read_only_when_lama_runs_models():
    """A filter model nobody runs needs neither to be configured nor to be masked, nor its folder to be here."""
    config = validated(load())
    config["suites"]["lama"].update(models=[], qualitative_model=None)  # as the demo config runs no LAMA
    for unused in ("bert-huge", "gpt2"):
        config["suites"]["lama"]["uhn"]["filter_model"] = unused
        check_config(config, published_systems(ROOT / "resources"))
    config["models"]["mine"] = {"path": "/nonexistent/mine", "family": "masked"}
    config["suites"]["lama"]["uhn"]["filter_model"] = "mine"
    check_config(config, published_systems(ROOT / "resources"))


def test_report_systems_may_name_a_method_beside_the_model():
    """LAMA names a causal system 'gpt2 (left_context)', oLMpics 'gpt2 (candidates)', and a BLiMP paper
    system without a method needs one: the model part is what must be configured."""
    config = load()
    validate(config, SCHEMA)
    config["report"]["systems"]["lama"]["Txl"] = "gpt2 (left_context)"
    config["report"]["systems"]["blimp"]["TXL"] = "gpt2 (blimp_paper)"
    check_config(config, published_systems(ROOT / "resources"))
    config["report"]["systems"]["blimp"]["TXL"] = "gpt3 (blimp_paper)"
    with pytest.raises(ConfigError, match=r"report\.systems\.blimp\['TXL'\]: unknown model 'gpt3 \(blimp_paper\)'"):
        check_config(config, published_systems(ROOT / "resources"))


def test_model_locations():
    config = validated(load())
    config["models"]["mine"] = {"path": "/models/mine", "family": "masked"}
    config["models"]["tiny"] = {"tiny": {"arch": "bert"}, "family": "masked"}
    assert model_kind(config["models"]["gpt2"]) == "hub"
    assert model_dir(config, "gpt2") == Path("resources/models/gpt2")
    assert model_dir(config, "mine") == Path("/models/mine")
    assert model_kind(config["models"]["tiny"]) == "tiny"
    assert source_path(config, "ettinger_role") == Path("resources/sources/ettinger_role/ROLE-88.tsv")


def test_run_settings_decide_neither_scores_nor_downloads():
    gpt2 = validated(load())["models"]["gpt2"]
    tuned = {**gpt2, "batch_tokens": 1024, "mem_mb": 900, "threads": 7}
    assert scoring_spec(tuned) == scoring_spec(gpt2)
    assert {"batch_tokens", "mem_mb", "threads"}.isdisjoint(scoring_spec(gpt2))
    assert scoring_spec({**gpt2, "dtype": "bfloat16"}) != scoring_spec(gpt2)
    assert scoring_spec({**gpt2, "packing": "none"}) != scoring_spec(gpt2)
    bert = validated(load())["models"]["bert-base-cased"]
    assert bert["family"] == "masked" and scoring_spec({**bert, "packing": "none"}) == scoring_spec(bert)
    assert scoring_spec({**gpt2, "start_token": "eos"}) != scoring_spec(gpt2)
    assert scoring_spec({**bert, "start_token": "eos"}) == scoring_spec(bert)
    assert download_spec(gpt2) == {"hub_id": "openai-community/gpt2", "revision": gpt2["revision"],
                                   "trust_remote_code": False, "allow_pickle": False}
    assert download_spec({**tuned, "dtype": "bfloat16", "packing": "none"}) == download_spec(gpt2)
    assert download_spec({**gpt2, "revision": "abc123"}) != download_spec(gpt2)


def test_config_files_are_named_relative_to_the_working_directory(tmp_path):
    work, elsewhere = tmp_path / "clone", tmp_path / "cluster"
    (work / "resources/demo").mkdir(parents=True)
    elsewhere.mkdir()
    given = [work / "config.yaml", "resources/demo/config.yaml", elsewhere / "site.yaml", "../cluster/x.yaml"]
    assert config_file_labels(given, work) == ["config.yaml", "resources/demo/config.yaml",
                                              str((elsewhere / "site.yaml").resolve()),
                                              str((elsewhere / "x.yaml").resolve())]


def test_config_files_are_listed_in_the_order_they_apply():
    """Snakemake lists the --configfile files before the Snakefile's own, which they override."""
    snakefiles = "config.yaml"
    given = ["resources/demo/config.yaml", "mine.yaml"]
    assert in_precedence([*given, snakefiles], given) == ["config.yaml", "resources/demo/config.yaml", "mine.yaml"]
    assert in_precedence([snakefiles], []) == ["config.yaml"]
    # Given on the command line too: listed once, where it was given.
    assert in_precedence(["mine.yaml", str(Path.cwd() / "config.yaml"), snakefiles],
                         ["mine.yaml", str(Path.cwd() / "config.yaml")]) == ["mine.yaml", str(Path.cwd() / "config.yaml")]


def test_a_model_needs_exactly_one_origin():
    config = load()
    config["models"]["gpt2"]["path"] = "/somewhere"
    with pytest.raises(WorkflowError, match="gpt2"):
        validate(config, SCHEMA)


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"hub_id": "org/m", "path": "/m", "family": "masked"}, r"models\.mine: give exactly one of .*; not both hub_id and path"),
        ({"family": "masked"}, r"models\.mine: give exactly one of .*; none is given"),
        ({"path": "/m", "revision": "abc", "family": "masked"}, r"models\.mine\.revision: only a hub_id model .* a path model"),
        ({"tiny": {"arch": "bert"}, "revision": "v1", "family": "masked"}, r"models\.mine\.revision: .* a tiny model"),
    ],
)
def test_model_origin_errors_name_the_model_before_the_schema_fills_defaults(entry, message):
    config = load()
    config["models"]["mine"] = entry
    with pytest.raises(ConfigError, match=message):
        check_model_entries(config)


def test_model_entries_of_the_shipped_configs_pass():
    for path in ("config.yaml", "resources/demo/config.yaml"):
        check_model_entries(load(path))
    check_model_entries({"models": {"mine": {"hub_id": "org/m", "revision": "abc", "family": "causal"}}})


def test_report_system_methods_are_the_schemas_method_names():
    from lmprobes.config import SYSTEM_METHODS

    suites = yaml.safe_load(Path(SCHEMA).read_text())["properties"]["suites"]["properties"]
    enum = {(suite, key): tuple(spec["items"]["enum"]) for suite, settings in suites.items()
            for key, spec in settings.get("properties", {}).items() if key.endswith("methods")}
    assert SYSTEM_METHODS["lama"] == {"causal": enum["lama", "causal_methods"]}
    assert SYSTEM_METHODS["blimp"] == {"causal": enum["blimp", "causal_methods"], "masked": enum["blimp", "masked_methods"]}
    shown_bare = ("mc_mlm",)  # olmpics.tables.system_name
    assert SYSTEM_METHODS["olmpics"] == {"causal": enum["olmpics", "causal_methods"],
                                         "masked": tuple(m for m in enum["olmpics", "masked_methods"] if m not in shown_bare)}
    assert SYSTEM_METHODS["ettinger"] == {}


def test_report_baselines_are_the_suites_own_systems():
    from lmprobes.config import REPORT_BASELINES
    from lmprobes.suites.lama.tables import FREQ
    from lmprobes.suites.olmpics.learning_tables import BASELINES

    assert REPORT_BASELINES == {"lama": (FREQ,), "olmpics": tuple(BASELINES.values())}
    validated(load())  # config.yaml maps Freq and both oLMpics baselines


def test_entries_written_in_any_order_or_with_their_defaults_written_out_compare_equal():
    """Snakemake compares params by repr: two spellings of one entry must give one repr."""
    terse = {"models": {"b": {"family": "masked", "tiny": {"arch": "bert", "vocab_size": 1200}},
                        "a": {"hub_id": "x/y", "family": "causal", "dtype": "bfloat16"}},
             "sources": {"s": {"url": "file:///s", "sha256": None, "note": "n"}}}
    verbose = {"models": {"b": {"tiny": {"vocab_size": 1200, "arch": "bert"}, "padding": "auto", "head_dtype": "auto",
                                "residual_dtype": "auto", "allow_missing_weights": False, "family": "masked",
                                "start_token": "auto"},
                          "a": {"dtype": "bfloat16", "family": "causal", "hub_id": "x/y"}},
               "sources": {"s": {"note": "n", "sha256": None, "url": "file:///s"}}}
    for config in (terse, verbose):
        canonical_entries(config)
    assert repr(terse) == repr(verbose)
    assert list(terse["models"]) == ["b", "a"], "the models keep their order (it orders the tables)"
    kept = {"models": {"m": {"family": "masked", "padding": "right", "allow_missing_weights": True}}}
    canonical_entries(kept)
    assert kept["models"]["m"] == {"allow_missing_weights": True, "family": "masked", "padding": "right"}


def test_the_finetuning_spec_leaves_out_how_scores_are_computed():
    spec = {"family": "masked", "dtype": "bfloat16", "head_dtype": "float32", "residual_dtype": "float32",
            "packing": "none", "padding": "right", "start_token": "eos", "batch_tokens": 512, "trust_remote_code": False}
    assert finetuning_spec(spec) == {"family": "masked", "padding": "right", "trust_remote_code": False}


@pytest.mark.parametrize(("where", "key"), [
    (lambda c: c["suites"]["ettinger"]["models"], "suites.ettinger.models"),
    (lambda c: c["suites"]["olmpics"]["learning_curves"]["models"], "suites.olmpics.learning_curves.models"),
])
def test_a_local_model_a_suite_runs_must_be_a_folder_here(tmp_path, where, key):
    """Snakemake would report a missing input, or keep a model's old scores from another folder silently."""
    config = load()
    validate(config, SCHEMA)
    config["models"]["mine"] = {"path": str(tmp_path / "absent"), "family": "masked"}
    check_config(config, published_systems(ROOT / "resources"))  # defined, run by no suite: fine
    where(config).append("mine")
    with pytest.raises(ConfigError, match=rf"^models\.mine\.path: '.*absent' is not a folder .*; {key} runs it$"):
        check_config(config, published_systems(ROOT / "resources"))
    (tmp_path / "absent").mkdir()
    check_config(config, published_systems(ROOT / "resources"))


@pytest.mark.parametrize("name", ["Freq", "facts", "paradigm", "Task"])
def test_a_model_named_like_a_baseline_or_a_table_label_is_refused(name):
    config = validated(load())
    config["models"][name] = {"tiny": {"arch": "bert"}, "family": "masked"}
    with pytest.raises(ConfigError, match=rf"models\.{name}: a baseline or a table's row label has this name"):
        check_config(config, published_systems(ROOT / "resources"))


def test_the_reserved_names_are_the_suites_baselines_and_row_labels():
    from lmprobes.config import REPORT_BASELINES, RESERVED_MODEL_NAMES
    from lmprobes.suites.blimp.tables import TABLE4_LABELS
    from lmprobes.suites.lama.tables import FREQ, TABLE2_LABELS
    from lmprobes.suites.olmpics.learning_tables import medal_wide

    medals = pd.DataFrame({"source": ["reproduction"], "flavour": ["release"], "model": ["m"], "system": ["m"],
                           "task": ["age_comparison"], "symbol": ["✓"]})
    table12_labels = [column for column in medal_wide(medals).columns if column != "m"]
    baselines = [name for names in REPORT_BASELINES.values() for name in names]
    assert set(RESERVED_MODEL_NAMES) == {FREQ, *baselines, *TABLE2_LABELS, *TABLE4_LABELS, *table12_labels}
