"""A polite Wikidata SPARQL client with an on-disk response cache, and LAMA's query builders.

``SparqlClient.query`` sends one query at a time, at least ``min_interval`` seconds apart,
with a descriptive User-Agent that names a contact (the Wikidata Query Service and Wikimedia
User-Agent policies; not asked of a client that never reaches the network: a mirror, a service on
this machine), and retries transient failures with the back-off of ``lmprobes.sources.fetch``.
The query service's limits are kept stricter than a download's: a 429 is waited out for its
``Retry-After`` and never less than a minute without one; a ``Retry-After`` longer than
``MAX_RETRY_AFTER`` is not cut short (WDQS bans clients that come back early) but fails, naming
the wait; a query that ran past the service's 60 s deadline (a 500, or a 200 cut off by a Java
stack trace, naming ``TimeoutException``) fails at once, naming the query, since the same query
would time out again; a redirect is an error naming its Location (a POST redirected loses its
query), and the read timeout (90 s) outlasts the service's deadline, so its answer is heard.
Each answer is cached under ``cache_dir`` by the sha256 of the endpoint and the normalised
query, so a rerun of the workflow sends no request it has sent before. With ``mirror`` (the
workflow's offline mirror folder) the network is never used: an answer missing from the cache is
read from ``<mirror>/<endpoint host>/<endpoint path>/``, laid out as the cache is (so a cache folder
filled where the network is can be copied there as it is), and one the mirror lacks either fails
with a WikidataError that names the file it looked for. A query service on this machine
(``localhost``, a loopback address) is asked as usual, mirror or not, as ``file://`` sources are
read: it is the user's own stand-in for the network, not the network.

The query builders return SPARQL for the T-REx relations of LAMA (truthy ``wdt:P<id>``
statements between items with English labels: all of them, those of given subjects, or a bounded
random sample) and for English aliases of items;
``facts_frame`` and ``valid_objects`` turn the answers into tables.

An answer that is not SPARQL JSON results (no ``results.bindings`` list, a row that is not an
object, a cell without a string ``value``, a key given twice in one object) raises
WikidataResponseError, a ValueError, naming the query's cache key (the cache file's name) and the
result row; it is never cached. A cache file in that state (edited by hand, say) is treated like
an unreadable one: logged, and fetched again. A body that is not even complete JSON stays a
transfer problem: retried, then a WikidataError.
"""

from __future__ import annotations

import email.utils
import hashlib
import ipaddress
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Self
from urllib.parse import urljoin, urlsplit

import pandas as pd
import requests

from lmprobes import sources
from lmprobes.io import StrictJsonError, loads_strict, write_text
from lmprobes.sources import (
    MAX_RETRY_AFTER,
    Retryable,
    backoff_delay,
    content_length,
    http_timeouts,
    requested_retry_after,
)

logger = logging.getLogger("lmprobes.suites.lama.wikidata")

