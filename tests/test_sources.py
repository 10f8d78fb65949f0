"""Tests of lmprobes.sources against a throw-away HTTP server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import io
import logging
import os
import re
import stat
import tarfile
import threading
import zipfile
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from lmprobes import sources
from lmprobes.sources import (
    ChecksumError,
    SourceChangedError,
    SourceError,
    UnsafeArchiveError,
    check_sources_unchanged,
    extract_verified,
    fetch,
    mirror_path,
    safe_extract,
    sha256_of,
)
from loopback import Responder, fake_server, send, serve, status

DATA = bytes(range(256)) * 400  # 100 KiB, more than one chunk
DATA_SHA = hashlib.sha256(DATA).hexdigest()
UNREACHABLE = "http://127.0.0.1:9"  # discard port: nothing listens there

OTHER = bytes(reversed(DATA))  # another version of the file, as long
OTHER_SHA = hashlib.sha256(OTHER).hexdigest()

def cut_short(data: bytes, keep: int, headers: dict[str, str] | None = None) -> Responder:
    """Announce the whole body but send only ``keep`` bytes, then close the connection."""

    def responder(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data[:keep])
        handler.wfile.flush()
        handler.close_connection = True

    return responder


@pytest.fixture
def server():
    with fake_server() as fake:
        yield fake


@pytest.fixture(autouse=True)
def sleeps(monkeypatch) -> list[float]:
    """Record back-off sleeps instead of waiting."""
    recorded: list[float] = []
    monkeypatch.setattr(sources, "_sleep", recorded.append)
    return recorded


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


# ---------------------------------------------------------------------------------------------
# Hashes and mirror paths


def test_sha256_of(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(DATA)
    assert sha256_of(path) == DATA_SHA


def test_mirror_path_is_host_then_url_path(tmp_path):
    url = "https://raw.githubusercontent.com/a/b/c.tsv"
    assert mirror_path(tmp_path, url) == tmp_path / "raw.githubusercontent.com/a/b/c.tsv"


def test_mirror_path_ignores_port_query_and_fragment(tmp_path):
    assert mirror_path(tmp_path, "http://Host:8000/a/b%20c.tsv?x=1#y") == tmp_path / "host/a/b c.tsv"


@pytest.mark.parametrize("url", ["http://h/a/../../etc/passwd", "http://h/", "file:///x", "http://h/a/%2e%2e/b"])
def test_mirror_path_refuses_urls_that_leave_the_mirror_or_name_no_file(tmp_path, url):
    with pytest.raises(SourceError, match=re.escape(url)):
        mirror_path(tmp_path, url)


# ---------------------------------------------------------------------------------------------
# fetch over HTTP


def test_download_with_correct_sha256(server, tmp_path):
    url = server.route("/data.bin", serve(DATA))
    dest = tmp_path / "sub" / "data.bin"
    assert fetch(url, dest, DATA_SHA) == DATA_SHA
    assert dest.read_bytes() == DATA
    assert leftovers(dest.parent) == []


def test_download_sends_user_agent_and_asks_for_identity_encoding(server, tmp_path):
    url = server.route("/data.bin", serve(DATA))
    fetch(url, tmp_path / "data.bin", DATA_SHA, user_agent="probe-test/1")
    (headers,) = server.hits("/data.bin")
    assert headers["User-Agent"] == "probe-test/1"
    assert headers["Accept-Encoding"] == "identity"


def test_pinned_sha256_is_case_insensitive(server, tmp_path):
    url = server.route("/data.bin", serve(DATA))
    assert fetch(url, tmp_path / "data.bin", DATA_SHA.upper()) == DATA_SHA


def test_wrong_sha256_raises_and_leaves_nothing(server, tmp_path):
    url = server.route("/data.bin", serve(DATA))
    dest = tmp_path / "data.bin"
    wrong = "0" * 64
    with pytest.raises(ChecksumError) as caught:
        fetch(url, dest, wrong)
    message = str(caught.value)
    assert url in message and str(dest) in message and wrong in message and DATA_SHA in message
    assert (caught.value.expected, caught.value.seen) == (wrong, DATA_SHA)
    assert not dest.exists()
    assert leftovers(tmp_path) == []


def test_existing_dest_with_pinned_hash_makes_no_request(server, tmp_path):
    url = server.route("/data.bin", serve(DATA))
    dest = tmp_path / "data.bin"
    dest.write_bytes(DATA)
    assert fetch(url, dest, DATA_SHA) == DATA_SHA
    assert server.requests == []


def test_existing_dest_with_wrong_content_is_downloaded_again(server, tmp_path):
    url = server.route("/data.bin", serve(DATA))
    dest = tmp_path / "data.bin"
    dest.write_bytes(b"stale")
    assert fetch(url, dest, DATA_SHA) == DATA_SHA
    assert dest.read_bytes() == DATA
    assert len(server.hits("/data.bin")) == 1


def test_failed_download_keeps_existing_dest(server, tmp_path):
    url = server.route("/data.bin", serve(b"something else"))
    dest = tmp_path / "data.bin"
    dest.write_bytes(b"old")
    with pytest.raises(ChecksumError):
        fetch(url, dest, DATA_SHA)
    assert dest.read_bytes() == b"old"


# ---------------------------------------------------------------------------------------------
# Resume


def test_resume_appends_the_206_remainder_to_the_part_file(server, tmp_path):
    url = server.route("/data.bin", serve(DATA))
    dest = tmp_path / "data.bin"
    half = len(DATA) // 2
    (tmp_path / "data.bin.part").write_bytes(DATA[:half])
    assert fetch(url, dest, DATA_SHA) == DATA_SHA
    (headers,) = server.hits("/data.bin")
    assert headers["Range"] == f"bytes={half}-"
    assert dest.read_bytes() == DATA
    assert leftovers(tmp_path) == []


def test_resume_against_a_server_ignoring_range_starts_over(server, tmp_path):
    url = server.route("/data.bin", serve(DATA, honour_range=False))
    dest = tmp_path / "data.bin"
    (tmp_path / "data.bin.part").write_bytes(DATA[:1000])
    assert fetch(url, dest, DATA_SHA) == DATA_SHA
    (headers,) = server.hits("/data.bin")
    assert headers["Range"] == "bytes=1000-"
    assert dest.read_bytes() == DATA


def test_resume_past_the_end_416_starts_over(server, tmp_path):
    url = server.route("/data.bin", serve(DATA))
    dest = tmp_path / "data.bin"
    (tmp_path / "data.bin.part").write_bytes(DATA + b"garbage")
    assert fetch(url, dest, DATA_SHA) == DATA_SHA
    first, second = server.hits("/data.bin")
    assert first["Range"] == f"bytes={len(DATA) + 7}-"
    assert "Range" not in second
    assert dest.read_bytes() == DATA


def test_resume_with_a_206_from_the_wrong_offset_starts_over(server, tmp_path):
    def wrong_range(handler: BaseHTTPRequestHandler) -> None:
        send(handler, 206, DATA[10:], {"Content-Range": f"bytes 10-{len(DATA) - 1}/{len(DATA)}"})

    url = server.route("/data.bin", wrong_range, serve(DATA))
    dest = tmp_path / "data.bin"
    (tmp_path / "data.bin.part").write_bytes(DATA[:500])
    assert fetch(url, dest, DATA_SHA) == DATA_SHA
    first, second = server.hits("/data.bin")
    assert first["Range"] == "bytes=500-" and "Range" not in second
    assert dest.read_bytes() == DATA


def test_a_206_from_the_wrong_offset_is_never_spliced_into_an_unpinned_download(server, tmp_path):
    """No pin would catch the splice here: a cut body resumed with bytes from elsewhere must start over."""
    def wrong_range(handler: BaseHTTPRequestHandler) -> None:
        send(handler, 206, DATA[10:], {"Content-Range": f"bytes 10-{len(DATA) - 1}/{len(DATA)}"})

    url = server.route("/data.bin", cut_short(DATA, 500), wrong_range, serve(DATA))
    dest = tmp_path / "data.bin"
    assert fetch(url, dest, lockfile=tmp_path / "sources.lock.tsv", log=lambda message: None) == DATA_SHA
    assert [headers.get("Range") for headers in server.hits("/data.bin")] == [None, "bytes=500-", None]
    assert dest.read_bytes() == DATA


def versioned(data: bytes, headers: dict[str, str], *, honour_if_range: bool = True) -> Responder:
    """``data`` with ``headers`` (ETag, Last-Modified); a Range request gets the 206 remainder unless
    its If-Range names another version (then the whole file with 200), as RFC 9110 asks."""

    def responder(handler: BaseHTTPRequestHandler) -> None:
        match = re.fullmatch(r"bytes=(\d+)-", handler.headers.get("Range", ""))
        if_range = handler.headers.get("If-Range")
        same = if_range is None or not honour_if_range or if_range in headers.values()
        if match and same:
            start = int(match.group(1))
            send(handler, 206, data[start:], {**headers, "Content-Range": f"bytes {start}-{len(data) - 1}/{len(data)}"})
        else:
            send(handler, 200, data, headers)

    return responder


def test_leftover_part_of_an_unpinned_source_is_deleted_not_resumed(server, tmp_path):
    # The leftover holds the start of an older version: resumed, it would be spliced onto the new one,
    # and with no pin nothing would notice.
    url = server.route("/data.bin", serve(DATA))
    dest = tmp_path / "data.bin"
    (tmp_path / "data.bin.part").write_bytes(OTHER[: len(OTHER) // 2])
    assert fetch(url, dest, log=lambda message: None) == DATA_SHA
    (headers,) = server.hits("/data.bin")
    assert "Range" not in headers
    assert dest.read_bytes() == DATA
    assert leftovers(tmp_path) == []


def test_stale_leftover_part_of_a_pinned_source_is_downloaded_again_from_zero(server, tmp_path):
    # The pin was updated to the new version; the leftover is from the old one.
    url = server.route("/data.bin", serve(DATA))
    dest = tmp_path / "data.bin"
    (tmp_path / "data.bin.part").write_bytes(OTHER[:sources.CHUNK_SIZE])
    messages: list[str] = []
    assert fetch(url, dest, DATA_SHA, log=messages.append) == DATA_SHA
    resumed, fresh = server.hits("/data.bin")
    assert resumed["Range"] == f"bytes={sources.CHUNK_SIZE}-" and "Range" not in fresh
    assert dest.read_bytes() == DATA
    assert leftovers(tmp_path) == []
    (message,) = messages
    assert url in message and "left by an earlier run" in message and "again from zero" in message


def test_stale_leftover_and_wrong_bytes_fail_the_pin_after_one_fresh_download(server, tmp_path):
    url = server.route("/data.bin", serve(DATA))
    dest = tmp_path / "data.bin"
    (tmp_path / "data.bin.part").write_bytes(OTHER[:1000])
    with pytest.raises(ChecksumError) as caught:
        fetch(url, dest, OTHER_SHA, log=lambda message: None)
    assert (caught.value.expected, caught.value.seen) == (OTHER_SHA, DATA_SHA)
    assert len(server.hits("/data.bin")) == 2
    assert not dest.exists() and leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "old,new,if_range",
    [
        ({"ETag": '"v1"'}, {"ETag": '"v2"'}, '"v1"'),
        # A weak ETag may not be used in If-Range: Last-Modified is.
        ({"ETag": 'W/"v1"', "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"},
         {"ETag": 'W/"v2"', "Last-Modified": "Tue, 02 Jan 2024 00:00:00 GMT"}, "Mon, 01 Jan 2024 00:00:00 GMT"),
    ],
)
def test_resume_asks_if_range_and_a_file_changed_meanwhile_is_fetched_whole(server, tmp_path, old, new, if_range):
    # The file changes upstream between the cut and the resumed request of the same fetch.
    keep = len(DATA) // 3
    url = server.route("/data.bin", cut_short(DATA, keep, old), versioned(OTHER, new))
    dest = tmp_path / "data.bin"
    assert fetch(url, dest, log=lambda message: None) == OTHER_SHA
    first, second = server.hits("/data.bin")
    assert "If-Range" not in first
    assert re.fullmatch(r"bytes=\d+-", second["Range"]) and second["If-Range"] == if_range
    assert dest.read_bytes() == OTHER
    assert leftovers(tmp_path) == []


def test_resume_keeps_appending_while_the_validator_is_unchanged(server, tmp_path):
    keep = len(DATA) // 3
    url = server.route("/data.bin", cut_short(DATA, keep, {"ETag": '"v1"'}), versioned(DATA, {"ETag": '"v1"'}))
    dest = tmp_path / "data.bin"
    assert fetch(url, dest, DATA_SHA) == DATA_SHA
    _, second = server.hits("/data.bin")
    assert second["If-Range"] == '"v1"' and 0 < int(second["Range"][6:-1]) <= keep
    assert dest.read_bytes() == DATA


def test_resume_206_of_another_version_from_a_server_ignoring_if_range_starts_over(server, tmp_path):
    keep = len(DATA) // 3
    url = server.route("/data.bin", cut_short(DATA, keep, {"ETag": '"v1"'}),
                       versioned(OTHER, {"ETag": '"v2"'}, honour_if_range=False))
    dest = tmp_path / "data.bin"
    assert fetch(url, dest, log=lambda message: None) == OTHER_SHA
    _, resumed, fresh = server.hits("/data.bin")
    assert resumed["If-Range"] == '"v1"' and "Range" not in fresh
    assert dest.read_bytes() == OTHER


def test_body_cut_short_is_retried_and_resumed(server, tmp_path, sleeps):
    keep = len(DATA) // 3
    url = server.route("/data.bin", cut_short(DATA, keep), serve(DATA))
    dest = tmp_path / "data.bin"
    assert fetch(url, dest, DATA_SHA) == DATA_SHA
    first, second = server.hits("/data.bin")
    assert "Range" not in first
    assert re.fullmatch(r"bytes=\d+-", second["Range"])
    assert 0 < int(second["Range"][6:-1]) <= keep  # the bytes that did arrive were kept
    assert dest.read_bytes() == DATA
    assert len(sleeps) == 1


# ---------------------------------------------------------------------------------------------
# Retries


def test_two_server_errors_then_success(server, tmp_path, sleeps):
    url = server.route("/data.bin", status(500), status(502), serve(DATA))
    assert fetch(url, tmp_path / "data.bin", DATA_SHA, backoff=0.5) == DATA_SHA
    assert len(server.hits("/data.bin")) == 3
    assert sleeps == [0.5, 1.0]


def test_backoff_is_capped(server, tmp_path, sleeps):
    url = server.route("/data.bin", status(503))
    with pytest.raises(SourceError):
        fetch(url, tmp_path / "data.bin", retries=8, backoff=2.0)
    assert sleeps == [2, 4, 8, 16, 32, 60, 60, 60]


def test_429_honours_retry_after(server, tmp_path, sleeps):
    url = server.route("/data.bin", status(429, {"Retry-After": "1"}), serve(DATA))
    assert fetch(url, tmp_path / "data.bin", DATA_SHA, backoff=5.0) == DATA_SHA
    assert sleeps == [1.0]


def test_retry_after_as_http_date_falls_back_to_backoff(server, tmp_path, sleeps):
    url = server.route("/data.bin", status(503, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}), serve(DATA))
    fetch(url, tmp_path / "data.bin", DATA_SHA, backoff=3.0)
    assert sleeps == [3.0]


def test_404_fails_at_once(server, tmp_path, sleeps):
    url = server.url("/missing.bin")
    with pytest.raises(SourceError) as caught:
        fetch(url, tmp_path / "missing.bin", DATA_SHA)
    assert url in str(caught.value) and "404" in str(caught.value)
    assert len(server.hits("/missing.bin")) == 1
    assert sleeps == []
    assert not (tmp_path / "missing.bin").exists()


def test_exhausted_retries_name_url_and_last_error(server, tmp_path, sleeps):
    url = server.route("/data.bin", status(500), status(500), status(503))
    with pytest.raises(SourceError) as caught:
        fetch(url, tmp_path / "data.bin", DATA_SHA, retries=2)
    assert url in str(caught.value) and "503" in str(caught.value)
    assert len(server.hits("/data.bin")) == 3
    assert len(sleeps) == 2
    assert not (tmp_path / "data.bin").exists()


def test_connection_refused_is_retried_then_fails(tmp_path, sleeps):
    url = UNREACHABLE + "/data.bin"
    with pytest.raises(SourceError, match=re.escape(url)):
        fetch(url, tmp_path / "data.bin", retries=2, timeout=2)
    assert len(sleeps) == 2


def test_read_timeout_is_retried(server, tmp_path):
    stalled = threading.Event()

    def stall(handler: BaseHTTPRequestHandler) -> None:
        stalled.wait(2)  # longer than the client's read timeout

    url = server.route("/data.bin", stall, serve(DATA))
    try:
        assert fetch(url, tmp_path / "data.bin", DATA_SHA, timeout=0.3) == DATA_SHA
    finally:
        stalled.set()
    assert len(server.hits("/data.bin")) == 2


# ---------------------------------------------------------------------------------------------
# Unpinned sources


def read_lockfile(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines()]


def test_unpinned_download_is_recorded_and_logged(server, tmp_path, caplog):
    url = server.route("/data.bin", serve(DATA))
    lockfile = tmp_path / "locks" / "sources.lock.tsv"
    with caplog.at_level(logging.WARNING, logger="lmprobes.sources"):
        assert fetch(url, tmp_path / "data.bin", lockfile=lockfile) == DATA_SHA
    assert read_lockfile(lockfile) == [["url", "sha256", "bytes"], [url, DATA_SHA, str(len(DATA))]]
    (record,) = [r for r in caplog.records if "unpinned" in r.getMessage()]
    assert url in record.getMessage() and DATA_SHA in record.getMessage() and str(lockfile) in record.getMessage()


def test_lockfile_rows_are_sorted_and_replaced(server, tmp_path):
    other = b"other contents\n"
    url_b = server.route("/b.txt", serve(DATA), serve(other))
    url_a = server.route("/a.txt", serve(other))
    lockfile = tmp_path / "sources.lock.tsv"
    fetch(url_b, tmp_path / "b.txt", lockfile=lockfile, log=lambda message: None)
    fetch(url_a, tmp_path / "a.txt", lockfile=lockfile, log=lambda message: None)
    other_sha = hashlib.sha256(other).hexdigest()
    assert read_lockfile(lockfile)[1:] == [[url_a, other_sha, str(len(other))], [url_b, DATA_SHA, str(len(DATA))]]
    fetch(url_b, tmp_path / "b.txt", lockfile=lockfile, log=lambda message: None)
    assert read_lockfile(lockfile)[1:] == [[url_a, other_sha, str(len(other))], [url_b, other_sha, str(len(other))]]
    assert sorted(p.name for p in tmp_path.iterdir() if "lock" in p.name) == [
        "sources.lock.tsv",
        "sources.lock.tsv.lck",
    ]


def test_parallel_lockfile_updates_keep_every_row(tmp_path):
    lockfile = tmp_path / "sources.lock.tsv"
    urls = [f"https://example.org/{i:02d}.tsv" for i in range(16)]
    threads = [threading.Thread(target=sources._record_in_lockfile, args=(lockfile, url, "ab" * 32, 1)) for url in urls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [row[0] for row in read_lockfile(lockfile)[1:]] == urls


def test_unpinned_warning_goes_to_the_given_log(server, tmp_path):
    url = server.route("/data.bin", serve(DATA))
    messages: list[str] = []
    fetch(url, tmp_path / "data.bin", log=messages.append)
    (message,) = messages
    assert "unpinned" in message and DATA_SHA in message and "no lockfile" in message


def test_unpinned_source_changed_since_the_lockfile_recorded_it_warns_naming_both_versions(server, tmp_path):
    url = server.route("/data.bin", serve(DATA), serve(DATA), serve(OTHER[:1000]))
    lockfile = tmp_path / "sources.lock.tsv"
    dest = tmp_path / "data.bin"
    messages: list[str] = []
    fetch(url, dest, lockfile=lockfile, log=messages.append)
    fetch(url, dest, lockfile=lockfile, log=messages.append)  # the same bytes again: nothing changed
    assert not any(message.startswith("unpinned source") for message in messages)
    other_sha = hashlib.sha256(OTHER[:1000]).hexdigest()
    assert fetch(url, dest, lockfile=lockfile, log=messages.append) == other_sha
    (changed,) = [message for message in messages if message.startswith("unpinned source")]
    assert changed.startswith(f"unpinned source {url} changed since {lockfile} recorded it: ")
    assert f"sha256 {DATA_SHA} ({len(DATA)} bytes) then, sha256 {other_sha} (1000 bytes) now" in changed
    assert read_lockfile(lockfile)[1:] == [[url, other_sha, "1000"]]  # replaced all the same


BAD_LOCK_ROW = "https://example.org/b.zip\tnot-a-hash\t10\n"


def test_malformed_lockfile_fails_an_unpinned_fetch_before_any_download(server, tmp_path):
    url = server.route("/data.bin", serve(DATA))
    lockfile = tmp_path / "sources.lock.tsv"
    lockfile.write_text("url\tsha256\tbytes\n" + BAD_LOCK_ROW)
    with pytest.raises(sources.LockfileError, match=r"sources\.lock\.tsv:2: "):
        fetch(url, tmp_path / "data.bin", lockfile=lockfile, log=lambda message: None)
    assert server.requests == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sources.lock.tsv"]


def test_lockfile_broken_during_the_download_leaves_dest_as_it_was(server, tmp_path):
    lockfile = tmp_path / "sources.lock.tsv"
    dest = tmp_path / "data.bin"
    dest.write_bytes(b"old")

    def edit_then_serve(handler: BaseHTTPRequestHandler) -> None:
        lockfile.write_text("url\tsha256\tbytes\n" + BAD_LOCK_ROW)  # hand-edited meanwhile
        serve(DATA)(handler)

    url = server.route("/data.bin", edit_then_serve)
    with pytest.raises(sources.LockfileError):
        fetch(url, dest, lockfile=lockfile, log=lambda message: None)
    assert dest.read_bytes() == b"old"
    assert leftovers(tmp_path) == []
    assert lockfile.read_text().endswith(BAD_LOCK_ROW)


def test_pinned_download_writes_no_lockfile(server, tmp_path):
    url = server.route("/data.bin", serve(DATA))
    lockfile = tmp_path / "sources.lock.tsv"
    fetch(url, tmp_path / "data.bin", DATA_SHA, lockfile=lockfile)
    assert not lockfile.exists()


# ---------------------------------------------------------------------------------------------
# Mirror and file:// URLs


def make_mirror(root: Path, url: str, data: bytes) -> Path:
    path = mirror_path(root, url)
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    return root


def test_mirror_serves_the_file_without_network(tmp_path):
    url = UNREACHABLE + "/x/data.bin"
    mirror = make_mirror(tmp_path / "mirror", url, DATA)
    assert (mirror / "127.0.0.1" / "x" / "data.bin").is_file()
    dest = tmp_path / "out" / "data.bin"
    assert fetch(url, dest, DATA_SHA, mirror=mirror) == DATA_SHA
    assert dest.read_bytes() == DATA
    assert leftovers(dest.parent) == []


def test_mirror_is_used_even_when_the_server_is_up(server, tmp_path):
    url = server.route("/data.bin", serve(DATA))
    mirror = make_mirror(tmp_path / "mirror", url, DATA)
    fetch(url, tmp_path / "data.bin", DATA_SHA, mirror=mirror)
    assert server.requests == []


def test_missing_mirror_file_names_url_and_mirror_path(tmp_path, sleeps):
    url = UNREACHABLE + "/x/data.bin"
    mirror = tmp_path / "mirror"
    with pytest.raises(SourceError) as caught:
        fetch(url, tmp_path / "data.bin", DATA_SHA, mirror=mirror)
    assert url in str(caught.value)
    assert str(mirror_path(mirror, url)) in str(caught.value)
    assert sleeps == []


def test_wrong_sha256_in_mirror_names_the_mirror_file_and_the_pin(tmp_path):
    url = UNREACHABLE + "/x/data.bin"
    mirror = make_mirror(tmp_path / "mirror", url, b"tampered")
    dest = tmp_path / "data.bin"
    with pytest.raises(ChecksumError, match=re.escape(url)) as caught:
        fetch(url, dest, DATA_SHA, mirror=mirror, pinned_by="sources.mine")
    message = str(caught.value)
    assert f"(read from {mirror_path(mirror, url)})" in message
    assert f"expected {DATA_SHA} as pinned by sources.mine" in message
    assert not dest.exists()
    assert leftovers(tmp_path) == []


def test_unpinned_mirror_copy_is_recorded(tmp_path):
    url = UNREACHABLE + "/x/data.bin"
    mirror = make_mirror(tmp_path / "mirror", url, DATA)
    lockfile = tmp_path / "sources.lock.tsv"
    fetch(url, tmp_path / "data.bin", mirror=mirror, lockfile=lockfile, log=lambda message: None)
    assert read_lockfile(lockfile)[1] == [url, DATA_SHA, str(len(DATA))]


def test_file_url_is_read_locally(tmp_path):
    source = tmp_path / "source dir" / "data.bin"
    source.parent.mkdir()
    source.write_bytes(DATA)
    dest = tmp_path / "data.bin"
    assert fetch(source.as_uri(), dest, DATA_SHA) == DATA_SHA
    assert dest.read_bytes() == DATA


def test_file_url_on_another_host_is_refused_not_read_locally(tmp_path, sleeps):
    url = "file://fileserver" + str(tmp_path / "data.bin")
    (tmp_path / "data.bin").write_bytes(DATA)  # the same path here is not what the URL names
    with pytest.raises(SourceError, match=re.escape(f"cannot read {url}: file URLs on host 'fileserver' are not "
                                                    "supported")):
        fetch(url, tmp_path / "out.bin", DATA_SHA)
    assert sleeps == [] and not (tmp_path / "out.bin").exists()


def test_missing_file_url_names_the_path(tmp_path):
    source = tmp_path / "absent.bin"
    with pytest.raises(SourceError, match=re.escape(str(source))):
        fetch(source.as_uri(), tmp_path / "data.bin")


# ---------------------------------------------------------------------------------------------
# safe_extract: archive builders


def make_zip(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as bundle:
        for name, data in entries.items():
            bundle.writestr(zipfile.ZipInfo(name), data)
    return path


def make_tar(path: Path, members: list[tarfile.TarInfo | tuple[str, bytes]], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as bundle:
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                bundle.addfile(member)
            else:
                name, data = member
                info = tarfile.TarInfo(name)
                info.size = len(data)
                bundle.addfile(info, io.BytesIO(data))
    return path


def link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info


def folder(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.mode = tarfile.DIRTYPE, 0o755
    return info


def everything_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture
def place(tmp_path) -> Path:
    """A folder that holds the archive and the target; nothing else may appear in it."""
    folder = tmp_path / "place"
    folder.mkdir()
    return folder


def assert_refused(archive: Path, target: Path, member: str, reason: str | None = None) -> None:
    before = everything_under(target.parent.parent)
    with pytest.raises(UnsafeArchiveError) as caught:
        safe_extract(archive, target)
    assert member in str(caught.value) and str(archive) in str(caught.value)
    assert caught.value.member == member
    assert reason is None or caught.value.reason == reason, caught.value.reason
    assert not target.exists()
    assert everything_under(target.parent.parent) == before


# ---------------------------------------------------------------------------------------------
# safe_extract: archives that are fine


def test_extract_zip(place):
    archive = make_zip(place / "a.zip", {"top/a.txt": b"a", "top/sub/b.txt": b"b", "top/empty/": b""})
    target = place / "out"
    extracted = safe_extract(archive, target)
    assert extracted == [target / "top/a.txt", target / "top/sub/b.txt"]
    assert (target / "top/sub/b.txt").read_bytes() == b"b"
    assert (target / "top/empty").is_dir()
    assert sorted(p.name for p in place.iterdir()) == ["a.zip", "out"]


@pytest.mark.parametrize(
    "mode,suffix", [("w:gz", ".tar.gz"), ("w:gz", ".tgz"), ("w", ".tar"), ("w:bz2", ".tar.bz2"), ("w:xz", ".tar.xz")]
)
def test_extract_tar_flavours(place, mode, suffix):
    archive = make_tar(place / f"a{suffix}", [("d/a.txt", b"a"), ("d/b.txt", b"bb")], mode)
    target = place / "out"
    assert safe_extract(archive, target) == [target / "d/a.txt", target / "d/b.txt"]
    assert (target / "d/b.txt").read_bytes() == b"bb"


def test_format_is_detected_by_content_not_name(place):
    archive = make_zip(place / "misnamed.tar.gz", {"a.txt": b"a"})
    assert safe_extract(archive, place / "out") == [place / "out/a.txt"]


def test_extract_tar_with_inner_symlink(place):
    archive = make_tar(place / "a.tar.gz", [("d/real.txt", b"r"), link("d/alias.txt", "real.txt"), link("top", "d")])
    target = place / "out"
    extracted = safe_extract(archive, target)
    assert extracted == [target / "d/alias.txt", target / "d/real.txt", target / "top"]
    assert (target / "d/alias.txt").read_bytes() == b"r"


def test_extract_replaces_an_existing_target(place):
    target = place / "out"
    (target / "stale").mkdir(parents=True)
    (target / "stale/old.txt").write_text("old")
    archive = make_zip(place / "a.zip", {"new.txt": b"new"})
    assert safe_extract(archive, target) == [target / "new.txt"]
    assert everything_under(target) == ["new.txt"]
    assert sorted(p.name for p in place.iterdir()) == ["a.zip", "out"]


def test_extract_selected_members(place):
    archive = make_zip(place / "a.zip", {"keep/a.txt": b"a", "keep/b.txt": b"b", "c.txt": b"c", "d.txt": b"d"})
    target = place / "out"
    assert safe_extract(archive, target, members=["keep", "c.txt"]) == [
        target / "c.txt",
        target / "keep/a.txt",
        target / "keep/b.txt",
    ]


def test_extract_unknown_member_fails_naming_it(place):
    archive = make_zip(place / "a.zip", {"a.txt": b"a"})
    with pytest.raises(SourceError, match="nope.txt"):
        safe_extract(archive, place / "out", members=["a.txt", "nope.txt"])
    assert sorted(p.name for p in place.iterdir()) == ["a.zip"]


def test_not_an_archive(place):
    archive = place / "plain.txt"
    archive.write_text("hello")
    with pytest.raises(SourceError, match=re.escape(str(archive))):
        safe_extract(archive, place / "out")


# ---------------------------------------------------------------------------------------------
# safe_extract: archives that are refused


def test_zip_with_parent_component_is_refused(place):
    archive = make_zip(place / "a.zip", {"ok.txt": b"ok", "../evil.txt": b"evil"})
    assert_refused(archive, place / "out", "../evil.txt", "path with '..' component")


def test_zip_with_absolute_path_is_refused(place):
    archive = make_zip(place / "a.zip", {"ok.txt": b"ok", "/tmp/evil": b"evil"})
    assert_refused(archive, place / "out", "/tmp/evil", "absolute path")


def test_zip_with_windows_parent_component_is_refused(place):
    archive = make_zip(place / "a.zip", {"ok.txt": b"ok", "a\\..\\..\\evil.txt": b"evil"})
    assert_refused(archive, place / "out", "a\\..\\..\\evil.txt", "path with '..' component")


def zip_symlink(name: str) -> zipfile.ZipInfo:
    """A zip entry marked as a symlink (its data is the link target)."""
    info = zipfile.ZipInfo(name)
    info.external_attr = 0o120777 << 16
    return info


def test_zip_with_escaping_symlink_is_refused(place):
    info = zip_symlink("link")
    archive = place / "a.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("ok.txt", b"ok")
        bundle.writestr(info, b"../../outside")
    assert_refused(archive, place / "out", "link")


def test_tar_with_parent_component_is_refused(place):
    archive = make_tar(place / "a.tar.gz", [("ok.txt", b"ok"), ("d/../../evil.txt", b"evil")])
    assert_refused(archive, place / "out", "d/../../evil.txt", "path with '..' component")


def test_tar_with_absolute_path_is_refused(place):
    archive = make_tar(place / "a.tar", [("ok.txt", b"ok"), ("/tmp/evil", b"evil")], "w")
    assert_refused(archive, place / "out", "/tmp/evil")


@pytest.mark.parametrize("target", ["../../outside", "/etc/passwd", "d/../.."])
def test_tar_with_escaping_symlink_is_refused(place, target):
    archive = make_tar(place / "a.tar.gz", [("ok.txt", b"ok"), link("evil", target)])
    assert_refused(archive, place / "out", "evil")


def test_tar_writing_through_a_symlink_outside_is_refused(place):
    archive = make_tar(place / "a.tar.gz", [link("escape", ".."), ("escape/evil.txt", b"evil")])
    assert_refused(archive, place / "out", "escape")


@pytest.mark.parametrize("target", ["..", "/etc"])
def test_tar_writing_through_a_symlink_outside_defined_after_the_file_is_refused(place, target):
    # The file is checked first, against the archive's links as a whole: its folder is an escaping symlink.
    archive = make_tar(place / "a.tar.gz", [("escape/evil.txt", b"evil"), link("escape", target)])
    assert_refused(archive, place / "out", "escape/evil.txt")
    with pytest.raises(UnsafeArchiveError, match="path goes through a symlink pointing outside the target"):
        safe_extract(archive, place / "out")


def test_tar_member_of_an_unknown_type_is_refused(place):
    odd = tarfile.TarInfo("odd")
    odd.type = b"Z"
    archive = make_tar(place / "a.tar", [("ok.txt", b"ok"), odd], "w")
    assert_refused(archive, place / "out", "odd")
    with pytest.raises(UnsafeArchiveError, match="unsupported member type"):
        safe_extract(archive, place / "out")


def test_tar_with_chained_symlinks_escaping_is_refused(place):
    # Each link looks harmless on its own when normalised lexically; together they climb out.
    archive = make_tar(place / "a.tar.gz", [("d/f.txt", b"f"), link("d/up", ".."), link("chain", "d/up/../..")])
    assert_refused(archive, place / "out", "chain")


def test_tar_with_symlink_loop_is_refused(place):
    archive = make_tar(place / "a.tar.gz", [link("a", "b"), link("b", "a")])
    assert_refused(archive, place / "out", "a")


def test_tar_with_escaping_hardlink_is_refused(place):
    archive = make_tar(place / "a.tar.gz", [("ok.txt", b"ok"), link("hard", "../../etc/passwd", tarfile.LNKTYPE)])
    assert_refused(archive, place / "out", "hard")


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE])
def test_tar_with_device_or_fifo_is_refused(place, kind):
    device = tarfile.TarInfo("dev")
    device.type = kind
    archive = make_tar(place / "a.tar", [("ok.txt", b"ok"), device], "w")
    assert_refused(archive, place / "out", "dev")


def test_tar_redefining_a_symlink_is_refused_even_without_the_data_filter(place, monkeypatch):
    # Checked against the last definition (b -> c/d) every member stays inside; unpacked in turn,
    # a -> b/.. with b -> . is the folder above the target, and a/evil lands there.
    monkeypatch.setattr(sources, "_tar_filter", lambda *args: {})  # as on a Python without the filter
    archive = make_tar(place / "a.tar", [("c/d/f", b"f"), link("b", "."), link("a", "b/.."), ("a/evil", b"EVIL"),
                                         link("b", "c/d")], "w")
    assert_refused(archive, place / "out", "b")


@pytest.mark.parametrize(
    "members,repeated",
    [
        ([link("b", "."), link("./b", "c")], "./b"),
        ([("a", b"file"), link("a", "x")], "a"),
        ([link("a", "x"), ("a", b"file")], "a"),
        ([("f", b"f"), link("h", "f", tarfile.LNKTYPE), link("h", "f", tarfile.LNKTYPE)], "h"),
        ([folder("a"), ("a", b"file")], "a"),
        ([("a", b"file"), folder("a/")], "a"),
    ],
)
def test_tar_repeating_a_name_as_a_link_or_as_another_kind_is_refused(place, members, repeated):
    archive = make_tar(place / "a.tar", members, "w")
    assert_refused(archive, place / "out", repeated)
    with pytest.raises(UnsafeArchiveError, match="given twice"):
        safe_extract(archive, place / "out")


def test_zip_repeating_a_name_as_another_kind_is_refused(place):
    info = zip_symlink("l")
    archive = place / "a.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("l", b"file")
        with pytest.warns(UserWarning, match="Duplicate name"):
            bundle.writestr(info, b"target")
    assert_refused(archive, place / "out", "l")


def test_a_file_given_twice_unpacks_the_later_one(place):
    archive = make_tar(place / "a.tar", [("a.txt", b"first"), folder("d"), folder("d/"), ("a.txt", b"second")], "w")
    assert safe_extract(archive, place / "out") == [place / "out/a.txt"]
    assert (place / "out/a.txt").read_bytes() == b"second"


def test_tar_is_refused_without_tarfiles_data_filter(place, monkeypatch):
    monkeypatch.delattr(tarfile, "data_filter")
    archive = make_tar(place / "a.tar.gz", [("a.txt", b"a")])
    with pytest.raises(SourceError, match=re.escape(str(archive)) + ".*'data' extraction filter"):
        safe_extract(archive, place / "out")
    assert sorted(p.name for p in place.iterdir()) == ["a.tar.gz"]


def test_tar_members_are_unpacked_with_the_data_filters_modes_and_owner(place):
    """The data filter, not only the checks here: an owner-unreadable or set-id member comes out readable and
    plain, owned by whoever unpacks it, not by the archive's uid."""
    locked = tarfile.TarInfo("locked.txt")
    locked.size, locked.mode, locked.uid, locked.gid = 1, 0o4000, 4242, 4242
    archive = place / "a.tar"
    with tarfile.open(archive, "w") as bundle:
        bundle.addfile(locked, io.BytesIO(b"x"))
    safe_extract(archive, place / "out")
    unpacked = (place / "out" / "locked.txt").stat()
    assert stat.S_IMODE(unpacked.st_mode) == 0o600
    assert (unpacked.st_uid, unpacked.st_gid) == (os.getuid(), os.getgid())


