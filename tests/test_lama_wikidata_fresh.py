"""Tests of lmprobes.suites.lama.wikidata_fresh against a fake query service on 127.0.0.1.

The fake answers with recorded SPARQL JSON results (tests/data/wikidata_fresh/): the ``bd:sample``
answer of a relation as recorded, and the subject- or item-restricted queries with the recorded
rows of the items named in the query's VALUES block, as the real service would.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pandas as pd
import pytest

from fake_wdqs import FakeQueryService, empty_answer, recorded, recorded_service
from lmprobes.io import write_parquet
from lmprobes.suites.lama.release import SCHEMA, load_common_vocab, lowercased
from lmprobes.suites.lama.wikidata import SparqlClient, relation_facts_query, sampled_relation_facts_query
from lmprobes.suites.lama.wikidata_fresh import (
    CORPUS,
    SUBJECTS_PER_QUERY,
    WikidataFreshError,
    build_wikidata_fresh,
    chosen_objects,
    sample_subjects,
    wikidata_fresh_with_stats,
)
from loopback import serve_http

DATA = Path(__file__).parent / "data" / "wikidata_fresh"
RELATIONS = DATA / "relations.jsonl"
VOCAB = DATA / "common_vocab.txt"
UA = "lmprobes-tests/0.1 (https://example.org/lmprobes; tests@example.org)"
E = "http://www.wikidata.org/entity/"
VALUES = re.compile(r"VALUES \?(\w+) \{([^}]*)\}")


@pytest.fixture
def service():
    holder: dict[str, FakeQueryService] = {}
    with serve_http(lambda handler: holder["service"].respond(handler), keep_alive=True) as url:
        holder["service"] = recorded_service()
        holder["url"] = f"{url}/sparql"
        yield holder


@pytest.fixture
def make_client(tmp_path: Path):
    clients: list[SparqlClient] = []

    def make(url: str, cache: str = "cache") -> SparqlClient:
        client = SparqlClient(
            url, cache_dir=tmp_path / cache, user_agent=UA, timeout=5.0, retries=0, min_interval=0.0,
            log=lambda message: None,
        )
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def build(client: SparqlClient, **options) -> pd.DataFrame:
    return build_wikidata_fresh(client, RELATIONS, VOCAB, **{"seed": 0, **options})


# ---------------------------------------------------------------------------------------------
# The hand-computed two-relation case


LONDON_ALIASES = ["Londinium", "London, England"]
GERMANY_ALIASES = ["Deutschland", "FRG", "Federal Republic of Germany"]
# (relation, lineno, subject, sub_label, object, obj_label, valid_objects, sub_aliases, obj_aliases, duplicate)
EXPECTED = [
    # Ada: Lundenwic (Q20) has the smaller id but is not in the vocabulary; London is.
    ("P19", 1, "Q1001", "Ada Lovelace", "Q84", "London", ["London", "Lundenwic"], ["Ada King", "Augusta Ada King"], LONDON_ALIASES, False),
    ("P19", 2, "Q1003", "Émile Zola", "Q90", "Paris", ["Paris"], [], ["City of Light"], False),
    ("P19", 3, "Q1004", "John Smith", "Q84", "London", ["London"], [], LONDON_ALIASES, False),
    # A namesake born in the same city: the same (sub_label, obj_label), flagged as LAMA dedupes.
    ("P19", 4, "Q1005", "John Smith", "Q84", "London", ["London"], [], LONDON_ALIASES, True),
    # Sampled through Paris; of its three common-vocab objects the seeded draw picks Berlin (Q64).
    ("P19", 5, "Q1010", "Clara Both", "Q64", "Berlin", ["Berlin", "Paris", "Tokyo"], ["C. Both"], [], False),
    ("P47", 1, "Q36", "Poland", "Q183", "Germany", ["Czech Republic", "Germany"], ["Republic of Poland"], GERMANY_ALIASES, False),
    ("P47", 2, "Q142", "France", "Q31", "Belgium", ["Belgium", "Germany", "Italy"], ["French Republic"], ["Kingdom of Belgium"], False),
    # Not Belgium (Q31, the smallest id): the seeded draw among Germany's common-vocab objects.
    ("P47", 3, "Q183", "Germany", "Q142", "France", ["Austria", "Belgium", "France", "Poland"], GERMANY_ALIASES, ["French Republic"], False),
]
TEMPLATES = {"P19": "[X] was born in [Y] .", "P47": "[X] shares border with [Y] ."}


def test_each_subjects_object_is_drawn_among_its_common_vocab_objects_seeded_per_subject():
    """Not the smallest id, which would make one famous item (Canada, Q16) every country's neighbour."""
    facts = pd.DataFrame({
        "subject_id": ["Q30"] * 5 + ["Q31"] * 2, "subject_label": ["United States"] * 5 + ["Belgium"] * 2,
        "object_id": ["Q16", "Q17", "Q142", "Q183", "Q999", "Q142", "Q183"],
        "object_label": ["Canada", "Japan", "France", "Germany", "Atlantis", "France", "Germany"],
    })
    vocab = {"Canada", "Japan", "France", "Germany"}
    draws = {seed: chosen_objects(facts, vocab, seed, "P530") for seed in range(20)}
    for seed, chosen in draws.items():
        assert chosen["subject_id"].tolist() == ["Q30", "Q31"]
        for subject, label in zip(chosen["subject_id"], chosen["object_label"]):
            in_vocab = facts[(facts.subject_id == subject) & facts.object_label.isin(vocab)]
            plain = in_vocab["object_label"].iloc[random.Random(f"{seed}:P530:{subject}").randrange(len(in_vocab))]
            assert label == plain
        assert chosen.equals(chosen_objects(facts, vocab, seed, "P530"))
    assert {draw["object_label"].iloc[0] for draw in draws.values()} == {"Canada", "Japan", "France", "Germany"}


