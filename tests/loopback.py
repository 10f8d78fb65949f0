"""A scriptable HTTP server on 127.0.0.1 for tests of the project's network clients."""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def send(handler: BaseHTTPRequestHandler, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
    handler.send_response(code)
    for key, value in (headers or {}).items():
        handler.send_header(key, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@contextlib.contextmanager
def serve_http(respond: Callable[[BaseHTTPRequestHandler], None], *, keep_alive: bool = False) -> Iterator[str]:
    """Run ``respond(handler)`` for every GET and POST; yields the base URL (port chosen by the OS)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"

        def do_GET(self) -> None:
            respond(self)

        do_POST = do_GET

        def log_message(self, *args) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


# ---------------------------------------------------------------------------------------------
# Scripted routes and responders (for fault-injection tests of downloads)

Responder = Callable[[BaseHTTPRequestHandler], None]


class FakeServer:
    """Serves each path by a list of responders, used in turn; the last one repeats. Unknown paths get 404."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.routes: dict[str, list[Responder]] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        self._lock = threading.Lock()

    def url(self, path: str) -> str:
        return self.base + path

    def route(self, path: str, *responders: Responder) -> str:
        self.routes[path] = list(responders)
        return self.url(path)

    def hits(self, path: str) -> list[dict[str, str]]:
        return [headers for seen, headers in self.requests if seen == path]

    def respond(self, handler: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self.requests.append((handler.path, dict(handler.headers)))
            queue = self.routes.get(handler.path)
            responder = (queue.pop(0) if len(queue) > 1 else queue[0]) if queue else status(404)
        responder(handler)


@contextlib.contextmanager
def fake_server(*, keep_alive: bool = False) -> Iterator[FakeServer]:
    """A ``FakeServer`` on 127.0.0.1 for the duration of the block."""
    holder: dict[str, FakeServer] = {}
    with serve_http(lambda handler: holder["server"].respond(handler), keep_alive=keep_alive) as url:
        holder["server"] = FakeServer(url)
        yield holder["server"]


def serve(data: bytes, *, honour_range: bool = True) -> Responder:
    """``data`` with 200, or the 206 remainder for a ``Range: bytes=N-`` request (416 past the end)."""

    def responder(handler: BaseHTTPRequestHandler) -> None:
        match = re.fullmatch(r"bytes=(\d+)-", handler.headers.get("Range", ""))
        if honour_range and match:
            start = int(match.group(1))
            if start >= len(data):
                send(handler, 416, b"", {"Content-Range": f"bytes */{len(data)}"})
                return
            send(handler, 206, data[start:], {"Content-Range": f"bytes {start}-{len(data) - 1}/{len(data)}"})
        else:
            send(handler, 200, data)

    return responder


def status(code: int, headers: dict[str, str] | None = None) -> Responder:
    return lambda handler: send(handler, code, b"error\n", headers or {})


def announce(data: bytes, length: int, *, keep: int | None = None) -> Responder:
    """A 200 that claims ``Content-Length: length`` but sends ``data[:keep]``, then closes the connection."""

    def responder(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(length))
        handler.end_headers()
        handler.wfile.write(data[:keep])
        handler.wfile.flush()
        handler.close_connection = True

    return responder
