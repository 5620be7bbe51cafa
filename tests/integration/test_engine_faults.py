"""Engine states a service must ride out with 503s, never 500s or hangs: shards recovering
(an index closed and reopened, as after a restart), write blocks (the disk flood-stage
watermark, an operator's block), a node that stops answering, a writer instance that died
holding claims."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from indexer.minhash import SketchParams
from indexer.store import StoreContended, StoreUnavailable
from indexer.stores.elastic.bodies import index_names
from indexer.stores.elastic.claims import TTL_S, claim_id, posting_claim, ticket_id
from indexer.stores.elastic.client import Transport
from indexer.stores.elastic.transports import connect_opensearch
from service.api import create_app
from service.settings import Settings
from tests.api.postings import near_duplicate_pair
from tests.api.support import dedup, error_of, serve
from tests.integration.engine import (
    Engine,
    open_store,
    point_factory_at_engine,
    prefix_for,
)
from tests.integration.proxy import proxy_to
from tests.integration.support import record, upsert

TIMEOUT_S = 2.0  # JOBDEDUP_SEARCH_TIMEOUT of the apps below
MARGIN_S = 1.5  # what an answer may take beyond the timeout (thread hand-offs, a slow CI)
TAKEOVER_S = 8.0  # a dead instance's claims are taken over within this ("a few seconds")


@contextmanager
def admin(url: str) -> Iterator[Transport]:
    """A plain client for the test's own engine operations (close, open, blocks)."""
    raw = connect_opensearch(url, 30.0)
    try:
        yield raw
    finally:
        raw.close()


def postings_index(data_dir: Path) -> str:
    """The concrete postings index of the app opened on `data_dir`."""
    names = index_names(prefix_for(data_dir))
    return names.first_index(names.postings)


def wait_green(raw: Transport, index: str) -> None:
    raw.request("GET", f"/_cluster/health/{index}", {"wait_for_status": "green", "timeout": "30s"})


def posting(n: int) -> dict[str, Any]:
    return near_duplicate_pair(n, seed=900)[0]


def assert_503(response: httpx.Response) -> None:
    assert error_of(response, 503)["code"] == "store_unavailable"
    assert response.headers["Retry-After"] == "5"


