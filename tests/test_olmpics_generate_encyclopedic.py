"""Encyclopedic composition through SparqlClient, against a fake query service on 127.0.0.1 that
answers with recorded SPARQL JSON results (tests/data/olmpics_sources/wikidata/)."""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs

import pandas as pd
import pyarrow as pa
import pytest

from lmprobes.suites.lama.wikidata import SparqlClient
from lmprobes.suites.olmpics.generate_encyclopedic import (
    QUESTION_TYPES,
    Fact,
    band_facts,
    band_query,
    company_query,
    film_query,
    generate_encyclopedic_composition,
    quotas_per_type,
    type_items,
    year_distractors,
)
from lmprobes.suites.olmpics.schema import SCHEMA
from loopback import send, serve_http

DATA = Path(__file__).parent / "data" / "olmpics_sources" / "wikidata"
UA = "lmprobes-tests/0.1 (https://example.org/lmprobes; tests@example.org)"
E = "http://www.wikidata.org/entity/"
RECORDINGS = {"wdt:P527": "band_inception", "wdt:P161": "film_spouse", "wdt:P112": "company_headquarters"}


class FakeQueryService:
    """Answers each of the three queries with its recording; records the properties asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def respond(self, handler: BaseHTTPRequestHandler) -> None:
        sparql = parse_qs(handler.rfile.read(int(handler.headers["Content-Length"])).decode())["query"][0]
        name = next((name for prop, name in RECORDINGS.items() if prop in sparql), None)
        self.asked.append(name or "unknown")
        if name is None:
            send(handler, 400, b"MalformedQueryException: unexpected query")
            return
        send(handler, 200, (DATA / f"{name}.json").read_bytes(), {"Content-Type": "application/sparql-results+json"})


def recorded(name: str) -> list[dict[str, str]]:
    bindings = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))["results"]["bindings"]
    return [{var: cell["value"] for var, cell in row.items()} for row in bindings]


@pytest.fixture(scope="module")
def service_and_frame(tmp_path_factory):
    service = FakeQueryService()
    cache = tmp_path_factory.mktemp("wikidata_cache")
    with serve_http(service.respond) as url:
        client = SparqlClient(f"{url}/sparql", cache_dir=cache, user_agent=UA, min_interval=0)
        frame = generate_encyclopedic_composition(client, n_train=12, n_dev=6, seed=3)
        again = generate_encyclopedic_composition(client, n_train=12, n_dev=6, seed=3)  # from the cache
        other = generate_encyclopedic_composition(client, n_train=12, n_dev=6, seed=4)
    return service, frame, again, other


@pytest.fixture(scope="module")
def frame(service_and_frame) -> pd.DataFrame:
    return service_and_frame[1]


def of_type(frame: pd.DataFrame, kind: str) -> pd.DataFrame:
    return frame[frame["template_id"] == f"encyclopedic_composition/{kind}"]


def test_three_queries_then_everything_from_the_cache(service_and_frame) -> None:
    service, frame, again, _ = service_and_frame
    assert service.asked == ["band_inception", "film_spouse", "company_headquarters"]
    pd.testing.assert_frame_equal(frame, again)
    pa.Table.from_pandas(frame, schema=SCHEMA, preserve_index=False)


def test_all_three_question_types_in_both_splits_in_the_release_shares(frame: pd.DataFrame) -> None:
    counts = frame.groupby(["split", "template_id"]).size().to_dict()
    # 12 train items split as the release's 1,791 / 1,772 / 1,754; 6 dev items as its 238 / 214 / 48
    for kind, n_train, n_dev in (("band_inception", 4, 3), ("film_spouse", 4, 2), ("company_headquarters", 4, 1)):
        assert counts[("train", f"encyclopedic_composition/{kind}")] == n_train
        assert counts[("dev", f"encyclopedic_composition/{kind}")] == n_dev
    stems = of_type(frame, "band_inception")["stem"]
    assert all(stem.startswith("when did the band where ") and stem.endswith(" played first form?") for stem in stems)


def test_year_distractors_are_one_or_two_years_off_and_never_right(frame: pd.DataFrame) -> None:
    years_of_member = defaultdict(set)
    for row in recorded("band_inception"):
        if row["inception"][:4].isdigit() and int(row.get("precision", 0)) >= 9:
            years_of_member[row["memberLabel"]].add(int(row["inception"][:4]))
    for _, row in of_type(frame, "band_inception").iterrows():
        member = row["stem"][len("when did the band where "):-len(" played first form?")]
        answer = int(row["choices"][row["answer"]])
        assert answer in years_of_member[member]
        distractors = [int(choice) for index, choice in enumerate(row["choices"]) if index != row["answer"]]
        assert len(set(distractors)) == 2
        assert all(abs(year - answer) in (1, 2) and year not in years_of_member[member] for year in distractors)


def test_band_facts_keep_inceptions_of_year_precision_or_finer_only() -> None:
    def row(number: int, precision: str | None) -> dict[str, str]:
        cells = {"band": f"{E}Q{number}", "bandLabel": f"Band {number}", "member": f"{E}Q{number + 1000}",
                 "memberLabel": f"Member {number}", "inception": "1960-01-01T00:00:00Z"}
        return cells if precision is None else {**cells, "precision": precision}

    # 7 century, 8 decade ("1960s", stored as 1960-01-01), 9 year, 10 month, 11 day; no precision: unknown.
    rows = [row(1, "7"), row(2, "8"), row(3, "9"), row(4, "10"), row(5, "11"), row(6, None), row(7, "x")]
    assert [(fact.bridge, fact.answer) for fact in band_facts(rows)] == [("Q3", "1960"), ("Q4", "1960"), ("Q5", "1960")]
    # The recording's decade-precision band (a service that ignored the query's FILTER) gives no fact.
    assert "Decade Player" not in {fact.entity_label for fact in band_facts(recorded("band_inception"))}


@pytest.mark.parametrize("kind, facts, answers_of_bridge", [
    # A band with two best-rank inceptions, the LIMIT keeping 1991 on Member Two's row only: Member
    # One's band formed in 1991 too, so 1991 is no distractor of Member One's question.
    ("band_inception", [Fact("Q1", "Member One", "Q100", "1990", "1990"),
                        Fact("Q2", "Member Two", "Q100", "1991", "1991")], {"1990", "1991"}),
    # A company with two headquarters, each on one founder's row.
    ("company_headquarters", [Fact("Q1", "Founder One", "Q100", "Q301", "Redmond", "Q30"),
                              Fact("Q2", "Founder Two", "Q100", "Q302", "Seattle", "Q30"),
                              Fact("Q3", "Founder Three", "Q101", "Q303", "Boston", "Q30"),
                              Fact("Q4", "Founder Four", "Q102", "Q304", "Austin", "Q30")], {"Redmond", "Seattle"}),
    # An actor with two spouses, each reached through another film.
    ("film_spouse", [Fact("Q1", "Film One", "Q100", "Q301", "Spouse A"),
                     Fact("Q2", "Film Two", "Q100", "Q302", "Spouse B"),
                     Fact("Q3", "Film Three", "Q101", "Q303", "Spouse C"),
                     Fact("Q4", "Film Four", "Q102", "Q304", "Spouse D")], {"Spouse A", "Spouse B"}),
])
def test_no_distractor_is_an_answer_of_a_bridge_the_entity_reaches(kind, facts, answers_of_bridge) -> None:
    question_type = next(question for question in QUESTION_TYPES if question.name == kind)
    checked = 0
    for seed in range(40):
        items = type_items(question_type, facts, {"dev": 0, "train": len(facts)}, random.Random(seed), "key")
        for item in items["train"]:
            if item["provenance"]["bridge"] != "Q100":
                continue
            gold = item["choices"][item["answer"]]
            assert set(item["choices"]) & answers_of_bridge == {gold}, (seed, item["stem"], item["choices"])
            checked += 1
    assert checked >= 40


def test_a_band_with_several_inceptions_is_asked_about_its_first() -> None:
    """"When did the band ... first form?": 1990, on both members' questions, though Member Two's only row
    carries the band's re-formation in 1995; 1995 is no choice."""
    band, = (question for question in QUESTION_TYPES if question.name == "band_inception")
    facts = [Fact("Q1", "Member One", "Q100", "1995", "1995"), Fact("Q1", "Member One", "Q100", "1990", "1990"),
             Fact("Q2", "Member Two", "Q100", "1995", "1995")]
    for seed in range(10):
        items = type_items(band, facts, {"dev": 0, "train": 2}, random.Random(seed), "key")["train"]
        assert sorted(item["stem"].split(" where ")[1] for item in items) == [
            "Member One played first form?", "Member Two played first form?"]
        assert all(item["choices"][item["answer"]] == "1990" and "1995" not in item["choices"] for item in items)


