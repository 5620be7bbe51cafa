"""The in-memory key index: same answers as a brute-force scan, through runs, merges,
removals, savepoints and rollbacks."""

from __future__ import annotations

import random

import numpy as np
import pytest

from indexer.band_index import BandIndex


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
