"""LAMA's metrics from per-fact ranks: P@k, MRR (0 beyond the top 1,000, as released), macro means."""

from __future__ import annotations

import pandas as pd

MRR_CUTOFF = 1000


def precision_at(ranks: pd.Series, k: int) -> pd.Series:
    return (ranks.notna() & (ranks.fillna(k + 1) <= k)).astype(float)


def reciprocal_rank(ranks: pd.Series, cutoff: int = MRR_CUTOFF) -> pd.Series:
    """1/rank within the top ``cutoff`` (the released code ranks only the top 1,000), else 0."""
    ranks = ranks.astype("Float64")
    return (1.0 / ranks).where(ranks <= cutoff, 0.0).fillna(0.0).astype(float)


def relation_scores(scores: pd.DataFrame, rank: str = "rank_raw") -> pd.DataFrame:
    """Mean P@1, P@10, MRR over the kept facts of each relation, with fact counts."""
    kept = scores[scores["kept"]]
    per_fact = pd.DataFrame(
        {
            "corpus": kept["corpus"],
            "relation": kept["relation"],
            "p1": precision_at(kept[rank], 1),
            "p10": precision_at(kept[rank], 10),
            "mrr": reciprocal_rank(kept[rank]),
        }
    )
    table = per_fact.groupby(["corpus", "relation"], sort=True).agg(
        p1=("p1", "mean"), p10=("p10", "mean"), mrr=("mrr", "mean"), n_kept=("p1", "size")
    )
    lines = scores.groupby(["corpus", "relation"], sort=True).size().rename("n_facts")
    return table.join(lines, how="right").fillna({"n_kept": 0}).reset_index()


def corpus_scores(per_relation: pd.DataFrame) -> pd.DataFrame:
    """Unweighted mean over relations (macro), as in the paper's Table 2."""
    scored = per_relation[per_relation["n_kept"] > 0]
    return scored.groupby("corpus", sort=True)[["p1", "p10", "mrr"]].mean().reset_index()