def test_two_relations_give_the_hand_computed_rows(service, make_client):
    frame = build(make_client(service["url"]))
    assert list(frame.columns) == SCHEMA.names
    got = [
        (r.relation, r.source_line, r.sub_uri, r.sub_label, r.obj_uri, r.obj_label, list(r.valid_objects),
         list(r.sub_aliases), list(r.obj_aliases), bool(r.duplicate))
        for r in frame.itertuples()
    ]
    assert got == EXPECTED
    for row, expected in zip(frame.itertuples(), EXPECTED):
        relation, lineno, _, sub_label = expected[:4]
        assert row.row_id == f"wikidata_fresh:{relation}:{lineno}"
        assert row.corpus == CORPUS
        assert row.template == TEMPLATES[relation]
        assert row.query == TEMPLATES[relation].replace("[X]", sub_label).replace("[Y]", "[MASK]")
        assert list(row.masked_sentences) == [row.query]
        assert row.in_common_vocab and not row.too_long
        assert row.evidences is None
    assert frame.loc[0, "query"] == "Ada Lovelace was born in [MASK] ."
    assert frame.loc[5, "query"] == "Poland shares border with [MASK] ."
    assert frame.set_index("relation")[["relation_label", "relation_type"]].drop_duplicates().to_dict("index") == {
        "P19": {"relation_label": "place of birth", "relation_type": "N-1"},
        "P47": {"relation_label": "shares border with", "relation_type": "N-M"},
    }
    assert frame["uuid"].is_unique


def test_namesakes_stay_duplicates_in_the_lowercase_mode(service, make_client):
    """An uncased model scores the facts as ``release.lowercased`` sees them, the filters decided again
    on the lowercased labels: John Smith's namesake born in London is a duplicate there too."""
    frame = build(make_client(service["url"]))
    lower = lowercased(frame, {word.lower() for word in load_common_vocab(VOCAB)})
    assert lower["in_common_vocab"].all()
    assert lower["duplicate"].tolist() == [expected[-1] for expected in EXPECTED]

def test_queries_follow_the_sample_and_skip_relations_without_trex(service, make_client):
    build(make_client(service["url"]), candidates_per_relation=500)
    assert service["service"].requests == [
        {"kind": "sample", "relation": "P19", "limit": 500},
        # Zed Nobody (born in Smallville, not in the vocabulary) is never asked about.
        {"kind": "facts", "relation": "P19", "items": ["wd:Q1001", "wd:Q1003", "wd:Q1004", "wd:Q1005", "wd:Q1010"]},
        # Subjects and their chosen objects only: no aliases for Lundenwic, Paris of Clara, Tokyo.
        {"kind": "aliases", "items": ["wd:Q64", "wd:Q84", "wd:Q90", "wd:Q1001", "wd:Q1003", "wd:Q1004", "wd:Q1005", "wd:Q1010"]},
        {"kind": "sample", "relation": "P47", "limit": 500},
        # Austria only borders Liechtenstein in the sample, which is outside the vocabulary.
        {"kind": "facts", "relation": "P47", "items": ["wd:Q36", "wd:Q142", "wd:Q183"]},
        {"kind": "aliases", "items": ["wd:Q31", "wd:Q36", "wd:Q142", "wd:Q183"]},
    ]  # P166 (in relations.jsonl, no T-REx data) is not queried


