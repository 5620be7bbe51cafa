"""The embedded index's statistics layout: the 3 -> 4 migration and the trigger-kept counts."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

from indexer.store import StatsQuery, WriteSet
from indexer.stores.sqlite.schema import SCHEMA_VERSION
from indexer.stores.sqlite.store import SqliteStore
from tests.contract.test_stats_contract import PARAMS, build, item
from tests.unit.layouts import as_layout_5

QUERIES = [
    StatsQuery(interval="week", by="source"),
    StatsQuery(interval="day", by="company"),
    StatsQuery(since=datetime(2024, 3, 5, 12), until=datetime(2024, 3, 11, 6), by="source"),
]


def _as_layout_3(path: Path) -> None:
    """Strip what layouts 4 to 6 added, leaving the layout-3 tables with their data."""
    as_layout_5(path, compressed=False)
    conn = sqlite3.connect(path)
    with conn:
        for event in ("insert", "delete", "update"):
            conn.execute(f"DROP TRIGGER postings_count_{event}")
        for statement in (
            "DROP TABLE stats_by_source",
            "DROP TABLE stats_by_company",
            "DROP INDEX postings_stats",
            "DROP INDEX clusters_sources",
            "ALTER TABLE postings DROP COLUMN canonical",
            "ALTER TABLE postings DROP COLUMN duplicate_type",
            "ALTER TABLE clusters DROP COLUMN sources",
            "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
        ):
            conn.execute(statement)
    conn.close()


def test_a_layout_3_index_is_migrated_with_its_statistics(tmp_path: Path) -> None:
    fresh = SqliteStore(tmp_path / "fresh.sqlite3", PARAMS)
    old_path = tmp_path / "old.sqlite3"
    old = SqliteStore(old_path, PARAMS)
    build(fresh)
    build(old)
    old.close()
    _as_layout_3(old_path)

    migrated = SqliteStore(old_path, PARAMS)
    try:
        for query in QUERIES:
            assert migrated.duplicate_stats(query) == fresh.duplicate_stats(query)
        # the triggers work after the migration: a backfilled canonical and a deletion
        change = WriteSet(
            upserts=[(item("b0", "B", "2024-03-01T08:00:00", "reed", "globex", "full"), [])],
            deletions=["a1"],
        )
        for store in (migrated, fresh):
            store.apply(change)
        for query in QUERIES:
            assert migrated.duplicate_stats(query) == fresh.duplicate_stats(query)
        version = migrated._rows("v", "SELECT value FROM meta WHERE key = 'schema_version'")
        assert version[0][0] == str(SCHEMA_VERSION) == "9"
    finally:
        migrated.close()
        fresh.close()


def test_the_counting_tables_equal_a_recount_after_writes_merges_and_retention(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "index.sqlite3", PARAMS)
    try:
        build(store)
        store.expire(datetime(2024, 3, 5))
        store.apply(WriteSet(deletions=["e1"]))
        rows = store._rows(
            "recount",
            "SELECT day, grp, canonical, duplicate_type, n FROM stats_by_source WHERE n > 0"
            " EXCEPT SELECT posted_at - posted_at % 86400000000, COALESCE(source, ''),"
            " canonical, COALESCE(duplicate_type, ''), COUNT(*) FROM postings GROUP BY 1, 2, 3, 4",
        )
        assert [tuple(r) for r in rows] == []
        count = store._rows("total", "SELECT SUM(n) FROM stats_by_company")[0][0]
        assert count == store.stats().postings == 7  # 10 less c1, a1 (expired) and e1
    finally:
        store.close()
