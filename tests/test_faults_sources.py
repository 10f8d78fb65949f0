"""Network faults and damaged archives, against a real HTTP server on 127.0.0.1 and real files.

Complements test_sources.py, which already covers: 500/502 then 200, 429 with Retry-After
(recorded), a read timeout before the headers, a body cut short against a server honouring
Range, servers ignoring Range or answering 416 / a wrong 206, and sha256 mismatches. The
cases here: Retry-After really waited for and capped, hostile Retry-After values, bodies that
stall or trickle past the timeout (also in tiny chunks), wrong Content-Lengths, chunked bodies cut
mid-stream, cuts against servers without Range, redirect loops, bodies with a Content-Encoding, a
full disk, corrupt or truncated archives, and archives that need a name to be a file and a folder.

Back-off sleeps are recorded instead of waited for (``sleeps``) except where the wait itself
is under test; timeouts are a fraction of a second.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import lzma
import os
import re
import struct
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from lmprobes import sources
from lmprobes.sources import BadArchiveError, ChecksumError, SourceError, fetch, mirror_path, safe_extract
from loopback import Responder, announce, fake_server, send, serve, status

DATA = bytes(range(256)) * 400  # 100 KiB: several CHUNK_SIZE chunks
DATA_SHA = hashlib.sha256(DATA).hexdigest()


@pytest.fixture
def server():
    with fake_server() as running:
        yield running


@pytest.fixture
def sleeps(monkeypatch) -> list[float]:
    """Record back-off sleeps instead of waiting."""
    recorded: list[float] = []
    monkeypatch.setattr(sources, "_sleep", recorded.append)
    return recorded


@pytest.fixture
def release():
    """An event set at teardown, so that stalling server threads end with the test."""
    event = threading.Event()
    yield event
    event.set()


def parts_and_dest(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# ---------------------------------------------------------------------------------------------
# 429 / Retry-After


def test_retry_after_is_really_waited_for_up_to_the_cap(server, tmp_path, monkeypatch):
    # Retry-After asks for an hour; the cap (patched down from 600 s) bounds the real wait.
    monkeypatch.setattr(sources, "MAX_RETRY_AFTER", 0.3)
    stamps: list[float] = []

    def stamped(responder):
        def respond(handler: BaseHTTPRequestHandler) -> None:
            stamps.append(time.monotonic())
            responder(handler)

        return respond

    url = server.route("/data.bin", stamped(status(429, {"Retry-After": "3600"})), stamped(serve(DATA)))
    assert fetch(url, tmp_path / "data.bin", DATA_SHA, backoff=0.0) == DATA_SHA
    waited = stamps[1] - stamps[0]
    assert 0.3 <= waited < 3.0


@pytest.mark.parametrize(
    "header,expected",
    [("inf", sources.MAX_RETRY_AFTER), ("1e12", sources.MAX_RETRY_AFTER), ("nan", 0.5), ("-5", 0.5), ("soon", 0.5)],
)
def test_hostile_retry_after_values_are_capped_or_ignored(server, tmp_path, sleeps, header, expected):
    url = server.route("/data.bin", status(429, {"Retry-After": header}), serve(DATA))
    assert fetch(url, tmp_path / "data.bin", DATA_SHA, backoff=0.5) == DATA_SHA
    assert sleeps == [expected]


# ---------------------------------------------------------------------------------------------
# Slow bodies


def stall_after(data: bytes, keep: int, release: threading.Event) -> Responder:
    """Send the headers and ``data[:keep]``, then go silent until the test ends."""

    def responder(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data[:keep])
        handler.wfile.flush()
        release.wait(10)

    return responder


def trickle(data: bytes, release: threading.Event, piece: int = 64, every: float = 0.02) -> Responder:
    """Send ``data`` ``piece`` bytes at a time every ``every`` seconds: never silent for long."""

    def responder(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        try:
            for start in range(0, len(data), piece):
                if release.wait(every):
                    return
                handler.wfile.write(data[start : start + piece])
                handler.wfile.flush()
        except OSError:  # the client gave up
            pass

    return responder


def test_body_stalling_past_the_timeout_fails_after_retries_and_leaves_no_dest(server, tmp_path, sleeps, release):
    url = server.route("/data.bin", stall_after(DATA, 20_000, release))
    dest = tmp_path / "data.bin"
    with pytest.raises(SourceError) as caught:
        fetch(url, dest, DATA_SHA, timeout=0.3, retries=2)
    assert url in str(caught.value) and "after 3 attempts" in str(caught.value)
    assert len(server.hits("/data.bin")) == 3 and len(sleeps) == 2
    assert not dest.exists()
    # What did arrive is kept for the next run to resume, and it is a true prefix of the file.
    kept = (tmp_path / "data.bin.part").read_bytes()
    assert len(kept) < len(DATA) and DATA.startswith(kept)


def test_trickling_body_is_cut_by_the_guard_and_retried(server, tmp_path, sleeps, release):
    # 64 bytes every 20 ms keeps every read under the 1 s socket timeout, but the whole
    # 100 KiB would take 32 s: the trickle guard gives up after 1 s without a 16 KiB chunk.
    url = server.route("/data.bin", trickle(DATA, release), serve(DATA))
    dest = tmp_path / "data.bin"
    messages: list[str] = []
    began = time.monotonic()
    assert fetch(url, dest, DATA_SHA, timeout=1.0, log=messages.append) == DATA_SHA
    assert time.monotonic() - began < 8
    assert dest.read_bytes() == DATA
    assert len(server.hits("/data.bin")) == 2
    (message,) = messages
    assert f"slower than {sources.CHUNK_SIZE} bytes in 1 s" in message


def test_trickling_body_on_every_attempt_fails_cleanly(server, tmp_path, sleeps, release):
    url = server.route("/data.bin", trickle(DATA, release))
    dest = tmp_path / "data.bin"
    with pytest.raises(SourceError, match="after 1 attempts: body slower than"):
        fetch(url, dest, DATA_SHA, timeout=0.8, retries=0)
    assert not dest.exists()


def chunked_trickle(release: threading.Event, every: float = 0.02, pieces: int = 250) -> Responder:
    """A chunked body of one-byte chunks, one every ``every`` seconds (5 s in all by default)."""

    def responder(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        try:
            for _ in range(pieces):
                if release.wait(every):
                    return
                handler.wfile.write(b"1\r\nx\r\n")
                handler.wfile.flush()
            handler.wfile.write(b"0\r\n\r\n")
        except OSError:  # the client gave up
            pass

    return responder


def test_trickle_of_tiny_chunks_is_cut_by_the_guard(tmp_path, sleeps, release):
    # Every one-byte chunk is a read of its own: the guard counts bytes, not reads.
    with fake_server(keep_alive=True) as server:
        url = server.route("/data.bin", chunked_trickle(release))
        began = time.monotonic()
        with pytest.raises(SourceError, match=f"after 1 attempts: body slower than {sources.CHUNK_SIZE} bytes"):
            fetch(url, tmp_path / "data.bin", timeout=0.5, retries=0, log=lambda message: None)
        assert time.monotonic() - began < 3
    assert not (tmp_path / "data.bin").exists()


# ---------------------------------------------------------------------------------------------
# Content-Encoding: the bytes as sent are the file

GZ = gzip.compress(b"".join(hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(3200)), mtime=0)
GZ_SHA = hashlib.sha256(GZ).hexdigest()


def gzip_coded(data: bytes, *, keep: int | None = None) -> Responder:
    """``data`` (a .gz file) labelled ``Content-Encoding: gzip``, with 206 for Range; ``keep`` cuts a 200 short."""

    def responder(handler: BaseHTTPRequestHandler) -> None:
        match = re.fullmatch(r"bytes=(\d+)-", handler.headers.get("Range", ""))
        headers = {"Content-Encoding": "gzip", "Content-Type": "application/gzip"}
        if match:
            start = int(match.group(1))
            send(handler, 206, data[start:], {**headers, "Content-Range": f"bytes {start}-{len(data) - 1}/{len(data)}"})
            return
        handler.send_response(200)
        for key, value in {**headers, "Content-Length": str(len(data))}.items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(data[:keep])
        handler.wfile.flush()
        handler.close_connection = True

    return responder


def test_gzip_content_encoding_is_stored_as_sent(server, tmp_path):
    # A .gz object stored with Content-Encoding: gzip (as some buckets do) despite Accept-Encoding: identity.
    url = server.route("/data.tsv.gz", gzip_coded(GZ))
    dest = tmp_path / "data.tsv.gz"
    assert fetch(url, dest, GZ_SHA) == GZ_SHA
    assert dest.read_bytes() == GZ


def test_gzip_content_encoding_cut_short_is_resumed_in_the_encoded_bytes(server, tmp_path, sleeps):
    url = server.route("/data.tsv.gz", gzip_coded(GZ, keep=len(GZ) // 3), gzip_coded(GZ))
    dest = tmp_path / "data.tsv.gz"
    assert fetch(url, dest, GZ_SHA) == GZ_SHA
    first, second = server.hits("/data.tsv.gz")
    assert "Range" not in first and 0 < int(second["Range"][6:-1]) <= len(GZ) // 3
    assert dest.read_bytes() == GZ


# ---------------------------------------------------------------------------------------------
# A full disk

FULL_DISK = """
import resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (50_000, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
from lmprobes.sources import SourceError, fetch
url, dest, sha256, mirror = sys.argv[1:]
try:
    fetch(url, dest, sha256, mirror=mirror or None, retries=2)
except SourceError as error:
    print(f"{type(error).__name__}: {error}")
"""


@pytest.mark.parametrize("through", ["http", "mirror"])
def test_full_disk_names_url_and_dest_and_leaves_no_part(server, tmp_path, through):
    # Files over 50 kB cannot be written (RLIMIT_FSIZE, in a child process): the 100 KiB download fails.
    url = server.route("/data.bin", serve(DATA))
    mirror = ""
    if through == "mirror":
        copy = mirror_path(tmp_path / "mirror", url)
        copy.parent.mkdir(parents=True)
        copy.write_bytes(DATA)
        mirror = str(tmp_path / "mirror")
    dest = tmp_path / "out" / "data.bin"
    dest.parent.mkdir()
    root = Path(sources.__file__).parents[1]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    child = subprocess.run([sys.executable, "-c", FULL_DISK, url, str(dest), DATA_SHA, mirror], env=env,
                           capture_output=True, text=True, timeout=60, check=False)
    assert child.returncode == 0, child.stderr
    assert child.stdout.startswith(f"SourceError: cannot fetch {url} into {dest}: ")
    assert "File too large" in child.stdout
    assert parts_and_dest(dest.parent) == []
    assert len(server.hits("/data.bin")) == (1 if through == "http" else 0)  # not retried


# ---------------------------------------------------------------------------------------------
# Wrong Content-Length, cut connections


def test_cut_against_a_server_without_range_is_fetched_again_whole(server, tmp_path, sleeps):
    url = server.route("/data.bin", announce(DATA, len(DATA), keep=len(DATA) // 3), serve(DATA, honour_range=False))
    dest = tmp_path / "data.bin"
    assert fetch(url, dest, DATA_SHA) == DATA_SHA
    first, second = server.hits("/data.bin")
    assert "Range" not in first and re.fullmatch(r"bytes=\d+-", second["Range"])
    assert dest.read_bytes() == DATA
    assert parts_and_dest(tmp_path) == ["data.bin"]


def test_content_length_longer_than_the_body_is_retried_and_verified(server, tmp_path, sleeps):
    # The whole file arrives but 100 more bytes were announced: treated as a cut, resumed, verified.
    url = server.route("/data.bin", announce(DATA, len(DATA) + 100), serve(DATA))
    dest = tmp_path / "data.bin"
    assert fetch(url, dest, DATA_SHA) == DATA_SHA
    assert dest.read_bytes() == DATA
    hits = server.hits("/data.bin")
    assert len(hits) >= 2 and "Range" in hits[1]


def test_content_length_shorter_than_the_body_fails_the_checksum(server, tmp_path, sleeps):
    # The client stops at the announced length: the truncated body fails the pinned sha256.
    url = server.route("/data.bin", announce(DATA, len(DATA) - 100))
    dest = tmp_path / "data.bin"
    with pytest.raises(ChecksumError) as caught:
        fetch(url, dest, DATA_SHA)
    truncated_sha = hashlib.sha256(DATA[:-100]).hexdigest()
    assert (caught.value.expected, caught.value.seen) == (DATA_SHA, truncated_sha)
    assert url in str(caught.value) and truncated_sha in str(caught.value)
    assert parts_and_dest(tmp_path) == []


def chunked_then_cut(data: bytes, chunks: int) -> Responder:
    """A chunked (no Content-Length) body of which only ``chunks`` 10 KiB chunks are sent."""

    def responder(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        for start in range(0, 10_240 * chunks, 10_240):
            piece = data[start : start + 10_240]
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        handler.wfile.flush()
        handler.close_connection = True  # no terminating 0-chunk

    return responder


def test_chunked_body_cut_mid_stream_never_becomes_the_unpinned_file(tmp_path, sleeps):
    # Unpinned, so no checksum would catch it: the missing last chunk must.
    with fake_server(keep_alive=True) as server:
        url = server.route("/data.bin", chunked_then_cut(DATA, 3), serve(DATA))
        dest = tmp_path / "data.bin"
        assert fetch(url, dest, log=lambda message: None) == DATA_SHA
        assert dest.read_bytes() == DATA
        assert len(server.hits("/data.bin")) == 2


def test_unpinned_download_cut_on_every_attempt_leaves_no_dest_and_no_lock_row(server, tmp_path, sleeps):
    url = server.route("/data.bin", announce(DATA, len(DATA), keep=5000))
    dest = tmp_path / "out" / "data.bin"
    lockfile = tmp_path / "sources.lock.tsv"
    with pytest.raises(SourceError, match=re.escape(url)):
        fetch(url, dest, lockfile=lockfile, retries=2, log=lambda message: None)
    assert not dest.exists() and not lockfile.exists()


def test_connection_closed_before_any_response_is_retried(server, tmp_path, sleeps):
    def hang_up(handler: BaseHTTPRequestHandler) -> None:
        handler.close_connection = True

    url = server.route("/data.bin", hang_up, serve(DATA))
    assert fetch(url, tmp_path / "data.bin", DATA_SHA) == DATA_SHA
    assert len(sleeps) == 1


def test_redirect_loop_fails_at_once_naming_the_url(server, tmp_path, sleeps):
    url = server.route("/loop", lambda handler: send(handler, 302, b"", {"Location": "/loop"}))
    with pytest.raises(SourceError, match=re.escape(url) + ".*redirects"):
        fetch(url, tmp_path / "data.bin", DATA_SHA)
    assert sleeps == []
    assert parts_and_dest(tmp_path) == []


# ---------------------------------------------------------------------------------------------
# Corrupt and truncated archives


def assert_bad_archive(archive: Path, *, reason: str) -> None:
    """safe_extract fails naming the archive; neither the target nor a staging folder is left."""
    before = sorted(p.name for p in archive.parent.iterdir())
    with pytest.raises(BadArchiveError) as caught:
        safe_extract(archive, archive.parent / "out")
    assert str(archive) in str(caught.value) and caught.value.archive == archive
    assert re.search(reason, caught.value.reason), caught.value.reason
    assert isinstance(caught.value, ValueError)
    assert sorted(p.name for p in archive.parent.iterdir()) == before


def tar_bytes(mode: str, members: int = 3) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as bundle:
        for i in range(members):
            info = tarfile.TarInfo(f"d/m{i}.bin")
            info.size = len(DATA)
            bundle.addfile(info, io.BytesIO(DATA))
    return buffer.getvalue()


def zip_bytes(method: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as bundle:
        bundle.writestr("a.bin", DATA)
        bundle.writestr("b.bin", DATA[::-1])
    return buffer.getvalue()


@pytest.fixture
def place(tmp_path) -> Path:
    folder = tmp_path / "place"
    folder.mkdir()
    return folder


def test_truncated_zip(place):
    archive = place / "a.zip"
    raw = zip_bytes(zipfile.ZIP_DEFLATED)
    archive.write_bytes(raw[: len(raw) // 2])
    assert_bad_archive(archive, reason="corrupt or truncated zip")


@pytest.mark.parametrize("method,reason", [(zipfile.ZIP_STORED, "Bad CRC-32"), (zipfile.ZIP_DEFLATED, "corrupt")])
def test_zip_with_damaged_member_data(place, method, reason):
    raw = bytearray(zip_bytes(method))
    raw[len(raw) // 4] ^= 0xFF  # inside the first member's data
    archive = place / "a.zip"
    archive.write_bytes(bytes(raw))
    assert_bad_archive(archive, reason=reason)


def test_zip_with_an_encrypted_member(place):
    raw = bytearray(zip_bytes(zipfile.ZIP_STORED))
    # Set the "encrypted" flag of the first member in its local and central headers.
    for header, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = raw.find(header)
        flags = struct.unpack_from("<H", raw, at + offset)[0]
        struct.pack_into("<H", raw, at + offset, flags | 0x1)
    archive = place / "a.zip"
    archive.write_bytes(bytes(raw))
    assert_bad_archive(archive, reason="unsupported archive.*encrypted")


@pytest.mark.parametrize(
    "mode,suffix,keep,reason",
    [
        ("w:gz", ".tar.gz", 0.5, "corrupt or truncated archive"),
        ("w:gz", ".tar.gz", 30, "corrupt or truncated"),
        ("w:bz2", ".tar.bz2", 0.5, "corrupt or truncated"),
        ("w:xz", ".tar.xz", 0.5, "corrupt or truncated"),
        ("w", ".tar", 0.5, "corrupt or truncated archive"),
    ],
)
def test_truncated_tar(place, mode, suffix, keep, reason):
    raw = tar_bytes(mode)
    cut = int(len(raw) * keep) if isinstance(keep, float) else keep
    archive = place / f"a{suffix}"
    archive.write_bytes(raw[:cut])
    assert_bad_archive(archive, reason=reason)


def test_plain_tar_with_a_damaged_first_header_is_named_a_damaged_tar(place):
    """tarfile then does not recognise the file at all: its ustar magic tells a damaged tar from a non-archive."""
    raw = bytearray(tar_bytes("w"))
    raw[148:156] = b"0000000\0"  # the first header's checksum field
    archive = place / "a.tar"
    archive.write_bytes(bytes(raw))
    assert_bad_archive(archive, reason="^corrupt or truncated tar archive$")


@pytest.mark.parametrize("where", [-6, 0.5])
def test_tar_gz_with_damaged_compressed_data(place, where):
    # -6: the gzip trailer's CRC-32 (the tar inside is intact); 0.5: the middle of the deflate stream.
    raw = bytearray(tar_bytes("w:gz"))
    raw[where if isinstance(where, int) else int(len(raw) * where)] ^= 0xFF
    archive = place / "a.tar.gz"
    archive.write_bytes(bytes(raw))
    assert_bad_archive(archive, reason="corrupt or truncated")


def test_compressed_non_archive_is_named_as_such(place):
    archive = place / "a.tar.xz"
    archive.write_bytes(lzma.compress(b"just text, no tar headers\n" * 100))
    assert_bad_archive(archive, reason="corrupt or truncated|not a zip or tar")


def test_gzip_of_a_truncated_tar(place):
    # A valid gzip stream around a tar whose last member's data is cut.
    archive = place / "a.tar.gz"
    archive.write_bytes(gzip.compress(tar_bytes("w")[: 512 + len(DATA) // 2], mtime=0))
    assert_bad_archive(archive, reason="corrupt or truncated")


def tar_of(members: list[tuple[str, bytes | str]]) -> bytes:
    """A plain tar of files (``bytes``) and symlinks (``str``: the link's target)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as bundle:
        for name, content in members:
            info = tarfile.TarInfo(name)
            if isinstance(content, str):
                info.type, info.linkname = tarfile.SYMTYPE, content
                bundle.addfile(info)
            else:
                info.size = len(content)
                bundle.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


@pytest.mark.parametrize(
    "members,inside,file",
    [
        ([("a", b"file"), ("a/b", b"x")], "a/b", "a"),
        ([("d/a/b", b"x"), ("d/a", b"file")], "d/a/b", "d/a"),
        ([("f", b"file"), ("l", "f"), ("l/x", b"x")], "l/x", "f"),  # through a symlink to a file
    ],
)
def test_tar_needing_a_file_to_be_a_folder(place, members, inside, file):
    archive = place / "a.tar"
    archive.write_bytes(tar_of(members))
    assert_bad_archive(archive, reason=f"member '{inside}' needs '{file}' to be a folder")


@pytest.mark.parametrize("symlink", [False, True])
def test_zip_needing_a_file_to_be_a_folder(place, symlink):
    # zipfile writes a symlink member as a file holding its target: no folder either.
    info = zipfile.ZipInfo("a")
    info.external_attr = (0o120777 if symlink else 0o100644) << 16
    archive = place / "a.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("d/f", b"f")
        bundle.writestr(info, b"d" if symlink else b"file")
        bundle.writestr("a/b", b"x")
    assert_bad_archive(archive, reason="member 'a/b' needs 'a' to be a folder")


def test_corrupt_archive_leaves_an_existing_target_alone(place):
    target = place / "out"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    archive = place / "a.zip"
    archive.write_bytes(zip_bytes(zipfile.ZIP_DEFLATED)[:1000])
    with pytest.raises(BadArchiveError):
        safe_extract(archive, target)
    assert sorted(p.name for p in place.iterdir()) == ["a.zip", "out"]
    assert [p.name for p in target.iterdir()] == ["keep.txt"]


def test_missing_archive_is_named(place):
    with pytest.raises(BadArchiveError, match=re.escape(str(place / "absent.zip"))):
        safe_extract(place / "absent.zip", place / "out")
