"""Several service instances on one engine: read-after-write, isolated write cycles without
a global lock, near-duplicates sent to different instances at once."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from indexer.minhash import SketchParams
from indexer.store import CandidateQuery, ClusterFilter
from indexer.stores.elastic.store import ElasticStore
from service.api import create_app
from service.settings import Settings
from tests.api.postings import near_duplicate_pair
from tests.api.support import assert_one_cluster_per_pair, serve
from tests.integration.engine import Engine, open_store, point_factory_at_engine
from tests.integration.support import giving_way, record, upsert

PAIRS = 6


def test_a_write_on_one_instance_is_searchable_on_another_at_once(
    engine: Engine, url: str, prefix: str, params: SketchParams
) -> None:
    """No sleep, no refresh call: `apply` returns only once the write is searchable."""
    first = open_store(engine, prefix, params, url=url)
    second = open_store(engine, prefix, params, url=url)
    try:
        for n in range(5):
            upsert(first, record(f"p{n}", cluster="shared", seed=n), [7, 100 + n])
            found = second.find_candidates(CandidateQuery([7], "", None, None, None, 50))
            assert [p.id for p in found] == [f"p{i}" for i in range(n + 1)]
            listed = second.list_clusters(ClusterFilter(), None, 10).clusters
            assert [(c.id, c.size) for c in listed] == [("shared", n + 1)]
            assert second.stats().postings == n + 1
    finally:
        first.close()
        second.close()


def test_cycles_writing_one_posting_take_turns_across_instances(
    engine: Engine, url: str, prefix: str, params: SketchParams
) -> None:
    """Read-modify-write of one document from two instances at once loses no update: each
    cycle claims the posting before it reads it."""
    stores = [open_store(engine, prefix, params, url=url) for _ in range(2)]
    upsert(stores[0], record("counter", document={"n": 0}), [1])
    per_store = 8

    def bump_once(store: ElasticStore) -> None:
        with store.writer(["counter"]):
            current = store.get_posting("counter")
            assert current is not None
            value = current.document["n"] + 1
            upsert(store, record("counter", document={"n": value}, seed=value), [1])

    def bump(index: int) -> None:
        store = stores[index % 2]
        for _ in range(per_store):
            giving_way(lambda: bump_once(store))

    try:
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(bump, range(4)))
        final = stores[1].get_posting("counter")
        assert final is not None and final.document["n"] == 4 * per_store
    finally:
        for store in stores:
            store.close()


def test_near_duplicates_sent_to_two_instances_at_once_end_in_one_cluster(
    engine: Engine, url: str, prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two uvicorn servers (two stores, two leases) on one index; each pair's original goes
    to one instance and its re-post to the other, released together by a barrier."""
    point_factory_at_engine(monkeypatch, engine, url)
    shared = tmp_path / "one-index"
    items = [(n, p) for n in range(PAIRS) for p in near_duplicate_pair(n, seed=500)]
    barrier = threading.Barrier(len(items))

    with (
        serve(create_app(Settings(data_dir=shared))) as first,
        serve(create_app(Settings(data_dir=shared))) as second,
    ):

        def send(item: tuple[int, dict[str, Any]]) -> dict[str, Any]:
            n, posting = item
            base = first if (n + posting["id"].startswith("site-b")) % 2 else second
            with httpx.Client(base_url=base, timeout=60) as http:
                barrier.wait(timeout=30)
                response = http.post("/dedup", json=posting)
            assert response.status_code == 200, response.text
            result: dict[str, Any] = response.json()
            return result

        with ThreadPoolExecutor(max_workers=len(items)) as pool:
            results = {r["id"]: r for r in pool.map(send, items)}
        with httpx.Client(base_url=second) as http:
            listing = http.get("/clusters", params={"limit": 100}).json()

    assert_one_cluster_per_pair(results, listing, PAIRS)
    assert all(c["size"] == 2 for c in listing["clusters"])