DEFAULT_ENDPOINT = "https://query.wikidata.org/sparql"
ENTITY_PREFIX = "http://www.wikidata.org/entity/"
SPARQL_JSON = "application/sparql-results+json"
ERROR_SNIPPET_CHARS = 300
QUERY_SUMMARY_CHARS = 200
# The workflow's settings of the client (LAMA's wikidata_fresh, oLMpics' encyclopedic composition and
# single-hop facts all read them), named in errors that a setting can cure.
SETTINGS_KEY = "suites.lama.generated.wikidata_fresh"
# WDQS stops a query after 60 s; the client waits longer, so that the service's timeout answer arrives.
QUERY_DEADLINE = 60
READ_TIMEOUT = 90.0
# How a Wikidata rule asks, not what it is answered: kept out of the rules' params and the files'
# metadata, so setting your contact (or moving the cache) reruns nothing and stays out of the datasets.
CLIENT_SETTINGS = ("user_agent", "min_interval", "cache")
# A 429 without Retry-After: WDQS allots processing time per minute, so the next try waits that long.
RATE_LIMIT_WAIT = 60.0
# What a query that ran past the deadline leaves in the answer (Blazegraph's Java stack trace).
TIMEOUT_MARKERS = ("java.util.concurrent.TimeoutException", "QueryTimeoutException")
EXAMPLE_USER_AGENT = "lmprobes/0.1 (https://example.org/you; you@example.org)"
# A contact in a User-Agent: an e-mail address, or an http(s) URL with a dotted host name.
CONTACT_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})")
CONTACT_URL = re.compile(r"https?://((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})(?![A-Za-z0-9-])", re.IGNORECASE)
# Domains reserved for documentation (RFC 2606): the example's contact, copied without editing.
PLACEHOLDER_DOMAINS = ("example.org", "example.com", "example.net")
RELATION_ID = re.compile(r"^P\d+$")
ENTITY_ID = re.compile(r"^Q\d+$")
# User-Agent prefixes that HTTP libraries send by default; the WDQS policy blocks them.
GENERIC_USER_AGENTS = (
    "python-requests",
    "python-urllib",
    "python-httpx",
    "aiohttp",
    "urllib3",
    "curl",
    "wget",
    "java",
    "go-http-client",
    "okhttp",
    "mozilla",
)
FACT_COLUMNS = ["subject_id", "subject_label", "object_id", "object_label"]
PREFIXES = (
    "PREFIX wd: <http://www.wikidata.org/entity/>\n"
    "PREFIX wdt: <http://www.wikidata.org/prop/direct/>\n"
    "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
    "PREFIX skos: <http://www.w3.org/2004/02/skos/core#>\n"
)
# For queries that read a statement (its rank, its value's precision) rather than the truthy ``wdt:``
# value: kept out of PREFIXES, whose text is in every LAMA query's cache key (and a mirror's file names).
STATEMENT_PREFIXES = (
    "PREFIX p: <http://www.wikidata.org/prop/>\n"
    "PREFIX psv: <http://www.wikidata.org/prop/statement/value/>\n"
    "PREFIX wikibase: <http://wikiba.se/ontology#>\n"
)

Log = Callable[[str], None]
Row = dict[str, str]


