"""The in-memory store decides as the embedded index does (indexer.stores.memory).

The contract suite holds its answers to those of the adapters on disk method by method; this
holds the whole pipeline to them: the same stream of postings (re-posts, a window bridge that
merges two clusters, snippets, an update, a re-send) gives the same decisions on both, with
the trained model and with the overlap baseline. Tests of the layers above the port can then
run on it without a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from classifier.model import DEFAULT_MODEL_DIR, load_model
from classifier.scoring import OverlapScorer, PairScorer
from indexer.minhash import SketchParams
from indexer.store import IndexStore
from indexer.stores.memory import open_memory_store
from indexer.stores.sqlite.store import open_sqlite_store
from service.pipeline import Deduplicator
from service.schemas import Posting
from tests.api.postings import (
    ACCOUNT_EXECUTIVE,
    BARISTA,
    DATA_ENGINEER,
    DATA_ENGINEER_REPOST,
    STAFF_NURSE,
    WAREHOUSE_OPERATIVE,
    posting,
)
from tests.snippets import ANALYST_FULL, BAKER_FULL, DATA_ENGINEER_FULL, DATA_ENGINEER_SNIPPET

STREAM: list[dict[str, Any]] = [
    posting(DATA_ENGINEER, id="jan", posted_at="2024-01-01"),
    posting(DATA_ENGINEER, id="mar", posted_at="2024-03-15"),  # outside jan's 60-day window
    STAFF_NURSE,
    posting(DATA_ENGINEER, id="feb", posted_at="2024-02-07"),  # bridges jan and mar
    DATA_ENGINEER_REPOST,
    WAREHOUSE_OPERATIVE,
    posting(STAFF_NURSE, id="nurse-again", source="another-board"),
    ACCOUNT_EXECUTIVE,
    DATA_ENGINEER_FULL,
    ANALYST_FULL,
    DATA_ENGINEER_SNIPPET,
    BAKER_FULL,
    BARISTA,
    posting(BARISTA, title="Barista - Full Time"),  # an update of the same id
    STAFF_NURSE,  # sent again unchanged
]


def _decisions(store: IndexStore, scorer: PairScorer) -> list[dict[str, Any]]:
    dedup = Deduplicator(store, scorer)
    try:
        return [dedup.dedup(Posting.model_validate(p).core()).to_dict() for p in STREAM]
    finally:
        store.close()


@pytest.mark.parametrize("scorer_name", ["model", "overlap"])
def test_the_same_stream_decides_alike_in_memory_and_on_disk(
    tmp_path: Path, scorer_name: str
) -> None:
    scorer: PairScorer = (
        load_model(DEFAULT_MODEL_DIR) if scorer_name == "model" else OverlapScorer(threshold=0.7)
    )
    params = SketchParams()
    on_disk = _decisions(open_sqlite_store(tmp_path / "index", params), scorer)
    in_memory = _decisions(open_memory_store(None, params), scorer)
    assert in_memory == on_disk
    statuses = {d["status"] for d in on_disk}
    assert {"new", "duplicate", "updated", "unchanged"} <= statuses  # the stream covers them
    assert on_disk[3]["cluster_id"] == "jan" and on_disk[3]["status"] == "duplicate"
