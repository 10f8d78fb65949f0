"""The one download step of the workflow: fetch a source file, verify it, unpack archives safely.

``fetch`` streams a URL (or copies it from a local mirror) into ``<dest>.part``, checks its
sha256 and only then renames it onto ``dest``, so ``dest`` is either absent or complete and
verified. The bytes are stored exactly as the server sends them: a ``Content-Encoding`` (a
``.gz`` served with ``Content-Encoding: gzip``) is not undone, so Content-Length, Range offsets
and the sha256 all refer to the same bytes. Interrupted downloads resume from the ``.part``
with an HTTP Range request carrying ``If-Range`` (the first response's strong ETag, else its
Last-Modified), so a file that changed upstream during the fetch is sent whole again instead of
being spliced onto the old bytes (a server that ignores Range does the same). ``timeout`` bounds
silence (no byte for ``timeout`` seconds) and trickling (less than ``CHUNK_SIZE`` bytes in
``timeout`` seconds, however the body is framed): either fails the attempt, which is retried
like a server error. A ``.part`` is renamed onto ``dest`` only once the body is complete by the
server's framing (Content-Length or chunked encoding) and, for a pinned source, has the pinned
sha256. A ``.part`` left by a failed run is resumed by the next one only for a pinned source (if
the result fails its sha256 the file is downloaded once more from zero before giving up);
nothing could verify a splice of an unpinned source, so its leftover is deleted. A write that
fails (disk full) raises a ``SourceError`` naming the URL and ``dest`` and removes the ``.part``.
Unpinned sources (no sha256 in config.yaml) are downloaded anyway; the hash seen is recorded
in a lockfile (read and checked before ``dest`` is replaced) and logged so that it can be
pinned; a hash that differs from the one recorded earlier is replaced with a warning naming both.

``safe_extract`` unpacks zip and tar archives after checking every member stays inside the
target folder, and swaps the result into place only once everything was written. Archives come
from the network, so they are treated as hostile: members that climb out with ``..``, absolute
names, links pointing outside, device files and FIFOs are refused, so is a name given twice where
either is a link or the two differ in kind (a link redefined later would be checked against one
definition and unpacked with both), and so are decompression bombs (more than
``MAX_TOTAL_BYTES`` uncompressed, more than ``MAX_MEMBERS`` members, or a member that expands
more than ``MAX_RATIO`` times; each overridable by keyword). The limits are
checked on the sizes the archive declares, before anything is written; zipfile and tarfile never
write more than a member declares (zipfile fails on the CRC of a member whose data is longer).
A corrupt or truncated archive, or one whose members need a name to be both a file and a folder
(file ``a`` and ``a/b``), raises ``BadArchiveError`` naming it; nothing is left behind. Tar archives
are unpacked only with tarfile's ``data`` filter (Python >= 3.11.4); without it they are refused.
Checksums: zip members have CRC-32s, bzip2 and xz check their blocks, and a tar.gz is read to
its gzip trailer; a plain tar has only header checksums (damaged data inside it goes unnoticed
unless the download's sha256 was pinned).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import lzma
import os
import platform
import posixpath
import re
import shutil
import stat
import tarfile
import tempfile
import threading
import time
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Self
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

import requests
import urllib3

from lmprobes.io import write_text

logger = logging.getLogger("lmprobes.sources")

# Tests replace this to run retries without waiting.
_sleep = time.sleep

# urllib3 drops the bytes of a read that a closed connection cuts short, so small chunks
# limit what an interrupted download loses before it is resumed.
CHUNK_SIZE = 1 << 14
MAX_BACKOFF = 60.0
MAX_RETRY_AFTER = 600.0
MAX_CONNECT_TIMEOUT = 30.0
MAX_SYMLINK_DEPTH = 40
LOCKFILE_HEADER = ("url", "sha256", "bytes")
# Where downloads of unpinned sources record what they got (relative to the working directory).
LOCKFILE = "resources/sources/sources.lock.tsv"
SOURCES_ROOT = Path("resources/sources")
SHA256_HEX = re.compile(r"[0-9a-f]{64}")
BYTE_COUNT = re.compile(r"[0-9]+")

# Decompression-bomb limits of safe_extract. The biggest archive the workflow unpacks (LAMA's
# data.zip) is far below them; DEFLATE tops out near 1030:1, bzip2 and xz go much further.
MAX_TOTAL_BYTES = 8 << 30
MAX_MEMBERS = 100_000
MAX_RATIO = 200.0
# Members smaller than this are exempt from the ratio test: they cannot fill a disk, and short
# runs of one byte legitimately compress very well.
RATIO_MIN_BYTES = 1 << 20
# A symlink member holds its target path; anything longer than PATH_MAX is not a link target.
MAX_LINK_BYTES = 4096
# First bytes of the formats safe_extract reads, to tell a damaged archive from a non-archive.
ARCHIVE_MAGIC = {b"PK\x03\x04": "zip", b"PK\x05\x06": "zip", b"\x1f\x8b": "gzip", b"BZh": "bzip2",
                 b"\xfd7zXZ\x00": "xz"}
DEFAULT_USER_AGENT = "lmprobes/0.1 (+research reproduction workflow)"

Log = Callable[[str], None]


class SourceError(RuntimeError):
    """A source could not be fetched or unpacked; the message names the URL and/or file."""


class LockfileError(SourceError, ValueError):
    """A line of the sources lockfile that is not ``url, sha256, bytes``; the message names it."""


class SourceChangedError(SourceError, ValueError):
    """A downloaded source file whose bytes changed after it was fetched and verified."""


class ChecksumError(SourceError):
    """The bytes fetched for a URL do not have the sha256 pinned for it."""

    def __init__(self, url: str, dest: Path, expected: str, seen: str, *, read_from: Path | None = None,
                 pinned_by: str | None = None) -> None:
        origin = f" (read from {read_from})" if read_from is not None else ""
        pin = f" as pinned by {pinned_by}" if pinned_by else ""
        super().__init__(f"sha256 mismatch for {url}{origin} -> {dest}: expected {expected}{pin}, got {seen}; "
                         f"{dest} was not written")
        self.url, self.dest, self.expected, self.seen = url, dest, expected, seen


class UnsafeArchiveError(SourceError, ValueError):
    """An archive member would be written outside the target folder, or is a device file."""

    def __init__(self, archive: Path, member: str, reason: str) -> None:
        super().__init__(f"unsafe member '{member}' in {archive}: {reason}")
        self.archive, self.member, self.reason = archive, member, reason


class ArchiveLimitError(UnsafeArchiveError):
    """An archive that would unpack to more bytes or members than allowed (a decompression bomb)."""


class BadArchiveError(SourceError, ValueError):
    """A file that is not a zip or tar archive, or one that is corrupt or truncated."""

    def __init__(self, archive: Path, reason: str) -> None:
        super().__init__(f"cannot unpack {archive}: {reason}")
        self.archive, self.reason = archive, reason


class Retryable(Exception):
    """A failure worth another attempt; ``delay`` overrides the back-off when not None."""

    def __init__(self, message: str, delay: float | None = None) -> None:
        super().__init__(message)
        self.delay = delay


# ---------------------------------------------------------------------------------------------
# Hashes and paths


def sha256_of(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def url_filename(url: str) -> str:
    """The name a source's file is stored under: the last segment of its URL, as written."""
    return url.rstrip("/").rsplit("/", 1)[-1]


