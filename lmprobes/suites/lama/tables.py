"""LAMA's tables as pure aggregations over per-fact scores, with the paper's numbers beside them.

Systems are a model and a method: a masked model's own name (the released protocol), a causal
model's ``name (left_context)`` and ``name (candidates)``, and the ``Freq`` baseline, which ranks
the objects of each relation by how often they are the object of its facts (in the facts that
pass the model-independent filters; ties broken alphabetically, so P@1 is never shared).
Relation scores are means over kept facts; corpus and relation-type scores are unweighted means
over relations (macro), as in the paper's Table 2, with the released code's two exceptions (see
``table2``). Every table names a system by its label in
``system``; the tables aggregated per system (Table 2, relations) also carry its ``model`` and
``method`` apart, so nothing downstream parses a label.

Each system keeps the facts it can score (``kept``: for a masked model, those whose object is one token of
its own vocabulary), so systems of one corpus may average over different facts; ``shared_facts``
narrows every system to the facts all of them keep, to compare them on one set.
"""

from __future__ import annotations

import random
from itertools import takewhile

import numpy as np
import pandas as pd

from lmprobes.io import SystemColumns
from lmprobes.suites.lama.metrics import precision_at, reciprocal_rank
from lmprobes.suites.lama.release import RELATION_TYPES, SENTENCE_FILES, valid_objects
from lmprobes.suites.lama.uhn import CORPORA as UHN_CORPORA
from lmprobes.suites.lama.uhn import uhn_facts

FREQ = "Freq"
GOOGLE_RE_ROWS = {"place_of_birth": "birth-place", "date_of_birth": "birth-date", "place_of_death": "death-place"}
TYPED_CORPORA = ("trex", "trex_raw", "wikidata_fresh")
# The released run scores ConceptNet's and SQuAD's one file each as one relation ("test"), so their
# corpus score is a mean over facts; ConceptNet's 16 relations appear in the per-relation table only.
# conceptnet_gen, ConceptNet regenerated, is averaged as ConceptNet is, to compare like with like.
PER_FACT_CORPORA = (*SENTENCE_FILES, "conceptnet_gen")
# ConceptNet's Total is over its facts, as released; this row is the macro mean over its predicates
# (relations), the convention of every other corpus, shown beside it and never compared to the paper.
MACRO_ROW = "Macro over predicates"
MACRO_ROW_CORPORA = ("conceptnet", "conceptnet_gen")
# Freq counts objects within a relation; SQuAD's questions share none, and the paper prints "-" there.
NO_FREQ_CORPORA = ("squad",)
TABLE2_COLUMNS = ["source", "corpus", "row", "system", "model", "method", "p1", "n_facts", "n_kept", "n_relations"]
COUNT_COLUMNS = ("n_facts", "n_kept", "n_relations")
PAPER_SYSTEMS = {"Freq": "Freq (paper)", "Txl": "Txl (paper)", "bert-base-cased": "Bb (paper)",
                 "bert-large-cased": "Bl (paper)"}
# How the paper queried each of its systems: Transformer-XL is a left-to-right LM (Petroni et al., Section 2.1).
PAPER_METHODS = {"Freq": "freq", "Txl": "left_context", "bert-base-cased": "masked", "bert-large-cased": "masked"}
# Each system's own kept facts (the paper's protocol), or the facts every system of the corpus keeps.
FACT_SETS = ("own", "shared")
NOT_SHARED = "not_shared"
PRECISION_CURVE_COLUMNS = ["system", "model", "method", "k", "p_at_k"]
FACT_COLUMNS = ["row_id", "corpus", "relation", "relation_label", "relation_type", "sub_label", "obj_label", "query"]


def system_name(model: str, method: str) -> str:
    return model if method == "masked" else f"{model} ({method})"


