"""Every published number of the four papers, read from the committed resource files into one long frame.

One row per published NUMBER, keyed by ``KEYS`` = (suite, table, item, column, paper_system):

* ``table``: the paper's table (``table2``); BLiMP overall accuracies that later papers report for
  other scoring methods (``salazar2020``, ``kauf2023``) sit in ``table3`` with the paper in ``note``
  (their systems name the method, so the keys stay unique).
* ``item``: the row key: LAMA ``corpus/row`` (``trex/N-1``), BLiMP category (``overall`` included) or
  paradigm, oLMpics task, Ettinger row (``k=1``) or, for tables without rows, the dataset (``CPRAG-102``).
* ``column``: the metric column as the paper labels it (``P@1``, ``Orig``, ``mlp_ws``); a standard
  deviation published beside a mean is its own number, column ``<column> (sd)``.
* ``paper_system``: the system as the committed resource file names it, which is the paper's label
  (``Freq``, ``TXL``) or our model slug where the resource already maps it (``bert-base-cased``); a
  BLiMP system with a scoring method is ``model (method)``; a HuggingFace rerun of a paper's code is
  ``model (HF)`` (oLMpics' ``roberta-large (HF)``, Ettinger's ``bert-base-uncased (HF)``); LAMA's
  dataset sizes (#Facts, #Rel) belong to ``(dataset)``.
* ``metric``: a key into ``resources/report/tolerances.csv``.
* ``published``: a float, in percent for every accuracy-like metric (BLiMP's per-paradigm
  fractions are multiplied by 100); LAMA's #Facts and #Rel are counts.

Not numbers, so not here: LAMA Table 3 (``table3_paper.tsv``) and Ettinger Tables 6, 10, 13, 15
(``qualitative.csv``) hold predicted words, oLMpics Table 4 (``table4_paper.csv``) holds
``smaller``/``larger`` words; the suites' own tables already show them beside ours.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

KEYS = ["suite", "table", "item", "column", "paper_system"]
COLUMNS = [*KEYS, "metric", "published", "note"]
SUITES = ("lama", "blimp", "olmpics", "ettinger")
DATASET = "(dataset)"
RERUN_SUFFIX = " (HF)"  # a HuggingFace rerun of a paper's code, as a system of its own

# Ettinger: the dataset of each quantitative table (the item of tables without rows) and its metric.
ETTINGER_TABLES = {
    "table4": ("CPRAG-102", "ettinger_accuracy"),
    "table5": ("CPRAG-102", "ettinger_sensitivity"),
    "table7": ("ROLE-88", "ettinger_accuracy"),
    "table8": ("ROLE-88", "ettinger_accuracy_small"),
    "table9": ("ROLE-88", "ettinger_sensitivity"),
    "table11": ("NEG-136-SIMP", "ettinger_accuracy_small"),
    "table12": ("NEG-136-SIMP", "ettinger_sensitivity_exact"),
    "table14": ("NEG-136-NAT", "ettinger_sensitivity_nat"),
}
# Table 12 prints no thresholded column; Section 9.2's text gives it ("all items pass but one").
ETTINGER_TEXT_METRIC = "ettinger_sensitivity_text"
ETTINGER_TEXT_NOTE = "from Section 9.2's text, not a table cell"
# A few cells of a rerun of the original code with HuggingFace's BERTs (spec/ETTINGER.md), as systems
# of their own: ``bert-base-uncased (HF)``.
ETTINGER_SOURCES = {"paper": "", "hf_rerun": RERUN_SUFFIX}
ETTINGER_RERUN_NOTE = "HuggingFace rerun of the original code, not the paper"
OLMPICS_METRICS = {
    "zero_shot": "olmpics_zero_shot",
    "mlp_ws": "olmpics_ws", "linear_ws": "olmpics_ws", "mc_qa_ws": "olmpics_ws",
    "mlp_max": "olmpics_max", "linear_max": "olmpics_max", "mc_qa_max": "olmpics_max",
    "langsense_pert": "olmpics_langsense", "langsense_nolang": "olmpics_langsense",
}


class PublishedError(ValueError):
    """A published-numbers file that cannot be read; the message names the file and the line."""


def read_published(resources: Path) -> pd.DataFrame:
    """All published numbers of the four suites, sorted by ``KEYS`` (which are unique)."""
    resources = Path(resources)
    frames = [lama_published(resources / "lama" / "published.csv"),
              blimp_published(resources / "blimp" / "published.csv"),
              blimp_paradigms_published(resources / "blimp" / "published_paradigms.csv"),
              olmpics_published(resources / "olmpics" / "published.csv"),
              ettinger_published(resources / "ettinger" / "published.csv")]
    frame = pd.concat(frames, ignore_index=True)[COLUMNS]
    duplicated = frame.duplicated(KEYS)
    if duplicated.any():
        raise PublishedError(f"published numbers: duplicate key {dict(frame.loc[duplicated, KEYS].iloc[0])}")
    return sort_keys(frame)


def natural(values: pd.Series) -> pd.Series:
    """Sort key: digit runs compared as numbers (``table2`` before ``table11``)."""
    return values.astype(str).str.replace(r"\d+", lambda m: m.group().zfill(8), regex=True)


def sort_keys(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` in the deterministic order of every report table: by ``KEYS``, numbers in names as numbers."""
    return frame.sort_values(KEYS, key=natural, kind="stable").reset_index(drop=True)