def mirror_path(mirror: str | os.PathLike, url: str) -> Path:
    """Where ``url`` lives in a mirror: ``<mirror>/<host>/<url path>``.

    The port, query string and fragment are ignored: ``http://h:8000/a/b.tsv?x=1`` maps to
    ``<mirror>/h/a/b.tsv``. URLs without a host or a file name, or whose path has ``..``
    segments, are refused so that no URL can point outside the mirror.
    """
    parts = urlsplit(url)
    if not parts.hostname:
        raise SourceError(f"cannot mirror {url}: the URL has no host")
    segments = [s for s in unquote(parts.path).split("/") if s not in ("", ".")]
    if not segments or parts.path.endswith("/"):
        raise SourceError(f"cannot mirror {url}: the URL names no file")
    if ".." in segments or any("\\" in s or "\0" in s for s in segments):
        raise SourceError(f"cannot mirror {url}: the URL path would leave the mirror")
    return Path(mirror, parts.hostname, *segments)


def _part_path(dest: Path) -> Path:
    return dest.with_name(dest.name + ".part")


# ---------------------------------------------------------------------------------------------
# fetch


def fetch(
    url: str,
    dest: str | os.PathLike,
    sha256: str | None = None,
    *,
    mirror: str | os.PathLike | None = None,
    lockfile: str | os.PathLike | None = None,
    timeout: float = 60.0,
    retries: int = 5,
    backoff: float = 2.0,
    user_agent: str = DEFAULT_USER_AGENT,
    log: Log | None = None,
    pinned_by: str | None = None,
) -> str:
    """Put the file at ``url`` at ``dest`` and return its sha256.

    If ``dest`` already has the pinned sha256 nothing is fetched; any other existing ``dest``
    is fetched again (an unpinned one too, as it cannot be verified) and replaced only once
    the new copy is verified. With ``mirror`` the file is copied from
    ``mirror_path(mirror, url)`` and the network is never used; ``file://`` URLs are always
    read from their local path. ``retries`` counts attempts after the first one. An attempt
    fails when no byte arrives for ``timeout`` seconds, or no ``CHUNK_SIZE`` bytes do (a
    trickling body): 16 KiB a minute at the default 60 s. ``pinned_by`` names where the sha256
    comes from (a config key, a manifest) in a mismatch's message.

    A ``<dest>.part`` left by an earlier run is resumed for a pinned source (and downloaded
    again from zero once if the result fails the pin) and deleted for an unpinned one. For an
    unpinned source ``lockfile`` is read before ``dest`` is replaced, so a malformed lockfile
    (``LockfileError``) leaves ``dest`` as it was. A failed write (disk full) raises a
    ``SourceError`` naming ``url`` and ``dest`` and leaves no ``.part``.
    """
    dest = Path(dest)
    warn = log or logger.warning
    expected = sha256.strip().lower() if sha256 else None
    if expected and dest.is_file() and sha256_of(dest) == expected:
        logger.info("%s already present with sha256 %s", dest, expected)
        return expected
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = _part_path(dest)
    local = _local_source(url, mirror)
    if expected is None:
        _check_lockfile(lockfile)  # before a download that a malformed lockfile would waste
    if local is not None:
        _copy_local(url, local, part)
        digest = sha256_of(part)
    else:
        digest = _download(url, part, expected, timeout=timeout, retries=retries, backoff=backoff,
                           user_agent=user_agent, warn=warn)
    _verify_and_commit(url, part, dest, expected, digest, lockfile, read_from=local, pinned_by=pinned_by)
    if expected is None:
        _report_unpinned(url, dest, digest, lockfile, warn)
    return digest


def fetch_configured(
    source: dict, dest: str | os.PathLike, *, mirror, lockfile, download: dict, log: Log | None = None,
    pinned_by: str | None = None,
) -> str:
    """``fetch`` with a config entry (``url``, ``sha256``) and the config's ``download`` settings."""
    return fetch(source["url"], dest, source.get("sha256"), mirror=mirror, lockfile=lockfile,
                 timeout=download["timeout"], retries=download["retries"], backoff=download["backoff"], log=log,
                 pinned_by=pinned_by)


