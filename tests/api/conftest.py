"""Fixtures of the API suite: a fresh index in tmp_path and the app driven through its lifespan."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from service.api import create_app
from service.settings import Settings
from tests.integration.engine import (
    ENGINES,
    Engine,
    drop_created,
    point_factory_at_engine,
    require_engine,
)


@pytest.fixture(autouse=True)
def _no_jobdedup_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings read JOBDEDUP_* variables; a developer's shell must not change test results."""
    for name in list(os.environ):
        if name.startswith("JOBDEDUP_") and not name.startswith("JOBDEDUP_TEST_"):
            monkeypatch.delenv(name)


@pytest.fixture(autouse=True, params=["sqlite", *ENGINES])
def api_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Every API test runs on the embedded index and on the search engine through each
    client: the composition root is pointed at a fresh engine index per data directory.
    Engine runs skip (with the reason) unless JOBDEDUP_TEST_SEARCH_URL is set."""
    backend: str = request.param
    if backend == "sqlite":
        yield backend
        return
    if request.node.get_closest_marker("sqlite_only"):
        pytest.skip("exercises the SQLite file itself")
    engine: Engine = "elasticsearch" if backend == "elasticsearch" else "opensearch"
    point_factory_at_engine(monkeypatch, engine, require_engine())
    try:
        yield backend
    finally:
        drop_created()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "index"


@pytest.fixture
def settings(data_dir: Path) -> Settings:
    return Settings(data_dir=data_dir)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    """The app with default settings on a fresh SqliteStore; the lifespan runs (and closes the
    store) because the client is used as a context manager."""
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture
def overlap_client(tmp_path: Path) -> Iterator[TestClient]:
    """The app on a fresh index, scored by the overlap baseline: for tests of which postings
    become candidates, which does not depend on the scorer."""
    with TestClient(create_app(Settings(data_dir=tmp_path, scorer="overlap"))) as test_client:
        yield test_client
