"""Objects that are slow to build and depend only on shipped code and data, kept on disk.

Every process that scores pairs builds the gazetteer (`classifier.gazetteer`): 1.6 s of Python
over GeoNames rows, at every `serve`, `ingest` or `evaluate` start. Unpickling the built index
takes 0.11 s. The file is named after a hash of everything the object is built from (the
source of the modules that build it, the versions of the packages whose data they read, the
Python version), so a change to any of them builds and writes a new file; nothing is ever
invalidated by hand.

Where: `JOBDEDUP_CACHE_DIR`, else `$XDG_CACHE_HOME/jobdedup`, else `~/.cache/jobdedup`. A
cache that cannot be read (absent, truncated, written by something else) is rebuilt; one
that cannot be written (read-only home, full disk) only costs the build. The files are
pickles: whoever can write to that directory can run code as its user, as with any user
cache of Python objects, so it must be the user's own directory (the default is).
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TypeVar, cast

logger = logging.getLogger(__name__)

CACHE_DIR_ENV = "JOBDEDUP_CACHE_DIR"

T = TypeVar("T")


def cache_dir() -> Path:
    """The directory of the cache files (see the module docstring); not created here."""
    configured = os.environ.get(CACHE_DIR_ENV)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "jobdedup"


def fingerprint(sources: Iterable[Path], packages: Iterable[str]) -> str:
    """A hash of the files and the installed versions of the packages an object is built
    from, and of the Python version (pickles of one version are read by the same)."""
    digest = hashlib.sha256(sys.version.encode())
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for package in packages:
        try:
            installed = version(package)
        except PackageNotFoundError:
            installed = "absent"
        digest.update(f"{package}={installed}\0".encode())
    return digest.hexdigest()[:20]


def cached(name: str, key: str, build: Callable[[], T]) -> T:
    """The object cached under `name` and `key`, else `build()`, written for next time.

    Older files of the same `name` are removed once the new one is written, so the directory
    holds one file per name."""
    try:
        directory = cache_dir()
    except RuntimeError as exc:  # no home directory to put it in (Path.home())
        logger.info("no cache directory (%s): %s built at every start", exc, name)
        return build()
    path = directory / f"{name}-{key}.pickle"
    try:
        with path.open("rb") as file:
            return cast(T, pickle.load(file))
    except FileNotFoundError:
        pass
    except Exception as exc:  # any unreadable cache is rebuilt, never fatal
        logger.warning("cache %s unreadable (%s): rebuilding it", path, exc)
    built = build()
    _write(directory, path, name, built)
    return built


def _write(directory: Path, path: Path, name: str, value: object) -> None:
    """Write `value` to `path` through a temporary file (a reader never sees half a file)."""
    temporary: Path | None = None
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=directory, prefix=f".{name}-", delete=False) as tmp:
            temporary = Path(tmp.name)
            pickle.dump(value, tmp, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)
        temporary = None
        for old in directory.glob(f"{name}-*.pickle"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError as exc:
        logger.info("cache %s not written (%s): built again at the next start", path, exc)
    finally:
        if temporary is not None:
            temporary.unlink(missing_ok=True)