def _local_source(url: str, mirror: str | os.PathLike | None) -> Path | None:
    """The local file to copy for ``url``, or None when it has to be downloaded."""
    parts = urlsplit(url)
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise SourceError(f"cannot read {url}: file URLs on host {parts.netloc!r} are not supported")
        return Path(url2pathname(parts.path))
    if mirror is not None:
        return mirror_path(mirror, url)
    return None


def _copy_local(url: str, source: Path, part: Path) -> None:
    """Copy ``source`` to ``part``; a failed copy (disk full) leaves no ``part``."""
    if not source.is_file():
        raise SourceError(f"cannot fetch {url}: no file at {source}")
    try:
        shutil.copyfile(source, part)
    except OSError as error:
        raise _write_failed(url, part, error) from error


def _write_failed(url: str, part: Path, error: OSError) -> SourceError:
    """Remove the ``part`` that could not be written (disk full) and name the URL and destination."""
    part.unlink(missing_ok=True)
    dest = part.with_name(part.name.removesuffix(".part"))
    return SourceError(f"cannot fetch {url} into {dest}: {error}; the partial file {part.name} was removed")


def _session(user_agent: str) -> requests.Session:
    session = requests.Session()
    # Asks for the file as stored. A server may still send a Content-Encoding (a .gz stored with
    # Content-Encoding: gzip); _stream_body keeps such bytes as sent, so that the sha256,
    # Content-Length and Range offsets all refer to the same (encoded) bytes.
    session.headers.update({"User-Agent": user_agent, "Accept-Encoding": "identity"})
    return session


def _verify_and_commit(url: str, part: Path, dest: Path, expected: str | None, digest: str,
                       lockfile: str | os.PathLike | None, *, read_from: Path | None, pinned_by: str | None) -> None:
    """Rename ``part`` (of sha256 ``digest``) onto ``dest`` if it has the pinned sha256.

    For an unpinned source the lockfile is read first: a malformed one fails here, with
    ``dest`` untouched, rather than after ``dest`` was replaced. ``part`` is removed on failure.
    """
    if expected is not None and digest != expected:
        part.unlink(missing_ok=True)
        raise ChecksumError(url, dest, expected, digest, read_from=read_from, pinned_by=pinned_by)
    if expected is None:
        try:
            _check_lockfile(lockfile)
        except LockfileError:
            part.unlink(missing_ok=True)
            raise
    os.replace(part, dest)


def _download(url: str, part: Path, expected: str | None, *, timeout: float, retries: int, backoff: float,
              user_agent: str, warn: Log) -> str:
    """Download ``url`` into ``part`` and return its sha256.

    An unpinned source's leftover ``part`` is deleted first: a file changed upstream since the
    earlier run would be spliced, and nothing could tell. A pinned source's leftover is resumed;
    if the result fails the pin, the file is downloaded once more from zero.
    """
    if expected is None:
        part.unlink(missing_ok=True)
    leftover = part.is_file()
    with _session(user_agent) as session:
        _download_with_retries(session, url, part, timeout, retries, backoff, warn)
        digest = sha256_of(part)
        if leftover and digest != expected:
            warn(f"{url}: the download resumed from {part} (left by an earlier run) has sha256 {digest}, "
                 f"not the pinned {expected}; the file may have changed since: downloading it again from zero")
            part.unlink(missing_ok=True)
            _download_with_retries(session, url, part, timeout, retries, backoff, warn)
            digest = sha256_of(part)
    return digest


def _download_with_retries(
    session: requests.Session, url: str, part: Path, timeout: float, retries: int, backoff: float, warn: Log
) -> None:
    """Download into ``part`` (resuming it) with up to ``retries`` more attempts after a transient failure.

    The attempts share one ``_Version``: a resumed request asks with ``If-Range`` for the
    version of the file the earlier attempts received.
    """
    last_error: Retryable | None = None
    version = _Version()
    for attempt in range(retries + 1):
        try:
            _download_once(session, url, part, timeout, version)
            return
        except Retryable as error:
            last_error = error
        if attempt < retries:
            delay = last_error.delay if last_error.delay is not None else backoff_delay(backoff, attempt)
            warn(f"{url}: {last_error}; retry {attempt + 1} of {retries} in {delay:g} s")
            _sleep(delay)
    raise SourceError(f"cannot fetch {url} after {retries + 1} attempts: {last_error}")


def backoff_delay(backoff: float, attempt: int) -> float:
    return min(backoff * 2**attempt, MAX_BACKOFF)


class _Version:
    """The validator (strong ETag, else Last-Modified) of the file version one fetch is downloading."""

    def __init__(self) -> None:
        self.validator: str | None = None


def _validator(response: requests.Response) -> str | None:
    """What ``If-Range`` may carry for ``response``: a strong ETag, else Last-Modified (weak ETags may not)."""
    etag = response.headers.get("ETag", "").strip()
    if etag and not etag.startswith("W/"):
        return etag
    return response.headers.get("Last-Modified", "").strip() or None


def _download_once(session: requests.Session, url: str, part: Path, timeout: float, version: _Version) -> None:
    """One request, appending to or restarting ``part``; raises Retryable on transient failures.

    A resumed request sends ``If-Range`` with ``version``'s validator when there is one: a server
    whose file changed answers 200 with the whole new file, which then replaces ``part``.
    """
    offset = part.stat().st_size if part.is_file() else 0
    headers = {"Range": f"bytes={offset}-"} if offset else {}
    if offset and version.validator is not None:
        headers["If-Range"] = version.validator
    try:
        with session.get(url, headers=headers, stream=True, timeout=http_timeouts(timeout)) as response:
            mode = _write_mode(url, part, offset, response, version)
            _stream_body(url, part, mode, response, timeout)
    except (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError) as error:
        raise Retryable(f"{type(error).__name__}: {error}") from error
    except requests.RequestException as error:
        raise SourceError(f"cannot fetch {url}: {error}") from error


