"""The registry of store adapters the contract suite runs on.

An adapter joins the suite by adding one entry to `STORE_FACTORIES`: a callable that opens
(or creates) a store under the given directory with the given parameters. Calling it again
with the same directory must reopen the same index, which the persistence and
parameter-mismatch tests rely on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from indexer.minhash import SketchParams
from indexer.store import IndexStore
from indexer.stores.memory import MemoryIndex, open_memory_store
from indexer.stores.sqlite.store import open_sqlite_store
from tests.integration.engine import ENGINES, drop_created
from tests.integration.engine import store_factory as engine_store_factory

StoreFactory = Callable[[Path, SketchParams], IndexStore]


def _sqlite(directory: Path, params: SketchParams) -> IndexStore:
    return open_sqlite_store(directory / "sqlite", params)


_MEMORY: dict[Path, MemoryIndex] = {}
"""The in-memory indexes by test directory, so that opening one again finds it."""


def _memory(directory: Path, params: SketchParams) -> IndexStore:
    store = open_memory_store(_MEMORY.get(directory), params)
    _MEMORY.setdefault(directory, store.index)
    return store


STORE_FACTORIES: dict[str, StoreFactory] = {
    "sqlite": _sqlite,
    # The in-memory store that fast tests of the layers above the port use.
    "memory": _memory,
    # The search-engine adapter through each client; skipped (with the reason) unless
    # JOBDEDUP_TEST_SEARCH_URL names an engine, failed if it names one that does not answer.
    **{engine: engine_store_factory(engine) for engine in ENGINES},
    # The same adapter with one postings index per month (JOBDEDUP_SEARCH_PARTITIONS=month):
    # the contract's postings span February and March 2024, and retention drops whole months.
    "opensearch-monthly": engine_store_factory("opensearch", partitions="month"),
}


@pytest.fixture(autouse=True)
def _drop_engine_indices() -> Iterator[None]:
    """Every index an engine-backed store created in this test is deleted after it."""
    yield
    drop_created()


@pytest.fixture(params=sorted(STORE_FACTORIES))
def store_factory(request: pytest.FixtureRequest) -> StoreFactory:
    """Each contract test runs once per registered adapter."""
    return STORE_FACTORIES[request.param]


@pytest.fixture
def params() -> SketchParams:
    """Small sketches keep hand-made test data readable; test modules may override this."""
    return SketchParams(num_perm=16, bands=8, rows=2)


@pytest.fixture
def store(
    store_factory: StoreFactory, tmp_path: Path, params: SketchParams
) -> Iterator[IndexStore]:
    """A fresh, empty store in this test's own directory, closed afterwards."""
    opened = store_factory(tmp_path, params)
    try:
        yield opened
    finally:
        opened.close()