def test_type_quotas_at_the_release_sizes_are_the_release_counts() -> None:
    assert quotas_per_type(500, "dev") == {"band_inception": 238, "film_spouse": 214, "company_headquarters": 48}
    assert quotas_per_type(5317, "train") == {"band_inception": 1791, "film_spouse": 1772, "company_headquarters": 1754}
    assert sum(quotas_per_type(7, "dev").values()) == 7 and quotas_per_type(0, "train") == dict.fromkeys(
        ("band_inception", "film_spouse", "company_headquarters"), 0)


def test_year_distractors_use_the_release_offset_pairs_so_the_answer_is_never_the_mean() -> None:
    rng = random.Random(0)
    patterns = Counter()
    for year in range(1950, 2010):
        for _ in range(40):
            distractors = year_distractors(str(year), {str(year)}, rng)
            years = [year, *map(int, distractors)]
            assert sum(years) != 3 * year, years
            patterns[tuple(sorted(int(d) - year for d in distractors))] += 1
    assert set(patterns) == {(-2, -1), (1, 2), (-2, 1), (-1, 2)}
    assert min(patterns.values()) > 0.2 * sum(patterns.values())  # about a quarter each, as in the release
    for seed in range(20):  # 1991 is right too: only the pairs without it
        assert year_distractors("1990", {"1990", "1991"}, random.Random(seed)) in (["1988", "1989"], ["1989", "1992"])
    assert year_distractors("1990", {"1990", "1989", "1991"}, random.Random(0)) is None