def http_timeouts(timeout: float) -> tuple[float, float]:
    return (min(timeout, MAX_CONNECT_TIMEOUT), timeout)


def _write_mode(url: str, part: Path, offset: int, response: requests.Response, version: _Version) -> str:
    """'ab' to append to the partial file, 'wb' to start over; raises for error statuses.

    Records the validator of the version being downloaded in ``version``: a 200's replaces it,
    a 206's is taken when none is known (a leftover resumed), and a 206 whose validator differs
    (a server that honours Range but ignores If-Range) is another version: restarted from zero.
    """
    status = response.status_code
    seen = _validator(response)
    if status == 206 and _range_start(response) == offset:
        if version.validator is not None and seen is not None and seen != version.validator:
            part.unlink(missing_ok=True)
            raise Retryable(f"HTTP 206 from another version of the file ({seen}, not {version.validator}); "
                            "restarting from zero", delay=0.0)
        version.validator = version.validator or seen
        return "ab"
    if status == 206 or status == 416:
        # The server cannot continue where we stopped: drop the partial file and ask again at once.
        part.unlink(missing_ok=True)
        raise Retryable(f"HTTP {status} for a resumed download; restarting from zero", delay=0.0)
    if status == 200:
        version.validator = seen
        return "wb"
    if status in (408, 429) or status >= 500:
        raise Retryable(f"HTTP {status} {response.reason}", delay=retry_after(response))
    raise SourceError(f"cannot fetch {url}: HTTP {status} {response.reason}")


def _range_start(response: requests.Response) -> int | None:
    """The first byte offset of a ``Content-Range: bytes START-END/TOTAL`` header."""
    value = response.headers.get("Content-Range", "")
    unit, _, spec = value.partition(" ")
    start = spec.partition("-")[0]
    return int(start) if unit.strip().lower() == "bytes" and start.isdigit() else None


def retry_after(response: requests.Response) -> float | None:
    """``Retry-After`` in seconds for 429/503, capped at ``MAX_RETRY_AFTER`` (a download tries again
    after the cap rather than wait an hour); the HTTP-date form falls back to back-off."""
    seconds = requested_retry_after(response)
    return None if seconds is None else min(seconds, MAX_RETRY_AFTER)


def requested_retry_after(response: requests.Response) -> float | None:
    """``Retry-After`` in seconds for 429/503 as the server asked, uncapped (``inf`` stays ``inf``); None
    for another status, no header, the HTTP-date form, a negative value or NaN. A client that must not
    retry sooner than asked (the Wikidata query service bans those) compares it with its own limit."""
    if response.status_code not in (429, 503):
        return None
    try:
        seconds = float(response.headers.get("Retry-After", ""))
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def _stream_body(url: str, part: Path, mode: str, response: requests.Response, timeout: float) -> None:
    """Write the body to ``part`` (``mode`` 'ab' or 'wb') byte for byte as sent, Content-Encoding included.

    The trickle guard is told of progress once per ``CHUNK_SIZE`` bytes, however small the
    pieces the server sends (chunked encoding). A failed write (disk full) removes ``part`` and
    raises ``SourceError``; network failures raise ``Retryable``.
    """
    expected = content_length(response, raw=True)
    received = unreported = 0
    try:
        with open(part, mode) as handle, _TrickleGuard(response, timeout) as guard:
            for chunk in _raw_chunks(response, guard):
                handle.write(chunk)
                received += len(chunk)
                unreported += len(chunk)
                if unreported >= CHUNK_SIZE:
                    guard.progress()
                    unreported = 0
            # The guard's shutdown can also look like a clean end of a body without Content-Length.
            if guard.tripped:
                raise Retryable(f"body slower than {CHUNK_SIZE} bytes in {timeout:g} s ({received} bytes received)")
    except OSError as error:  # _raw_chunks turns the network's into Retryable: this is the file's
        raise _write_failed(url, part, error) from error
    if expected is not None and received < expected:
        raise Retryable(f"body cut short: {received} of {expected} bytes")


def _raw_chunks(response: requests.Response, guard: _TrickleGuard) -> Iterator[bytes]:
    """The body's bytes as sent (no content decoding), up to ``CHUNK_SIZE`` at a time.

    urllib3's read errors (ProtocolError, IncompleteRead, ReadTimeoutError, ...) become
    Retryable, as requests' iter_content would have made them ConnectionError or
    ChunkedEncodingError; after the trickle guard's shutdown the body just ends.
    """
    try:
        yield from response.raw.stream(CHUNK_SIZE, decode_content=False)
    except (urllib3.exceptions.HTTPError, OSError) as error:
        if not guard.tripped:
            raise Retryable(f"{type(error).__name__}: {error}") from error


class _TrickleGuard:
    """Shuts a response down when no CHUNK_SIZE bytes arrived for ``timeout`` seconds.

    The socket timeout only catches silence: a server that sends a byte just under every
    ``timeout`` seconds would hold a download open for ever without this watchdog. The caller
    calls ``progress()`` once per ``CHUNK_SIZE`` bytes received, never per (possibly tiny) read.
    """

    def __init__(self, response: requests.Response, timeout: float) -> None:
        self.response, self.timeout = response, timeout
        self.tripped = False
        self._last = time.monotonic()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="lmprobes-trickle-guard", daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._done.set()
        self._thread.join()

    def progress(self) -> None:
        self._last = time.monotonic()

    def _watch(self) -> None:
        while not self._done.wait(self.timeout / 4):
            if time.monotonic() - self._last > self.timeout:
                self.tripped = True
                _interrupt(self.response)
                return


