"""Encyclopedic composition (oLMpics Section 4.5, MC-QA) generated from Wikidata.

Three two-hop question types, each answered by one SPARQL query through ``SparqlClient`` (so
every answer is cached on disk and a rerun sends nothing):

- ``band_inception``: ``when did the band where {member} played first form?``: a musical group
  (P31 Q215380) that has the member as part (P527); the answer is the year of its inception
  (P571), the distractors are two years 1 or 2 away from it, offset as the release offsets them
  (-2 -1, +1 +2, -2 +1 or -1 +2, at random), so the answer is never the mean of the three years.
  The inception is read from its best-rank statements (those ``wdt:P571`` gives) with its
  precision, and only a value of year precision or finer is kept: a decade ("1960s") is stored as
  1960-01-01, and 1960 against 1958 / 1959 / 1961 / 1962 would be no fact. A band with several
  such inceptions (formed, disbanded, formed again) is asked about its earliest, the "first" of
  the question;
- ``film_spouse``: ``who is the spouse of the actor that played in {film}?``: a film (P31
  Q11424), a cast member (P161) and the cast member's spouse (P26);
- ``company_headquarters``: ``where is the headquarters of the company that {founder} established
  located?``: a company founded by (P112) a human (P31 Q5) and its headquarters location (P159);
  distractors are other headquarters locations, in the answer's country (P17; any of them for a
  city whose rows give several) when there are enough (the paper: "a city in the same country as
  the gold answer city").

Spouse and headquarters distractors come from the answers of the same relation in the fetched
rows. A question entity may reach several answers (a member of two bands, a band with two
inception years, a film with several married cast members, a company with several headquarters):
the item's answer is one of them and no distractor is any of them, so exactly one choice is
right. The answers counted are every answer of each bridge the entity reaches in the fetched rows,
not only those of the entity's own rows (the LIMIT may cut a row of one member and keep the same
band's other year on another member's row). Question entities are split between dev and train
(seeded), and a train item whose bridge entity (band, actor, company) also serves a dev item is
dropped, so the splits share no entity of the question's chain; answers (years, cities) recur by
nature.

The queries have a LIMIT and no ORDER BY (a full sort of the film-cast-spouse join runs past
the service's time limit): which rows come back is the service's choice, pinned by the cache.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace

import pandas as pd

from lmprobes.suites.lama.wikidata import (
    ENTITY_ID,
    ENTITY_PREFIX,
    PREFIXES,
    STATEMENT_PREFIXES,
    Row,
    SparqlClient,
    cache_key,
)
from lmprobes.suites.olmpics.controls import items_frame, numbered, shuffled_choices

TASK = "encyclopedic_composition"
YEAR = re.compile(r"^(\d{4})-\d\d-\d\dT")
# wikibase:timePrecision: 7 century, 8 decade, 9 year, 10 month, 11 day (and finer); a year is a fact
# only from a value of year precision or finer.
YEAR_PRECISION = 9
# The release's four offset pairs, in about equal shares (composition_v2, band questions): the
# answer is never the middle year, so "pick the mean of the three" cannot solve an item.
YEAR_OFFSETS = ((-2, -1), (1, 2), (-2, 1), (-1, 2))
DEFAULT_LIMIT = 20_000
# Items per question type in the release's composition_v2 files.
RELEASE_TYPE_COUNTS = {
    "train": {"band_inception": 1791, "film_spouse": 1772, "company_headquarters": 1754},
    "dev": {"band_inception": 238, "film_spouse": 214, "company_headquarters": 48},
}


def english_labels(*variables: str) -> str:
    """Each variable's English label as ``?<var>Label`` (query clauses)."""
    return "".join(f'  ?{var} rdfs:label ?{var}Label . FILTER(LANG(?{var}Label) = "en")\n' for var in variables)


