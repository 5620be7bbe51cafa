"""/ready means the service can work: the embedded index's file system takes writes, and
models and language data are loaded before the server accepts a connection."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from indexer.stores.sqlite.schema import to_micros
from service.api import create_app
from service.factory import build_deduplicator
from service.settings import Settings
from tests.api.postings import DATA_ENGINEER, DATA_ENGINEER_REPOST, STAFF_NURSE


@pytest.mark.sqlite_only
def test_ready_is_503_with_the_reason_when_the_disk_cannot_take_writes(data_dir: Path) -> None:
    # More free space asked for than any disk has: what a full disk looks like to the probe.
    settings = Settings(data_dir=data_dir, min_free_bytes=10**18)
    with TestClient(create_app(settings)) as client:
        ready = client.get("/ready")
        assert ready.status_code == 503
        assert ready.headers["Retry-After"]
        assert "MB free" in ready.json()["store"]
        assert client.get("/health").status_code == 200


def test_ready_is_200_when_the_service_can_work(client: TestClient) -> None:
    ready = client.get("/ready")
    assert ready.status_code == 200, ready.text
    assert ready.json()["store"] == "ok"


def test_warming_up_stores_nothing(client: TestClient) -> None:
    # The lifespan scored sample pairs through the real path before the first request.
    assert client.get("/clusters").json()["clusters"] == []
    assert client.post("/dedup", json=DATA_ENGINEER).json()["status"] == "new"


@pytest.mark.sqlite_only
def test_a_restarted_service_loads_the_current_window_of_the_key_index_before_ready(
    data_dir: Path,
) -> None:
    """Warm-up loads the embedded key index for the window around now: a posting of last
    week is held before the first request, one of three years ago (outside the 60-day
    window) is not, and a back-filled posting of that time still finds its re-post."""
    now = datetime.now(UTC)
    old = {**DATA_ENGINEER, "posted_at": (now - timedelta(days=3 * 365)).isoformat()}
    recent = {**STAFF_NURSE, "posted_at": (now - timedelta(days=7)).isoformat()}
    settings = Settings(data_dir=data_dir)
    with TestClient(create_app(settings)) as client:
        for body in (old, recent):
            assert client.post("/dedup", json=body).json()["status"] == "new"
    dedup = build_deduplicator(settings)
    with TestClient(create_app(settings, dedup)) as client:
        assert client.get("/ready").status_code == 200
        bands = dedup.store._bands  # type: ignore[attr-defined]
        assert bands is not None and bands.entries > 0  # the recent posting's keys
        assert bands.unloaded(to_micros(now - timedelta(days=59))) is None
        assert bands.unloaded(to_micros(now - timedelta(days=3 * 365))) is not None
        repost = {
            **DATA_ENGINEER_REPOST,
            "posted_at": (now - timedelta(days=3 * 365 - 1)).isoformat(),
        }
        verdict = client.post("/dedup", json=repost).json()
        assert verdict["status"] == "duplicate" and verdict["duplicate_of"] == old["id"]


def test_the_lifespan_owns_the_index(data_dir: Path) -> None:
    """Nothing is open before the server starts or after it stops: requests then get the
    store's 503 (not an error of a missing object), and the stop closes the index."""
    app = create_app(Settings(data_dir=data_dir))
    before = TestClient(app)  # not entered: the lifespan has not run
    assert before.get("/ready").status_code == 503
    assert before.post("/dedup", json=DATA_ENGINEER).json()["error"]["code"] == "store_unavailable"
    assert before.get("/health").status_code == 200
    with TestClient(app) as client:
        assert client.post("/dedup", json=DATA_ENGINEER).json()["status"] == "new"
        opened = app.state.deduplicator
    assert app.state.deduplicator is None
    assert before.get("/clusters").status_code == 503
    with pytest.raises(Exception, match="closed"):
        opened.store.get_posting(DATA_ENGINEER["id"])
    with TestClient(app) as client:  # started again: the index is opened again
        verdict = client.post("/dedup", json=DATA_ENGINEER).json()
        assert verdict["status"] == "unchanged"
