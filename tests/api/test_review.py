"""GET /review, GET /pairs/explain and the title search of GET /clusters, on a real index.

The doubtful pairs are made with the overlap baseline, whose score is the sketch overlap: the
postings are indexed once under its default threshold (0.99: every edited copy stays "new"
and records its score), then the service is reopened on the same index with the threshold
set just above one recorded score, so that pair is the nearest to it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from service.api import create_app
from service.review import REVIEW_MARGIN
from service.settings import Settings
from tests.api.postings import (
    BARISTA,
    DATA_ENGINEER,
    STAFF_NURSE_TEXT,
    WAREHOUSE_OPERATIVE_TEXT,
    posting,
)
from tests.api.support import dedup, error_of, get_json

NURSE_1: dict[str, Any] = {
    "id": "nurse-1",
    "title": "Staff Nurse",
    "company": "St Mary's NHS Foundation Trust",
    "source": "nhs-jobs",
    "posted_at": "2024-05-01T09:00:00Z",
    "description": STAFF_NURSE_TEXT,
}
NURSE_2 = posting(
    NURSE_1,
    id="nurse-2",
    title="Staff Nurse - Acute Medical Unit",
    source="indeed",
    posted_at="2024-05-03T09:00:00Z",
    description=STAFF_NURSE_TEXT.replace("twenty-eight", "thirty")
    .replace("friendly", "supportive")
    .replace("free parking on site", "a cycle to work scheme"),
)
WAREHOUSE_1: dict[str, Any] = {
    "id": "ware-1",
    "title": "Warehouse Operative",
    "company": "Northern Logistics",
    "source": "reed",
    "posted_at": "2024-05-02T09:00:00Z",
    "description": WAREHOUSE_OPERATIVE_TEXT,
}
WAREHOUSE_2 = posting(
    WAREHOUSE_1,
    id="ware-2",
    posted_at="2024-05-04T09:00:00Z",
    description=" ".join(WAREHOUSE_OPERATIVE_TEXT.split()[:60]),  # its first half
)
POSTINGS = [NURSE_1, WAREHOUSE_1, NURSE_2, WAREHOUSE_2, BARISTA]


def side(p: dict[str, Any], cluster_id: str) -> dict[str, Any]:
    return {
        "id": p["id"],
        "title": p["title"],
        "company": p["company"],
        "source": p["source"],
        "cluster_id": cluster_id,
        "posted_at": p["posted_at"],
    }


def index_with_overlap(data_dir: Path) -> dict[str, dict[str, Any]]:
    """Index POSTINGS under the overlap baseline's default threshold; the verdicts by id."""
    with TestClient(create_app(Settings(data_dir=data_dir, scorer="overlap"))) as client:
        return {p["id"]: dedup(client, p) for p in POSTINGS}


def reopened(data_dir: Path, threshold: float) -> TestClient:
    settings = Settings(data_dir=data_dir, scorer="overlap", threshold=threshold)
    return TestClient(create_app(settings))