def _interrupt(response: requests.Response) -> None:
    """Wake a read blocked on ``response`` in another thread (urllib3 >= 2.3 has shutdown())."""
    stop = getattr(response.raw, "shutdown", None) or response.close
    # RuntimeError: the body ended (connection back in the pool) just as the guard fired.
    with contextlib.suppress(OSError, RuntimeError):
        stop()


def content_length(response: requests.Response, *, raw: bool = False) -> int | None:
    """The body's announced length in bytes, or None.

    Content-Length counts the bytes as sent: with ``raw`` (a body read without content
    decoding) it is returned whatever the Content-Encoding; without, only for an unencoded body
    (the decoded length of an encoded one is unknown).
    """
    value = response.headers.get("Content-Length", "")
    encoded = response.headers.get("Content-Encoding", "identity").lower() != "identity"
    return int(value) if value.isdigit() and (raw or not encoded) else None


# ---------------------------------------------------------------------------------------------
# Unpinned sources and the lockfile


def _check_lockfile(lockfile: str | os.PathLike | None) -> None:
    """Raise ``LockfileError`` for a malformed lockfile (``read_lockfile``); None or absent is fine."""
    if lockfile is not None:
        read_lockfile(lockfile)


def _report_unpinned(url: str, dest: Path, digest: str, lockfile: str | os.PathLike | None, warn: Log) -> None:
    """Record an unpinned download in ``lockfile`` and warn that it is unpinned.

    Upstream updates of an unpinned source are legitimate, so a row recording other bytes is
    replaced, but with a warning naming the URL and the old and new sha256 and sizes.
    """
    size = dest.stat().st_size
    if lockfile is not None:
        previous = _record_in_lockfile(Path(lockfile), url, digest, size)
        where = f"recorded in {lockfile}"
        if previous is not None and previous != (digest, str(size)):
            warn(f"unpinned source {url} changed since {lockfile} recorded it: sha256 {previous[0]} "
                 f"({previous[1]} bytes) then, sha256 {digest} ({size} bytes) now; its row now records the new "
                 "bytes (pin a sha256 in config.yaml to refuse such changes)")
    else:
        where = "not recorded (no lockfile given)"
    warn(
        f"source {url} is unpinned: got sha256 {digest} ({size} bytes), {where}; "
        f"add `sha256: {digest}` to this source in config.yaml to pin it"
    )


def _record_in_lockfile(lockfile: Path, url: str, digest: str, size: int) -> tuple[str, str] | None:
    """Add or replace the row of ``url`` and return the row it replaced (``(sha256, bytes)``), if any;
    parallel jobs serialise on ``<lockfile>.lck``."""
    lockfile.parent.mkdir(parents=True, exist_ok=True)
    with open(lockfile.with_name(lockfile.name + ".lck"), "a") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        try:
            rows = read_lockfile(lockfile)
            previous = rows.get(url)
            rows[url] = (digest, str(size))
            write_text(_render_lockfile(rows), lockfile)
        finally:
            fcntl.flock(guard, fcntl.LOCK_UN)
    return previous


def locked_provenance(provenance, lockfile: str | os.PathLike = LOCKFILE):
    """``provenance`` (config source entries, nested in any dicts and lists) with the sha256 of each
    unpinned source filled in from the lockfile, where its download recorded it."""
    if isinstance(provenance, list):
        return [locked_provenance(item, lockfile) for item in provenance]
    if not isinstance(provenance, dict):
        return provenance
    entry = {key: locked_provenance(value, lockfile) for key, value in provenance.items()}
    if isinstance(entry.get("url"), str) and not entry.get("sha256"):
        recorded = read_lockfile(lockfile).get(entry["url"])
        if recorded is not None:
            entry["sha256"], entry["sha256_from"] = recorded[0], "lockfile"
    return entry


def check_sources_unchanged(paths: Iterable[str | os.PathLike], provenance) -> None:
    """Refuse a downloaded source among ``paths`` (files under resources/sources) whose bytes no longer
    have the sha256 that ``provenance`` (``locked_provenance``) gives for its URL: edited after the
    download, it would be read into a dataset whose metadata records the pinned hash."""
    pins: dict[str, set[str]] = {}
    for entry in _source_entries(provenance):
        if isinstance(entry.get("url"), str) and entry.get("sha256"):
            pins.setdefault(url_filename(entry["url"]), set()).add(entry["sha256"].lower())
    for path in map(Path, paths):
        expected = pins.get(path.name)
        if not expected or path.parts[:2] != SOURCES_ROOT.parts or not path.is_file():
            continue
        digest = sha256_of(path)
        if digest not in expected:
            raise SourceChangedError(f"{path}: sha256 {digest}, not the {' or '.join(sorted(expected))} it was "
                                     "downloaded with; it changed since. Delete it so that Snakemake fetches it "
                                     "again (to use other bytes on purpose, serve them from a mirror or a file:// "
                                     "URL and pin their sha256 where the source is pinned)")


def extract_verified(archive: str | os.PathLike, target: str | os.PathLike, source: dict) -> list[Path]:
    """``safe_extract`` of a configured source's archive, refused if the archive changed since its download."""
    check_sources_unchanged([archive], locked_provenance(source))
    return safe_extract(archive, target)