def test_refused_archive_leaves_an_existing_target_alone(place):
    target = place / "out"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    archive = make_zip(place / "a.zip", {"ok.txt": b"ok", "../evil.txt": b"evil"})
    with pytest.raises(UnsafeArchiveError):
        safe_extract(archive, target)
    assert everything_under(target) == ["keep.txt"]
    assert sorted(p.name for p in place.iterdir()) == ["a.zip", "out"]


def test_locked_provenance_fills_unpinned_hashes_from_the_lockfile(tmp_path):
    lockfile = tmp_path / "sources.lock.tsv"
    sources._record_in_lockfile(lockfile, "https://example.org/a.zip", "ab" * 32, 10)
    # Recorded while b.txt was unpinned: the pin given since is what its bytes must have.
    sources._record_in_lockfile(lockfile, "https://example.org/b.txt", "ef" * 32, 10)
    provenance = {
        "release": {"url": "https://example.org/a.zip", "sha256": None, "note": "n"},
        "pinned": {"url": "https://example.org/b.txt", "sha256": "cd" * 32},
        "fresh": {"url": "https://example.org/never.txt", "sha256": None},
        "files": [{"url": "https://example.org/a.zip", "sha256": None}],
        "seed": 3,
    }
    locked = sources.locked_provenance(provenance, lockfile)
    assert locked["release"] == {"url": "https://example.org/a.zip", "sha256": "ab" * 32, "note": "n", "sha256_from": "lockfile"}
    assert locked["files"][0]["sha256"] == "ab" * 32
    assert locked["pinned"] == provenance["pinned"] and locked["fresh"] == provenance["fresh"] and locked["seed"] == 3
    assert provenance["release"]["sha256"] is None, "the input is not changed"
    assert sources.locked_provenance(provenance, tmp_path / "absent.tsv") == provenance