def scored_facts(dataset: pd.DataFrame, scores: pd.DataFrame, columns: list[str] = FACT_COLUMNS) -> pd.DataFrame:
    """Scores joined with the facts they score (their ``columns``), one row per (fact, method),
    ``system`` added."""
    facts = dataset[columns]
    merged = scores.merge(facts, on="row_id", how="left", validate="many_to_one")
    if merged["corpus"].isna().any():
        missing = merged.loc[merged["corpus"].isna(), "row_id"].iloc[0]
        raise ValueError(f"score row {missing!r} has no fact in the dataset")
    return merged.assign(system=[system_name(m, k) for m, k in zip(merged["model"], merged["method"])])


def shared_facts(facts: pd.DataFrame) -> pd.DataFrame:
    """``facts`` with ``kept`` left only on the facts that every system of their corpus keeps, Freq
    included (``fact_set: shared``); a fact some system keeps and another does not is skipped by the
    systems that kept it, as ``not_shared``. Freq's ranks stay those of the whole relation."""
    kept_by_all = facts.groupby(["corpus", "row_id"], sort=False)["kept"].transform("all").astype(bool)
    shared = facts.assign(kept=facts["kept"] & kept_by_all)
    if "skip_reason" in facts:
        shared["skip_reason"] = facts["skip_reason"].mask(facts["kept"] & ~kept_by_all, NOT_SHARED)
    return shared


def corpora_with_unequal_fact_sets(facts: pd.DataFrame) -> list[str]:
    """The corpora whose systems (Freq included) do not all keep the same facts, in their order in ``facts``."""
    by_fact = facts.groupby(["corpus", "row_id"], sort=False)["kept"]
    unequal = (by_fact.any() & ~by_fact.all()).groupby(level="corpus", sort=False).any()
    return unequal.index[unequal].tolist()


def passes_filters(dataset: pd.DataFrame) -> pd.Series:
    return dataset["in_common_vocab"] & ~dataset["too_long"] & ~dataset["judgment_rejected"] & ~dataset["duplicate"]


def freq_baseline(dataset: pd.DataFrame) -> pd.DataFrame:
    """The Freq system's rows: each fact's object ranked by its frequency in the relation; the
    filtered rank also drops the other valid objects of the fact's subject ranked above it."""
    facts = dataset[passes_filters(dataset)]
    valid = valid_objects(dataset)
    ranks = []
    for relation, group in facts.groupby("relation", sort=False):
        counts = group["obj_label"].value_counts()
        order = sorted(counts.index, key=lambda label: (-counts[label], label))
        position = {label: i + 1 for i, label in enumerate(order)}
        raw = group["obj_label"].map(position)
        above = [
            sum(1 for other in valid.get((relation, subject), ()) if other != gold and position.get(other, rank) < rank)
            for subject, gold, rank in zip(group["sub_label"], group["obj_label"], raw)
        ]
        ranks.append(pd.DataFrame({"rank_raw": raw, "rank_filtered": raw - above}, index=group.index))
    rank = pd.concat(ranks) if ranks else pd.DataFrame({"rank_raw": [], "rank_filtered": []}, dtype="int64")
    out = dataset[FACT_COLUMNS].assign(model=FREQ, method="freq", system=FREQ, kept=False, rank_raw=pd.NA,
                                       rank_filtered=pd.NA)
    out.loc[rank.index, "kept"] = True
    out.loc[rank.index, ["rank_raw", "rank_filtered"]] = rank
    return out.assign(rank_raw=out["rank_raw"].astype("Int64"), rank_filtered=out["rank_filtered"].astype("Int64"))


def per_relation(facts: pd.DataFrame) -> pd.DataFrame:
    """P@1, P@10, MRR (raw) and P@1 (filtered) per system and relation, with fact counts."""
    kept = facts[facts["kept"]]
    per_fact = kept.assign(
        p1=precision_at(kept["rank_raw"], 1),
        p10=precision_at(kept["rank_raw"], 10),
        mrr=reciprocal_rank(kept["rank_raw"]),
        p1_filtered=precision_at(kept["rank_filtered"], 1),
    )
    keys = ["system", "model", "method", "corpus", "relation"]
    means = per_fact.groupby(keys, sort=True)[["p1", "p10", "mrr", "p1_filtered"]].mean() * 100.0
    n_kept = per_fact.groupby(keys, sort=True).size().rename("n_kept")
    lines = facts.groupby(keys, sort=True).agg(
        relation_label=("relation_label", "first"), relation_type=("relation_type", "first"),
        n_facts=("row_id", "size"),
    )
    table = lines.join(n_kept).join(means).reset_index()
    return table.fillna({"n_kept": 0}).astype({"n_kept": "int64"})


