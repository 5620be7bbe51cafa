"""Behaviour every `IndexStore` adapter must have, written against the port only."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from indexer.minhash import Sketch, SketchParams, band_keys, sketch_tokens
from indexer.store import (
    Assignment,
    CandidateQuery,
    ClusterFilter,
    Feedback,
    IncompatibleIndex,
    IndexStore,
    Merge,
    StoredPosting,
    WriteSet,
)

PARAMS = SketchParams(num_perm=16, bands=8, rows=2)
T0 = datetime(2024, 3, 1, 9, 30, tzinfo=UTC)
INT64_MIN, INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)
StoreFactory = Callable[[Path, SketchParams], IndexStore]  # as registered in conftest


@pytest.fixture
def params() -> SketchParams:
    return PARAMS


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def random_sketch(seed: int) -> Sketch:
    rng = np.random.default_rng(seed)
    return rng.integers(INT64_MIN, INT64_MAX, size=PARAMS.num_perm, dtype=np.int64, endpoint=True)


def posting(
    pid: str,
    *,
    cluster: str | None = None,
    posted: datetime | None = None,
    block_key: str = "",
    company_key: str = "acme",
    source: str | None = "board",
    seed: int = 0,
) -> StoredPosting:
    return StoredPosting(
        id=pid,
        content_hash=f"hash-{pid}",
        posted_at=posted or T0,
        title=f"Title {pid}",
        company="ACME Corp",
        source=source,
        company_key=company_key,
        block_key=block_key,
        sketch=random_sketch(seed),
        shingle_count=40,
        cluster_id=cluster or f"c-{pid}",
        document={"id": pid},
        decision={"cluster_id": cluster or f"c-{pid}"},
    )


def upsert(store: IndexStore, item: StoredPosting, keys: Sequence[int] = ()) -> None:
    store.apply(WriteSet(upserts=[(item, list(keys))]))


def query(
    keys: Sequence[int] = (),
    block_key: str = "",
    since: datetime | None = None,
    until: datetime | None = None,
    exclude_id: str | None = None,
    limit: int = 50,
) -> CandidateQuery:
    return CandidateQuery(list(keys), block_key, since, until, exclude_id, limit)


def ids(postings: Sequence[StoredPosting]) -> list[str]:
    return [p.id for p in postings]


def assert_same_posting(got: StoredPosting | None, want: StoredPosting) -> None:
    assert got is not None
    assert got.sketch.dtype == np.int64
    np.testing.assert_array_equal(got.sketch, want.sketch)
    assert got.posted_at == want.posted_at
    assert got.posted_at.tzinfo is not None
    fields: dict[str, Any] = {**vars(got), "sketch": None, "posted_at": None}
    assert fields == {**vars(want), "sketch": None, "posted_at": None}


# -- postings ---------------------------------------------------------------------------------


def test_posting_round_trips_exactly(store: IndexStore) -> None:
    sketch = random_sketch(7)
    sketch[:4] = [INT64_MIN, INT64_MAX, -1, 0]
    original = StoredPosting(
        id="p-1",
        content_hash="abc123",
        posted_at=datetime(2024, 2, 29, 23, 59, 59, 999_999, tzinfo=timezone(timedelta(hours=2))),
        title="Développeur·se Python (H/F)",
        company=None,
        source=None,
        company_key="",
        block_key="developpeur python|",
        sketch=sketch,
        shingle_count=123,
        cluster_id="c-1",
        document={"title": "Développeur", "tags": ["a", 1, 2.5, None, True], "nested": {"k": {}}},
        decision={"status": "new", "score": 0.875, "duplicate_of": None},
    )
    store.apply(WriteSet(upserts=[(original, [1, -2, INT64_MIN, INT64_MAX, 1])]))

    assert_same_posting(store.get_posting("p-1"), original)
    assert store.get_posting("missing") is None
    assert ids(store.find_candidates(query([INT64_MIN]))) == ["p-1"]
    assert ids(store.find_candidates(query([INT64_MAX]))) == ["p-1"]
    assert ids(store.find_candidates(query([1, -2, 1]))) == ["p-1"]  # repeated keys count once


@pytest.mark.parametrize("language", ["fr", "", None])
def test_the_reading_language_is_kept_for_full_and_candidate_reads(
    store: IndexStore, language: str | None
) -> None:
    """What the posting's reading found ("" for nothing) comes back from a full read and
    from a candidate search, so a candidate's fields skip the language identifier; None
    (not kept) stays None, never "" (which would say "no language")."""
    upsert(store, replace(posting("p"), language=language), [5])
    found = store.get_posting("p")
    assert found is not None and found.language == language
    (candidate,) = store.find_candidates(query([5]))
    assert candidate.language == language


def test_posted_at_in_another_timezone_compares_by_instant(store: IndexStore) -> None:
    paris = timezone(timedelta(hours=1))
    upsert(store, posting("a", posted=datetime(2024, 3, 1, 10, 30, tzinfo=paris)), [1])
    found = store.find_candidates(query([1], since=T0, until=T0))
    assert ids(found) == ["a"]
    assert found[0].posted_at == T0


def test_upsert_replaces_posting_and_its_band_keys(store: IndexStore) -> None:
    upsert(store, posting("a", posted=day(0)), [1, 2])
    replacement = posting("a", posted=day(5), seed=3, cluster="c-other")
    upsert(store, replacement, [5, 6])

    assert_same_posting(store.get_posting("a"), replacement)
    assert store.find_candidates(query([1, 2])) == []
    assert ids(store.find_candidates(query([6], since=day(5), until=day(5)))) == ["a"]
    assert store.find_candidates(query([6], until=day(4))) == []
    assert store.get_cluster("c-a") is None
    assert store.stats().postings == 1


def test_deletion_removes_posting_keys_and_empty_cluster(store: IndexStore) -> None:
    upsert(store, posting("a", cluster="c1", block_key="acme|dev"), [1])
    upsert(store, posting("b", cluster="c2"), [1])
    store.apply(WriteSet(deletions=["a", "never-existed"]))

    assert store.get_posting("a") is None
    assert ids(store.find_candidates(query([1], block_key="acme|dev"))) == ["b"]
    assert store.get_cluster("c1") is None
    assert store.resolve_cluster("c1") is None
    assert store.stats().postings == 1


def test_expire_deletes_what_was_posted_before_and_keeps_clusters_consistent(
    store: IndexStore,
) -> None:
    upsert(store, posting("old-alone", cluster="c-alone", posted=day(0)), [1])
    upsert(store, posting("old-first", cluster="c-shared", posted=day(1)), [1])
    upsert(store, posting("kept-second", cluster="c-shared", posted=day(3)), [1])
    upsert(store, posting("kept-new", cluster="c-new", posted=day(4)), [1])

    assert store.expire(day(2), chunk=1) == 2  # chunk by chunk: every one of them goes
    assert store.expire(day(2)) == 0

    assert store.get_posting("old-alone") is None and store.get_posting("old-first") is None
    assert store.get_cluster("c-alone") is None
    shared = store.get_cluster("c-shared")
    assert shared is not None and shared.size == 1
    assert shared.canonical_id == "kept-second" and shared.first_seen == day(3)
    assert ids(store.find_candidates(query([1]))) == ["kept-second", "kept-new"]
    assert [a.id for a in store.iter_assignments()] == ["kept-new", "kept-second"]
    assert store.stats().postings == 2


# -- candidates -------------------------------------------------------------------------------


def test_candidates_by_band_key_ordered_by_shared_keys(store: IndexStore) -> None:
    upsert(store, posting("one-shared", posted=day(0)), [3, 40])
    upsert(store, posting("three-shared", posted=day(2)), [1, 2, 3])
    upsert(store, posting("two-shared-late", posted=day(1)), [1, 2, 50])
    upsert(store, posting("two-shared-early-b", posted=day(-1)), [2, 3])
    upsert(store, posting("two-shared-early-a", posted=day(-1)), [1, 3])
    upsert(store, posting("unrelated", posted=day(0)), [99])

    found = store.find_candidates(query([1, 2, 3]))
    assert ids(found) == [
        "three-shared",
        "two-shared-early-a",
        "two-shared-early-b",
        "two-shared-late",
        "one-shared",
    ]
    assert ids(store.find_candidates(query([1, 2, 3], limit=2))) == ids(found)[:2]
    assert store.find_candidates(query([])) == []


def test_candidates_by_block_key(store: IndexStore) -> None:
    upsert(store, posting("same-block", block_key="acme|engineer", posted=day(1)), [100])
    upsert(store, posting("shares-key", block_key="other|x", posted=day(2)), [1])
    upsert(store, posting("empty-block", block_key=""), [200])
    upsert(store, posting("bar-block", block_key="|"), [300])

    assert ids(store.find_candidates(query([1], block_key="acme|engineer"))) == [
        "shares-key",
        "same-block",
    ]
    assert ids(store.find_candidates(query([], block_key="acme|engineer"))) == ["same-block"]
    assert store.find_candidates(query([], block_key="")) == []
    assert store.find_candidates(query([], block_key="|")) == []


def test_band_and_block_match_count_once(store: IndexStore) -> None:
    upsert(store, posting("both", block_key="acme|dev", posted=day(3)), [1])
    upsert(store, posting("keys-only", posted=day(0)), [1, 2])
    found = store.find_candidates(query([1, 2], block_key="acme|dev"))
    assert ids(found) == ["keys-only", "both"]


def test_candidate_window_is_inclusive_on_both_paths(store: IndexStore) -> None:
    tick = timedelta(microseconds=1)
    for pid, when in {
        "before": day(0) - tick,
        "start": day(0),
        "end": day(10),
        "after": day(10) + tick,
    }.items():
        upsert(store, posting(pid, posted=when, block_key="acme|dev"), [7])

    by_key = store.find_candidates(query([7], since=day(0), until=day(10)))
    by_block = store.find_candidates(query([], block_key="acme|dev", since=day(0), until=day(10)))
    assert ids(by_key) == ids(by_block) == ["start", "end"]
    assert ids(store.find_candidates(query([7], since=day(10)))) == ["end", "after"]
    assert ids(store.find_candidates(query([7], until=day(0)))) == ["before", "start"]


def test_candidates_exclude_the_query_posting(store: IndexStore) -> None:
    upsert(store, posting("self", block_key="b|k"), [1])
    upsert(store, posting("other"), [1])
    assert ids(store.find_candidates(query([1], block_key="b|k", exclude_id="self"))) == ["other"]


def test_candidates_with_hot_key_respect_window_and_limit(store: IndexStore) -> None:
    hot = [(posting(f"hot-{i:04d}", posted=day(i / 10)), [42, 1000 + i]) for i in range(1500)]
    store.apply(WriteSet(upserts=hot))
    upsert(store, posting("best", posted=day(100)), [42, 7, 8])

    found = store.find_candidates(query([42, 7, 8, 1000], since=day(0), until=day(100), limit=3))
    assert ids(found) == ["best", "hot-0000", "hot-0001"]
    windowed = store.find_candidates(query([42], since=day(50), until=day(50.25), limit=10))
    assert ids(windowed) == ["hot-0500", "hot-0501", "hot-0502"]


def test_near_duplicate_texts_share_real_band_keys(store: IndexStore) -> None:
    text = "senior python developer wanted for our data platform team in berlin remote ok"
    words = text.split()
    params = SketchParams(num_perm=16, bands=8, rows=2, shingle_size=2)
    sketch_a, count_a = sketch_tokens(words, params)
    sketch_b, _ = sketch_tokens([*words[:-1], "possible"], params)
    item = StoredPosting(**{**vars(posting("a")), "sketch": sketch_a, "shingle_count": count_a})
    upsert(store, item, band_keys(sketch_a, params))
    assert ids(store.find_candidates(query(band_keys(sketch_b, params)))) == ["a"]


# -- clusters ---------------------------------------------------------------------------------


def test_cluster_stats_and_canonical_follow_membership(store: IndexStore) -> None:
    upsert(store, posting("p2", cluster="c", posted=day(2)), [1])
    upsert(store, posting("p1", cluster="c", posted=day(1)), [1])
    upsert(store, posting("p3", cluster="c", posted=day(3)), [1])
    upsert(store, posting("p0", cluster="c", posted=day(2)), [1])

    info = store.get_cluster("c")
    assert info is not None
    assert (info.size, info.first_seen, info.last_seen) == (4, day(1), day(3))
    assert info.canonical_id == "p1"
    assert [m.id for m in info.members] == ["p1", "p0", "p2", "p3"]
    assert info.members[0].posted_at == day(1)

    store.apply(WriteSet(deletions=["p1"]))
    info = store.get_cluster("c")
    assert info is not None
    assert (info.size, info.first_seen, info.canonical_id) == (3, day(2), "p0")
    assert store.cluster_canonicals(["c", "unknown"]) == {"c": "p0"}

    moved = posting("p0", cluster="elsewhere", posted=day(2))
    upsert(store, moved, [1])
    assert store.cluster_canonicals(["c", "elsewhere"]) == {"c": "p2", "elsewhere": "p0"}


def test_merge_moves_members_and_leaves_an_alias(store: IndexStore) -> None:
    upsert(store, posting("a", cluster="A", posted=day(1)), [1])
    upsert(store, posting("b", cluster="B", posted=day(2)), [2])
    bridge = posting("x", cluster="B", posted=day(3))
    store.apply(WriteSet(upserts=[(bridge, [1, 2])], merges=[Merge("A", "B", "x")]))

    assert store.resolve_cluster("A") == "B"
    assert store.resolve_cluster("B") == "B"
    assert store.resolve_cluster("nope") is None
    assert store.cluster_ids_in_use("A") and store.cluster_ids_in_use("B")
    assert not store.cluster_ids_in_use("nope")
    info = store.get_cluster("A")
    assert info is not None
    assert (info.id, info.size, info.canonical_id, info.aliases) == ("B", 3, "a", ["A"])
    assert [m.id for m in info.members] == ["a", "b", "x"]
    posting_a = store.get_posting("a")
    assert posting_a is not None and posting_a.cluster_id == "B"
    assert store.cluster_canonicals(["A", "B"]) == {"B": "a"}
    assert store.stats().clusters == 1


def test_alias_chains_resolve_to_the_last_survivor(store: IndexStore) -> None:
    for pid, cluster in (("a", "A"), ("b", "B"), ("c", "C")):
        upsert(store, posting(pid, cluster=cluster), [1])
    store.apply(WriteSet(merges=[Merge("A", "B", "b")]))
    store.apply(WriteSet(merges=[Merge("B", "C", "c")]))

    assert store.resolve_cluster("A") == "C"
    assert store.resolve_cluster("B") == "C"
    info = store.get_cluster("A")
    assert info is not None
    assert (info.id, info.size, sorted(info.aliases)) == ("C", 3, ["A", "B"])
    # Merging through an alias folds the live clusters, never creating an alias of an alias.
    upsert(store, posting("d", cluster="D"), [1])
    store.apply(WriteSet(merges=[Merge("D", "A", "d")]))
    assert store.resolve_cluster("D") == "C"
    assert {a.id: a.cluster_id for a in store.iter_assignments()} == dict.fromkeys("abcd", "C")


def test_emptied_cluster_ids_stay_in_use_while_aliased(store: IndexStore) -> None:
    upsert(store, posting("a", cluster="A"), [1])
    upsert(store, posting("b", cluster="B"), [1])
    store.apply(WriteSet(merges=[Merge("A", "B", "b")]))
    store.apply(WriteSet(deletions=["a", "b"]))

    assert store.get_cluster("B") is None
    assert store.resolve_cluster("A") is None
    assert store.cluster_ids_in_use("A") and store.cluster_ids_in_use("B")


def test_list_clusters_filters(store: IndexStore) -> None:
    upsert(store, posting("a1", cluster="A", posted=day(1), company_key="acme"), [1])
    upsert(store, posting("a2", cluster="A", posted=day(5), source="other"), [1])
    upsert(store, posting("b1", cluster="B", posted=day(10), company_key="globex"), [1])
    upsert(store, posting("c1", cluster="C", posted=day(20), source=None), [1])

    def listed(filters: ClusterFilter) -> list[str]:
        return [c.id for c in store.list_clusters(filters, None, 10).clusters]

    assert listed(ClusterFilter()) == ["A", "B", "C"]
    assert listed(ClusterFilter(min_size=2)) == ["A"]
    assert listed(ClusterFilter(company_key="globex")) == ["B"]
    assert listed(ClusterFilter(source="other")) == ["A"]
    assert listed(ClusterFilter(source="board")) == ["A", "B"]
    assert listed(ClusterFilter(since=day(5))) == ["A", "B", "C"]
    assert listed(ClusterFilter(since=day(6))) == ["B", "C"]
    assert listed(ClusterFilter(until=day(10))) == ["A", "B"]
    assert listed(ClusterFilter(since=day(6), until=day(15), company_key="globex")) == ["B"]
    summary = store.list_clusters(ClusterFilter(min_size=2), None, 10).clusters[0]
    assert (summary.size, summary.first_seen, summary.last_seen) == (2, day(1), day(5))
    assert summary.canonical_id == "a1"


@pytest.mark.parametrize("page_size", [1, 3, 7, 25])
def test_list_clusters_pages_cover_every_cluster_once(store: IndexStore, page_size: int) -> None:
    expected = [f"cl-{i:02d}" for i in range(25)]
    store.apply(
        WriteSet(
            upserts=[(posting(f"p{i}", cluster=c, seed=i), [i]) for i, c in enumerate(expected)]
        )
    )
    seen: list[str] = []
    after: str | None = None
    for _ in range(100):
        page = store.list_clusters(ClusterFilter(), after, page_size)
        assert len(page.clusters) <= page_size
        seen += [c.id for c in page.clusters]
        if page.next_after is None:
            break
        assert page.next_after == page.clusters[-1].id
        after = page.next_after
    assert seen == expected


def test_iter_assignments_orders_by_id_and_names_the_canonical(store: IndexStore) -> None:
    upsert(store, posting("z", cluster="A", posted=day(0)), [1])
    upsert(store, posting("m", cluster="A", posted=day(1)), [1])
    upsert(store, posting("b", cluster="B", posted=day(2)), [1])
    assert list(store.iter_assignments()) == [
        Assignment("b", "B", None),
        Assignment("m", "A", "z"),
        Assignment("z", "A", None),
    ]


def test_iter_assignments_streams_past_one_page(store: IndexStore) -> None:
    store.apply(
        WriteSet(
            upserts=[(posting(f"p{i:05d}", cluster="one", posted=day(i)), [i]) for i in range(1234)]
        )
    )
    assignments = list(store.iter_assignments())
    assert [a.id for a in assignments] == [f"p{i:05d}" for i in range(1234)]
    assert assignments[0].duplicate_of is None
    assert {a.duplicate_of for a in assignments[1:]} == {"p00000"}


# -- stats, lifecycle, concurrency ------------------------------------------------------------


def test_stats_and_ping(store: IndexStore) -> None:
    store.ping()
    empty = store.stats()
    assert (empty.postings, empty.clusters) == (0, 0)
    upsert(store, posting("a", cluster="A"), [1])
    upsert(store, posting("b", cluster="A"), [1])
    upsert(store, posting("c", cluster="C"), [1])
    stats = store.stats()
    assert (stats.postings, stats.clusters) == (3, 2)
    assert stats.bytes > 0
    assert store.params == PARAMS


def test_index_persists_across_close_and_reopen(
    store_factory: StoreFactory, tmp_path: Path
) -> None:
    first = store_factory(tmp_path, PARAMS)
    original = posting("a", cluster="A", block_key="acme|dev")
    first.apply(WriteSet(upserts=[(original, [1, 2])]))
    upsert(first, posting("b", cluster="B"), [3])
    first.apply(WriteSet(merges=[Merge("B", "A", "a")]))
    first.close()

    reopened = store_factory(tmp_path, PARAMS)
    try:
        assert_same_posting(reopened.get_posting("a"), original)
        assert ids(reopened.find_candidates(query([2], block_key="acme|dev"))) == ["a"]
        assert reopened.resolve_cluster("B") == "A"
        assert reopened.stats().postings == 2
    finally:
        reopened.close()


def test_reopening_with_other_parameters_is_refused(
    store_factory: StoreFactory, tmp_path: Path
) -> None:
    store_factory(tmp_path, PARAMS).close()
    with pytest.raises(IncompatibleIndex, match=r"num_perm=16.*num_perm=32"):
        store_factory(tmp_path, SketchParams(num_perm=32, bands=8, rows=2))
    with pytest.raises(IncompatibleIndex, match="seed"):
        store_factory(tmp_path, SketchParams(num_perm=16, bands=8, rows=2, seed=2))
    store_factory(tmp_path, PARAMS).close()


def test_concurrent_writers_lose_nothing(store: IndexStore) -> None:
    threads, per_thread = 8, 25

    def work(thread: int) -> None:
        for i in range(per_thread):
            pid = f"t{thread}-{i:02d}"
            with store.writer():
                store.find_candidates(query([1], limit=5))
                upsert(store, posting(pid, cluster="shared", posted=day(i), seed=thread), [1, i])
            assert store.get_posting(pid) is not None

    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(work, range(threads)))

    assert store.stats().postings == threads * per_thread
    info = store.get_cluster("shared")
    assert info is not None and info.size == threads * per_thread
    assert len(store.find_candidates(query([1], limit=1000))) == threads * per_thread


def test_feedback_is_stored_per_unordered_pair(store: IndexStore) -> None:
    first = Feedback("b", "a", "duplicate", day(1), {"id": "b"}, {"id": "a"})
    store.add_feedback(first)
    store.add_feedback(Feedback("x", "y", "not_duplicate", day(2), {"id": "x"}, {"id": "y"}))
    # The same pair in the other order replaces the first label.
    store.add_feedback(Feedback("a", "b", "not_duplicate", day(3), {"id": "a"}, {"id": "b"}))

    stored = list(store.iter_feedback())

    assert [(f.a_id, f.b_id, f.label) for f in stored] == [
        ("x", "y", "not_duplicate"),
        ("a", "b", "not_duplicate"),
    ]
    assert stored[1].a_document == {"id": "a"} and stored[1].b_document == {"id": "b"}
    assert stored[1].at == day(3)


def test_batch_commits_its_applies_together(store: IndexStore) -> None:
    with store.batch():
        store.apply(WriteSet(upserts=[(posting("one"), [1])]))
        # Reads inside the batch see its own writes.
        assert store.get_posting("one") is not None
        store.apply(WriteSet(upserts=[(posting("two"), [1])]))
    assert {p.id for p in store.find_candidates(query([1]))} == {"one", "two"}


def test_failed_batch_stores_nothing(store: IndexStore) -> None:
    with pytest.raises(RuntimeError), store.batch():
        store.apply(WriteSet(upserts=[(posting("gone"), [1])]))
        raise RuntimeError("crawler hung up")
    assert store.get_posting("gone") is None


def test_unit_counts_accumulate_per_scope(store: IndexStore) -> None:
    big = 2**62 + 7  # unit hashes are signed 64-bit: both signs must round-trip
    assert store.unit_counts([(0, 1), (5, -3)], [big, -big]) == {}
    store.apply(WriteSet(unit_observations=[(0, big, 1), (0, big, 2), (5, -big, -3)]))
    store.apply(WriteSet(unit_observations=[(0, big, 2), (0, -1, 4)]))  # repeat ignored

    counts = store.unit_counts([(0, 1), (5, -3)], [big, -big, -1, None])
    assert counts == {(0, big): (2, True), (5, -big): (1, True), (0, -1): (1, False)}
    assert store.unit_counts([(0, 9)], [big]) == {(0, big): (2, False)}


def test_unit_counts_inside_a_batch_see_its_writes_and_persist(
    store_factory: StoreFactory, tmp_path: Path
) -> None:
    first = store_factory(tmp_path, PARAMS)
    with first.batch():
        first.apply(WriteSet(unit_observations=[(0, 11, 1)]))
        assert first.unit_counts([(0, 1)], [11]) == {(0, 11): (1, True)}
        first.apply(WriteSet(unit_observations=[(0, 11, 2)]))
    first.close()
    reopened = store_factory(tmp_path, PARAMS)
    try:
        assert reopened.unit_counts([(0, 3)], [11]) == {(0, 11): (2, False)}
    finally:
        reopened.close()
