"""Noun phrases and verb phrases built from the lexicon with a seeded random source.

Everything here draws through ``Draw`` (a ``random.Random`` over lexicon tuples in file order), so one seed
gives one sequence of choices.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from lmprobes.suites.blimp.generator.lexicon import Lexicon, Name, Noun, Verb

T = TypeVar("T")
NUMBERS = ("sg", "pl")
OTHER = {"sg": "pl", "pl": "sg"}

# Demonstratives by number, and each one's counterpart of the other number.
DEMONSTRATIVES = {"sg": ("this", "that"), "pl": ("these", "those")}
SWAP_DEMONSTRATIVE = {"this": "these", "that": "those", "these": "this", "those": "that"}
# Determiners of a subject or an object NP, by number ("" is a bare plural; "a" becomes "an" as needed).
SUBJECT_DETERMINERS = {"sg": ("the", "the", "a", "this", "that", "every"),
                       "pl": ("the", "the", "these", "those", "some", "many", "most", "all", "a lot of", "")}
OBJECT_DETERMINERS = {"sg": ("the", "the", "a", "this", "that", "every"),
                      "pl": ("the", "these", "those", "some", "many", "all", "")}
MASS_DETERMINERS = ("the", "some", "this", "that", "")
REFLEXIVES = {"f": "herself", "m": "himself", "n": "itself", "pl": "themselves"}

# Verb-phrase frames: (name, agreeing, progressive). The first word of an agreeing frame carries the
# subject's number; its form for the other number is the agreement error.
FRAMES = (
    ("present", True, False), ("past", False, False),
    ("perfect", True, False), ("perfect_neg", True, False),
    ("past_perfect", False, False), ("past_perfect_neg", False, False),
    ("progressive", True, True), ("progressive_neg", True, True),
    ("past_progressive", True, True), ("past_progressive_neg", True, True),
    ("do_neg", True, False), ("did_neg", False, False),
    ("modal", False, False), ("modal_neg", False, False),
)
AUXILIARIES = {
    "perfect": {"sg": "has", "pl": "have"}, "perfect_neg": {"sg": "hasn't", "pl": "haven't"},
    "progressive": {"sg": "is", "pl": "are"}, "progressive_neg": {"sg": "isn't", "pl": "aren't"},
    "past_progressive": {"sg": "was", "pl": "were"}, "past_progressive_neg": {"sg": "wasn't", "pl": "weren't"},
    "do_neg": {"sg": "doesn't", "pl": "don't"},
}
COPULAS = {"sg": ("is", "was", "isn't", "wasn't"), "pl": ("are", "were", "aren't", "weren't")}
PERFECT = {"sg": "has", "pl": "have"}
COPULA_OTHER = {"is": "are", "was": "were", "isn't": "aren't", "wasn't": "weren't"}
COPULA_OTHER |= {v: k for k, v in COPULA_OTHER.items()}
MODALS = ("will", "would", "can", "could", "might", "should")
NEGATIVE_MODALS = ("won't", "wouldn't", "can't", "couldn't", "shouldn't")


class DeadEnd(LookupError):
    """A template found nothing to choose from for the choices made so far; the pair is drawn again."""


class Draw:
    """Seeded choices; sequences are drawn from in the order given (lexicon order), never from sets."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def pick(self, options: Sequence[T]) -> T:
        if not options:
            raise DeadEnd("nothing to choose from")
        return options[self.rng.randrange(len(options))]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p


@dataclass(frozen=True)
class NP:
    tokens: tuple[str, ...]
    number: str
    cls: str
    gender: str  # f, m, n for persons; "" otherwise

    @property
    def universal(self) -> bool:
        """Quantified by every / all: a negated verb after it reads as a scope puzzle, so none is used."""
        return self.tokens[0].lower() in ("every", "all")


@dataclass(frozen=True)
class VP:
    """A verb group: ``tokens`` (with the particle, without the object); when ``agreeing``, ``tokens[0]``
    agrees with the subject and ``other`` is its form for the other number."""

    tokens: tuple[str, ...]
    agreeing: bool
    other: str | None
    verb: Verb


def article(word: str) -> str:
    """"a" or "an" before ``word`` (by its sound: an hour, a university)."""
    lower = word.lower()
    if lower.startswith(("uni", "use", "usu", "eu", "one", "once")):
        return "a"
    if lower.startswith(("hour", "honest", "honor", "heir")):
        return "an"
    return "an" if lower[:1] in "aeiou" else "a"


def words(text: str) -> tuple[str, ...]:
    return tuple(text.split(" "))


def noun_phrase(draw: Draw, noun: Noun, number: str, determiners: Sequence[str]) -> NP:
    """``noun`` in ``number`` after one of ``determiners`` (mass nouns: singular, their own determiners)."""
    form = noun.form(number) if noun.countable else noun.singular
    det = draw.pick(determiners if noun.countable else MASS_DETERMINERS)
    if det == "a":
        det = article(form)
    tokens = (*words(det), *words(form)) if det else words(form)
    return NP(tokens, number if noun.countable else "sg", noun.cls, noun.gender)


