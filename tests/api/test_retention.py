"""`JOBDEDUP_RETENTION_DAYS`: the service expires old postings by itself, on both backends."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient

from service.api import create_app
from service.settings import Settings
from tests.api.postings import DATA_ENGINEER, STAFF_NURSE, posting


def test_postings_older_than_the_retention_leave_the_index_while_it_serves(
    data_dir: Path,
) -> None:
    settings = Settings(data_dir=data_dir, retention_days=30, retention_every_s=0.2)
    recent = (datetime.now(UTC) - timedelta(days=2)).isoformat()
    with TestClient(create_app(settings)) as client:
        old = client.post("/dedup", json=posting(DATA_ENGINEER, id="old-ad"))  # March 2024
        new = client.post("/dedup", json=posting(STAFF_NURSE, id="new-ad", posted_at=recent))
        assert old.status_code == new.status_code == 200
        deadline = time.monotonic() + 10
        while client.get("/postings/old-ad").status_code != 404:
            assert time.monotonic() < deadline, "the retention pass never ran"
            time.sleep(0.1)
        assert client.get("/postings/new-ad").status_code == 200
        assert client.get(f"/clusters/{old.json()['cluster_id']}").status_code == 404
