"""The review reads every `IndexStore` adapter must answer alike: review pairs from the stored
decisions and the merge history, feedback labels by pair, and the cluster listing's title
filter with the canonical posting's title, company and source."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from indexer.minhash import SketchParams
from indexer.store import (
    ClusterFilter,
    Feedback,
    IndexStore,
    Merge,
    ReviewSide,
    StoredPosting,
    WriteSet,
)

PARAMS = SketchParams(num_perm=16, bands=8, rows=2)
T0 = datetime(2024, 3, 1, 9, 30, tzinfo=UTC)


def posting(
    pid: str,
    *,
    day: int = 0,
    cluster: str | None = None,
    title: str | None = None,
    company: str | None = "ACME Corp",
    source: str | None = "board",
    candidates: Sequence[tuple[str, float, str]] = (),
    score: float | None = None,
) -> StoredPosting:
    """A posting whose stored decision lists `candidates` as (id, score, cluster id) and
    records `score` (the best candidate's, unless given)."""
    listed = [
        {"id": cid, "score": s, "jaccard": 0.5, "overlap": 0.5, "cluster_id": ccl}
        for cid, s, ccl in candidates
    ]
    best = max((s for _, s, _ in candidates), default=None) if score is None else score
    cluster_id = cluster or pid
    decision: dict[str, Any] = {"id": pid, "cluster_id": cluster_id, "score": best}
    decision["candidates"] = listed
    return StoredPosting(
        id=pid,
        content_hash=f"hash-{pid}",
        posted_at=T0 + timedelta(days=day),
        title=title or f"Title {pid}",
        company=company,
        source=source,
        company_key="acme",
        block_key="",
        sketch=np.arange(PARAMS.num_perm, dtype=np.int64) + sum(map(ord, pid)),
        shingle_count=40,
        cluster_id=cluster_id,
        document={"id": pid},
        decision=decision,
    )


def put(store: IndexStore, *postings: StoredPosting, merges: Sequence[Merge] = ()) -> None:
    store.apply(WriteSet(upserts=[(p, []) for p in postings], merges=merges))


def side(p: StoredPosting, cluster: str | None = None) -> ReviewSide:
    return ReviewSide(p.id, p.title, p.company, p.source, cluster or p.cluster_id, p.posted_at)


def pairs_of(store: IndexStore, threshold: float, margin: float, limit: int) -> list[Any]:
    return [
        (r.a.id, r.b.id, r.score, r.reason) for r in store.review_pairs(threshold, margin, limit)
    ]


def test_near_threshold_pairs_come_nearest_first_within_the_margin(store: IndexStore) -> None:
    first = posting("p1", company=None, source=None)
    under = posting("p2", day=1, candidates=[("p0", 0.1, "p0"), ("p1", 0.49, "p1")])
    over = posting("p3", day=2, candidates=[("p1", 0.7, "p1")])
    far = posting("p4", day=3, candidates=[("p1", 0.9, "p1")])
    put(store, posting("p0"), first, under, over, far, posting("p5", day=4))

    found = store.review_pairs(0.5, 0.25, 10)

    assert [(r.a.id, r.b.id, r.score, r.reason) for r in found] == [
        ("p2", "p1", 0.49, "near_threshold"),
        ("p3", "p1", 0.7, "near_threshold"),
    ]
    assert (found[0].a, found[0].b) == (side(under), side(first))
    assert pairs_of(store, 0.5, 0.25, 1) == [("p2", "p1", 0.49, "near_threshold")]
    assert pairs_of(store, 0.5, 0.25, 0) == []


def test_equal_distances_are_ordered_by_id(store: IndexStore) -> None:
    put(
        store,
        posting("a"),
        posting("c", day=1, candidates=[("a", 0.6, "a")]),
        posting("b", day=2, candidates=[("a", 0.4, "a")]),
    )
    assert [r[0] for r in pairs_of(store, 0.5, 0.2, 10)] == ["b", "c"]


def test_a_pair_whose_candidate_is_gone_is_left_out(store: IndexStore) -> None:
    put(store, posting("p1"), posting("p2", day=1, candidates=[("p1", 0.5, "p1")]))
    store.apply(WriteSet(deletions=["p1"]))
    assert pairs_of(store, 0.5, 0.25, 10) == []


def test_a_merge_pairs_the_bridge_with_its_best_candidate_of_the_absorbed_cluster(
    store: IndexStore,
) -> None:
    older, younger, other = posting("x"), posting("y", day=1), posting("y2", day=1)
    put(store, older, younger, other)
    bridge = posting(
        "z",
        day=2,
        cluster="x",
        candidates=[("x", 0.97, "x"), ("y", 0.8, "y"), ("y2", 0.99, "y2")],
    )
    put(store, bridge, merges=[Merge(absorbed="y", survivor="x", posting_id="z")])

    found = store.review_pairs(0.5, 0.1, 10)

    assert len(found) == 1
    assert (found[0].a, found[0].b) == (side(bridge), side(younger, cluster="x"))
    assert (found[0].score, found[0].reason) == (0.8, "single_link_merge")


def test_merges_come_newest_first_and_within_the_limit(store: IndexStore) -> None:
    put(store, posting("x"), posting("y", day=1), posting("w", day=1))
    put(
        store,
        posting("z1", day=2, cluster="x", candidates=[("x", 0.9, "x"), ("y", 0.9, "y")]),
        merges=[Merge(absorbed="y", survivor="x", posting_id="z1")],
    )
    put(
        store,
        posting("z2", day=3, cluster="x", candidates=[("z1", 0.9, "x"), ("w", 0.95, "w")]),
        merges=[Merge(absorbed="w", survivor="x", posting_id="z2")],
    )
    assert pairs_of(store, 0.5, 0.1, 10) == [
        ("z2", "w", 0.95, "single_link_merge"),
        ("z1", "y", 0.9, "single_link_merge"),
    ]
    assert pairs_of(store, 0.5, 0.1, 1) == [("z2", "w", 0.95, "single_link_merge")]


def test_feedback_labels_are_found_for_either_order_of_a_pair(store: IndexStore) -> None:
    put(store, posting("a"), posting("b"), posting("c"))
    store.add_feedback(Feedback("b", "a", "duplicate", T0))
    store.add_feedback(Feedback("a", "c", "not_duplicate", T0))
    store.add_feedback(Feedback("c", "a", "duplicate", T0))  # replaces the label of {a, c}

    labels = store.feedback_labels([("a", "b"), ("c", "a"), ("b", "c"), ("a", "zz")])

    assert labels == {("a", "b"): "duplicate", ("a", "c"): "duplicate"}
    assert store.feedback_labels([]) == {}


def test_title_filter_matches_any_member_casefolded(store: IndexStore) -> None:
    put(
        store,
        posting("n1", title="Staff NURSE - Ward 3", company="St Mary's", source="nhs"),
        posting("p1", day=1, title="Hospital Porter", company="Royal", source="jobs"),
        posting("p2", day=2, cluster="p1", title="Night nurse (bank)"),
        posting("d1", day=3, title="ÄRZTIN Innere Medizin", company=None, source=None),
    )

    def ids(title: str, after: str | None = None, limit: int = 10) -> list[str]:
        page = store.list_clusters(ClusterFilter(title=title), after, limit)
        return [c.id for c in page.clusters]

    assert ids("nurse") == ["n1", "p1"]  # p1: its second member's title
    assert ids("ärztin") == ["d1"]
    assert ids("porter") == ["p1"]
    assert ids("nothing like it") == []
    assert ids("nurse", after="n1") == ["p1"]
    first = store.list_clusters(ClusterFilter(title="nurse"), None, 1)
    assert [c.id for c in first.clusters] == ["n1"] and first.next_after == "n1"
    last = store.list_clusters(ClusterFilter(title="nurse"), "n1", 1)
    assert [c.id for c in last.clusters] == ["p1"] and last.next_after is None
    combined = ClusterFilter(title="nurse", source="nhs")
    assert [c.id for c in store.list_clusters(combined, None, 10).clusters] == ["n1"]


def test_listing_and_cluster_carry_the_canonical_title_company_and_source(
    store: IndexStore,
) -> None:
    put(
        store,
        posting("p1", title="Hospital Porter", company="Royal", source="jobs"),
        posting("p2", day=1, cluster="p1", title="Night porter", company=None, source="x"),
        posting("d1", day=3, title="Ärztin", company=None, source=None),
    )
    listed = store.list_clusters(ClusterFilter(), None, 10).clusters
    assert [(c.id, c.title, c.company, c.source) for c in listed] == [
        ("d1", "Ärztin", None, None),
        ("p1", "Hospital Porter", "Royal", "jobs"),
    ]
    info = store.get_cluster("p1")
    assert info is not None
    assert (info.title, info.company, info.source) == ("Hospital Porter", "Royal", "jobs")
