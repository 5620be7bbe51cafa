"""Month indices (`JOBDEDUP_SEARCH_PARTITIONS=month`) on a real engine: where postings go,
how later writes find them, and retention dropping whole months with clusters kept right."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from indexer.minhash import SketchParams
from indexer.store import CandidateQuery, Merge, WriteSet
from indexer.stores.elastic.bodies import doc_id
from indexer.stores.elastic.client import EngineClient, part
from indexer.stores.elastic.partitions import PARTITIONS_ID
from indexer.stores.elastic.store import ElasticStore
from tests.integration.engine import open_store, transport
from tests.integration.support import record, upsert

JAN, FEB, MAR = (datetime(2024, m, 10, 9, 0, tzinfo=UTC) for m in (1, 2, 3))


@pytest.fixture
def raw(url: str) -> Iterator[EngineClient]:
    client = EngineClient(transport("opensearch", url, 10.0))
    try:
        yield client
    finally:
        client.transport.close()


def month_index(store: ElasticStore, month: str) -> str:
    return f"{store.names.postings}-m{month}"


def held_in(raw: EngineClient, index: str, posting_id: str) -> dict[str, object] | None:
    """The posting's document in exactly this index (real time), None if absent."""
    if not exists(raw, index):
        return None
    hit = raw.get(index, doc_id(posting_id))
    return None if hit is None else dict(hit["_source"])


def months_of(raw: EngineClient, store: ElasticStore) -> dict[str, str]:
    hit = raw.get(store.names.clusters, PARTITIONS_ID)
    return dict((hit or {}).get("_source", {}).get("partitions") or {})


def exists(raw: EngineClient, index: str) -> bool:
    """Whether the index exists (a wildcard answers at once; `_cat` on a missing name waits)."""
    found = raw.call("GET", f"/{part(index)}*/_alias", what="list indices")
    return index in (found or {})


def everything(store: ElasticStore) -> list[str]:
    hits = store.find_candidates(CandidateQuery([1], "", None, None, None, 50))
    return sorted(p.id for p in hits)


def test_postings_go_to_their_month_and_later_writes_follow_them(
    url: str, prefix: str, params: SketchParams, raw: EngineClient
) -> None:
    store = open_store("opensearch", prefix, params, url=url, partitions="month")
    try:
        upsert(store, record("a", cluster="A", posted=JAN), [1])
        upsert(store, record("b", cluster="B", posted=MAR, seed=2), [1])
        assert held_in(raw, month_index(store, "2024-01"), "a") is not None
        assert held_in(raw, month_index(store, "2024-03"), "b") is not None
        assert months_of(raw, store) == {"m2024-01": "live", "m2024-03": "live"}
        assert held_in(raw, store.names.first_index(store.names.postings), "a") is None

        # A merge moves a January member to the March cluster by partial update: it
        # reaches the January index (the member entry names it).
        store.apply(WriteSet(merges=[Merge("A", "B", "b")]))
        moved = held_in(raw, month_index(store, "2024-01"), "a")
        assert moved is not None and moved["cluster_id"] == "B"

        # Re-sent with a March date, the posting leaves January: one copy, in March.
        upsert(store, record("a", cluster="B", posted=MAR.replace(day=20)), [1])
        assert held_in(raw, month_index(store, "2024-01"), "a") is None
        assert held_in(raw, month_index(store, "2024-03"), "a") is not None
        got = store.get_posting("a")
        assert got is not None and got.posted_at == MAR.replace(day=20)
        assert everything(store) == ["a", "b"]

        # Another instance reads by id in every month the registry names.
        other = open_store("opensearch", prefix, params, url=url)
        try:
            assert other.get_posting("b") is not None
            assert other.stats().postings == 2
        finally:
            other.close()
    finally:
        store.close()


