"""Three `jobdedup serve` processes on one engine index, one killed with -9 in the middle of a
write: nothing acknowledged is lost, no update is lost, and near-duplicates sent to the other
two at once still end in one cluster (no global lock: docs/concurrency.md)."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx

from indexer.stores.elastic.client import EngineClient
from indexer.stores.elastic.store import ElasticStore
from indexer.stores.elastic.transports import connect_opensearch
from service.settings import Settings
from tests.api.postings import near_duplicate_pair
from tests.api.support import assert_one_cluster_per_pair
from tests.integration.http_cut import cutting_proxy
from tests.processes import cli_env, start_serve

PAIRS = 10


@contextmanager
def _serve(tmp_path: Path, name: str, url: str, prefix: str) -> Iterator[tuple[Any, str]]:
    env = cli_env(
        tmp_path / name,
        JOBDEDUP_BACKEND="opensearch",
        JOBDEDUP_SEARCH_URL=url,
        JOBDEDUP_SEARCH_INDEX=prefix,
        JOBDEDUP_LOG_LEVEL="WARNING",
    )
    process, base = start_serve(env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield process, base
    finally:
        if process.poll() is None:
            process.terminate()
        process.wait(timeout=60)


def _post(base: str, posting: dict[str, Any]) -> dict[str, Any]:
    with httpx.Client(base_url=base, timeout=90) as http:
        response = http.post("/dedup", json=posting)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def _check_consistent(url: str, prefix: str) -> dict[str, str]:
    """Every posting is a member of the cluster it names, and every cluster's members name
    it: no update of a cluster or a posting was lost. Returns posting -> cluster."""
    client = EngineClient(connect_opensearch(url, 30.0))
    store = ElasticStore(client, Settings().sketch_params(), prefix, create=False)
    try:
        where = {a.id: a.cluster_id for a in store.iter_assignments()}
        members: dict[str, str] = {}
        for cluster_id in set(where.values()):
            info = store.get_cluster(cluster_id)
            assert info is not None, f"posting names cluster {cluster_id}, which is gone"
            assert info.id == cluster_id, f"postings name {cluster_id}, merged into {info.id}"
            ids = [member.id for member in info.members]
            assert len(ids) == len(set(ids)) == info.size, f"cluster {cluster_id}: {ids}"
            members.update(dict.fromkeys(ids, cluster_id))
        assert members == where
        return where
    finally:
        store.close()


def test_an_instance_killed_mid_write_loses_nothing_and_the_others_go_on(
    url: str, prefix: str, tmp_path: Path
) -> None:
    original, repost = near_duplicate_pair(900, seed=700)
    second_repost = {**repost, "id": "site-c-900", "title": repost["title"] + " - CDI"}
    with ExitStack() as stack:
        proxy = stack.enter_context(cutting_proxy(url))
        victim, victim_base = stack.enter_context(_serve(tmp_path, "a", proxy.url, prefix))
        _, b = stack.enter_context(_serve(tmp_path, "b", url, prefix))
        _, c = stack.enter_context(_serve(tmp_path, "c", url, prefix))
        assert _post(b, original)["status"] == "new"

        # The re-post's write stops after its cluster document and before its posting
        # (its journal is in the victim's ticket); then the victim is killed.
        proxy.arm()
        failed: list[BaseException] = []

        def send_to_victim() -> None:
            try:
                _post(victim_base, repost)
            except BaseException as exc:
                failed.append(exc)

        sender = threading.Thread(target=send_to_victim)
        sender.start()
        assert proxy.held.wait(timeout=60), "the victim never wrote"
        victim.kill()
        victim.wait(timeout=30)
        sender.join(timeout=60)
        assert failed, "the victim acknowledged a write it could not have finished"

        # Meanwhile, near-duplicate halves sent at once to the two live instances.
        items = [(n, p) for n in range(PAIRS) for p in near_duplicate_pair(n, seed=500)]
        barrier = threading.Barrier(len(items))

        def send(item: tuple[int, dict[str, Any]]) -> dict[str, Any]:
            n, posting = item
            base = b if (n + posting["id"].startswith("site-b")) % 2 else c
            barrier.wait(timeout=30)
            return _post(base, posting)

        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=len(items)) as pool:
            results = {r["id"]: r for r in pool.map(send, items)}
        unrelated_s = time.monotonic() - started

        # A write into the killed instance's cluster: given way to the dead writer's
        # claim until its ticket expired, then its journal was replayed first.
        joined = _post(c, second_repost)
        replayed = _check_consistent(url, prefix)
        # The crawler sends the unacknowledged re-post again, to a live instance: the
        # replay wrote it whole, so nothing changes.
        again = _post(b, repost)

        with httpx.Client(base_url=b) as http:
            listing = http.get("/clusters", params={"limit": 1000}).json()

    pair_results = {k: v for k, v in results.items() if k.startswith("site-")}
    pair_clusters = {"clusters": [x for x in listing["clusters"] if x["size"] == 2]}
    assert_one_cluster_per_pair(pair_results, pair_clusters, PAIRS)
    assert unrelated_s < 30, f"unrelated pairs took {unrelated_s:.1f} s"
    assert replayed[original["id"]] == replayed[repost["id"]] == replayed[second_repost["id"]]
    assert joined["cluster_id"] == replayed[original["id"]]
    assert again["status"] == "unchanged" and again["cluster_id"] == joined["cluster_id"]
    assert _check_consistent(url, prefix) == replayed
