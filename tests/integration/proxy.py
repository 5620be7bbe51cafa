"""A loopback TCP proxy in front of the test engine, to take the engine "down" and back.

The engine itself keeps running (restarting it would take seconds and lose its data); the
proxy refuses or stalls connections instead, which is what a client sees of an engine that is
down or hanging. Only loopback addresses are involved, and every thread stops with the proxy.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Literal
from urllib.parse import urlsplit

Mode = Literal["up", "down", "stall"]


class Proxy:
    """Forwards 127.0.0.1:<port> to the engine while `mode` is "up"; "down" resets every
    connection (refused at once), "stall" accepts and never answers (a timeout)."""

    def __init__(self, target_url: str) -> None:
        parts = urlsplit(target_url)
        self._target = (parts.hostname or "127.0.0.1", parts.port or 9200)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self.mode: Mode = "up"
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def set(self, mode: Mode) -> None:
        """Switch mode; leaving "up" cuts the connections already open (keep-alive)."""
        self.mode = mode
        if mode != "up":
            self._cut()

    def _cut(self) -> None:
        with self._lock:
            sockets, self._open = self._open, set()
        for sock in sockets:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue  # wake up to notice close(): closing does not interrupt accept()
            except OSError:
                return
            client.settimeout(None)
            if self.mode == "down":
                client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                client.close()  # RST: "connection reset"
                continue
            with self._lock:
                self._open.add(client)
            if self.mode == "stall":
                continue  # held open, never answered, cut when the mode changes
            try:
                upstream = socket.create_connection(self._target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open.add(upstream)
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        with suppress(OSError):
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        for sock in (source, sink):
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self._stopped.set()
        self._listener.close()
        self._cut()
        self._thread.join(timeout=5)


@contextmanager
def proxy_to(target_url: str) -> Iterator[Proxy]:
    """A running proxy to `target_url`, closed on exit."""
    proxy = Proxy(target_url)
    try:
        yield proxy
    finally:
        proxy.close()