def test_the_pair_just_under_the_threshold_is_first_and_labels_count(data_dir: Path) -> None:
    verdicts = index_with_overlap(data_dir)
    assert [verdicts[p["id"]]["status"] for p in POSTINGS] == ["new"] * 5
    nurse, ware = verdicts["nurse-2"]["score"], verdicts["ware-2"]["score"]
    assert 0.5 < nurse < 0.98 and ware is not None and abs(ware - nurse) > 0.01
    threshold = round(nurse + 0.001, 6)  # nurse-2 is just under it
    assert 0.01 < abs(ware - threshold) <= REVIEW_MARGIN  # ware-2 (its first half) is further
    expected = [("nurse-2", "nurse-1", nurse), ("ware-2", "ware-1", ware)]

    with reopened(data_dir, threshold) as client:
        queue = get_json(client, "/review")
        assert queue["items"][0] == {
            "a_id": "nurse-2",
            "b_id": "nurse-1",
            "score": nurse,
            "threshold": threshold,
            "reason": "near_threshold",
            "same_cluster": False,
            "label": None,
            "a": side(NURSE_2, "nurse-2"),
            "b": side(NURSE_1, "nurse-1"),
        }
        assert [(i["a_id"], i["b_id"], i["score"]) for i in queue["items"]] == expected
        assert {k: queue[k] for k in ("total", "labelled", "offset", "limit")} == {
            "total": len(expected),
            "labelled": 0,
            "offset": 0,
            "limit": 50,
        }

        label = {"a_id": "nurse-1", "b_id": "nurse-2", "label": "not_duplicate"}
        assert client.post("/feedback", json=label).status_code == 200
        labelled = get_json(client, "/review")
        assert labelled["items"][0]["label"] == "not_duplicate"
        assert [i["label"] for i in labelled["items"][1:]] == [None] * (len(expected) - 1)
        assert (labelled["total"], labelled["labelled"]) == (len(expected), 1)

        paged = get_json(client, "/review", limit=1, offset=1)
        assert [i["a_id"] for i in paged["items"]] == [a for a, _, _ in expected[1:2]]
        assert paged["total"] == len(expected)


def test_explain_scores_as_pairs_score_words_it_and_diffs_exactly(data_dir: Path) -> None:
    verdicts = index_with_overlap(data_dir)
    with reopened(data_dir, 0.99) as client:
        label = {"a_id": "nurse-2", "b_id": "nurse-1", "label": "duplicate"}
        assert client.post("/feedback", json=label).status_code == 200
        body = get_json(client, "/pairs/explain", a="nurse-1", b="nurse-2")
        reverse = get_json(client, "/pairs/explain", a="nurse-2", b="nurse-1")
        scored = client.post("/pairs/score", json={"a": NURSE_2, "b": NURSE_1}).json()

    assert (body["a"]["id"], body["b"]["id"], body["newer_id"]) == ("nurse-1", "nurse-2", "nurse-2")
    assert body["a"]["posting"] == {**NURSE_1, "posted_at": "2024-05-01T09:00:00+00:00"}
    assert body["b"]["posting"] == {**NURSE_2, "posted_at": "2024-05-03T09:00:00+00:00"}
    assert (body["a"]["cluster_id"], body["b"]["cluster_id"]) == ("nurse-1", "nurse-2")
    assert body["label"] == "duplicate"
    assert body["recorded_score"] == verdicts["nurse-2"]["score"]
    assert (reverse["a"]["id"], reverse["newer_id"]) == ("nurse-2", "nurse-2")
    assert reverse["verdict"] == body["verdict"]
    words = [c.pop("text") for c in body["verdict"]["contributions"]]
    assert body["verdict"] == scored
    assert words == [
        f"{round(100 * c['value'])}% of the shorter description's word sequences are in the "
        f"other — {'raises' if c['contribution'] > 0 else 'lowers'} the score"
        for c in scored["contributions"]
    ]
    for field in ("title", "description"):
        diff = body["diff"][field]
        assert "".join(s["a"] for s in diff["segments"]) == NURSE_1[field]
        assert "".join(s["b"] for s in diff["segments"]) == NURSE_2[field]
        assert diff["truncated"] is False
    changes = [(s["op"], s["a"], s["b"]) for s in body["diff"]["description"]["segments"]]
    assert [c for c in changes if c[0] != "equal"] == [
        ("replace", "twenty-eight ", "thirty "),
        ("replace", "friendly ", "supportive "),
        ("replace", "free parking on site ", "a cycle to work scheme "),
    ]
    assert [op for op, _, _ in changes] == ["equal", "replace"] * 3 + ["equal"]
    assert [s["op"] for s in body["diff"]["title"]["segments"]] == ["equal", "insert"]


