"""`GET /stats`: duplicate statistics over the index the API wrote, and its parameter checks."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.postings import (
    ACCOUNT_EXECUTIVE,
    DATA_ENGINEER,
    DATA_ENGINEER_REPOST,
    STAFF_NURSE,
    posting,
)

NONE = {"full": 0, "semantic": 0, "temporal": 0, "partial": 0, "unknown": 0}


def _ingest(client: TestClient) -> None:
    for item in (
        DATA_ENGINEER,  # indeed, Fri 2024-03-01
        DATA_ENGINEER_REPOST,  # linkedin, Mon 2024-03-04: full duplicate
        ACCOUNT_EXECUTIVE,  # indeed, Sat 2024-03-02
        STAFF_NURSE,  # nhsjobs, 2024-02-20
        posting(STAFF_NURSE, id="indeed-5501", source="indeed", posted_at="2024-02-21"),
    ):
        response = client.post("/dedup", json=item)
        assert response.status_code == 200, response.text


def _bucket(start: str, group: str | None, postings: int, distinct: int, **types: int) -> Any:
    duplicates = postings - distinct
    return {
        "start": start,
        "group": group,
        "postings": postings,
        "distinct": distinct,
        "duplicates": duplicates,
        "duplicate_rate": round(duplicates / postings, 6),
        "by_type": {**NONE, **types},
    }


def test_weekly_stats_by_source_with_the_overlap_table(client: TestClient) -> None:
    _ingest(client)

    response = client.get("/stats", params={"by": "source"})

    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["interval"], body["by"], body["since"], body["until"]) == (
        "week",
        "source",
        None,
        None,
    )
    assert body["buckets"] == [
        _bucket("2024-02-19T00:00:00Z", "indeed", 1, 0, full=1),
        _bucket("2024-02-19T00:00:00Z", "nhsjobs", 1, 1),
        _bucket("2024-02-26T00:00:00Z", "indeed", 2, 2),
        _bucket("2024-03-04T00:00:00Z", "linkedin", 1, 0, full=1),
    ]
    assert body["sources"] == [
        {"source": "indeed", "clusters": 3},
        {"source": "linkedin", "clusters": 1},
        {"source": "nhsjobs", "clusters": 1},
    ]
    assert body["overlap"] == [
        {"a": "indeed", "b": "linkedin", "clusters": 1},
        {"a": "indeed", "b": "nhsjobs", "clusters": 1},
    ]


def test_window_and_monthly_interval(client: TestClient) -> None:
    _ingest(client)

    response = client.get(
        "/stats", params={"since": "2024-02-21", "until": "2024-03-04", "interval": "month"}
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["since"] == "2024-02-21T00:00:00Z"
    # indeed-5501 (02-21 00:00, at since) is in; linkedin-77 (03-04 14:30) is out
    assert body["buckets"] == [
        _bucket("2024-02-01T00:00:00Z", None, 1, 0, full=1),
        _bucket("2024-03-01T00:00:00Z", None, 2, 2),
    ]
    # clusters seen in the window: the nurse's (02-20..02-21) and both indeed ads'
    assert body["sources"] == [
        {"source": "indeed", "clusters": 3},
        {"source": "linkedin", "clusters": 1},
        {"source": "nhsjobs", "clusters": 1},
    ]


def test_an_empty_index_answers_empty_tables(client: TestClient) -> None:
    response = client.get("/stats", params={"interval": "day", "by": "company"})

    assert response.status_code == 200
    assert response.json()["buckets"] == []
    assert response.json()["overlap"] == []


def test_bad_parameters_are_422_in_the_error_shape(client: TestClient) -> None:
    backwards = client.get("/stats", params={"since": "2024-03-02", "until": "2024-03-01"})
    interval = client.get("/stats", params={"interval": "year"})
    grouping = client.get("/stats", params={"by": "title"})
    date = client.get("/stats", params={"since": "yesterday"})

    assert backwards.status_code == 422
    assert backwards.json()["error"]["code"] == "validation_error"
    assert "since must not be after until" in backwards.json()["error"]["message"]
    for response, field in ((interval, "interval"), (grouping, "by"), (date, "since")):
        assert response.status_code == 422, response.text
        assert response.json()["error"]["details"][0]["field"] == field
