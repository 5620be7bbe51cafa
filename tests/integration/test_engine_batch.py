"""batch() on the engine: the block's writes are read back before they are sent, and bulk
ingest decides exactly as posting one by one on the embedded index does."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from indexer.minhash import SketchParams
from indexer.store import CandidateQuery, Merge, WriteSet
from service.factory import build_deduplicator
from service.schemas import Posting
from service.settings import Settings
from tests.api.postings import (
    ACCOUNT_EXECUTIVE,
    BARISTA,
    DATA_ENGINEER,
    DATA_ENGINEER_REPOST,
    STAFF_NURSE,
    near_duplicate_pair,
    posting,
)
from tests.integration.engine import Engine, open_store, point_factory_at_engine
from tests.integration.support import record, upsert


def _keys(query: list[int]) -> CandidateQuery:
    return CandidateQuery(query, "", None, None, None, 50)


def test_reads_inside_a_batch_see_its_writes_and_other_threads_do_not(
    engine: Engine, url: str, prefix: str, params: SketchParams
) -> None:
    store = open_store(engine, prefix, params, url=url)
    try:
        upsert(store, record("old", cluster="A"), [1])
        seen_elsewhere: list[list[str]] = []

        def other_thread() -> None:
            seen_elsewhere.append([p.id for p in store.find_candidates(_keys([1]))])

        with store.batch():
            upsert(store, record("new", cluster="B"), [1, 2])
            store.apply(WriteSet(merges=[Merge("B", "A", "new")]))
            # Pending and indexed postings ranked together, the merge applied to both.
            found = store.find_candidates(_keys([1, 2]))
            assert [(p.id, p.cluster_id) for p in found] == [("new", "A"), ("old", "A")]
            assert store.resolve_cluster("B") == "A"
            info = store.get_cluster("B")
            assert info is not None and [m.id for m in info.members] == ["new", "old"]
            thread = threading.Thread(target=other_thread)
            thread.start()
            thread.join()
        assert seen_elsewhere == [["old"]]  # uncommitted writes stay with their batch
        assert [p.id for p in store.find_candidates(_keys([1]))] == ["new", "old"]
        assert store.resolve_cluster("B") == "A"
    finally:
        store.close()


def _stream() -> list[dict[str, Any]]:
    """Re-posts, a window bridge that merges two clusters, a retry and an update."""
    items: list[dict[str, Any]] = [
        posting(DATA_ENGINEER, id="jan", posted_at="2024-01-01"),
        posting(DATA_ENGINEER, id="mar", posted_at="2024-03-15"),
        ACCOUNT_EXECUTIVE,
        STAFF_NURSE,
        posting(DATA_ENGINEER, id="feb", posted_at="2024-02-07"),  # bridges jan and mar
        posting(DATA_ENGINEER_REPOST, posted_at="2024-02-08"),
        BARISTA,
        posting(STAFF_NURSE, id="nhs-5502", posted_at="2024-02-21"),
        STAFF_NURSE,  # a retry: unchanged
        posting(BARISTA, description=BARISTA["description"] + " Weekend shifts only."),
    ]
    for n in range(4):
        items += near_duplicate_pair(n, seed=500)
    return items


def test_bulk_ingest_decides_as_one_by_one_on_the_embedded_index(
    engine: Engine, url: str, prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    postings = [Posting.model_validate(item) for item in _stream()]
    reference = build_deduplicator(Settings(data_dir=tmp_path / "sqlite"))
    try:
        expected = [reference.dedup(p).to_dict() for p in postings]
        expected_export = list(reference.assignments())
    finally:
        reference.store.close()

    point_factory_at_engine(monkeypatch, engine, url)
    ingest = build_deduplicator(Settings(data_dir=tmp_path / "engine"))
    try:
        got = [d.to_dict() for d in ingest.dedup_stream(postings, group=4)]
        assert got == expected
        assert list(ingest.assignments()) == expected_export
        assert [d["status"] for d in got].count("duplicate") >= 6
    finally:
        ingest.store.close()
