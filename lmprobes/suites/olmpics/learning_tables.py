"""oLMpics learning-curve tables (Tables 2, 3, 5, 7, 8, 9, 10, 11) and the medals of Table 12.

One row per system and task, in the paper's columns: MC-MLM tasks have zero-shot, MLP_MLM WS/MAX,
LINEAR WS/MAX and LANGSENSE pert/nolang (computed on the MLP_MLM curves; the MLM-BASELINE row on its
own curves, its WS/MAX under MLP_MLM as in the paper); MC-QA tasks (Tables 8, 10) have WS/MAX of the
``mc_qa`` setting, LANGSENSE of the same setting, and the ESIM baseline (Table 8's "Baseline" and
Table 10's "ESIM-Baseline"). Curves of other settings for a task (e.g. MC-QA on age comparison,
Figure 2D) fill their own columns (MC-QA WS/MAX in the Markdown) but no LANGSENSE. A reproduced system is the model slug
(the paper's label for the paper's five models), ``[generated]`` for items generated from sources;
the paper's rows are ``<label> (paper)``, read from ``resources/olmpics/published.csv`` where the
MLM baseline's zero-shot rows are spelled ``mlm-baseline`` (read as ``mlm_baseline``).

Published cells. The paper text is OCR'd; glyphs read as digits are marked in the CSV's ``note`` column.
Cells empty in the text are absent (not guessed): Table 2 pert of BERT-L, BERT-B, Baseline, nolang of
Baseline; Table 3 pert of BERT-L, RoBERTa-B, nolang of RoBERTa-B, Baseline; Table 5 pert of RoBERTa-L
and BERT-L (unreadable glyphs ``$\\mathcal{F}$``, ``$\\mathcal{E}$``), Baseline; Table 7 pert of
BERT-WWM, BERT-L, Baseline, nolang of Baseline; Table 8 nolang of RoBERTa-L, BERT-WWM, BERT-B,
RoBERTa-B, Baseline; Table 9 nolang of RoBERTa-L, BERT-WWM, Baseline, pert of Baseline; Table 10 pert of
all five LMs, nolang of BERT-WWM, BERT-L, RoBERTa-B, ESIM-Baseline; Table 11 nolang of BERT-WWM,
RoBERTa-B, Baseline, pert of Baseline. The baseline rows have no LINEAR cells in the paper.

Medals (Table 12). The paper gives a ✓ when "the LM has achieved high accuracy considering controls
and baselines" and a partial ✓ otherwise; we make that a rule on a table row (baselines get none):

- score = the better of zero-shot and WS (MC-MLM: MLP_MLM WS; MC-QA: WS) — what the LM gets from
  pre-training alone or from few examples; reference = the better of chance and the baseline's WS
  (chance alone when the baseline row is missing); langsense = LANGSENSE nolang, or pert where nolang
  is missing.
- ✓ success: score ≥ chance + ``HIGH_ACCURACY_FRACTION`` x (100 - chance) ("high accuracy"),
  score ≥ reference + ``MARGIN`` (beats the baseline) and langsense ≥ ``LANGSENSE_MIN`` (the language
  matters; with no LANGSENSE at all, no ✓).
- ~ partial: score ≥ reference + ``MARGIN``, not a success.
- ✗ fail: otherwise (not clearly above chance and the baseline).

On the paper's own numbers the rule gives RoBERTa-L ✓ in age, objects comparison and antonym
negation, ~ in property and taxonomy conjunction; BERT-WWM ✓ in age and ~ in objects comparison,
property and taxonomy conjunction and multi-hop composition. §5 says BERT-WWM "showed partial success
in a few tasks", which agrees, and that RoBERTa-L "showed high performance in ALWAYS-NEVER, OBJECTS
COMPARISON and ANTONYM NEGATION": the rule agrees on the last two but fails RoBERTa-L on Always-Never
(WS 44 below the baseline's 46), as §4.2 itself concludes ("MLM-BASELINE consistently outperforms
ROBERTA-L"), and gives age instead (§3.2: "the representations learned by ROBERTA-L are already
equipped with the knowledge"). The OCR of Table 12 keeps an x-like glyph in nine cells (age RoBERTa-B;
objects BERT-WWM; antonym BERT-L, RoBERTa-B; property RoBERTa-L, BERT-WWM; taxonomy RoBERTa-L,
BERT-WWM, RoBERTa-B) and loses the rest; if those glyphs are the partial mark, the rule agrees on
eight of the nine (antonym BERT-L: WS 70 is within 5 points of the baseline's 67, so ✗) and also
gives ~ to BERT-L and BERT-B in property and taxonomy conjunction and to BERT-WWM in multi-hop.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from lmprobes.io import SystemColumns, to_markdown, write_table
from lmprobes.report.latex import MISSING
from lmprobes.suites.olmpics.curves import CurveError, summarise
from lmprobes.suites.olmpics.schema import TASKS

# The paper's learning-curve tables in the paper's order: task -> (table, title).
LEARNING_TABLES = {
    "age_comparison": ("table2", "Age comparison"),
    "objects_comparison": ("table3", "Objects comparison"),
    "always_never": ("table5", "Always-Never"),
    "antonym_negation": ("table7", "Antonym negation"),
    "property_conjunction": ("table8", "Property conjunction"),
    "taxonomy_conjunction": ("table9", "Taxonomy conjunction"),
    "encyclopedic_composition": ("table10", "Encyclopedic composition"),
    "multihop_composition": ("table11", "Multi-hop composition"),
}
MEDAL_TASK_ORDER = ["always_never", "age_comparison", "objects_comparison", "antonym_negation",
                    "property_conjunction", "taxonomy_conjunction", "encyclopedic_composition",
                    "multihop_composition"]
# The paper's five LMs, in Table 12's column order, with their labels.
PAPER_MODELS = {
    "roberta-large": "RoBERTa-L",
    "bert-large-uncased-whole-word-masking": "BERT-WWM",
    "bert-large-uncased": "BERT-L",
    "roberta-base": "RoBERTa-B",
    "bert-base-uncased": "BERT-B",
}
BASELINES = {"mc_mlm": "mlm_baseline", "mc_qa": "esim_baseline"}
BASELINE_LABELS = {"mlm_baseline": "MLM-Baseline", "esim_baseline": "ESIM-Baseline"}
LEGACY_MODEL_NAMES = {"mlm-baseline": "mlm_baseline"}
# setting -> its WS and MAX columns; MAIN_SETTINGS: the settings whose LANGSENSE a setup reports.
SETTING_COLUMNS = {
    "mlp_mlm": ("mlp_ws", "mlp_max"),
    "mlm_baseline": ("mlp_ws", "mlp_max"),
    "linear": ("linear_ws", "linear_max"),
    "mc_qa": ("mc_qa_ws", "mc_qa_max"),
    "esim": ("mc_qa_ws", "mc_qa_max"),
}
MAIN_SETTINGS = {"mc_mlm": ("mlp_mlm", "mlm_baseline"), "mc_qa": ("mc_qa", "esim")}
SETUP_COLUMNS = {
    "mc_mlm": ["zero_shot", "mlp_ws", "mlp_max", "linear_ws", "linear_max", "langsense_pert", "langsense_nolang"],
    "mc_qa": ["mc_qa_ws", "mc_qa_max", "langsense_pert", "langsense_nolang"],
}
VALUE_COLUMNS = ["zero_shot", "mlp_ws", "mlp_max", "linear_ws", "linear_max", "mc_qa_ws", "mc_qa_max",
                 "langsense_pert", "langsense_nolang"]
MARKDOWN_TITLES = {"zero_shot": "Zero-shot", "mlp_ws": "MLP WS", "mlp_max": "MLP MAX", "linear_ws": "LINEAR WS",
                   "linear_max": "LINEAR MAX", "mc_qa_ws": "WS", "mc_qa_max": "MAX", "langsense_pert": "pert",
                   "langsense_nolang": "nolang"}
TABLE_COLUMNS = ["table", "task", "setup", "source", "flavour", "model", "system", *VALUE_COLUMNS, "chance",
                 "n_seeds", "ns"]
SOURCE_ORDER = {"reproduction": 0, "paper": 1}

# The medal rule (module docstring); accuracy points unless said otherwise.
HIGH_ACCURACY_FRACTION = 0.6  # of the way from chance to 100%
MARGIN = 5.0  # above the better of chance and the baseline's WS
LANGSENSE_MIN = 5.0
MEDAL_SYMBOLS = {"success": "✓", "partial": "~", "fail": "✗"}
MEDAL_COLUMNS = ["table", "task", "source", "flavour", "model", "system", "score", "score_from", "chance",
                 "baseline_ws", "reference", "langsense", "medal", "symbol"]


def system_name(model: str, source: str, flavour: str = "release") -> str:
    name = PAPER_MODELS.get(model) or BASELINE_LABELS.get(model, model)
    if flavour != "release":
        name = f"{name} [{flavour}]"
    return f"{name} (paper)" if source == "paper" else name


def reproduced_rows(curves: pd.DataFrame, zero_shot: pd.DataFrame) -> pd.DataFrame:
    """One row per (task, flavour, model) with curves: the summaries in the paper's columns."""
    summary = summarise(curves)
    summary = summary[summary["task"].isin(list(LEARNING_TABLES))]
    unknown = sorted(set(summary["setting"]) - set(SETTING_COLUMNS))
    if unknown:
        raise CurveError(f"learning-curve rows: unknown setting(s) {unknown}; known: {sorted(SETTING_COLUMNS)}")
    cells: dict[tuple[str, str, str], dict] = {}
    for row in summary.itertuples(index=False):
        setup = TASKS[row.task].setup
        line = cells.setdefault((row.task, row.flavour, row.model), {})
        ws_column, max_column = SETTING_COLUMNS[row.setting]
        line.update({ws_column: row.ws, max_column: row.max})
        if row.setting in MAIN_SETTINGS[setup]:
            line.update(langsense_pert=row.langsense_pert, langsense_nolang=row.langsense_nolang,
                        n_seeds=row.n_seeds, ns=row.ns)
        elif "n_seeds" not in line:  # a model without the main setting's curves: its seeds and N are its other's
            line.update(n_seeds=row.n_seeds, ns=row.ns)
    zero = zero_shot_lookup(zero_shot)
    records = []
    for (task, flavour, model), line in cells.items():
        if TASKS[task].setup == "mc_mlm":
            line["zero_shot"] = zero.get((task, flavour, model), np.nan)
        records.append({**_identity(task, "reproduction", flavour, model), **line})
    return pd.DataFrame.from_records(records, columns=TABLE_COLUMNS)


