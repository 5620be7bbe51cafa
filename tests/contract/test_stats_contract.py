"""`IndexStore.duplicate_stats` on every adapter: exact figures on a hand-made index.

The index (times UTC; 2024-03-04 is a Monday):

    cluster A: a1 03-04 indeed (canonical), a2 03-05 linkedin full, e1 03-07 linkedin semantic,
               a3 03-12 reed temporal, and d1 03-06 indeed: opened cluster D (decided new,
               no type), merged into A by e1 -> an "unknown" duplicate
    cluster B: b1 03-10 23:59:59 linkedin (canonical, Sunday), b2 03-11 00:00 indeed semantic
    cluster C: c1 02-28 indeed (canonical), c2 03-06 reed partial
    cluster F: f1 03-08, no source (canonical)
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from indexer.minhash import SketchParams
from indexer.store import (
    DuplicateStats,
    IndexStore,
    Merge,
    SourceOverlap,
    StatsBucket,
    StatsQuery,
    StoredPosting,
    WriteSet,
)

PARAMS = SketchParams(num_perm=16, bands=8, rows=2)
NO_TYPES = {"full": 0, "semantic": 0, "temporal": 0, "partial": 0, "unknown": 0}


@pytest.fixture
def params() -> SketchParams:
    return PARAMS


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def item(
    pid: str, cluster: str, posted: str, source: str | None, company: str, kind: str | None
) -> StoredPosting:
    rng = np.random.default_rng(sum(map(ord, pid)))
    return StoredPosting(
        id=pid,
        content_hash=f"h-{pid}",
        posted_at=at(posted),
        title=f"Title {pid}",
        company=company.upper(),
        source=source,
        company_key=company,
        block_key="",
        sketch=rng.integers(-(2**62), 2**62, size=PARAMS.num_perm, dtype=np.int64),
        shingle_count=40,
        cluster_id=cluster,
        document={"id": pid},
        decision={"id": pid, "cluster_id": cluster, "duplicate_type": kind},
    )


def build(store: IndexStore) -> None:
    """The index of the module docstring, written in an order that needs a merge."""
    for posting in (
        item("c1", "C", "2024-02-28T12:00:00", "indeed", "initech", None),
        item("a1", "A", "2024-03-04T10:00:00", "indeed", "acme", None),
        item("a2", "A", "2024-03-05T09:00:00", "linkedin", "acme", "full"),
        item("c2", "C", "2024-03-06T08:00:00", "reed", "initech", "partial"),
        item("d1", "D", "2024-03-06T11:00:00", "indeed", "acme", None),
        item("f1", "F", "2024-03-08T10:00:00", None, "acme", None),
        item("b1", "B", "2024-03-10T23:59:59", "linkedin", "globex", None),
        item("b2", "B", "2024-03-11T00:00:00", "indeed", "globex", "semantic"),
        item("a3", "A", "2024-03-12T10:00:00", "reed", "acme", "temporal"),
    ):
        store.apply(WriteSet(upserts=[(posting, [])]))
    e1 = item("e1", "A", "2024-03-07T10:00:00", "linkedin", "acme", "semantic")
    store.apply(WriteSet(upserts=[(e1, [])], merges=[Merge("D", "A", "e1")]))


def bucket(
    start: str, group: str | None, postings: int, distinct: int, **types: int
) -> StatsBucket:
    return StatsBucket(at(start), group, postings, distinct, {**NO_TYPES, **types})


def test_weekly_buckets_start_on_monday_and_count_duplicates_by_type(store: IndexStore) -> None:
    build(store)

    stats = store.duplicate_stats(StatsQuery(interval="week"))

    assert stats.buckets == [
        bucket("2024-02-26", None, 1, 1),
        bucket("2024-03-04", None, 7, 3, full=1, semantic=1, partial=1, unknown=1),
        bucket("2024-03-11", None, 2, 0, semantic=1, temporal=1),
    ]
    assert [(b.duplicates, round(b.duplicate_rate, 4)) for b in stats.buckets] == [
        (0, 0.0),
        (4, 0.5714),
        (2, 1.0),
    ]


def test_monthly_and_daily_buckets(store: IndexStore) -> None:
    build(store)

    months = store.duplicate_stats(StatsQuery(interval="month")).buckets
    days = store.duplicate_stats(StatsQuery(interval="day")).buckets

    assert months == [
        bucket("2024-02-01", None, 1, 1),
        bucket("2024-03-01", None, 9, 3, full=1, semantic=2, temporal=1, partial=1, unknown=1),
    ]
    by_day = {b.start.date().isoformat(): (b.postings, b.distinct) for b in days}
    assert by_day == {
        "2024-02-28": (1, 1),
        "2024-03-04": (1, 1),
        "2024-03-05": (1, 0),
        "2024-03-06": (2, 0),
        "2024-03-07": (1, 0),
        "2024-03-08": (1, 1),
        "2024-03-10": (1, 1),
        "2024-03-11": (1, 0),
        "2024-03-12": (1, 0),
    }


def test_groups_by_source_and_by_company(store: IndexStore) -> None:
    build(store)

    by_source = store.duplicate_stats(StatsQuery(interval="week", by="source")).buckets
    by_company = store.duplicate_stats(StatsQuery(interval="week", by="company")).buckets

    assert by_source == [
        bucket("2024-02-26", "indeed", 1, 1),
        bucket("2024-03-04", None, 1, 1),
        bucket("2024-03-04", "indeed", 2, 1, unknown=1),
        bucket("2024-03-04", "linkedin", 3, 1, full=1, semantic=1),
        bucket("2024-03-04", "reed", 1, 0, partial=1),
        bucket("2024-03-11", "indeed", 1, 0, semantic=1),
        bucket("2024-03-11", "reed", 1, 0, temporal=1),
    ]
    assert by_company == [
        bucket("2024-02-26", "initech", 1, 1),
        bucket("2024-03-04", "acme", 5, 2, full=1, semantic=1, unknown=1),
        bucket("2024-03-04", "globex", 1, 1),
        bucket("2024-03-04", "initech", 1, 0, partial=1),
        bucket("2024-03-11", "acme", 1, 0, temporal=1),
        bucket("2024-03-11", "globex", 1, 0, semantic=1),
    ]


def test_since_is_inclusive_and_until_exclusive(store: IndexStore) -> None:
    build(store)

    stats = store.duplicate_stats(
        StatsQuery(since=at("2024-03-05T09:00:00"), until=at("2024-03-11T00:00:00"))
    )

    # a2 (at since) is in, b2 (at until) is out; the bucket is still labelled by its Monday
    assert stats.buckets == [
        bucket("2024-03-04", None, 6, 2, full=1, semantic=1, partial=1, unknown=1)
    ]


def test_windows_inside_days_count_to_the_microsecond(store: IndexStore) -> None:
    build(store)

    one_day = store.duplicate_stats(
        StatsQuery(since=at("2024-03-06T10:00:00"), until=at("2024-03-06T12:00:00"))
    )
    edges = store.duplicate_stats(
        StatsQuery(
            since=at("2024-03-04T10:00:00.000001"),
            until=at("2024-03-10T23:59:59.000001"),
            interval="day",
        )
    )

    assert one_day.buckets == [bucket("2024-03-04", None, 1, 0, unknown=1)]  # d1 only
    # a1 (10:00:00) is just out, b1 (23:59:59) just in
    assert [(b.start.day, b.postings) for b in edges.buckets] == [
        (5, 1),
        (6, 2),
        (7, 1),
        (8, 1),
        (10, 1),
    ]


def test_board_overlap_counts_clusters_holding_both_sources(store: IndexStore) -> None:
    build(store)

    everything = store.duplicate_stats(StatsQuery())
    late = store.duplicate_stats(StatsQuery(since=at("2024-03-11T00:00:00")))
    early = store.duplicate_stats(StatsQuery(until=at("2024-03-01T00:00:00")))

    assert everything.source_clusters == {"indeed": 3, "linkedin": 2, "reed": 2}
    assert everything.overlaps == [
        SourceOverlap("indeed", "linkedin", 2),
        SourceOverlap("indeed", "reed", 2),
        SourceOverlap("linkedin", "reed", 1),
    ]
    # clusters A and B are still seen from 03-11 on; C (last seen 03-06) is not
    assert late.source_clusters == {"indeed": 2, "linkedin": 2, "reed": 1}
    assert late.overlaps == [
        SourceOverlap("indeed", "linkedin", 2),
        SourceOverlap("indeed", "reed", 1),
        SourceOverlap("linkedin", "reed", 1),
    ]
    assert early.source_clusters == {"indeed": 1, "reed": 1}
    assert early.overlaps == [SourceOverlap("indeed", "reed", 1)]


def test_deleting_a_canonical_makes_the_next_member_distinct(store: IndexStore) -> None:
    build(store)

    store.apply(WriteSet(deletions=["a1", "c1"]))
    stats = store.duplicate_stats(StatsQuery(interval="week"))

    # a2 now opens cluster A, c2 opens C: both count as distinct, no longer as duplicates
    assert stats.buckets == [
        bucket("2024-03-04", None, 6, 4, semantic=1, unknown=1),
        bucket("2024-03-11", None, 2, 0, semantic=1, temporal=1),
    ]


def test_an_earlier_posting_backfilled_takes_over_as_canonical(store: IndexStore) -> None:
    build(store)
    early = item("b0", "B", "2024-03-01T08:00:00", "reed", "globex", "full")

    store.apply(WriteSet(upserts=[(early, [])]))
    stats = store.duplicate_stats(StatsQuery(interval="week"))

    # b0 is B's canonical now (distinct although its decision has a type); b1 a duplicate
    # whose decision has none
    assert stats.buckets == [
        bucket("2024-02-26", None, 2, 2),
        bucket("2024-03-04", None, 7, 2, full=1, semantic=1, partial=1, unknown=2),
        bucket("2024-03-11", None, 2, 0, semantic=1, temporal=1),
    ]


def test_writes_of_an_open_batch_are_counted(store: IndexStore) -> None:
    with store.batch():
        build(store)
        stats = store.duplicate_stats(StatsQuery(interval="month"))

    assert [(b.postings, b.distinct) for b in stats.buckets] == [(1, 1), (9, 3)]


def test_an_empty_index_or_window_has_no_buckets(store: IndexStore) -> None:
    assert store.duplicate_stats(StatsQuery()) == DuplicateStats([], {}, [])
    build(store)
    empty = StatsQuery(since=at("2025-01-01T00:00:00"), until=at("2025-02-01T00:00:00"))
    assert store.duplicate_stats(empty) == DuplicateStats([], {}, [])


def test_the_query_is_checked() -> None:
    with pytest.raises(ValueError, match="since"):
        StatsQuery(since=at("2024-03-02T00:00:00"), until=at("2024-03-01T00:00:00"))
    with pytest.raises(ValueError, match="interval"):
        StatsQuery(interval="year")  # type: ignore[arg-type]
