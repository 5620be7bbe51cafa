"""The real search engine for tests: where it is, how to reach it through both clients, and
clean-up of the indices a test created.

`JOBDEDUP_TEST_SEARCH_URL` (set by .ci/run after starting ../shared/tools/opensearch-local)
turns the engine tests on. Without it they skip with that reason; with it, an engine that
does not answer fails them (a CI run must never pass by skipping its engine tests).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

import pytest

from indexer.minhash import SketchParams
from indexer.store import IndexStore, StoreError
from indexer.stores.elastic.claims import TTL_S
from indexer.stores.elastic.client import EngineClient, EngineError, Transport, part
from indexer.stores.elastic.partitions import PartitionScheme
from indexer.stores.elastic.store import ElasticStore
from indexer.stores.elastic.transports import connect_elasticsearch, connect_opensearch
from tests.integration.compat import OpenSearchCompatNode

URL_VARIABLE = "JOBDEDUP_TEST_SEARCH_URL"
PARTITIONS_VARIABLE = "JOBDEDUP_TEST_SEARCH_PARTITIONS"
SKIP_REASON = f"{URL_VARIABLE} is not set: no search engine to test against (CI starts one)"
Engine = Literal["opensearch", "elasticsearch"]
ENGINES: tuple[Engine, ...] = ("opensearch", "elasticsearch")
TIMEOUT_S = 10.0
DROP_GRACE_S = 0.2  # tests run no write cycle beside a retention pass
_checked: dict[str, str | None] = {}  # url -> None if it answered, else the error


def engine_url() -> str | None:
    """The engine's URL, or None when the engine tests are off."""
    return os.environ.get(URL_VARIABLE) or None


def require_engine() -> str:
    """The engine's URL; skips without the variable, fails if the engine does not answer."""
    url = engine_url()
    if url is None:
        pytest.skip(SKIP_REASON)
    if url not in _checked:
        try:
            EngineClient(connect_opensearch(url, 5.0)).info()
            _checked[url] = None
        except StoreError as exc:
            _checked[url] = str(exc)
    if _checked[url] is not None:
        pytest.fail(f"{URL_VARIABLE}={url} is set but the engine does not answer: {_checked[url]}")
    return url


def transport(engine: Engine, url: str, timeout: float = TIMEOUT_S) -> Transport:
    """A transport through the engine's client: opensearch-py as is, the `elasticsearch`
    client with the test-only compatibility node (the test node is OpenSearch)."""
    if engine == "elasticsearch":
        return connect_elasticsearch(url, timeout, node_class=OpenSearchCompatNode)
    return connect_opensearch(url, timeout)


def unique_prefix() -> str:
    """An index prefix no other test uses."""
    return f"jdt-{uuid.uuid4().hex[:12]}"


def open_store(
    engine: Engine,
    prefix: str,
    params: SketchParams,
    url: str | None = None,
    timeout: float = TIMEOUT_S,
    create: bool = True,
    lease_ttl_s: float = TTL_S,
    partitions: PartitionScheme | None = None,
    drop_grace_s: float | None = None,
) -> ElasticStore:
    """An `ElasticStore` on the test engine under `prefix` (created if absent); with month
    `partitions`, a dropped month waits a short grace instead of a write cycle's longest.
    Without `partitions`, `JOBDEDUP_TEST_SEARCH_PARTITIONS` decides (default `none`): set to
    `month`, every engine test runs on month indices."""
    if partitions is None:
        partitions = "month" if os.environ.get(PARTITIONS_VARIABLE) == "month" else "none"
    client = EngineClient(transport(engine, url or require_engine(), timeout))
    try:
        return ElasticStore(
            client,
            params,
            prefix,
            refresh="true",
            create=create,
            lease_ttl_s=lease_ttl_s,
            partitions=partitions,
            drop_grace_s=drop_grace_s or (None if partitions == "none" else DROP_GRACE_S),
        )
    except BaseException:
        client.transport.close()
        raise


def drop(prefix: str) -> None:
    """Delete every index and template under `prefix` (wildcard deletes of indices are
    refused by default on Elasticsearch 8, so concrete names are listed first)."""
    url = engine_url()
    if url is None:
        return
    raw = connect_opensearch(url, 30.0)
    try:
        indices = raw.request("GET", f"/{part(prefix)}-*", {"expand_wildcards": "all"})
        if indices:
            raw.request("DELETE", "/" + ",".join(part(name) for name in indices))
        templates = raw.request("GET", "/_index_template")["index_templates"]
        for template in templates:
            if template["name"].startswith(f"{prefix}-"):
                raw.request("DELETE", f"/_index_template/{part(template['name'])}")
    except (EngineError, StoreError):
        pass  # the engine went away: nothing left to clean
    finally:
        raw.close()


@contextmanager
def dropped_afterwards(prefix: str) -> Iterator[str]:
    """Yield `prefix`; delete its indices and templates on the way out."""
    try:
        yield prefix
    finally:
        drop(prefix)


_created: dict[str, str] = {}  # directory -> prefix of the stores opened for it


def prefix_for(directory: object) -> str:
    """The same unique prefix every time for one directory (a test's tmp_path), so a store
    reopened "in the same directory" finds its index, and no two tests share one."""
    key = str(directory)
    if key not in _created:
        _created[key] = unique_prefix()
    return _created[key]


def drop_created() -> None:
    """Delete the indices of every prefix handed out by `prefix_for` (test tear-down)."""
    while _created:
        _, prefix = _created.popitem()
        drop(prefix)


def store_factory(
    engine: Engine, partitions: PartitionScheme | None = None
) -> Callable[[Path, SketchParams], IndexStore]:
    """A contract-suite factory: one index prefix per directory, on `engine`'s client."""

    def open_for(directory: Path, params: SketchParams) -> IndexStore:
        url = require_engine()
        return open_store(engine, prefix_for(directory), params, url=url, partitions=partitions)

    return open_for


def point_factory_at_engine(monkeypatch: pytest.MonkeyPatch, engine: Engine, url: str) -> None:
    """Make `service.factory.build_store` open `engine` for settings that name the default
    backend: one fresh index prefix per data directory (so two apps on one directory are two
    service instances on one index), the `elasticsearch` client with the test-only node."""
    from service import factory
    from service.settings import Settings

    build_store = factory.build_store

    def engine_store(settings: Settings, create: bool = True) -> IndexStore:
        if settings.backend != "sqlite":
            return build_store(settings, create)
        prefix = prefix_for(settings.data_dir)
        params = settings.sketch_params()
        timeout = settings.search_timeout
        return open_store(engine, prefix, params, url=url, timeout=timeout, create=create)

    monkeypatch.setattr(factory, "build_store", engine_store)