def test_spouse_and_headquarters_distractors_are_answers_of_the_relation_but_wrong(frame: pd.DataFrame) -> None:
    spouses, all_spouses = defaultdict(set), set()
    for row in recorded("film_spouse"):
        if row["spouse"].startswith(E):
            spouses[row["filmLabel"]].add(row["spouseLabel"])
            all_spouses.add(row["spouseLabel"])
    places, all_places = defaultdict(set), set()
    for row in recorded("company_headquarters"):
        places[row["founderLabel"]].add(row["hqLabel"])
        all_places.add(row["hqLabel"])
    cases = ((of_type(frame, "film_spouse"), "who is the spouse of the actor that played in ", "?", spouses, all_spouses),
             (of_type(frame, "company_headquarters"), "where is the headquarters of the company that ",
              " established located?", places, all_places))
    for rows, prefix, suffix, valid, pool in cases:
        for _, row in rows.iterrows():
            entity = row["stem"][len(prefix):-len(suffix)]
            assert row["choices"][row["answer"]] in valid[entity]
            wrong = [choice for index, choice in enumerate(row["choices"]) if index != row["answer"]]
            assert len(set(row["choices"])) == 3
            assert all(choice in pool and choice not in valid[entity] for choice in wrong), (row["stem"], wrong)


