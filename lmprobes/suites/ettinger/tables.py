"""The paper's tables as pure aggregations over per-item scores, with published numbers beside.

Every quantitative table is first a tidy frame (table, source, model, row, column, value, sd, n,
unscorable); CSV keeps it tidy, Markdown pivots it to the paper's layout. Conventions of the
released code: a CPRAG context counts once; ROLE hits on the first word of any alternative; NEG
accuracy counts only TA rows; sensitivity with threshold requires the good item to win by more
than the threshold. Shuffled conditions report mean and population sd over runs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lmprobes.suites.ettinger.datasets import ROLE_CLOZE_BINS, cloze_bin

TIDY_COLUMNS = ["table", "source", "model", "row", "column", "value", "sd", "n", "unscorable"]
SOURCE_ORDER = {"paper": 0, "reproduction": 1, "hf_rerun": 2}  # the lines of one (row, model), in order

TITLES = {
    "table4": "Table 4: CPRAG-102 word prediction accuracy (%), with perturbations",
    "table4_constraint": "Table 4 (split): CPRAG-102 accuracy (%) by constraint, unperturbed",
    "table5": "Table 5: CPRAG-102 items with good completion more probable than bad (%)",
    "table7": "Table 7: ROLE-88 word prediction accuracy (%), with perturbations",
    "table8": "Table 8: ROLE-88 accuracy (%) by max cloze of the context",
    "table9": "Table 9: ROLE-88 items with target more probable in the canonical order (%)",
    "table11": "Table 11: NEG-136-SIMP affirmative accuracy (%)",
    "table12": "Table 12: NEG-136-SIMP items with true completion more probable than false (%)",
    "table14": "Table 14: NEG-136-NAT items with true completion more probable than false (%)",
    "table6": "Table 6: top-5 predictions for selected CPRAG-102 items",
    "table10": "Table 10: top-5 predictions for selected ROLE-88 sentences",
    "table13": "Table 13: top-5 predictions for selected NEG-136-SIMP sentences",
    "table15": "Table 15: top-5 predictions for selected NEG-136-NAT sentences",
}
QUANTITATIVE = ("table4", "table4_constraint", "table5", "table7", "table8", "table9", "table11", "table12", "table14")
QUALITATIVE = ("table6", "table10", "table13", "table15")
CPRAG_LABELS = {"orig": "Orig", "shuf": "Shuf", "trunc": "Trunc", "shuf_trunc": "Shuf+Trunc"}
ROLE_LABELS = {"orig": "Orig", "obj": "-Obj", "sub": "-Sub", "both": "-Both"}
KS = (1, 5)
# What the tables and the figure read of a score file (the rest: token ids, top probabilities, input text).
SCORE_COLUMNS = ["row_id", "target_prob", "expected_rank", "expected_scorable", "top_tokens"]


def merge_scores(items: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    merged = items.merge(scores, on="row_id", how="inner", validate="one_to_one")
    if len(merged) != len(items):
        raise ValueError(f"scores cover {len(merged)} of {len(items)} dataset rows")
    return merged


def hits_at(df: pd.DataFrame, k: int) -> np.ndarray:
    """Whether an expected word is among the top ``k`` predictions (unscorable words never hit)."""
    rank = df["expected_rank"]
    return (rank.notna() & (rank.fillna(0) <= k)).to_numpy(dtype=bool)


def _record(table, model, row, column, value, n, sd=np.nan, unscorable=0) -> dict:
    return {
        "table": table,
        "source": "reproduction",
        "model": model,
        "row": row,
        "column": column,
        "value": value,
        "sd": sd,
        "n": n,
        "unscorable": unscorable,
    }


def _percent(flags) -> float:
    flags = np.asarray(flags, dtype=float)
    return float(100.0 * flags.mean()) if flags.size else np.nan


# --- accuracy ----------------------------------------------------------------------------


def cprag_accuracy(model: str, df: pd.DataFrame) -> list[dict]:
    expected = df[df["completion"] == "expected"]
    records = []
    for k in KS:
        for condition, label in CPRAG_LABELS.items():
            sub = expected[expected["condition"] == condition]
            per_run = sub.assign(hit=hits_at(sub, k)).groupby("run")["hit"].mean() * 100.0
            sd = float(per_run.std(ddof=0)) if len(per_run) > 1 else np.nan
            n = int(sub["item"].nunique())
            records.append(_record("table4", model, f"k={k}", label, float(per_run.mean()), n, sd, _count_unscorable(sub, "run")))
        orig = expected[expected["condition"] == "orig"]
        for constraint in ("H", "L"):
            sub = orig[orig["constraint"] == constraint]
            records.append(_record("table4_constraint", model, f"k={k}", constraint, _percent(hits_at(sub, k)), len(sub), unscorable=_count_unscorable(sub)))
    return records


def role_accuracy(model: str, df: pd.DataFrame) -> list[dict]:
    records = []
    for k in KS:
        for condition, label in ROLE_LABELS.items():
            sub = df[df["condition"] == condition]
            records.append(_record("table7", model, f"k={k}", label, _percent(hits_at(sub, k)), len(sub), unscorable=_count_unscorable(sub)))
        orig = df[df["condition"] == "orig"]
        for bin_name in _cloze_bins_of(orig):
            sub = orig[orig["cloze_bin"] == bin_name]
            label = bin_name.replace("0.", ".")
            records.append(_record("table8", model, f"k={k}", label, _percent(hits_at(sub, k)), len(sub), unscorable=_count_unscorable(sub)))
    return records


def _cloze_bins_of(orig: pd.DataFrame) -> list[str]:
    """The paper's four bins, and one above the last edge when a sentence falls there.

    The released code's last bin has no upper edge; the paper's edges are the release's quartiles,
    so only an edited or replacement ROLE file can reach past .77, and its sentences are shown
    in a bin of their own rather than dropped from the table.
    """
    bins = [f"<={edge:.2f}" for edge in ROLE_CLOZE_BINS]
    above = cloze_bin(1.0)
    return bins + [above] if (orig["cloze_bin"] == above).any() else bins


def neg_simp_accuracy(model: str, df: pd.DataFrame) -> list[dict]:
    ta = df[df["condition"] == "TA"]
    return [
        _record("table11", model, f"k={k}", "Accuracy", _percent(hits_at(ta, k)), len(ta), unscorable=_count_unscorable(ta))
        for k in KS
    ]


def _count_unscorable(df: pd.DataFrame, per: str | None = None) -> int:
    """Items whose expected word is not a single token for this model (they can never hit)."""
    if per is not None:
        df = df[df[per] == df[per].min()]
    return int((~df["expected_scorable"]).sum())


# --- sensitivity -------------------------------------------------------------------------


def _prefers(good: pd.Series, bads: list[pd.Series], threshold: float, policy: str):
    """(prefer flags, prefer-with-threshold flags, scorable mask) for paired probabilities.

    Preference is strict (``>``, as the released code compares): a tie is not a preference."""
    scorable = good.notna()
    for bad in bads:
        scorable &= bad.notna()
    prefer = pd.Series(True, index=good.index)
    strong = pd.Series(True, index=good.index)
    for bad in bads:
        prefer &= good > bad
        strong &= (good > bad) & ((good - bad).abs() > threshold)
    if policy == "exclude":
        return prefer[scorable], strong[scorable], scorable
    return prefer, strong, scorable


def _sensitivity_records(table, model, row, prefer, strong, scorable, labels: tuple[str, str]) -> list[dict]:
    """The plain and the with-threshold preference percentages of one comparison."""
    unscorable = int((~scorable).sum())
    return [
        _record(table, model, row, labels[0], _percent(prefer), len(prefer), unscorable=unscorable),
        _record(table, model, row, labels[1], _percent(strong), len(strong), unscorable=unscorable),
    ]


def cprag_sensitivity(model: str, df: pd.DataFrame, threshold: float, policy: str) -> list[dict]:
    orig = df[df["condition"] == "orig"]
    probs = orig.pivot(index="item", columns="completion", values="target_prob")
    prefer, strong, scorable = _prefers(probs["expected"], [probs["within_category"], probs["between_category"]], threshold, policy)
    return _sensitivity_records("table5", model, "", prefer, strong, scorable, ("Prefer good", _threshold_label(threshold)))


def role_sensitivity(model: str, df: pd.DataFrame, threshold: float, policy: str) -> list[dict]:
    orig = df[df["condition"] == "orig"]
    probs = orig.pivot(index="pair", columns="role", values="target_prob")
    prefer, strong, scorable = _prefers(probs["a"], [probs["b"]], threshold, policy)
    return _sensitivity_records("table9", model, "", prefer, strong, scorable, ("Prefer good", _threshold_label(threshold)))


def _threshold_label(threshold: float) -> str:
    """The paper's column name, e.g. ``w/ .01 thresh``."""
    return f"w/ {threshold:g} thresh".replace("0.", ".")


