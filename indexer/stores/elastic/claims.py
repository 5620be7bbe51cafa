"""Claims on documents across service instances: what replaced the one global writer lease.

A write cycle (one decision, or a batch of them) claims the documents it will write before
it reads them, and only those: `p:<id>` for a posting it writes or deletes, `c:<id>` for a
cluster it joins, leaves, merges or names (a cluster's aliases share its claim, as an alias
is written only by the merge that absorbs the cluster of that id). Decisions on unrelated
postings therefore claim disjoint names and run in parallel on any number of instances;
two decisions that write one cluster take turns. Near-duplicates posted at once do not
claim a common name (neither sees the other's cluster yet): the pipeline's re-check after
the write (`service.pipeline`) joins them. The argument, step by step: docs/concurrency.md.

Documents, in the clusters index:
- `ticket:<owner>` - one per live store: `expires_us`, renewed by a heartbeat thread, and
  the store's write-ahead journal (`pending`). Every journal write is conditional on the
  ticket's version, so a store whose ticket was taken from it (it stopped renewing: killed,
  frozen, cut off) cannot write any more (fencing). A new ticket gets a new owner id.
- `claim:<name>` - created (`op_type=create`, real time: only one instance can) with the
  owner and the age of the cycle (`started_us`), deleted (conditionally) when the cycle ends.

Who may take a claim that exists:
- its owner's ticket is gone (released, or buried after a crash): anyone, with a write
  conditional on the claim's version (only one wins);
- its owner's ticket expired: the first to mark the ticket dead (a conditional write) replays
  the ticket's journal, then deletes the ticket; until then the ticket is dead and not
  expired, and everyone else waits. A journal is therefore replayed whole before any
  document it covers can be claimed again (the replayer's own marking expires too, so a
  replayer that dies is replaced);
- its owner is alive: wait-die on the cycles' ages. A younger cycle gives way at once
  (`StoreContended`, nothing of it written; it retries keeping its age), an older one waits
  (within the caller's deadline). Every wait is for a younger cycle, so no cycle of waits
  can form, and a cycle that retries grows older than any newcomer, so it gets through.

The heartbeat also buries tickets whose owners died (`sweep`), so a crashed decision's
journal is replayed within seconds even if nobody needs its documents.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from indexer.store import StoreContended, StoreError, StoreUnavailable
from indexer.stores.elastic.bodies import state_id
from indexer.stores.elastic.client import EngineClient, Operation

logger = logging.getLogger(__name__)

TTL_S = 6.0  # a ticket not renewed for this long is presumed dead (clocks kept by NTP)
RENEW_SHARE = 1 / 3  # a ticket written this share of TTL_S ago is renewed
TICK_SHARE = 1 / 12  # the heartbeat looks this often (0.5 s for the default TTL)
SWEEP_TICKS = 12  # the heartbeat looks for dead tickets every this many ticks (one TTL)
LEGACY_LEASE_ID = state_id("lease", "writer")  # the global lease of versions before claims


def _now_us() -> int:
    return int(time.time() * 1_000_000)


def ticket_id(owner: str) -> str:
    return state_id("ticket", owner)


def claim_id(name: str) -> str:
    return state_id("claim", name)


def posting_claim(posting_id: str) -> str:
    return f"p:{posting_id}"


def cluster_claim(cluster_id: str) -> str:
    return f"c:{cluster_id}"


class Claims:
    """This store's ticket, the claims of its current cycle, and the heartbeat. Used by one
    thread at a time (the store's per-instance lock); the heartbeat shares the ticket under
    a mutex."""

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
        self._mutex = threading.Lock()  # _version, _pending, _written_at change together
        self._version: tuple[int, int] | None = None
        self._pending: list[Operation] = []
        self._written_at = 0.0
        self._held: dict[str, tuple[int, int]] = {}  # claim name -> the claim's version
        self._leftover: dict[str, tuple[int, int]] = {}  # held, not released yet (failure)
        self._age: int | None = None  # the current cycle's age, kept across its retries
        self._legacy_checked = False
        self._cycle = threading.Lock()  # held from begin() to end(): the heartbeat's recovery
        self._stopped = threading.Event()
        self._heartbeat: threading.Thread | None = None

    # -- the ticket ------------------------------------------------------------------------

    def _ticket(self, pending: Sequence[Operation] = (), state: str = "live") -> dict[str, Any]:
        return {
            "kind": "ticket",
            "owner": self.owner,
            "expires_us": _now_us() + self._ttl_us,
            "pending": [list(op) for op in pending],
            "state": state,
        }

    def _ensure_ticket(self) -> None:
        if self._version is not None:
            return
        with self._locked():
            self.owner = uuid.uuid4().hex  # claims of a lost ticket must not come back
            version = self._client.create(self._index, ticket_id(self.owner), self._ticket())
            if version is None:
                raise StoreError(f"ticket {self.owner} exists already")
            self._version, self._pending, self._written_at = version, [], time.monotonic()
        if self._heartbeat is None and not self._stopped.is_set():
            self._heartbeat = threading.Thread(
                target=self._beat, name=f"claims-heartbeat-{self.owner[:8]}", daemon=True
            )
            self._heartbeat.start()

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """The mutex within the caller's budget (the heartbeat may be in a slow renewal)."""
        left = self._client.deadline() - time.monotonic()
        if not self._mutex.acquire(timeout=max(left, 0.0)):
            raise StoreUnavailable("the writer ticket is busy (its renewal does not answer)")
        try:
            yield
        finally:
            self._mutex.release()

    def _write(self, pending: list[Operation]) -> None:
        """Rewrite the ticket if it is still ours (fencing); mutex held."""
        if self._version is None:
            raise StoreUnavailable("the writer ticket was lost (expired and taken); retry")
        version = self._client.put_if(
            self._index, ticket_id(self.owner), self._ticket(pending), self._version
        )
        if version is None:
            self._lost()
            raise StoreUnavailable("the writer ticket expired and was taken over; retry")
        self._version, self._pending, self._written_at = version, pending, time.monotonic()

    def _lost(self) -> None:
        """Our ticket was buried by another instance: its journal was replayed there, and
        our claims name a ticket that is gone, so anyone may take them."""
        self._version, self._pending = None, []
        self._held, self._leftover = {}, {}

    def journal(self, operations: Sequence[Operation]) -> None:
        """Record the operations about to be sent (or none, to clear), in one write
        conditional on still holding the ticket; StoreUnavailable if it was lost."""
        with self._locked():
            self._write(list(operations))

    def renew_if_due(self) -> None:
        """Renew the ticket during a long batch, keeping its journal."""
        with self._locked():
            if time.monotonic() - self._written_at > self._ttl_s * RENEW_SHARE:
                self._write(self._pending)

    def _beat(self) -> None:
        """Heartbeat: renew the ticket a third of its TTL after its last write (each renewal
        bounded by the rest of the TTL), complete a failed write when no cycle runs, and
        bury dead tickets every `SWEEP_TICKS`."""
        ticks = 0
        while not self._stopped.wait(self._ttl_s * TICK_SHARE):
            ticks += 1
            if self._mutex.acquire(blocking=False):
                try:
                    due = time.monotonic() - self._written_at > self._ttl_s * RENEW_SHARE
                    if self._version is not None and due:
                        with self._client.until(self._written_at + self._ttl_s):
                            self._write(self._pending)
                except StoreError as exc:
                    logger.warning("could not renew the writer ticket: %s", exc)
                finally:
                    self._mutex.release()
            if (self._pending or self._leftover) and self._cycle.acquire(blocking=False):
                try:
                    with self._client.until(time.monotonic() + self._ttl_s):
                        self._recover()
                except StoreError as exc:
                    logger.warning("could not complete a failed write yet: %s", exc)
                finally:
                    self._cycle.release()
            if ticks % SWEEP_TICKS == 0:
                try:
                    with self._client.until(time.monotonic() + self._ttl_s):
                        self.sweep()
                except StoreError as exc:
                    logger.warning("could not look for dead writers: %s", exc)

    def sweep(self) -> int:
        """Bury every expired ticket (replaying its journal); returns how many."""
        buried = 0
        now = _now_us()
        for hit in self._tickets():
            if hit["_source"].get("owner") != self.owner and hit["_source"]["expires_us"] < now:
                found = self._client.get(self._index, hit["_id"])  # versions in real time
                if found is not None and found["_source"]["expires_us"] < _now_us():
                    buried += self._bury(found)
        return buried

    def other_tickets(self) -> int:
        """Tickets of other stores, live, expired or dead. Searched after a refresh, so every
        ticket written before this call counts: a store whose ticket is newer began its
        first write cycle after this call."""
        return sum(1 for hit in self._tickets() if hit["_source"].get("owner") != self.owner)

    def _tickets(self) -> list[dict[str, Any]]:
        """Every ticket document, searched after a refresh."""
        self._client.refresh(self._index)
        body = {"query": {"term": {"kind": "ticket"}}, "size": 1000}
        return self._client.search(self._index, body)

    def _bury(self, hit: dict[str, Any]) -> int:
        """Mark an expired ticket dead (only one instance can), replay its journal, delete
        it. Returns 1 if this call buried it."""
        source = hit["_source"]
        dead = {**source, "state": "dead", "expires_us": _now_us() + self._ttl_us}
        version = self._client.put_if(
            self._index, hit["_id"], dead, (int(hit["_seq_no"]), int(hit["_primary_term"]))
        )
        if version is None:
            return 0  # renewed, or another instance is burying it
        pending = [(op[0], op[1]) for op in source.get("pending") or []]
        if pending:
            logger.warning(
                "replaying %d operations journaled by dead writer %s", len(pending), source["owner"]
            )
            self._replay(pending)
        self._client.delete_if(self._index, hit["_id"], version)
        logger.warning("buried the ticket of dead writer %s", source["owner"])
        return 1

    # -- cycles ----------------------------------------------------------------------------

    def begin(self) -> None:
        """A write cycle starts (`end()` must follow, whatever happens): its age (kept from a
        retried cycle), a ticket, and what a failed cycle of this store left (`_recover`)."""
        self._cycle.acquire()
        if self._age is None:
            self._age = _now_us()
        if not self._legacy_checked:
            self._bury_legacy_lease()
            self._legacy_checked = True
        self._ensure_ticket()
        self._recover()

    def end(self) -> None:
        """The cycle is over (its claims released or kept)."""
        self._cycle.release()

    def _recover(self) -> None:
        """Replay this store's own journal if a flush failed, then release the claims that
        a failed cycle kept. Run at the next cycle's start, or by the heartbeat when no
        cycle comes: an idle instance does not hold documents after an outage."""
        if self._pending:
            logger.warning("replaying the %d operations of a failed write", len(self._pending))
            self._replay(self._pending)
            self.journal(())
        if self._leftover:
            self._held.update(self._leftover)
            self._leftover = {}
            self.release()

    def _bury_legacy_lease(self) -> None:
        """An index written by a version with the global writer lease: replay a journal its
        lease holds once the lease expired; refuse while an old instance still holds it
        (versions must not write one index at once)."""
        hit = self._client.get(self._index, LEGACY_LEASE_ID)
        if hit is None:
            return
        if hit["_source"].get("expires_us", 0) > _now_us():
            raise StoreUnavailable(
                "an instance of an older jobdedup (global writer lease) is writing this index;"
                " stop it before starting this version"
            )
        pending = [(op[0], op[1]) for op in hit["_source"].get("pending") or []]
        if pending:
            self._replay(pending)
        self._client.delete_if(
            self._index, LEGACY_LEASE_ID, (int(hit["_seq_no"]), int(hit["_primary_term"]))
        )

    def holds(self, name: str) -> bool:
        return name in self._held

    def claim(self, names: Iterable[str], wait: bool = True) -> set[str]:
        """Claim these names for the cycle; returns the ones claimed by this call (held ones
        are skipped). With `wait`, a name held by an older live cycle raises StoreContended
        and one held by a younger cycle is waited for (StoreUnavailable at the deadline);
        without, such names are skipped (a hint: `read_ahead`)."""
        want = [name for name in dict.fromkeys(names) if name not in self._held]
        got: set[str] = set()
        if not want:
            return got
        self._ensure_ticket()
        deadline = self._client.deadline()
        pause = 0.002
        while want:
            ops: list[Operation] = [
                ({"create": {"_index": self._index, "_id": claim_id(name)}}, self._claim(name))
                for name in want
            ]
            conflicts: list[str] = []
            for name, (status, version) in zip(want, self._client.bulk_outcomes(ops), strict=True):
                if version is not None:
                    self._held[name] = version
                    got.add(name)
                elif status == 409:
                    conflicts.append(name)
            if not conflicts:
                break
            retry, blocked = self._contest(conflicts, got, wait)
            if not wait:
                want = retry
                continue
            want = retry + blocked
            if blocked:
                if time.monotonic() + pause >= deadline:
                    raise StoreUnavailable(
                        f"{len(blocked)} documents stayed claimed by other writers until the"
                        " deadline; retry later"
                    )
                time.sleep(pause * (1 + random.random()))
                pause = min(pause * 2, 0.05)
        return got

    def _claim(self, name: str) -> dict[str, Any]:
        assert self._age is not None
        return {"kind": "claim", "owner": self.owner, "started_us": self._age, "claim": name}

    def _contest(self, names: list[str], got: set[str], wait: bool) -> tuple[list[str], list[str]]:
        """Existing claims on `names`: take those whose owner is gone or dead, give way to
        older live cycles, wait for younger ones. Returns (to create again, to wait for)."""
        hits = self._client.get_many(self._index, [claim_id(name) for name in names])
        owners = list(dict.fromkeys(hit["_source"]["owner"] for hit in hits if hit))
        found = self._client.get_many(self._index, [ticket_id(o) for o in owners])
        tickets = dict(zip(owners, found, strict=True))
        retry: list[str] = []
        blocked: list[str] = []
        now = _now_us()
        for name, hit in zip(names, hits, strict=True):
            if hit is None:
                retry.append(name)  # released meanwhile
                continue
            source = hit["_source"]
            version = int(hit["_seq_no"]), int(hit["_primary_term"])
            ticket = tickets.get(source["owner"])
            if source["owner"] == self.owner:
                self._held[name] = version  # left by a failed release of this store
                got.add(name)
            elif ticket is None:
                taken = self._client.put_if(self._index, claim_id(name), self._claim(name), version)
                if taken is not None:
                    self._held[name] = taken
                    got.add(name)
                else:
                    retry.append(name)
            elif ticket["_source"]["expires_us"] < now:
                self._bury(ticket)
                tickets[source["owner"]] = None
                retry.append(name)
            elif ticket["_source"].get("state") == "dead":
                blocked.append(name)  # being buried: its journal is being replayed
            elif (int(source["started_us"]), source["owner"]) < (self._age or 0, self.owner):
                if wait:
                    raise StoreContended(
                        f"document {name} is claimed by an older write of instance "
                        f"{source['owner']}; this decision gives way and retries"
                    )
            else:
                blocked.append(name)
        return retry, blocked

    def release(self) -> None:
        """Delete the cycle's claims (each only if still ours). On failure they are kept as
        leftovers for the next cycle to release."""
        held, self._held = self._held, {}
        ops: list[Operation] = [
            (
                {
                    "delete": {
                        "_index": self._index,
                        "_id": claim_id(name),
                        "if_seq_no": version[0],
                        "if_primary_term": version[1],
                    }
                },
                None,
            )
            for name, version in held.items()
        ]
        try:
            self._client.bulk_outcomes(ops)
        except StoreError:
            self._leftover.update(held)
            raise

    def keep(self) -> None:
        """The cycle failed (the engine does not answer, or a journaled write is not
        through): its claims stay in the engine, protecting what the journal covers, and
        the next cycle of this store replays the journal and releases them; another
        instance takes them once this store's ticket expires."""
        self._leftover.update(self._held)
        self._held = {}

    def finish(self) -> None:
        """The cycle got through: the next one has a new age."""
        self._age = None

    def close(self) -> None:
        """Stop the heartbeat and delete the ticket if it holds no journal (best effort: it
        expires anyway)."""
        self._stopped.set()
        if self._heartbeat is not None and self._heartbeat is not threading.current_thread():
            self._heartbeat.join(timeout=self._ttl_s)
        version = self._version
        if version is not None and not self._pending and not self._leftover:
            try:
                self._client.delete_if(self._index, ticket_id(self.owner), version)
            except StoreError as exc:
                logger.warning("could not delete the writer ticket: %s", exc)
