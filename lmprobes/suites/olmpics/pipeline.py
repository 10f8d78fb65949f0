"""The oLMpics stages as file-to-file functions (what the rule scripts call)."""

from __future__ import annotations

import csv
import logging
from collections.abc import Collection, Iterator
from pathlib import Path

import pandas as pd

from lmprobes import __version__
from lmprobes.io import read_metadata, read_parquet, to_markdown, write_parquet
from lmprobes.suites.lama.wikidata import workflow_client
from lmprobes.suites.olmpics.age import age_comparison, figure3_sets, multihop_composition
from lmprobes.suites.olmpics.controls import control_frame
from lmprobes.suites.olmpics.controls_qa import qa_control_frame
from lmprobes.suites.olmpics.generate_encyclopedic import generate_encyclopedic_composition
from lmprobes.suites.olmpics.generate_objects import generate_objects_comparison
from lmprobes.suites.olmpics.generate_property import generate_property_conjunction
from lmprobes.suites.olmpics.objects_matrix import (
    TABLE4_OBJECTS,
    TABLE4_RANKS,
    objects_grid_items,
    objects_matrix,
    read_objects_matrix,
    write_objects_matrix,
)
from lmprobes.suites.olmpics.release import build_release, check_release_manifest
from lmprobes.suites.olmpics.schema import SCHEMA, TASKS
from lmprobes.suites.olmpics.tables import read_published, write_zero_shot, zero_shot_table

log = logging.getLogger("lmprobes.olmpics")


def read_release_manifest(path: Path) -> list[dict[str, str]]:
    """The release files: task, split, file name and sha256 per line (a committed TSV), each (task,
    split) once, at least one (``check_release_manifest``)."""
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        numbered = [(reader.line_num, row) for row in reader]
    check_release_manifest(path, numbered)
    return [row for _, row in numbered]


def make_release(files: list[Path], manifest: list[dict[str, str]], out: Path, *, provenance: dict) -> pd.DataFrame:
    df = build_release({(row["task"], row["split"]): path for row, path in zip(manifest, files, strict=True)})
    counts = df.groupby(["task", "split"], sort=False).size()
    log.info("oLMpics release: %s", {f"{t}/{s}": int(n) for (t, s), n in counts.items()})
    write_parquet(df, out, SCHEMA, {"suite": "olmpics", "dataset": "release", "sources": provenance,
                                    "generator": f"lmprobes {__version__}"})
    return df


def make_grids(out: Path) -> pd.DataFrame:
    """The zero-shot grids, deterministic: Figure 3's age and birth-year sets (every ordered pair of
    the value ranges) and Table 4's objects (every ordered pair, sized in the paper's order)."""
    figure3 = pd.DataFrame.from_records(figure3_sets(), columns=SCHEMA.names)
    df = pd.concat([figure3, objects_grid_items(TABLE4_OBJECTS, sizes=TABLE4_RANKS)], ignore_index=True)
    write_parquet(df.astype({"seed": "Int64"}), out, SCHEMA,
                  {"suite": "olmpics", "dataset": "grids", "generator": f"lmprobes {__version__}"})
    return df


# Generated tasks and what each is built from; sizes default to the release's (train, dev), except
# Antonym negation's 4,779 training rows, rounded down to 4,778: its splits are half antonym, half
# synonym pairs (generate_antonym.split_pairs).
GENERATED_SOURCES = {
    "age_comparison": (),
    "multihop_composition": (),
    "antonym_negation": ("wordnet",),
    "taxonomy_conjunction": ("wordnet",),
    "property_conjunction": ("conceptnet_edges",),
    "objects_comparison": ("doq",),
    "encyclopedic_composition": ("wikidata",),
}
DETERMINISTIC = ("age_comparison",)
WORDNET_TASKS = tuple(task for task, sources in GENERATED_SOURCES.items() if "wordnet" in sources)
RELEASE_SIZES = {
    "age_comparison": (4032, 500), "multihop_composition": (5000, 500), "antonym_negation": (4778, 500),
    "taxonomy_conjunction": (5310, 599), "property_conjunction": (4000, 483), "objects_comparison": (5000, 500),
    "encyclopedic_composition": (5317, 500),
}