def test_headquarters_distractors_share_the_answer_country_when_possible(frame: pd.DataFrame) -> None:
    country = {row["hqLabel"]: row.get("country") for row in recorded("company_headquarters")}
    checked = 0
    for _, row in of_type(frame, "company_headquarters").iterrows():
        answer = row["choices"][row["answer"]]
        if country[answer] == E + "Q30":  # nine US headquarters in the recording
            assert {country[choice] for choice in row["choices"]} == {E + "Q30"}
            checked += 1
    assert checked


def test_question_and_bridge_entities_are_disjoint_across_splits(frame: pd.DataFrame) -> None:
    objects = {split: set() for split in ("train", "dev")}
    for _, row in frame.iterrows():
        provenance = json.loads(row["provenance"])
        objects[row["split"]] |= {provenance["entity"], provenance["bridge"]}
    assert not objects["train"] & objects["dev"]


def test_other_seed_other_items(service_and_frame) -> None:
    _, frame, _, other = service_and_frame
    assert list(other["stem"]) != list(frame["stem"])


def test_queries_ask_for_the_spec_properties() -> None:
    assert "wdt:P31 wd:Q215380" in band_query(10) and "p:P571" in band_query(10) and "psv:P571" in band_query(10)
    assert "wdt:P31 wd:Q11424" in film_query(10) and "wdt:P26" in film_query(10)
    assert "wdt:P31 wd:Q5" in company_query(10) and "wdt:P159" in company_query(10)
    with pytest.raises(ValueError, match="limit"):
        band_query(0)


def test_the_job_asks_with_the_configs_download_settings(tmp_path, monkeypatch) -> None:
    from lmprobes import sources
    from lmprobes.suites.lama.wikidata import WikidataError
    from lmprobes.suites.olmpics.pipeline import make_generated

    sleeps: list[float] = []
    monkeypatch.setattr(sources, "_sleep", sleeps.append)
    asked: list[str] = []

    def busy(handler: BaseHTTPRequestHandler) -> None:
        asked.append(handler.rfile.read(int(handler.headers["Content-Length"])).decode())
        send(handler, 503, b"service busy")

    with serve_http(busy) as url:
        wikidata = {"endpoint": f"{url}/sparql", "cache": str(tmp_path / "cache"), "user_agent": UA, "min_interval": 0}
        with pytest.raises(WikidataError, match=r"after 3 attempts: HTTP 503 .*service busy"):
            make_generated("encyclopedic_composition", {}, tmp_path / "out.parquet", seed=3, provenance={},
                           wikidata=wikidata, download={"timeout": 5.0, "retries": 2, "backoff": 0.5})
    assert len(asked) == 3 and sleeps == [0.5, 1.0]  # the config's retries and back-off, not the client's defaults
    assert not (tmp_path / "out.parquet").exists()


def test_a_headquarters_in_two_countries_draws_distractors_from_either() -> None:
    """A city whose rows give two countries (P17) matches the cities of both: its distractors come from
    country B's two cities, whichever of its rows the item is drawn from (before: from its drawn row's
    country alone, so A's, which has no other city, let C's cities in)."""
    company, = (question for question in QUESTION_TYPES if question.name == "company_headquarters")
    facts = [Fact("Q1", "Founder One", "Q100", "Q301", "Border City", "QA"),
             Fact("Q1", "Founder One", "Q100", "Q301", "Border City", "QB"),
             *(Fact(f"Q{i}", f"Founder {i}", f"Q10{i}", f"Q30{i}", label, country)
               for i, (label, country) in enumerate([("B one", "QB"), ("B two", "QB"), ("C one", "QC"),
                                                     ("C two", "QC")], start=2))]
    for seed in range(20):
        items = type_items(company, facts, {"dev": 0, "train": 5}, random.Random(seed), "key")["train"]
        border, = (item for item in items if item["provenance"]["bridge"] == "Q100")
        assert sorted(border["choices"]) == ["B one", "B two", "Border City"], seed
