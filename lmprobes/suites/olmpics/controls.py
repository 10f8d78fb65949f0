"""Language controls of the learning-curve protocol, and the frame helpers of the generators.

NO LANG (paper Section 3.3): only the task's arguments and the mask are kept, in their order in
the stem (``24 [MASK] 55``), and a task's fixed answer words become nonsense labels (age:
``blah`` for older, ``ya`` for younger; the other tasks map their answer words, in the order of
``ANSWER_LABELS``, onto the nonsense list the same way). Open answer sets (taxonomy conjunction:
the hypernyms are arguments) keep their words.

PERTURBED LANG: the task's key words (age: "age" and "than", as in the paper; the others are
listed in ``TEMPLATES``) are replaced, in the template text only (never inside an argument), by
nonsense words drawn without replacement from the paper's list of ten, seeded per item.

Both work on SCHEMA rows of either flavour (release or generated): the arguments are read back
from the stem with the task's templates, so a stem no template matches is an error naming the
row. A control row's arguments are the standard row's, values and types as they are (the
release's ages are numbers), with those read back that the standard row lacks. Controls exist
for the MC-MLM tasks; MC-QA rows are left out.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

import pandas as pd

from lmprobes.suites.olmpics.schema import MASK, SCHEMA, TASKS, make_item

NONSENSE = ("blah", "ya", "foo", "snap", "woo", "boo", "da", "wee", "foe", "fee")  # paper footnote 4
CONTROL_VARIANTS = ("no_lang", "perturbed_lang")


class ControlError(ValueError):
    """A row the controls cannot be built for; the message names the row."""


# --- frame helpers shared by the generators ----------------------------------------------


def item_id(*parts: object) -> str:
    """A deterministic 32-hex id (the release's ids have that shape) from the item's content."""
    text = "\x1f".join(json.dumps(part, sort_keys=True, ensure_ascii=False) for part in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def shuffled_choices(rng: random.Random, answer: str, distractors: Sequence[str]) -> tuple[list[str], int]:
    """The answer and distractors in a seeded random order, and the answer's index."""
    choices = [answer, *distractors]
    rng.shuffle(choices)
    return choices, choices.index(answer)


def items_frame(rows: Iterable[dict]) -> pd.DataFrame:
    """SCHEMA rows as a frame in SCHEMA column order, sorted by split (train, dev) then row."""
    frame = pd.DataFrame.from_records(list(rows), columns=SCHEMA.names)
    order = {"train": 0, "dev": 1}
    frame = frame.sort_values(["split", "row"], key=lambda column: column.map(order) if column.name == "split"
                              else column, kind="stable")
    frame["seed"] = frame["seed"].astype("Int64")
    return frame.reset_index(drop=True)


def numbered(task: str, split: str, items: Iterable[dict], seed: int | None) -> list[dict]:
    """``make_item`` rows (flavour generated, variant standard) numbered 1.. in the given order.

    Each item is a dict of make_item's keyword arguments except ``id`` and ``seed``.
    """
    rows = []
    for number, item in enumerate(items, start=1):
        identity = item_id(task, split, item["stem"], item["choices"], item["answer"])
        rows.append(make_item(task, "generated", "standard", split, number, id=identity, seed=seed, **item))
    return rows


# --- templates ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ControlTemplate:
    """A stem template: ``{slot}`` arguments, ``[MASK]``, and the key words PERTURBED LANG replaces."""

    name: str
    text: str
    key_words: tuple[str, ...]

    @property
    def pattern(self) -> re.Pattern:
        return _compile(self.text)


@cache
def _compile(text: str) -> re.Pattern:
    pieces = re.split(r"(\{\w+\})", text)
    regex = "".join(f"(?P<{piece[1:-1]}>.+?)" if re.fullmatch(r"\{\w+\}", piece) else re.escape(piece)
                    for piece in pieces)
    return re.compile(rf"^{regex}(?P<_trailing>\s*)$")


TEMPLATES: dict[str, tuple[ControlTemplate, ...]] = {
    "age_comparison": (
        ControlTemplate("age", "A {a} year old person age is [MASK] than a {b} year old person .", ("age", "than")),
    ),
    "multihop_composition": (
        ControlTemplate("oldest", "When comparing a {a} year old, a {b} year old and a {c} year old, the [MASK] is oldest",
                        ("comparing", "oldest")),
    ),
    "objects_comparison": (
        ControlTemplate("size", "The size of a {x} is usually much [MASK] than the size of a {y} .", ("size", "than")),
    ),
    "antonym_negation": (
        ControlTemplate("noun", "It was [MASK] a {w1}, it was really a {w2}.", ("really",)),
        ControlTemplate("adjective", "It was [MASK] {w1} , it was really {w2} .", ("really",)),
        ControlTemplate("verb", "He was [MASK] ready to {w1}, He was really ready to {w2}.", ("really",)),
    ),
    "taxonomy_conjunction": (
        ControlTemplate("both", "A {t1} and a {t2} are both a type of [MASK]", ("and", "both")),
    ),
    # The five statement templates of the crowdsourced release (Table 6 of the paper).
    "always_never": (
        ControlTemplate("dish", "A dish with {x} [MASK] contains {y} .", ("contains",)),
        ControlTemplate("diet", "{x} is [MASK] part of a {y}'s diet .", ("part", "diet")),
        ControlTemplate("placed", "{x} is [MASK] placed in the {y} .", ("placed",)),
        ControlTemplate("compare", "A {x} is [MASK] {comparative} than a {y} .", ("than",)),
        ControlTemplate("has", "A {x} [MASK] has a {y} .", ("has",)),
    ),
}

# Fixed answer words, mapped in this order onto NONSENSE for NO LANG (older -> blah, younger -> ya).
ANSWER_LABELS: dict[str, tuple[str, ...]] = {
    "age_comparison": ("older", "younger"),
    "objects_comparison": ("larger", "smaller"),
    "antonym_negation": ("not", "really"),
    "multihop_composition": ("first", "second", "third"),
    "always_never": ("always", "often", "sometimes", "rarely", "never"),
}


def match_template(row: dict) -> tuple[ControlTemplate, re.Match]:
    templates = TEMPLATES.get(row["task"])
    if templates is None:
        raise ControlError(f"{row['row_id']}: no language controls for task {row['task']!r}")
    for template in templates:
        found = template.pattern.match(row["stem"])
        if found:
            return template, found
    raise ControlError(f"{row['row_id']}: stem {row['stem']!r} matches no {row['task']} template")


# --- the two controls -------------------------------------------------------------------------


def no_lang_stem(template: ControlTemplate, found: re.Match) -> str:
    """The arguments and the mask in their template order, one space apart (``24 [MASK] 55``)."""
    pieces = [(template.text.index("{" + name + "}"), value.strip()) for name, value in argument_values(found).items()]
    pieces.append((template.text.index(MASK), MASK))
    return " ".join(value for _, value in sorted(pieces))


def no_lang_choices(task: str, choices: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    labels = ANSWER_LABELS.get(task)
    if labels is None:
        return list(choices), {}
    mapping = dict(zip(labels, NONSENSE))
    unknown = [choice for choice in choices if choice not in mapping]
    if unknown:
        raise ControlError(f"{task}: answer words {unknown} are not among {labels}")
    return [mapping[choice] for choice in choices], {choice: mapping[choice] for choice in choices}


def perturbed_stem(template: ControlTemplate, found: re.Match, replacements: dict[str, str]) -> str:
    """The stem with each key word of the template text replaced; argument values untouched."""
    slots = [name for name in found.groupdict() if name != "_trailing"]
    stem, position = [], 0
    for name in sorted(slots, key=found.start):
        stem.append(replace_words(found.string[position:found.start(name)], replacements))
        stem.append(found.group(name))
        position = found.end(name)
    stem.append(replace_words(found.string[position:], replacements))
    return "".join(stem)


def replace_words(text: str, replacements: dict[str, str]) -> str:
    for word, nonsense in replacements.items():
        text = re.sub(rf"\b{re.escape(word)}\b", nonsense, text, flags=re.IGNORECASE)
    return text


def control_row(row: dict, variant: str, seed: int) -> dict:
    """The ``variant`` control of one standard SCHEMA row."""
    template, found = match_template(row)
    choices = list(row["choices"])
    provenance = {**json.loads(row["provenance"] or "{}"), "control": variant, "standard_row_id": row["row_id"]}
    if variant == "no_lang":
        stem = no_lang_stem(template, found)
        choices, labels = no_lang_choices(row["task"], choices)
        provenance["answer_labels"] = labels
        item_seed = row["seed"]
    elif variant == "perturbed_lang":
        rng = random.Random(f"{seed}:{row['row_id']}")
        replacements = dict(zip(template.key_words, rng.sample(NONSENSE, len(template.key_words))))
        stem = perturbed_stem(template, found, replacements)
        provenance["replacements"] = replacements
        item_seed = seed
    else:
        raise ValueError(f"variant must be one of {CONTROL_VARIANTS}, not {variant!r}")
    return make_item(
        row["task"], row["flavour"], variant, row["split"], int(row["row"]), id=row["id"], stem=stem,
        choices=choices, answer=int(row["answer"]), template_id=f"{row['template_id'] or template.name}+{variant}",
        arguments=kept_arguments(row, argument_values(found)), provenance=provenance,
        seed=None if pd.isna(item_seed) else int(item_seed),
    )


def argument_values(found: re.Match) -> dict[str, str]:
    return {name: value for name, value in found.groupdict().items() if name != "_trailing"}


def kept_arguments(row: dict, read_back: dict[str, str]) -> dict:
    """The standard row's arguments as they are (the release's ages stay numbers), and those read
    back from the stem that it lacks."""
    return {**read_back, **json.loads(row["arguments"] or "{}")}


def control_frame(frame: pd.DataFrame, variants: Sequence[str] = CONTROL_VARIANTS, *, seed: int = 0) -> pd.DataFrame:
    """NO LANG and/or PERTURBED LANG rows for every standard MC-MLM row of ``frame``.

    Rows keep their split, row number and id, so a control row pairs with its standard row.
    """
    for variant in variants:
        if variant not in CONTROL_VARIANTS:
            raise ValueError(f"variant must be one of {CONTROL_VARIANTS}, not {variant!r}")
    standard = frame[(frame["variant"] == "standard")
                     & frame["task"].map(lambda task: TASKS[task].setup == "mc_mlm")]
    rows = [control_row(row, variant, seed) for variant in variants for row in standard.to_dict("records")]
    result = pd.DataFrame.from_records(rows, columns=SCHEMA.names)
    result["seed"] = result["seed"].astype("Int64")
    return result