def read_text_csv(path: Path, columns: list[str], error: type[ValueError] | None = None,
                  what: str = "published-numbers file") -> pd.DataFrame:
    """Every cell as text; ``error`` (default ``PublishedError``) names the file when it or a column is missing."""
    error = error or PublishedError
    if not path.is_file():
        raise error(f"{path}: {what} not found")
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise error(f"{path}: missing column(s) {missing}")
    return frame



def _numbers(path: Path, texts: pd.Series) -> pd.Series:
    """``texts`` as floats; a cell that is not a number is an error naming its line (header = line 1)."""
    values = pd.to_numeric(texts, errors="coerce")
    bad = values.isna()
    if bad.any():
        line = int(texts.index[bad][0]) + 2  # the frame's index is the file's data line, from 0
        raise PublishedError(f"{path}:{line}: {texts[bad].iloc[0]!r} is not a number")
    return values.astype(float)


def _frame(suite: str, **columns) -> pd.DataFrame:
    return pd.DataFrame({"suite": suite, **columns}).reindex(columns=COLUMNS)


def lama_published(path: Path) -> pd.DataFrame:
    """Table 2's P@1 cells, then its #Facts and #Rel (once per corpus row; an empty #Rel is absent)."""
    raw = read_text_csv(path, ["corpus", "row", "model", "value", "n_facts", "n_relations"])
    item = raw["corpus"] + "/" + raw["row"]
    p1 = _frame("lama", table="table2", item=item, column="P@1", paper_system=raw["model"],
                metric="lama_p_at_1", published=_numbers(path, raw["value"]), note="")
    sizes = [p1]
    for name, label, metric in (("n_facts", "#Facts", "lama_facts"), ("n_relations", "#Rel", "lama_relations")):
        first = raw.assign(item=item).drop_duplicates("item")
        first = first[first[name] != ""]
        sizes.append(_frame("lama", table="table2", item=first["item"], column=label, paper_system=DATASET,
                            metric=metric, published=_numbers(path, first[name]), note="model-independent"))
    return pd.concat(sizes, ignore_index=True)


def blimp_system(model: str, method: str) -> str:
    return f"{model} ({method})" if method else model


def blimp_published(path: Path) -> pd.DataFrame:
    """Table 3 (overall and categories, percent) and the overall numbers quoted from later papers."""
    raw = read_text_csv(path, ["table", "reference", "model", "method", "column", "value"])
    quoted = raw["reference"] != "warstadt2020"
    return _frame("blimp", table=raw["table"], item=raw["column"],
                  column="accuracy", paper_system=[blimp_system(m, k) for m, k in zip(raw["model"], raw["method"])],
                  metric="blimp_accuracy", published=_numbers(path, raw["value"]),
                  note=raw["reference"].where(quoted, ""))


