"""The engine down, hanging or failing half way: 503s, nothing half-written, recovery."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from indexer.minhash import SketchParams
from indexer.store import CandidateQuery, StoreUnavailable
from indexer.stores.elastic.client import EngineClient, Transport
from indexer.stores.elastic.store import ElasticStore
from service.api import create_app
from service.settings import Settings
from tests.api.postings import DATA_ENGINEER, DATA_ENGINEER_REPOST, STAFF_NURSE
from tests.api.support import dedup, error_of
from tests.integration.engine import Engine, open_store, point_factory_at_engine, transport
from tests.integration.proxy import proxy_to
from tests.integration.support import giving_way, record, upsert


def test_engine_down_gives_503_and_the_service_recovers_without_restart(
    engine: Engine, url: str, prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with proxy_to(url) as proxy:
        point_factory_at_engine(monkeypatch, engine, proxy.url)
        with TestClient(create_app(Settings(data_dir=tmp_path / "index"))) as client:
            assert dedup(client, DATA_ENGINEER)["status"] == "new"

            proxy.set("down")
            ready = client.get("/ready")
            write = client.post("/dedup", json=STAFF_NURSE)
            read = client.get("/postings/indeed-1001")

            assert ready.status_code == 503 and ready.headers["Retry-After"] == "5"
            for failed in (write, read):
                assert error_of(failed, 503)["code"] == "store_unavailable"
                assert failed.headers["Retry-After"] == "5"

            proxy.set("up")  # same app, same clients: no restart
            assert client.get("/ready").status_code == 200
            assert client.get("/postings/nhs-5501").status_code == 404  # nothing was written
            assert dedup(client, STAFF_NURSE)["status"] == "new"
            repost = dedup(client, DATA_ENGINEER_REPOST)
            assert repost["status"] == "duplicate" and repost["duplicate_of"] == "indeed-1001"


def test_engine_that_hangs_times_out_as_503(
    engine: Engine, url: str, prefix: str, params: SketchParams
) -> None:
    with proxy_to(url) as proxy:
        store = open_store(engine, prefix, params, url=proxy.url, timeout=1.0)
        try:
            proxy.set("stall")
            started = time.monotonic()
            with pytest.raises(StoreUnavailable):
                upsert(store, record("a"), [1])
            assert time.monotonic() - started < 8
            proxy.set("up")
            upsert(store, record("a"), [1])
            assert store.get_posting("a") is not None
        finally:
            store.close()


class _FailingBulk:
    """A transport that lets one document `/_bulk` fail: before sending ("lost") or after
    sending only its first operation ("partial"), as a connection dropped mid-way would.
    `EngineClient` retries a failure that came back at once, so the retry (the same body)
    fails too. A write's two bulks go at once; the other one goes through."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.engine = inner.engine
        self.timeout = inner.timeout
        self.failure: str | None = None
        self._failed: bytes | None = None
        self._lock = threading.Lock()

    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        ndjson: bool = False,
        timeout: float | None = None,
    ) -> Any:
        # Claims are taken and released by bulks too; only writes of documents fail here.
        data = path == "/_bulk" and b'"_id":"claim:' not in bytes(body)
        with self._lock:
            retried = data and self._failed == bytes(body)
            failure = self.failure if data and not retried else None
            if retried:
                self._failed = None
            elif failure is not None:
                self.failure, self._failed = None, bytes(body)
        if retried:
            raise StoreUnavailable("connection refused on the retry")
        if failure is not None:
            if failure == "partial":
                lines = bytes(body).split(b"\n")
                first = b"\n".join(lines[:2]) + b"\n"  # its first operation only
                self.inner.request(method, path, params, first, ndjson, timeout)
            raise StoreUnavailable("connection dropped during the bulk")
        return self.inner.request(method, path, params, body, ndjson, timeout)

    def close(self) -> None:
        self.inner.close()


def _store(
    engine: Engine, url: str, prefix: str, params: SketchParams, ttl: float
) -> tuple[ElasticStore, _FailingBulk]:
    failing = _FailingBulk(transport(engine, url))
    store = ElasticStore(EngineClient(failing), params, prefix, lease_ttl_s=ttl)
    return store, failing


@pytest.mark.parametrize("failure", ["lost", "partial"])
@pytest.mark.parametrize("writer", ["alive", "dead"])
def test_a_bulk_that_fails_half_way_is_completed_before_its_documents_are_written_again(
    engine: Engine, url: str, prefix: str, params: SketchParams, failure: str, writer: str
) -> None:
    """The journal in the writer's ticket: the failed decision is completed before anyone
    can claim what it wrote, so no writer ever decides on (or leaves) a half-written
    cluster. An instance still alive completes it itself (its heartbeat, when no request
    comes); a dead one's ticket expires and the next writer that needs the cluster buries
    it, replaying the journal. Unrelated writes are not held up meanwhile."""
    first, failing = _store(engine, url, prefix, params, ttl=1.0)
    second, _ = _store(engine, url, prefix, params, ttl=1.0)
    try:
        upsert(first, record("a", cluster="A"), [1])
        failing.failure = failure
        with pytest.raises(StoreUnavailable):
            upsert(first, record("b", cluster="A"), [1])
        if writer == "dead":
            first.close()  # heartbeat stopped, ticket and claims left as a crash leaves them

        started = time.monotonic()
        upsert(second, record("u", cluster="U"), [3])  # another cluster: no wait at all
        assert time.monotonic() - started < 1.0
        giving_way(lambda: upsert(second, record("c", cluster="A"), [2]))
        info = second.get_cluster("A")
        assert info is not None and [m.id for m in info.members] == ["a", "b", "c"]
        found = second.find_candidates(CandidateQuery([1, 2], "", None, None, None, 10))
        assert sorted(p.id for p in found) == ["a", "b", "c"]
        assert second.stats().postings == 4
    finally:
        first.close()
        second.close()


def test_the_same_instance_replays_its_own_journal_at_once(
    engine: Engine, url: str, prefix: str, params: SketchParams
) -> None:
    store, failing = _store(engine, url, prefix, params, ttl=60.0)
    try:
        failing.failure = "partial"
        with pytest.raises(StoreUnavailable):
            upsert(store, record("a", cluster="A"), [1])
        started = time.monotonic()
        upsert(store, record("b", cluster="A"), [1])  # no wait for the 60 s ticket to expire
        assert time.monotonic() - started < 5
        info = store.get_cluster("A")
        assert info is not None and [m.id for m in info.members] == ["a", "b"]
    finally:
        store.close()