def table2(relations: pd.DataFrame, metric: str = "p1") -> pd.DataFrame:
    """Mean P@1 (%) per corpus, Google-RE per relation, typed corpora per relation type, Total.

    As the released ``run_experiments``: ConceptNet and SQuAD, each one file scored as one relation
    ("test"), average over their facts (``PER_FACT_CORPORA``, with ``conceptnet_gen``); ConceptNet's
    ``MACRO_ROW`` averages over its predicates instead. A relation without kept facts
    counts 0, as in the later released code (its ZeroDivisionError fallback; earlier versions stop
    there), so every system is averaged over the same relations. Freq has no SQuAD score, as in the
    paper (its facts still give the corpus's counts).
    """
    records = []
    keys = ["system", "model", "method", "corpus"]
    for (system, model, method, corpus), group in relations.groupby(keys, sort=False):
        for row, subset in _table2_rows(corpus, group):
            records.append({
                "source": "reproduction", "corpus": corpus, "row": row,
                "system": system, "model": model, "method": method,
                "p1": np.nan if system == FREQ and corpus in NO_FREQ_CORPORA
                else _mean(subset, metric, per_fact=corpus in PER_FACT_CORPORA and row != MACRO_ROW),
                "n_facts": int(subset["n_facts"].sum()), "n_kept": int(subset["n_kept"].sum()),
                "n_relations": len(subset),
            })
    return pd.DataFrame.from_records(records, columns=TABLE2_COLUMNS)


def _mean(relations: pd.DataFrame, metric: str, *, per_fact: bool) -> float:
    """The mean over relations, or (``per_fact``) over their kept facts."""
    if relations.empty:
        return np.nan
    values = relations[metric].fillna(0.0)
    if per_fact:
        kept = relations["n_kept"].sum()
        return float((values * relations["n_kept"]).sum() / kept) if kept else 0.0
    return float(values.mean())


def _table2_rows(corpus: str, scored: pd.DataFrame):
    if corpus == "google_re":
        for relation, label in GOOGLE_RE_ROWS.items():
            yield label, scored[scored["relation"] == relation]
    elif corpus in TYPED_CORPORA:
        for kind in RELATION_TYPES:
            yield kind, scored[scored["relation_type"] == kind]
    yield "Total", scored
    if corpus in MACRO_ROW_CORPORA:
        yield MACRO_ROW, scored


