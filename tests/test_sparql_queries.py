"""Every SPARQL query the workflow can send, checked by a real SPARQL 1.1 implementation (rdflib): it
parses, and the queries that use no service run against a small graph and mean what they say.

The fake query services of the other tests route requests by pattern and never parse a query, so a
syntax slip or a dropped language filter would pass them; the real service is not reachable here.
"""

import pytest

from lmprobes.suites.lama.wikidata import aliases_query, relation_facts_query, sampled_relation_facts_query
from lmprobes.suites.olmpics.generate_encyclopedic import band_query, company_query, film_query
from lmprobes.suites.olmpics.single_hop import band_lookup, company_lookup, film_lookup

rdflib = pytest.importorskip("rdflib")
from rdflib.plugins.sparql import prepareQuery

# LAMA's T-REx relations, as relations.jsonl names them.
RELATIONS = ["P17", "P19", "P20", "P27", "P30", "P31", "P36", "P37", "P39", "P47", "P101", "P103", "P106", "P108", "P127", "P131", "P136", "P138", "P140", "P159", "P176", "P178", "P190", "P264", "P276", "P279", "P361", "P364", "P407", "P413", "P449", "P463", "P495", "P527", "P530", "P740", "P937", "P1001", "P1303", "P1376", "P1412"]
AWKWARD = ['The "Band"', "back\\slash", "line\nbreak", "carriage\rreturn", "tab\there", "Kovac\u030cevic\u0301"]

GRAPH = """
@prefix wd: <http://www.wikidata.org/entity/> . @prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix p: <http://www.wikidata.org/prop/> .
@prefix psv: <http://www.wikidata.org/prop/statement/value/> . @prefix wikibase: <http://wikiba.se/ontology#> .
@prefix s: <http://www.wikidata.org/entity/statement/> . @prefix v: <http://www.wikidata.org/value/> .
wd:Q1 rdfs:label "Ada Lovelace"@en, "Ada"@de ; wdt:P19 wd:Q84, wd:Q85, "a literal" ;
      skos:altLabel "Augusta Ada King"@en, "Ada K"@fr ; wdt:P31 wd:Q5 .
wd:Q2 rdfs:label "No English"@de ; wdt:P19 wd:Q84 .
wd:Q3 rdfs:label "Three"@en ; wdt:P19 <http://www.wikidata.org/.well-known/genid/abc> .
wd:Q84 rdfs:label "London"@en . wd:Q85 rdfs:label "Londres"@fr .
wd:Q10 wdt:P31 wd:Q215380 ; wdt:P527 wd:Q1 ; wdt:P571 "1962-01-01T00:00:00Z"^^xsd:dateTime ; rdfs:label "The Band"@en ;
       p:P571 s:Q10-a, s:Q10-b, s:Q10-c .
s:Q10-a a wikibase:BestRank ; wikibase:rank wikibase:NormalRank ; psv:P571 v:y1962 .
s:Q10-b a wikibase:BestRank ; wikibase:rank wikibase:NormalRank ; psv:P571 v:y1962 .  # a second source: one row
s:Q10-c wikibase:rank wikibase:DeprecatedRank ; psv:P571 v:y1950 .  # deprecated: neither truthy nor best
v:y1962 wikibase:timeValue "1962-01-01T00:00:00Z"^^xsd:dateTime ; wikibase:timePrecision 9 .
v:y1950 wikibase:timeValue "1950-01-01T00:00:00Z"^^xsd:dateTime ; wikibase:timePrecision 9 .
wd:Q11 wdt:P31 wd:Q215380 ; wdt:P527 wd:Q1 ; rdfs:label "Decade Band"@en ;
       wdt:P571 "1960-01-01T00:00:00Z"^^xsd:dateTime ; p:P571 s:Q11-a .  # "1960s": truthy, but no year
s:Q11-a a wikibase:BestRank ; wikibase:rank wikibase:NormalRank ; psv:P571 v:d1960 .
v:d1960 wikibase:timeValue "1960-01-01T00:00:00Z"^^xsd:dateTime ; wikibase:timePrecision 8 .
wd:Q12 wdt:P31 wd:Q215380 ; wdt:P527 wd:Q1 ; rdfs:label "Month Band"@en ;
       wdt:P571 "1975-03-01T00:00:00Z"^^xsd:dateTime ; p:P571 s:Q12-a, s:Q12-b .
s:Q12-a a wikibase:BestRank ; wikibase:rank wikibase:PreferredRank ; psv:P571 v:m1975 .
s:Q12-b wikibase:rank wikibase:NormalRank ; psv:P571 v:y1974 .  # normal beside a preferred one: not best
v:m1975 wikibase:timeValue "1975-03-01T00:00:00Z"^^xsd:dateTime ; wikibase:timePrecision 10 .
v:y1974 wikibase:timeValue "1974-01-01T00:00:00Z"^^xsd:dateTime ; wikibase:timePrecision 9 .
wd:Q20 wdt:P31 wd:Q11424 ; rdfs:label "Film One"@en ; wdt:P161 wd:Q21 .
wd:Q21 rdfs:label "Actor"@en ; wdt:P26 wd:Q22 . wd:Q22 rdfs:label "Spouse"@en .
wd:Q30 wdt:P112 wd:Q31 ; wdt:P159 wd:Q32 ; rdfs:label "Microsoft"@en .
wd:Q31 wdt:P31 wd:Q5 ; rdfs:label "Bill Gates"@en . wd:Q32 rdfs:label "Redmond"@en ; wdt:P17 wd:Q30000 .
"""


