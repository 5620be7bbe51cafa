"""Fields added to the engine's layout, on an index made before them: added additively at a
writer's open (`elastic_setup.add_fields`).

The "old" index is made by this code with the added fields left out (the mappings of before,
no such fields in posting or cluster documents, no canonical flags): before the statistics
(version 0), or with them but before the review fields (version 1, the decision's score on
postings and the member titles on clusters). Opened again, a reader is told to let a writer
migrate; a writer adds the fields to the mappings and fills them, after which the statistics,
the review queue and the title filter equal the embedded index's on the same postings, also
after more writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from indexer.minhash import SketchParams
from indexer.store import ClusterFilter, IndexStore, Merge, StatsQuery, StoreError, WriteSet
from indexer.stores.elastic import plan as elastic_plan
from indexer.stores.elastic import setup as elastic_setup
from indexer.stores.elastic.bodies import (
    REVIEW_PROPERTIES,
    STATS_PROPERTIES,
    TITLE_PROPERTIES,
    clusters_mappings,
    postings_mappings,
)
from indexer.stores.elastic.docs import Source, posting_source, summarise_cluster
from indexer.stores.elastic.setup import fields_version
from indexer.stores.sqlite.store import SqliteStore
from tests.contract.test_review_contract import posting, put
from tests.contract.test_stats_contract import build, item
from tests.integration.engine import Engine, open_store

QUERIES = [
    StatsQuery(interval="week", by="source"),
    StatsQuery(interval="month", by="company"),
    StatsQuery(interval="day"),
]


def _older_layout(monkeypatch: pytest.MonkeyPatch, version: int) -> None:
    """Make this code write the layout of `version` of the added fields (0 or 1)."""
    left_out = {**REVIEW_PROPERTIES, **(STATS_PROPERTIES if version < 1 else {})}
    mapping = postings_mappings()
    mapping["_meta"] = {"schema": "jobdedup-postings", **({"stats_fields": 1} if version else {})}
    for name in left_out:
        del mapping["properties"][name]
    clusters = clusters_mappings()
    for name in TITLE_PROPERTIES:
        del clusters["properties"][name]
    monkeypatch.setattr(elastic_setup, "postings_mappings", lambda: mapping)
    monkeypatch.setattr(elastic_setup, "clusters_mappings", lambda: clusters)
    monkeypatch.setattr(elastic_setup, "add_fields", lambda client, names: None)
    real = posting_source

    def old_source(*args: Any) -> dict[str, Any]:
        return {k: v for k, v in real(*args).items() if k not in left_out}

    def old_summary(doc: Source) -> None:
        summarise_cluster(doc)
        for name in TITLE_PROPERTIES:
            del doc[name]

    monkeypatch.setattr(elastic_plan, "posting_source", old_source)
    monkeypatch.setattr(elastic_plan, "summarise_cluster", old_summary)
    if version < 1:
        monkeypatch.setattr(elastic_plan.Workspace, "_flag_canonicals", lambda *args: None)


def test_a_writer_adds_and_fills_the_statistics_fields(
    engine: Engine,
    prefix: str,
    params: SketchParams,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    with monkeypatch.context() as patched:
        _older_layout(patched, version=0)
        old = open_store(engine, prefix, params)
        build(old)
        old.close()
    reference = SqliteStore(tmp_path / "reference.sqlite3", params)
    build(reference)
    reader = open_store(engine, prefix, params, create=False)
    try:
        with pytest.raises(StoreError, match="predates duplicate statistics"):
            reader.duplicate_stats(StatsQuery())
    finally:
        reader.close()

    migrated = open_store(engine, prefix, params)
    try:
        for query in QUERIES:
            assert migrated.duplicate_stats(query) == reference.duplicate_stats(query)
        later = WriteSet(
            upserts=[(item("b0", "B", "2024-03-01T08:00:00", "reed", "globex", "full"), [])],
            deletions=["a1"],
        )
        for store in (migrated, reference):
            store.apply(later)
        for query in QUERIES:
            assert migrated.duplicate_stats(query) == reference.duplicate_stats(query)
    finally:
        migrated.close()
        reference.close()


def build_review(store: IndexStore) -> None:
    """Decisions near and far from 0.5, a posting without a score, one merge, and titles
    with upper case, accents and wildcard characters."""
    put(
        store,
        posting("p0"),
        posting("p1", title="Staff NURSE - Ward 3", company=None, source=None),
        posting("p2", day=1, candidates=[("p0", 0.1, "p0"), ("p1", 0.49, "p1")]),
        posting("p3", day=2, cluster="p1", title="Night nurse", candidates=[("p1", 0.7, "p1")]),
        posting("p4", day=3, title="ÄRZTIN Innere Medizin", candidates=[("p1", 0.9, "p1")]),
        posting("p5", day=4, title="100% *remote*? C:\\jobs", candidates=[("p0", 0.4, "p0")]),
    )
    put(store, posting("x", day=5), posting("y", day=6))
    bridge = posting("z", day=7, cluster="x", candidates=[("x", 0.97, "x"), ("y", 0.8, "y")])
    put(store, bridge, merges=[Merge(absorbed="y", survivor="x", posting_id="z")])


NEEDLES = ["nurse", "NURSE", "ärztin", "*remote*", "% *", "? c:\\", "title z", "", "nothing"]


def listing(store: IndexStore, needle: str, limit: int) -> list[tuple[list[str], str | None]]:
    """Every page of the title listing, walked with its cursors."""
    pages: list[tuple[list[str], str | None]] = []
    after: str | None = None
    while True:
        page = store.list_clusters(ClusterFilter(title=needle), after, limit)
        pages.append(([c.id for c in page.clusters], page.next_after))
        if page.next_after is None:
            return pages
        after = page.next_after


def assert_same_reads(engine_store: IndexStore, reference: IndexStore) -> None:
    for threshold, margin, limit in ((0.5, 0.25, 10), (0.5, 0.1, 10), (0.5, 0.25, 2)):
        expected = reference.review_pairs(threshold, margin, limit)
        assert engine_store.review_pairs(threshold, margin, limit) == expected
    for needle in NEEDLES:
        for limit in (1, 10):
            assert listing(engine_store, needle, limit) == listing(reference, needle, limit)


def test_a_writer_adds_and_fills_the_review_fields(
    engine: Engine,
    prefix: str,
    params: SketchParams,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    with monkeypatch.context() as patched:
        _older_layout(patched, version=1)
        old = open_store(engine, prefix, params)
        build_review(old)
        old.close()
    reference = SqliteStore(tmp_path / "reference.sqlite3", params)
    build_review(reference)
    reader = open_store(engine, prefix, params, create=False)
    try:
        assert fields_version(reader._client, reader.names) == 1
        with pytest.raises(StoreError, match="predates the review queue"):
            reader.review_pairs(0.5, 0.25, 10)
        with pytest.raises(StoreError, match="predates the title filter"):
            reader.list_clusters(ClusterFilter(title="nurse"), None, 10)
        assert reader.duplicate_stats(QUERIES[0]) == reference.duplicate_stats(QUERIES[0])
    finally:
        reader.close()

    migrated = open_store(engine, prefix, params)
    try:
        assert fields_version(migrated._client, migrated.names) == 2
        assert [p.a.id for p in migrated.review_pairs(0.5, 0.25, 10)] == ["p2", "p5", "p3", "z"]
        assert_same_reads(migrated, reference)
        assert migrated.duplicate_stats(QUERIES[0]) == reference.duplicate_stats(QUERIES[0])
        later = [
            posting("p2", day=1, candidates=[("p1", 0.95, "p1")]),  # leaves the queue
            posting("q1", day=8, title="Nurse practitioner", candidates=[("p4", 0.52, "p4")]),
        ]
        for store in (migrated, reference):
            put(store, *later)
            store.apply(WriteSet(deletions=["p4"]))  # q1's candidate: its pair is left out
            put(store, posting("q2", day=9, candidates=[("q1", 0.3, "q1")]))
        assert_same_reads(migrated, reference)
    finally:
        migrated.close()
        reference.close()
