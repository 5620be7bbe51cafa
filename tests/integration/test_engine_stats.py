"""Engine statistics fields on an index made before them: added additively at a writer's open.

The "old" index is made by this code with the statistics left out (the mapping of before,
no statistics fields in posting documents, no canonical flags), then opened again: a reader
is told to let a writer migrate; a writer adds the fields to the mapping and fills them, after
which every figure equals the embedded index's on the same postings, also after more writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from indexer import elastic_plan, elastic_setup
from indexer.elastic_bodies import STATS_PROPERTIES, postings_mappings
from indexer.elastic_docs import posting_source
from indexer.minhash import SketchParams
from indexer.sqlite import SqliteStore
from indexer.store import StatsQuery, StoreError, WriteSet
from tests.contract.test_stats_contract import build, item
from tests.integration.engine import Engine, open_store

QUERIES = [
    StatsQuery(interval="week", by="source"),
    StatsQuery(interval="month", by="company"),
    StatsQuery(interval="day"),
]


def _without_statistics(monkeypatch: pytest.MonkeyPatch) -> None:
    mapping = postings_mappings()
    mapping["_meta"] = {"schema": "jobdedup-postings"}
    for name in STATS_PROPERTIES:
        del mapping["properties"][name]
    monkeypatch.setattr(elastic_setup, "postings_mappings", lambda: mapping)
    monkeypatch.setattr(elastic_setup, "add_stats_fields", lambda client, names: None)
    real = posting_source

    def old_source(*args: Any) -> dict[str, Any]:
        return {k: v for k, v in real(*args).items() if k not in STATS_PROPERTIES}

    monkeypatch.setattr(elastic_plan, "posting_source", old_source)
    monkeypatch.setattr(elastic_plan.Workspace, "_flag_canonicals", lambda *args: None)


def test_a_writer_adds_and_fills_the_statistics_fields(
    engine: Engine,
    prefix: str,
    params: SketchParams,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    with monkeypatch.context() as patched:
        _without_statistics(patched)
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