def inception_clauses(band: str) -> str:
    """``?inception`` and ``?precision`` of ``?<band>``'s best-rank P571 statements (the statements
    ``wdt:P571`` reads), of year precision or finer (query clauses)."""
    return (f"  ?{band} p:P571 ?inceptionStatement .\n"
            "  ?inceptionStatement a wikibase:BestRank ; psv:P571 ?inceptionValue .\n"
            "  ?inceptionValue wikibase:timeValue ?inception ; wikibase:timePrecision ?precision .\n"
            f"  FILTER(?precision >= {YEAR_PRECISION})\n")


def band_query(limit: int) -> str:
    # DISTINCT: two statements of one value (other qualifiers, other references) are one fact, as with wdt:.
    return (PREFIXES + STATEMENT_PREFIXES
            + "SELECT DISTINCT ?band ?bandLabel ?member ?memberLabel ?inception ?precision WHERE {\n"
            "  ?band wdt:P31 wd:Q215380 ; wdt:P527 ?member .\n" + inception_clauses("band")
            + english_labels("band", "member") + f"}}\nLIMIT {_limit(limit)}\n")


def film_query(limit: int) -> str:
    return (PREFIXES + "SELECT ?film ?filmLabel ?actor ?actorLabel ?spouse ?spouseLabel WHERE {\n"
            "  ?film wdt:P31 wd:Q11424 ; wdt:P161 ?actor .\n"
            "  ?actor wdt:P26 ?spouse .\n"
            + english_labels("film", "actor", "spouse") + f"}}\nLIMIT {_limit(limit)}\n")


def company_query(limit: int) -> str:
    return (PREFIXES + "SELECT ?company ?companyLabel ?founder ?founderLabel ?hq ?hqLabel ?country WHERE {\n"
            "  ?company wdt:P112 ?founder ; wdt:P159 ?hq .\n"
            "  ?founder wdt:P31 wd:Q5 .\n"
            "  OPTIONAL { ?hq wdt:P17 ?country . }\n"
            + english_labels("company", "founder", "hq") + f"}}\nLIMIT {_limit(limit)}\n")


def _limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit!r}")
    return limit


@dataclass(frozen=True)
class Fact:
    """One row of a query: question entity -> bridge entity -> answer."""

    entity: str
    entity_label: str
    bridge: str
    answer: str  # a Wikidata id, or the year for band_inception
    answer_label: str
    country: str | None = None


def entity_or_none(uri: str | None) -> str | None:
    """``http://www.wikidata.org/entity/Q42`` -> ``Q42``; None for unknown values (blank nodes)."""
    if uri is None or not uri.startswith(ENTITY_PREFIX):
        return None
    entity = uri[len(ENTITY_PREFIX):]
    return entity if ENTITY_ID.match(entity) else None


def year_or_none(value: str | None) -> str | None:
    """The year of an xsd:dateTime ``1962-01-01T00:00:00Z``; None for BCE or unknown values."""
    found = YEAR.match(value or "")
    return found.group(1) if found else None


def inception_year(row: Row) -> str | None:
    """The year of the row's ``inception`` when its ``precision`` is a year or finer; None for a
    coarser value (a decade, a century), a row without a precision, BCE or unknown values."""
    precision = row.get("precision", "")
    if not (precision.isascii() and precision.isdigit()) or int(precision) < YEAR_PRECISION:
        return None
    return year_or_none(row.get("inception"))


def band_facts(rows: list[Row]) -> list[Fact]:
    facts = []
    for row in rows:
        member, band, year = entity_or_none(row.get("member")), entity_or_none(row.get("band")), inception_year(row)
        if member and band and year:
            facts.append(Fact(member, row["memberLabel"], band, year, year))
    return facts


def film_facts(rows: list[Row]) -> list[Fact]:
    facts = []
    for row in rows:
        film, actor, spouse = (entity_or_none(row.get(var)) for var in ("film", "actor", "spouse"))
        if film and actor and spouse:
            facts.append(Fact(film, row["filmLabel"], actor, spouse, row["spouseLabel"]))
    return facts


