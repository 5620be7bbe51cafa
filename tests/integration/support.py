"""Records and postings for the engine suite."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from indexer.minhash import Sketch
from indexer.store import IndexStore, StoreContended, StoredPosting, WriteSet

T0 = datetime(2024, 3, 1, 9, 30, tzinfo=UTC)


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def sketch(seed: int, size: int = 16) -> Sketch:
    rng = np.random.default_rng(seed)
    return rng.integers(-(2**63), 2**63 - 1, size=size, dtype=np.int64, endpoint=True)


def record(
    pid: str,
    cluster: str | None = None,
    posted: datetime = T0,
    document: dict[str, Any] | None = None,
    seed: int = 0,
) -> StoredPosting:
    """A stored posting as the contract suite builds them (16-slot sketch)."""
    return StoredPosting(
        id=pid,
        content_hash=f"hash-{pid}-{seed}",
        posted_at=posted,
        title=f"Title {pid}",
        company="ACME Corp",
        source="board",
        company_key="acme",
        block_key="",
        sketch=sketch(seed),
        shingle_count=40,
        cluster_id=cluster or f"c-{pid}",
        document=document or {"id": pid},
        decision={},
    )


def upsert(store: IndexStore, item: StoredPosting, keys: list[int]) -> None:
    store.apply(WriteSet(upserts=[(item, keys)]))


def giving_way(step: Callable[[], None], limit_s: float = 20.0) -> int:
    """Run a write cycle again, after a short jittered pause, whenever it gave way to an
    older one (as the pipeline does); returns how often it gave way."""
    gave_way, deadline = 0, time.monotonic() + limit_s
    while True:
        try:
            step()
            return gave_way
        except StoreContended:
            gave_way += 1
            assert time.monotonic() < deadline, f"still giving way after {gave_way} tries"
            time.sleep(0.005 * (1 + random.random()))