def test_asking_for_one_relation(service, make_client):
    frame = build(make_client(service["url"]), relations=["P47"])
    assert list(frame["sub_label"]) == ["Poland", "France", "Germany"]
    assert {asked.get("relation") for asked in service["service"].requests} == {"P47", None}


def test_second_run_over_the_cache_sends_nothing_and_gives_identical_bytes(service, make_client, tmp_path):
    messages: list[str] = []
    first = build(make_client(service["url"]), log=messages.append)
    sent = len(service["service"].requests)
    # A fresh client on the same cache, pointing at the same endpoint.
    second = build(make_client(service["url"]), log=messages.append)
    assert len(service["service"].requests) == sent == 6
    pd.testing.assert_frame_equal(first, second)
    write_parquet(first, tmp_path / "first.parquet", SCHEMA, {"seed": 0})
    write_parquet(second, tmp_path / "second.parquet", SCHEMA, {"seed": 0})
    assert (tmp_path / "first.parquet").read_bytes() == (tmp_path / "second.parquet").read_bytes()
    assert messages == [
        ("wikidata_fresh P19: 6 candidate statements, 5 subjects with a common-vocab object, 5 sampled, 5 kept; "
         "3 queries (3 sent, 0 from cache)"),
        ("wikidata_fresh P47: 5 candidate statements, 3 subjects with a common-vocab object, 3 sampled, 3 kept; "
         "3 queries (3 sent, 0 from cache)"),
        ("wikidata_fresh P19: 6 candidate statements, 5 subjects with a common-vocab object, 5 sampled, 5 kept; "
         "3 queries (0 sent, 3 from cache)"),
        ("wikidata_fresh P47: 5 candidate statements, 3 subjects with a common-vocab object, 3 sampled, 3 kept; "
         "3 queries (0 sent, 3 from cache)"),
    ]


def test_stats_per_relation(service, make_client):
    _, stats = wikidata_fresh_with_stats(make_client(service["url"]), RELATIONS, VOCAB, seed=0, relations=["P19"])
    assert stats == {
        "P19": {"candidate_statements": 6, "candidate_subjects": 5, "sampled": 5, "kept": 5,
                "queries": 3, "sent": 3, "cached": 0},
    }


def test_sample_query_is_bounded_and_unordered():
    sparql = sampled_relation_facts_query("P31", limit=20000)
    assert "SERVICE bd:sample {\n    ?subject wdt:P31 ?object .\n" in sparql
    assert "bd:serviceParam bd:sample.limit 20000 ." in sparql
    assert "bd:serviceParam bd:sample.seed 0 ." in sparql
    assert 'bd:serviceParam bd:sample.sampleType "RANDOM" .' in sparql
    assert "PREFIX bd: <http://www.bigdata.com/rdf#>" in sparql
    assert "ORDER BY" not in sparql
    # The same item and English-label conditions as the unsampled query.
    for line in relation_facts_query("P31").splitlines()[6:9]:
        assert line in sparql.splitlines()
    with pytest.raises(ValueError, match="limit"):
        sampled_relation_facts_query("P31", limit=0)
    with pytest.raises(ValueError, match="P<digits>"):
        sampled_relation_facts_query("31", limit=10)


def test_statements_of_subjects_not_asked_about_make_no_rows(make_client):
    """A facts answer holding more than the subjects asked for (an over-broad query, a stale cache entry)
    adds nothing: Belgium (Q31) and Austria (Q40) have common-vocab neighbours in the recorded facts,
    but only the sampled Poland, France and Germany were asked about."""
    service = recorded_service()
    service.answers_unasked = True
    with serve_http(service.respond, keep_alive=True) as url:
        frame = build(make_client(f"{url}/sparql"))
    asked = [item for request in service.requests if request["kind"] == "facts" for item in request["items"]]
    assert "wd:Q31" not in asked and "wd:Q40" not in asked
    assert [(r.relation, r.sub_uri, r.obj_uri, list(r.valid_objects)) for r in frame.itertuples()] == [
        (relation, subject, obj, valid) for relation, _, subject, _, obj, _, valid, *_ in EXPECTED]