def _true_vs_false(df: pd.DataFrame, polarity: str, threshold: float, policy: str):
    true_cond, false_cond = ("TA", "FA") if polarity == "aff" else ("TN", "FN")
    probs = df.pivot(index="item", columns="condition", values="target_prob")
    return _prefers(probs[true_cond], [probs[false_cond]], threshold, policy)


def neg_simp_sensitivity(model: str, df: pd.DataFrame, threshold: float, policy: str) -> list[dict]:
    records = []
    for polarity, label in (("aff", "Affirmative"), ("neg", "Negative")):
        prefer, strong, scorable = _true_vs_false(df, polarity, threshold, policy)
        labels = (label, f"{label} {_threshold_label(threshold)}")
        records += _sensitivity_records("table12", model, "", prefer, strong, scorable, labels)
    return records


def neg_nat_sensitivity(model: str, df: pd.DataFrame, threshold: float, policy: str) -> list[dict]:
    records = []
    for licensing, naturalness in (("Y", "NT"), ("N", "LN")):
        sub = df[df["licensing"] == licensing]
        for polarity, label in (("aff", "Aff."), ("neg", "Neg.")):
            prefer, _, scorable = _true_vs_false(sub, polarity, threshold, policy)
            records.append(_record("table14", model, "", f"{label} {naturalness}", _percent(prefer), len(prefer), unscorable=int((~scorable).sum())))
    return records


