"""Cluster merges: a posting that duplicates two clusters folds the younger into the older.

Two real ways a posting links two clusters:
- a window bridge: identical ads 74 days apart are outside each other's 60-day window (two
  clusters); a third copy posted in between matches both exactly (default settings);
- containment: C's description is A's text followed by B's. C's true overlap coefficient with
  each is 1.0, but it is *estimated* from the MinHash sketches, and the two estimates are
  anti-correlated (each slot of C's sketch comes from A or from B: the Jaccard estimates
  correlate at about -0.97), so both reach the default threshold (0.99) only by luck: for
  about 1 pair in 6 of ~100-word ads. The containment test therefore sets threshold 0.7, far
  above the overlap of the two unrelated ads (~0) and below any estimate of a true
  containment seen in 400 trials (>= 0.83).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.api import create_app
from service.settings import Settings
from tests.api.postings import BARISTA_TEXT, DATA_ENGINEER, STAFF_NURSE_TEXT, posting
from tests.api.support import dedup, get_json

NURSE: dict[str, Any] = {
    "title": "Staff Nurse",
    "company": "St Mary's NHS Foundation Trust",
    "description": STAFF_NURSE_TEXT,
}
COFFEE: dict[str, Any] = {
    "title": "Barista",
    "company": "Little Bean Coffee",
    "description": BARISTA_TEXT,
}
BOTH: dict[str, Any] = {
    "title": "Seasonal vacancies",
    "company": "Harbour Staffing Agency",
    "description": STAFF_NURSE_TEXT + "\n\n" + BARISTA_TEXT,
}


def test_window_bridge_merges_two_clusters_with_default_settings(client: TestClient) -> None:
    early = dedup(client, posting(DATA_ENGINEER, id="jan", posted_at="2024-01-01"))
    late = dedup(client, posting(DATA_ENGINEER, id="mar", posted_at="2024-03-15"))
    assert (early["status"], late["status"]) == ("new", "new")  # 74 days apart: two clusters

    bridge = dedup(client, posting(DATA_ENGINEER, id="feb", posted_at="2024-02-07"))

    assert bridge["status"] == "duplicate"
    assert bridge["cluster_id"] == "jan"  # the older cluster survives
    assert bridge["duplicate_of"] == "jan"
    assert sorted(c["id"] for c in bridge["candidates"]) == ["jan", "mar"]
    survivor = get_json(client, "/clusters/jan")
    assert survivor["size"] == 3
    assert survivor["aliases"] == ["mar"]
    assert [m["id"] for m in survivor["members"]] == ["jan", "feb", "mar"]
    absorbed = get_json(client, "/clusters/mar")
    assert absorbed["id"] == "jan"
    assert absorbed == survivor
    assert get_json(client, "/postings/mar")["cluster_id"] == "jan"
    assert get_json(client, "/postings/mar")["duplicate_of"] == "jan"
    assert [c["id"] for c in get_json(client, "/clusters")["clusters"]] == ["jan"]


@pytest.mark.parametrize(
    ("a_day", "b_day", "survivor", "absorbed"),
    [
        ("2024-03-01", "2024-03-02", "A", "B"),  # A is older and arrived first
        ("2024-03-05", "2024-03-02", "B", "A"),  # A arrived first but B is older
    ],
)
def test_posting_containing_two_ads_merges_their_clusters(
    tmp_path: Path, a_day: str, b_day: str, survivor: str, absorbed: str
) -> None:
    with TestClient(
        create_app(Settings(data_dir=tmp_path, scorer="overlap", threshold=0.7))
    ) as client:
        assert dedup(client, {**NURSE, "id": "A", "posted_at": a_day})["status"] == "new"
        assert dedup(client, {**COFFEE, "id": "B", "posted_at": b_day})["status"] == "new"

        merged = dedup(client, {**BOTH, "id": "C", "posted_at": "2024-03-06"})

        assert merged["status"] == "duplicate"
        assert merged["cluster_id"] == survivor
        assert merged["duplicate_of"] == survivor
        assert merged["duplicate_type"] == "partial"
        assert {c["cluster_id"] for c in merged["candidates"]} == {"A", "B"}
        via_alias = get_json(client, f"/clusters/{absorbed}")
        assert via_alias["id"] == survivor
        assert via_alias["aliases"] == [absorbed]
        assert via_alias["size"] == 3
        assert via_alias["canonical_id"] == survivor
        assert sorted(m["id"] for m in via_alias["members"]) == ["A", "B", "C"]
        assert get_json(client, f"/clusters/{survivor}") == via_alias
        moved = get_json(client, f"/postings/{absorbed}")
        assert moved["cluster_id"] == survivor
        assert moved["duplicate_of"] == survivor
        assert [c["id"] for c in get_json(client, "/clusters")["clusters"]] == [survivor]
        # a later copy of the absorbed ad joins the survivor directly
        text = COFFEE if absorbed == "B" else NURSE
        follow = dedup(client, {**text, "id": "D", "posted_at": "2024-03-07"})
        assert follow["cluster_id"] == survivor
        assert follow["duplicate_of"] == survivor


# -- the judged-distinct rule (service.bridging) ----------------------------------------------

_CAMPAIGN_TEXT = DATA_ENGINEER["description"]
LYON = posting(DATA_ENGINEER, id="lyon", location="Lyon", posted_at="2024-03-01T09:00:00Z")
GRENOBLE = posting(
    DATA_ENGINEER,
    id="grenoble",
    location="Grenoble",
    description=_CAMPAIGN_TEXT.replace("Lyon", "Grenoble"),
    posted_at="2024-03-01T10:00:00Z",
)
# The campaign's ad without a place: it matches both towns' ads (scores ~0.94).
NOWHERE = posting(
    DATA_ENGINEER,
    id="nowhere",
    location=None,
    description=_CAMPAIGN_TEXT.replace(" in Lyon", ""),
    posted_at="2024-03-02T09:00:00Z",
)


def test_a_posting_never_merges_two_vacancies_the_index_told_apart(client: TestClient) -> None:
    """One text posted for two towns: scored apart (different places). An ad of the campaign
    that names no place matches both, joins one, and merges nothing."""
    assert dedup(client, LYON)["status"] == "new"
    grenoble = dedup(client, GRENOBLE)
    assert grenoble["status"] == "new"
    assert [c["id"] for c in grenoble["candidates"]] == ["lyon"]  # scored, and below

    vague = dedup(client, NOWHERE)

    assert vague["status"] == "duplicate"
    assert {c["id"] for c in vague["candidates"]} == {"lyon", "grenoble"}
    threshold = get_json(client, "/ready")["scorer"]["threshold"]
    assert all(c["score"] >= threshold for c in vague["candidates"])  # both would have linked
    joined = get_json(client, f"/clusters/{vague['cluster_id']}")
    assert joined["aliases"] == []
    assert joined["size"] == 2
    other = "lyon" if vague["cluster_id"] == "grenoble" else "grenoble"
    assert get_json(client, f"/clusters/{other}")["size"] == 1
    assert len(get_json(client, "/clusters")["clusters"]) == 2


def test_a_duplicate_label_lets_the_link_merge_them(client: TestClient) -> None:
    """An analyst's `duplicate` label outweighs the low recorded score."""
    dedup(client, LYON)
    dedup(client, GRENOBLE)
    label = {"a_id": "grenoble", "b_id": "lyon", "label": "duplicate"}
    assert client.post("/feedback", json=label).status_code == 200

    vague = dedup(client, NOWHERE)

    assert vague["cluster_id"] == "lyon"  # merged: the older cluster survives
    merged = get_json(client, "/clusters/lyon")
    assert merged["aliases"] == ["grenoble"]
    assert merged["size"] == 3


def test_a_not_duplicate_label_stops_a_window_bridge(client: TestClient) -> None:
    """Identical ads 74 days apart (two clusters, never compared) labelled different
    vacancies: a copy in between joins one and does not merge them."""
    dedup(client, posting(DATA_ENGINEER, id="jan", posted_at="2024-01-01"))
    dedup(client, posting(DATA_ENGINEER, id="mar", posted_at="2024-03-15"))
    label = {"a_id": "jan", "b_id": "mar", "label": "not_duplicate"}
    assert client.post("/feedback", json=label).status_code == 200

    bridge = dedup(client, posting(DATA_ENGINEER, id="feb", posted_at="2024-02-07"))

    assert bridge["status"] == "duplicate"
    assert sorted(c["id"] for c in bridge["candidates"]) == ["jan", "mar"]
    assert get_json(client, f"/clusters/{bridge['cluster_id']}")["aliases"] == []
    assert len(get_json(client, "/clusters")["clusters"]) == 2
