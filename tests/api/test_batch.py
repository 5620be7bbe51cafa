"""POST /dedup/batch: JSON arrays and NDJSON, answered in order as if posted one by one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from service.api import create_app
from service.settings import Settings
from tests.api.postings import (
    ACCOUNT_EXECUTIVE,
    DATA_ENGINEER,
    DATA_ENGINEER_REPOST,
    STAFF_NURSE,
    WAREHOUSE_OPERATIVE,
    posting,
)
from tests.api.support import dedup, error_of, fields_of, get_json

BATCH = [
    DATA_ENGINEER,
    DATA_ENGINEER_REPOST,  # duplicate of the first item of the same batch
    ACCOUNT_EXECUTIVE,
    STAFF_NURSE,
    posting(STAFF_NURSE, id="nhs-5502", posted_at="2024-02-21"),
    DATA_ENGINEER,  # the same id and content again inside the batch
]


def _ndjson(items: list[dict[str, Any]]) -> bytes:
    return "\n".join(json.dumps(item) for item in items).encode("utf-8") + b"\n"


def _one_by_one(tmp_path: Path, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The verdicts the same postings get through POST /dedup, on a fresh index."""
    with TestClient(create_app(Settings(data_dir=tmp_path / "one-by-one"))) as other:
        return [dedup(other, item) for item in items]


def test_json_array_is_answered_in_order_as_if_one_by_one(
    client: TestClient, tmp_path: Path
) -> None:
    response = client.post("/dedup/batch", json=BATCH)

    assert response.status_code == 200, response.text
    results = response.json()
    assert [r["id"] for r in results] == [p["id"] for p in BATCH]
    assert [r["status"] for r in results] == [
        "new",
        "duplicate",
        "new",
        "new",
        "duplicate",
        "unchanged",
    ]
    assert results[1]["duplicate_of"] == "indeed-1001"
    assert results[1]["cluster_id"] == results[0]["cluster_id"]
    assert results[4]["duplicate_of"] == "nhs-5501"
    assert results == _one_by_one(tmp_path, BATCH)
    assert get_json(client, "/clusters/indeed-1001")["size"] == 2


def test_ndjson_body_is_accepted(client: TestClient, tmp_path: Path) -> None:
    body = _ndjson(BATCH[:3]) + b"\n   \n" + _ndjson(BATCH[3:])  # blank lines are skipped

    response = client.post(
        "/dedup/batch", content=body, headers={"Content-Type": "application/x-ndjson"}
    )

    assert response.status_code == 200, response.text
    assert response.json() == _one_by_one(tmp_path, BATCH)
    assert get_json(client, "/postings/linkedin-77")["duplicate_of"] == "indeed-1001"


def test_json_content_type_with_charset_is_accepted(client: TestClient) -> None:
    response = client.post(
        "/dedup/batch",
        content=json.dumps([STAFF_NURSE]).encode(),
        headers={"Content-Type": "application/json; charset=utf-8"},
    )

    assert response.status_code == 200, response.text
    assert [r["status"] for r in response.json()] == ["new"]


def test_batch_dry_run_decides_in_order_but_writes_nothing(client: TestClient) -> None:
    response = client.post(
        "/dedup/batch", json=[DATA_ENGINEER, STAFF_NURSE], params={"dry_run": "true"}
    )

    assert response.status_code == 200, response.text
    assert [r["status"] for r in response.json()] == ["new", "new"]
    assert client.get("/postings/indeed-1001").status_code == 404
    assert client.get("/postings/nhs-5501").status_code == 404


def test_more_than_1000_items_is_413_and_nothing_stored(client: TestClient) -> None:
    items = [
        {"id": f"gen-{i}", "title": "Picker", "description": f"Picker number {i}"}
        for i in range(1001)
    ]

    error = error_of(client.post("/dedup/batch", json=items), 413)

    assert error["code"] == "batch_too_large"
    assert "1000" in error["message"]
    assert client.get("/postings/gen-0").status_code == 404


def test_exactly_1000_items_is_accepted(client: TestClient) -> None:
    items = [
        {"id": f"gen-{i}", "title": "Picker", "description": f"order picker {i}"}
        for i in range(1000)
    ]

    response = client.post("/dedup/batch", json=items, params={"dry_run": "true"})

    assert response.status_code == 200, response.text
    assert len(response.json()) == 1000


def test_one_invalid_item_rejects_the_batch_naming_it(client: TestClient) -> None:
    items = [DATA_ENGINEER, posting(STAFF_NURSE, title=None), posting(WAREHOUSE_OPERATIVE, id="")]

    error = error_of(client.post("/dedup/batch", json=items), 422)

    assert error["code"] == "validation_error"
    assert "[1].title" in fields_of(error)
    assert "[2].id" in fields_of(error)
    assert not any(f.startswith("[0]") for f in fields_of(error))
    assert client.get("/postings/indeed-1001").status_code == 404  # valid item not stored


def test_item_that_is_not_an_object_is_named_by_index(client: TestClient) -> None:
    error = error_of(client.post("/dedup/batch", json=[STAFF_NURSE, "oops"]), 422)

    assert fields_of(error) == ["[1]"]
    assert client.get("/postings/nhs-5501").status_code == 404


def test_invalid_ndjson_line_is_422_naming_the_line(client: TestClient) -> None:
    body = _ndjson([DATA_ENGINEER]) + b'{"id": "broken", "title": \n' + _ndjson([STAFF_NURSE])

    error = error_of(
        client.post("/dedup/batch", content=body, headers={"Content-Type": "application/x-ndjson"}),
        422,
    )

    assert fields_of(error) == ["line 2"]
    assert "line 2" in error["message"]
    assert client.get("/postings/indeed-1001").status_code == 404


def test_ndjson_validation_error_is_named_by_item_index(client: TestClient) -> None:
    body = _ndjson([DATA_ENGINEER, posting(WAREHOUSE_OPERATIVE, description="   ")])

    error = error_of(
        client.post("/dedup/batch", content=body, headers={"Content-Type": "application/x-ndjson"}),
        422,
    )

    assert fields_of(error) == ["[1].description"]


def test_wrong_content_type_is_415(client: TestClient) -> None:
    error = error_of(
        client.post(
            "/dedup/batch",
            content=json.dumps([STAFF_NURSE]).encode(),
            headers={"Content-Type": "text/plain"},
        ),
        415,
    )

    assert error["code"] == "unsupported_media_type"
    assert client.get("/postings/nhs-5501").status_code == 404


def test_json_batch_that_is_not_an_array_is_422(client: TestClient) -> None:
    error = error_of(client.post("/dedup/batch", json=STAFF_NURSE), 422)

    assert fields_of(error) == ["body"]


def test_malformed_json_batch_is_422(client: TestClient) -> None:
    response = client.post(
        "/dedup/batch", content=b"[{", headers={"Content-Type": "application/json"}
    )

    assert fields_of(error_of(response, 422)) == ["body"]


def test_empty_batch_is_422(client: TestClient) -> None:
    assert fields_of(error_of(client.post("/dedup/batch", json=[]), 422)) == ["body"]