def test_a_sampled_subject_without_a_common_vocab_object_among_its_statements_is_not_kept(make_client):
    """Émile Zola is sampled through Paris, but his statements (queried after the sample) hold none:
    no row, and the counts say 5 sampled, 4 kept."""
    facts = recorded("P19_facts.json")
    facts["results"]["bindings"] = [row for row in facts["results"]["bindings"]
                                    if row["subject"]["value"] != E + "Q1003"]
    service = FakeQueryService({"P19": recorded("P19_sample.json")}, {"P19": facts}, recorded("aliases.json"))
    with serve_http(service.respond, keep_alive=True) as url:
        frame, stats = wikidata_fresh_with_stats(make_client(f"{url}/sparql"), RELATIONS, VOCAB, seed=0,
                                                 relations=["P19"])
    assert list(frame["sub_uri"]) == ["Q1001", "Q1004", "Q1005", "Q1010"]
    assert (stats["P19"]["sampled"], stats["P19"]["kept"]) == (5, 4)


# ---------------------------------------------------------------------------------------------
# Sampling beyond the cap


CITIES = [("Q84", "London"), ("Q90", "Paris"), ("Q64", "Berlin"), ("Q1490", "Tokyo")]
MANY = 450


def many_births() -> tuple[dict, list[str]]:
    """450 people, each born in one city (every fourth in Tokyo, outside the vocabulary)."""
    bindings, eligible = [], []
    for n in range(MANY):
        person, city = f"Q{5000 + 7 * n}", CITIES[n % 4]
        bindings.append({
            "subject": {"type": "uri", "value": E + person},
            "subjectLabel": {"xml:lang": "en", "type": "literal", "value": f"Person {n}"},
            "object": {"type": "uri", "value": E + city[0]},
            "objectLabel": {"xml:lang": "en", "type": "literal", "value": city[1]},
        })
        if city[1] != "Tokyo":
            eligible.append(person)
    answer = {"head": {"vars": ["subject", "subjectLabel", "object", "objectLabel"]}, "results": {"bindings": bindings[::-1]}}
    return answer, eligible


@pytest.fixture
def crowd():
    answer, eligible = many_births()
    service = FakeQueryService({"P19": answer}, {"P19": answer}, recorded("aliases.json"))
    with serve_http(service.respond, keep_alive=True) as url:
        yield service, f"{url}/sparql", eligible


def test_same_seed_same_sample_and_other_seed_other_sample(crowd, make_client):
    service, url, eligible = crowd
    client = make_client(url)
    first = build(client, seed=1, max_per_relation=100, relations=["P19"])
    again = build(make_client(url, cache="other-cache"), seed=1, max_per_relation=100, relations=["P19"])
    other = build(client, seed=2, max_per_relation=100, relations=["P19"])
    pd.testing.assert_frame_equal(first, again)
    assert len(first) == len(other) == 100
    assert list(first["sub_uri"]) != list(other["sub_uri"])
    # The seeded draw over the numerically sorted eligible subjects, listed in numeric order.
    ordered = sorted(eligible, key=lambda q: int(q[1:]))
    drawn = sorted(random.Random("1:P19").sample(ordered, 100), key=lambda q: int(q[1:]))
    assert list(first["sub_uri"]) == drawn
    assert list(first["source_line"]) == list(range(1, 101))
    assert not first["obj_label"].eq("Tokyo").any()
    # The candidate query does not depend on the seed: seed 2 redrew from the cached answer.
    samples = [asked for asked in service.requests if asked["kind"] == "sample"]
    assert len(samples) == 2  # one per cache directory


def test_subjects_are_drawn_from_and_listed_in_numeric_id_order_not_string_order():
    subjects = ["Q100", "Q9", "Q10", "Q1000", "Q99", "Q9"]
    numeric = ["Q9", "Q10", "Q99", "Q100", "Q1000"]
    assert sample_subjects(subjects, 10, 0, "P19") == numeric
    for seed in range(5):
        drawn = random.Random(f"{seed}:P19").sample(numeric, 3)
        assert sample_subjects(subjects, 3, seed, "P19") == [q for q in numeric if q in drawn]


def test_fact_and_alias_queries_are_chunked(crowd, make_client):
    service, url, eligible = crowd
    frame = build(make_client(url), max_per_relation=1000, relations=["P19"])
    assert len(frame) == len(eligible) == 338
    facts = [len(asked["items"]) for asked in service.requests if asked["kind"] == "facts"]
    aliases = [len(asked["items"]) for asked in service.requests if asked["kind"] == "aliases"]
    assert SUBJECTS_PER_QUERY == 200
    assert facts == [200, 138]
    assert aliases == [200, 141]  # 338 people and 3 cities


def test_one_subject_over_the_cap_is_sampled_down_to_the_cap():
    subjects = [f"Q{n}" for n in range(1, 12)]
    assert len(sample_subjects(subjects, 10, 0, "P19")) == 10
    assert sample_subjects(subjects, 11, 0, "P19") == subjects


