"""The one error shape: validation (422), body limits (413), 404/405 and the store down (503)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import indexer.stores.sqlite.store
from classifier.model import load_model
from classifier.scoring import OVERLAP_THRESHOLD
from indexer.store import IncompatibleIndex
from indexer.stores.sqlite.store import open_sqlite_store
from service.api import create_app
from service.pipeline import Deduplicator
from service.settings import Settings
from tests.api.postings import BARISTA, DATA_ENGINEER, STAFF_NURSE, posting
from tests.api.support import dedup, error_of, fields_of, get_json

# -- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (posting(STAFF_NURSE, title=None), "title"),
        (posting(STAFF_NURSE, description=None), "description"),
        (posting(STAFF_NURSE, id=None), "id"),
        (posting(STAFF_NURSE, title=""), "title"),
        (posting(STAFF_NURSE, description=" \n\t "), "description"),
        (posting(STAFF_NURSE, id="   "), "id"),
        (posting(STAFF_NURSE, id="x" * 257), "id"),
        (posting(STAFF_NURSE, title="t" * 1001), "title"),
        (posting(STAFF_NURSE, description="word " * 40_000 + "x"), "description"),
        (posting(STAFF_NURSE, posted_at="2020-13-01"), "posted_at"),
        (posting(STAFF_NURSE, posted_at="next tuesday"), "posted_at"),
        (posting(STAFF_NURSE, extra=["not", "an", "object"]), "extra"),
        (posting(STAFF_NURSE, salary_range="£30k"), "salary_range"),
        (posting(STAFF_NURSE, Title="Staff Nurse"), "Title"),
    ],
)
def test_invalid_posting_is_422_naming_the_field(
    client: TestClient, body: dict[str, Any], field: str
) -> None:
    error = error_of(client.post("/dedup", json=body), 422)

    assert error["code"] == "validation_error"
    assert field in fields_of(error)
    assert all(d["reason"] for d in error["details"])
    assert get_json(client, "/clusters")["clusters"] == []


def test_lone_surrogate_in_extra_is_422_not_500(client: TestClient) -> None:
    """`extra` is free-form JSON; a "\\ud800" escape parses but cannot be stored as UTF-8."""
    body = b'{"id": "s-1", "title": "Chef", "description": "head chef", "extra": {"k": "\\ud800"}}'
    error = error_of(
        client.post("/dedup", content=body, headers={"Content-Type": "application/json"}), 422
    )
    assert fields_of(error) == ["extra"]

    batch = b"[" + json.dumps(STAFF_NURSE).encode() + b"," + body + b"]"
    error = error_of(
        client.post("/dedup/batch", content=batch, headers={"Content-Type": "application/json"}),
        422,
    )
    assert fields_of(error) == ["[1].extra"]
    assert client.get("/postings/nhs-5501").status_code == 404


def test_extra_is_kept_as_sent(client: TestClient) -> None:
    extra = {"salary_band": "B5", "tags": ["nhs", "nights"], "note": "café ✓"}
    dedup(client, posting(STAFF_NURSE, extra=extra))

    assert get_json(client, "/postings/nhs-5501")["posting"]["extra"] == extra


def test_limits_are_inclusive(client: TestClient) -> None:
    longest = posting(STAFF_NURSE, id="i" * 256, description="word " * 39_999 + "last!")
    assert len(longest["description"]) == 200_000

    result = dedup(client, longest, dry_run="true")

    assert result["status"] == "new"


def test_body_that_is_not_json_is_422(client: TestClient) -> None:
    response = client.post(
        "/dedup", content=b"{not json", headers={"Content-Type": "application/json"}
    )

    assert error_of(response, 422)["code"] == "validation_error"


# -- body size --------------------------------------------------------------------------------


@pytest.fixture
def small_client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(data_dir=tmp_path / "small", max_body_bytes=2048, max_batch_bytes=8192)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_body_over_max_body_bytes_is_413(small_client: TestClient) -> None:
    too_big = posting(STAFF_NURSE, description="x " * 1500)

    error = error_of(small_client.post("/dedup", json=too_big), 413)

    assert error["code"] == "payload_too_large"
    assert "2048" in error["message"]
    assert small_client.get("/postings/nhs-5501").status_code == 404


def test_chunked_body_over_the_limit_is_413(small_client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"id": "chunked", "title": "Porter", "description": "'
        for _ in range(10):
            yield b"porter " * 50
        yield b'"}'

    response = small_client.post(
        "/dedup", content=chunks(), headers={"Content-Type": "application/json"}
    )

    assert error_of(response, 413)["code"] == "payload_too_large"
    assert small_client.get("/postings/chunked").status_code == 404


def test_chunked_body_under_the_limit_is_processed(small_client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"id": "chunked", "title": "Porter", '
        yield b'"description": "hospital porter wanted for night shifts"}'

    response = small_client.post(
        "/dedup", content=chunks(), headers={"Content-Type": "application/json"}
    )

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "new"


def test_batch_has_its_own_larger_limit(small_client: TestClient) -> None:
    batch = [posting(STAFF_NURSE, description=STAFF_NURSE["description"] * 2)]  # ~2.6 kB
    assert small_client.post("/dedup/batch", json=batch).status_code == 200

    too_big = [posting(BARISTA, id=f"b-{i}") for i in range(20)]  # ~15 kB > 8192
    error = error_of(small_client.post("/dedup/batch", json=too_big), 413)
    assert error["code"] == "payload_too_large"
    assert small_client.get("/postings/b-0").status_code == 404


# -- not found, wrong method ------------------------------------------------------------------


@pytest.mark.parametrize("url", ["/postings/nope", "/clusters/nope", "/no/such/route"])
def test_not_found_has_the_error_shape(client: TestClient, url: str) -> None:
    error = error_of(client.get(url), 404)

    assert error["code"] == "not_found"
    assert error["details"] == []


def test_wrong_method_has_the_error_shape(client: TestClient) -> None:
    assert error_of(client.get("/dedup"), 405)["code"] == "method_not_allowed"


# -- the store down ---------------------------------------------------------------------------


def _reopened_posting_ids(data_dir: Path) -> list[str]:
    store = open_sqlite_store(data_dir, Settings(data_dir=data_dir).sketch_params())
    try:
        return [a.id for a in store.iter_assignments()]
    finally:
        store.close()


@pytest.mark.sqlite_only  # the engine's outage tests: tests/integration
def test_closed_store_gives_503_with_retry_after(data_dir: Path) -> None:
    app = create_app(Settings(data_dir=data_dir))
    with TestClient(app) as client:
        dedup(client, DATA_ENGINEER)
        deduplicator: Deduplicator = app.state.deduplicator
        deduplicator.store.close()

        response = client.post("/dedup", json=STAFF_NURSE)
        batch = client.post("/dedup/batch", json=[BARISTA])
        read = client.get("/postings/indeed-1001")
        ready = client.get("/ready")
        health = client.get("/health")
        metrics = client.get("/metrics")

    for failed in (response, batch, read):
        error = error_of(failed, 503)
        assert error["code"] == "store_unavailable"
        assert failed.headers["Retry-After"] == "5"
    assert ready.status_code == 503
    assert ready.headers["Retry-After"] == "5"
    assert ready.json()["status"] == "unavailable"
    assert health.status_code == 200
    assert metrics.status_code == 200  # a scrape does not fail because the store is down
    assert _reopened_posting_ids(data_dir) == ["indeed-1001"]


@pytest.mark.sqlite_only  # the engine's outage tests: tests/integration
def test_write_lock_held_elsewhere_gives_503_and_writes_nothing(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holds SQLite's write lock: the read succeeds (WAL), the write times out
    with "database is locked", which must surface as 503 and leave nothing behind."""
    # Wait 0.1 s for the lock instead of the adapter's 5 s; without the constant the test
    # still holds, only slower.
    monkeypatch.setattr(indexer.stores.sqlite.store, "BUSY_TIMEOUT_MS", 100, raising=False)
    with TestClient(create_app(Settings(data_dir=data_dir))) as client:
        dedup(client, DATA_ENGINEER)
        other = sqlite3.connect(data_dir / "index.sqlite3", isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            blocked = client.post("/dedup", json=STAFF_NURSE)
            ready_while_locked = client.get("/ready")
        finally:
            other.execute("ROLLBACK")
            other.close()

        error = error_of(blocked, 503)
        assert error["code"] == "store_unavailable"
        assert blocked.headers["Retry-After"] == "5"
        assert ready_while_locked.status_code == 200  # readers are not blocked by a writer
        assert client.get("/postings/nhs-5501").status_code == 404
        assert dedup(client, STAFF_NURSE)["status"] == "new"  # a retry succeeds


def test_ready_reports_the_scorer(client: TestClient) -> None:
    response = client.get("/ready")

    assert response.status_code == 200
    model = load_model()  # the shipped artifact is the default scorer
    assert response.json() == {
        "status": "ready",
        "store": "ok",
        "scorer": {"name": "lightgbm", "version": model.version, "threshold": model.threshold},
    }


def test_ready_reports_the_overlap_baseline_when_configured(tmp_path: Path) -> None:
    with TestClient(create_app(Settings(data_dir=tmp_path, scorer="overlap"))) as client:
        assert get_json(client, "/ready")["scorer"] == {
            "name": "overlap",
            "version": "1",
            "threshold": OVERLAP_THRESHOLD,
        }


def test_ready_reports_a_configured_threshold(tmp_path: Path) -> None:
    with TestClient(create_app(Settings(data_dir=tmp_path, threshold=0.9))) as client:
        assert get_json(client, "/ready")["scorer"]["threshold"] == 0.9


def test_app_refuses_an_index_built_with_other_sketch_parameters(data_dir: Path) -> None:
    with TestClient(create_app(Settings(data_dir=data_dir))) as client:
        dedup(client, DATA_ENGINEER)

    other = create_app(Settings(data_dir=data_dir, num_perm=256))
    with pytest.raises(IncompatibleIndex, match="num_perm"), TestClient(other):
        pass  # the start-up fails: no request is ever served against that index
