"""The in-memory key index: same answers as a brute-force scan, through runs, merges,
removals, savepoints and rollbacks."""

from __future__ import annotations

import random

import numpy as np
import pytest

from indexer.stores.sqlite.band_index import BandIndex


def _brute(
    postings: dict[int, tuple[int, set[int]]], keys: list[int], since: int, until: int
) -> dict[int, int]:
    wanted = set(keys)
    return {
        rid: len(own & wanted)
        for rid, (posted, own) in postings.items()
        if own & wanted and since <= posted <= until
    }


def _found(index: BandIndex, keys: list[int], since: int, until: int) -> dict[int, int]:
    hits = index.find(keys, since, until)
    return dict(zip(hits.rids.tolist(), hits.shared.tolist(), strict=True))


@pytest.mark.parametrize("commit_every", [1, 5, 37])
def test_matches_a_brute_force_scan_through_runs_merges_and_removals(commit_every: int) -> None:
    rng = random.Random(commit_every)
    index = BandIndex()
    live: dict[int, tuple[int, set[int]]] = {}
    for step in range(600):
        if live and rng.random() < 0.2:
            rid = rng.choice(sorted(live))
            index.stage_remove(rid)
            del live[rid]
        else:
            rid = index.allocate_rid()
            keys = {rng.randrange(-40, 40) for _ in range(rng.randrange(1, 6))}  # no duplicate
            posted = rng.randrange(0, 100)
            index.stage_add(rid, posted, sorted(keys))
            live[rid] = (posted, keys)
        if step % commit_every == commit_every - 1:
            index.commit()
        query = [rng.randrange(-40, 40) for _ in range(4)]
        since = rng.randrange(0, 50)
        assert _found(index, query, since, since + 50) == _brute(live, query, since, since + 50)


def test_rollback_to_a_mark_drops_only_what_came_after_it() -> None:
    index = BandIndex()
    index.stage_add(1, 10, [5, 6])
    index.commit()
    index.stage_add(2, 10, [5])
    mark = index.mark()
    index.stage_add(3, 10, [5])
    index.stage_remove(1)
    index.rollback_to(mark)
    assert _found(index, [5], 0, 20) == {1: 1, 2: 1}
    index.rollback_to(0)
    assert _found(index, [5, 6], 0, 20) == {1: 2}
    index.commit()  # nothing staged is left to commit
    index.compact()
    assert _found(index, [5, 6], 0, 20) == {1: 2}


def test_loading_stored_rows_matches_the_staged_path() -> None:
    rows = [(1, 5, np.array([1, 2, 3], dtype="<i8").tobytes()), (4, 7, b"")]
    rows.append((9, 8, np.array([3, -2], dtype="<i8").tobytes()))
    index = BandIndex(max_rid=9)
    assert index.load(rows, since=-(2**63)) == 3
    assert _found(index, [3, -2, 1], 0, 10) == {1: 2, 9: 2}
    assert _found(index, [3], 6, 10) == {9: 1}
    assert index.allocate_rid() == 10  # never a rid the stored rows used


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_spans_count_and_holders_match_a_brute_force_scan(seed: int) -> None:
    """Through commits, removals, savepoints rolled back and queries repeating a key: per
    key, the live holders in the window, counted exactly up to `at_most` and as
    `at_most + 1` beyond it."""
    rng = random.Random(seed)
    index = BandIndex()
    live: dict[int, tuple[int, set[int]]] = {}
    mark, at_mark = 0, dict(live)
    for step in range(500):
        roll = rng.random()
        if live and roll < 0.2:
            rid = rng.choice(sorted(live))
            index.stage_remove(rid)
            del live[rid]
        elif roll < 0.25:
            index.rollback_to(mark)
            live = dict(at_mark)
        elif roll < 0.3:
            mark, at_mark = index.mark(), dict(live)
        else:
            rid = index.allocate_rid()
            keys = {rng.randrange(-30, 30) for _ in range(rng.randrange(1, 8))}
            posted = rng.randrange(0, 100)
            index.stage_add(rid, posted, sorted(keys))
            live[rid] = (posted, keys)
        if step % 23 == 22:
            index.commit()
            mark, at_mark = 0, dict(live)
        query = [rng.randrange(-30, 30) for _ in range(rng.randrange(1, 12))]
        since = rng.randrange(-10, 60)
        until = since + rng.randrange(0, 60)
        at_most = rng.randrange(0, 6)
        spans = index.spans(query)
        holding = [
            sorted(r for r, (at, own) in live.items() if k in own and since <= at <= until)
            for k in query
        ]
        assert index.count(spans, since, until, at_most) == [
            min(len(h), at_most + 1) for h in holding
        ]
        position, rids, posted_at = index.holders(spans, since, until)
        pairs = list(zip(position.tolist(), rids.tolist(), strict=True))
        assert [sorted(r for p, r in pairs if p == i) for i in range(len(query))] == holding
        assert all(live[r][0] == t for r, t in zip(rids.tolist(), posted_at.tolist(), strict=True))


