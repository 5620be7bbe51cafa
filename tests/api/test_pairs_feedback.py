"""POST /pairs/score, POST /dedup?explain=true and POST /feedback."""

from __future__ import annotations

from fastapi.testclient import TestClient

from indexer.store import Feedback
from service.pipeline import Deduplicator
from tests.api.postings import ACCOUNT_EXECUTIVE, DATA_ENGINEER, DATA_ENGINEER_REPOST
from tests.api.support import dedup, error_of, fields_of
from tests.classifier.postings import WAREHOUSE_EN, WELDER_EN, WELDER_PL


def test_pair_score_of_a_repost_is_a_duplicate_with_contributions(client: TestClient) -> None:
    response = client.post("/pairs/score", json={"a": DATA_ENGINEER_REPOST, "b": DATA_ENGINEER})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["duplicate"] is True
    assert body["probability"] >= body["threshold"]
    assert body["duplicate_type"] in ("full", "semantic", "temporal", "partial")
    assert body["overlap"] > 0.9
    assert body["contributions"] and {"feature", "value", "contribution"} <= set(
        body["contributions"][0]
    )
    # Nothing was indexed.
    assert client.get(f"/postings/{DATA_ENGINEER['id']}").status_code == 404


def test_pair_score_of_different_jobs_is_not_a_duplicate(client: TestClient) -> None:
    response = client.post("/pairs/score", json={"a": ACCOUNT_EXECUTIVE, "b": DATA_ENGINEER})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["duplicate"] is False
    assert body["duplicate_type"] is None
    assert body["probability"] < body["threshold"]


def test_pair_score_rejects_an_invalid_side(client: TestClient) -> None:
    bad = {k: v for k, v in DATA_ENGINEER.items() if k != "title"}
    error = error_of(client.post("/pairs/score", json={"a": bad, "b": DATA_ENGINEER}), 422)
    assert "a.title" in fields_of(error)


def test_explain_adds_contributions_for_the_best_candidate(client: TestClient) -> None:
    dedup(client, DATA_ENGINEER)
    plain = dedup(client, DATA_ENGINEER_REPOST, dry_run="true")
    assert plain.get("explanation") is None
    explained = dedup(client, DATA_ENGINEER_REPOST, explain="true")
    assert explained["status"] == "duplicate"
    assert explained["explanation"]
    assert explained["explanation"][0]["feature"]


def test_feedback_is_stored_for_indexed_postings(client: TestClient) -> None:
    dedup(client, DATA_ENGINEER)
    dedup(client, ACCOUNT_EXECUTIVE)
    label = {"a_id": DATA_ENGINEER["id"], "b_id": ACCOUNT_EXECUTIVE["id"], "label": "duplicate"}
    response = client.post("/feedback", json=label)
    assert response.status_code == 200, response.text
    assert response.json() == {**label, "stored": True}
    deduplicator: Deduplicator = client.app.state.deduplicator  # type: ignore[attr-defined]
    stored: list[Feedback] = list(deduplicator.store.iter_feedback())
    assert [(f.label, {f.a_id, f.b_id}) for f in stored] == [
        ("duplicate", {DATA_ENGINEER["id"], ACCOUNT_EXECUTIVE["id"]})
    ]
    # The documents are kept with the label, as they were when it was given.
    assert stored[0].a_document["id"] == stored[0].a_id
    assert stored[0].b_document["id"] == stored[0].b_id


def test_feedback_on_unknown_posting_is_404_and_stores_nothing(client: TestClient) -> None:
    dedup(client, DATA_ENGINEER)
    label = {"a_id": DATA_ENGINEER["id"], "b_id": "nope", "label": "not_duplicate"}
    error = error_of(client.post("/feedback", json=label), 404)
    assert fields_of(error) == ["b_id"]
    deduplicator: Deduplicator = client.app.state.deduplicator  # type: ignore[attr-defined]
    assert list(deduplicator.store.iter_feedback()) == []


def test_feedback_label_must_be_known(client: TestClient) -> None:
    label = {"a_id": "x", "b_id": "y", "label": "maybe"}
    assert "label" in fields_of(error_of(client.post("/feedback", json=label), 422))


def test_pair_score_recognises_a_translated_repost(client: TestClient) -> None:
    """The shipped model: a Polish ad and its English translation share names, codes and
    figures but no shingles; another English ad placed in the same city is not a re-post."""
    body = client.post("/pairs/score", json={"a": WELDER_PL, "b": WELDER_EN}).json()
    assert body["duplicate"] is True, body
    assert body["overlap"] < 0.1  # the text itself says "different ads"
    other = client.post("/pairs/score", json={"a": WELDER_PL, "b": WAREHOUSE_EN}).json()
    assert other["duplicate"] is False, other
