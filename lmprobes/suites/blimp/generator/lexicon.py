"""The generator's typed lexicon (``resources/blimp/lexicon.csv``, written for this project).

One CSV row per entry; ``category`` says which columns it fills:

- ``noun``: ``lemma`` (the singular), ``plural`` (empty for a mass noun), ``irregular`` (a plural not made by
  the spelling rules -s / -es / consonant+y -> -ies), ``countable``, ``animate``, ``class`` (semantic class,
  ``CLASSES``), ``gender`` (persons: f, m or n for either), ``relation`` (nouns that take a complement:
  ``of_person`` "the sister of <person>", ``of`` "a picture of <thing>", ``about`` "a book about <topic>");
- ``name``: ``lemma``, ``gender`` (f or m); a singular, animate person;
- ``verb``: ``lemma`` (the base form), ``third`` (3rd person singular present), ``past``, ``participle``
  (past participle), ``gerund``, ``irregular`` (past or participle not made by -ed), ``particle`` (a
  preposition between the verb and its object: "talk about"), ``subject`` and ``object`` (the classes
  they take; ``self`` in ``object``: a reflexive object is natural), ``intransitive`` (the subject
  classes of an intransitive use; empty: none), ``stative`` (no progressive), ``adjectival`` (the
  participle is used before a noun: "the broken chairs"), and for the argument-structure paradigms:
  ``valency`` (empty: not classified; ``none``: no direct object in any use and so no passive, "arrive";
  ``required``: the object cannot be left out, "admire", "talk to"; ``optional``: a subject it takes
  also uses it without the object, "eat"), ``inchoative`` (the object classes that are also the subject of
  its intransitive, anticausative use: "Mary broke the vase" / "The vase broke"; a subset of ``object``
  and of ``intransitive``), ``passive`` (verbs with an object and no particle: whether the object can be
  the subject of a passive, "The vase was broken by Mary"; empty: not classified);
- ``adjective``: ``lemma``, ``applies_to`` (the noun classes it describes).

Class lists are ``|``-separated; yes/no columns are ``yes`` or ``no``.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

CLASSES = ("person", "animal", "artifact", "clothing", "vehicle", "place", "organization", "text", "picture", "film",
           "food", "drink", "plant", "abstract", "body")
ANIMATE = frozenset({"person", "animal"})
CATEGORIES = ("noun", "name", "verb", "adjective")
COLUMNS = ("category", "lemma", "plural", "third", "past", "participle", "gerund", "irregular", "countable",
           "animate", "class", "gender", "relation", "particle", "subject", "object", "intransitive", "stative",
           "adjectival", "applies_to", "valency", "inchoative", "passive")
# The columns each category must fill (beyond category and lemma) and may fill.
REQUIRED = {
    "noun": ("irregular", "countable", "animate", "class"),
    "name": ("animate", "class", "gender"),
    "verb": ("third", "past", "participle", "gerund", "irregular", "stative", "adjectival"),
    "adjective": ("applies_to",),
}
OPTIONAL = {
    "noun": ("plural", "gender", "relation"),
    "name": (),
    "verb": ("particle", "subject", "object", "intransitive", "valency", "inchoative", "passive"),
    "adjective": (),
}
RELATIONS = ("of_person", "of", "about")
VALENCIES = ("none", "required", "optional")
PARTICLES = ("about", "at", "for", "from", "like", "on", "through", "to", "up", "with")
DEFAULT_LEXICON = Path(__file__).resolve().parents[4] / "resources" / "blimp" / "lexicon.csv"


class LexiconError(ValueError):
    """A malformed lexicon; the message names the file and the line."""


@dataclass(frozen=True)
class Noun:
    singular: str
    plural: str  # "" for a mass noun
    irregular: bool
    countable: bool
    animate: bool
    cls: str
    gender: str  # persons: f, m, n; others: ""
    relation: str

    def form(self, number: str) -> str:
        return self.singular if number == "sg" else self.plural


@dataclass(frozen=True)
class Name:
    name: str
    gender: str


@dataclass(frozen=True)
class Verb:
    base: str
    third: str
    past: str
    participle: str
    gerund: str
    irregular: bool
    particle: str
    subject: frozenset[str]
    object: frozenset[str]  # may hold "self"
    intransitive: frozenset[str]
    stative: bool
    adjectival: bool
    valency: str = ""  # "", or one of VALENCIES
    inchoative: frozenset[str] = frozenset()
    passive: bool | None = None  # None: not classified

    def present(self, number: str) -> str:
        return self.third if number == "sg" else self.base

    @property
    def label(self) -> str:
        return f"{self.base} {self.particle}".strip()


@dataclass(frozen=True)
class Adjective:
    word: str
    applies_to: frozenset[str]


@dataclass(frozen=True)
class Lexicon:
    nouns: tuple[Noun, ...]
    names: tuple[Name, ...]
    verbs: tuple[Verb, ...]
    adjectives: tuple[Adjective, ...]
    path: str = ""

    @cached_property
    def count_nouns(self) -> tuple[Noun, ...]:
        return tuple(n for n in self.nouns if n.countable)

    def adjectives_for(self, cls: str) -> tuple[Adjective, ...]:
        return tuple(a for a in self.adjectives if cls in a.applies_to)

    def transitive_verbs(self, obj_cls: str | None = None, subj_cls: str | None = None) -> tuple[Verb, ...]:
        return tuple(v for v in self.verbs if v.object - {"self"} and (obj_cls is None or obj_cls in v.object)
                     and (subj_cls is None or subj_cls in v.subject))


def load_lexicon(path: str | Path | None = None) -> Lexicon:
    """The lexicon at ``path`` (default: the project's ``resources/blimp/lexicon.csv``), validated."""
    path = Path(path) if path is not None else DEFAULT_LEXICON
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise LexiconError(f"{path}: the header must be {','.join(COLUMNS)}, got {reader.fieldnames}")
        entries: dict[str, list] = {category: [] for category in CATEGORIES}
        seen: dict[tuple, int] = {}
        for lineno, row in enumerate(reader, start=2):
            where = f"{path}:{lineno}"
            if None in row or any(value is None for value in row.values()):
                raise LexiconError(f"{where}: expected {len(COLUMNS)} columns")
            entry = _entry(row, where)
            key = (row["category"], row["lemma"], row["particle"])
            if key in seen:
                raise LexiconError(f"{where}: {row['category']} {row['lemma']!r} {row['particle']!r} already on line "
                                   f"{seen[key]}")
            seen[key] = lineno
            entries[row["category"]].append(entry)
    return Lexicon(nouns=tuple(entries["noun"]), names=tuple(entries["name"]), verbs=tuple(entries["verb"]),
                   adjectives=tuple(entries["adjective"]), path=str(path))


def _entry(row: dict[str, str], where: str) -> Noun | Name | Verb | Adjective:
    category = row["category"]
    if category not in CATEGORIES:
        raise LexiconError(f"{where}: category must be one of {CATEGORIES}, got {category!r}")
    if not row["lemma"] or row["lemma"] != row["lemma"].strip() or "  " in row["lemma"]:
        raise LexiconError(f"{where}: lemma must be a word (or words) without stray spaces, got {row['lemma']!r}")
    for column in REQUIRED[category]:
        if not row[column]:
            raise LexiconError(f"{where}: a {category} needs {column}")
    allowed = {"category", "lemma", *REQUIRED[category], *OPTIONAL[category]}
    stray = [column for column in COLUMNS if row[column] and column not in allowed]
    if stray:
        raise LexiconError(f"{where}: a {category} fills no {stray}")
    for column, value in row.items():
        if value != value.strip():
            raise LexiconError(f"{where}: {column} has stray spaces: {value!r}")
    if category == "noun":
        return _noun(row, where)
    if category == "name":
        if row["class"] != "person" or _yes(row, "animate", where) is not True or row["gender"] not in ("f", "m"):
            raise LexiconError(f"{where}: a name is an animate person of gender f or m")
        return Name(row["lemma"], row["gender"])
    if category == "verb":
        return _verb(row, where)
    return Adjective(row["lemma"], _classes(row, "applies_to", where))


def _noun(row: dict[str, str], where: str) -> Noun:
    countable = _yes(row, "countable", where)
    if countable != bool(row["plural"]):
        raise LexiconError(f"{where}: a countable noun has a plural, a mass noun none")
    if row["plural"] == row["lemma"]:
        raise LexiconError(f"{where}: plural {row['plural']!r} is the singular; such nouns are left out")
    cls = row["class"]
    if cls not in CLASSES:
        raise LexiconError(f"{where}: class must be one of {CLASSES}, got {cls!r}")
    animate = _yes(row, "animate", where)
    if animate != (cls in ANIMATE):
        raise LexiconError(f"{where}: animate must be yes exactly for the classes {sorted(ANIMATE)}")
    if (cls == "person") != (row["gender"] in ("f", "m", "n")) or (row["gender"] and cls != "person"):
        raise LexiconError(f"{where}: gender (f, m or n) is given for persons and only for them")
    if row["relation"] and row["relation"] not in RELATIONS:
        raise LexiconError(f"{where}: relation must be one of {RELATIONS}, got {row['relation']!r}")
    return Noun(row["lemma"], row["plural"], _yes(row, "irregular", where), countable, animate, cls, row["gender"],
                row["relation"])


def _verb(row: dict[str, str], where: str) -> Verb:
    for column in ("third", "past", "participle", "gerund"):
        if " " in row[column]:
            raise LexiconError(f"{where}: {column} must be one word, got {row[column]!r}")
    if row["particle"] and row["particle"] not in PARTICLES:
        raise LexiconError(f"{where}: particle must be one of {PARTICLES}, got {row['particle']!r}")
    subject = _classes(row, "subject", where)
    obj = _classes(row, "object", where, extra=("self",))
    intransitive = _classes(row, "intransitive", where)
    if not obj and not intransitive:
        raise LexiconError(f"{where}: a verb needs an object or an intransitive use")
    if obj and not subject:
        raise LexiconError(f"{where}: a transitive verb needs its subject classes")
    if obj == {"self"}:
        raise LexiconError(f"{where}: object names the classes, not only self")
    if "self" in obj and "person" not in subject:
        raise LexiconError(f"{where}: a reflexive object needs a person subject")
    valency = row["valency"]
    if valency and valency not in VALENCIES:
        raise LexiconError(f"{where}: valency must be one of {VALENCIES} or empty, got {valency!r}")
    if valency == "none" and (obj or row["particle"]):
        raise LexiconError(f"{where}: a verb of valency none has no object and no particle")
    if valency == "required" and (not obj or intransitive):
        raise LexiconError(f"{where}: a verb of valency required has an object and no intransitive use")
    if valency == "optional" and not (obj and subject & intransitive):
        raise LexiconError(f"{where}: a verb of valency optional has an object and an intransitive use by one of "
                           "its subjects")
    inchoative = _classes(row, "inchoative", where)
    if not inchoative <= (obj - {"self"}) & intransitive or (inchoative and valency):
        raise LexiconError(f"{where}: inchoative classes are object and intransitive classes (valency empty)")
    if row["passive"] and (not obj or row["particle"]):
        raise LexiconError(f"{where}: passive (yes or no) is given only for verbs with an object and no particle")
    passive = _yes(row, "passive", where) if row["passive"] else None
    return Verb(row["lemma"], row["third"], row["past"], row["participle"], row["gerund"],
                _yes(row, "irregular", where), row["particle"], subject, obj, intransitive,
                _yes(row, "stative", where), _yes(row, "adjectival", where), valency, inchoative, passive)


def _yes(row: dict[str, str], column: str, where: str) -> bool:
    if row[column] not in ("yes", "no"):
        raise LexiconError(f"{where}: {column} must be yes or no, got {row[column]!r}")
    return row[column] == "yes"


def _classes(row: dict[str, str], column: str, where: str, *, extra: tuple[str, ...] = ()) -> frozenset[str]:
    """The classes listed in ``column``; empty when it is (a required column is checked by ``_entry``)."""
    if not row[column]:
        return frozenset()
    values = row[column].split("|")
    unknown = [v for v in values if v not in CLASSES + extra]
    if unknown or len(set(values)) != len(values):
        raise LexiconError(f"{where}: {column} must list distinct classes of {CLASSES + extra}, got {row[column]!r}")
    return frozenset(values)
