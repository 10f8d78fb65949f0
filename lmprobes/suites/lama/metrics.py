"""LAMA's per-fact metrics from ranks: P@k and the reciprocal rank (0 beyond the top 10,000, as released)."""

from __future__ import annotations

import pandas as pd

# The released run_thread ranks the top 10,000 of the common vocabulary (get_ranking(..., topk=10000),
# facebookresearch/LAMA 4ef49cf, later 5,000; get_ranking's own default of 1,000 is never used there).
MRR_CUTOFF = 10000


def precision_at(ranks: pd.Series, k: int) -> pd.Series:
    return (ranks.notna() & (ranks.fillna(k + 1) <= k)).astype(float)


def reciprocal_rank(ranks: pd.Series, cutoff: int = MRR_CUTOFF) -> pd.Series:
    """1/rank within the top ``cutoff`` (the released code ranks only the top 10,000), else 0."""
    ranks = ranks.astype("Float64")
    return (1.0 / ranks).where(ranks <= cutoff, 0.0).fillna(0.0).astype(float)
