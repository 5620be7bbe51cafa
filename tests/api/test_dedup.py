"""POST /dedup: verdicts for single postings, idempotency, updates, dry runs and posted_at."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi.testclient import TestClient

from tests.api.postings import (
    ACCOUNT_EXECUTIVE,
    DATA_ENGINEER,
    DATA_ENGINEER_REPOST,
    DATA_ENGINEER_TEXT,
    STAFF_NURSE,
    UNRELATED,
    WAREHOUSE_OPERATIVE,
    posting,
)
from tests.api.support import dedup, get_json

RESULT_FIELDS = {
    "id",
    "status",
    "duplicate_of",
    "cluster_id",
    "duplicate_type",
    "score",
    "candidates",
}


def test_first_posting_is_new_and_opens_its_own_cluster(client: TestClient) -> None:
    result = dedup(client, DATA_ENGINEER)

    assert set(result) == RESULT_FIELDS
    assert result["id"] == "indeed-1001"
    assert result["status"] == "new"
    assert result["cluster_id"] == "indeed-1001"
    assert result["duplicate_of"] is None
    assert result["duplicate_type"] is None
    assert result["candidates"] == []


def test_repost_under_another_id_is_a_duplicate_of_the_first(client: TestClient) -> None:
    first = dedup(client, DATA_ENGINEER)
    second = dedup(client, DATA_ENGINEER_REPOST)

    assert second["status"] == "duplicate"
    assert second["duplicate_of"] == "indeed-1001"
    assert second["cluster_id"] == first["cluster_id"] == "indeed-1001"
    threshold = client.get("/ready").json()["scorer"]["threshold"]
    assert second["score"] is not None and second["score"] >= threshold
    assert second["duplicate_type"] == "full"  # retitle "(H/F)" only, same description
    assert [c["id"] for c in second["candidates"]] == ["indeed-1001"]
    candidate = second["candidates"][0]
    assert set(candidate) == {"id", "score", "jaccard", "overlap", "cluster_id"}
    assert candidate["cluster_id"] == "indeed-1001"
    assert candidate["jaccard"] == candidate["overlap"] == 1.0
    assert candidate["score"] == second["score"]


def test_same_employer_sharing_only_boilerplate_is_new(client: TestClient) -> None:
    dedup(client, DATA_ENGINEER)
    other = dedup(client, ACCOUNT_EXECUTIVE)

    assert other["status"] == "new"
    assert other["duplicate_of"] is None
    assert other["cluster_id"] == "indeed-1002"
    for candidate in other["candidates"]:  # reported if found, but far from the threshold
        assert candidate["score"] < 0.9


def test_unrelated_postings_are_all_new(client: TestClient) -> None:
    results = [dedup(client, p) for p in [DATA_ENGINEER, ACCOUNT_EXECUTIVE, *UNRELATED]]

    assert [r["status"] for r in results] == ["new"] * 5
    assert len({r["cluster_id"] for r in results}) == 5


def test_same_id_and_content_again_is_unchanged_and_writes_nothing(client: TestClient) -> None:
    dedup(client, DATA_ENGINEER)
    repost = dedup(client, DATA_ENGINEER_REPOST)
    stored_before = get_json(client, "/postings/linkedin-77")

    again = dedup(client, DATA_ENGINEER_REPOST)

    assert again["status"] == "unchanged"
    assert again["duplicate_of"] == "indeed-1001"
    assert again["cluster_id"] == repost["cluster_id"]
    assert again["candidates"] == repost["candidates"]
    cluster = get_json(client, "/clusters/indeed-1001")
    assert cluster["size"] == 2
    assert [m["id"] for m in cluster["members"]] == ["indeed-1001", "linkedin-77"]
    assert get_json(client, "/postings/linkedin-77") == stored_before


def test_same_id_without_posted_at_is_unchanged_on_retry(client: TestClient) -> None:
    """posted_at defaults to receipt time, which must not make every retry an update."""
    undated = posting(STAFF_NURSE, posted_at=None)
    assert dedup(client, undated)["status"] == "new"
    assert dedup(client, undated)["status"] == "unchanged"


def test_same_id_with_changed_content_is_updated(client: TestClient) -> None:
    dedup(client, DATA_ENGINEER)
    changed = posting(
        DATA_ENGINEER,
        description=DATA_ENGINEER_TEXT.replace("two days a week", "three days a week")
        + "\n\nApply before the end of March.",
    )

    result = dedup(client, changed)

    assert result["status"] == "updated"
    assert result["cluster_id"] == "indeed-1001"  # it was alone: keeps the cluster it opened
    assert result["duplicate_of"] is None
    stored = get_json(client, "/postings/indeed-1001")
    assert stored["posting"]["description"] == changed["description"]
    assert stored["decision"]["status"] == "updated"
    assert get_json(client, "/clusters/indeed-1001")["size"] == 1


def test_update_that_turns_a_posting_into_a_duplicate(client: TestClient) -> None:
    dedup(client, DATA_ENGINEER)
    dedup(client, posting(DATA_ENGINEER_REPOST, description=WAREHOUSE_OPERATIVE["description"]))

    result = dedup(client, DATA_ENGINEER_REPOST)

    assert result["status"] == "updated"
    assert result["duplicate_of"] == "indeed-1001"
    assert result["cluster_id"] == "indeed-1001"
    assert get_json(client, "/clusters/indeed-1001")["size"] == 2
    # the cluster the posting opened before its update is gone
    assert client.get("/clusters/linkedin-77").status_code == 404


def test_dry_run_answers_without_writing(client: TestClient) -> None:
    dedup(client, DATA_ENGINEER)

    new = dedup(client, STAFF_NURSE, dry_run="true")
    duplicate = dedup(client, DATA_ENGINEER_REPOST, dry_run="true")

    assert new["status"] == "new" and new["cluster_id"] == "nhs-5501"
    assert duplicate["status"] == "duplicate"
    assert duplicate["duplicate_of"] == "indeed-1001"
    assert client.get("/postings/nhs-5501").status_code == 404
    assert client.get("/postings/linkedin-77").status_code == 404
    assert get_json(client, "/clusters/indeed-1001")["size"] == 1
    # nothing was written, so the real post is still "new"/"duplicate", not "unchanged"
    assert dedup(client, STAFF_NURSE)["status"] == "new"
    assert dedup(client, DATA_ENGINEER_REPOST)["status"] == "duplicate"


def test_posted_at_as_a_bare_date_is_midnight_utc(client: TestClient) -> None:
    dedup(client, posting(STAFF_NURSE, posted_at="2020-10-01"))

    stored = get_json(client, "/postings/nhs-5501")
    assert stored["posting"]["posted_at"] == "2020-10-01T00:00:00+00:00"
    cluster = get_json(client, "/clusters/nhs-5501")
    assert _parse(cluster["first_seen"]) == datetime(2020, 10, 1, tzinfo=UTC)


def test_posted_at_as_a_datetime_with_offset_is_stored_in_utc(client: TestClient) -> None:
    dedup(client, posting(STAFF_NURSE, posted_at="2020-10-01T12:30:00+02:00"))

    stored = get_json(client, "/postings/nhs-5501")
    assert stored["posting"]["posted_at"] == "2020-10-01T10:30:00+00:00"
    member = get_json(client, "/clusters/nhs-5501")["members"][0]
    assert _parse(member["posted_at"]) == datetime(2020, 10, 1, 10, 30, tzinfo=UTC)


def test_naive_posted_at_is_taken_as_utc(client: TestClient) -> None:
    dedup(client, posting(STAFF_NURSE, posted_at="2020-10-01T08:15:00"))

    stored = get_json(client, "/postings/nhs-5501")
    assert stored["posting"]["posted_at"] == "2020-10-01T08:15:00+00:00"


def test_missing_posted_at_defaults_to_receipt_time(client: TestClient) -> None:
    before = datetime.now(UTC)
    dedup(client, posting(STAFF_NURSE, posted_at=None))
    after = datetime.now(UTC)

    stored = get_json(client, "/postings/nhs-5501")
    assert before <= _parse(stored["posting"]["posted_at"]) <= after
    cluster = get_json(client, "/clusters/nhs-5501")
    assert before <= _parse(cluster["first_seen"]) <= after


def test_backfilled_older_posting_becomes_the_canonical(client: TestClient) -> None:
    """Time comes from posted_at, not arrival: the earliest posting is what others duplicate."""
    march_10 = posting(DATA_ENGINEER, id="p-march-10", posted_at="2024-03-10")
    march_20 = posting(DATA_ENGINEER_REPOST, id="p-march-20", posted_at="2024-03-20")
    march_01 = posting(DATA_ENGINEER_REPOST, id="p-march-01", posted_at="2024-03-01")
    march_15 = posting(DATA_ENGINEER, id="p-march-15", posted_at="2024-03-15", source="monster")

    assert dedup(client, march_10)["status"] == "new"
    assert dedup(client, march_20)["duplicate_of"] == "p-march-10"
    backfill = dedup(client, march_01)  # arrives third, but is the oldest
    later = dedup(client, march_15)

    assert backfill["status"] == "duplicate"
    assert backfill["cluster_id"] == "p-march-10"
    assert backfill["duplicate_of"] == "p-march-10"  # the earliest *other* posting
    assert later["status"] == "duplicate"
    assert later["duplicate_of"] == "p-march-01"
    assert later["cluster_id"] == "p-march-10"
    cluster = get_json(client, "/clusters/p-march-10")
    assert cluster["canonical_id"] == "p-march-01"
    assert [m["id"] for m in cluster["members"]] == [
        "p-march-01",
        "p-march-10",
        "p-march-15",
        "p-march-20",
    ]
    assert get_json(client, "/postings/p-march-01")["duplicate_of"] is None
    for other in ("p-march-10", "p-march-15", "p-march-20"):
        assert get_json(client, f"/postings/{other}")["duplicate_of"] == "p-march-01"


def test_identical_text_outside_the_window_is_new(client: TestClient) -> None:
    dedup(client, posting(DATA_ENGINEER, posted_at="2024-01-01"))

    far = dedup(client, posting(DATA_ENGINEER_REPOST, posted_at="2024-06-01"))

    assert far["status"] == "new"  # 152 days apart; the default window is 60 days
    assert far["cluster_id"] == "linkedin-77"


def _parse(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_update_moving_a_canonical_out_of_its_cluster_opens_a_fresh_one(
    client: TestClient,
) -> None:
    dedup(client, DATA_ENGINEER)
    dedup(client, DATA_ENGINEER_REPOST)

    moved = dedup(client, posting(DATA_ENGINEER, description=WAREHOUSE_OPERATIVE["description"]))

    assert moved["status"] == "updated"
    assert moved["duplicate_of"] is None
    # "indeed-1001" still names the cluster it opened, now holding only the re-post
    assert moved["cluster_id"] != "indeed-1001"
    assert moved["cluster_id"].startswith("indeed-1001")
    left = get_json(client, "/clusters/indeed-1001")
    assert [m["id"] for m in left["members"]] == ["linkedin-77"]
    assert left["canonical_id"] == "linkedin-77"
    assert get_json(client, "/postings/linkedin-77")["duplicate_of"] is None
    assert get_json(client, f"/clusters/{moved['cluster_id']}")["canonical_id"] == "indeed-1001"
