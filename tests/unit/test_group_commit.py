"""Group commit: every request gets its own result once its group ran, groups form while a
group is being decided, and one failing item fails alone."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import pytest

from service.group_commit import GroupCommitter


class Recorder:
    """A `run_group` that takes a while (as a commit does) and records its groups."""

    def __init__(self, pause: float = 0.02, bad: int | None = None) -> None:
        self.groups: list[list[int]] = []
        self.pause = pause
        self.bad = bad
        self.lock = threading.Lock()

    def __call__(self, items: Sequence[int]) -> list[int]:
        time.sleep(self.pause)
        if self.bad in items:
            raise ValueError(f"cannot decide {self.bad}")
        with self.lock:
            self.groups.append(list(items))
        return [item * 10 for item in items]


def _submit_all(committer: GroupCommitter[int, int], count: int) -> dict[int, object]:
    results: dict[int, object] = {}
    start = threading.Barrier(count)

    def one(item: int) -> None:
        start.wait()
        try:
            results[item] = committer.submit(item)
        except Exception as exc:  # each caller's own error is the result
            results[item] = exc

    threads = [threading.Thread(target=one, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads), "a request never got its answer"
    return results


@pytest.mark.parametrize("rounds", range(5))
def test_requests_in_flight_together_share_groups_and_each_gets_its_own_result(
    rounds: int,
) -> None:
    recorder = Recorder()
    results = _submit_all(GroupCommitter(recorder), 40)

    assert results == {n: n * 10 for n in range(40)}
    decided = [item for group in recorder.groups for item in group]
    assert sorted(decided) == list(range(40))  # each exactly once
    assert len(recorder.groups) < 40  # those that queued behind a group went together


def test_one_item_that_cannot_be_decided_fails_alone() -> None:
    recorder = Recorder(bad=7)
    results = _submit_all(GroupCommitter(recorder), 20)

    assert isinstance(results[7], ValueError)
    assert {n: r for n, r in results.items() if n != 7} == {n: n * 10 for n in range(20) if n != 7}
    assert all(7 not in group for group in recorder.groups)


def test_a_lone_request_is_decided_at_once() -> None:
    recorder = Recorder(pause=0)
    committer = GroupCommitter(recorder)
    assert [committer.submit(n) for n in range(3)] == [0, 10, 20]
    assert recorder.groups == [[0], [1], [2]]


class Outage(Exception):
    """Stands for the store being unavailable."""


def test_a_shared_failure_fails_the_group_and_the_queue_without_retrying_each() -> None:
    calls: list[list[int]] = []

    def down(items: Sequence[int]) -> list[int]:
        calls.append(list(items))
        time.sleep(0.05)  # one store timeout
        raise Outage("store unavailable")

    committer = GroupCommitter(down, lambda exc: isinstance(exc, Outage))
    started = time.monotonic()
    results = _submit_all(committer, 20)
    assert all(isinstance(r, Outage) for r in results.values()) and len(results) == 20
    assert len(calls) <= 3  # not 20 retries one by one behind each other
    assert time.monotonic() - started < 0.5