def test_a_row_loaded_inside_a_transaction_that_removed_it_stays_removed() -> None:
    """A posting older than the loaded window, removed by the open transaction and then
    loaded (a search asked for an older window): not found until the removal rolls back."""
    index = BandIndex(max_rid=3)
    index.load([(3, 50, np.array([7], dtype="<i8").tobytes())], since=40)
    index.stage_remove(1)
    rows = [(1, 10, np.array([7], dtype="<i8").tobytes())]
    assert index.load(rows, since=0) == 1
    assert _found(index, [7], 0, 100) == {3: 1}
    assert index.count(index.spans([7]), 0, 100, 5) == [1]
    index.rollback_to(0)
    assert _found(index, [7], 0, 100) == {1: 1, 3: 1}
    index.stage_remove(1)
    index.commit()
    assert _found(index, [7], 0, 100) == {3: 1}


def test_the_presence_filter_hides_no_key_as_it_grows_and_after_compaction() -> None:
    """Keys drawn over all 64 bits, enough that the filter outgrows its first size several
    times (`FILTER_BITS_PER_ENTRY`): every key a posting holds is still found, through
    loads, commits, removals and a compaction that rebuilds the filter; a key nothing holds
    is found nowhere."""
    rng = np.random.default_rng(5)
    live: dict[int, tuple[int, set[int]]] = {}
    rows = []
    for rid in range(1, 3001):
        keys = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, 12, dtype=np.int64)
        keys = np.unique(keys)
        rows.append((rid, rid % 90, keys.astype("<i8").tobytes()))
        live[rid] = (rid % 90, set(keys.tolist()))
    index = BandIndex(max_rid=1000)
    index.load(rows[:1000], since=0)
    for rid, posted, blob in rows[1000:]:
        assert index.allocate_rid() == rid
        index.stage_add(rid, posted, np.frombuffer(blob, "<i8").tolist())
        if rid % 250 == 0:
            index.commit()
    index.commit()
    assert len(index._bits) > 4096  # grown: 36,000 entries need 72,000 bytes
    held = sorted({k for _, keys in live.values() for k in keys})
    absent = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, 500, dtype=np.int64)
    for step in range(2):
        for start in range(0, len(held), 997):
            query = held[start : start + 40] + absent[:5].tolist()
            assert _found(index, query, 0, 100) == _brute(live, query, 0, 100)
        assert _found(index, absent.tolist(), 0, 100) == _brute(live, absent.tolist(), 0, 100)
        if step == 0:
            for rid in range(1, 3001, 3):
                index.stage_remove(rid)
                del live[rid]
            index.commit()
            index.compact()


def test_a_key_staged_by_one_then_by_more_postings_finds_them_all() -> None:
    """A staged key holds its one rid until a second posting stages it, then a list; rids
    may be numpy integers (a row's rid read from an array), which the list test must not
    take for lists."""
    index = BandIndex()
    index.stage_add(1, 10, [5, 6])
    index.stage_add(np.int64(2), 10, [5, 8])  # type: ignore[arg-type]  # a numpy rid
    index.stage_add(3, 10, [5, 7, 8])
    assert _found(index, [5], 0, 20) == {1: 1, 2: 1, 3: 1}
    assert _found(index, [6, 7, 8], 0, 20) == {1: 1, 2: 1, 3: 2}
    spans = index.spans([5, 6, 8])
    assert index.count(spans, 0, 20, 10) == [3, 1, 2]
    index.commit()
    assert _found(index, [5, 8], 0, 20) == {1: 1, 2: 2, 3: 2}