def test_explain_answers_404_for_a_posting_not_indexed(client: TestClient) -> None:
    dedup(client, DATA_ENGINEER)
    one = error_of(
        client.get("/pairs/explain", params={"a": "nope", "b": DATA_ENGINEER["id"]}), 404
    )
    assert one["details"] == [{"field": "a", "reason": "not indexed"}]
    both = error_of(client.get("/pairs/explain", params={"a": "x", "b": "y"}), 404)
    assert [d["field"] for d in both["details"]] == ["a", "b"]
    error_of(client.get("/pairs/explain", params={"a": DATA_ENGINEER["id"]}), 422)


def test_a_single_link_merge_is_in_the_queue(client: TestClient) -> None:
    """The window bridge of test_merges: feb links jan and mar (74 days apart); its own
    score (0.98 with the default model) is far from the threshold, so the merge is the
    queue's one pair: feb and its candidate from the absorbed cluster."""
    for pid, day in (("jan", "2024-01-01"), ("mar", "2024-03-15"), ("feb", "2024-02-07")):
        verdict = dedup(client, posting(DATA_ENGINEER, id=pid, posted_at=day))
    assert verdict["cluster_id"] == "jan"
    link = next(c["score"] for c in verdict["candidates"] if c["id"] == "mar")
    threshold = get_json(client, "/ready")["scorer"]["threshold"]
    assert abs(verdict["score"] - threshold) > REVIEW_MARGIN

    def member(pid: str, day: str) -> dict[str, Any]:
        return {
            "id": pid,
            "title": "Data Engineer",
            "company": "Acme Ltd",
            "source": "indeed",
            "cluster_id": "jan",
            "posted_at": f"{day}T00:00:00Z",
        }

    assert get_json(client, "/review") == {
        "items": [
            {
                "a_id": "feb",
                "b_id": "mar",
                "score": link,
                "threshold": threshold,
                "reason": "single_link_merge",
                "same_cluster": True,
                "label": None,
                "a": member("feb", "2024-02-07"),
                "b": member("mar", "2024-03-15"),
            }
        ],
        "total": 1,
        "labelled": 0,
        "offset": 0,
        "limit": 50,
    }


def test_the_review_queue_of_an_empty_index_is_empty(client: TestClient) -> None:
    assert get_json(client, "/review") == {
        "items": [],
        "total": 0,
        "labelled": 0,
        "offset": 0,
        "limit": 50,
    }
    error_of(client.get("/review", params={"limit": 0}), 422)
    error_of(client.get("/review", params={"offset": -1}), 422)


def test_clusters_are_searched_by_member_title_and_show_their_canonical(
    settings: Settings,
) -> None:
    # The overlap baseline keeps the two nurse ads apart whatever the shipped model thinks
    # of them (the second could be a retitled re-post of the first).
    with TestClient(create_app(settings.model_copy(update={"scorer": "overlap"}))) as client:
        _search_clusters_by_title(client)


def _search_clusters_by_title(client: TestClient) -> None:
    for p in (NURSE_1, NURSE_2, WAREHOUSE_1, BARISTA):
        assert dedup(client, p)["status"] == "new"

    def ids(**params: Any) -> list[str]:
        return [c["id"] for c in get_json(client, "/clusters", **params)["clusters"]]

    assert ids(title="ACUTE medical") == ["nurse-2"]
    assert ids(title="nurse") == ["nurse-1", "nurse-2"]
    assert ids(title="nurse", source="nhs-jobs") == ["nurse-1"]
    assert ids(title="no such title") == []
    listing = {c["id"]: c for c in get_json(client, "/clusters")["clusters"]}
    assert listing["nurse-2"] == {
        "id": "nurse-2",
        "size": 1,
        "first_seen": "2024-05-03T09:00:00Z",
        "last_seen": "2024-05-03T09:00:00Z",
        "canonical_id": "nurse-2",
        "title": "Staff Nurse - Acute Medical Unit",
        "company": "St Mary's NHS Foundation Trust",
        "source": "indeed",
    }
    error_of(client.get("/clusters", params={"title": ""}), 422)