def test_a_malformed_lockfile_line_is_named_and_never_dropped_by_a_rewrite(tmp_path):
    lockfile = tmp_path / "sources.lock.tsv"
    sources._record_in_lockfile(lockfile, "https://example.org/a.zip", "ab" * 32, 10)
    good = lockfile.read_text()
    for bad, message in (("https://example.org/b.zip\tnot-a-hash\t10", "b.zip: expected a 64-hex sha256"),
                         ("https://example.org/b.zip\t" + "cd" * 32 + "\tten", "and 'ten'"),
                         ("https://example.org/b.zip\t" + "cd" * 32, "expected 3 tab-separated fields"),
                         ("https://example.org/b.zip\t" + "cd" * 32 + "\t\u0661\u0662", "a byte count"),
                         ("https://example.org/a.zip\t" + "cd" * 32 + "\t10", "a.zip is recorded twice")):
        lockfile.write_text(good + bad + "\n")  # hand-edited
        with pytest.raises(sources.LockfileError, match=rf"sources\.lock\.tsv:3: .*{re.escape(message)}"):
            sources.locked_provenance({"url": "https://example.org/a.zip", "sha256": None}, lockfile)
        with pytest.raises(sources.LockfileError):
            sources._record_in_lockfile(lockfile, "https://example.org/c.zip", "ef" * 32, 1)
        assert lockfile.read_text() == good + bad + "\n"


