"""Give freed heap back to the operating system after a large request.

glibc keeps the pages a big batch freed in its arenas, so the service's RSS stayed at
1.6 GB after one 61 MB batch although Python had released the objects; `malloc_trim(0)`
returns them. It costs milliseconds, so it runs only after requests that carried megabytes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
from functools import cache

logger = logging.getLogger(__name__)

LARGE_REQUEST_CHARS = 8_000_000
"""Characters of posting text above which a request's memory is handed back afterwards."""


@cache
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def release_free_memory() -> None:
    """`malloc_trim(0)` where glibc provides it (a no-op elsewhere, e.g. musl or macOS)."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