def test_retention_drops_whole_months_and_keeps_clusters_consistent(
    url: str, prefix: str, params: SketchParams, raw: EngineClient
) -> None:
    store = open_store("opensearch", prefix, params, url=url, partitions="month")
    reader = open_store("opensearch", prefix, params, url=url, partitions="month")
    try:
        # A cluster spanning three months, headed by its January posting; one alone in
        # February; one in March.
        upsert(store, record("span-jan", cluster="S", posted=JAN), [1])
        upsert(store, record("span-feb", cluster="S", posted=FEB, seed=1), [1])
        upsert(store, record("span-mar", cluster="S", posted=MAR, seed=2), [1])
        upsert(store, record("feb-alone", cluster="F", posted=FEB, seed=3), [1])
        upsert(store, record("mar-alone", cluster="M", posted=MAR, seed=4), [1])
        assert reader.get_posting("span-jan") is not None  # the reader knows January now
        span = store.get_cluster("S")
        assert span is not None and span.canonical_id == "span-jan"

        assert store.expire(datetime(2024, 3, 1, tzinfo=UTC), chunk=1) == 3

        for month in ("2024-01", "2024-02"):
            assert not exists(raw, month_index(store, month))
        assert months_of(raw, store) == {"m2024-03": "live"}
        span = store.get_cluster("S")
        assert span is not None
        assert (span.size, span.canonical_id) == (1, "span-mar")
        mar = held_in(raw, month_index(store, "2024-03"), "span-mar")
        assert mar is not None and mar["canonical"] is True  # flagged in its own month
        assert store.get_cluster("F") is None
        assert everything(store) == ["mar-alone", "span-mar"]
        assert store.stats().postings == 2
        # A process that read January before it went gets "absent", not an error.
        assert reader.get_posting("span-jan") is None
        assert reader.get_posting("span-mar") is not None
        assert store.expire(datetime(2024, 3, 1, tzinfo=UTC)) == 0
        # A posting dated in a dropped month comes back into a new index of that month.
        upsert(reader, record("late-jan", cluster="L", posted=JAN, seed=5), [1])
        assert held_in(raw, month_index(store, "2024-01"), "late-jan") is not None
        assert store.get_posting("late-jan") is not None
    finally:
        reader.close()
        store.close()


def test_a_store_without_months_switches_to_them_and_expires_both(
    url: str, prefix: str, params: SketchParams, raw: EngineClient
) -> None:
    """Postings written before partitions stay in the write index and are still read,
    moved and expired one by one; new ones go to their month."""
    plain = open_store("opensearch", prefix, params, url=url, partitions="none")
    try:
        upsert(plain, record("old-jan", cluster="O", posted=JAN), [1])
        upsert(plain, record("old-mar", cluster="P", posted=MAR, seed=1), [1])
    finally:
        plain.close()
    store = open_store("opensearch", prefix, params, url=url, partitions="month")
    try:
        base = store.names.first_index(store.names.postings)
        assert store.get_posting("old-jan") is not None
        upsert(store, record("new-jan", cluster="O", posted=JAN, seed=2), [1])
        assert held_in(raw, month_index(store, "2024-01"), "new-jan") is not None
        upsert(store, record("old-mar", cluster="P", posted=MAR, seed=1), [1])  # re-sent
        assert held_in(raw, base, "old-mar") is None
        assert held_in(raw, month_index(store, "2024-03"), "old-mar") is not None

        assert store.expire(datetime(2024, 3, 1, tzinfo=UTC)) == 2  # new-jan whole, old-jan

        assert not exists(raw, month_index(store, "2024-01"))
        assert store.get_posting("old-jan") is None and store.get_cluster("O") is None
        assert everything(store) == ["old-mar"]
    finally:
        store.close()


def test_a_drop_waits_for_other_writers_only(
    url: str, prefix: str, params: SketchParams, raw: EngineClient
) -> None:
    """The grace wait covers other stores' write cycles that read the registry before the
    mark; alone (no other writer ticket), a drop does not wait."""
    store = open_store("opensearch", prefix, params, url=url, partitions="month", drop_grace_s=60)
    try:
        upsert(store, record("a", cluster="A", posted=JAN), [1])
        started = time.monotonic()
        assert store.expire(datetime(2024, 2, 1, tzinfo=UTC)) == 1
        assert time.monotonic() - started < 30  # not the 60 s grace

        other = open_store("opensearch", prefix, params, url=url, partitions="month")
        try:
            upsert(other, record("b", cluster="B", posted=FEB, seed=1), [1])  # a ticket
            store.close()
            store = open_store(
                "opensearch", prefix, params, url=url, partitions="month", drop_grace_s=2
            )
            started = time.monotonic()
            assert store.expire(datetime(2024, 3, 1, tzinfo=UTC)) == 1
            assert time.monotonic() - started >= 2
        finally:
            other.close()
    finally:
        store.close()
