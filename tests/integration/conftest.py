"""Fixtures of the engine suite: which client, a unique index prefix deleted afterwards."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from indexer.minhash import SketchParams
from tests.integration.engine import (
    ENGINES,
    Engine,
    drop,
    drop_created,
    require_engine,
    unique_prefix,
)


@pytest.fixture(autouse=True)
def _no_jobdedup_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the test variables may reach Settings from the developer's shell."""
    for name in list(os.environ):
        if name.startswith("JOBDEDUP_") and not name.startswith("JOBDEDUP_TEST_"):
            monkeypatch.delenv(name)


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Engine:
    """Each engine test runs through opensearch-py and through the elasticsearch client."""
    name: Engine = request.param
    return name


@pytest.fixture
def url() -> str:
    """The engine's URL (skips without JOBDEDUP_TEST_SEARCH_URL, fails if it is down)."""
    return require_engine()


@pytest.fixture
def prefix(url: str) -> Iterator[str]:
    """A fresh index prefix; its indices and templates are deleted after the test, with
    those of any prefix handed out by `prefix_for` during it."""
    name = unique_prefix()
    try:
        yield name
    finally:
        drop(name)
        drop_created()


@pytest.fixture
def params() -> SketchParams:
    return SketchParams(num_perm=16, bands=8, rows=2)
