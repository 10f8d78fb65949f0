"""Age comparison, multi-hop composition and the Figure 3 perturbation sets, generated from templates.

- Age comparison (deterministic): ``A {a} year old person age is [MASK] than a {b} year old
  person .``; the answer is ``younger`` when a < b. Train: every ordered pair a != b of ages
  41-104 in row-major order (4,032 items); dev: the first 500 ordered pairs of ages 15-37. These
  are exactly the (a, b) pairs of the release, in the release's order. The release shuffled the
  choice order of each item; here the order is fixed (``younger``, ``older``) unless a seed is given.
- Multi-hop composition (seeded), drawn as the release's ages are distributed: the oldest first,
  uniformly over the release's range of oldest ages (dev 17-37, train 44-105), then the two others
  each uniformly from the lowest age (dev 15, train 41) to one below the oldest (they may repeat
  each other, as in the release), the oldest put at a random position. So the maximum is unique
  and at each position about a third of the time; the mean oldest age is about 27 in dev and 74.5
  in train (the release's 27.3 and 74.8). The answer is the ordinal (first/second/third) of the
  oldest; the choice order is shuffled.
- Figure 3 (deterministic, dev only, one variant per panel), the full grid of ordered value pairs
  a != b: (A) the age template over ages, (B) the birth-year template ``A person born in {a} is
  [MASK] than me in age, If i was born in {b} .`` over years (born later = younger), (C) the age
  template over years, (D) the birth-year template over ages. The gold answer always follows the
  template's own meaning, so (C) and (D) measure whether the model reads the language or the values.

Every row records its template id, its arguments and the generator; deterministic generators
leave ``seed`` null. Generated ids are the md5 of (task, template id, arguments), like the
release's 32-hex ids, so two items that ask the same question share an id.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence

from lmprobes.suites.olmpics.schema import SPLITS, make_item, to_json

GENERATOR = "lmprobes.suites.olmpics.age"
VERSION = 1
FLAVOUR = "generated"

AGE_TEMPLATE = "A {a} year old person age is [MASK] than a {b} year old person ."
BIRTH_YEAR_TEMPLATE = "A person born in {a} is [MASK] than me in age, If i was born in {b} ."
MULTIHOP_TEMPLATE = "When comparing a {a} year old, a {b} year old and a {c} year old, the [MASK] is oldest "
TEMPLATES = {"age": AGE_TEMPLATE, "birth_year": BIRTH_YEAR_TEMPLATE, "multihop": MULTIHOP_TEMPLATE}
AGE_CHOICES = ("younger", "older")
ORDINALS = ("first", "second", "third")

AGE_VALUES = {"train": range(41, 105), "dev": range(15, 38)}
AGE_LIMIT = {"train": None, "dev": 500}
MULTIHOP_VALUES = {"train": range(41, 106), "dev": range(15, 38)}
# The oldest ages of the release's items span these ranges, about evenly (never 41-43 or 15-16).
MULTIHOP_OLDEST = {"train": range(44, 106), "dev": range(17, 38)}
MULTIHOP_SIZES = {"train": 5000, "dev": 500}

# Figure 3's value ranges: the paper's "typical" ages (15-105) and birth years (1920-2000).
FIGURE3_AGES = range(15, 106)
FIGURE3_YEARS = range(1920, 2001)
# variant -> (template id, which values): panels A-D of Figure 3.
FIGURE3_PANELS = {
    "figure3a_age": ("age", "ages"),
    "figure3b_birth_year": ("birth_year", "years"),
    "figure3c_age_with_years": ("age", "years"),
    "figure3d_birth_year_with_ages": ("birth_year", "ages"),
}


def ordered_pairs(values: Iterable[int]) -> list[tuple[int, int]]:
    """Every (a, b) with a != b, row-major: a in order, then b in order."""
    values = list(values)
    return [(a, b) for a in values for b in values if a != b]


def age_pairs(split: str) -> list[tuple[int, int]]:
    """The (a, b) pairs of the age-comparison split, in the release's order."""
    _check_split(split)
    pairs = ordered_pairs(AGE_VALUES[split])
    limit = AGE_LIMIT[split]
    return pairs if limit is None else pairs[:limit]


