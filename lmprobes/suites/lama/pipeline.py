"""The LAMA stages as file-to-file functions (what the rule scripts call)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Collection
from pathlib import Path

import pandas as pd

from lmprobes import __version__
from lmprobes.io import SystemColumns, read_metadata, read_parquet, write_parquet, write_table
from lmprobes.suites.lama import tables as T
from lmprobes.suites.lama.conceptnet import stream_to_parquet
from lmprobes.suites.lama.conceptnet_gen import build_conceptnet_gen
from lmprobes.suites.lama.conceptnet_lite import edges_from_conceptnet_lite
from lmprobes.suites.lama.paraphrases import CORPUS as PARAPHRASE_CORPUS
from lmprobes.suites.lama.paraphrases import PARAPHRASE_SCHEMA, build_paraphrases
from lmprobes.suites.lama.release import SCHEMA, build_corpus, filter_counts, load_common_vocab, with_valid_objects
from lmprobes.suites.lama.trex_raw import OBJECTS_SCHEMA, build_trex_raw_with_objects
from lmprobes.suites.lama.uhn import CORPORA as UHN_CORPORA
from lmprobes.suites.lama.uhn import HITS_SCHEMA, NAME_TEMPLATE, name_facts
from lmprobes.suites.lama.uhn import flagged as uhn_flagged
from lmprobes.suites.lama.uhn import removal_counts as uhn_removal_counts
from lmprobes.suites.lama.wikidata import answer_settings, workflow_client
from lmprobes.suites.lama.wikidata_fresh import wikidata_fresh_with_stats

log = logging.getLogger("lmprobes.lama")


def release_root(extracted: Path) -> Path:
    """The folder holding relations.jsonl and the corpora (``data/`` inside data.zip)."""
    extracted = Path(extracted)
    for candidate in (extracted / "data", extracted):
        if (candidate / "relations.jsonl").exists() or (candidate / "TREx").is_dir():
            return candidate
    raise FileNotFoundError(f"{extracted}: no LAMA release inside (expected data/relations.jsonl or TREx/)")


def make_dataset(corpus: str, extracted: Path, relations: Path, common_vocab: Path, out: Path, *,
                 provenance: dict, valid_objects: Path | None = None) -> dict:
    """A release corpus; ``valid_objects`` (``make_trex_raw``'s every-object file) fills each fact's
    other valid objects from raw T-REx, for the filtered rank."""
    df = build_corpus(corpus, release_root(extracted), relations, common_vocab)
    extra = {}
    if valid_objects is not None:
        df = with_valid_objects(df, read_parquet(valid_objects))
        more = sum(len(set(v) - {o}) > 0 for v, o in zip(df["valid_objects"], df["obj_label"]))
        log.info("%s: %d of %d facts have other valid objects in %s", corpus, more, len(df), valid_objects)
        extra["valid_objects"] = {"from": "trex_raw", "sources": read_metadata(valid_objects).get("sources"),
                                  "facts_with_other_valid_objects": more}
    return write_dataset(df, corpus, out, provenance=provenance, **extra)


def write_dataset(df: pd.DataFrame, corpus: str, out: Path, *, provenance: dict, schema=SCHEMA, **extra) -> dict:
    """A LAMA dataset with its filter counts (and, for generated ones, seed and build counts)."""
    counts = filter_counts(df)
    log.info("%s: %s", corpus, counts)
    metadata = {
        "suite": "lama",
        "dataset": corpus,
        "sources": provenance,
        "generator": f"lmprobes {__version__}",
        "filter_counts": counts,
        **extra,
    }
    write_parquet(df, out, schema, metadata)
    return counts


def make_paraphrases(extracted: Path, relations: Path, common_vocab: Path, pararel: Path, out: Path, *,
                     settings: dict, provenance: dict) -> dict:
    """The paraphrase corpus: the release T-REx facts under LAMA's template and each ParaRel pattern
    of their relation (``pararel``: the extracted ParaRel archive; ``settings``: folder, spacing)."""
    stats: dict = {}
    df = build_paraphrases(release_root(extracted), relations, common_vocab, pararel, folder=settings["folder"],
                           spacing=settings["spacing"], stats=stats)
    return write_dataset(df, PARAPHRASE_CORPUS, out, provenance=provenance, schema=PARAPHRASE_SCHEMA,
                         settings=settings, build=stats)


def make_trex_raw(trex: Path, relations: Path, common_vocab: Path, out: Path, objects_out: Path, *, seed: int,
                  settings: dict, provenance: dict) -> dict:
    """The ``trex_raw`` corpus, and every object of the relations' subjects in raw T-REx (``objects_out``)."""
    stats: dict = {}
    df, objects = build_trex_raw_with_objects(trex, relations, common_vocab, seed=seed,
                                              max_per_relation=settings["max_per_relation"],
                                              max_evidences=settings["max_evidences"], stats=stats)
    log.info("trex_raw: %s", stats)
    log.info("trex_raw: %d (relation, subject, object) facts in all", len(objects))
    write_parquet(objects, objects_out, OBJECTS_SCHEMA,
                  {"suite": "lama", "dataset": "trex_raw_objects", "sources": provenance,
                   "generator": f"lmprobes {__version__}"})
    return write_dataset(df, "trex_raw", out, provenance=provenance, seed=seed, settings=settings, build=stats)


def make_conceptnet_edges(source: Path, out: Path, *, from_conceptnet_lite: bool, provenance: dict) -> dict:
    """English ConceptNet edges, streamed from the assertions CSV or read from a conceptnet-lite database."""
    from lmprobes.sources import sha256_of

    if from_conceptnet_lite:  # the database by its contents, not by where it lies on this machine
        provenance = {"conceptnet_lite_db": {"name": Path(source).name, "sha256": sha256_of(source)}}
    metadata = {"source": provenance, "generator": f"lmprobes {__version__}"}
    if from_conceptnet_lite:
        stats = edges_from_conceptnet_lite(source, out, metadata=metadata)
    else:
        stats = stream_to_parquet(source, out, metadata=metadata)
    log.info("conceptnet edges from %s: %s", source, stats)
    return stats


def make_conceptnet_gen(edges: Path, common_vocab: Path, out: Path, *, seed: int, settings: dict,
                        provenance: dict) -> dict:
    stats: dict = {}
    df = build_conceptnet_gen(edges, common_vocab, seed=seed, max_per_relation=settings["max_per_relation"],
                              sentence_end=settings["sentence_end"], stats=stats)
    log.info("conceptnet_gen: %s", stats)
    if "conceptnet_lite_db" in provenance.get("conceptnet_gen", {}):  # its identity as the edges job took it
        provenance = {**provenance, "conceptnet_gen": read_metadata(edges)["source"]}
    settings = {name: value for name, value in settings.items() if name != "conceptnet_lite_db"}  # a local path
    return write_dataset(df, "conceptnet_gen", out, provenance=provenance, seed=seed, settings=settings, build=stats)


def make_wikidata_fresh(relations: Path, common_vocab: Path, out: Path, *, seed: int, settings: dict,
                        download: dict, provenance: dict, mirror: str | None = None) -> dict:
    """Facts from the Wikidata Query Service; every answer is cached under ``settings['cache']``,
    so a rerun sends no query it has sent before (with ``mirror``, answers the cache lacks come from
    the mirror folder, never the network)."""
    with workflow_client(settings, download, mirror=mirror) as client:
        df, stats = wikidata_fresh_with_stats(client, relations, common_vocab, seed=seed,
                                              max_per_relation=settings["max_per_relation"],
                                              candidates_per_relation=settings["candidates_per_relation"])
    provenance = {**provenance, "endpoint": settings["endpoint"]}
    # Requests sent vs answered from the cache are logged, not stored: the file must not depend on them.
    build = {relation: {k: v for k, v in counts.items() if k not in ("sent", "cached")} for relation, counts in stats.items()}
    return write_dataset(df, "wikidata_fresh", out, provenance=provenance, seed=seed, settings=answer_settings(settings),
                         build=build)


def score_datasets(datasets: list[Path], common_vocabs: dict[str, Path], model_dir: Path, outs: list[Path], *,
                   slug: str, spec: dict, device: str, top_k: int, causal_methods: list[str], policy: str = "bos",
                   case: str = "auto", tokenization: str = "released", progress: bool = True) -> None:
    """Load the model once and score every corpus with each of the model's methods, each file written
    as soon as its corpus is scored.

    ``common_vocabs``: the common vocabulary of each case mode (``cased``, ``lowercase``); the
    model's mode is ``case`` (``auto``: lowercase for a tokenizer that lowercases its input).
    """
    # Imported here so that the suite's dataset and table jobs start without torch (~2 s each).
    from lmprobes.models import load_lm
    from lmprobes.suites.lama.scoring import (
        SCORE_SCHEMA,
        applied_tokenization,
        case_for,
        methods_for,
        reduction_of,
        score_facts,
    )

    lm = load_lm(slug, spec, model_dir, device)
    mode = case_for(lm.tokenizer, case)
    if common_vocabs.get(mode) is None:
        raise ValueError(f"{slug}: scored in the LAMA {mode} mode, but no {mode} common vocabulary was given")
    vocab = sorted(load_common_vocab(common_vocabs[mode]))
    log.info("%s: LAMA %s mode, common vocabulary %s (%d words)", slug, mode, common_vocabs[mode], len(vocab))
    methods = methods_for(lm.family, causal_methods)
    for dataset, out in zip(datasets, outs, strict=True):
        facts = read_parquet(dataset)
        scores = pd.concat(
            [score_facts(lm, facts, vocab, method=m, top_k=top_k, policy=policy, case=mode, tokenization=tokenization,
                         progress=progress)
             for m in methods],
            ignore_index=True,
        )
        summary = {m: skip_summary(scores[scores["method"] == m]) for m in methods}
        log.info("%s on %s: %s", slug, Path(dataset).stem, summary)
        metadata = {
            **lm.describe(),
            "suite": "lama",
            "dataset": read_metadata(dataset).get("dataset"),
            "methods": list(methods),
            "causal_policy": policy if any(reduction_of(m) for m in methods) else None,
            "reductions": {m: reduction_of(m) for m in methods},
            "top_k": top_k,
            "case": mode,
            "tokenization": applied_tokenization(lm, tokenization),
            "common_vocab_words": len(vocab),
            "kept": {m: summary[m]["kept"] for m in methods},
            "skipped": {m: summary[m]["skipped"] for m in methods},
            "generator": f"lmprobes {__version__}",
        }
        write_parquet(scores, out, SCORE_SCHEMA, metadata)


def score_uhn_names(dataset: Path, common_vocabs: dict[str, Path | None], model_dir: Path, out: Path, *, slug: str,
                    spec: dict, device: str, vocabulary: str, top_k: int, progress: bool = True) -> None:
    """The LAMA-UHN person-name filter's answers for one corpus, read from the filter model.
    ``common_vocabs`` (by case mode) are read only for ``vocabulary="common"``."""
    from lmprobes.models import load_lm
    from lmprobes.suites.lama.scoring import case_for
    from lmprobes.suites.lama.uhn_names import score_name_hits

    lm = load_lm(slug, spec, model_dir, device)
    mode = case_for(lm.tokenizer, "auto")
    common_vocab = []
    if vocabulary == "common":
        if common_vocabs.get(mode) is None:
            raise ValueError(f"{slug}: its tokenizer is {mode}, but no {mode} common vocabulary was given")
        common_vocab = sorted(load_common_vocab(common_vocabs[mode]))
    facts = read_parquet(dataset)
    hits = score_name_hits(lm, facts, common_vocab, vocabulary=vocabulary, top_k=top_k, progress=progress)
    removed = len(uhn_flagged(hits))
    log.info("%s, %s: %d of %d facts of the person-name relations have the object among a name's top %d",
             slug, Path(dataset).stem, removed, len(hits), top_k)
    metadata = {
        **lm.describe(),
        "suite": "lama",
        "dataset": read_metadata(dataset).get("dataset"),
        "filter": "LAMA-UHN person name",
        "template": NAME_TEMPLATE,
        "top_k": top_k,
        "vocabulary": vocabulary,
        "case": mode,
        "facts": len(name_facts(facts)),
        "flagged": removed,
        "generator": f"lmprobes {__version__}",
    }
    write_parquet(hits, out, HITS_SCHEMA, metadata)


def skip_summary(scores: pd.DataFrame) -> dict:
    skipped = scores.loc[~scores["kept"], "skip_reason"].value_counts().sort_index()
    return {"kept": int(scores["kept"].sum()), "skipped": {k: int(v) for k, v in skipped.items()}}


TABLE_TITLES = {
    "table2": "Table 2: mean P@1 (%) per corpus (raw rank, as the released code; macro over relations, "
             "ConceptNet and SQuAD over facts)",
    "table2_filtered": "Table 2, filtered: mean P@1 (%) with the other valid objects of each (subject, relation) removed",
    "table2_uhn": "Table 2 on LAMA-UHN (Poerner et al. 2020): mean P@1 (%) of T-REx and Google-RE over every fact "
                  "and over the facts left once those guessable from the subject's name are removed",
    "relations": "Per-relation scores (%): P@1, P@10, MRR (raw) and P@1 (filtered), facts read and kept",
    "filters": "Facts removed by each filter: the model-independent ones per corpus (dataset), then per system",
    "table3": "Table 3: example generations (top-5 with log-probabilities), one random kept fact per relation",
}
TABLES = tuple(TABLE_TITLES)
SHARED_TITLE = ", on the shared fact set (in each corpus, the facts every system keeps)"
SHARED_NOTE = """
Fact set: shared (`suites.lama.fact_set`). In each corpus every system, Freq included, is scored on
the facts all of them keep; a fact some system cannot score is left out for all (`not_shared` in
the filters table). Freq still ranks objects by their frequency among all of the relation's facts.
The paper's rows are its own numbers, on its facts.
"""
UNEQUAL_NOTE = """
Systems are scored on different fact sets in {corpora} (each keeps the facts it can score: see
n_kept in the CSV); set `suites.lama.fact_set: shared` to compare them on the facts all keep.
"""
# The tables whose scores average over kept facts, which the fact-set notes qualify.
SCORE_TABLES = ("table2", "table2_filtered", "table2_uhn", "relations")


def make_tables(datasets: list[Path], scores: list[Path], published: Path, paper_examples: Path, outdir: Path,
                plot: Path, *, qualitative_model: str | None, seed: int, uhn_hits: list[Path] = (),
                stand_ins: Collection[str] = (), fact_set: str = "own") -> None:
    """Every LAMA table (CSV + Markdown) and Figure 2 from the datasets and per-fact scores;
    ``uhn_hits``: the person-name filter's files of the UHN corpora (none: that filter is off);
    ``stand_ins``: the tiny models and configured stand-ins, named in Figure 2 where it shows them;
    ``fact_set``: ``own`` scores each system on the facts it keeps, ``shared`` every system of a
    corpus on the facts all of them keep (``tables.shared_facts``), said in every title and in a
    ``fact_set`` column of the CSVs. The paraphrase corpus is not one of Table 2's (each fact is in
    it once per template): its files are left out here, and tabulated by ``make_paraphrase_tables``."""
    # matplotlib (~0.4 s) loads only in the jobs that draw
    from lmprobes.suites.lama.plots import precision_curve_figure

    if fact_set not in T.FACT_SETS:
        raise ValueError(f"suites.lama.fact_set: {fact_set!r}; expected one of {', '.join(T.FACT_SETS)}")
    datasets = [p for p in datasets if Path(p).stem != PARAPHRASE_CORPUS]
    scores = [p for p in scores if Path(p).stem != PARAPHRASE_CORPUS]
    data = {Path(p).stem: read_parquet(p) for p in datasets}
    corpora = list(data)
    facts = pd.concat(
        [T.freq_baseline(df) for df in data.values()]
        + [T.scored_facts(data[Path(p).stem], read_parquet(p)) for p in scores],
        ignore_index=True,
    )
    shared = fact_set == "shared"
    if shared:
        facts = T.shared_facts(facts)
    write = functools.partial(_write, outdir=Path(outdir), shared=shared, note=_fact_set_note(facts, shared))
    relations = T.per_relation(facts)
    published_table = pd.read_csv(published)
    for name, metric in (("table2", "p1"), ("table2_filtered", "p1_filtered")):
        tidy = _marked(T.table2(relations, metric), shared)
        if metric == "p1":
            tidy = T.with_published(tidy, published_table)
        wide = T.table2_wide(tidy, corpora)
        write(name, tidy, wide, systems=T.table2_columns(tidy, wide))
    write("relations", _marked(relations, shared), relations.drop(columns=["relation_label", "model", "method"]))
    hits = pd.concat([read_parquet(p) for p in uhn_hits], ignore_index=True) if uhn_hits else None
    for corpus in (c for c in corpora if c in UHN_CORPORA):
        log.info("LAMA-UHN, %s: %s", corpus, uhn_removal_counts(data[corpus], hits))
    uhn = _marked(T.table2_uhn(facts, hits), shared)
    uhn_wide = T.table2_uhn_wide(uhn, corpora)
    write("table2_uhn", uhn, uhn_wide, systems=T.table2_columns(uhn, uhn_wide))
    counts = {corpus: read_metadata(p)["filter_counts"] for corpus, p in zip(corpora, datasets)}
    filters = _marked(T.filter_counts_table(counts, facts), shared)
    write("filters", filters, T.filter_counts_wide(filters), floatfmt=".0f")
    examples = T.example_generations(facts, T.example_system(facts, qualitative_model), ["trex", "conceptnet"], seed)
    paper = pd.read_csv(paper_examples, sep="\t").assign(system="bert-large-cased (paper)", rank=pd.NA)
    table3 = pd.concat([_marked(examples, shared), paper[examples.columns]], ignore_index=True)
    write("table3", table3, table3.drop(columns=["fact_set"], errors="ignore"))  # the title names the set
    precision_curve_figure(T.precision_curve(facts), plot, stand_ins=stand_ins, shared_facts=shared)


def _fact_set_note(facts: pd.DataFrame, shared: bool) -> str:
    """The shared set's explanation, or (own sets) a warning naming the corpora where they differ."""
    if shared:
        return SHARED_NOTE
    unequal = T.corpora_with_unequal_fact_sets(facts)
    return UNEQUAL_NOTE.format(corpora=", ".join(unequal)) if unequal else ""


def _marked(tidy: pd.DataFrame, shared: bool) -> pd.DataFrame:
    """A reproduction's tidy table with its ``fact_set`` column where it is not the default."""
    return tidy.assign(fact_set="shared") if shared else tidy


PARAPHRASE_TITLE = ("Paraphrase robustness on T-REx: P@1 (%) of LAMA's template (original), mean, min and max "
                    "over each relation's templates (LAMA's and ParaRel's), and consistency (%)")
PARAPHRASE_NOTE = """
Consistency (ParaRel, Elazar et al. 2021): of all the pairs of templates of a relation's facts
(both kept), the share whose top-1 answers agree{a_an}. Total: macro over relations; there a
relation without kept facts counts 0 in the P@1 columns, and consistency averages over the
relations with two or more templates. Raw rank (as Table 2); a system's answer space is its
Table 2 one (the common vocabulary, or the relation's objects for `candidates`).
"""
A_AN_NOTE = "; as ParaRel, a template whose article before the object misfits it (a/an) is left out of its fact's pairs"


def make_paraphrase_tables(dataset: Path, scores: list[Path], outdir: Path, *, a_an_filter: bool = True) -> None:
    """``paraphrases.{csv,md,tex}`` from the paraphrase corpus and its score files (one per model);
    ``a_an_filter``: ParaRel's a/an filter on the consistency pairs."""
    facts = read_parquet(dataset)
    scored = [T.paraphrase_scored(facts, read_parquet(p)) for p in scores]
    scored = pd.concat(scored, ignore_index=True) if scored else pd.DataFrame(columns=T.PARAPHRASE_SCORED_COLUMNS)
    table = T.paraphrase_table(scored, facts, a_an_filter=a_an_filter)
    systems = table[table["relation"] == "Total"].set_index("system")
    log.info("paraphrases, Total per system: %s", systems[["p1_original", "p1_mean", "consistency"]].round(1).to_dict("index"))
    outdir = Path(outdir)
    write_table(table, outdir / "paraphrases.csv", outdir / "paraphrases.md", PARAPHRASE_TITLE, ".1f",
                markdown_frame=table.drop(columns=["model", "method"]),
                note=PARAPHRASE_NOTE.format(a_an=A_AN_NOTE if a_an_filter else ""))


def _write(name: str, tidy: pd.DataFrame, wide: pd.DataFrame | None = None, floatfmt: str = ".1f", *,
           outdir: Path, shared: bool = False, note: str = "", systems: SystemColumns | None = None) -> None:
    """One table; ``shared`` names the shared fact set in its title, ``note`` goes under the score tables;
    ``systems``: ``wide`` has a column per system (``write_table``)."""
    title = TABLE_TITLES[name] + (SHARED_TITLE if shared else "")
    write_table(tidy, outdir / f"{name}.csv", outdir / f"{name}.md", title, floatfmt, markdown_frame=wide,
                note=note if name in SCORE_TABLES else "", systems=systems)