class WikidataError(RuntimeError):
    """A query failed for good; the message names its cache key and the HTTP status or problem."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"Wikidata query {key}: {problem}")
        self.key, self.problem = key, problem


class WikidataResponseError(WikidataError, ValueError):
    """An answer that is not SPARQL JSON results; the message names the cache key and the result row."""


class WikidataQueryTimeout(WikidataError):
    """The query service stopped the query at its 60 s deadline; the message names the query."""


# ---------------------------------------------------------------------------------------------
# The client


class SparqlClient:
    """Sends SPARQL queries to one endpoint, one at a time, and caches every answer on disk."""

    def __init__(
        self,
        endpoint: str = DEFAULT_ENDPOINT,
        *,
        cache_dir: Path,
        user_agent: str,
        timeout: float = READ_TIMEOUT,
        retries: int = 5,
        backoff: float = 2.0,
        min_interval: float = 1.0,
        log: Log | None = None,
        sleep: Callable[[float], None] | None = None,
        clock: Callable[[], float] | None = None,
        mirror: str | Path | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.cache_dir = Path(cache_dir)
        self.mirror_dir = None if mirror is None or is_loopback(endpoint) else sources.mirror_path(mirror, endpoint)
        # The contact is for the operators of the service asked: none is needed where nothing is sent
        # over the network (a mirror answers, or the service runs on this machine).
        check_user_agent(user_agent, require_contact=self.mirror_dir is None and not is_loopback(endpoint))
        self.user_agent = user_agent
        self.timeout, self.retries, self.backoff = timeout, retries, backoff
        self.min_interval = min_interval
        self._warn = log or logger.warning
        # By default sleep through the project's seam, so tests that patch sources._sleep cover this too.
        self._sleep = sleep or (lambda seconds: sources._sleep(seconds))
        self._clock = clock or time.monotonic
        self._lock = threading.Lock()
        self._last_request: float | None = None
        self._session = requests.Session()
        self._session.headers.update({"User-Agent": user_agent, "Accept": SPARQL_JSON})

    def close(self) -> None:
        self._session.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def query(self, sparql: str) -> list[Row]:
        """The result bindings of ``sparql`` as ``{variable: value}`` dicts, from the cache if there."""
        key = cache_key(self.endpoint, sparql)
        cached = self._read_cache(key)
        if cached is None:
            with self._lock:
                # Another thread may have answered the same query while this one waited.
                cached = self._read_cache(key)
                if cached is None and self.mirror_dir is not None:
                    return self._read_mirror(key, sparql)
                if cached is None:
                    cached = self._fetch_with_retries(key, sparql)
                    flatten_bindings(key, cached)  # a malformed answer raises before it is cached
                    self._write_cache(key, sparql, cached)
        return flatten_bindings(key, cached)

    def cache_path(self, sparql: str) -> Path:
        """Where the answer to ``sparql`` is (or would be) cached."""
        return self._path_of(cache_key(self.endpoint, sparql))

    # -- cache ---------------------------------------------------------------------------------

    def _path_of(self, key: str, folder: Path | None = None) -> Path:
        return (folder or self.cache_dir) / key[:2] / f"{key}.json"

    def _read_mirror(self, key: str, sparql: str) -> list[Row]:
        path = self._path_of(key, self.mirror_dir)
        if not path.is_file():
            raise WikidataError(key, f"offline (mirror set), and the mirror has no answer at {path}: run the "
                                     f"workflow where the network is and copy its {self.cache_dir} into "
                                     f"{self.mirror_dir}; the query was:\n{sparql}")
        try:
            return flatten_bindings(key, loads_strict(path.read_text(encoding="utf-8"))["response"])
        except (ValueError, KeyError, TypeError, RecursionError) as error:
            raise WikidataResponseError(key, f"mirror file {path} is not a cached answer: {error!r:.300}") from None

    def _read_cache(self, key: str) -> dict | None:
        path = self._path_of(key)
        if not path.is_file():
            return None
        try:
            response = loads_strict(path.read_text(encoding="utf-8"))["response"]
            flatten_bindings(key, response)
            return response
        except (ValueError, KeyError, TypeError, RecursionError) as error:
            self._warn(f"ignoring unreadable cache file {path}: {error!r:.300}")
            return None

    def _write_cache(self, key: str, sparql: str, response: dict) -> None:
        path = self._path_of(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {"endpoint": self.endpoint, "query": sparql, "response": response}
        write_text(json.dumps(record, ensure_ascii=False) + "\n", path)

    # -- requests ------------------------------------------------------------------------------

    def _fetch_with_retries(self, key: str, sparql: str) -> dict:
        last_error: Retryable | None = None
        for attempt in range(self.retries + 1):
            try:
                return self._fetch_once(key, sparql)
            except Retryable as error:
                last_error = error
            if attempt < self.retries:
                delay = last_error.delay if last_error.delay is not None else backoff_delay(self.backoff, attempt)
                self._warn(f"Wikidata query {key}: {last_error}; retry {attempt + 1} of {self.retries} in {delay:g} s")
                self._sleep(delay)
        raise WikidataError(key, f"failed after {self.retries + 1} attempts: {last_error}")

    def _fetch_once(self, key: str, sparql: str) -> dict:
        """One POST; returns the parsed JSON or raises Retryable / WikidataError."""
        self._wait_for_turn()
        try:
            # Not redirected: requests would resend a 301/302/303 as a GET without the query.
            response = self._session.post(self.endpoint, data={"query": sparql}, timeout=http_timeouts(self.timeout),
                                          allow_redirects=False)
            body = response.content
        except (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError) as error:
            raise Retryable(f"{type(error).__name__}: {error}") from error
        except requests.RequestException as error:
            raise WikidataError(key, f"request failed: {error}") from error
        finally:
            self._last_request = self._clock()
        _check_status(key, sparql, self.endpoint, response, body)
        return _parse_body(key, sparql, response, body)

    def _wait_for_turn(self) -> None:
        """Sleep until ``min_interval`` has passed since the previous request ended."""
        if self._last_request is None:
            return
        remaining = self.min_interval - (self._clock() - self._last_request)
        if remaining > 0:
            self._sleep(remaining)


def workflow_client(settings: dict, download: dict | None = None, *, mirror: str | Path | None = None) -> SparqlClient:
    """The client of the workflow's Wikidata rules (LAMA's wikidata_fresh, oLMpics' encyclopedic composition
    and single-hop facts): ``settings`` are ``suites.lama.generated.wikidata_fresh`` (endpoint, cache,
    user_agent, min_interval), ``download`` is the config's ``download`` (retries, backoff and timeout;
    the client defaults without it). The read timeout is ``download.timeout`` but never below
    ``READ_TIMEOUT``: a shorter one would give up on a query just before the service answers it."""
    download = download or {}
    retrying = {name: download[name] for name in ("retries", "backoff") if name in download}
    return SparqlClient(settings["endpoint"], cache_dir=Path(settings["cache"]), user_agent=settings["user_agent"],
                        timeout=max(download.get("timeout", READ_TIMEOUT), READ_TIMEOUT), **retrying,
                        min_interval=settings["min_interval"], mirror=mirror)


def _check_status(key: str, sparql: str, endpoint: str, response: requests.Response, body: bytes) -> None:
    status = response.status_code
    if status == 200:
        return
    if 300 <= status < 400:
        location = response.headers.get("Location")
        target = f"to {urljoin(endpoint, location)}" if location else "without a Location"
        raise WikidataError(key, f"HTTP {status} {response.reason} from {endpoint}, redirecting {target}: not "
                                 "followed, a redirected POST loses its query; set "
                                 f"{SETTINGS_KEY}.endpoint to the address that answers")
    if status >= 500 and _timed_out(body):
        raise _query_timeout(key, sparql, f"HTTP {status} {response.reason}")
    if status == 429 or status >= 500:
        delay = retry_after_seconds(response)
        problem = f"HTTP {status} {response.reason}: {_snippet(body, ERROR_SNIPPET_CHARS // 2)}"
        if delay is not None and delay > MAX_RETRY_AFTER:
            raise WikidataError(key, f"{problem}; the service asks to wait {delay:g} s (Retry-After: "
                                     f"{response.headers.get('Retry-After')}), more than the {MAX_RETRY_AFTER:g} s "
                                     "this client waits, and a client that comes back sooner may be banned: "
                                     f"not retried; run the job again once the {delay:g} s are over")
        if status == 429 and delay is None:
            delay = RATE_LIMIT_WAIT
        raise Retryable(problem, delay=delay)
    raise WikidataError(key, f"HTTP {status} {response.reason}: {_snippet(body)}")


def _timed_out(body: bytes) -> bool:
    text = body.decode("utf-8", errors="replace")
    return any(marker in text for marker in TIMEOUT_MARKERS)


def _query_timeout(key: str, sparql: str, answer: str) -> WikidataQueryTimeout:
    return WikidataQueryTimeout(
        key, f"{answer}: the query ran past the Wikidata Query Service's {QUERY_DEADLINE} s limit (its answer "
             f"names {' or '.join(TIMEOUT_MARKERS)}); not retried, the same query would time out again "
             f"(for wikidata_fresh, a smaller {SETTINGS_KEY}.candidates_per_relation asks less): "
             f"{describe_query(sparql)}")


def describe_query(sparql: str) -> str:
    """The query on one line without its PREFIX lines, cut to ``QUERY_SUMMARY_CHARS``: enough to tell
    which relation or labels it asked for (the cache key beside it names it exactly)."""
    lines = [line for line in normalize_query(sparql).splitlines() if not line.upper().startswith("PREFIX ")]
    text = " ".join(lines)
    return text[:QUERY_SUMMARY_CHARS] + ("…" if len(text) > QUERY_SUMMARY_CHARS else "")


def _parse_body(key: str, sparql: str, response: requests.Response, body: bytes) -> dict:
    expected = content_length(response)
    if expected is not None and len(body) != expected:
        raise Retryable(f"body cut short: {len(body)} of {expected} bytes")
    try:
        parsed = loads_strict(body.decode("utf-8"))
    except ValueError as error:
        # The service streams its answer: a query stopped at the deadline leaves JSON cut off by a stack trace.
        if _timed_out(body):
            raise _query_timeout(key, sparql, "HTTP 200 cut off by an error") from None
        if isinstance(error, StrictJsonError):  # complete, but a key given twice or NaN: asking again will not help
            raise WikidataResponseError(key, f"response is not strict JSON: {error}") from None
        raise Retryable(f"response is not complete JSON: {error}; it ends with: "
                        f"{_tail(body, ERROR_SNIPPET_CHARS // 2)}") from error
    results = parsed.get("results") if isinstance(parsed, dict) else None
    if not isinstance(results, dict) or not isinstance(results.get("bindings"), list):
        raise WikidataResponseError(key, f"response has no results.bindings: {_snippet(body)}")
    return parsed


def _snippet(body: bytes, chars: int = ERROR_SNIPPET_CHARS) -> str:
    text = " ".join(body.decode("utf-8", errors="replace").split())
    return text[:chars] + ("…" if len(text) > chars else "")


def _tail(body: bytes, chars: int) -> str:
    text = " ".join(body[-4 * chars:].decode("utf-8", errors="replace").split())
    return ("…" if len(text) > chars or len(body) > 4 * chars else "") + text[-chars:]


def retry_after_seconds(response: requests.Response, now: datetime | None = None) -> float | None:
    """How long a 429/503 asks us to wait (``Retry-After`` in seconds or as an HTTP-date), uncapped:
    the caller decides whether to wait that long."""
    seconds = requested_retry_after(response)
    if seconds is not None or response.status_code not in (429, 503):
        return seconds
    return _seconds_until_http_date(response.headers.get("Retry-After", ""), now)


def _seconds_until_http_date(value: str, now: datetime | None = None) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    delta = (when - (now or datetime.now(UTC))).total_seconds()
    return max(delta, 0.0)


def check_user_agent(user_agent: str, *, require_contact: bool = True) -> None:
    """Refuse an empty User-Agent, a library default, and (``require_contact``) one without a contact:
    an e-mail address or an http(s) URL, not at a documentation domain (example.org). The WDQS and
    Wikimedia User-Agent policies ask for the tool's name and a way to reach its operator."""
    agent = (user_agent or "").strip()
    how = (f"set {SETTINGS_KEY}.user_agent (read by lama_wikidata_fresh, olmpics_encyclopedic and "
           f"olmpics_single_hop) to your tool, its version and your contact, e.g. {EXAMPLE_USER_AGENT!r} with "
           "your own URL and e-mail address")
    if not agent:
        raise ValueError(f"user_agent is empty: {how}")
    if agent.lower().startswith(GENERIC_USER_AGENTS):
        raise ValueError(f"user_agent {user_agent!r} is a generic library User-Agent, which the Wikidata Query "
                         f"Service blocks: {how}")
    if not require_contact:
        return
    domains = [found.group(1).lower() for pattern in (CONTACT_EMAIL, CONTACT_URL) for found in pattern.finditer(agent)]
    if not domains:
        raise ValueError(f"user_agent {user_agent!r} names no contact (an e-mail address or an http(s) URL), which "
                         f"the Wikimedia User-Agent policy asks of every client of the Wikidata Query Service: {how}")
    if all(domain in PLACEHOLDER_DOMAINS or domain.endswith(tuple(f".{d}" for d in PLACEHOLDER_DOMAINS))
           for domain in domains):
        raise ValueError(f"user_agent {user_agent!r} gives only a placeholder contact at {', '.join(sorted(set(domains)))} "
                         f"(a domain reserved for examples): {how}")


