"""An HTTP proxy in front of the test engine that can stop one service instance mid-write.

It forwards every request as it is until armed; armed, it holds the next bulk of posting
documents (the `refresh=true` bulk a write cycle sends beside its cluster documents) without
forwarding it until the cluster documents' bulk went through, and then tells the test, which
kills the instance: the cluster documents of that write are in the engine, its postings are
not, and its journal is in its ticket. That is the worst moment for a crash, and a TCP proxy
cannot pick it (it cannot read requests).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


class CuttingProxy:
    """`url` forwards to `target`; `arm()` makes the next posting bulk hang (`held` is set)."""

    def __init__(self, target: str) -> None:
        self.held = threading.Event()
        self._armed = threading.Event()
        self._release = threading.Event()
        self._clusters_through = threading.Event()  # armed: a cluster bulk was forwarded
        self._client = httpx.Client(base_url=target, timeout=60)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                return

            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if proxy._hold(self.command, self.path, body):
                    proxy._release.wait()
                    self.close_connection = True
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
                request = proxy._client.build_request(
                    self.command, self.path, content=body, headers=headers
                )
                response = proxy._client.send(request, stream=True)
                try:
                    raw = b"".join(response.iter_raw())
                finally:
                    response.close()
                proxy._forwarded(self.command, self.path, body)
                self.send_response(response.status_code)
                for key, value in response.headers.items():
                    if key.lower() not in _HOP:
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(raw)

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _forward

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def arm(self) -> None:
        self._armed.set()

    def _hold(self, method: str, path: str, body: bytes) -> bool:
        posting_bulk = method == "POST" and path.startswith("/_bulk") and "refresh=true" in path
        if posting_bulk and self._armed.is_set() and not self.held.is_set():
            self._clusters_through.wait(timeout=60)  # sent at once: let that one land first
            self.held.set()
            return True
        return False

    def _forwarded(self, method: str, path: str, body: bytes) -> None:
        bulk = method == "POST" and path.startswith("/_bulk")
        if bulk and b'"kind":"cluster"' in body and self._armed.is_set():
            self._clusters_through.set()

    def close(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()
        self._client.close()


@contextmanager
def cutting_proxy(target: str) -> Iterator[CuttingProxy]:
    proxy = CuttingProxy(target)
    try:
        yield proxy
    finally:
        proxy.close()