def generate_task(task: str, inputs: dict, *, seed: int | None, wikidata: dict | None = None, min_count: int = 0,
                  mirror: str | None = None, download: dict | None = None) -> pd.DataFrame:
    """The ``generated`` flavour of one task from its sources (see GENERATED_SOURCES); ``min_count`` is
    the WordNet tagged-sense count a lemma of the WordNet tasks needs (0 keeps every lemma); ``wikidata``
    and ``download`` set the Wikidata client of encyclopedic composition (see ``workflow_client``)."""
    n_train, n_dev = RELEASE_SIZES[task]
    if task == "age_comparison":  # deterministic: the release's construction, no seed
        return _frame(age_comparison("train") + age_comparison("dev"))
    if task == "multihop_composition":
        return _frame(multihop_composition("train", seed=seed) + multihop_composition("dev", seed=seed))
    if task in ("antonym_negation", "taxonomy_conjunction"):
        # NLTK (~0.2 s) loads only in the two jobs that read WordNet
        from lmprobes.suites.olmpics.generate_antonym import generate_antonym_negation
        from lmprobes.suites.olmpics.generate_taxonomy import generate_taxonomy_conjunction
        from lmprobes.suites.olmpics.wordnet import load_wordnet

        generate = generate_antonym_negation if task == "antonym_negation" else generate_taxonomy_conjunction
        return generate(load_wordnet(inputs["wordnet"]), n_train=n_train, n_dev=n_dev, seed=seed, min_count=min_count)
    if task == "property_conjunction":
        return generate_property_conjunction(inputs["conceptnet_edges"], n_train=n_train, n_dev=n_dev, seed=seed)
    if task == "objects_comparison":
        return generate_objects_comparison(inputs["doq"], n_train=n_train, n_dev=n_dev, seed=seed)
    if task == "encyclopedic_composition":
        with workflow_client(wikidata, download, mirror=mirror) as client:
            return generate_encyclopedic_composition(client, n_train=n_train, n_dev=n_dev, seed=seed)
    raise ValueError(f"no generator for oLMpics task {task!r}; choose one of {list(GENERATED_SOURCES)}")


def make_generated(task: str, inputs: dict, out: Path, *, seed: int | None, provenance: dict,
                   wikidata: dict | None = None, min_count: int | None = None,
                   mirror: str | None = None, download: dict | None = None) -> pd.DataFrame:
    """``seed`` is None for a deterministic task (``DETERMINISTIC``), which draws nothing;
    ``min_count`` is given for the WordNet tasks only (and recorded in the file's metadata);
    ``mirror`` answers Wikidata queries offline (see ``SparqlClient``); ``download`` (the config's
    timeout, retries and back-off) sets how the Wikidata client asks, never what the file holds."""
    df = generate_task(task, inputs, seed=seed, wikidata=wikidata, min_count=min_count or 0, mirror=mirror,
                       download=download)
    if df.empty:
        raise ValueError(f"oLMpics {task}: the sources {sorted(inputs.values())} gave no items")
    counts = df.groupby("split", sort=False).size().to_dict()
    used_seed = None if task in DETERMINISTIC else seed  # the file must not depend on an unused seed
    log.info("%s (generated, seed %s): %s", task, used_seed, counts)
    settings = {} if min_count is None else {"wordnet_min_count": min_count}
    write_parquet(df, out, SCHEMA, {"suite": "olmpics", "dataset": f"generated/{task}", "seed": used_seed,
                                    **settings, "sources": provenance, "generator": f"lmprobes {__version__}"})
    return df


def make_single_hop(release: Path, out: Path, *, seed: int, wikidata: dict, provenance: dict,
                    mirror: str | None = None, download: dict | None = None) -> pd.DataFrame:
    """Encyclopedic composition's single-hop facts (``single_hop``), its bridges looked up on Wikidata
    (the client set by ``wikidata`` and ``download``, see ``workflow_client``)."""
    from lmprobes.suites.olmpics.single_hop import single_hop_items

    with workflow_client(wikidata, download, mirror=mirror) as client:
        df, counts = single_hop_items(read_parquet(release), client, seed=seed)
    write_parquet(df, out, SCHEMA, {"suite": "olmpics", "dataset": "single_hop", "seed": seed, "bridges": counts,
                                    "sources": provenance, "generator": f"lmprobes {__version__}"})
    return df