# --- assembling --------------------------------------------------------------------------


def model_records(model: str, data: dict[str, pd.DataFrame], threshold: float, policy: str) -> list[dict]:
    """One model's tidy numbers; ``data[dataset]`` is the dataset's items joined with its scores."""
    return [
        *cprag_accuracy(model, data["cprag"]),
        *cprag_sensitivity(model, data["cprag"], threshold, policy),
        *role_accuracy(model, data["role"]),
        *role_sensitivity(model, data["role"], threshold, policy),
        *neg_simp_accuracy(model, data["neg_simp"]),
        *neg_simp_sensitivity(model, data["neg_simp"], threshold, policy),
        *neg_nat_sensitivity(model, data["neg_nat"], threshold, policy),
    ]


def tidy_frame(records: list[dict]) -> pd.DataFrame:
    return pd.DataFrame.from_records(records, columns=TIDY_COLUMNS)


def quantitative_tables(merged: dict[str, dict[str, pd.DataFrame]], threshold: float, policy: str) -> pd.DataFrame:
    """Tidy numbers for every model; ``merged[model][dataset]`` is items joined with scores."""
    return tidy_frame([record for model, data in merged.items()
                       for record in model_records(model, data, threshold, policy)])


def with_published(ours: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """Ours beside the published numbers: the paper's and, for a few cells, the HuggingFace rerun of the
    original code that ``spec/ETTINGER.md`` quotes (``source`` ``hf_rerun``: the drift to expect)."""
    unknown = sorted(set(published["source"]) - set(SOURCE_ORDER))
    if unknown:
        raise ValueError(f"published Ettinger numbers: unknown source(s) {unknown}; known: {list(SOURCE_ORDER)}")
    # Tables without a row label (5, 9, 12, 14) read back from CSV with NaN there.
    paper = published.assign(n=pd.NA, unscorable=pd.NA, row=published["row"].fillna(""))
    both = pd.concat([ours, paper[TIDY_COLUMNS]], ignore_index=True).astype({"n": "Int64", "unscorable": "Int64"})
    # The paper's order: grouped by k first (base k=1, large k=1, base k=5, large k=5), then model.
    order = both["source"].map(SOURCE_ORDER)
    return (both.assign(order=order).sort_values(["table", "row", "model", "order"], kind="stable")
            .drop(columns="order").reset_index(drop=True))


def _cell(value: float, sd: float) -> str:
    if pd.isna(value):
        return ""
    return f"{value:.1f} ± {sd:.1f}" if not pd.isna(sd) else f"{value:.1f}"


def wide_table(tidy: pd.DataFrame, table: str) -> pd.DataFrame:
    """The paper's layout: one line per (model, source, row), one column per condition; no ``row`` column
    for a table without row labels (Tables 5, 9, 12, 14)."""
    sub = tidy[tidy["table"] == table]
    columns = list(dict.fromkeys(sub.loc[sub["source"] == "reproduction", "column"])) or list(dict.fromkeys(sub["column"]))
    sub = sub.assign(cell=[_cell(v, s) for v, s in zip(sub["value"], sub["sd"])])
    lines = list(dict.fromkeys(zip(sub["model"], sub["source"], sub["row"])))  # the order ``with_published`` gives
    wide = sub.pivot_table(index=["model", "source", "row"], columns="column", values="cell", aggfunc="first", sort=False)
    wide = wide.reindex(index=lines, columns=[c for c in columns if c in wide.columns]).reset_index()
    wide.columns.name = None
    wide = wide.fillna("")
    return wide if wide["row"].astype(bool).any() else wide.drop(columns="row")


def unscorable_note(tidy: pd.DataFrame, table: str) -> str:
    sub = tidy[(tidy["table"] == table) & (tidy["source"] == "reproduction") & (tidy["unscorable"] > 0)]
    if sub.empty:
        return ""
    counts = sub.groupby("model")["unscorable"].max().astype(int)
    parts = ", ".join(f"{m}: {c}" for m, c in counts.items())
    return f"\nItems with a target or expected word that is not one token (excluded or unhittable): {parts}.\n"


SELECTION_KEYS = ["table", "dataset", "item", "condition"]


def selected_predictions(data: dict[str, pd.DataFrame], selection: pd.DataFrame) -> dict[tuple, tuple[str, str]]:
    """What the qualitative tables take of one model's ``data[dataset]`` (items joined with scores):
    (dataset, item, condition) of each selected context -> (the context with its blank, the top 5)."""
    picked = {}
    for _, dataset, item, condition in selection[SELECTION_KEYS].dropna().drop_duplicates().itertuples(index=False):
        df = data[dataset]
        row = df[(df["item"] == item) & (df["condition"] == condition)].iloc[0]
        picked[dataset, item, condition] = (f"{row['context']} ____", ", ".join(row["top_tokens"][:5]))
    return picked


def qualitative_tables(merged: dict[str, dict[str, pd.DataFrame]], selection: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """Top-5 lists of the selected contexts: ours for each model, then the paper's."""
    return qualitative_from_predictions({model: selected_predictions(merged[model], selection) for model in models},
                                        selection)


def qualitative_from_predictions(predictions: dict[str, dict[tuple, tuple[str, str]]],
                                 selection: pd.DataFrame) -> pd.DataFrame:
    """``qualitative_tables`` from each shown model's ``selected_predictions``, models in their order."""
    records = []
    for (table, dataset, item, condition), paper in selection.groupby(SELECTION_KEYS, sort=False):
        context = None
        for model, picked in predictions.items():
            context, top = picked[dataset, item, condition]
            records.append(_qualitative(table, context, model, "reproduction", top))
        for entry in paper.itertuples(index=False):
            records.append(_qualitative(table, context, entry.model, "paper", entry.paper_predictions))
    return pd.DataFrame.from_records(records, columns=["table", "context", "model", "source", "predictions"])


def _qualitative(table, context, model, source, predictions) -> dict:
    return {"table": table, "context": context, "model": model, "source": source, "predictions": predictions}