def blimp_paradigms_published(path: Path) -> pd.DataFrame:
    """Table 4, twice: the corrected per-paradigm results (fractions, as percent) and the printed integers."""
    raw = read_text_csv(path, ["paradigm", "category", "model", "method", "accuracy", "printed"])
    systems = [blimp_system(m, k) for m, k in zip(raw["model"], raw["method"])]
    accuracy = (100.0 * _numbers(path, raw["accuracy"])).round(6)
    printed = _numbers(path, raw["printed"])
    # Half up, as the paper rounds (numpy's half-to-even would flag 17 more cells ending in .5).
    misprint = (np.floor(accuracy + 0.5) != printed).map({True: "misprint in Table 4 (resources/blimp/README.md)",
                                                  False: ""})
    return pd.concat([
        _frame("blimp", table="table4", item=raw["paradigm"], column="accuracy", paper_system=systems,
               metric="blimp_accuracy", published=accuracy, note="corrected 2021 result"),
        _frame("blimp", table="table4", item=raw["paradigm"], column="printed", paper_system=systems,
               metric="blimp_accuracy_printed", published=printed, note=misprint),
    ], ignore_index=True)


def olmpics_system(model: str, source: str) -> str:
    """The resource's model key; ``mlm-baseline`` (zero-shot rows) is ``mlm_baseline`` as elsewhere."""
    model = model.replace("mlm-baseline", "mlm_baseline")
    return model + RERUN_SUFFIX if source == "hf_reproduction" else model


def olmpics_published(path: Path) -> pd.DataFrame:
    """Zero-shot and learning-curve cells of Tables 2-11 (paper), and the HuggingFace rerun's zero-shot."""
    raw = read_text_csv(path, ["table", "task", "source", "model", "paper_label", "column", "value", "note"])
    unknown = ~raw["column"].isin(list(OLMPICS_METRICS))
    if unknown.any():
        line = int(unknown.to_numpy().nonzero()[0][0]) + 2
        raise PublishedError(f"{path}:{line}: unknown column {raw['column'][unknown].iloc[0]!r}")
    notes = [f"paper label {label}" + (f"; {note}" if note else "") for label, note in zip(raw["paper_label"], raw["note"])]
    return _frame("olmpics", table=raw["table"], item=raw["task"], column=raw["column"],
                  paper_system=[olmpics_system(m, s) for m, s in zip(raw["model"], raw["source"])],
                  metric=raw["column"].map(OLMPICS_METRICS), published=_numbers(path, raw["value"]), note=notes)


def ettinger_item(table: str, row: str) -> str:
    """The row label (``k=1``), or the table's dataset for tables without rows."""
    return row or ETTINGER_TABLES[table][0]


def ettinger_published(path: Path) -> pd.DataFrame:
    """The quantitative tables' cells and, for shuffled conditions, their sd as a number of its own."""
    raw = read_text_csv(path, ["table", "model", "row", "column", "value", "sd", "source"])
    for field, known in (("table", list(ETTINGER_TABLES)), ("source", list(ETTINGER_SOURCES))):
        unknown = ~raw[field].isin(known)
        if unknown.any():
            line = int(unknown.to_numpy().nonzero()[0][0]) + 2
            raise PublishedError(f"{path}:{line}: unknown {field} {raw[field][unknown].iloc[0]!r}")
    items = [ettinger_item(t, r) for t, r in zip(raw["table"], raw["row"])]
    from_text = (raw["table"] == "table12") & raw["column"].str.endswith("thresh")
    metrics = raw["table"].map(lambda t: ETTINGER_TABLES[t][1]).where(~from_text, ETTINGER_TEXT_METRIC)
    systems = raw["model"] + raw["source"].map(ETTINGER_SOURCES)
    notes = from_text.map({True: ETTINGER_TEXT_NOTE, False: ""}).where(raw["source"] == "paper", ETTINGER_RERUN_NOTE)
    values = _frame("ettinger", table=raw["table"], item=items, column=raw["column"], paper_system=systems,
                    metric=metrics, published=_numbers(path, raw["value"]), note=notes)
    has_sd = raw["sd"] != ""
    sds = raw[has_sd]
    spread = _frame("ettinger", table=sds["table"], item=[i for i, keep in zip(items, has_sd) if keep],
                    column=sds["column"] + " (sd)", paper_system=systems[has_sd], metric="ettinger_sd",
                    published=_numbers(path, sds["sd"]), note="sd over shuffles")
    return pd.concat([values, spread], ignore_index=True)
