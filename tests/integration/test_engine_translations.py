"""`find_translations` on the engine beyond the contract: the same ranking as the embedded store
on random multilingual data, the requests it makes (none on a monolingual index once its
languages are known), and the memory of languages across store instances."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from indexer.anchor_keys import MAX_ANCHOR_DF, PostingAnchors, TranslationQuery, stored_keys
from indexer.minhash import SketchParams
from indexer.store import IndexStore, WriteSet
from indexer.stores.elastic import translations as elastic_translations
from indexer.stores.elastic.client import EngineClient, Transport
from indexer.stores.elastic.store import ElasticStore
from indexer.stores.sqlite.store import open_sqlite_store
from tests.integration.engine import Engine, open_store, transport
from tests.integration.support import day, record


class CountingTransport:
    """A transport that counts the searches sent through it (`_msearch` and `_search`)."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.engine = inner.engine
        self.timeout = inner.timeout
        self.searches = 0

    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        ndjson: bool = False,
        timeout: float | None = None,
    ) -> Any:
        if path.endswith(("/_msearch", "/_search")):
            self.searches += 1
        return self.inner.request(method, path, params, body, ndjson, timeout)

    def close(self) -> None:
        self.inner.close()


@pytest.fixture
def counted(
    engine: Engine, url: str, prefix: str, params: SketchParams
) -> Iterator[tuple[ElasticStore, CountingTransport]]:
    """A store on the test index whose searches are counted."""
    wire = CountingTransport(transport(engine, url))
    store = ElasticStore(EngineClient(wire), params, prefix)
    try:
        yield store, wire
    finally:
        store.close()


def anchors(language: str, *hashes: int) -> PostingAnchors:
    return PostingAnchors(language, tuple(sorted(set(hashes))))


def index(store: IndexStore, pid: str, found: PostingAnchors, when: float = 0) -> None:
    store.apply(WriteSet(upserts=[(record(pid, posted=day(when)), stored_keys(found))]))


def search(found: PostingAnchors, exclude: str | None = None, limit: int = 3) -> TranslationQuery:
    return TranslationQuery(found, day(-30), day(30), exclude, limit)


def ids(store: IndexStore, query: TranslationQuery) -> list[str]:
    return [p.id for p in store.find_translations(query)]


def test_same_ranking_as_the_embedded_store(
    engine: Engine, url: str, prefix: str, params: SketchParams, tmp_path: Path
) -> None:
    """Random postings in three languages (anchors from a small pool, so that keys reach
    every document frequency up to beyond `MAX_ANCHOR_DF`), some outside the window, some
    rewritten or deleted inside a batch, searched in every language on both stores."""
    rng = random.Random(7)
    embedded = open_sqlite_store(tmp_path / "sqlite", params)
    remote = open_store(engine, prefix, params, url=url)
    try:
        common = list(range(1, 4))  # in most postings: about MAX_ANCHOR_DF per language
        pool = list(range(10, 140))
        writes = []
        for i in range(300):
            language = rng.choice(["pl", "en", "de"])
            hashes = rng.sample(pool, rng.randint(1, 12)) + (common if rng.random() < 0.8 else [])
            when = rng.uniform(-45, 45)
            writes.append((f"{language}-{i:03d}", anchors(language, *hashes), when))
        assert len(writes) > MAX_ANCHOR_DF * 3
        for store in (embedded, remote):
            store.apply(
                WriteSet(
                    upserts=[
                        (record(pid, posted=day(when), seed=n), stored_keys(found))
                        for n, (pid, found, when) in enumerate(writes)
                    ]
                )
            )
        queries = [
            TranslationQuery(
                anchors(rng.choice(["pl", "en", "de", "fr"]), *rng.sample(pool + common, 10)),
                None if n % 5 == 0 else day(rng.uniform(-40, 0)),
                None if n % 7 == 0 else day(rng.uniform(0, 40)),
                rng.choice([None, writes[n][0]]),
                rng.choice([1, 3, 10]),
            )
            for n in range(40)
        ]
        found = 0
        for query in queries:
            want = ids(embedded, query)
            assert ids(remote, query) == want, query
            found += len(want)
        assert found > len(queries)  # most searches find something
        deletions = WriteSet(deletions=[pid for pid, _, _ in writes[:20]])
        rewrites = WriteSet(
            upserts=[
                (
                    record(pid, posted=day(rng.uniform(-20, 20)), seed=1),
                    stored_keys(anchors(rng.choice(["pl", "fr"]), *rng.sample(pool, 8), *common)),
                )
                for pid, _, _ in writes[20:80]
            ]
        )
        embedded.apply(deletions)
        embedded.apply(rewrites)
        with remote.batch():  # the same writes pending: the answers of the state after them
            remote.apply(deletions)
            remote.apply(rewrites)
            for query in queries[:20]:
                assert ids(remote, query) == ids(embedded, query), query
        for query in queries[20:]:
            assert ids(remote, query) == ids(embedded, query), query
    finally:
        embedded.close()
        remote.close()