def zero_shot_lookup(zero_shot: pd.DataFrame) -> dict[tuple[str, str, str], float]:
    """(task, flavour, model) -> zero-shot accuracy of the original MC-MLM method."""
    if "method" in zero_shot.columns:
        zero_shot = zero_shot[zero_shot["method"] == "mc_mlm"]
    keys = ["task", "flavour", "model"]
    missing = [column for column in keys + ["accuracy"] if column not in zero_shot.columns]
    if missing:
        raise CurveError(f"zero-shot accuracies: columns {missing} missing")
    counts = zero_shot.groupby(keys, sort=True).size()
    if (counts > 1).any():
        key, count = counts[counts > 1].index[0], counts[counts > 1].iloc[0]
        raise CurveError(f"zero-shot accuracies: {'/'.join(key)} appears {count} times")
    return {(t, f, m): float(a) for t, f, m, a in zip(*(zero_shot[c] for c in keys + ["accuracy"]))}


def published_learning_rows(published: pd.DataFrame) -> pd.DataFrame:
    """The paper's rows of the learning-curve tables, in the layout of ``reproduced_rows``."""
    paper = published[(published["source"] == "paper") & published["task"].isin(list(LEARNING_TABLES))
                      & published["column"].isin(VALUE_COLUMNS)]
    paper = paper.assign(model=paper["model"].replace(LEGACY_MODEL_NAMES))
    records = []
    for (task, model), group in paper.groupby(["task", "model"], sort=False):
        values = dict(zip(group["column"], group["value"].astype(float)))
        records.append({**_identity(task, "paper", "release", model), **values})
    return pd.DataFrame.from_records(records, columns=TABLE_COLUMNS)


