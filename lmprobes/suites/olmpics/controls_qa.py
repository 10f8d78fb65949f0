"""NO LANG and PERTURBED LANG controls for the two MC-QA tasks (the MC-MLM ones are in ``controls``).

Same conventions as ``controls``: a control row keeps the standard row's split, row number and id,
its provenance names the control and the standard row, its arguments are the standard row's with
those read back from the stem added (a stem that does not parse is an error naming the row),
PERTURBED LANG draws its nonsense words from ``controls.NONSENSE`` without replacement with
``random.Random(f"{seed}:{row_id}")``, and key words are replaced in the template text only, never
inside an argument. The choices are open answer sets (concepts, years, people, cities), so both
controls keep them unchanged.

Property conjunction, ``what {phrase(r1)} {x1} and {phrase(r2)} {x2}`` with the 21 relation phrasings
of ``generate_property.PHRASINGS``: a phrasing is matched longest first ("has a property of" before
"has"), and the conjunction is the " and " followed by a phrasing, so an argument may hold "and"
("rock and roll"); a stem with two such readings is an error. Every row of the release
(conjunction_filt4, 4,000 train + 483 dev) parses exactly one way.
- NO LANG keeps the two property objects: ``{x1} {x2}``.
- PERTURBED LANG replaces the key word "and" (the paper: "replace the word and with blah").

Encyclopedic composition, three question templates around one entity ``{e}`` (member, film, founder):
- NO LANG keeps ``{e}``.
- PERTURBED LANG replaces each template's content words that carry the composition (our choice; the
  paper names none): band / played / form (``band_inception``), spouse / actor / played
  (``film_spouse``), headquarters / company / established (``company_headquarters``).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence

import pandas as pd

from lmprobes.suites.olmpics.controls import (
    CONTROL_VARIANTS,
    NONSENSE,
    ControlError,
    ControlTemplate,
    argument_values,
    kept_arguments,
    perturbed_stem,
)
from lmprobes.suites.olmpics.generate_property import PHRASINGS
from lmprobes.suites.olmpics.schema import SCHEMA, TASKS, make_item

PROPERTY_TASK = "property_conjunction"
ENCYCLOPEDIC_TASK = "encyclopedic_composition"
PROPERTY_TEMPLATE = "property_conjunction/and"
PROPERTY_KEY_WORDS = ("and",)
RELATIONS = {phrase: relation for relation, phrase in PHRASINGS.items()}
PHRASES_LONGEST_FIRST = tuple(sorted(RELATIONS, key=len, reverse=True))
ENCYCLOPEDIC_TEMPLATES = (
    ControlTemplate("band_inception", "when did the band where {entity} played first form?", ("band", "played", "form")),
    ControlTemplate("film_spouse", "who is the spouse of the actor that played in {entity}?",
                    ("spouse", "actor", "played")),
    ControlTemplate("company_headquarters", "where is the headquarters of the company that {entity} established located?",
                    ("headquarters", "company", "established")),
)


# --- property conjunction -----------------------------------------------------------------------------


def leading_phrase(text: str) -> str | None:
    """The longest relation phrasing ``text`` starts with (followed by a space), if any."""
    return next((phrase for phrase in PHRASES_LONGEST_FIRST if text.startswith(phrase + " ")), None)


def parse_property_stem(row: dict) -> dict[str, str]:
    """``relation1``, ``object1``, ``relation2``, ``object2`` (ConceptNet names, object terms) of a question."""
    stem = row["stem"].strip()
    first = leading_phrase(stem.removeprefix("what ")) if stem.startswith("what ") else None
    if first is None:
        raise ControlError(f"{row['row_id']}: stem {row['stem']!r} is not 'what <relation phrasing> ...'")
    rest = stem[len("what ") + len(first) + 1:]
    readings = []
    for conjunction in re.finditer(" and ", rest):
        second = leading_phrase(rest[conjunction.end():])
        object1, object2 = rest[:conjunction.start()], rest[conjunction.end() + len(second or "") + 1:]
        if second and object1 and object2:
            readings.append({"relation1": RELATIONS[first], "object1": object1,
                             "relation2": RELATIONS[second], "object2": object2})
    if len(readings) != 1:
        reason = "no ' and <relation phrasing>'" if not readings else f"{len(readings)} readings"
        raise ControlError(f"{row['row_id']}: stem {row['stem']!r} does not parse as a property conjunction ({reason})")
    return readings[0]


def property_stem(parts: dict[str, str], conjunction: str = "and") -> str:
    return (f"what {PHRASINGS[parts['relation1']]} {parts['object1']} {conjunction} "
            f"{PHRASINGS[parts['relation2']]} {parts['object2']}")


def property_control(row: dict, variant: str, rng: random.Random) -> tuple[str, dict, dict, str]:
    """The control stem, the arguments, the replacements and the template name of one row."""
    parts = parse_property_stem(row)
    if variant == "no_lang":
        return f"{parts['object1']} {parts['object2']}", parts, {}, PROPERTY_TEMPLATE
    replacements = nonsense_for(PROPERTY_KEY_WORDS, rng)
    return property_stem(parts, replacements["and"]), parts, replacements, PROPERTY_TEMPLATE


# --- encyclopedic composition --------------------------------------------------------------------------


def match_encyclopedic(row: dict) -> tuple[ControlTemplate, re.Match]:
    for template in ENCYCLOPEDIC_TEMPLATES:
        found = template.pattern.match(row["stem"])
        if found:
            return template, found
    raise ControlError(f"{row['row_id']}: stem {row['stem']!r} matches no {ENCYCLOPEDIC_TASK} template")


def encyclopedic_control(row: dict, variant: str, rng: random.Random) -> tuple[str, dict, dict, str]:
    template, found = match_encyclopedic(row)
    arguments = argument_values(found)
    if variant == "no_lang":
        return arguments["entity"].strip(), arguments, {}, template.name
    replacements = nonsense_for(template.key_words, rng)
    return perturbed_stem(template, found, replacements), arguments, replacements, template.name


# --- both -------------------------------------------------------------------------------------------------


CONTROLS = {PROPERTY_TASK: property_control, ENCYCLOPEDIC_TASK: encyclopedic_control}


def nonsense_for(key_words: Sequence[str], rng: random.Random) -> dict[str, str]:
    return dict(zip(key_words, rng.sample(NONSENSE, len(key_words))))


def qa_control_row(row: dict, variant: str, seed: int) -> dict:
    """The ``variant`` control of one standard MC-QA SCHEMA row."""
    if variant not in CONTROL_VARIANTS:
        raise ValueError(f"variant must be one of {CONTROL_VARIANTS}, not {variant!r}")
    control = CONTROLS.get(row["task"])
    if control is None:
        raise ControlError(f"{row['row_id']}: no MC-QA language controls for task {row['task']!r}")
    rng = random.Random(f"{seed}:{row['row_id']}")
    stem, arguments, replacements, template = control(row, variant, rng)
    provenance = {**json.loads(row["provenance"] or "{}"), "control": variant, "standard_row_id": row["row_id"]}
    if variant == "perturbed_lang":
        provenance["replacements"] = replacements
        item_seed = seed
    else:
        item_seed = None if pd.isna(row["seed"]) else int(row["seed"])
    return make_item(
        row["task"], row["flavour"], variant, row["split"], int(row["row"]), id=row["id"], stem=stem,
        choices=list(row["choices"]), answer=int(row["answer"]),
        template_id=f"{row['template_id'] or template}+{variant}",
        arguments=kept_arguments(row, arguments), provenance=provenance, seed=item_seed,
    )


def qa_control_frame(frame: pd.DataFrame, variants: Sequence[str] = CONTROL_VARIANTS, *, seed: int = 0) -> pd.DataFrame:
    """NO LANG and/or PERTURBED LANG rows (SCHEMA) for every standard MC-QA row of ``frame``."""
    for variant in variants:
        if variant not in CONTROL_VARIANTS:
            raise ValueError(f"variant must be one of {CONTROL_VARIANTS}, not {variant!r}")
    standard = frame[(frame["variant"] == "standard") & frame["task"].map(lambda task: TASKS[task].setup == "mc_qa")]
    rows = [qa_control_row(row, variant, seed) for variant in variants for row in standard.to_dict("records")]
    result = pd.DataFrame.from_records(rows, columns=SCHEMA.names)
    result["seed"] = result["seed"].astype("Int64")
    return result
