"""Tests of lmprobes.suites.lama.wikidata against a throw-away SPARQL server on 127.0.0.1."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, urljoin

import pandas as pd
import pytest
import requests

from lmprobes.config import load_schema
from lmprobes.suites.lama.wikidata import (
    READ_TIMEOUT,
    SparqlClient,
    WikidataError,
    WikidataQueryTimeout,
    WikidataResponseError,
    aliases_query,
    cache_key,
    facts_frame,
    is_loopback,
    relation_facts_query,
    retry_after_seconds,
    sampled_relation_facts_query,
    valid_objects,
    workflow_client,
)
from loopback import send, serve_http

UA = "lmprobes-tests/0.1 (https://example.org/lmprobes; tests@example.org)"
UNREACHABLE = "http://127.0.0.1:9/sparql"  # discard port: nothing listens there
E = "http://www.wikidata.org/entity/"

Responder = Callable[[BaseHTTPRequestHandler], None]


def sparql_json(*rows: dict[str, str]) -> bytes:
    variables = sorted({var for row in rows for var in row})
    bindings = [{var: {"type": "literal", "value": value} for var, value in row.items()} for row in rows]
    return json.dumps({"head": {"vars": variables}, "results": {"bindings": bindings}}).encode()


RESULT = sparql_json({"subject": E + "Q1", "subjectLabel": "one"}, {"subject": E + "Q2"})


# ---------------------------------------------------------------------------------------------
# A scriptable SPARQL server


class FakeEndpoint:
    """Answers POSTs with its responders in turn (the last one repeats) and records each request."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.responders: list[Responder] = [ok()]
        self.requests: list[dict] = []
        self._lock = threading.Lock()

    def script(self, *responders: Responder) -> None:
        self.responders = list(responders)

    def respond(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length", 0))
        form = parse_qs(handler.rfile.read(length).decode())
        with self._lock:
            self.requests.append({"headers": dict(handler.headers), "form": form})
            responder = self.responders.pop(0) if len(self.responders) > 1 else self.responders[0]
        responder(handler)


def ok(body: bytes = RESULT) -> Responder:
    return lambda handler: send(handler, 200, body, {"Content-Type": "application/sparql-results+json"})


def status(code: int, body: bytes = b"", headers: dict[str, str] | None = None) -> Responder:
    return lambda handler: send(handler, code, body, headers)


def truncated(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/sparql-results+json")
    handler.send_header("Content-Length", str(len(RESULT)))
    handler.end_headers()
    handler.wfile.write(RESULT[:20])
    handler.close_connection = True


@pytest.fixture
def endpoint():
    holder: dict[str, FakeEndpoint] = {}
    # keep-alive, like the real endpoint
    with serve_http(lambda handler: holder["endpoint"].respond(handler), keep_alive=True) as url:
        holder["endpoint"] = FakeEndpoint(f"{url}/sparql")
        yield holder["endpoint"]


class FakeTime:
    """A clock that only moves when the client sleeps; the sleeps are recorded."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
def make_client(tmp_path: Path, fake_time: FakeTime):
    clients: list[SparqlClient] = []

    def make(url: str, **options) -> SparqlClient:
        settings = {"cache_dir": tmp_path / "cache", "user_agent": UA, "timeout": 5.0, "retries": 3, "backoff": 0.5}
        settings.update(options)
        client = SparqlClient(url, sleep=fake_time.sleep, clock=fake_time.clock, log=lambda message: None, **settings)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


# ---------------------------------------------------------------------------------------------
# Requests


def test_query_returns_flattened_bindings(endpoint, make_client):
    rows = make_client(endpoint.url).query("SELECT ?subject WHERE {}")
    assert rows == [{"subject": E + "Q1", "subjectLabel": "one"}, {"subject": E + "Q2"}]


def test_query_is_a_form_post_asking_for_sparql_json_with_our_user_agent(endpoint, make_client):
    make_client(endpoint.url).query("SELECT ?x WHERE {}")
    (seen,) = endpoint.requests
    assert seen["form"] == {"query": ["SELECT ?x WHERE {}"]}
    assert seen["headers"]["Accept"] == "application/sparql-results+json"
    assert seen["headers"]["User-Agent"] == UA


def test_429_waits_for_retry_after_then_succeeds(endpoint, make_client, fake_time):
    endpoint.script(status(429, b"slow down", {"Retry-After": "2"}), ok())
    assert len(make_client(endpoint.url).query("SELECT ?a WHERE {}")) == 2
    assert 2.0 in fake_time.sleeps
    assert len(endpoint.requests) == 2


def test_500_is_retried_with_backoff(endpoint, make_client, fake_time):
    endpoint.script(status(500, b"oops"), ok())
    assert len(make_client(endpoint.url, backoff=0.5).query("SELECT ?b WHERE {}")) == 2
    assert fake_time.sleeps[0] == 0.5
    assert len(endpoint.requests) == 2


def test_truncated_body_is_retried(endpoint, make_client):
    endpoint.script(truncated, ok())
    assert len(make_client(endpoint.url).query("SELECT ?c WHERE {}")) == 2
    assert len(endpoint.requests) == 2


def test_body_that_is_not_json_is_retried(endpoint, make_client):
    endpoint.script(ok(b'{"head": {"vars": []}, "results": {"bind'), ok())
    assert len(make_client(endpoint.url).query("SELECT ?d WHERE {}")) == 2
    assert len(endpoint.requests) == 2


def test_400_fails_at_once_with_the_server_message(endpoint, make_client, fake_time):
    endpoint.script(status(400, b"MalformedQueryException: Encountered \" \"}\" at line 1"))
    sparql = "SELECT ?e WHERE {"
    with pytest.raises(WikidataError) as caught:
        make_client(endpoint.url).query(sparql)
    message = str(caught.value)
    assert "HTTP 400" in message and "MalformedQueryException" in message
    assert cache_key(endpoint.url, sparql) in message
    assert len(endpoint.requests) == 1
    assert fake_time.sleeps == []


def test_retries_exhausted_raise_wikidata_error(endpoint, make_client, fake_time):
    endpoint.script(status(503, b"busy"))
    with pytest.raises(WikidataError, match="after 3 attempts.*HTTP 503"):
        make_client(endpoint.url, retries=2, backoff=1.0).query("SELECT ?f WHERE {}")
    assert len(endpoint.requests) == 3
    assert fake_time.sleeps == [1.0, 2.0]


def test_connection_errors_are_retried_then_fail(make_client, fake_time):
    with pytest.raises(WikidataError, match="ConnectionError"):
        make_client(UNREACHABLE, retries=1, min_interval=0.0).query("SELECT ?g WHERE {}")
    assert fake_time.sleeps == [0.5]


def test_timeouts_are_retried(endpoint, make_client):
    def slow(handler: BaseHTTPRequestHandler) -> None:
        threading.Event().wait(0.5)
        try:
            ok()(handler)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting, as intended

    endpoint.script(slow, ok())
    assert len(make_client(endpoint.url, timeout=0.1).query("SELECT ?h WHERE {}")) == 2
    assert len(endpoint.requests) == 2


def test_min_interval_spaces_requests(endpoint, make_client, fake_time):
    client = make_client(endpoint.url, min_interval=1.5)
    client.query("SELECT ?i WHERE {}")
    assert fake_time.sleeps == []
    fake_time.now += 0.5  # the second query comes 0.5 s after the first one ended
    client.query("SELECT ?j WHERE {}")
    assert fake_time.sleeps == [pytest.approx(1.0)]
    assert len(endpoint.requests) == 2


def test_back_off_counts_towards_min_interval(endpoint, make_client, fake_time):
    endpoint.script(status(500), ok())
    make_client(endpoint.url, backoff=0.5, min_interval=1.0).query("SELECT ?o WHERE {}")
    assert fake_time.sleeps == [0.5, 0.5]


def test_one_query_at_a_time_across_threads(endpoint, make_client):
    in_flight, most = [0], [0]
    guard = threading.Lock()

    def counting(handler: BaseHTTPRequestHandler) -> None:
        with guard:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        threading.Event().wait(0.05)
        with guard:
            in_flight[0] -= 1
        ok()(handler)

    endpoint.script(counting)
    client = make_client(endpoint.url, min_interval=0.0)
    threads = [threading.Thread(target=client.query, args=(f"SELECT ?t{i} WHERE {{}}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(endpoint.requests) == 4
    assert most[0] == 1


def test_retry_after_accepts_an_http_date():
    response = requests.Response()
    response.status_code = 429
    response.headers["Retry-After"] = "Wed, 21 Oct 2026 07:28:05 GMT"
    now = datetime(2026, 10, 21, 7, 28, 0, tzinfo=UTC)
    assert retry_after_seconds(response, now) == 5.0
    response.headers["Retry-After"] = "Wed, 21 Oct 2026 07:27:00 GMT"  # already past
    assert retry_after_seconds(response, now) == 0.0
    response.headers["Retry-After"] = "Wed, 21 Oct 2026 08:28:00 GMT"  # an hour: as asked, not cut to a cap
    assert retry_after_seconds(response, now) == 3600.0


@pytest.mark.parametrize("header,wait", [("3600", "3600 s"), ("inf", "inf s"),
                                         ("Wed, 21 Oct 2099 07:28:00 GMT", " s (Retry-After: Wed, 21 Oct 2099")])
def test_a_retry_after_longer_than_the_cap_fails_naming_the_wait_and_is_not_cut_short(endpoint, make_client,
                                                                                      fake_time, header, wait):
    endpoint.script(status(429, b"Too Many Requests", {"Retry-After": header}), ok())
    client = make_client(endpoint.url)
    with pytest.raises(WikidataError) as caught:
        client.query("SELECT ?ra WHERE {}")
    message = str(caught.value)
    assert "HTTP 429" in message and "asks to wait" in message and wait in message and "600 s" in message
    assert len(endpoint.requests) == 1 and fake_time.sleeps == []  # not asked again early, nothing cached
    assert not list(client.cache_dir.rglob("*.json"))


def test_a_503_with_a_long_retry_after_fails_too(endpoint, make_client, fake_time):
    endpoint.script(status(503, b"maintenance", {"Retry-After": "7200"}), ok())
    with pytest.raises(WikidataError, match=r"HTTP 503.*maintenance.*asks to wait 7200 s"):
        make_client(endpoint.url).query("SELECT ?rb WHERE {}")
    assert len(endpoint.requests) == 1 and fake_time.sleeps == []


def test_a_retry_after_within_the_cap_is_waited_in_full(endpoint, make_client, fake_time):
    endpoint.script(status(429, b"", {"Retry-After": "600"}), ok())
    assert len(make_client(endpoint.url).query("SELECT ?rc WHERE {}")) == 2
    assert fake_time.sleeps == [600.0]


def test_429_without_retry_after_waits_a_minute(endpoint, make_client, fake_time):
    endpoint.script(status(429, b"Too Many Requests"), status(429, b"Too Many Requests"), ok())
    assert len(make_client(endpoint.url, backoff=0.5, min_interval=1.0).query("SELECT ?rd WHERE {}")) == 2
    assert fake_time.sleeps == [60.0, 60.0]  # not the 0.5 s and 1 s of back-off
    assert len(endpoint.requests) == 3


TIMEOUT_TRACE = (b"SPARQL-QUERY: queryStr=SELECT ...\njava.util.concurrent.ExecutionException: "
                 b"java.util.concurrent.TimeoutException\n\tat java.util.concurrent.FutureTask.report(FutureTask.java:205)")


@pytest.mark.parametrize("trace", [TIMEOUT_TRACE, b"com.bigdata.bop.engine.QueryTimeoutException: Query deadline is expired."])
def test_a_query_timeout_fails_at_once_naming_the_query_and_the_limit(endpoint, make_client, fake_time, trace):
    endpoint.script(status(500, b"Query timeout limit reached\n" + trace), ok())
    sparql = sampled_relation_facts_query("P31", limit=20000)
    with pytest.raises(WikidataQueryTimeout) as caught:
        make_client(endpoint.url).query(sparql)
    message = str(caught.value)
    assert cache_key(endpoint.url, sparql) in message and "HTTP 500" in message
    assert "60 s limit" in message and "not retried" in message and "candidates_per_relation" in message
    assert "SELECT ?subject ?subjectLabel ?object ?objectLabel WHERE { SERVICE bd:sample { ?subject wdt:P31 ?object" \
        in message and "PREFIX" not in message
    assert len(endpoint.requests) == 1 and fake_time.sleeps == []


def test_a_200_cut_off_by_a_timeout_stack_trace_fails_at_once_and_is_not_cached(endpoint, make_client, fake_time):
    # The service streams rows as they come; at the deadline the JSON stops and the Java trace follows.
    cut = RESULT[:RESULT.index(b'{"subject"', RESULT.index(b"bindings")) + 40] + b"\n" + TIMEOUT_TRACE
    endpoint.script(ok(cut), ok())
    client = make_client(endpoint.url)
    with pytest.raises(WikidataQueryTimeout, match=r"HTTP 200 cut off.*60 s limit.*SELECT \?rt WHERE"):
        client.query("PREFIX wd: <http://www.wikidata.org/entity/>\nSELECT ?rt WHERE {}")
    assert len(endpoint.requests) == 1 and fake_time.sleeps == []
    assert not client.cache_dir.exists() or not list(client.cache_dir.rglob("*.json"))


def test_the_timeout_exception_inside_a_complete_answer_is_data(endpoint, make_client):
    body = sparql_json({"subject": E + "Q1", "subjectLabel": "java.util.concurrent.TimeoutException"})
    endpoint.script(status(500, b"busy"), ok(body))
    rows = make_client(endpoint.url).query("SELECT ?re WHERE {}")
    assert rows == [{"subject": E + "Q1", "subjectLabel": "java.util.concurrent.TimeoutException"}]


def test_errors_that_outlast_the_retries_quote_the_answer(endpoint, make_client, fake_time):
    endpoint.script(status(502, b"<html><body>upstream connect error or disconnect/reset before headers</body></html>"))
    with pytest.raises(WikidataError, match=r"after 2 attempts: HTTP 502 .*upstream connect error"):
        make_client(endpoint.url, retries=1).query("SELECT ?rf WHERE {}")
    endpoint.script(ok(b'{"head": {"vars": []}, "results": {"bindings": [{"x": {"value": "trailing words"}}'))
    with pytest.raises(WikidataError, match=r"after 2 attempts: response is not complete JSON.*ends with:.*trailing words"):
        make_client(endpoint.url, retries=1).query("SELECT ?rg WHERE {}")


@pytest.mark.parametrize("code", [301, 302, 307, 308])
@pytest.mark.parametrize("location", ["https://query.example.net/sparql", "/bigdata/sparql"])
def test_a_redirect_is_an_error_naming_its_location_and_the_endpoint_setting(endpoint, make_client, fake_time,
                                                                             code, location):
    endpoint.script(status(code, b"moved", {"Location": location}), ok())
    with pytest.raises(WikidataError) as caught:
        make_client(endpoint.url).query("SELECT ?rh WHERE {}")
    message = str(caught.value)
    assert f"HTTP {code}" in message and f"redirecting to {urljoin(endpoint.url, location)}:" in message
    assert "suites.lama.generated.wikidata_fresh.endpoint" in message and "loses its query" in message
    assert len(endpoint.requests) == 1  # not followed (requests would have sent a GET without the query)
    assert fake_time.sleeps == []


def test_the_post_is_not_redirected_and_waits_past_the_service_deadline(tmp_path):
    client = SparqlClient(UNREACHABLE, cache_dir=tmp_path, user_agent=UA)
    seen = {}

    def post(url, **kwargs):
        seen.update(kwargs, url=url)
        raise requests.exceptions.InvalidURL("stop here")

    client._session.post = post
    with pytest.raises(WikidataError, match="request failed"):
        client.query("SELECT ?ri WHERE {}")
    assert seen["allow_redirects"] is False and seen["timeout"] == (30.0, READ_TIMEOUT) and READ_TIMEOUT > 60


def test_the_workflow_client_takes_the_download_settings_and_outlasts_the_deadline(tmp_path):
    settings = {"endpoint": "http://127.0.0.1:9/sparql", "cache": str(tmp_path), "user_agent": UA, "min_interval": 0.5}
    with workflow_client(settings, {"timeout": 60, "retries": 1, "backoff": 0.25}) as client:
        assert (client.timeout, client.retries, client.backoff, client.min_interval) == (READ_TIMEOUT, 1, 0.25, 0.5)
    with workflow_client(settings, {"timeout": 300, "retries": 0, "backoff": 0}) as client:
        assert (client.timeout, client.retries, client.backoff) == (300, 0, 0)
    with workflow_client(settings) as client:
        assert (client.timeout, client.retries, client.backoff) == (READ_TIMEOUT, 5, 2.0)


# ---------------------------------------------------------------------------------------------
# User-Agent


SCHEMA_USER_AGENT = load_schema()["properties"]["suites"]["properties"]["lama"]["properties"]["generated"][
    "properties"]["wikidata_fresh"]["properties"]["user_agent"]["default"]


@pytest.mark.parametrize("agent", ["", "   ", "python-requests/2.32.3", "Python-urllib/3.11", "curl/8.5.0"])
def test_generic_or_empty_user_agent_is_refused(tmp_path, agent):
    with pytest.raises(ValueError, match="user_agent"):
        SparqlClient(cache_dir=tmp_path, user_agent=agent)
    with pytest.raises(ValueError, match="user_agent"):  # on this machine too
        SparqlClient("http://127.0.0.1:9/sparql", cache_dir=tmp_path, user_agent=agent)


@pytest.mark.parametrize("agent", [SCHEMA_USER_AGENT, "x", "lmprobes/0.1 (+research reproduction workflow)",
                                   "lmprobes/0.1 (contact: me at uni dot edu)", "lmprobes/0.1 (http://localhost/x)"])
def test_a_user_agent_without_a_contact_is_refused_naming_the_setting(tmp_path, agent):
    with pytest.raises(ValueError) as caught:
        SparqlClient(cache_dir=tmp_path, user_agent=agent)
    message = str(caught.value)
    assert "names no contact" in message and repr(agent) in message
    assert "suites.lama.generated.wikidata_fresh.user_agent" in message
    assert "olmpics_encyclopedic" in message and "olmpics_single_hop" in message
    assert "'lmprobes/0.1 (https://example.org/you; you@example.org)'" in message


def test_the_example_contact_is_refused_as_a_placeholder(tmp_path):
    with pytest.raises(ValueError, match="placeholder contact at example.org"):
        SparqlClient(cache_dir=tmp_path, user_agent="lmprobes/0.1 (https://example.org/you; you@example.org)")


@pytest.mark.parametrize("agent", ["lmprobes/0.1 (https://github.com/jane/lmprobes)", "lmprobes/0.1 (jane.doe@uni.edu)",
                                   "lmprobes/0.1 (https://example.org/x; jane@lab.uni-x.de)"])
def test_a_user_agent_with_a_contact_is_accepted(tmp_path, agent):
    with SparqlClient(cache_dir=tmp_path, user_agent=agent) as client:
        assert client._session.headers["User-Agent"] == agent


def test_no_contact_is_asked_of_a_client_that_sends_nothing_over_the_network(endpoint, make_client, tmp_path):
    # An offline mirror answers for the query service, or the service runs on this machine.
    SparqlClient(cache_dir=tmp_path, user_agent=SCHEMA_USER_AGENT, mirror=tmp_path / "mirror").close()
    assert len(make_client(endpoint.url, user_agent="lmprobes-tests/0.1").query("SELECT ?u WHERE {}")) == 2
    assert endpoint.requests[0]["headers"]["User-Agent"] == "lmprobes-tests/0.1"


# ---------------------------------------------------------------------------------------------
# Cache


def test_cache_hit_makes_no_request(endpoint, make_client):
    client = make_client(endpoint.url)
    first = client.query("SELECT ?k WHERE {}")
    # Re-indenting the query does not change its cache key.
    second = make_client(endpoint.url).query("\n  SELECT ?k WHERE {}  \n\n")
    assert first == second
    assert len(endpoint.requests) == 1


def test_cache_file_holds_query_and_raw_json_and_no_temp_files(endpoint, make_client, tmp_path):
    sparql = "SELECT ?l WHERE {}"
    client = make_client(endpoint.url)
    client.query(sparql)
    key = cache_key(endpoint.url, sparql)
    path = client.cache_path(sparql)
    assert path == tmp_path / "cache" / key[:2] / f"{key}.json"
    record = json.loads(path.read_text())
    assert record["query"] == sparql
    assert record["response"] == json.loads(RESULT)
    assert [p.name for p in (tmp_path / "cache").rglob("*") if p.is_file()] == [f"{key}.json"]


def test_failed_query_writes_no_cache_file(endpoint, make_client, tmp_path):
    endpoint.script(status(400, b"bad"))
    with pytest.raises(WikidataError):
        make_client(endpoint.url).query("SELECT ?m WHERE {")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.json"))


def test_unreadable_cache_file_is_fetched_again(endpoint, make_client):
    client = make_client(endpoint.url)
    sparql = "SELECT ?n WHERE {}"
    client.cache_path(sparql).parent.mkdir(parents=True)
    client.cache_path(sparql).write_text('{"query": "SELECT')
    assert len(client.query(sparql)) == 2
    assert len(endpoint.requests) == 1
    assert json.loads(client.cache_path(sparql).read_text())["query"] == sparql


# ---------------------------------------------------------------------------------------------
# Offline mirror


WDQS = "https://query.wikidata.org/sparql"


def no_network(client: SparqlClient) -> SparqlClient:
    def refuse(*args, **kwargs):
        raise AssertionError("the network was asked")

    client._session.post = refuse
    return client


def mirrored(mirror: Path, sparql: str, response: dict) -> Path:
    """An answer as a cache folder filled online holds it, copied into the mirror."""
    key = cache_key(WDQS, sparql)
    path = mirror / "query.wikidata.org" / "sparql" / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"endpoint": WDQS, "query": sparql, "response": response}))
    return path


def test_mirror_answers_a_query_the_cache_lacks_without_the_network(make_client, tmp_path):
    sparql = "SELECT ?o WHERE {}"
    mirrored(tmp_path / "mirror", sparql, json.loads(RESULT))
    client = no_network(make_client(WDQS, cache_dir=tmp_path / "empty", mirror=tmp_path / "mirror"))
    assert client.query("  " + sparql + "\n") == [{"subject": E + "Q1", "subjectLabel": "one"}, {"subject": E + "Q2"}]
    assert not (tmp_path / "empty").exists()


def test_mirror_without_the_answer_fails_naming_the_file_and_sends_nothing(make_client, tmp_path):
    sparql = "SELECT ?p WHERE {}"
    client = no_network(make_client(WDQS, mirror=tmp_path / "mirror"))
    key = cache_key(WDQS, sparql)
    with pytest.raises(WikidataError, match="mirror has no answer") as caught:
        client.query(sparql)
    assert str(tmp_path / "mirror" / "query.wikidata.org" / "sparql" / key[:2] / f"{key}.json") in str(caught.value)
    assert sparql in str(caught.value)


def test_malformed_mirror_file_is_an_error_naming_it(make_client, tmp_path):
    sparql = "SELECT ?q WHERE {}"
    path = mirrored(tmp_path / "mirror", sparql, {"results": {"bindings": [1]}})
    with pytest.raises(WikidataResponseError, match=f"mirror file {re.escape(str(path))}.*row 1"):
        no_network(make_client(WDQS, mirror=tmp_path / "mirror")).query(sparql)


def test_a_query_service_on_this_machine_is_asked_mirror_or_not(endpoint, make_client, tmp_path):
    rows = make_client(endpoint.url, mirror=tmp_path / "mirror").query("SELECT ?r WHERE {}")
    assert len(rows) == 2 and len(endpoint.requests) == 1
    assert is_loopback("http://localhost:9999/sparql") and is_loopback("http://[::1]/sparql")
    assert not is_loopback(WDQS) and not is_loopback("http://10.0.0.1/sparql")


# ---------------------------------------------------------------------------------------------
# Query builders


def test_relation_facts_query_for_p19():
    sparql = relation_facts_query("P19", limit=10)
    assert "SELECT ?subject ?subjectLabel ?object ?objectLabel WHERE {" in sparql
    assert "?subject wdt:P19 ?object ." in sparql
    assert 'FILTER(LANG(?subjectLabel) = "en")' in sparql
    assert 'FILTER(LANG(?objectLabel) = "en")' in sparql
    assert "PREFIX wdt: <http://www.wikidata.org/prop/direct/>" in sparql
    assert sparql.rstrip().endswith("ORDER BY ?subject ?object\nLIMIT 10")
    assert "LIMIT" not in relation_facts_query("P19")


def test_relation_facts_query_restricted_to_subjects():
    assert "VALUES ?subject { wd:Q2 wd:Q10 }" in relation_facts_query("P19", subjects=["Q10", "Q2"])


def test_aliases_query_lists_sorted_unique_entities():
    sparql = aliases_query(["Q42", "Q7", "Q42"])
    assert "VALUES ?entity { wd:Q7 wd:Q42 }" in sparql
    assert "?entity skos:altLabel ?alias ." in sparql
    assert 'FILTER(LANG(?alias) = "en")' in sparql


@pytest.mark.parametrize("relation", ["19", "p19", "P19 ", "P", "Q19", "P19; DROP"])
def test_bad_relation_ids_are_rejected(relation):
    with pytest.raises(ValueError, match="P<digits>"):
        relation_facts_query(relation)


@pytest.mark.parametrize("entity", ["42", "q42", "Q42}", "P31", "wd:Q42"])
def test_bad_entity_ids_are_rejected(entity):
    with pytest.raises(ValueError, match=f"Q<digits>.*{entity[:2]}"):
        aliases_query(["Q1", entity])


def test_bad_limit_and_empty_entity_lists_are_rejected():
    with pytest.raises(ValueError, match="limit"):
        relation_facts_query("P19", limit=0)
    with pytest.raises(ValueError, match="no entity"):
        aliases_query([])


# ---------------------------------------------------------------------------------------------
# Tables


def fact(subject: str, subject_label: str, obj: str, object_label: str) -> dict[str, str]:
    return {"subject": E + subject, "subjectLabel": subject_label, "object": E + obj, "objectLabel": object_label}


ROWS = [
    fact("Q10", "Ten", "Q60", "New York City"),
    fact("Q2", "Two", "Q90", "Paris"),
    fact("Q10", "Ten", "Q1490", "Tokyo"),
    fact("Q2", "Two", "Q90", "Paris"),  # duplicate
    fact("Q10", "Ten", "Q64", "Berlin"),
]


def test_facts_frame_strips_ids_sorts_and_dedupes():
    frame = facts_frame(ROWS)
    assert list(frame.columns) == ["subject_id", "subject_label", "object_id", "object_label"]
    assert frame.values.tolist() == [
        ["Q2", "Two", "Q90", "Paris"],
        ["Q10", "Ten", "Q60", "New York City"],
        ["Q10", "Ten", "Q64", "Berlin"],
        ["Q10", "Ten", "Q1490", "Tokyo"],
    ]


def test_facts_frame_of_no_rows_is_empty_with_columns():
    assert list(facts_frame([]).columns) == ["subject_id", "subject_label", "object_id", "object_label"]


def test_facts_frame_rejects_non_item_uris():
    with pytest.raises(ValueError, match="Q<digits>"):
        facts_frame([fact("Q1", "One", "L123", "a lexeme")])


def test_valid_objects_per_subject_and_relation():
    frame = facts_frame(ROWS)
    assert valid_objects(frame, "P19") == {
        ("Q10", "P19"): ["Berlin", "New York City", "Tokyo"],
        ("Q2", "P19"): ["Paris"],
    }
    assert valid_objects(frame, "P19", field="object_id")[("Q10", "P19")] == ["Q1490", "Q60", "Q64"]


def test_valid_objects_reads_a_relation_column():
    frame = pd.concat(
        [facts_frame(ROWS[:2]).assign(relation="P19"), facts_frame(ROWS[1:2]).assign(relation="P20")]
    )
    assert valid_objects(frame) == {
        ("Q10", "P19"): ["New York City"],
        ("Q2", "P19"): ["Paris"],
        ("Q2", "P20"): ["Paris"],
    }
    with pytest.raises(ValueError, match="relation"):
        valid_objects(facts_frame(ROWS))


def test_the_user_agent_pause_and_cache_folder_are_how_to_ask_not_what_is_answered():
    from types import SimpleNamespace

    from lmprobes.suites.lama.wikidata import answer_settings
    from lmprobes.workflow import wikidata_settings

    configured = {"endpoint": "https://query.wikidata.org/sparql", "cache": "c", "user_agent": "me (a@b.org)",
                  "min_interval": 1.0, "max_per_relation": 10, "candidates_per_relation": 20}
    answers = answer_settings(configured)
    assert answers == {k: v for k, v in configured.items() if k not in ("user_agent", "min_interval", "cache")}
    job = SimpleNamespace(config={"suites": {"lama": {"generated": {"wikidata_fresh": configured}}}})
    assert wikidata_settings(job, answers) == configured