def every_query() -> list[str]:
    queries = []
    for relation in RELATIONS:
        queries += [relation_facts_query(relation), relation_facts_query(relation, limit=100),
                    relation_facts_query(relation, subjects=["Q1", "Q42"]),
                    sampled_relation_facts_query(relation, limit=20000, sample_seed=3)]
    queries += [aliases_query(["Q1", "Q2"]), band_query(10), film_query(10), company_query(10)]
    queries += [lookup(AWKWARD) for lookup in (band_lookup, film_lookup, company_lookup)]
    return queries


@pytest.mark.parametrize("query", every_query(), ids=lambda q: q.splitlines()[-3][:40])
def test_every_query_is_valid_sparql(query):
    prepareQuery(query)


@pytest.fixture(scope="module")
def graph():
    return rdflib.Graph().parse(data=GRAPH, format="turtle")


def rows(graph, query) -> list[tuple[str, ...]]:
    return sorted(tuple(str(value) for value in row) for row in graph.query(query))


def test_relation_facts_keep_items_with_english_labels_only(graph):
    # Q2 has no English label, Q3's object is a blank-node id, "a literal" is no item, Q85 has no English label.
    assert rows(graph, relation_facts_query("P19")) == [
        ("http://www.wikidata.org/entity/Q1", "Ada Lovelace", "http://www.wikidata.org/entity/Q84", "London")]
    assert rows(graph, relation_facts_query("P19", subjects=["Q2", "Q3"])) == []


def test_aliases_are_english_only(graph):
    assert rows(graph, aliases_query(["Q1"])) == [("http://www.wikidata.org/entity/Q1", "Augusta Ada King")]


def test_the_encyclopedic_queries_and_lookups_find_their_bridges(graph):
    assert [row[1] for row in rows(graph, band_query(5))] == ["The Band", "Month Band"]
    assert [row[3] for row in rows(graph, film_query(5))] == ["Actor"]
    assert [row[3] for row in rows(graph, company_query(5))] == ["Bill Gates"]
    assert [row[2] for row in rows(graph, band_lookup(["Ada Lovelace", *AWKWARD]))] == ["The Band", "Month Band"]
    assert [row[2] for row in rows(graph, film_lookup(["Film One"]))] == ["Actor"]
    assert [row[2] for row in rows(graph, company_lookup(["Bill Gates"]))] == ["Microsoft"]


def test_inceptions_are_best_rank_values_of_year_precision_or_finer(graph):
    # The Band: its two best-rank statements of 1962 are one row, its deprecated 1950 none; Decade
    # Band's "1960s" (precision 8) is no year; Month Band: the preferred 1975-03 (precision 10), not
    # the normal-rank 1974 beside it.
    wanted = [("The Band", "1962-01-01", "9"), ("Month Band", "1975-03-01", "10")]
    assert [(row[1], row[4][:10], row[5]) for row in rows(graph, band_query(10))] == wanted
    assert [(row[2], row[3][:10], row[4]) for row in rows(graph, band_lookup(["Ada Lovelace"]))] == wanted
