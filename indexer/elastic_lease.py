"""The cluster-wide writer lease: serialises read-decide-write cycles across service instances.

One document (`lease:writer` in the clusters index) is the lock. Acquire = create it with
`op_type=create` (only one instance can); release = delete it with `if_seq_no` /
`if_primary_term` (only the holder can). Both are real-time single-document operations, so no
refresh is involved. A holder that died is taken over once its lease has expired (the
takeover is a conditional write of the version read, so only one instance wins); a lease
left behind by this very instance (its release failed while the engine was down) is taken
over at once.

The lease lives `TTL_S` (a few seconds) and a heartbeat thread renews it while it is held
longer than a third of that (a long batch, a slow request): a live holder keeps it however
long it works, and a holder that died (kill -9, a crashed host) loses it within `TTL_S`, so
the other instances' writes resume after a few seconds, not after a long fixed TTL. Every
wait for the lease ends at the caller's deadline (`EngineClient.until`) with
`StoreUnavailable` (503).

The lease document is also the write-ahead journal: before a bulk, the holder writes the
bulk's operations into the lease with a conditional write (which at the same time proves it
still holds the lease: fencing), then sends the bulk. If the bulk fails half way, the
operations stay in the lease and whoever takes it next replays them (they are idempotent)
before reading anything: the index is never left half-written by a decision.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from indexer.elastic_bodies import state_id
from indexer.elastic_client import EngineClient, Operation
from indexer.store import StoreError, StoreUnavailable

logger = logging.getLogger(__name__)

LEASE_ID = state_id("lease", "writer")
TTL_S = 6.0  # a holder not renewing for this long is presumed dead (clocks kept by NTP)
RENEW_SHARE = 1 / 3  # a lease held this share of TTL_S since its last write is renewed
TICK_SHARE = 1 / 12  # the heartbeat looks this often (0.5 s for the default TTL)


def _now_us() -> int:
    return int(time.time() * 1_000_000)


class WriterLease:
    """Acquire, journal into and release the writer lease (one instance per store; callers
    serialise their own threads first). A heartbeat thread, started with the first hold and
    stopped by `close()`, renews the lease while it is held."""

    def __init__(
        self,
        client: EngineClient,
        index: str,
        replay: Callable[[Sequence[Operation]], None],
        ttl_s: float = TTL_S,
    ) -> None:
        self._client = client
        self._index = index
        self._replay = replay
        self._ttl_s = ttl_s
        self._ttl_us = int(ttl_s * 1_000_000)
        self.owner = uuid.uuid4().hex
        # _version, _pending and _written_at change together, under _mutex: the holder's
        # thread and the heartbeat both write the lease, each conditional on _version.
        self._mutex = threading.Lock()
        self._version: tuple[int, int] | None = None
        self._pending: list[Operation] = []  # the journal as last written
        self._written_at = 0.0
        self._claim = 0  # bumped by forget(), which does not wait for the mutex
        self._stopped = threading.Event()
        self._heartbeat: threading.Thread | None = None

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
        """Take the lease by the caller's deadline (`EngineClient.until`, else one timeout);
        replays a journal left by a failed holder. Raises StoreUnavailable when the wait runs
        out or the engine fails."""
        deadline = self._client.deadline()
        pause = 0.002
        with self._client.until(deadline):
            while True:
                # Read first: creating over an existing lease would be a 409 clients log.
                hit = self._client.get(self._index, LEASE_ID)
                if hit is None:
                    version = self._client.create(self._index, LEASE_ID, self._document())
                    if version is not None:
                        self._hold(version)
                        return
                elif self._take_over(hit):
                    return
                wait = pause * (1 + random.random())
                if time.monotonic() + wait >= deadline:
                    holder = hit["_source"].get("owner") if hit else None
                    raise StoreUnavailable(
                        f"the writer lease is held by instance {holder}; no turn before the "
                        "deadline, retry later"
                    )
                time.sleep(wait)
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
        self._hold(version, pending)
        if pending:
            logger.warning("replaying %d operations journaled by a failed writer", len(pending))
            try:
                self._replay(pending)
                self.journal(())
            except BaseException:
                self.forget()  # the journal stays in the lease for the next writer
                raise
        return True

    def _hold(self, version: tuple[int, int], pending: Sequence[Operation] = ()) -> None:
        with self._locked():
            self._version, self._pending = version, list(pending)
            self._written_at = time.monotonic()
        if self._heartbeat is None and not self._stopped.is_set():
            self._heartbeat = threading.Thread(
                target=self._beat, name=f"lease-heartbeat-{self.owner[:8]}", daemon=True
            )
            self._heartbeat.start()

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the mutex, taken within the caller's budget (the heartbeat may be in a slow
        renewal): StoreUnavailable rather than an unbounded wait."""
        left = self._client.deadline() - time.monotonic()
        if not self._mutex.acquire(timeout=max(left, 0.0)):
            raise StoreUnavailable("the writer lease is busy (its renewal does not answer)")
        try:
            yield
        finally:
            self._mutex.release()

    def journal(self, operations: Sequence[Operation]) -> None:
        """Record the operations about to be sent (or none, to clear) and renew the lease,
        in one write conditional on still holding it; StoreUnavailable if it was lost."""
        with self._locked():
            self._write(list(operations))

    def _write(self, operations: list[Operation]) -> None:
        if self._version is None:
            raise StoreUnavailable("the writer lease was lost (expired or taken over); retry")
        claim = self._claim
        version = self._client.put_if(
            self._index, LEASE_ID, self._document(operations), self._version
        )
        if claim != self._claim:
            return  # forget() dropped the claim meanwhile: do not revive it
        if version is None:
            self._version = None
            raise StoreUnavailable("the writer lease expired and was taken over; retry")
        self._version, self._pending = version, operations
        self._written_at = time.monotonic()

    def renew_if_due(self) -> None:
        """Renew a long-held lease (a bulk-ingest batch) well before it expires, keeping its
        journal; StoreUnavailable if it was lost meanwhile."""
        if self._version is None:
            raise StoreUnavailable("the writer lease was lost (expired or taken over); retry")
        with self._locked():
            if time.monotonic() - self._written_at > self._ttl_s * RENEW_SHARE:
                self._write(self._pending)

    def _beat(self) -> None:
        """Heartbeat: renew a lease held for a third of its TTL since its last write, each
        renewal bounded by the rest of the TTL (after that it would be too late anyway)."""
        while not self._stopped.wait(self._ttl_s * TICK_SHARE):
            if not self._mutex.acquire(blocking=False):
                continue  # the holder is writing the lease itself
            try:
                due = time.monotonic() - self._written_at > self._ttl_s * RENEW_SHARE
                if self._version is not None and due:
                    with self._client.until(self._written_at + self._ttl_s):
                        self._write(self._pending)
            except StoreError as exc:
                logger.warning("could not renew the writer lease: %s", exc)
            finally:
                self._mutex.release()

    def release(self) -> None:
        """Delete the lease if still ours. When the engine cannot be reached the lease is
        left to expire (or to be taken over by this instance's next writer)."""
        with self._locked():
            version, self._version, self._pending = self._version, None, []
        if version is not None and not self._client.delete_if(self._index, LEASE_ID, version):
            logger.warning("the writer lease was taken over before it was released")

    def forget(self) -> None:
        """Drop the local claim without touching the engine (it failed mid-cycle, or the
        engine does not answer): this instance's next writer takes the lease over at once,
        another instance after `TTL_S`."""
        self._claim += 1
        self._version, self._pending = None, []

    def close(self) -> None:
        """Stop the heartbeat (the store is closing)."""
        self._stopped.set()
        if self._heartbeat is not None and self._heartbeat is not threading.current_thread():
            self._heartbeat.join(timeout=self._ttl_s)
