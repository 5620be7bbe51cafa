"""Schema-valid but extreme input: a clear 4xx, never a 5xx, and nothing stored.

Each case gave 500 (or a poison record) before issue 13: dates at the ends of the calendar,
integers beyond 64 bits, bodies nested 100,000 deep, `extra` nested 255 deep or holding NaN,
ids that no URL can address."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from service.schemas import MAX_EXTRA_DEPTH
from tests.api.postings import DATA_ENGINEER, posting
from tests.api.support import error_of, fields_of

DEEP = "[" * 100_000 + "]" * 100_000


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def _nothing_stored(client: TestClient) -> None:
    assert client.get("/clusters").json()["clusters"] == []


@pytest.mark.parametrize(
    "posted_at",
    [
        "0001-01-01",
        "0001-01-01T00:00:00+05:00",
        "9999-12-31",
        "9999-12-31T23:59:59+05:00",
        "9999-12-31T23:59:59-05:00",
        "1899-12-31T23:59:59Z",
        "2200-01-01T00:00:00Z",
    ],
)
def test_dates_beyond_the_calendar_are_refused(client: TestClient, posted_at: str) -> None:
    answer = client.post("/dedup", json=posting(DATA_ENGINEER, posted_at=posted_at))
    assert fields_of(error_of(answer, 422)) == ["posted_at"]
    batch = client.post("/dedup/batch", json=[posting(DATA_ENGINEER, posted_at=posted_at)])
    assert fields_of(error_of(batch, 422)) == ["[0].posted_at"]
    _nothing_stored(client)


@pytest.mark.parametrize("posted_at", ["1900-01-01", "2199-12-31T18:59:59-05:00"])
def test_dates_at_the_edges_of_the_range_are_served(client: TestClient, posted_at: str) -> None:
    answer = client.post("/dedup", json=posting(DATA_ENGINEER, posted_at=posted_at))
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize(
    "params",
    [
        {"min_size": "99999999999999999999999"},
        {"min_size": "0"},
        {"limit": "99999999999999999999999"},
    ],
)
def test_integer_parameters_out_of_range_are_refused(
    client: TestClient, params: dict[str, str]
) -> None:
    error_of(client.get("/clusters", params=params), 422)


@pytest.mark.parametrize("bound", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"])
def test_listing_filters_at_the_calendar_edges_answer(client: TestClient, bound: str) -> None:
    for name in ("since", "until"):
        assert client.get("/clusters", params={name: bound}).status_code == 200


def test_a_batch_nested_100000_deep_is_refused(client: TestClient) -> None:
    json_body = client.post(
        "/dedup/batch", content=DEEP, headers={"content-type": "application/json"}
    )
    assert error_of(json_body, 422)["message"] == "body is nested too deeply"
    ndjson = client.post(
        "/dedup/batch", content=DEEP, headers={"content-type": "application/x-ndjson"}
    )
    assert "nested too deeply" in error_of(ndjson, 422)["message"]


@pytest.mark.parametrize("path", ["/dedup", "/pairs/score", "/feedback"])
def test_other_bodies_nested_100000_deep_are_refused(client: TestClient, path: str) -> None:
    answer = client.post(path, content=DEEP, headers={"content-type": "application/json"})
    assert 400 <= answer.status_code < 500
    error_of(answer, answer.status_code)


def test_extra_nested_deeper_than_the_limit_is_refused(client: TestClient) -> None:
    deep = client.post("/dedup", json=posting(DATA_ENGINEER, extra=_nested(255)))
    assert fields_of(error_of(deep, 422)) == ["extra"]
    _nothing_stored(client)
    ok = posting(DATA_ENGINEER, extra=_nested(MAX_EXTRA_DEPTH))
    assert client.post("/dedup", json=ok).status_code == 200
    stored = client.get(f"/postings/{DATA_ENGINEER['id']}")
    assert stored.status_code == 200
    assert stored.json()["posting"]["extra"] == _nested(MAX_EXTRA_DEPTH)


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
def test_extra_with_nan_or_infinity_is_refused(client: TestClient, number: str) -> None:
    body = json.dumps(posting(DATA_ENGINEER, extra={"score": 0}))
    body = body.replace('"score": 0', f'"score": [1, {number}]')
    answer = client.post("/dedup", content=body, headers={"content-type": "application/json"})
    assert fields_of(error_of(answer, 422)) == ["extra"]
    _nothing_stored(client)


@pytest.mark.parametrize("posting_id", [".", "..", "a/../b", "jobs/./1", "../x"])
def test_ids_no_url_can_address_are_refused(client: TestClient, posting_id: str) -> None:
    answer = client.post("/dedup", json=posting(DATA_ENGINEER, id=posting_id))
    assert fields_of(error_of(answer, 422)) == ["id"]
    _nothing_stored(client)


@pytest.mark.parametrize("posting_id", ["...", "a.b", "https://board.example/jobs/42?ref=x"])
def test_ids_with_dots_or_urls_are_stored_and_reachable(
    client: TestClient, posting_id: str
) -> None:
    assert client.post("/dedup", json=posting(DATA_ENGINEER, id=posting_id)).status_code == 200
    answer = client.get("/postings/" + quote(posting_id, safe="/:"))
    assert answer.status_code == 200, answer.text
    assert answer.json()["id"] == posting_id