def make_controls(release: Path, out: Path, *, seed: int) -> pd.DataFrame:
    """NO-LANG and PERTURBED-LANG variants of every release item (both splits; MC-MLM, then MC-QA),
    with the release's sources (URLs and sha256s) in their metadata."""
    items = read_parquet(release)
    df = pd.concat([control_frame(items, seed=seed), qa_control_frame(items, seed=seed)], ignore_index=True)
    write_parquet(df, out, SCHEMA, {"suite": "olmpics", "dataset": "controls", "seed": seed,
                                    "sources": read_metadata(release).get("sources"),
                                    "generator": f"lmprobes {__version__}"})
    return df


def _frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame.from_records(rows, columns=SCHEMA.names).astype({"seed": "Int64"})


def zero_shot_items(release: pd.DataFrame) -> pd.DataFrame:
    """The dev items of the MC-MLM tasks (the paper reports zero-shot on dev)."""
    mc_mlm = [name for name, task in TASKS.items() if task.setup == "mc_mlm"]
    return release[(release["split"] == "dev") & release["task"].isin(mc_mlm)].reset_index(drop=True)


# The candidates method's scoring (suites.olmpics.candidates): the one setting each family reads.
CANDIDATE_DEFAULTS = {"pll_variant": "original", "causal_policy": "bos"}
CANDIDATE_SETTING = {"masked": "pll_variant", "causal": "causal_policy"}


def candidate_settings(family: str, settings: dict) -> dict:
    """The candidates method's setting that a model of ``family`` reads, the default filled in."""
    key = CANDIDATE_SETTING[family]
    return {key: settings.get("candidates", {}).get(key, CANDIDATE_DEFAULTS[key])}


# What a causal model is scored with unless ``causal_methods`` says otherwise.
DEFAULT_CAUSAL_METHODS = ("candidates",)


def methods_for(family: str, settings: dict) -> list[str]:
    """A masked model's ``masked_methods``; a causal model's ``causal_methods`` (default ``candidates``)."""
    if family == "masked":
        return list(settings["masked_methods"])
    return list(settings.get("causal_methods", DEFAULT_CAUSAL_METHODS))


def score_model(release: Path, grids: Path, model_dir: Path, outs: dict[str, Path], *, slug: str, spec: dict,
                device: str, settings: dict, progress: bool = True) -> None:
    """Load the model once; score the dev items and the grids with each of its methods."""
    datasets = {"zero_shot": zero_shot_items(read_parquet(release)), "grids": read_parquet(grids)}
    _score_datasets(datasets, outs, model_dir, slug=slug, spec=spec, device=device, settings=settings,
                    progress=progress)


def generated_zero_shot_items(generated: list[Path]) -> pd.DataFrame:
    """The dev items of generated MC-MLM tasks, in the order of the files given."""
    if not generated:
        raise ValueError("oLMpics: no generated datasets to score (suites.olmpics.generate lists no MC-MLM task, "
                         "or suites.olmpics.score_generated is false)")
    items = zero_shot_items(pd.concat([read_parquet(path) for path in generated], ignore_index=True))
    if items.empty:
        raise ValueError(f"oLMpics: the generated datasets {[str(p) for p in generated]} hold no MC-MLM dev items")
    return items


def score_generated(generated: list[Path], model_dir: Path, out: Path, *, slug: str, spec: dict, device: str,
                    settings: dict, progress: bool = True) -> None:
    """Zero-shot scores of the generated MC-MLM tasks' dev items, as ``score_model`` scores the release's."""
    datasets = {"generated": generated_zero_shot_items(generated)}
    _score_datasets(datasets, {"generated": out}, model_dir, slug=slug, spec=spec, device=device,
                    settings=settings, progress=progress)