def test_shards_recovering_answer_503_never_500_and_nothing_acknowledged_is_lost(
    engine: Engine, url: str, prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Closing and reopening the postings index puts its shard through recovery, as a node
    restart does: while closed and while recovering, reads and writes answer 503."""
    point_factory_at_engine(monkeypatch, engine, url)
    data_dir = tmp_path / "index"
    acknowledged: list[str] = []
    with (
        TestClient(create_app(Settings(data_dir=data_dir))) as client,
        admin(url) as raw,
    ):
        index = postings_index(data_dir)
        dedup(client, posting(0))
        acknowledged.append(posting(0)["id"])

        raw.request("POST", f"/{index}/_close")
        try:
            assert_503(client.post("/dedup", json=posting(1)))
            assert_503(client.get(f"/postings/{posting(0)['id']}"))
            ready = client.get("/ready")
            assert ready.status_code == 503 and ready.headers["Retry-After"] == "5"
        finally:
            raw.request("POST", f"/{index}/_open", {"wait_for_active_shards": "0"})

        statuses = []
        for n in range(2, 30):  # right after the reopen: the shard is recovering
            response = client.post("/dedup", json=posting(n))
            statuses.append(response.status_code)
            if response.status_code == 200:
                acknowledged.append(posting(n)["id"])
            else:
                assert_503(response)
        assert set(statuses) <= {200, 503}, statuses

        wait_green(raw, index)
        assert client.get("/ready").status_code == 200
        for pid in acknowledged:
            assert client.get(f"/postings/{pid}").status_code == 200, pid


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        ("index.blocks.write", "index write"),
        ("index.blocks.read_only_allow_delete", "read-only-allow-delete"),
    ],
)
def test_an_engine_that_rejects_writes_is_not_ready(
    engine: Engine,
    url: str,
    prefix: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    block: str,
    reason: str,
) -> None:
    """The flood-stage watermark's block (a 429 per bulk item) and an operator's write
    block (a 403): /ready says 503 with the block, writes 503 at once, reads still work."""
    point_factory_at_engine(monkeypatch, engine, url)
    data_dir = tmp_path / "index"
    with (
        TestClient(create_app(Settings(data_dir=data_dir))) as client,
        admin(url) as raw,
    ):
        # Every index behind the postings alias (month indices too, when the engine tests
        # run on them: posting(0) and posting(1) share a month).
        index = index_names(prefix_for(data_dir)).postings
        dedup(client, posting(0))
        raw.request("PUT", f"/{index}/_settings", body={block: True})
        try:
            ready = client.get("/ready")
            assert ready.status_code == 503 and ready.headers["Retry-After"] == "5"
            assert reason in ready.json()["store"]
            started = time.monotonic()
            assert_503(client.post("/dedup", json=posting(1)))
            assert time.monotonic() - started < 1.0  # a block is not retried like a 429
            assert client.get(f"/postings/{posting(0)['id']}").status_code == 200
        finally:
            raw.request("PUT", f"/{index}/_settings", body={block: None})
        assert client.get("/ready").status_code == 200
        # The refused decision was journaled; the next writer completed it, or writes it now.
        assert dedup(client, posting(1))["status"] in ("new", "unchanged")
        assert client.get(f"/postings/{posting(1)['id']}").status_code == 200


def test_a_frozen_engine_answers_every_request_with_503_within_the_timeout(
    engine: Engine, url: str, prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine that accepts connections and never answers (a frozen node): requests
    queued behind the writer lock must not wait their turn and then a timeout of their own;
    each gets its 503 within the timeout."""
    concurrent = 8
    with proxy_to(url) as proxy:
        point_factory_at_engine(monkeypatch, engine, proxy.url)
        settings = Settings(data_dir=tmp_path / "index", search_timeout=TIMEOUT_S)
        with serve(create_app(settings)) as base, httpx.Client(base_url=base, timeout=60) as http:
            dedup(http, posting(0))
            proxy.set("stall")

            def timed(n: int) -> tuple[float, httpx.Response]:
                started = time.monotonic()
                ready = n < 0
                response = http.get("/ready") if ready else http.post("/dedup", json=posting(n))
                return time.monotonic() - started, response

            with ThreadPoolExecutor(max_workers=concurrent + 1) as pool:
                answers = list(pool.map(timed, [-1, *range(1, concurrent + 1)]))
            for took, response in answers:
                assert response.status_code == 503, response.text
                assert response.headers["Retry-After"] == "5"
                assert took < TIMEOUT_S + MARGIN_S, f"{took:.1f} s for {response.request.url}"

            proxy.set("up")
            for n in range(1, concurrent + 1):
                assert dedup(http, posting(n))["status"] == "new"
            assert http.get("/ready").status_code == 200


def test_a_dead_holders_claim_is_taken_over_within_seconds(
    engine: Engine, url: str, prefix: str, params: SketchParams
) -> None:
    """An instance killed while holding a claim leaves its ticket as it last renewed it and
    the claim (older than any new cycle): a write that needs the claim gives way until the
    ticket expires, then buries it and goes on, within that short TTL, not 30 s."""
    alive = open_store(engine, prefix, params, url=url)
    try:
        expires_us = int((time.time() + TTL_S) * 1e6)
        ticket = {"kind": "ticket", "owner": "killed", "expires_us": expires_us, "pending": []}
        ticket["state"] = "live"
        name = posting_claim("after-crash")
        claim = {"kind": "claim", "owner": "killed", "started_us": 1, "claim": name}
        with admin(url) as raw:
            raw.request("PUT", f"/{alive.names.clusters}/_doc/{ticket_id('killed')}", body=ticket)
            raw.request("PUT", f"/{alive.names.clusters}/_doc/{claim_id(name)}", body=claim)
        started = time.monotonic()
        gave_way = 0
        while True:
            try:
                upsert(alive, record("after-crash"), [1])
                break
            except StoreContended:
                gave_way += 1
                time.sleep(0.05)
        took = time.monotonic() - started
        assert TTL_S - 1 < took < TAKEOVER_S, f"took over after {took:.1f} s"
        assert gave_way > 0
        assert alive.get_posting("after-crash") is not None
    finally:
        alive.close()


def test_a_live_holder_keeps_its_claims_past_the_ttl(
    engine: Engine, url: str, prefix: str, params: SketchParams
) -> None:
    """The heartbeat renews the ticket of a cycle held longer than its TTL (a long batch):
    a younger cycle of another instance that needs the same posting gives way (a 503 if it
    is not retried), and gets through once the holder is done."""
    ttl = 1.5
    holder = open_store(engine, prefix, params, url=url, lease_ttl_s=ttl)
    other = open_store(engine, prefix, params, url=url, timeout=1.0, lease_ttl_s=ttl)
    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        with holder.writer(["while-held"]):
            held.set()
            done.wait(timeout=30)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert held.wait(timeout=10)
        time.sleep(3 * ttl)  # without renewals the ticket would have expired twice
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match="claimed by an older write"):
            upsert(other, record("while-held"), [1])
        assert time.monotonic() - started < 1.0 + MARGIN_S
        upsert(other, record("unrelated"), [1])  # other postings are not held up
        assert other.get_posting("unrelated") is not None
        done.set()
        thread.join(timeout=10)
        upsert(other, record("while-held"), [1])
        assert other.get_posting("while-held") is not None
    finally:
        done.set()
        thread.join(timeout=10)
        holder.close()
        other.close()


def test_the_connection_pool_holds_every_thread_of_the_server(
    engine: Engine,
    url: str,
    prefix: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """32 requests in flight on a uvicorn server: no engine connection is opened and thrown
    away per request ("Connection pool is full, discarding connection")."""
    point_factory_at_engine(monkeypatch, engine, url)
    in_flight = 32
    caplog.set_level(logging.WARNING, logger="urllib3")
    with serve(create_app(Settings(data_dir=tmp_path / "index"))) as base:

        def read(n: int) -> int:
            with httpx.Client(base_url=base, timeout=60) as http:
                return http.get(f"/postings/absent-{n}").status_code

        with ThreadPoolExecutor(max_workers=in_flight) as pool:
            assert set(pool.map(read, range(4 * in_flight))) == {404}
    assert not [r for r in caplog.records if "pool is full" in r.getMessage()]
