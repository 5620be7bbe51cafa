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
from tests.api.postings import generated_text
from tests.api.support import serve

PAIRS = 8


def _pair(n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """An ad and its re-post: same words, the re-post as HTML with entities and a retitle."""
    text = generated_text(seed=100 + n, words=120)
    original = {
        "id": f"site-a-{n}",
        "title": f"Role {n}",
        "company": f"Employer {n}",
        "posted_at": "2024-05-01T09:00:00Z",
        "description": text,
    }
    words = text.split()
    html = f"<p>{' '.join(words[:60])}</p><ul><li>{' '.join(words[60:])}</li></ul>&nbsp;"
    repost = {
        "id": f"site-b-{n}",
        "title": f"Role {n} (H/F)",
        "company": f"Employer {n} Ltd",
        "posted_at": "2024-05-01T09:00:00Z",
        "description": html,
    }
    return original, repost


def test_concurrent_near_duplicates_end_up_in_one_cluster_per_pair(tmp_path: Path) -> None:
    items = [p for n in range(PAIRS) for p in _pair(n)]
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

    clusters = set()
    for n in range(PAIRS):
        a, b = results[f"site-a-{n}"], results[f"site-b-{n}"]
        assert a["cluster_id"] == b["cluster_id"], (a, b)
        assert sorted([a["status"], b["status"]]) == ["duplicate", "new"]
        first, second = (a, b) if a["status"] == "new" else (b, a)
        assert second["duplicate_of"] == first["id"]
        clusters.add(a["cluster_id"])
    assert len(clusters) == PAIRS
    assert sorted(c["id"] for c in listing["clusters"]) == sorted(clusters)
    assert all(c["size"] == 2 for c in listing["clusters"])