def normalize_query(sparql: str) -> str:
    """The query with each line stripped and blank lines dropped (whitespace inside lines kept,
    so string literals are not changed)."""
    lines = (line.strip() for line in sparql.splitlines())
    return "\n".join(line for line in lines if line)


def is_loopback(url: str) -> bool:
    """Whether ``url`` names a service on this machine."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cache_key(endpoint: str, sparql: str) -> str:
    return hashlib.sha256(f"{endpoint}\n{normalize_query(sparql)}".encode()).hexdigest()


def flatten_bindings(key: str, response: dict) -> list[Row]:
    """``[{var: {"type": …, "value": v}}]`` -> ``[{var: v}]``; unbound variables are left out."""
    results = response.get("results") if isinstance(response, dict) else None
    bindings = results.get("bindings") if isinstance(results, dict) else None
    if not isinstance(bindings, list):
        raise WikidataResponseError(key, "malformed result bindings: no results.bindings list")
    return [_flat_row(key, number, row) for number, row in enumerate(bindings, start=1)]


def _flat_row(key: str, number: int, row: object) -> Row:
    if not isinstance(row, dict):
        raise WikidataResponseError(key, f"malformed result bindings: result row {number} is not an object")
    flat = {}
    for var, cell in row.items():
        value = cell.get("value") if isinstance(cell, dict) else None
        if not isinstance(value, str):
            raise WikidataResponseError(
                key, f"malformed result bindings: result row {number}, {var}: no string value in {cell!r:.80}"
            )
        flat[var] = value
    return flat


# ---------------------------------------------------------------------------------------------
# Query builders


def relation_facts_query(relation: str, *, limit: int | None = None, subjects: list[str] | None = None) -> str:
    """Subject, object and their English labels for every truthy ``wdt:<relation>`` statement
    between two items, ordered by subject then object. ``subjects`` restricts it to these items."""
    _check_relation(relation)
    values = f"  VALUES ?subject {{ {_entity_terms(subjects)} }}\n" if subjects is not None else ""
    return (
        PREFIXES
        + "SELECT ?subject ?subjectLabel ?object ?objectLabel WHERE {\n"
        + values
        + f"  ?subject wdt:{relation} ?object .\n"
        + _items_with_english_labels()
        + "}\n"
        + "ORDER BY ?subject ?object\n"
        + _limit_clause(limit)
    )


def sampled_relation_facts_query(relation: str, *, limit: int, sample_seed: int = 0) -> str:
    """The rows of ``relation_facts_query`` for a random sample of at most ``limit`` truthy
    ``wdt:<relation>`` statements, drawn by the Blazegraph sampling service (``bd:sample``).

    For relations with millions of statements (P31, P17) a full scan with ORDER BY runs past the
    query service's 60 s limit, and a LIMIT without ORDER BY returns index order (statements
    grouped by object: a handful of objects). The sample service picks random positions in the
    statement index, so the query stays bounded and its rows spread over the whole relation.
    The answer is unordered: sort it locally (``facts_frame``). Statements whose subject or
    object is not an item or has no English label are dropped after sampling, so fewer than
    ``limit`` rows may come back."""
    _check_relation(relation)
    _limit_clause(limit)
    if isinstance(sample_seed, bool) or not isinstance(sample_seed, int):
        raise TypeError(f"sample_seed must be an integer, got {sample_seed!r}")
    return (
        PREFIXES
        + "PREFIX bd: <http://www.bigdata.com/rdf#>\n"
        + "SELECT ?subject ?subjectLabel ?object ?objectLabel WHERE {\n"
        + "  SERVICE bd:sample {\n"
        + f"    ?subject wdt:{relation} ?object .\n"
        + f"    bd:serviceParam bd:sample.limit {limit} .\n"
        + f"    bd:serviceParam bd:sample.seed {sample_seed} .\n"
        + '    bd:serviceParam bd:sample.sampleType "RANDOM" .\n'
        + "  }\n"
        + _items_with_english_labels()
        + "}\n"
    )


def _items_with_english_labels() -> str:
    return (
        # Items only: some properties also link lexemes, properties or literals.
        f'  FILTER(STRSTARTS(STR(?subject), "{ENTITY_PREFIX}Q") && STRSTARTS(STR(?object), "{ENTITY_PREFIX}Q"))\n'
        + '  ?subject rdfs:label ?subjectLabel . FILTER(LANG(?subjectLabel) = "en")\n'
        + '  ?object rdfs:label ?objectLabel . FILTER(LANG(?objectLabel) = "en")\n'
    )


def aliases_query(entities: list[str]) -> str:
    """English aliases (``skos:altLabel``) of the given items, ordered by item then alias."""
    return (
        PREFIXES
        + "SELECT ?entity ?alias WHERE {\n"
        + f"  VALUES ?entity {{ {_entity_terms(entities)} }}\n"
        + "  ?entity skos:altLabel ?alias .\n"
        + '  FILTER(LANG(?alias) = "en")\n'
        + "}\n"
        + "ORDER BY ?entity ?alias\n"
    )


def _entity_terms(entities: Iterable[str]) -> str:
    """``wd:Q…`` terms, unique and in numeric order so the same set always gives the same query."""
    unique = set(entities) if not isinstance(entities, str) else {entities}
    for entity in unique:
        _check_entity(entity)
    if not unique:
        raise ValueError("no entity ids given")
    return " ".join(f"wd:{entity}" for entity in sorted(unique, key=_id_number))


def _limit_clause(limit: int | None) -> str:
    if limit is None:
        return ""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit!r}")
    return f"LIMIT {limit}\n"


def _check_relation(relation: str) -> None:
    if not isinstance(relation, str) or not RELATION_ID.match(relation):
        raise ValueError(f"not a Wikidata property id (P<digits>): {relation!r}")


def _check_entity(entity: str) -> None:
    if not isinstance(entity, str) or not ENTITY_ID.match(entity):
        raise ValueError(f"not a Wikidata item id (Q<digits>): {entity!r}")


def _id_number(entity: str) -> int:
    return int(entity[1:])


# ---------------------------------------------------------------------------------------------
# Tables


def facts_frame(rows: list[Row]) -> pd.DataFrame:
    """Rows of ``relation_facts_query`` as a sorted, deduplicated table of ids and labels."""
    records = [
        (
            entity_id(row["subject"]),
            row["subjectLabel"],
            entity_id(row["object"]),
            row["objectLabel"],
        )
        for row in rows
    ]
    frame = pd.DataFrame.from_records(records, columns=FACT_COLUMNS).drop_duplicates()
    return frame.sort_values(FACT_COLUMNS, key=_numeric_ids_key, kind="stable").reset_index(drop=True)


def entity_id(uri: str) -> str:
    """``http://www.wikidata.org/entity/Q42`` -> ``Q42`` (a bare ``Q42`` is accepted too)."""
    entity = uri.removeprefix(ENTITY_PREFIX)
    _check_entity(entity)
    return entity