def learning_table(curves: pd.DataFrame, zero_shot: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """Tidy: per task in the paper's order, the reproduced rows, then the paper's."""
    frames = [frame for frame in (reproduced_rows(curves, zero_shot), published_learning_rows(published)) if len(frame)]
    tidy = (pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()).reindex(columns=TABLE_COLUMNS)
    tidy[VALUE_COLUMNS] = tidy[VALUE_COLUMNS].astype(float)
    tidy["n_seeds"] = tidy["n_seeds"].astype("Int64")
    keys = pd.DataFrame({"task": tidy["task"].map(_task_rank), "source": tidy["source"].map(SOURCE_ORDER),
                         "flavour": tidy["flavour"] != "release",
                         "model": [_model_rank(m, t) for m, t in zip(tidy["model"], tidy["task"], strict=True)],
                         "name": tidy["model"]})
    order = keys.sort_values(list(keys.columns), kind="stable").index
    return tidy.loc[order].reset_index(drop=True)


def task_markdown_frame(tidy: pd.DataFrame, task: str) -> pd.DataFrame:
    """The paper's layout of one task: each model's reproduced rows next to its paper row."""
    rows = tidy[tidy["task"] == task]
    keys = pd.DataFrame({"model": [_model_rank(m, task) for m in rows["model"]], "name": rows["model"],
                         "source": rows["source"].map(SOURCE_ORDER), "flavour": rows["flavour"] != "release"})
    rows = rows.loc[keys.sort_values(list(keys.columns), kind="stable").index]
    columns = SETUP_COLUMNS[TASKS[task].setup]
    titles = dict(MARKDOWN_TITLES)
    if TASKS[task].setup == "mc_mlm" and rows["mc_qa_ws"].notna().any():  # Figure 2D's MC-QA curves
        columns = [*columns, "mc_qa_ws", "mc_qa_max"]
        titles.update(mc_qa_ws="MC-QA WS", mc_qa_max="MC-QA MAX")
    frame = rows[["system", *columns]].rename(columns={"system": "System", **titles})
    return frame.reset_index(drop=True)


def comparison(tidy: pd.DataFrame) -> pd.DataFrame:
    """One line per reproduced (task, flavour, model) with a paper row: reproduced minus paper per column."""
    ours = tidy[tidy["source"] == "reproduction"]
    paper = tidy[tidy["source"] == "paper"].set_index(["task", "model"])
    records = []
    for row in ours.itertuples(index=False):
        if (row.task, row.model) not in paper.index:
            continue
        published = paper.loc[(row.task, row.model)]
        differences = {f"d_{c}": getattr(row, c) - published[c] for c in SETUP_COLUMNS[TASKS[row.task].setup]}
        records.append({"table": row.table, "task": row.task, "flavour": row.flavour, "model": row.model,
                        "system": row.system, **differences})
    columns = ["table", "task", "flavour", "model", "system", *[f"d_{c}" for c in VALUE_COLUMNS]]
    return pd.DataFrame.from_records(records, columns=columns)


def medal(score: float, chance: float, baseline_ws: float, langsense: float) -> str | None:
    """``success``, ``partial`` or ``fail`` by the module's rule; None when there is no score."""
    if np.isnan(score):
        return None
    if score < _reference(chance, baseline_ws) + MARGIN:
        return "fail"
    high = score >= chance + HIGH_ACCURACY_FRACTION * (100.0 - chance)
    sensitive = not np.isnan(langsense) and langsense >= LANGSENSE_MIN
    return "success" if high and sensitive else "partial"


def medal_table(tidy: pd.DataFrame) -> pd.DataFrame:
    """The rule applied to every non-baseline row of the learning-curve table (reproduced and paper)."""
    records = []
    for row in tidy.itertuples(index=False):
        if row.model in BASELINE_LABELS:
            continue
        setup = row.setup
        ws = row.mlp_ws if setup == "mc_mlm" else row.mc_qa_ws
        score, score_from = _score(row.zero_shot if setup == "mc_mlm" else np.nan, ws)
        baseline_ws = _baseline_ws(tidy, row.task, row.source, row.flavour)
        langsense = row.langsense_pert if np.isnan(row.langsense_nolang) else row.langsense_nolang
        result = medal(score, row.chance, baseline_ws, langsense)
        records.append({
            "table": row.table, "task": row.task, "source": row.source, "flavour": row.flavour, "model": row.model,
            "system": row.system, "score": score, "score_from": score_from, "chance": row.chance,
            "baseline_ws": baseline_ws, "reference": _reference(row.chance, baseline_ws),
            "langsense": langsense, "medal": result, "symbol": MEDAL_SYMBOLS.get(result, ""),
        })
    return pd.DataFrame.from_records(records, columns=MEDAL_COLUMNS)


def medal_wide(medals: pd.DataFrame) -> pd.DataFrame:
    """Table 12's layout: one line per task, one column per system (reproduced first), the symbols; a
    model's flavours side by side, release first, so that its medals on the generated data read against
    the release's; ``write_table`` shows it in parts past ``io.MAX_SYSTEM_COLUMNS`` systems
    (``medal_columns``)."""
    keys = pd.DataFrame({"source": medals["source"].map(SOURCE_ORDER), "model": medals["model"].map(_model_rank),
                         "name": medals["model"], "flavour": medals["flavour"] != "release"})
    systems = list(dict.fromkeys(medals.loc[keys.sort_values(list(keys.columns), kind="stable").index, "system"]))
    wide = medals.pivot_table(index="task", columns="system", values="symbol", aggfunc="first")
    wide = wide.reindex(index=[t for t in MEDAL_TASK_ORDER if t in set(medals["task"])], columns=systems)
    wide.index = [LEARNING_TABLES[task][1] for task in wide.index]
    return wide.fillna("").rename_axis("Task").reset_index()


def medal_columns(medals: pd.DataFrame) -> SystemColumns:
    """``medal_wide``'s layout for ``write_table``: the task, the paper's columns as the references, each
    reproduced system's model (a model's flavours, adjacent, stay in one part)."""
    ours = medals["source"] == "reproduction"
    return SystemColumns(labels=1, references=frozenset(medals.loc[~ours, "system"]),
                         models=dict(zip(medals.loc[ours, "system"], medals.loc[ours, "model"])))


def write_learning_tables(curves: pd.DataFrame, zero_shot: pd.DataFrame, published: pd.DataFrame,
                          out_dir: Path, task_notes: dict[str, str] | None = None) -> list[Path]:
    """learning_curves, learning_curves_comparison and table12_medals, each as .csv and .md;
    ``task_notes`` follow their task's table in learning_curves.md."""
    out_dir = Path(out_dir)
    tidy = learning_table(curves, zero_shot, published)
    medals = medal_table(tidy)
    differences = comparison(tidy)
    outputs = (
        ("learning_curves", tidy, "oLMpics learning curves (Tables 2, 3, 5, 7, 8, 9, 10, 11)", _overview(tidy),
         _task_sections(tidy, task_notes or {}), None),
        ("learning_curves_comparison", differences, "oLMpics learning curves: reproduced minus paper",
         differences.drop(columns=["table", "model"]).dropna(axis=1, how="all"),
         "\nAccuracy points; a blank cell has no number on one side.\n", None),
        ("table12_medals", medals, "oLMpics medals (Table 12)", medal_wide(medals), _medal_note(), medal_columns(medals)),
    )
    paths = []
    for stem, frame, title, markdown, note, systems in outputs:  # systems: see write_table
        csv_path, md_path = out_dir / f"{stem}.csv", out_dir / f"{stem}.md"
        # the comparison's note explains its blank cells: blank in the LaTeX too
        missing = "" if stem == "learning_curves_comparison" else MISSING
        write_table(frame, csv_path, md_path, title=title, markdown_frame=markdown, note=note,
                    systems=systems, latex_missing=missing)
        paths += [csv_path, md_path]
    return paths


def _identity(task: str, source: str, flavour: str, model: str) -> dict:
    setup = TASKS[task].setup
    return {"table": LEARNING_TABLES[task][0], "task": task, "setup": setup, "source": source, "flavour": flavour,
            "model": model, "system": system_name(model, source, flavour), "chance": 100.0 / TASKS[task].n_choices}


def _score(zero_shot: float, ws: float) -> tuple[float, str]:
    if np.isnan(ws) and np.isnan(zero_shot):
        return np.nan, ""
    if np.isnan(zero_shot) or ws >= zero_shot:
        return float(ws), "ws"
    return float(zero_shot), "zero_shot"


def _reference(chance: float, baseline_ws: float) -> float:
    """The better of chance and the baseline's WS; chance alone without a baseline."""
    return chance if np.isnan(baseline_ws) else max(chance, baseline_ws)


def _baseline_ws(tidy: pd.DataFrame, task: str, source: str, flavour: str) -> float:
    setup = TASKS[task].setup
    column = "mlp_ws" if setup == "mc_mlm" else "mc_qa_ws"
    rows = tidy[(tidy["task"] == task) & (tidy["source"] == source) & (tidy["flavour"] == flavour)
                & (tidy["model"] == BASELINES[setup])]
    return float(rows[column].iloc[0]) if len(rows) else np.nan


def _overview(tidy: pd.DataFrame) -> pd.DataFrame:
    records = []
    for task, (table, title) in LEARNING_TABLES.items():
        rows = tidy[tidy["task"] == task]
        records.append({"Table": table.replace("table", "Table "), "Task": title,
                        "Setup": TASKS[task].setup.replace("_", "-").upper(),
                        "Chance": 100.0 / TASKS[task].n_choices,
                        "Reproduced systems": int((rows["source"] == "reproduction").sum()),
                        "Paper systems": int((rows["source"] == "paper").sum())})
    return pd.DataFrame.from_records(records)


def _task_sections(tidy: pd.DataFrame, notes: dict[str, str]) -> str:
    intro = ("\nAccuracy (%) on dev, mean over seeds; WS/MAX/LANGSENSE as in curves.py. Reproduced rows next "
             "to the paper's (Talmor et al. 2020); seeds and N per row are in the CSV.\n")
    parts = [intro]
    for task, (table, title) in LEARNING_TABLES.items():
        frame = task_markdown_frame(tidy, task)
        if frame.empty:
            continue
        chance = 100.0 / TASKS[task].n_choices
        heading = f"\n### {table.replace('table', 'Table ')}: {title} ({TASKS[task].setup.replace('_', '-').upper()}"
        parts.append(f"{heading}, chance {chance:.1f}%)\n\n{to_markdown(frame)}")
        if task in notes:
            parts.append(f"\n{notes[task]}\n")
    return "".join(parts)


def single_hop_note(items_per_file: Sequence[int | None]) -> str:
    """How the encyclopedic-composition runs began, from their curve files' ``single_hop_items``."""
    if all(items is None for items in items_per_file):
        return ("Fine-tuned from the pre-trained weights, without the paper's first stage on the single-hop "
                "facts (`learning_curves.single_hop: false`).")
    if any(items is None for items in items_per_file):
        return "Some runs were first fine-tuned on the single-hop facts and some were not: rerun them alike."
    return (f"Each seed's runs were first fine-tuned on {max(items_per_file):,} single-hop facts of the train and "
            "dev questions (bridges from Wikidata, `results/datasets/olmpics/single_hop.parquet`), then on the "
            "composed questions, as the paper does.")


def _medal_note() -> str:
    return (f"\n{MEDAL_SYMBOLS['success']} success, {MEDAL_SYMBOLS['partial']} partial, {MEDAL_SYMBOLS['fail']} "
            "fail. score = max(zero-shot, WS); success: score ≥ chance + "
            f"{HIGH_ACCURACY_FRACTION:g} × (100 − chance), score ≥ max(chance, baseline WS) + {MARGIN:g} and "
            f"LANGSENSE nolang (else pert) ≥ {LANGSENSE_MIN:g}; partial: score ≥ max(chance, baseline WS) + "
            f"{MARGIN:g}; else fail. (paper) columns apply the same rule to the paper's numbers.\n")


def _task_rank(task: str) -> int:
    return list(LEARNING_TABLES).index(task)


def _model_rank(model: str, task: str | None = None) -> int:
    """A model's row in the paper's tables: Table 12's order, except that Tables 3, 5 and 7-11 list
    BERT-B before RoBERTa-B (Table 2 and Table 12 the other way round)."""
    order = list(PAPER_MODELS)
    if task is not None and LEARNING_TABLES[task][0] != "table2":
        order.remove("bert-base-uncased")
        order.insert(order.index("roberta-base"), "bert-base-uncased")
    if model in order:
        return order.index(model)
    return len(order) + (1 if model in BASELINE_LABELS else 0)
