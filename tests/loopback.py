"""A scriptable HTTP server on 127.0.0.1 for tests of the project's network clients."""

from __future__ import annotations

import contextlib
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
