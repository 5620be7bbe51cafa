"""/ready means the service can work: the embedded index's file system takes writes, and
models and language data are loaded before the server accepts a connection."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from service.api import create_app
from service.settings import Settings
from tests.api.postings import DATA_ENGINEER


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