def _source_entries(provenance) -> Iterator[dict]:
    if isinstance(provenance, list):
        for item in provenance:
            yield from _source_entries(item)
    elif isinstance(provenance, dict):
        yield provenance
        for value in provenance.values():
            yield from _source_entries(value)


def read_lockfile(lockfile: str | os.PathLike) -> dict[str, tuple[str, str]]:
    """``{url: (sha256, bytes)}`` recorded for unpinned sources; an absent lockfile records nothing.
    A malformed line is an error naming it (rewriting the file would otherwise drop it)."""
    lockfile = Path(lockfile)
    if not lockfile.is_file():
        return {}
    rows = {}
    for lineno, line in enumerate(lockfile.read_text(encoding="utf-8").splitlines(), start=1):
        fields = tuple(line.split("\t"))
        if fields == LOCKFILE_HEADER or not line.strip():
            continue
        if len(fields) != len(LOCKFILE_HEADER):
            raise LockfileError(f"{lockfile}:{lineno}: expected {len(LOCKFILE_HEADER)} tab-separated fields "
                                f"({', '.join(LOCKFILE_HEADER)}), got {len(fields)}")
        url, digest, size = fields
        if not SHA256_HEX.fullmatch(digest) or not BYTE_COUNT.fullmatch(size):
            raise LockfileError(f"{lockfile}:{lineno}: {url}: expected a 64-hex sha256 and a byte count, "
                                f"got {digest!r} and {size!r}")
        if url in rows:
            raise LockfileError(f"{lockfile}:{lineno}: {url} is recorded twice")
        rows[url] = (digest, size)
    return rows


def _render_lockfile(rows: dict[str, tuple[str, str]]) -> str:
    lines = ["\t".join(LOCKFILE_HEADER)]
    lines += ["\t".join((url, *rows[url])) for url in sorted(rows)]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# safe_extract


