"""The disk cache of start-up objects (`indexer.disk_cache`) and the gazetteer through it."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from classifier import gazetteer
from classifier.gazetteer_data import build
from indexer import disk_cache


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv(disk_cache.CACHE_DIR_ENV, str(directory))
    return directory


def test_a_built_object_is_read_back_instead_of_built_again(cache_dir: Path) -> None:
    builds: list[int] = []

    def build_once() -> dict[str, int]:
        builds.append(1)
        return {"towns": 3}

    assert disk_cache.cached("thing", "k1", build_once) == {"towns": 3}
    assert disk_cache.cached("thing", "k1", build_once) == {"towns": 3}
    assert len(builds) == 1
    assert [p.name for p in cache_dir.iterdir()] == ["thing-k1.pickle"]


def test_another_key_builds_again_and_replaces_the_old_file(cache_dir: Path) -> None:
    disk_cache.cached("thing", "k1", lambda: 1)
    assert disk_cache.cached("thing", "k2", lambda: 2) == 2
    assert sorted(p.name for p in cache_dir.iterdir()) == ["thing-k2.pickle"]


def test_an_unreadable_cache_file_is_rebuilt(cache_dir: Path) -> None:
    cache_dir.mkdir()
    (cache_dir / "thing-k1.pickle").write_bytes(b"\x80\x05 truncated")
    assert disk_cache.cached("thing", "k1", lambda: [1, 2]) == [1, 2]
    assert pickle.loads((cache_dir / "thing-k1.pickle").read_bytes()) == [1, 2]


def test_a_cache_directory_that_cannot_be_written_only_costs_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(disk_cache.CACHE_DIR_ENV, str(blocker / "cache"))
    assert disk_cache.cached("thing", "k1", lambda: "built") == "built"


def test_the_fingerprint_follows_the_sources(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_text("A = 1\n")
    before = disk_cache.fingerprint([source], ["pycountry"])
    assert disk_cache.fingerprint([source], ["pycountry"]) == before
    source.write_text("A = 2\n")
    assert disk_cache.fingerprint([source], ["pycountry"]) != before


def test_the_cached_gazetteer_is_the_built_one(cache_dir: Path) -> None:
    """What the cache returns is what `build` makes, field for field (the index is plain
    lists, arrays, dicts, tuples and frozensets, compared by value)."""
    gazetteer._index.cache_clear()
    try:
        first = gazetteer._index()  # built and written
        gazetteer._index.cache_clear()
        second = gazetteer._index()  # read back
        fresh = build(gazetteer._european_rows())
    finally:
        gazetteer._index.cache_clear()
    assert len(list(cache_dir.iterdir())) == 1
    assert second is not first
    assert vars(second) == vars(fresh) == vars(first)
    assert gazetteer.resolve("Bordeaux, Gironde") is not None


def test_without_a_home_directory_the_object_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv(disk_cache.CACHE_DIR_ENV, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    assert disk_cache.cached("thing", "k1", lambda: "built") == "built"