def with_published(ours: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    paper = published[published["model"].isin(PAPER_SYSTEMS)]
    paper = paper.assign(source="paper", system=paper["model"].map(PAPER_SYSTEMS),
                         method=paper["model"].map(PAPER_METHODS), p1=paper["value"], n_kept=pd.NA)
    tidy = pd.concat([ours, paper[TABLE2_COLUMNS]], ignore_index=True)
    return tidy.astype(dict.fromkeys(COUNT_COLUMNS, "Int64"))  # counts, not floats, beside the paper's gaps


# The row labels of the Table 2 layouts (``table2_uhn_wide`` adds ``subset``); a column per system follows.
TABLE2_LABELS = ("corpus", "row", "subset", "lines", "facts")


def row_label_count(wide: pd.DataFrame) -> int:
    """How many of a Table 2 layout's leading columns are row labels (``SystemColumns.labels``);
    a system column after them counts for nothing, whatever its name."""
    return sum(1 for _ in takewhile(lambda column: column in TABLE2_LABELS, wide.columns))


def table2_columns(tidy: pd.DataFrame, wide: pd.DataFrame) -> SystemColumns:
    """The layout of a Table 2 frame (``table2_wide``, ``table2_uhn_wide``) for ``write_table``: its row
    labels, Freq and the paper's systems as the references, each reproduced system's model (a causal
    model's methods kept in one part)."""
    ours = tidy[tidy["source"] == "reproduction"]
    return SystemColumns(labels=row_label_count(wide), references=frozenset({FREQ, *PAPER_SYSTEMS.values()}),
                         models=dict(zip(ours["system"], ours["model"])))


def table2_wide(tidy: pd.DataFrame, corpora: list[str]) -> pd.DataFrame:
    """The paper's layout: one line per (corpus, row), one column per system, paper columns last,
    their values as the paper prints them (``printed_as_published``)."""
    tidy = tidy[tidy["corpus"].isin(corpora)]
    ours = tidy[tidy["source"] == "reproduction"]
    models = dict(zip(ours["system"], ours["model"]))
    # By model, then system: a causal model's methods side by side whatever its name sorts next to.
    systems = [FREQ] * (FREQ in models) + sorted(set(models) - {FREQ}, key=lambda system: (models[system], system))
    systems += [s for s in PAPER_SYSTEMS.values() if s in set(tidy["system"])]
    freq = ours[ours["system"] == FREQ].set_index(["corpus", "row"])
    wide = tidy.pivot(index=["corpus", "row"], columns="system", values="p1")
    order = [(c, r) for c in corpora for r in _row_order(c) if (c, r) in wide.index]
    wide = wide.reindex(index=order, columns=[s for s in systems if s in wide.columns])
    # Lines read, and facts left by the model-independent filters (the paper's #Facts).
    wide.insert(0, "facts", freq["n_kept"].reindex(wide.index).astype("Int64"))
    wide.insert(0, "lines", freq["n_facts"].reindex(wide.index).astype("Int64"))
    wide.columns.name = None
    paper = [system for system in PAPER_SYSTEMS.values() if system in wide.columns]
    return wide.assign(**{system: wide[system].map(printed_as_published) for system in paper}).reset_index()


def printed_as_published(value: float) -> str | float:
    """A published value as text with its own decimals, at least one: the paper prints Freq's T-REx
    rows with two (23.85, 21.95), which the tables' one-decimal rounding would change. Missing stays NaN."""
    if pd.isna(value):
        return np.nan
    decimals = len(repr(float(value)).partition(".")[2])
    return f"{value:.{max(decimals, 1)}f}"


UHN_SUBSETS = ("LAMA", "LAMA-UHN")


def table2_uhn(facts: pd.DataFrame, hits: pd.DataFrame | None) -> pd.DataFrame:
    """Table 2's rows of the UHN corpora, over every fact (``LAMA``) and over the facts LAMA-UHN keeps
    (``subset``). A relation left without facts drops out of the macro mean."""
    facts = facts[facts["corpus"].isin(UHN_CORPORA)]
    subsets = {"LAMA": facts, "LAMA-UHN": uhn_facts(facts, hits)}
    return pd.concat([table2(per_relation(subset)).assign(subset=name) for name, subset in subsets.items()],
                     ignore_index=True)


def table2_uhn_wide(tidy: pd.DataFrame, corpora: list[str]) -> pd.DataFrame:
    """``table2_wide`` of each subset, the two lines of a (corpus, row) one after the other."""
    corpora = [c for c in corpora if c in UHN_CORPORA]
    parts = [table2_wide(tidy[tidy["subset"] == name], corpora).assign(subset=name) for name in UHN_SUBSETS]
    wide = pd.concat(parts, ignore_index=True)
    if wide.empty:
        return wide
    position = {(c, r): i for i, (c, r) in enumerate((c, r) for c in corpora for r in _row_order(c))}
    order = sorted(range(len(wide)), key=lambda i: (position[wide["corpus"][i], wide["row"][i]],
                                                    UHN_SUBSETS.index(wide["subset"][i])))
    wide = wide.iloc[order].reset_index(drop=True)
    return wide[["corpus", "row", "subset", *[c for c in wide.columns if c not in ("corpus", "row", "subset")]]]


def _row_order(corpus: str) -> list[str]:
    if corpus == "google_re":
        return [*GOOGLE_RE_ROWS.values(), "Total"]
    if corpus in TYPED_CORPORA:
        return [*RELATION_TYPES, "Total"]
    if corpus in MACRO_ROW_CORPORA:
        return ["Total", MACRO_ROW]
    return ["Total"]


def precision_curve(facts: pd.DataFrame, corpus: str = "trex", ks=range(1, 101)) -> pd.DataFrame:
    """Figure 2: mean P@k (%) over the corpus' relations for each system (its model and method) and k
    (macro; a relation without kept facts counts 0, as in Table 2)."""
    in_corpus = facts[facts["corpus"] == corpus]
    scored = in_corpus[in_corpus.groupby("system")["kept"].transform("any").astype(bool)]
    records = []
    for (system, model, method), group in scored.groupby(["system", "model", "method"], sort=True, dropna=False):
        kept = group["kept"].to_numpy(dtype=bool)
        ranks = group["rank_raw"].astype(float).to_numpy()
        relations = group["relation"].to_numpy()
        for k in ks:
            hits = pd.Series(np.where(kept, ranks <= k, np.nan), dtype=float)
            per_relation = hits.groupby(relations).mean().fillna(0.0)
            records.append({"system": system, "model": model, "method": method, "k": k,
                            "p_at_k": 100.0 * float(per_relation.mean())})
    return pd.DataFrame.from_records(records, columns=PRECISION_CURVE_COLUMNS)


def filter_counts_table(dataset_counts: dict[str, dict], facts: pd.DataFrame) -> pd.DataFrame:
    """Facts each filter removes: the model-independent ones per corpus (``dataset``), then what each
    system skips on top of them and keeps."""
    records = [
        {"corpus": corpus, "system": "dataset", "filter": name, "facts": int(value)}
        for corpus, counts in dataset_counts.items() for name, value in counts.items()
    ]
    for (corpus, system), group in facts[facts["system"] != FREQ].groupby(["corpus", "system"], sort=True):
        reasons = group.loc[~group["kept"], "skip_reason"].value_counts().sort_index()
        records += [{"corpus": corpus, "system": system, "filter": r, "facts": int(n)} for r, n in reasons.items()]
        records.append({"corpus": corpus, "system": system, "filter": "kept", "facts": int(group["kept"].sum())})
    return pd.DataFrame.from_records(records, columns=["corpus", "system", "filter", "facts"])


def filter_counts_wide(tidy: pd.DataFrame) -> pd.DataFrame:
    wide = tidy.pivot_table(index=["corpus", "system"], columns="filter", values="facts", aggfunc="first", sort=False)
    first = ["lines", "too_long", "not_in_common_vocab", "not_single_token", "unknown_token", "judgment_rejected",
             "duplicate"]
    columns = [c for c in first if c in wide.columns] + sorted(set(wide.columns) - set(first) - {"kept"})
    columns += ["kept"] if "kept" in wide.columns else []
    wide = wide.reindex(columns=columns).astype("Int64")
    wide.columns.name = None
    return wide.reset_index()


def example_system(facts: pd.DataFrame, model: str | None) -> str:
    """The system whose generations fill Table 3: ``model``'s first method (the first scored
    model when ``model`` is None)."""
    scored = facts[facts["system"] != FREQ]
    candidates = scored if model is None else scored[scored["model"] == model]
    if candidates.empty:
        raise ValueError(f"no scores of model {model!r} for Table 3")
    return candidates["system"].iloc[0]


def example_generations(facts: pd.DataFrame, system: str, corpora: list[str], seed: int, n_top: int = 5) -> pd.DataFrame:
    """Table 3: one seeded random kept fact per relation, with the system's top tokens and log-probs."""
    kept = facts[(facts["system"] == system) & facts["kept"] & facts["corpus"].isin(corpora)]
    records = []
    for (corpus, relation), group in kept.groupby(["corpus", "relation"], sort=True):
        rows = group.sort_values("row_id")
        fact = rows.iloc[random.Random(f"{seed}:{corpus}:{relation}").randrange(len(rows))]
        generation = ", ".join(f"{t} [{v:.1f}]" for t, v in zip(fact["top_tokens"][:n_top], fact["top_logprobs"][:n_top]))
        records.append({"corpus": corpus, "relation": relation, "query": fact["query"], "answer": fact["obj_label"],
                        "rank": int(fact["rank_raw"]), "generation": generation, "system": system})
    columns = ["corpus", "relation", "query", "answer", "rank", "generation", "system"]
    return pd.DataFrame.from_records(records, columns=columns)


# --- paraphrase robustness (the ``paraphrases`` corpus: each T-REx fact under several templates) ---

PARAPHRASE_FACT_COLUMNS = [*FACT_COLUMNS, "template", "template_id", "fact_id"]
PARAPHRASE_SCORED_COLUMNS = ["system", "model", "method", "relation", "relation_label", "template_id", "fact_id",
                             "kept", "hit", "top1", "article_mismatch"]
VOWELS = ("a", "e", "i", "o", "u")
PARAPHRASE_COLUMNS = ["system", "model", "method", "relation", "relation_label", "n_templates", "n_facts",
                      "p1_original", "p1_mean", "p1_min", "p1_max", "consistency", "n_consistency_facts"]
P1_COLUMNS = ["p1_original", "p1_mean", "p1_min", "p1_max"]


def paraphrase_scored(dataset: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """One score file of the paraphrase corpus joined with its facts (``PARAPHRASE_SCORED_COLUMNS``):
    per (fact, template, method) whether it is kept, ``hit`` (rank 1; null when skipped), ``top1``,
    the system's first answer (its top-1 token, or for ``candidates`` its top candidate), and whether
    the template's article before the object misfits it (``article_mismatch``)."""
    merged = scored_facts(dataset, scores, PARAPHRASE_FACT_COLUMNS)
    kept = merged["kept"].astype(bool)
    top1 = [tokens[0] if keep and len(tokens) else None for tokens, keep in zip(merged["top_tokens"], kept)]
    hit = precision_at(merged["rank_raw"], 1).where(kept)
    mismatch = [article_mismatch(t, o) for t, o in zip(merged["template"], merged["obj_label"], strict=True)]
    return merged.assign(kept=kept, hit=hit, top1=top1, article_mismatch=mismatch)[PARAPHRASE_SCORED_COLUMNS]


def article_mismatch(template: str, obj_label: str) -> bool:
    """ParaRel's a/an filter (``filter_a_an_vowel_mismatch``): the word before ``[Y]`` is "a" and the
    object starts with a vowel letter, or "an" and it does not (letters, not sounds, as there)."""
    words = template.split(" ")
    slot = next(i for i, word in enumerate(words) if "[Y]" in word)
    if slot == 0:
        return False
    vowel = obj_label.lower().startswith(VOWELS)
    return (words[slot - 1] == "a" and vowel) or (words[slot - 1] == "an" and not vowel)


def template_p1(scored: pd.DataFrame) -> pd.DataFrame:
    """P@1 (%) of each system on each template of each relation, over the facts kept under it."""
    kept = scored[scored["kept"]]
    keys = ["system", "relation", "template_id"]
    grouped = kept.groupby(keys, sort=True)["hit"]
    return pd.DataFrame({"p1": grouped.mean() * 100.0, "n_kept": grouped.size()}).reset_index()


def fact_consistency(scored: pd.DataFrame, *, a_an_filter: bool = True) -> pd.DataFrame:
    """ParaRel's consistency pairs of each fact: the pairs of its templates (both kept, and with
    ``a_an_filter`` neither with an ``article_mismatch``) and how many of them agree on the top-1
    answer. Facts with fewer than two such templates have none (left out)."""
    kept = scored[scored["kept"] & ~(scored["article_mismatch"].astype(bool) & a_an_filter)]
    keys = ["system", "relation", "fact_id"]
    templates = kept.groupby(keys, sort=True).size()
    answers = kept.groupby([*keys, "top1"], sort=True, dropna=False).size()
    agreeing = (answers * (answers - 1) // 2).groupby(level=keys, sort=True).sum().reindex(templates.index)
    out = pd.DataFrame({"templates": templates, "pairs": templates * (templates - 1) // 2, "agreeing": agreeing})
    out = out[out["pairs"] > 0]
    return out.assign(consistency=out["agreeing"] / out["pairs"]).reset_index()


def paraphrase_table(scored: pd.DataFrame, dataset: pd.DataFrame, *, a_an_filter: bool = True) -> pd.DataFrame:
    """Per system and relation: the templates, the facts kept under any of them, P@1 (%) of LAMA's
    template (``p1_original``, template 0) and the mean, min and max of the templates' P@1 (over the
    templates with a kept fact), and consistency (%): the agreeing share of all the relation's
    ``fact_consistency`` pairs, as ParaRel counts it (points / total over every subject and pair);
    then a ``Total`` per system, macro over relations. In the Total a relation without kept facts
    counts 0 in the P@1 columns (as in Table 2), and consistency averages over the relations that
    have it (two or more templates)."""
    if scored.empty:
        return pd.DataFrame(columns=PARAPHRASE_COLUMNS)
    relations = sorted(dict.fromkeys(dataset["relation"]), key=lambda r: (len(r), r))
    n_templates = dataset.groupby("relation")["template_id"].nunique()
    labels = dataset.groupby("relation")["relation_label"].first()
    templates = template_p1(scored)
    p1 = templates.groupby(["system", "relation"])["p1"]
    per_template = pd.DataFrame({"p1_mean": p1.mean(), "p1_min": p1.min(), "p1_max": p1.max()})
    original = templates[templates["template_id"] == 0].set_index(["system", "relation"])["p1"]
    by_relation = fact_consistency(scored, a_an_filter=a_an_filter).groupby(["system", "relation"])
    consistency = by_relation["agreeing"].sum() / by_relation["pairs"].sum() * 100.0
    consistency_facts = by_relation.size()
    kept = scored[scored["kept"]].groupby(["system", "relation"])["fact_id"].nunique()
    systems = scored[["system", "model", "method"]].drop_duplicates().sort_values("system")
    records = []
    for system, model, method in systems.itertuples(index=False):
        rows = []
        for relation in relations:
            key = (system, relation)
            stats = per_template.loc[key] if key in per_template.index else None
            rows.append({
                "system": system, "model": model, "method": method, "relation": relation,
                "relation_label": labels.get(relation), "n_templates": int(n_templates[relation]),
                "n_facts": int(kept.get(key, 0)), "p1_original": original.get(key, np.nan),
                **{c: (np.nan if stats is None else float(stats[c])) for c in ("p1_mean", "p1_min", "p1_max")},
                "consistency": consistency.get(key, np.nan),
                "n_consistency_facts": int(consistency_facts.get(key, 0)),
            })
        frame = pd.DataFrame.from_records(rows, columns=PARAPHRASE_COLUMNS)
        total = {"system": system, "model": model, "method": method, "relation": "Total", "relation_label": "",
                 "n_templates": int(frame["n_templates"].sum()), "n_facts": int(frame["n_facts"].sum()),
                 **{c: float(frame[c].fillna(0.0).mean()) for c in P1_COLUMNS},
                 "consistency": float(frame["consistency"].mean()) if frame["consistency"].notna().any() else np.nan,
                 "n_consistency_facts": int(frame["n_consistency_facts"].sum())}
        records += [*rows, total]
    return pd.DataFrame.from_records(records, columns=PARAPHRASE_COLUMNS)