def test_the_last_chunk_of_one_subject_is_asked_about(crowd, make_client):
    """201 sampled subjects: 200 in the first facts query, the last alone in the second."""
    service, url, _ = crowd
    frame = build(make_client(url), max_per_relation=201, relations=["P19"])
    assert len(frame) == 201
    assert [len(asked["items"]) for asked in service.requests if asked["kind"] == "facts"] == [200, 1]


# ---------------------------------------------------------------------------------------------
# Bad input


def test_unknown_relation_names_the_relations_file(service, make_client):
    with pytest.raises(WikidataFreshError, match=r"relations\.jsonl: no such relations: P9999"):
        build(make_client(service["url"]), relations=["P19", "P9999"])


def test_answer_without_a_label_names_the_cached_answer(make_client):
    broken = recorded("P19_sample.json")
    del broken["results"]["bindings"][2]["objectLabel"]
    service = FakeQueryService({"P19": broken}, {}, recorded("aliases.json"))
    with serve_http(service.respond, keep_alive=True) as url:
        client = make_client(f"{url}/sparql")
        with pytest.raises(WikidataFreshError, match=r"Wikidata answer .*\.json: result row 3 lacks objectLabel"):
            build(client, relations=["P19"])


@pytest.mark.parametrize("option", [{"max_per_relation": 0}, {"candidates_per_relation": -5}, {"seed": "1"}])
def test_bad_options_are_refused(option, make_client):
    with pytest.raises(WikidataFreshError, match=next(iter(option))):
        build(make_client("http://127.0.0.1:9/sparql"), **option)


def test_no_facts_at_all_is_an_error(make_client):
    service = FakeQueryService({"P19": empty_answer()}, {}, empty_answer())
    with (
        serve_http(service.respond, keep_alive=True) as url,
        pytest.raises(ValueError, match="no wikidata_fresh facts for relations P19"),
    ):
        build(make_client(f"{url}/sparql"), relations=["P19"])


# ---------------------------------------------------------------------------------------------
# The workflow's job (make_wikidata_fresh): its client from the config


def job_settings(endpoint: str, cache: Path, user_agent: str) -> dict:
    return {"endpoint": endpoint, "cache": str(cache), "user_agent": user_agent, "min_interval": 0.0,
            "max_per_relation": 1000, "candidates_per_relation": 20000}


def test_the_job_builds_its_client_from_the_settings_and_download_options(tmp_path):
    from lmprobes.io import read_metadata
    from lmprobes.suites.lama.pipeline import make_wikidata_fresh

    service = recorded_service()
    service.unknown_relation = empty_answer()
    with serve_http(service.respond, keep_alive=True) as url:
        settings = job_settings(f"{url}/sparql", tmp_path / "cache", UA)
        make_wikidata_fresh(RELATIONS, VOCAB, tmp_path / "fresh.parquet", seed=0, settings=settings,
                            download={"timeout": 5.0, "retries": 0, "backoff": 0.0}, provenance={})
    assert read_metadata(tmp_path / "fresh.parquet")["sources"]["endpoint"] == f"{url}/sparql"
    assert {asked["kind"] for asked in service.requests} == {"sample", "facts", "aliases"}


def test_the_job_refuses_the_schemas_user_agent_before_asking_the_query_service(tmp_path, monkeypatch):
    """The default names no contact: planning accepts it (tests/test_workflow_plans.py plans the full
    config), the job refuses it when it builds its client, naming the setting, and writes nothing."""
    from lmprobes.config import load_schema
    from lmprobes.suites.lama.pipeline import make_wikidata_fresh

    default = load_schema()["properties"]["suites"]["properties"]["lama"]["properties"]["generated"]["properties"][
        "wikidata_fresh"]["properties"]["user_agent"]["default"]

    def refuse(*args, **kwargs):
        raise AssertionError("the query service was asked")

    monkeypatch.setattr("requests.Session.post", refuse)
    settings = job_settings("https://query.wikidata.org/sparql", tmp_path / "cache", default)
    with pytest.raises(ValueError, match=r"names no contact.*suites\.lama\.generated\.wikidata_fresh\.user_agent"):
        make_wikidata_fresh(RELATIONS, VOCAB, tmp_path / "fresh.parquet", seed=0, settings=settings,
                            download={"timeout": 60, "retries": 5, "backoff": 2.0}, provenance={})
    assert not (tmp_path / "fresh.parquet").exists()
