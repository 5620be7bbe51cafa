"""GET/DELETE /postings/{id}, GET /clusters/{id} and the filtered, paginated GET /clusters."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.postings import (
    ACCOUNT_EXECUTIVE,
    BARISTA,
    DATA_ENGINEER,
    DATA_ENGINEER_REPOST,
    STAFF_NURSE,
    WAREHOUSE_OPERATIVE,
    posting,
)
from tests.api.support import dedup, error_of, fields_of, get_json

ALL = [DATA_ENGINEER, DATA_ENGINEER_REPOST, ACCOUNT_EXECUTIVE, STAFF_NURSE, WAREHOUSE_OPERATIVE]
ALL_CLUSTERS = ["indeed-1001", "indeed-1002", "nhs-5501", "reed-3003", "reed-3004"]


@pytest.fixture
def indexed(client: TestClient) -> TestClient:
    """Six postings in five clusters: the data engineer ad and its re-post share one."""
    for item in [*ALL, BARISTA]:
        dedup(client, item)
    return client


def _ids(client: TestClient, **params: Any) -> list[str]:
    page = get_json(client, "/clusters", **params)
    assert page["next_cursor"] is None
    return [c["id"] for c in page["clusters"]]


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


# -- postings ---------------------------------------------------------------------------------


def test_get_posting_returns_what_was_sent_and_where_it_stands(indexed: TestClient) -> None:
    found = get_json(indexed, "/postings/linkedin-77")

    assert set(found) == {"id", "cluster_id", "duplicate_of", "posting", "decision"}
    assert found["id"] == "linkedin-77"
    assert found["cluster_id"] == "indeed-1001"
    assert found["duplicate_of"] == "indeed-1001"
    sent = {k: v for k, v in DATA_ENGINEER_REPOST.items() if k != "posted_at"}
    assert {k: v for k, v in found["posting"].items() if k != "posted_at"} == sent
    assert found["posting"]["posted_at"] == "2024-03-04T14:30:00+00:00"
    assert found["decision"]["status"] == "duplicate"
    assert found["decision"]["duplicate_of"] == "indeed-1001"


def test_canonical_posting_has_no_duplicate_of(indexed: TestClient) -> None:
    found = get_json(indexed, "/postings/indeed-1001")

    assert found["duplicate_of"] is None
    assert found["cluster_id"] == "indeed-1001"


def test_unknown_posting_is_404_with_the_error_shape(client: TestClient) -> None:
    error = error_of(client.get("/postings/nope"), 404)

    assert error["code"] == "not_found"
    assert "nope" in error["message"]


def test_delete_posting_then_it_is_gone(indexed: TestClient) -> None:
    response = indexed.delete("/postings/linkedin-77")

    assert response.status_code == 200, response.text
    assert response.json() == {"id": "linkedin-77", "deleted": True}
    assert error_of(indexed.get("/postings/linkedin-77"), 404)["code"] == "not_found"
    assert get_json(indexed, "/clusters/indeed-1001")["size"] == 1
    assert error_of(indexed.delete("/postings/linkedin-77"), 404)["code"] == "not_found"


def test_deleted_posting_posted_again_is_new(indexed: TestClient) -> None:
    indexed.delete("/postings/nhs-5501")

    assert error_of(indexed.get("/clusters/nhs-5501"), 404)["code"] == "not_found"
    again = dedup(indexed, STAFF_NURSE)
    assert again["status"] == "new"
    assert get_json(indexed, f"/clusters/{again['cluster_id']}")["size"] == 1


def test_deleting_the_canonical_keeps_the_cluster_with_a_new_canonical(client: TestClient) -> None:
    for pid, day in (("first", "2024-03-01"), ("second", "2024-03-02"), ("third", "2024-03-03")):
        dedup(client, posting(DATA_ENGINEER, id=pid, posted_at=day))
    assert get_json(client, "/clusters/first")["canonical_id"] == "first"

    assert client.delete("/postings/first").status_code == 200

    cluster = get_json(client, "/clusters/first")
    assert cluster["size"] == 2
    assert [m["id"] for m in cluster["members"]] == ["second", "third"]
    assert cluster["canonical_id"] == "second"
    assert _time(cluster["first_seen"]) == datetime(2024, 3, 2, tzinfo=UTC)
    assert get_json(client, "/postings/third")["duplicate_of"] == "second"
    assert get_json(client, "/postings/second")["duplicate_of"] is None
    later = dedup(client, posting(DATA_ENGINEER, id="fourth", posted_at="2024-03-04"))
    assert later["duplicate_of"] == "second"
    assert later["cluster_id"] == "first"


def test_posting_id_with_a_slash_can_be_read_and_deleted(client: TestClient) -> None:
    """Crawler ids are free text up to 256 characters; "/" must not make one unreachable."""
    dedup(client, posting(STAFF_NURSE, id="nhsjobs/5501"))

    assert get_json(client, "/postings/nhsjobs/5501")["id"] == "nhsjobs/5501"
    assert get_json(client, "/clusters/nhsjobs/5501")["canonical_id"] == "nhsjobs/5501"
    assert client.delete("/postings/nhsjobs/5501").status_code == 200
    assert client.get("/postings/nhsjobs/5501").status_code == 404


# -- one cluster ------------------------------------------------------------------------------


def test_get_cluster_lists_members_with_sizes_and_times(indexed: TestClient) -> None:
    cluster = get_json(indexed, "/clusters/indeed-1001")

    assert cluster["id"] == "indeed-1001"
    assert cluster["size"] == 2
    assert cluster["canonical_id"] == "indeed-1001"
    assert cluster["aliases"] == []
    assert _time(cluster["first_seen"]) == datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
    assert _time(cluster["last_seen"]) == datetime(2024, 3, 4, 14, 30, tzinfo=UTC)
    assert [m["id"] for m in cluster["members"]] == ["indeed-1001", "linkedin-77"]
    first, second = cluster["members"]
    assert set(first) == {"id", "title", "company", "source", "posted_at"}
    assert (first["title"], first["company"], first["source"]) == (
        "Data Engineer",
        "Acme Ltd",
        "indeed",
    )
    assert (second["title"], second["company"], second["source"]) == (
        "Data Engineer (H/F)",
        "ACME",
        "linkedin",
    )


def test_unknown_cluster_is_404(client: TestClient) -> None:
    assert error_of(client.get("/clusters/nope"), 404)["code"] == "not_found"


# -- the listing ------------------------------------------------------------------------------


def test_list_all_clusters_ordered_by_id(indexed: TestClient) -> None:
    page = get_json(indexed, "/clusters")

    assert [c["id"] for c in page["clusters"]] == ALL_CLUSTERS
    assert page["next_cursor"] is None
    summary = page["clusters"][0]
    assert set(summary) == {
        "id",
        "size",
        "first_seen",
        "last_seen",
        "canonical_id",
        "title",
        "company",
        "source",
    }
    assert (summary["size"], summary["canonical_id"]) == (2, "indeed-1001")
    # What the listing shows of a cluster is its canonical posting.
    assert (summary["title"], summary["company"], summary["source"]) == (
        "Data Engineer",
        "Acme Ltd",
        "indeed",
    )


def test_filter_min_size(indexed: TestClient) -> None:
    assert _ids(indexed, min_size=2) == ["indeed-1001"]
    assert _ids(indexed, min_size=3) == []


@pytest.mark.parametrize("company", ["Acme Ltd", "ACME", "acme limited", "  Acme, Ltd. "])
def test_filter_company_is_normalised(indexed: TestClient, company: str) -> None:
    assert _ids(indexed, company=company) == ["indeed-1001", "indeed-1002"]


def test_filter_company_without_match(indexed: TestClient) -> None:
    assert _ids(indexed, company="Globex") == []


def test_filter_source_matches_any_member(indexed: TestClient) -> None:
    assert _ids(indexed, source="linkedin") == ["indeed-1001"]
    assert _ids(indexed, source="indeed") == ["indeed-1001", "indeed-1002"]
    assert _ids(indexed, source="reed") == ["reed-3003", "reed-3004"]


def test_filter_since_and_until(indexed: TestClient) -> None:
    # since: clusters seen at or after the moment; until: clusters first seen at or before it
    assert _ids(indexed, since="2024-03-04T00:00:00Z") == ["indeed-1001", "reed-3003", "reed-3004"]
    assert _ids(indexed, since="2024-03-05T08:00:00Z") == ["reed-3003", "reed-3004"]
    assert _ids(indexed, until="2024-03-01T09:00:00Z") == ["indeed-1001", "nhs-5501"]
    assert _ids(indexed, since="2024-03-02T00:00:00Z", until="2024-03-02T23:59:59Z") == [
        "indeed-1001",
        "indeed-1002",
    ]


def test_filters_combine(indexed: TestClient) -> None:
    assert _ids(indexed, company="ACME", min_size=2, source="indeed") == ["indeed-1001"]
    assert _ids(indexed, company="ACME", since="2024-03-05T00:00:00Z") == []


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_cursor_pagination_visits_every_cluster_once(indexed: TestClient, limit: int) -> None:
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        params: dict[str, Any] = {"limit": limit}
        if cursor is not None:
            params["cursor"] = cursor
        page = get_json(indexed, "/clusters", **params)
        assert 1 <= len(page["clusters"]) <= limit
        seen += [c["id"] for c in page["clusters"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
        assert pages < 10, "pagination does not terminate"

    assert seen == ALL_CLUSTERS
    assert pages == -(-len(ALL_CLUSTERS) // limit)


def test_cursor_pagination_with_a_filter(indexed: TestClient) -> None:
    first = get_json(indexed, "/clusters", source="reed", limit=1)
    assert [c["id"] for c in first["clusters"]] == ["reed-3003"]
    second = get_json(indexed, "/clusters", source="reed", limit=1, cursor=first["next_cursor"])
    assert [c["id"] for c in second["clusters"]] == ["reed-3004"]
    assert second["next_cursor"] is None


@pytest.mark.parametrize("cursor", ["abc", "not-a-cursor", "!!!!", "é", "_w=="])
def test_invalid_cursor_is_422(indexed: TestClient, cursor: str) -> None:
    error = error_of(indexed.get("/clusters", params={"cursor": cursor}), 422)

    assert fields_of(error) == ["cursor"]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"min_size": 0}, "min_size"),
        ({"since": "yesterday"}, "since"),
    ],
)
def test_invalid_listing_parameters_are_422(
    client: TestClient, params: dict[str, Any], field: str
) -> None:
    error = error_of(client.get("/clusters", params=params), 422)

    assert fields_of(error) == [field]
