"""Group commit: requests that arrive while a commit is in flight are decided together.

Every `POST /dedup` used to pay its own fsynced commit under the writer lock, so requests in
flight queued behind one another's fsyncs. Here a request that finds no group being decided
becomes the leader: it takes every request queued so far (its own included) and decides them
as one group (`run_group`: one store batch, so one commit), in arrival order, each seeing the
ones before it exactly as if they had come one by one. The others wait for their group's
commit; when the leader is done and more requests have queued meanwhile, it hands the lead to
the first of them. Nothing is answered before its group is durable.

A group that fails is retried one posting per group, so a posting that cannot be decided
fails alone; nothing of a failed group was stored (a batch is one transaction). A shared
failure (the store unavailable) is not retried: it fails the group and every request that
queued while the group ran, at once, so that during an outage no request waits for more than
one store timeout (each queued request would otherwise wait for the groups before its own).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

_In = TypeVar("_In")
_Out = TypeVar("_Out")

MAX_GROUP = 256
"""Requests decided in one group at most (as `ingest` groups): bounds how long a commit's
writes stay uncommitted, and the latency of the first request of a long queue."""


class _Slot(Generic[_In, _Out]):
    __slots__ = ("done", "error", "item", "lead", "result")

    def __init__(self, item: _In) -> None:
        self.item = item
        self.done = threading.Event()
        self.result: _Out | None = None
        self.error: BaseException | None = None
        self.lead = False  # woken to lead the next group rather than with a result


class GroupCommitter(Generic[_In, _Out]):
    """Runs `run_group` over the requests queued at once, leader-follower style."""

    def __init__(
        self,
        run_group: Callable[[Sequence[_In]], list[_Out]],
        shared_failure: Callable[[BaseException], bool] = lambda _: False,
    ) -> None:
        self._run_group = run_group
        self._shared_failure = shared_failure
        self._lock = threading.Lock()
        self._queue: list[_Slot[_In, _Out]] = []
        self._leading = False

    def submit(self, item: _In) -> _Out:
        """Decide `item` in the next group and return its result once that group committed."""
        slot: _Slot[_In, _Out] = _Slot(item)
        with self._lock:
            self._queue.append(slot)
            lead = not self._leading
            self._leading = True
        if not lead:
            slot.done.wait()
            if slot.lead:  # handed the lead: our own item is in the queue we now take
                slot.lead = False
                slot.done.clear()
                self._lead()
        else:
            self._lead()
        if slot.error is not None:
            raise slot.error
        return slot.result  # type: ignore[return-value]  # set whenever error is None

    def _lead(self) -> None:
        """Decide one group (the queue's head, up to MAX_GROUP), then pass the lead on."""
        with self._lock:
            group, self._queue = self._queue[:MAX_GROUP], self._queue[MAX_GROUP:]
        try:
            failure = self._decide(group)
            if failure is not None:  # the store is down: who queued meanwhile fails too
                with self._lock:
                    queued, self._queue = self._queue, []
                for slot in queued:
                    slot.error = failure
                group += queued
        finally:
            with self._lock:
                successor = self._queue[0] if self._queue else None
                self._leading = successor is not None
            for slot in group:
                slot.done.set()
            if successor is not None:
                successor.lead = True
                successor.done.set()

    def _decide(self, group: list[_Slot[_In, _Out]]) -> BaseException | None:
        """Results or errors into the group's slots; the error if it is a shared failure."""
        try:
            results = self._run_group([slot.item for slot in group])
        except BaseException as exc:
            if len(group) == 1 or self._shared_failure(exc):
                for slot in group:
                    slot.error = exc
                return exc if self._shared_failure(exc) else None
            for slot in group:  # alone, so only what fails fails
                self._decide([slot])
            return None
        for slot, result in zip(group, results, strict=True):
            slot.result = result
        return None