# ---------------------------------------------------------------------------------------------
# Sources read by a dataset job


def test_a_source_edited_after_its_download_is_refused_by_the_job_reading_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blimp = Path("resources/sources/blimp")
    blimp.mkdir(parents=True)
    (blimp / "a.jsonl").write_bytes(DATA)
    (blimp / "b.jsonl").write_bytes(b"unpinned")
    provenance = {"url": "https://example.org/blimp/", "files": [
        {"url": "https://example.org/blimp/a.jsonl", "sha256": DATA_SHA.upper()},
        {"url": "https://example.org/blimp/b.jsonl", "sha256": None},
    ]}
    paths = [str(blimp / "a.jsonl"), str(blimp / "b.jsonl"), "results/elsewhere/a.jsonl"]
    Path("results/elsewhere").mkdir(parents=True)
    Path("results/elsewhere/a.jsonl").write_bytes(b"another file of that name")  # not a download: unchecked
    check_sources_unchanged(paths, provenance)  # the bytes verified at download; the unpinned one unchecked
    edited = DATA + b"\n{}"
    (blimp / "a.jsonl").write_bytes(edited)
    with pytest.raises(SourceChangedError) as caught:
        check_sources_unchanged(paths, provenance)
    assert str(caught.value).startswith(f"resources/sources/blimp/a.jsonl: sha256 {hashlib.sha256(edited).hexdigest()}, "
                                        f"not the {DATA_SHA} it was downloaded with")
    check_sources_unchanged([str(blimp / "b.jsonl")], provenance)
    locked = {"url": "https://example.org/blimp/b.jsonl", "sha256": "0" * 64, "sha256_from": "lockfile"}
    with pytest.raises(SourceChangedError, match="b.jsonl: sha256"):
        check_sources_unchanged([str(blimp / "b.jsonl")], locked)


def test_an_archive_edited_after_its_download_is_not_extracted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    archive = Path("resources/sources/release/data.zip")
    archive.parent.mkdir(parents=True)
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("data/a.txt", "as released")
    source = {"url": "https://example.org/files/data.zip", "sha256": sha256_of(archive)}
    files = extract_verified(archive, "resources/extracted/release", source)
    assert [f.read_text() for f in files] == ["as released"]
    with zipfile.ZipFile(archive, "a") as bundle:
        bundle.writestr("data/b.txt", "added by hand")
    with pytest.raises(SourceChangedError, match="resources/sources/release/data.zip: sha256"):
        extract_verified(archive, "resources/extracted/again", source)
    assert not Path("resources/extracted/again").exists()