def company_facts(rows: list[Row]) -> list[Fact]:
    facts = []
    for row in rows:
        founder, company, hq = (entity_or_none(row.get(var)) for var in ("founder", "company", "hq"))
        if founder and company and hq:
            facts.append(Fact(founder, row["founderLabel"], company, hq, row["hqLabel"], entity_or_none(row.get("country"))))
    return facts


@dataclass(frozen=True)
class QuestionType:
    name: str
    template: str
    query: Callable[[int], str]
    facts: Callable[[list[Row]], list[Fact]]


QUESTION_TYPES = (
    QuestionType("band_inception", "when did the band where {entity} played first form?", band_query, band_facts),
    QuestionType("film_spouse", "who is the spouse of the actor that played in {entity}?", film_query, film_facts),
    QuestionType("company_headquarters",
                 "where is the headquarters of the company that {entity} established located?",
                 company_query, company_facts),
)


# --- distractors ------------------------------------------------------------------------------


def year_distractors(answer: str, valid: set[str], rng: random.Random) -> list[str] | None:
    """Two years 1 or 2 away from the answer by one of ``YEAR_OFFSETS`` (drawn at random among
    those whose years are no valid answer), or None when there is none."""
    options = [[str(int(answer) + offset) for offset in offsets] for offsets in YEAR_OFFSETS]
    options = [years for years in options if not valid.intersection(years)]
    return rng.choice(options) if options else None


# An answer id -> its label and every country (P17) its rows give.
Pool = dict[str, tuple[str, frozenset[str]]]


def answer_pool(facts: list[Fact]) -> Pool:
    countries: dict[str, set[str]] = defaultdict(set)
    for fact in facts:
        countries[fact.answer].update([fact.country] if fact.country else [])
    return {fact.answer: (fact.answer_label, frozenset(countries[fact.answer]))
            for fact in sorted(facts, key=lambda f: f.answer)}


def pool_distractors(fact: Fact, valid: set[str], pool: Pool, rng: random.Random) -> list[str] | None:
    """Two answers of the same relation (ids) with labels unlike each other and every valid label;
    from a country of the answer's when it has at least two such (a city with two countries, P17,
    matches either)."""
    candidates = sorted(answer for answer, (label, _) in pool.items() if label not in valid)
    countries = pool[fact.answer][1]
    if countries:
        same_country = [answer for answer in candidates if pool[answer][1] & countries]
        if len(same_country) >= 2:
            candidates = same_country
    rng.shuffle(candidates)
    chosen: list[str] = []
    for answer in candidates:
        if pool[answer][0] not in {pool[other][0] for other in chosen}:
            chosen.append(answer)
        if len(chosen) == 2:
            return chosen
    return None


# --- items --------------------------------------------------------------------------------------


def build_item(kind: QuestionType, entity_facts: list[Fact], pool: Pool,
               rng: random.Random, query_key: str, valid: set[str]) -> dict | None:
    """The item about one question entity, or None when no two distractors exist; ``valid``: every
    answer (label) the entity reaches, none of which may be a distractor."""
    fact = rng.choice(sorted(entity_facts, key=lambda fact: (fact.bridge, fact.answer)))
    if kind.name == "band_inception":
        distractors = year_distractors(fact.answer, valid, rng)
        labels = distractors
    else:
        distractors = pool_distractors(fact, valid, pool, rng)
        labels = None if distractors is None else [pool[answer][0] for answer in distractors]
    if distractors is None:
        return None
    choices, answer = shuffled_choices(rng, fact.answer_label, labels)
    return {
        "stem": kind.template.format(entity=fact.entity_label), "choices": choices, "answer": answer,
        "template_id": f"{TASK}/{kind.name}", "arguments": {"entity": fact.entity_label},
        "provenance": {"source": "wikidata", "question_type": kind.name, "entity": fact.entity,
                       "bridge": fact.bridge, "answer": fact.answer, "distractors": distractors,
                       "query_cache_key": query_key},
    }