def test_monolingual_index_asks_nothing_once_its_languages_are_known(
    counted: tuple[ElasticStore, CountingTransport], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, wire = counted
    index(store, "en-1", anchors("en", 1, 2))
    wire.searches = 0
    assert ids(store, search(anchors("en", 1, 2))) == []
    assert wire.searches == 1  # the languages, asked at first use
    assert ids(store, search(anchors("en", 1, 2))) == []
    index(store, "en-2", anchors("en", 1, 3))
    wire.searches = 0
    assert ids(store, search(anchors("en", 1, 2))) == []
    assert wire.searches == 0
    monkeypatch.setattr(elastic_translations, "LANGUAGES_TTL_S", 0.0)
    assert ids(store, search(anchors("en", 1, 2))) == []
    assert wire.searches == 1  # asked again once the memory is old


def test_multilingual_search_takes_two_searches_once_languages_are_known(
    counted: tuple[ElasticStore, CountingTransport],
) -> None:
    store, wire = counted
    index(store, "pl-1", anchors("pl", 1, 2))
    index(store, "en-1", anchors("en", 1, 2))
    assert ids(store, search(anchors("en", 1, 2))) == ["pl-1"]
    wire.searches = 0
    assert ids(store, search(anchors("de", 1))) == ["en-1", "pl-1"]
    assert wire.searches == 2  # key counts, then holders
    wire.searches = 0
    assert ids(store, search(anchors("en", 77))) == []
    assert wire.searches == 1  # no key weighs: no holder to fetch


def test_a_new_store_finds_languages_written_before_it(
    engine: Engine, url: str, prefix: str, params: SketchParams
) -> None:
    writer = open_store(engine, prefix, params, url=url)
    try:
        index(writer, "pl-1", anchors("pl", 5, 6))
        reader = open_store(engine, prefix, params, url=url)
        try:
            assert ids(reader, search(anchors("en", 5))) == ["pl-1"]
        finally:
            reader.close()
    finally:
        writer.close()


def test_another_instance_new_language_is_found_once_the_memory_is_refreshed(
    engine: Engine, url: str, prefix: str, params: SketchParams, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one answer the memory may delay (module docstring of elastic_translations)."""
    writer = open_store(engine, prefix, params, url=url)
    reader = open_store(engine, prefix, params, url=url)
    try:
        index(writer, "en-1", anchors("en", 5))
        assert ids(reader, search(anchors("en", 5))) == []
        index(writer, "pl-1", anchors("pl", 5))
        assert ids(reader, search(anchors("en", 5))) == []  # pl not known here yet
        monkeypatch.setattr(elastic_translations, "LANGUAGES_TTL_S", 0.0)
        assert ids(reader, search(anchors("en", 5))) == ["pl-1"]
    finally:
        reader.close()
        writer.close()


def test_batch_skips_the_engine_copies_it_rewrites_or_deletes(
    engine: Engine, url: str, prefix: str, params: SketchParams
) -> None:
    store = open_store(engine, prefix, params, url=url)
    try:
        index(store, "pl-1", anchors("pl", 41))
        index(store, "pl-2", anchors("pl", 41, 42))
        index(store, "pl-3", anchors("pl", 43))
        with store.batch():
            index(store, "pl-1", anchors("pl", 44))  # no longer holds 41
            store.apply(WriteSet(deletions=["pl-3"]))
            index(store, "pl-4", anchors("pl", 43), when=1)
            assert ids(store, search(anchors("en", 41, 43, 44))) == ["pl-1", "pl-2", "pl-4"]
            assert ids(store, search(anchors("en", 41))) == ["pl-2"]
            assert ids(store, search(anchors("en", 43))) == ["pl-4"]
        assert ids(store, search(anchors("en", 43))) == ["pl-4"]
    finally:
        store.close()
