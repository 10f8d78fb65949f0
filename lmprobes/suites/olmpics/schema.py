"""The one row schema of every oLMpics dataset, imported (``release``) or generated from sources.

A row is one multiple-choice item: the stem (with the model-agnostic ``[MASK]`` for MC-MLM tasks,
a question for MC-QA), the choices in order and the index of the answer. Rows are keyed by
(task, flavour, variant, split, row number): release ids are not unique. ``arguments`` and
``provenance`` are JSON objects (sorted keys) so every task can record its own: the template's
slots (ages, words, entities) and where they came from (source edges, synsets, Wikidata ids).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pyarrow as pa

MASK = "[MASK]"
# Language controls of the learning-curve protocol; perturbation sets of Figure 3 use their own names.
VARIANTS = ("standard", "no_lang", "perturbed_lang")
SPLITS = ("train", "dev")


@dataclass(frozen=True)
class Task:
    name: str
    release_stem: str  # file stem of <stem>_{train,dev}.jsonl(.gz) in the release
    setup: str  # "mc_mlm" (a [MASK] in the stem, answers scored at it) or "mc_qa"
    n_choices: int


TASKS = {
    task.name: task
    for task in (
        Task("always_never", "coffee_cats_quantifiers", "mc_mlm", 5),
        Task("age_comparison", "number_comparison_age_compare_masked", "mc_mlm", 2),
        Task("objects_comparison", "size_comparison", "mc_mlm", 2),
        Task("antonym_negation", "antonym_synonym_negation", "mc_mlm", 2),
        Task("taxonomy_conjunction", "hypernym_conjunction", "mc_mlm", 3),
        Task("multihop_composition", "compositional_comparison", "mc_mlm", 3),
        Task("property_conjunction", "conjunction_filt4", "mc_qa", 3),
        Task("encyclopedic_composition", "composition_v2", "mc_qa", 3),
    )
}
# The non-pretrained baseline each setup is compared with (the paper's MLM-BASELINE and ESIM).
BASELINE_KIND = {"mc_mlm": "mlm_baseline", "mc_qa": "esim"}


def baseline_kind(task: str) -> str:
    """The baseline a task's curves are drawn beside: MLM-BASELINE (MC-MLM) or ESIM (MC-QA)."""
    return BASELINE_KIND[TASKS[task].setup]


SCHEMA = pa.schema(
    [
        pa.field("row_id", pa.string()),  # "<task>:<flavour>:<variant>:<split>:<row>"
        pa.field("task", pa.string()),
        pa.field("flavour", pa.string()),
        pa.field("variant", pa.string()),
        pa.field("split", pa.string()),
        pa.field("row", pa.int32()),  # 1-based position in the split
        pa.field("id", pa.string()),  # the release id (not unique), or a deterministic one
        pa.field("stem", pa.string()),
        pa.field("choices", pa.list_(pa.string())),
        pa.field("answer", pa.int32()),  # index into choices
        pa.field("template_id", pa.string()),
        pa.field("arguments", pa.string()),  # JSON object
        pa.field("provenance", pa.string()),  # JSON object
        pa.field("seed", pa.int64()),  # null for the release and for deterministic generators
    ]
)


def to_json(value: dict) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def make_item(task: str, flavour: str, variant: str, split: str, row: int, *, id: str, stem: str,
              choices: list[str], answer: int, template_id: str = "", arguments: dict | None = None,
              provenance: dict | None = None, seed: int | None = None) -> dict:
    """One SCHEMA row; ``answer`` must index ``choices``."""
    if not 0 <= answer < len(choices):
        raise ValueError(f"{task} {split} row {row}: answer {answer} is not an index into {choices}")
    return {
        "row_id": f"{task}:{flavour}:{variant}:{split}:{row}",
        "task": task, "flavour": flavour, "variant": variant, "split": split, "row": row, "id": id,
        "stem": stem, "choices": list(choices), "answer": answer, "template_id": template_id,
        "arguments": to_json(arguments or {}), "provenance": to_json(provenance or {}), "seed": seed,
    }


# One trained run of a learning curve (an MC-MLM probe, MC-QA or a baseline) per row.
CURVE_SCHEMA = pa.schema(
    [
        pa.field("task", pa.string()),
        pa.field("flavour", pa.string()),
        pa.field("variant", pa.string()),
        pa.field("model", pa.string()),  # a model slug, or mlm_baseline / esim_baseline
        pa.field("setting", pa.string()),  # mlp_mlm, linear, mc_qa, mlm_baseline, esim
        pa.field("n_train", pa.int32()),
        pa.field("seed", pa.int32()),
        pa.field("accuracy", pa.float64()),  # percent on dev
        pa.field("n_dev", pa.int32()),
        pa.field("epoch", pa.int32()),  # 1-based epoch whose dev accuracy is reported
        pa.field("epoch_accuracies", pa.list_(pa.float64())),
    ]
)
