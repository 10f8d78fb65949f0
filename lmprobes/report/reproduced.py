"""This run's numbers, read from the suite tables under ``results/tables/<suite>/``, in the keys of ``published``.

``systems[suite][paper_system] = our system`` says which of our systems stands for a paper's system.
Our system is a model slug (``bert-base-cased``), optionally with a scoring method
(``gpt2 (left_context)``, ``gpt2 (salazar)``), or one of the suite tables' own baselines: LAMA's
``Freq`` (computed from the facts), oLMpics' ``mlm_baseline`` and ``esim_baseline``. Without a
method, a system takes the method the paper's system names (BLiMP ``gpt2-large (blimp_paper)`` ->
``blimp_paper``) or the suite's default (LAMA: the masked protocol; oLMpics: MC-MLM). A paper system
absent from ``systems`` has no reproduced number (its verdict is ``missing``).

LAMA's #Facts and #Rel are model-independent: they come from the ``Freq`` rows (relations with a kept
fact) under the ``(dataset)`` system whenever LAMA's tables exist. #Facts is the count the paper
printed: for T-REx the lines read (the paper's counts equal the release files' line counts, before
the template dedupe drops a few repeated (subject, object) pairs: P138 645 -> 642), for the other
corpora the facts left by the filters (Google-RE's death-place 765 of 766 lines).

Units: every value is in percent, as the suite tables write them (BLiMP's Table 4 ``accuracy`` and
``printed`` are both compared with our percentage); LAMA's #Facts and #Rel are counts. A suite
whose table files are absent (the suite was not run) contributes no rows, which leaves its
published numbers ``missing``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Collection
from pathlib import Path

import pandas as pd

from lmprobes.report.published import DATASET, ETTINGER_TABLES, KEYS, OLMPICS_METRICS, SUITES, ettinger_item, sort_keys

COLUMNS = [*KEYS, "model", "reproduced"]
LOG = logging.getLogger(__name__)
# Reads one suite table's reproduction rows given its path and the columns it must have (``_read_table``).
TableReader = Callable[[Path, list[str]], "pd.DataFrame | None"]

# The suite table files read here, relative to the tables folder.
TABLE_FILES = {
    "lama": ["lama/table2.csv"],
    "blimp": ["blimp/table3.csv", "blimp/table4.csv"],
    "olmpics": ["olmpics/zero_shot.csv", "olmpics/learning_curves.csv"],
    "ettinger": [f"ettinger/{table}.csv" for table in ETTINGER_TABLES],
}
LAMA_FREQ = "Freq"
LAMA_FACTS_ARE_LINES = ["trex"]  # corpora whose published #Facts counts lines read, not facts kept
OLMPICS_DEFAULT_METHOD = "mc_mlm"


class ReproducedError(ValueError):
    """A suite table or a ``systems`` entry that cannot be used; the message names it."""


def split_system(system: str) -> tuple[str, str]:
    """``gpt2 (salazar)`` -> (``gpt2``, ``salazar``); ``gpt2`` -> (``gpt2``, ``""``)."""
    if system.endswith(")") and " (" in system:
        model, method = system[:-1].split(" (", 1)
        return model, method
    return system, ""


def read_reproduced(tables: Path, systems: dict[str, dict[str, str]],
                    inputs: Collection[str | Path] | None = None) -> pd.DataFrame:
    """Our numbers for every paper system mapped in ``systems``, sorted by ``KEYS`` (unique).

    ``inputs``: the table files this run makes (the rule's inputs); another file under ``tables``, left
    by an earlier run with other suites or settings, is read as absent (its numbers stay missing)."""
    check_systems(systems)
    tables = Path(tables)
    read = functools.partial(_read_table, inputs=None if inputs is None else {Path(p) for p in inputs})
    readers = {"lama": lama_reproduced, "blimp": blimp_reproduced, "olmpics": olmpics_reproduced,
               "ettinger": ettinger_reproduced}
    frames = [readers[suite](tables, systems.get(suite, {}), read) for suite in SUITES]
    frame = pd.concat([f for f in frames if not f.empty] or [pd.DataFrame(columns=COLUMNS)], ignore_index=True)
    frame = frame[COLUMNS].astype({"reproduced": float})
    duplicated = frame.duplicated(KEYS)
    if duplicated.any():
        raise ReproducedError(f"reproduced numbers: two values for {dict(frame.loc[duplicated, KEYS].iloc[0])}")
    return frame.pipe(sort_keys)


def check_systems(systems: dict) -> None:
    if not isinstance(systems, dict):
        raise ReproducedError(f"report systems: expected a mapping of suite -> {{paper system: model}}, got {systems!r}")
    for suite, mapping in systems.items():
        if suite not in SUITES:
            raise ReproducedError(f"report systems: unknown suite {suite!r}; known: {list(SUITES)}")
        if not isinstance(mapping, dict):
            raise ReproducedError(f"report systems.{suite}: expected a mapping, got {mapping!r}")
        for paper_system, ours in mapping.items():
            if not isinstance(ours, str) or not ours:
                raise ReproducedError(f"report systems.{suite}[{paper_system!r}]: expected a model slug, got {ours!r}")


def _read_table(path: Path, columns: list[str], inputs: set[Path] | None = None) -> pd.DataFrame | None:
    """The reproduction rows of a suite table, or None (logged) when the file is absent or, with
    ``inputs``, not one of them."""
    if not made_by_this_run(path, inputs):
        left = " (the file there, left by an earlier run, is not read)" if path.is_file() else ""
        LOG.warning("%s: no suite of this run makes it%s; its published numbers stay missing", path, left)
        return None
    if not path.is_file():
        LOG.warning("%s: absent, its published numbers stay missing", path)
        return None
    frame = pd.read_csv(path, keep_default_na=True, dtype={"method": str, "row": str, "reference": str})
    missing = [c for c in ["source", *columns] if c not in frame.columns]
    if missing:
        raise ReproducedError(f"{path}: missing column(s) {missing}")
    return frame[frame["source"] == "reproduction"].fillna({c: "" for c in ("method", "row") if c in frame})


def made_by_this_run(path: Path, inputs: Collection[str | Path] | None) -> bool:
    """Whether ``path`` is among ``inputs``, the tables this run makes (None: every table is)."""
    return inputs is None or Path(path) in {Path(p) for p in inputs}


def _rows(suite: str, table, item, column, paper_system, model, values) -> pd.DataFrame:
    return pd.DataFrame({"suite": suite, "table": table, "item": item, "column": column,
                         "paper_system": paper_system, "model": model, "reproduced": values}).reindex(columns=COLUMNS)


def _empty() -> pd.DataFrame:
    return pd.DataFrame(columns=COLUMNS)


# --- LAMA ------------------------------------------------------------------------------------


def lama_reproduced(tables: Path, systems: dict[str, str], read: TableReader = _read_table) -> pd.DataFrame:
    """Table 2 P@1 per mapped system (matched on the table's system name), and the dataset sizes."""
    path = tables / TABLE_FILES["lama"][0]
    frame = read(path, ["corpus", "row", "system", "p1", "n_facts", "n_kept", "n_relations"])
    if frame is None:
        return _empty()
    item = frame["corpus"] + "/" + frame["row"]
    parts = []
    for paper_system, ours in systems.items():
        mine = frame["system"] == ours
        parts.append(_rows("lama", "table2", item[mine], "P@1", paper_system, ours, frame.loc[mine, "p1"]))
    freq = frame["system"] == LAMA_FREQ
    facts = frame["n_facts"].where(frame["corpus"].isin(LAMA_FACTS_ARE_LINES), frame["n_kept"])
    parts.append(_rows("lama", "table2", item[freq], "#Facts", DATASET, DATASET, facts[freq]))
    parts.append(_rows("lama", "table2", item[freq], "#Rel", DATASET, DATASET, frame.loc[freq, "n_relations"]))
    return pd.concat(parts, ignore_index=True)


def lama_protocol_warning(tables: Path, inputs: Collection[str | Path] | None = None) -> str:
    """A warning when Table 2 was computed on the shared fact set (``suites.lama.fact_set: shared``),
    not on each system's own kept facts as in the paper; else ``""``. ``inputs`` as ``read_reproduced``."""
    path = Path(tables) / TABLE_FILES["lama"][0]
    if not made_by_this_run(path, inputs) or not path.is_file():
        return ""
    fact_sets = pd.read_csv(path, usecols=lambda column: column == "fact_set", dtype=str)
    if "fact_set" not in fact_sets or not (fact_sets["fact_set"] == "shared").any():
        return ""
    return ("LAMA's numbers here are on the shared fact set (suites.lama.fact_set: shared): every system "
            "scored on the facts all systems keep, not on its own kept facts as in the paper "
            "(suites.lama.fact_set: own)")


# --- BLiMP -----------------------------------------------------------------------------------


def blimp_reproduced(tables: Path, systems: dict[str, str], read: TableReader = _read_table) -> pd.DataFrame:
    """Table 3 (overall, categories) and Table 4 (paradigms; ``accuracy`` and ``printed`` alike)."""
    table3 = read(tables / TABLE_FILES["blimp"][0], ["model", "method", "category", "value"])
    table4 = read(tables / TABLE_FILES["blimp"][1], ["model", "method", "paradigm", "value"])
    parts = []
    for paper_system, ours in systems.items():
        model, method = _blimp_model_method(paper_system, ours)
        if table3 is not None:
            mine = table3[(table3["model"] == model) & (table3["method"] == method)]
            parts.append(_rows("blimp", "table3", mine["category"], "accuracy", paper_system, ours, mine["value"]))
        if table4 is not None:
            mine = table4[(table4["model"] == model) & (table4["method"] == method)]
            for column in ("accuracy", "printed"):
                parts.append(_rows("blimp", "table4", mine["paradigm"], column, paper_system, ours, mine["value"]))
    return pd.concat(parts, ignore_index=True) if parts else _empty()


def _blimp_model_method(paper_system: str, ours: str) -> tuple[str, str]:
    model, method = split_system(ours)
    method = method or split_system(paper_system)[1]
    if not method:
        raise ReproducedError(f"report systems.blimp[{paper_system!r}] = {ours!r}: name the scoring method, "
                              f"e.g. '{model} (blimp_paper)'")
    return model, method


# --- oLMpics ---------------------------------------------------------------------------------


def olmpics_reproduced(tables: Path, systems: dict[str, str], read: TableReader = _read_table) -> pd.DataFrame:
    """Zero-shot from ``zero_shot.csv`` (release items); the learning-curve columns (and the baselines'
    zero-shot) from ``learning_curves.csv``."""
    zero = read(tables / TABLE_FILES["olmpics"][0], ["table", "task", "flavour", "model", "method", "accuracy"])
    curves = read(tables / TABLE_FILES["olmpics"][1], ["table", "task", "setup", "flavour", "model"])
    parts = []
    for paper_system, ours in systems.items():
        model, method = split_system(ours)
        if zero is not None:
            mine = zero[(zero["flavour"] == "release") & (zero["model"] == model)
                        & (zero["method"] == (method or OLMPICS_DEFAULT_METHOD))]
            parts.append(_rows("olmpics", mine["table"], mine["task"], "zero_shot", paper_system, ours,
                               mine["accuracy"]))
        if curves is not None and not method:
            parts.append(_olmpics_curves(curves, paper_system, model))
    frame = pd.concat(parts, ignore_index=True) if parts else _empty()
    # zero_shot.csv first: the learning-curve table only fills what it lacks (the baselines' zero-shot).
    return frame.drop_duplicates(KEYS, keep="first")


def _olmpics_curves(curves: pd.DataFrame, paper_system: str, model: str) -> pd.DataFrame:
    from lmprobes.suites.olmpics.schema import TASKS

    mine = curves[(curves["flavour"] == "release") & (curves["model"] == model)]
    # A task's own setup first (its LANGSENSE); other setups only fill columns it lacks.
    native = [TASKS[t].setup == s if t in TASKS else False for t, s in zip(mine["task"], mine["setup"])]
    mine = mine.assign(_native=native).sort_values("_native", ascending=False, kind="stable")
    columns = [c for c in OLMPICS_METRICS if c in mine.columns]
    long = mine.melt(id_vars=["table", "task"], value_vars=columns, var_name="column", value_name="value")
    long = long.dropna(subset=["value"])
    return _rows("olmpics", long["table"], long["task"], long["column"], paper_system, model, long["value"])


# --- Ettinger --------------------------------------------------------------------------------


def ettinger_reproduced(tables: Path, systems: dict[str, str], read: TableReader = _read_table) -> pd.DataFrame:
    """The quantitative tables' cells and, where present, their sd as ``<column> (sd)``."""
    parts = []
    for name in TABLE_FILES["ettinger"]:
        frame = read(tables / name, ["table", "model", "row", "column", "value", "sd"])
        if frame is None:
            continue
        for paper_system, ours in systems.items():
            mine = frame[frame["model"] == ours]
            items = [ettinger_item(t, r) for t, r in zip(mine["table"], mine["row"])]
            parts.append(_rows("ettinger", mine["table"], items, mine["column"], paper_system, ours, mine["value"]))
            spread = mine["sd"].notna()
            parts.append(_rows("ettinger", mine["table"][spread], [i for i, s in zip(items, spread) if s],
                               mine["column"][spread] + " (sd)", paper_system, ours, mine["sd"][spread]))
    return pd.concat(parts, ignore_index=True) if parts else _empty()
