"""The re-check's read (`ElasticStore.recheck_ids`): what other instances wrote since a group
started, as the group's candidate searches would find it, through both of its paths."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from indexer.minhash import SketchParams
from indexer.store import CandidateQuery
from indexer.stores.elastic import store as elastic
from tests.integration.engine import Engine, open_store
from tests.integration.support import day, record, upsert


@pytest.mark.parametrize("scan", ["terms", "msearch"])
def test_the_recheck_finds_what_other_stores_wrote_since_as_the_searches_would(
    engine: Engine,
    prefix: str,
    params: SketchParams,
    monkeypatch: pytest.MonkeyPatch,
    scan: str,
) -> None:
    """Postings another store wrote since `since` come back per query in the candidate
    search's order (shared keys, then posted_at), inside the query's window, without the
    excluded id; this store's own writes and earlier ones never do. "msearch": with a scan
    of one posting the recent postings do not fit the one `terms` search, and the re-check
    runs every candidate search again, restricted to the recent foreign writes."""
    if scan == "msearch":
        monkeypatch.setattr(elastic, "RECHECK_SCAN", 1)
    other = open_store(engine, prefix, params)
    mine = open_store(engine, prefix, params)
    try:
        upsert(other, record("before", cluster="B", posted=day(1)), [1, 2])
        since = datetime.now(UTC)
        upsert(other, record("x1", cluster="X", posted=day(2)), [1, 2])
        upsert(other, record("x2", cluster="Y", posted=day(1)), [2])
        upsert(other, record("late", cluster="L", posted=day(90)), [1, 2])
        upsert(mine, record("own", cluster="O", posted=day(2)), [1, 2])
        queries = [
            CandidateQuery([1, 2], "", day(0), day(30), None, 50),
            CandidateQuery([2], "", None, None, "x2", 50),
            CandidateQuery([1, 2], "", day(0), day(30), None, 1),
            CandidateQuery([7], "", None, None, None, 50),
        ]
        assert mine.recheck_ids(queries, since) == [
            [("x1", "X"), ("x2", "Y")],
            [("x1", "X"), ("late", "L")],
            [("x1", "X")],
            [],
        ]
        # The live searches see them all, the earlier posting and this store's own included.
        live = mine.find_candidates(queries[0])
        assert [p.id for p in live] == ["before", "own", "x1", "x2"]
    finally:
        other.close()
        mine.close()