def _numeric_ids_key(column: pd.Series) -> pd.Series:
    # Q2 before Q10, as Wikidata numbers them; labels sort as text.
    if column.name.endswith("_id") and len(column):
        return column.str[1:].astype("int64")
    return column


def valid_objects(
    frame: pd.DataFrame, relation: str | None = None, *, field: str = "object_label"
) -> dict[tuple[str, str], list[str]]:
    """All valid objects per ``(subject_id, relation)``, sorted and unique.

    The relation comes from a ``relation`` column when ``frame`` has one (facts of several
    relations), else from ``relation``. ``field`` picks what to list: ``object_label`` (what
    LAMA's filtered metric compares predictions with) or ``object_id``.
    """
    if field not in ("object_label", "object_id"):
        raise ValueError(f"field must be 'object_label' or 'object_id', got {field!r}")
    relations = _relation_column(frame, relation)
    grouped: dict[tuple[str, str], set[str]] = {}
    for subject, rel, value in zip(frame["subject_id"], relations, frame[field]):
        grouped.setdefault((subject, rel), set()).add(value)
    return {pair: sorted(values) for pair, values in sorted(grouped.items())}


def _relation_column(frame: pd.DataFrame, relation: str | None) -> list[str]:
    if "relation" in frame.columns:
        relations = list(frame["relation"])
    elif relation is not None:
        relations = [relation] * len(frame)
    else:
        raise ValueError("the frame has no 'relation' column: pass relation=")
    for value in set(relations):
        _check_relation(value)
    return relations


def answer_settings(settings: dict) -> dict:
    """``suites.lama.generated.wikidata_fresh`` without ``CLIENT_SETTINGS``: what decides the answers."""
    return {name: value for name, value in settings.items() if name not in CLIENT_SETTINGS}
