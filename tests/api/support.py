"""Helpers for the API suite: checked requests, the error shape and a real uvicorn server."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI


def dedup(client: httpx.Client, posting: dict[str, Any], **params: Any) -> dict[str, Any]:
    """POST /dedup and return the verdict, failing the test on any non-200 answer."""
    response = client.post("/dedup", json=posting, params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def candidate_ids(decision: dict[str, Any]) -> list[str]:
    """The ids of a verdict's candidates, in its order."""
    return [c["id"] for c in decision["candidates"]]


def get_json(client: httpx.Client, url: str, **params: Any) -> dict[str, Any]:
    """GET a resource that must exist (200) and return its JSON body."""
    response = client.get(url, params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def error_of(response: httpx.Response, status: int) -> dict[str, Any]:
    """Assert the one JSON error shape with this status and return its `error` object."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}, body
    error: dict[str, Any] = body["error"]
    assert set(error) == {"code", "message", "details"}, error
    assert isinstance(error["code"], str) and error["code"]
    assert isinstance(error["message"], str) and error["message"]
    assert isinstance(error["details"], list)
    for detail in error["details"]:
        assert set(detail) <= {"field", "reason"} and "reason" in detail, detail
    return error


def fields_of(error: dict[str, Any]) -> list[str]:
    """The `field` of every detail of an error."""
    return [str(d.get("field")) for d in error["details"]]


@contextmanager
def serve(app: FastAPI) -> Iterator[str]:
    """Run `app` under a real uvicorn server on a free loopback port; yields its base URL.

    The socket is bound here (port 0), so there is no race for the port; the lifespan runs
    inside the server, and the server is stopped and joined on exit.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            assert thread.is_alive(), "uvicorn stopped during startup"
            assert time.monotonic() < deadline, "uvicorn did not start within 10 s"
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def assert_one_cluster_per_pair(
    results: dict[str, dict[str, Any]], listing: dict[str, Any], pairs: int
) -> None:
    """Each `near_duplicate_pair` ended in one cluster (one new, one duplicate of it), and
    the cluster listing holds exactly those clusters."""
    clusters = set()
    for n in range(pairs):
        a, b = results[f"site-a-{n}"], results[f"site-b-{n}"]
        assert a["cluster_id"] == b["cluster_id"], (a, b)
        assert sorted([a["status"], b["status"]]) == ["duplicate", "new"]
        first, second = (a, b) if a["status"] == "new" else (b, a)
        assert second["duplicate_of"] == first["id"]
        clusters.add(a["cluster_id"])
    assert len(clusters) == pairs
    assert sorted(c["id"] for c in listing["clusters"]) == sorted(clusters)
