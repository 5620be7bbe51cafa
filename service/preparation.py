"""Preparing postings for the pipeline: clean and sketch, in this process or a pool ahead.

Pure CPU work with no store access, so it can run outside the writer lock and, for bulk
ingest, in other processes (everything here is picklable).
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Executor, Future
from datetime import datetime
from time import perf_counter
from typing import TypeVar

from indexer.minhash import SketchParams
from indexer.posting import JobPosting
from indexer.prepare import PreparedPosting, posting_units, prepare
from service.heap import settle_heap

_T = TypeVar("_T")
_PREPARE_CHUNK = 64  # postings per task sent to a preparation process
_PREPARE_WINDOW = 8  # tasks in flight: enough to keep two workers busy, bounded memory


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int) -> None:
    """Initializer of preparation processes: exit when the parent does, however it dies.

    A pool's workers outlived `ingest` killed with -9 (two processes of ~130 MB each, forever).
    The kernel's parent-death signal covers Linux (it fires when the thread that spawned the
    worker ends, so a watchdog thread also polls the parent's pid, once a second, as the
    portable backstop). `parent` is the pool owner's pid, passed in rather than read here:
    a worker still importing when its parent is killed would read its new parent (init) and
    wait for it forever."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the watchdog alone
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def start_worker(parent: int) -> None:
    """Initializer of preparation processes: tied to the parent's life (`die_with_parent`),
    with the collector settings of the other long-running processes (`service.heap`)."""
    die_with_parent(parent)
    settle_heap()


def groups(items: Iterable[_T], size: int) -> Iterator[list[_T]]:
    """Consecutive lists of `size` items (the last may be shorter)."""
    chunk: list[_T] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def prepare_many(
    postings: list[JobPosting], params: SketchParams, now: datetime
) -> list[tuple[PreparedPosting, dict[str, float]]]:
    """`prepare_posting` over a chunk: one task per chunk keeps inter-process traffic low."""
    return [prepare_posting(p, params, now) for p in postings]


def prepare_ahead(
    executor: Executor, postings: Iterable[JobPosting], params: SketchParams, now: datetime
) -> Iterator[tuple[PreparedPosting, dict[str, float]]]:
    """Prepared postings in input order, computed by `executor` a bounded window ahead (unlike
    Executor.map, which would read the whole input before yielding anything)."""
    pending: deque[Future[list[tuple[PreparedPosting, dict[str, float]]]]] = deque()
    for chunk in groups(postings, _PREPARE_CHUNK):
        pending.append(executor.submit(prepare_many, chunk, params, now))
        if len(pending) >= _PREPARE_WINDOW:
            yield from pending.popleft().result()
    while pending:
        yield from pending.popleft().result()


def prepare_posting(
    posting: JobPosting, params: SketchParams, now: datetime
) -> tuple[PreparedPosting, dict[str, float]]:
    """Clean and sketch one posting: pure CPU work, picklable, so a process pool can run it.

    `now` is the receipt time used when the posting has no posted_at. The content hash is
    taken over what the client sent (without that default), so a retry is `unchanged`.
    Returns the prepared posting and the seconds spent in the clean and sketch stages.
    """
    started = perf_counter()
    received = posting.received()
    posted_at = posting.posted_at or now
    document = dict(received)
    document["posted_at"] = posted_at.isoformat()
    units = posting_units(posting.title, posting.description)
    cleaned = perf_counter()
    prepared = prepare(
        posting_id=posting.id,
        title=posting.title,
        units=units,
        company=posting.company,
        source=posting.source,
        posted_at=posted_at,
        document=document,
        received=received,
        params=params,
    )
    return prepared, {"clean": cleaned - started, "sketch": perf_counter() - cleaned}