def name_phrase(name: Name) -> NP:
    return NP((name.name,), "sg", "person", name.gender)


def subject_phrase(draw: Draw, lexicon: Lexicon, number: str, classes: frozenset[str], *, names: bool = True,
                   irregular: bool | None = None) -> NP:
    """A subject NP of ``number`` in one of ``classes``: a name (singular persons) or a determiner and a
    count noun (``irregular``: only nouns with an irregular plural, or only regular ones; None: either)."""
    if names and number == "sg" and "person" in classes and draw.chance(0.35):
        return name_phrase(draw.pick(lexicon.names))
    nouns = [n for n in lexicon.count_nouns if n.cls in classes and (irregular is None or n.irregular == irregular)]
    return noun_phrase(draw, draw.pick(nouns), number, SUBJECT_DETERMINERS[number])


def object_phrase(draw: Draw, lexicon: Lexicon, classes: frozenset[str], *, number: str | None = None,
                  determiners: dict[str, Sequence[str]] = OBJECT_DETERMINERS) -> NP:
    """An object NP in one of ``classes`` (a name when persons are allowed, sometimes), of ``number`` if given."""
    classes = classes - {"self"}
    if "person" in classes and number in (None, "sg") and draw.chance(0.3):
        return name_phrase(draw.pick(lexicon.names))
    nouns = [n for n in lexicon.nouns if n.cls in classes and (number is None or n.countable or number == "sg")]
    noun = draw.pick(nouns)
    number = number or draw.pick(NUMBERS)
    return noun_phrase(draw, noun, number, determiners[number])


def verb_phrase(draw: Draw, verb: Verb, number: str, *, agreeing: bool | None = None, negation: bool = True) -> VP:
    """``verb`` in a frame for a subject of ``number``: only agreeing frames when ``agreeing`` is True,
    only number-neutral ones when False, any when None; no negated frame unless ``negation``."""
    return verb_phrases(draw, (verb,), number, agreeing=agreeing, negation=negation)[0]


def verb_phrases(draw: Draw, verbs: Sequence[Verb], number: str, *, agreeing: bool | None = None,
                 negation: bool = True) -> tuple[VP, ...]:
    """Each of ``verbs`` in one frame (the same auxiliary or modal), one open to all of them (as
    ``verb_phrase``): the good and the bad verb of an argument-structure pair."""
    frames = [name for name, agrees, progressive in FRAMES
              if (agreeing is None or agrees == agreeing) and not (progressive and any(v.stative for v in verbs))
              and (negation or not name.endswith("_neg"))
              # a present tense whose base form is also its past ("hurt") would make the error grammatical
              and not (name == "present" and any(v.base == v.past for v in verbs))]
    frame = draw.pick(frames)
    modal = draw.pick(MODALS if frame == "modal" else NEGATIVE_MODALS) if frame in ("modal", "modal_neg") else ""
    return tuple(_in_frame(verb, number, frame, modal) for verb in verbs)


def _in_frame(verb: Verb, number: str, frame: str, modal: str) -> VP:
    particle = (verb.particle,) if verb.particle else ()
    if frame == "present":
        return VP((verb.present(number), *particle), True, verb.present(OTHER[number]), verb)
    if frame == "past":
        return VP((verb.past, *particle), False, None, verb)
    if frame in ("past_perfect", "past_perfect_neg"):
        return VP(("had" if frame == "past_perfect" else "hadn't", verb.participle, *particle), False, None, verb)
    if frame == "did_neg":
        return VP(("didn't", verb.base, *particle), False, None, verb)
    if frame in ("modal", "modal_neg"):
        return VP((modal, verb.base, *particle), False, None, verb)
    aux = AUXILIARIES[frame]
    main = {"perfect": verb.participle, "perfect_neg": verb.participle, "do_neg": verb.base}.get(frame, verb.gerund)
    return VP((aux[number], main, *particle), True, aux[OTHER[number]], verb)


def passive_auxiliary(draw: Draw, number: str, *, negation: bool = True) -> tuple[str, ...]:
    """The words before a passive participle for a subject of ``number``: "is", "wasn't", "has been",
    "had been", "might be" …; no negated one unless ``negation``."""
    options = [(copula,) for copula in COPULAS[number]]
    options += [(PERFECT[number], "been"), ("had", "been")] + [(modal, "be") for modal in MODALS]
    if negation:
        options += [(PERFECT[number] + "n't", "been"), ("hadn't", "been")]
        options += [(modal, "be") for modal in NEGATIVE_MODALS]
    return draw.pick([o for o in options if negation or not o[0].endswith("n't")])


def capitalised(tokens: Sequence[str]) -> tuple[str, ...]:
    first = tokens[0]
    return (first[:1].upper() + first[1:], *tokens[1:])
