"""The scorer's field memo holds indexed postings only: requests that store nothing (dry runs,
/pairs/score) must not fill it, or 100,000 of them grow the service's memory by the memo's
whole budget with postings that never come back as candidates."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi.testclient import TestClient

from classifier.model import LightGBMScorer
from classifier.scoring import candidate_for
from indexer.prepare import to_stored
from service.preparation import prepare_posting
from service.schemas import Posting
from tests.api.support import dedup
from tests.classifier.postings import NURSE_EN

ORIGINAL = {**NURSE_EN, "id": "indexed-1", "posted_at": "2024-03-01"}


def _memoised(client: TestClient, documents: list[dict[str, Any]]) -> set[str]:
    """Ids of `documents` whose extracted fields the running service's scorer holds."""
    scorer = client.app.state.deduplicator.scorer  # type: ignore[attr-defined]
    assert isinstance(scorer, LightGBMScorer)
    params = client.app.state.deduplicator.store.params  # type: ignore[attr-defined]
    now = datetime.now(UTC)
    query, _ = prepare_posting(Posting.model_validate(ORIGINAL).core(), params, now)
    candidates = []
    for document in documents:  # prepared as the service does: the memo's key is its hash
        prepared, _ = prepare_posting(Posting.model_validate(document).core(), params, now)
        candidates.append(candidate_for(query, to_stored(prepared, prepared.id)))
    return {d["id"] for d in documents} - scorer.wanted_documents(candidates)


def test_only_indexed_postings_enter_the_memo(client: TestClient) -> None:
    assert dedup(client, ORIGINAL)["status"] == "new"  # no candidate: nothing extracted yet
    assert _memoised(client, [ORIGINAL]) == set()

    dry = {**ORIGINAL, "id": "dry-1", "title": "Staff Nurse (Band 5)"}
    assert dedup(client, dry, dry_run="true")["candidates"]  # the scorer ran
    assert _memoised(client, [ORIGINAL, dry]) == {ORIGINAL["id"]}  # the indexed candidate

    a = {**ORIGINAL, "id": "pair-a", "posted_at": "2024-03-02"}
    b = {**ORIGINAL, "id": "pair-b", "posted_at": "2024-03-03"}
    answer = client.post("/pairs/score", json={"a": a, "b": b})
    assert answer.status_code == 200, answer.text
    assert _memoised(client, [ORIGINAL, dry, a, b]) == {ORIGINAL["id"]}

    repost = {**ORIGINAL, "id": "indexed-2", "posted_at": "2024-03-05"}
    assert dedup(client, repost)["status"] == "duplicate"
    assert _memoised(client, [ORIGINAL, repost, dry, a, b]) == {ORIGINAL["id"], repost["id"]}