def safe_extract(
    archive: str | os.PathLike,
    target: str | os.PathLike,
    *,
    members: list[str] | None = None,
    max_total_bytes: int = MAX_TOTAL_BYTES,
    max_members: int = MAX_MEMBERS,
    max_ratio: float = MAX_RATIO,
) -> list[Path]:
    """Unpack a zip or tar archive (plain, gz, bz2, xz) into ``target``; return its files, sorted.

    Every member is checked before anything is written. The archive is unpacked into a
    hidden sibling of ``target`` that then replaces ``target``; on error nothing is left.
    A name given twice is refused (``UnsafeArchiveError``) where either is a link or the two
    are of different kinds (a file twice is allowed: the later one wins); a member inside a
    name that is a file (file ``a`` and member ``a/b``) raises ``BadArchiveError``. Tar
    archives need tarfile's ``data`` filter (Python >= 3.11.4); without it they are refused.
    ``members`` restricts extraction to these names (a directory name selects its contents).
    The size limits apply to the whole archive, selected members or not: a zip member may
    expand ``max_ratio`` times its stored size, a tar archive as a whole (its members are not
    compressed one by one) ``max_ratio`` times the archive's size.
    """
    archive, target = Path(archive), Path(target)
    extract = _extract_zip if _archive_kind(archive) == "zip" else _extract_tar
    budget = _Budget(archive, max_total_bytes, max_members, max_ratio)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        with _format_errors_name(archive):
            extract(archive, staging, members, budget)
        relative = _files_under(staging)
        _replace_directory(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return [target / path for path in relative]


def _archive_kind(archive: Path) -> str:
    """``zip`` or ``tar``; a damaged archive or a file of another kind raises BadArchiveError."""
    if not archive.is_file():
        raise BadArchiveError(archive, "no such file")
    with _format_errors_name(archive):
        if zipfile.is_zipfile(archive):
            return "zip"
        if tarfile.is_tarfile(archive):
            return "tar"
    with open(archive, "rb") as handle:
        head = handle.read(512)
    looks_like = next((kind for magic, kind in ARCHIVE_MAGIC.items() if head.startswith(magic)), None)
    if looks_like or head[257:262] == b"ustar":
        raise BadArchiveError(archive, f"corrupt or truncated {looks_like or 'tar'} archive")
    raise BadArchiveError(archive, "not a zip or tar archive")


@contextlib.contextmanager
def _format_errors_name(archive: Path) -> Iterator[None]:
    """Turn the errors that damaged archive data raises (deep in zipfile, tarfile and the
    decompressors) into a BadArchiveError naming the archive; system errors pass through."""
    try:
        yield
    except SourceError:
        raise
    except (zipfile.BadZipFile, tarfile.TarError, zlib.error, lzma.LZMAError, EOFError) as error:
        raise BadArchiveError(archive, f"corrupt or truncated archive ({type(error).__name__}: {error})") from error
    except (NotImplementedError, RuntimeError) as error:
        # zipfile: unsupported compression method, or an encrypted member.
        raise BadArchiveError(archive, f"unsupported archive ({error})") from error
    except OSError as error:
        if error.errno is not None:  # disk full, permissions: not the archive's fault
            raise
        # bz2 and gzip report damaged streams as OSError without an errno.
        raise BadArchiveError(archive, f"corrupt or truncated archive ({type(error).__name__}: {error})") from error


class _Budget:
    """Running totals of an archive's members, refused as soon as they pass the limits."""

    def __init__(self, archive: Path, max_total_bytes: int, max_members: int, max_ratio: float) -> None:
        self.archive = archive
        self.max_total_bytes = max_total_bytes
        self.max_members = max_members
        self.max_ratio = max_ratio
        self.archive_bytes = max(archive.stat().st_size, 1)
        self.total = self.members = 0

    def add(self, name: str, size: int, stored: int | None) -> None:
        """Count a member of ``size`` bytes unpacked; ``stored`` is its compressed size (None in a tar)."""
        self.members += 1
        self.total += size
        if self.members > self.max_members:
            self._refuse(name, f"more than max_members={self.max_members} members")
        if self.total > self.max_total_bytes:
            self._refuse(name, f"unpacks to more than max_total_bytes={self.max_total_bytes} bytes")
        if stored is not None and size >= RATIO_MIN_BYTES and size > self.max_ratio * max(stored, 1):
            ratio = size / max(stored, 1)
            self._refuse(name, f"expands {ratio:.0f} times its stored size (max_ratio={self.max_ratio:g})")
        if stored is None and self.total >= RATIO_MIN_BYTES and self.total > self.max_ratio * self.archive_bytes:
            ratio = self.total / self.archive_bytes
            self._refuse(name, f"the archive expands {ratio:.0f} times its size (max_ratio={self.max_ratio:g})")

    def _refuse(self, name: str, reason: str) -> None:
        raise ArchiveLimitError(self.archive, name, f"decompression bomb: {reason}; nothing was extracted")


def _extract_zip(archive: Path, staging: Path, members: list[str] | None, budget: _Budget) -> None:
    with zipfile.ZipFile(archive) as bundle:
        for info in bundle.infolist():
            budget.add(info.filename, info.file_size, info.compress_size)
        infos = _select(archive, bundle.infolist(), lambda info: info.filename, members)
        for info in infos:
            _check_zip_type(archive, info)
        kinds = [(info.filename, _zip_kind(info)) for info in infos]
        _check_repeated_names(archive, kinds)
        links = {_key(info.filename): _zip_link_target(bundle, info) for info in infos if _is_zip_symlink(info)}
        for info in infos:
            _check_member(archive, info.filename, links)
        for info in infos:
            if _is_zip_symlink(info):
                name = _key(info.filename)
                _check_link(archive, info.filename, posixpath.join(posixpath.dirname(name), links[name]), links)
        # zipfile writes symlink members as regular files holding the link target: as folders they are files.
        _check_folders(archive, kinds, {})
        for info in infos:
            bundle.extract(info, staging)


def _check_zip_type(archive: Path, info: zipfile.ZipInfo) -> None:
    mode = info.external_attr >> 16
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        raise UnsafeArchiveError(archive, info.filename, "device files and FIFOs are not allowed")
    if _is_zip_symlink(info) and info.file_size > MAX_LINK_BYTES:
        raise UnsafeArchiveError(archive, info.filename, f"symlink target of {info.file_size} bytes")


def _is_zip_symlink(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def _zip_kind(info: zipfile.ZipInfo) -> str:
    return "symlink" if _is_zip_symlink(info) else "folder" if info.is_dir() else "file"


def _zip_link_target(bundle: zipfile.ZipFile, info: zipfile.ZipInfo) -> str:
    return bundle.read(info).decode("utf-8", errors="replace")


def _extract_tar(archive: Path, staging: Path, members: list[str] | None, budget: _Budget) -> None:
    tar_filter = _tar_filter(archive)
    with tarfile.open(archive) as bundle:
        listed = []
        # Listed one header at a time, so that a bomb is refused before the rest is decompressed.
        for info in bundle:
            budget.add(info.name, info.size if info.isreg() else 0, None)
            listed.append(info)
        infos = _select(archive, listed, lambda info: info.name, members)
        kinds = [(info.name, _tar_kind(info)) for info in infos]
        _check_repeated_names(archive, kinds)
        links = {_key(info.name): info.linkname for info in infos if info.issym()}
        for info in infos:
            _check_tar_member(archive, info, links)
        _check_folders(archive, kinds, links)
        try:
            bundle.extractall(staging, members=infos, **tar_filter)
        except tarfile.FilterError as error:
            raise UnsafeArchiveError(archive, error.tarinfo.name, str(error)) from error
        _read_to_the_end(bundle)


def _read_to_the_end(bundle: tarfile.TarFile) -> None:
    """Read what follows the last member, so that gzip checks its trailing CRC-32 and length.

    tarfile stops at the end-of-archive blocks, before the gzip trailer: without this, damaged
    data inside a .tar.gz would be unpacked without complaint.
    """
    while bundle.fileobj.read(CHUNK_SIZE):
        pass


def _tar_filter(archive: Path) -> dict:
    """extractall's keyword for tarfile's ``data`` filter; without it (Python < 3.11.4) a tar is refused.

    The filter re-checks every path and link as it is written and drops modes that make files
    executable or set-id; the checks of this module alone are not trusted to be complete.
    """
    if not hasattr(tarfile, "data_filter"):
        raise SourceError(f"cannot unpack {archive}: this Python ({platform.python_version()}) lacks tarfile's "
                          "'data' extraction filter (Python >= 3.11.4 has it); tar archives are not unpacked "
                          "without it")
    return {"filter": "data"}


def _tar_kind(info: tarfile.TarInfo) -> str:
    if info.issym():
        return "symlink"
    if info.islnk():
        return "hard link"
    return "folder" if info.isdir() else "file" if info.isfile() else "special file"


_LINK_KINDS = ("symlink", "hard link")


def _check_repeated_names(archive: Path, kinds: list[tuple[str, str]]) -> None:
    """Refuse a name given twice where either is a link or the two are of different kinds.

    The link checks resolve every path against one definition of each name, while extraction
    applies them in turn: ``b -> .`` redefined later as ``b -> c/d`` could be checked against one
    and written through the other. A file and a folder of one name cannot both be unpacked.
    A regular file or a folder given twice is allowed (the later file wins, as with tar and unzip).
    """
    seen: dict[str, str] = {}
    for name, kind in kinds:
        key = _key(name)
        first = seen.get(key)
        if first is not None and (first != kind or kind in _LINK_KINDS):
            raise UnsafeArchiveError(archive, name, f"the name is given twice ({first}, then {kind}); "
                                     "a later member would replace an earlier one")
        seen.setdefault(key, kind)


def _check_folders(archive: Path, kinds: list[tuple[str, str]], links: dict[str, str]) -> None:
    """Refuse a member inside a name that the archive holds as a file (``a`` and ``a/b``, either order).

    The member's folder is followed through ``links``, the symlinks unpacked as such, so
    ``l -> f`` with a file ``f`` and a member ``l/x`` is refused too; a symlink not in ``links``
    is a file.
    """
    files = {_key(name) for name, kind in kinds if kind != "folder" and _key(name) not in links}
    for name, _ in kinds:
        folder = _resolve_in_archive(posixpath.dirname(_key(name)), links) or []
        for depth in range(1, len(folder) + 1):
            prefix = "/".join(folder[:depth])
            if prefix in files:
                raise BadArchiveError(archive, f"member '{name}' needs '{prefix}' to be a folder, but the archive "
                                               f"has a file '{prefix}'")


def _check_tar_member(archive: Path, info: tarfile.TarInfo, links: dict[str, str]) -> None:
    _check_member(archive, info.name, links)
    if info.isdev():
        raise UnsafeArchiveError(archive, info.name, "device files and FIFOs are not allowed")
    if info.issym():
        if posixpath.isabs(info.linkname):
            raise UnsafeArchiveError(archive, info.name, f"symlink to absolute path {info.linkname!r}")
        _check_link(archive, info.name, posixpath.join(posixpath.dirname(_clean(info.name)), info.linkname), links)
    elif info.islnk():
        # Hard link targets are archive member names, relative to the archive root.
        _check_link(archive, info.name, info.linkname, links)
    elif not (info.isfile() or info.isdir()):
        raise UnsafeArchiveError(archive, info.name, "unsupported member type")


def _select(archive: Path, infos: list, name_of: Callable, members: list[str] | None) -> list:
    if members is None:
        return infos
    wanted = {_clean(name) for name in members}
    chosen = [info for info in infos if _is_selected(_clean(name_of(info)), wanted)]
    found = {_clean(name_of(info)) for info in chosen}
    missing = sorted(name for name in wanted if not any(_is_selected(f, {name}) for f in found))
    if missing:
        raise SourceError(f"cannot unpack {archive}: no member named {', '.join(missing)}")
    return chosen


def _is_selected(name: str, wanted: Iterable[str]) -> bool:
    return any(name == w or name.startswith(w + "/") for w in wanted)


def _clean(name: str) -> str:
    return name.replace("\\", "/").rstrip("/")


def _key(name: str) -> str:
    """A member's path below the target as the OS sees it (``./a//b/`` is ``a/b``): how names are compared."""
    return "/".join(part for part in _clean(name).split("/") if part not in ("", "."))


def _check_member(archive: Path, name: str, links: dict[str, str]) -> None:
    """Refuse names that are absolute, climb with ``..`` or pass through an escaping symlink."""
    cleaned = _clean(name)
    if cleaned.startswith("/") or (len(cleaned) > 1 and cleaned[0].isalpha() and cleaned[1] == ":"):
        raise UnsafeArchiveError(archive, name, "absolute path")
    if ".." in cleaned.split("/"):
        raise UnsafeArchiveError(archive, name, "path with '..' component")
    # The member's own symlink (if it is one) is checked by _check_link; here only its parents.
    parent = posixpath.dirname(cleaned)
    if parent and _resolve_in_archive(parent, links) is None:
        raise UnsafeArchiveError(archive, name, "path goes through a symlink pointing outside the target")


def _check_link(archive: Path, name: str, link_path: str, links: dict[str, str]) -> None:
    if link_path.startswith("/") or _resolve_in_archive(link_path, links) is None:
        raise UnsafeArchiveError(archive, name, f"link target {link_path!r} is outside the target")


def _resolve_in_archive(path: str, links: dict[str, str], depth: int = 0) -> list[str] | None:
    """Resolve ``path`` against the archive's own symlinks; None if it leaves the archive root.

    A lexical normpath is not enough: ``a -> d/l/../..`` escapes when ``d/l`` is itself a
    symlink to ``..``, so symlinks are followed component by component like the OS does.
    """
    if depth > MAX_SYMLINK_DEPTH:
        return None
    resolved: list[str] = []
    for component in path.split("/"):
        if component in ("", "."):
            continue
        if component == "..":
            if not resolved:
                return None
            resolved.pop()
            continue
        resolved.append(component)
        link = links.get("/".join(resolved))
        if link is not None:
            if link.startswith("/"):
                return None
            base = resolved[:-1]
            followed = _resolve_in_archive("/".join([*base, link]), links, depth + 1)
            if followed is None:
                return None
            resolved = followed
    return resolved


def _files_under(root: Path) -> list[Path]:
    """Relative paths of everything under ``root`` but directories (symlinks included), sorted."""
    found = []
    for folder, folders, files in os.walk(root):
        links = [name for name in folders if Path(folder, name).is_symlink()]
        found += [Path(folder, name).relative_to(root) for name in [*files, *links]]
    return sorted(found)


def _replace_directory(staging: Path, target: Path) -> None:
    """Move ``staging`` onto ``target``; an existing ``target`` is set aside, then deleted."""
    if not target.exists() and not target.is_symlink():
        os.replace(staging, target)
        return
    aside = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    old = aside / target.name
    os.replace(target, old)
    try:
        os.replace(staging, target)
    except BaseException:
        os.replace(old, target)
        raise
    finally:
        shutil.rmtree(aside, ignore_errors=True)
