"""Wiring and operations of the engine backend: the factory, retention, misconfiguration."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.minhash import SketchParams
from indexer.store import CandidateQuery, ClusterFilter, StoreError, StoreUnavailable
from indexer.stores.elastic import setup as elastic_setup
from indexer.stores.elastic import transports as elastic_transports
from indexer.stores.elastic.bodies import postings_mappings
from indexer.stores.elastic.client import EngineClient
from indexer.stores.elastic.store import ElasticStore
from indexer.stores.elastic.transports import connect_elasticsearch
from service.factory import ConfigurationError, build_store
from service.settings import Settings
from tests.integration.compat import OpenSearchCompatNode
from tests.integration.engine import Engine, open_store
from tests.integration.support import day, record, upsert


def test_factory_opens_the_configured_engine(
    engine: Engine, url: str, prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if engine == "elasticsearch":  # production code, test-only node: the test engine is OpenSearch

        def with_compat_node(url: str, timeout: float) -> object:
            return connect_elasticsearch(url, timeout, node_class=OpenSearchCompatNode)

        # the factory imports the engine modules when an engine is configured
        monkeypatch.setattr(elastic_transports, "connect_elasticsearch", with_compat_node)
    settings = Settings(data_dir=tmp_path, backend=engine, search_url=url, search_index=prefix)
    with pytest.raises(StoreUnavailable, match="no index"):
        build_store(settings, create=False)  # a reader never creates an empty index

    store = build_store(settings)
    try:
        assert isinstance(store, ElasticStore)
        store.ping()
        assert store.names.postings == f"{prefix}-postings"
    finally:
        store.close()
    build_store(settings, create=False).close()


def test_new_indices_get_the_configured_shards_and_search_across_them(
    url: str, prefix: str, tmp_path: Path
) -> None:
    """JOBDEDUP_SEARCH_SHARDS sets the primary shards of the indices created on first use;
    candidates and clusters are found whichever shard holds them; a store opened later with
    another value keeps the index as it is."""
    settings = Settings(
        data_dir=tmp_path,
        backend="opensearch",
        search_url=url,
        search_index=prefix,
        search_shards=3,
        num_perm=16,  # the contract suite's records (tests.integration.support)
        bands=8,
        rows=2,
    )
    store = build_store(settings)
    assert isinstance(store, ElasticStore)
    try:
        for name in (store.names.postings, store.names.clusters):
            index = store.names.first_index(name)
            found = store._client.call("GET", f"/{index}/_settings", what="read settings")
            assert found[index]["settings"]["index"]["number_of_shards"] == "3"
        for n in range(12):
            upsert(store, record(f"s{n}", cluster="shared", posted=day(n), seed=n), [5, 100 + n])
        hits = store.find_candidates(CandidateQuery([5], "", None, None, None, 50))
        assert sorted(p.id for p in hits) == sorted(f"s{n}" for n in range(12))
        info = store.get_cluster("shared")
        assert info is not None and info.size == 12
    finally:
        store.close()
    again = build_store(settings.model_copy(update={"search_shards": 1}))
    try:
        assert again.stats().postings == 12
    finally:
        again.close()


def test_factory_needs_a_search_url(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="JOBDEDUP_SEARCH_URL"):
        build_store(Settings(data_dir=tmp_path, backend="opensearch"))


def test_the_elasticsearch_client_refuses_an_opensearch_server_clearly(
    url: str, prefix: str
) -> None:
    """Without the test-only node the official client will not talk to OpenSearch: the
    store says so (a configuration error, not a 503 to retry)."""
    client = EngineClient(connect_elasticsearch(url, 5.0))
    with pytest.raises(StoreError) as raised:
        ElasticStore(client, SketchParams(num_perm=16, bands=8, rows=2), prefix)
    assert not isinstance(raised.value, StoreUnavailable)
    client.transport.close()


def test_retention_deletes_old_postings_and_keeps_clusters_consistent(
    engine: Engine, url: str, prefix: str, params: SketchParams
) -> None:
    store = open_store(engine, prefix, params, url=url)
    try:
        for n in range(6):
            upsert(store, record(f"p{n}", cluster="A", posted=day(10 * n), seed=n), [1])
        upsert(store, record("lone", cluster="L", posted=day(1)), [2])

        assert store.expire(day(25), chunk=2) == 4  # p0, p1, p2 and lone

        assert store.stats().postings == 3
        info = store.get_cluster("A")
        assert info is not None
        assert (info.size, info.canonical_id, info.first_seen) == (3, "p3", day(30))
        assert store.get_cluster("L") is None
        assert [c.id for c in store.list_clusters(ClusterFilter(), None, 10).clusters] == ["A"]
        assert store.expire(day(25)) == 0
    finally:
        store.close()


def test_long_and_odd_ids_round_trip(
    engine: Engine, url: str, prefix: str, params: SketchParams
) -> None:
    """`_id`s are limited to 512 bytes and travel in URLs: ids are hashed or escaped."""
    store = open_store(engine, prefix, params, url=url)
    try:
        odd = ["é" * 256, "a/b?c=d&e f#g", "~sha256~x", "%2F..%2F"]
        for n, pid in enumerate(odd):
            upsert(store, record(pid, cluster=pid + "~2", seed=n), [n])
        for pid in odd:
            found = store.get_posting(pid)
            assert found is not None and found.id == pid
            assert store.resolve_cluster(pid + "~2") == pid + "~2"
        assert sorted(a.id for a in store.iter_assignments()) == sorted(odd)
    finally:
        store.close()


def test_an_index_with_numeric_band_keys_answers_candidates_as_a_keyword_one(
    engine: Engine, prefix: str, params: SketchParams, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Indices made before band keys were mapped as keyword keep `long`: the same writes
    and queries (integer keys, negative and beyond 2**53 included) give the same candidates,
    shared-key counts and order on both layouts."""
    keys = [-(2**63), -5, 0, 7, 2**53 + 1, 2**63 - 1]

    def fill(store: ElasticStore) -> list[list[str]]:
        for n in range(8):
            upsert(store, record(f"p{n}", posted=day(n), seed=n), keys[: 1 + n % len(keys)])
        return [
            [p.id for p in store.find_candidates(CandidateQuery([k], "", None, None, None, 50))]
            for k in keys
        ] + [[p.id for p in store.find_candidates(CandidateQuery(keys, "", None, None, None, 3))]]

    def band_keys_type(store: ElasticStore) -> str:
        index = store.names.first_index(store.names.postings)
        found = store._client.call("GET", f"/{index}/_mapping", what="read mapping")
        return str(found[index]["mappings"]["properties"]["band_keys"]["type"])

    older = postings_mappings()
    older["properties"]["band_keys"] = {"type": "long", "doc_values": False}
    with monkeypatch.context() as patched:
        patched.setattr(elastic_setup, "postings_mappings", lambda: older)
        old = open_store(engine, f"{prefix}-old", params)
    new = open_store(engine, f"{prefix}-new", params)
    try:
        assert (band_keys_type(old), band_keys_type(new)) == ("long", "keyword")
        found = fill(new)
        assert fill(old) == found
        assert found[0] == ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"]
        assert found[-1] == ["p5", "p4", "p3"]  # most shared keys first
    finally:
        old.close()
        new.close()
