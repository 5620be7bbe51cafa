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
    return items + _board_intro_stream()


INTRO = (
    "Our teams build reliable services for customers across the whole region every day. "
    "We value curiosity, kindness and the courage to try new ideas in everything we do."
)


def _board_intro_stream() -> list[dict[str, Any]]:
    """Six employers' ads opening with one board's intro, and re-posts: the intro becomes
    boilerplate at the fourth employer, inside a group, which changes the keys the later
    postings of that group search with (what the engine's read-ahead must predict)."""
    items: list[dict[str, Any]] = []
    for n in range(6):
        original, repost = near_duplicate_pair(n + 10, seed=900)
        for item in (original, repost):
            item["description"] = f"{INTRO} {item['description']}"
            item["posted_at"] = f"2024-06-{n + 1:02d}T09:00:00Z"
        items.append(original)
        if n % 2:
            items.append(repost)
    return items


@pytest.mark.parametrize("group", [4, 256])
def test_bulk_ingest_decides_as_one_by_one_on_the_embedded_index(
    engine: Engine,
    url: str,
    prefix: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    group: int,
) -> None:
    """Groups of 4, and one group holding the whole stream (its reads announced 64 at a
    time: `service.pipeline.READ_AHEAD`)."""
    postings = [Posting.model_validate(item).core() for item in _stream()]
    reference = build_deduplicator(Settings(data_dir=tmp_path / "sqlite"))
    try:
        expected = [reference.dedup(p).to_dict() for p in postings]
        expected_export = list(reference.assignments())
    finally:
        reference.store.close()

    point_factory_at_engine(monkeypatch, engine, url)
    ingest = build_deduplicator(Settings(data_dir=tmp_path / "engine"))
    try:
        got = [d.to_dict() for d in ingest.dedup_stream(postings, group=group)]
        assert got == expected
        assert list(ingest.assignments()) == expected_export
        assert [d["status"] for d in got].count("duplicate") >= 6
    finally:
        ingest.store.close()


def test_a_group_updating_a_candidate_of_its_later_posting_decides_as_one_by_one(
    engine: Engine, url: str, prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine holds an ad; one group updates it and then brings its re-post. The re-post's
    search, run ahead of the group, found the stored version, which by then is pending: the
    answer must be the pending version alone, as a live search merged with the group's
    writes gives it (a stale copy beside it would be a second candidate)."""
    before = [Posting.model_validate(p).core() for p in (DATA_ENGINEER, STAFF_NURSE, BARISTA)]
    edited = DATA_ENGINEER["description"] + " Hybrid working, two days a week in Lyon."
    group = [
        Posting.model_validate(p).core()
        for p in (
            ACCOUNT_EXECUTIVE,
            posting(DATA_ENGINEER, description=edited),  # an update of the stored ad
            DATA_ENGINEER_REPOST,  # its re-post, searching while the update is pending
            posting(STAFF_NURSE, id="nhs-5503", posted_at="2024-02-22"),
        )
    ]
    reference = build_deduplicator(Settings(data_dir=tmp_path / "sqlite"))
    try:
        expected = [reference.dedup(p).to_dict() for p in [*before, *group]]
    finally:
        reference.store.close()
    point_factory_at_engine(monkeypatch, engine, url)
    ingest = build_deduplicator(Settings(data_dir=tmp_path / "engine"))
    try:
        got = [d.to_dict() for d in ingest.dedup_stream(before, group=len(before))]
        got += [d.to_dict() for d in ingest.dedup_stream(group, group=len(group))]
        assert got == expected
        repost = got[len(before) + 2]
        assert [c["id"] for c in repost["candidates"]].count(DATA_ENGINEER["id"]) == 1
    finally:
        ingest.store.close()