def split_entities(by_entity: dict[str, list[Fact]], n_train: int, n_dev: int,
                   rng: random.Random) -> dict[str, list[str]]:
    """Question entities in seeded order, dev's share first; train loses entities sharing a bridge."""
    entities = sorted(by_entity, key=lambda entity: int(entity[1:]))
    rng.shuffle(entities)
    total = n_train + n_dev
    n_dev_pool = 0 if total == 0 else round(len(entities) * n_dev / total)
    dev = entities[:n_dev_pool]
    dev_bridges = {fact.bridge for entity in dev for fact in by_entity[entity]}
    train = [entity for entity in entities[n_dev_pool:]
             if not {fact.bridge for fact in by_entity[entity]} & dev_bridges]
    return {"dev": dev, "train": train}


def type_items(kind: QuestionType, facts: list[Fact], quotas: dict[str, int], rng: random.Random,
               query_key: str) -> dict[str, list[dict]]:
    by_entity: dict[str, list[Fact]] = defaultdict(list)
    for fact in facts:
        by_entity[fact.entity].append(fact)
    pool = answer_pool(facts)
    answers_of_bridge: dict[str, set[str]] = defaultdict(set)
    for fact in facts:
        answers_of_bridge[fact.bridge].add(fact.answer_label)
    if kind.name == "band_inception":
        by_entity = {entity: earliest_inceptions(reached, answers_of_bridge) for entity, reached in by_entity.items()}
    entities = split_entities(by_entity, quotas["train"], quotas["dev"], rng)
    items: dict[str, list[dict]] = {}
    for split, quota in quotas.items():
        items[split] = []
        for entity in entities[split]:
            if len(items[split]) == quota:
                break
            valid = set().union(*(answers_of_bridge[fact.bridge] for fact in by_entity[entity]))
            item = build_item(kind, by_entity[entity], pool, rng, query_key, valid)
            if item is not None:
                items[split].append(item)
    return items


def earliest_inceptions(facts: list[Fact], years_of_band: dict[str, set[str]]) -> list[Fact]:
    """``facts`` each answered by its band's earliest inception year: the question asks when the band
    *first* formed, and a band may have several best-rank inceptions (the later ones stay answers no
    distractor may be)."""
    first = {band: min(years_of_band[band]) for band in {fact.bridge for fact in facts}}
    return list(dict.fromkeys(replace(fact, answer=first[fact.bridge], answer_label=first[fact.bridge])
                              for fact in facts))


def quotas_per_type(n: int, split: str) -> dict[str, int]:
    """``n`` spread over the question types in the release's shares of ``split`` (the largest
    remainders get the rounding, earlier types first on a tie)."""
    counts = RELEASE_TYPE_COUNTS[split]
    exact = {name: n * count / sum(counts.values()) for name, count in counts.items()}
    quotas = {name: int(share) for name, share in exact.items()}
    by_remainder = sorted(counts, key=lambda name: quotas[name] - exact[name])  # stable: type order on ties
    for name in by_remainder[:n - sum(quotas.values())]:
        quotas[name] += 1
    return quotas


def generate_encyclopedic_composition(client: SparqlClient, *, n_train: int, n_dev: int, seed: int,
                                      limit: int = DEFAULT_LIMIT) -> pd.DataFrame:
    """SCHEMA rows: up to ``n_train`` / ``n_dev`` questions, spread over the three types in the
    release's shares of each split."""
    rng = random.Random(seed)
    per_split = {"train": [], "dev": []}
    quotas = {split: quotas_per_type(n, split) for split, n in (("dev", n_dev), ("train", n_train))}
    for kind in QUESTION_TYPES:
        sparql = kind.query(limit)
        facts = kind.facts(client.query(sparql))
        items = type_items(kind, facts, {split: quotas[split][kind.name] for split in quotas}, rng,
                           cache_key(client.endpoint, sparql))
        for split in per_split:
            per_split[split] += items[split]
    rows = []
    for split, items in per_split.items():
        rows += numbered(TASK, split, items, seed)
    return items_frame(rows)
