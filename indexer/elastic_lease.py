"""The cluster-wide writer lease: serialises read-decide-write cycles across service instances.

One document (`lease:writer` in the clusters index) is the lock. Acquire = create it with
`op_type=create` (only one instance can); release = delete it with `if_seq_no` /
`if_primary_term` (only the holder can). Both are real-time single-document operations, so no
refresh is involved. A holder that died is taken over once its lease has expired (the
takeover is a conditional write of the version read, so only one instance wins); a lease
left behind by this very instance (its release failed while the engine was down) is taken
over at once.

The lease document is also the write-ahead journal: before a bulk, the holder writes the
bulk's operations into the lease with a conditional write (which at the same time proves it
still holds the lease: fencing), then sends the bulk. If the bulk fails half way, the
operations stay in the lease and whoever takes it next replays them (they are idempotent)
before reading anything: the index is never left half-written by a decision.
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from indexer.elastic_bodies import state_id
from indexer.elastic_client import EngineClient, Operation
from indexer.store import StoreUnavailable

logger = logging.getLogger(__name__)

LEASE_ID = state_id("lease", "writer")
TTL_S = 30.0  # a holder silent for this long is presumed dead (clocks kept by NTP)
WAIT_S = 30.0  # a writer waits this long for the lease, then answers 503 (retry later)


def _now_us() -> int:
    return int(time.time() * 1_000_000)


class WriterLease:
    """Acquire, journal into and release the writer lease (one instance per store; callers
    serialise their own threads first)."""

    def __init__(
        self,
        client: EngineClient,
        index: str,
        replay: Callable[[Sequence[Operation]], None],
        ttl_s: float = TTL_S,
        wait_s: float = WAIT_S,
    ) -> None:
        self._client = client
        self._index = index
        self._replay = replay
        self._ttl_s = ttl_s
        self._ttl_us = int(ttl_s * 1_000_000)
        self._wait_s = wait_s
        self.owner = uuid.uuid4().hex
        self._version: tuple[int, int] | None = None
        self._written_at = 0.0

    @property
    def held(self) -> bool:
        return self._version is not None

    def _document(self, pending: Sequence[Operation] = ()) -> dict[str, Any]:
        return {
            "kind": "lease",
            "owner": self.owner,
            "expires_us": _now_us() + self._ttl_us,
            "pending": [list(op) for op in pending],
        }

    def acquire(self) -> None:
        """Take the lease, waiting up to `wait_s`; replays a journal left by a failed holder.
        Raises StoreUnavailable when the wait runs out or the engine fails."""
        deadline = time.monotonic() + self._wait_s
        pause = 0.002
        while True:
            # Read first: creating over an existing lease would be a 409 that clients log.
            hit = self._client.get(self._index, LEASE_ID)
            if hit is None:
                version = self._client.create(self._index, LEASE_ID, self._document())
                if version is not None:
                    self._hold(version)
                    return
            elif self._take_over(hit):
                return
            if time.monotonic() >= deadline:
                raise StoreUnavailable(f"the writer lease is still held after {self._wait_s} s")
            time.sleep(pause * (1 + random.random()))
            pause = min(pause * 2, 0.05)

    def _take_over(self, hit: dict[str, Any]) -> bool:
        lease = hit["_source"]
        mine = lease.get("owner") == self.owner
        if not mine and lease.get("expires_us", 0) > _now_us():
            return False
        found = (int(hit["_seq_no"]), int(hit["_primary_term"]))
        pending = [(op[0], op[1]) for op in lease.get("pending") or []]
        version = self._client.put_if(self._index, LEASE_ID, self._document(pending), found)
        if version is None:
            return False  # another instance took it first
        if not mine:
            logger.warning("took over an expired writer lease of %s", lease.get("owner"))
        self._hold(version)
        if pending:
            logger.warning("replaying %d operations journaled by a failed writer", len(pending))
            self._replay(pending)
            self.journal(())
        return True

    def _hold(self, version: tuple[int, int]) -> None:
        self._version = version
        self._written_at = time.monotonic()

    def journal(self, operations: Sequence[Operation]) -> None:
        """Record the operations about to be sent (or none, to clear) and renew the lease,
        in one write conditional on still holding it; StoreUnavailable if it was lost."""
        if self._version is None:
            raise RuntimeError("journal() without holding the writer lease")
        version = self._client.put_if(
            self._index, LEASE_ID, self._document(operations), self._version
        )
        if version is None:
            self._version = None
            raise StoreUnavailable("the writer lease expired and was taken over; retry")
        self._hold(version)

    def renew_if_due(self) -> None:
        """Renew a long-held lease (a bulk-ingest batch) well before it expires."""
        if self._version is not None and time.monotonic() - self._written_at > self._ttl_s / 3:
            self.journal(())

    def release(self) -> None:
        """Delete the lease if still ours. When the engine cannot be reached the lease is
        left to expire (or to be taken over by this instance's next writer)."""
        version, self._version = self._version, None
        if version is not None and not self._client.delete_if(self._index, LEASE_ID, version):
            logger.warning("the writer lease was taken over before it was released")

    def forget(self) -> None:
        """Drop the local claim without touching the engine (it failed mid-cycle)."""
        self._version = None