def released_batches_setting(dataset: str, methods: list[str], settings: dict) -> dict:
    """``zero_shot_batches`` for the release's dev items scored by ``mc_mlm``: only they have the
    released evaluation's file order to replay (the grids and generated items are scored each alone)."""
    if dataset != "zero_shot" or "mc_mlm" not in methods:
        return {}
    return {"batches": settings.get("zero_shot_batches", "independent")}


def _score_datasets(datasets: dict[str, pd.DataFrame], outs: dict[str, Path], model_dir: Path, *, slug: str,
                    spec: dict, device: str, settings: dict, progress: bool) -> None:
    # Imported here so that the suite's dataset and table jobs start without torch (~2 s each).
    from lmprobes.models import load_lm
    from lmprobes.suites.olmpics.zeroshot import SCORE_SCHEMA, reduction_of, score_zero_shot

    lm = load_lm(slug, spec, model_dir, device)
    methods = methods_for(lm.family, settings)
    candidates = candidate_settings(lm.family, settings)
    masked = {"mask_encoding": settings.get("mask_encoding", "original")} if "mc_mlm" in methods else {}
    for name, items in datasets.items():
        replay = released_batches_setting(name, methods, settings)
        scores = pd.concat([score_zero_shot(lm, items, method, **candidates, **masked, **replay, progress=progress)
                            for method in methods], ignore_index=True)
        metadata = {**lm.describe(), "suite": "olmpics", "dataset": name, "methods": methods,
                    "candidates": candidates if any(reduction_of(m) for m in methods) else None,
                    "reductions": {m: reduction_of(m) for m in methods}, **masked, **replay,
                    "generator": f"lmprobes {__version__}"}
        write_parquet(scores, outs[name], SCORE_SCHEMA, metadata)


def grid_scores_by_model(paths: list[Path], models: list[str]) -> Iterator[pd.DataFrame]:
    """The grid score rows of each model in turn, read from the files that hold it: one model's rows in
    memory at a time (60 models' together took 2.6 GB)."""
    holders = {model: [] for model in models}
    for path in paths:
        for model in read_parquet(path, ["model"])["model"].unique():
            holders.setdefault(model, []).append(path)
    for model in models:
        if not holders[model]:
            raise ValueError(f"no oLMpics grid scores for model {model!r} in {', '.join(map(str, paths)) or 'no files'}")
        frames = [read_parquet(path) for path in holders[model]]
        yield pd.concat([frame[frame["model"] == model] for frame in frames], ignore_index=True)


def make_tables(grids: Path, zero_shot: list[Path], grid_scores: list[Path], published: Path, paper_table4: Path,
                out_dir: Path, figures: list[Path], models: list[str], *, stand_ins: Collection[str] = ()) -> None:
    """The zero-shot table; per model Figure 3 (age grids) and Table 4 (objects), the paper's Table 4 beside;
    ``stand_ins``: the tiny models and configured stand-ins, named in their Figure 3."""
    # matplotlib (~0.4 s) loads only in the jobs that draw
    from lmprobes.suites.olmpics.plots import age_grid, plot_figure3

    scores = pd.concat([read_parquet(p) for p in zero_shot], ignore_index=True)
    tidy = zero_shot_table(scores, read_published(published))
    out_dir = Path(out_dir)
    write_zero_shot(tidy, out_dir / "zero_shot.csv", out_dir / "zero_shot.md")
    items = read_parquet(grids)
    paper = read_objects_matrix(paper_table4)
    for model, figure, scores in zip(models, figures, grid_scores_by_model(grid_scores, models), strict=True):
        method = scores["method"].iloc[0]
        plot_figure3(age_grid(items, scores), figure, model=model, method=method, stand_ins=stand_ins)
        matrix = objects_matrix(items, scores, model, method)
        write_objects_matrix(matrix, out_dir / f"table4_{model}.csv", out_dir / f"table4_{model}.md",
                             f"Table 4: {model} ({method}) on the objects grid; the paper's RoBERTa-L below",
                             note="\n### The paper's Table 4: RoBERTa-L\n\n" + to_markdown(paper.reset_index().fillna("-")))