def age_answer(template_id: str, a: int, b: int) -> str:
    """``younger`` or ``older`` as the template states it (age: a < b; birth year: a > b)."""
    if a == b:
        raise ValueError(f"{template_id}: equal values {a} have no younger/older answer")
    if template_id == "age":
        return "younger" if a < b else "older"
    if template_id == "birth_year":
        return "younger" if a > b else "older"
    raise ValueError(f"unknown age template {template_id!r}; choose 'age' or 'birth_year'")


def age_comparison(split: str, *, seed: int | None = None) -> list[dict]:
    """SCHEMA rows of the age-comparison split; ``seed`` shuffles each item's choice order."""
    pairs = age_pairs(split)
    return _age_rows("age_comparison", "standard", split, "age", pairs, seed)


def figure3_sets(ages: Sequence[int] = FIGURE3_AGES, years: Sequence[int] = FIGURE3_YEARS) -> list[dict]:
    """The four Figure 3 panels as dev rows, one variant per panel, every ordered value pair."""
    values = {"ages": ages, "years": years}
    rows = []
    for variant, (template_id, kind) in FIGURE3_PANELS.items():
        rows += _age_rows("age_comparison", variant, "dev", template_id, ordered_pairs(values[kind]), None)
    return rows


def multihop_composition(split: str, *, seed: int, n: int | None = None) -> list[dict]:
    """``n`` seeded multi-hop items (default: the release's size of the split)."""
    _check_split(split)
    size = MULTIHOP_SIZES[split] if n is None else n
    rng = random.Random(f"{GENERATOR}:multihop:{split}:{seed}")
    rows = []
    for row in range(1, size + 1):
        ages = _oldest_first_triple(rng, split)
        choices = list(ORDINALS)
        rng.shuffle(choices)
        answer = choices.index(ORDINALS[ages.index(max(ages))])
        arguments = dict(zip("abc", ages))
        rows.append(_row("multihop_composition", "standard", split, row, "multihop", arguments, choices,
                         answer, seed))
    return rows


def _oldest_first_triple(rng: random.Random, split: str) -> tuple[int, int, int]:
    oldest = rng.choice(MULTIHOP_OLDEST[split])
    ages = [rng.randint(MULTIHOP_VALUES[split].start, oldest - 1) for _ in range(2)]
    ages.insert(rng.randrange(3), oldest)
    return tuple(ages)


def _age_rows(task: str, variant: str, split: str, template_id: str, pairs: list[tuple[int, int]],
              seed: int | None) -> list[dict]:
    rng = None if seed is None else random.Random(f"{GENERATOR}:{task}:{variant}:{split}:{seed}")
    rows = []
    for row, (a, b) in enumerate(pairs, start=1):
        choices = list(AGE_CHOICES)
        if rng is not None:
            rng.shuffle(choices)
        answer = choices.index(age_answer(template_id, a, b))
        rows.append(_row(task, variant, split, row, template_id, {"a": a, "b": b}, choices, answer, seed))
    return rows


def _row(task: str, variant: str, split: str, row: int, template_id: str, arguments: dict,
         choices: list[str], answer: int, seed: int | None) -> dict:
    return make_item(
        task, FLAVOUR, variant, split, row,
        id=_item_id(task, template_id, arguments), stem=TEMPLATES[template_id].format(**arguments),
        choices=choices, answer=answer, template_id=template_id, arguments=arguments,
        provenance={"generator": GENERATOR, "version": VERSION}, seed=seed,
    )


def _item_id(task: str, template_id: str, arguments: dict) -> str:
    return hashlib.md5(f"{task}:{template_id}:{to_json(arguments)}".encode()).hexdigest()


def _check_split(split: str) -> None:
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose one of {list(SPLITS)}")
