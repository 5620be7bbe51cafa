"""Near-duplicates sent at the same moment must still end up in one cluster.

Runs the app under a real uvicorn server (its thread pool, its lifespan) on a loopback port,
and fires each pair of near-duplicates from two threads released together by a barrier.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from service.api import create_app
from service.settings import Settings
from tests.api.postings import near_duplicate_pair
from tests.api.support import assert_one_cluster_per_pair, serve

PAIRS = 8


def test_concurrent_near_duplicates_end_up_in_one_cluster_per_pair(tmp_path: Path) -> None:
    items = [p for n in range(PAIRS) for p in near_duplicate_pair(n)]
    barrier = threading.Barrier(len(items))

    with serve(create_app(Settings(data_dir=tmp_path))) as base_url:

        def send(item: dict[str, Any]) -> dict[str, Any]:
            with httpx.Client(base_url=base_url, timeout=30) as http:
                barrier.wait(timeout=30)
                response = http.post("/dedup", json=item)
            assert response.status_code == 200, response.text
            result: dict[str, Any] = response.json()
            return result

        with ThreadPoolExecutor(max_workers=len(items)) as pool:
            results = {r["id"]: r for r in pool.map(send, items)}

        with httpx.Client(base_url=base_url) as http:
            listing = http.get("/clusters", params={"limit": 100}).json()

    assert_one_cluster_per_pair(results, listing, PAIRS)
