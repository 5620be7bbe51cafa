"""In-memory inverted index of band and lookup keys for the embedded store.

Why not rows: with one SQLite row per (key, posting), every commit of a group of postings
rewrote pages all over the `bands` b-tree (the keys are random 64-bit hashes), and that cost
grew with the index. Here the keys of a posting live only in its own row (`band_keys` blob,
written anyway), and this index is loaded from those blobs (the one writer process holds it:
`indexer.stores.sqlite.datadir_lock`).

Loaded by time, on demand: a search from `since` first loads the stored postings posted from
`since` on that are not loaded yet (`unloaded`, `load`), so the index holds the time windows
searched so far and what was written since it opened. A restart reads the current window, not
every posting ever kept: with the full file loaded at first search, start-up grew by 26.5 s per
1M indexed postings (bench/scale.py, README).

Layout: a few sorted runs of (key, rid) pairs in numpy arrays, one more per commit, merged
like a size-tiered LSM tree so an insert costs amortised O(log n) array work (a dict of the
newest entries, tried first, cost 4% of NHS ingest in its per-key Python loop). Removed
postings are masked by rid, never searched out of the runs: their entries
go when a merge meets them. Rids are never reused while the index lives (the store hands out
ids above every id it has seen), so a stale entry can only point at a dead rid.

Transactions: the store's writes go through `stage` and become permanent at `commit`; a
rolled-back transaction or savepoint drops what it staged (`rollback_to`), so the index
always matches what SQLite holds after the transaction ends. Two arrays of posted_at by rid:
the committed one (what loads and merges go by) and the one the open transaction sees (what
searches go by), so a search reads one array instead of also looking staged rids up.

The loops over runs and holders are compiled (`indexer._kernels`: `run_matches`,
`count_live`): in numpy each run cost a dozen calls on arrays of a few dozen keys, and the
translation search of an English NHS ad, counting its anchors among three Welsh ads and then
on its own side, took 0.67 ms of the 4.6 ms a decision took (README, issue 11).
A presence filter (one bit per key hash, `FILTER_BITS_PER_ENTRY` bits per entry) spares
the runs the keys no posting holds: 92% of the 1.26M keys an NHS ingest's searches asked
for were in no run, and each was a binary search per run, its cost the cache misses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from indexer._kernels import bucket_sort, count_live, mark_keys, run_matches
from indexer.stores.sqlite.unit_stats import directory_bits

_I64 = npt.NDArray[np.int64]
_NO_TIME = np.iinfo(np.int64).min
FILTER_BITS_PER_ENTRY = 16
"""Bits of the presence filter per (key, rid) entry of the runs: a key held nowhere passes
it one time in 16 (1 - exp(-1/16)), at an eighth of the 16 bytes an entry takes."""
_MIN_FILTER_BYTES = 1 << 12
_NOTHING_LOADED = np.iinfo(np.int64).max


@dataclass(frozen=True)
class BandHits:
    """Postings sharing keys with a query: rid, number of shared keys and posted_at (µs)."""

    rids: _I64
    shared: _I64
    posted_at: _I64


@dataclass
class _Staged:
    """One staged change: a posting's keys added, or a rid removed (keys None)."""

    rid: int
    posted_at: int
    keys: tuple[int, ...] | None


class BandIndex:
    """Key -> postings, for the postings SQLite holds plus the open transaction's changes.

    Not thread-safe by itself: the store calls it under its writer lock.
    """

    def __init__(self, max_rid: int = 0, tracked: Iterable[int] = ()) -> None:
        """An empty index over a table whose rids are all <= `max_rid`. `seen` tells which
        of the `tracked` keys it has ever held (the store's language keys: which languages
        to look for at all, without a search per language)."""
        self._tracked = frozenset(tracked)
        self._tracked_array = np.asarray(sorted(self._tracked), dtype=np.int64)
        self._seen: set[int] = set()
        self._runs: list[tuple[_I64, _I64]] = []  # (keys sorted, rids), oldest/largest first
        self._bits = np.zeros(_MIN_FILTER_BYTES, dtype=np.uint8)  # see FILTER_BITS_PER_ENTRY
        self._posted = np.full(1024, _NO_TIME, dtype=np.int64)  # by rid; _NO_TIME: absent
        self._visible = self._posted.copy()  # the same, as the open transaction sees it
        self._next_rid = max_rid + 1
        self._loaded_since = int(_NOTHING_LOADED)
        self._staged: list[_Staged] = []
        self._staged_keys: dict[int, int | list[int]] = {}
        """Key -> the staged rid holding it, or a list when several do: most keys of a
        posting are held by no other staged posting, and a list per key was 1.3 million
        lists (and the collections they set off) over the NHS ingest's 14,842 postings."""
        self._staged_posted: dict[int, int] = {}  # rid -> posted_at, or _NO_TIME if removed

    # -- building ---------------------------------------------------------------------------

    def unloaded(self, since: int) -> tuple[int, int] | None:
        """The posted_at range [start, stop) of stored postings to `load` before a search
        from `since` can be answered; None when they are loaded."""
        if since >= self._loaded_since:
            return None
        return since, self._loaded_since

    def load(self, rows: Iterable[tuple[int, int, bytes]], since: int) -> int:
        """Add the committed postings of the range `unloaded(since)` gave, as (rid, posted_at
        µs, keys blob) rows read from the committed file (not through an open write
        transaction: its rollback would leave the index without a row it deleted). Rows the
        index already holds (written since it opened) are skipped, so no key counts twice.
        Returns how many postings were added."""
        rid_list: list[int] = []
        counts: list[int] = []
        blobs: list[bytes] = []
        for rid, posted_at, blob in rows:
            self._grow(rid)
            if self._posted[rid] != _NO_TIME:
                continue
            self._posted[rid] = posted_at
            if rid not in self._staged_posted:  # else the open transaction removed it
                self._visible[rid] = posted_at
            rid_list.append(rid)
            counts.append(len(blob) // 8)
            blobs.append(blob)
        self._loaded_since = min(self._loaded_since, since)
        if blobs:
            keys = np.frombuffer(b"".join(blobs), dtype="<i8").astype(np.int64)
            if self._tracked:
                self._seen.update(np.unique(keys[np.isin(keys, self._tracked_array)]).tolist())
            self._add_run(keys, np.repeat(np.asarray(rid_list, dtype=np.int64), counts))
        return len(rid_list)

    @property
    def seen_keys(self) -> AbstractSet[int]:
        """The tracked keys that a posting loaded or staged since this index opened held (a
        view: it grows as postings are staged); a rolled-back or deleted posting's keys stay
        seen (a search for them then just finds nothing)."""
        return self._seen

    @property
    def entries(self) -> int:
        """(key, rid) entries held, dead ones included until a merge drops them."""
        return sum(len(k) for k, _ in self._runs)

    @property
    def next_rid(self) -> int:
        """The rid `allocate_rid` would hand out next (nothing is allocated)."""
        return self._next_rid

    def allocate_rid(self) -> int:
        """A rid above every rid of the table the index was built from and every rid handed
        out since (every insert of the one writer goes through here), so never reused."""
        rid = self._next_rid
        self._next_rid = rid + 1
        return rid

    # -- transactions -------------------------------------------------------------------------

    def stage_add(self, rid: int, posted_at: int, keys: Sequence[int]) -> None:
        """A posting inserted by the open transaction (visible to `find` at once); `keys`
        hold no duplicate (a duplicate would count twice as a shared key)."""
        self._staged.append(_Staged(rid, posted_at, tuple(keys)))
        self._apply_staged(self._staged[-1])

    def stage_remove(self, rid: int) -> None:
        """A posting deleted by the open transaction."""
        self._staged.append(_Staged(rid, _NO_TIME, None))
        self._apply_staged(self._staged[-1])

    def mark(self) -> int:
        """A savepoint: `rollback_to(mark)` drops what was staged after it."""
        return len(self._staged)

    def rollback_to(self, mark: int = 0) -> None:
        """Forget the changes staged after `mark` (all of them for 0)."""
        if mark >= len(self._staged):
            return
        kept = self._staged[:mark]
        for change in self._staged[mark:]:
            self._visible[change.rid] = self._posted[change.rid]
        self._staged, self._staged_keys, self._staged_posted = [], {}, {}
        for change in kept:
            self._staged.append(change)
            self._apply_staged(change)

    def commit(self) -> None:
        """Make the staged changes permanent (the transaction committed): the added keys
        become one more sorted run (merged as the module docstring says)."""
        rids: list[int] = []
        counts: list[int] = []
        keys: list[int] = []
        for change in self._staged:
            if change.keys is None:
                if change.rid < len(self._posted):
                    self._posted[change.rid] = _NO_TIME
                continue
            self._grow(change.rid)
            self._posted[change.rid] = change.posted_at
            rids.append(change.rid)
            counts.append(len(change.keys))
            keys += change.keys
        self._staged, self._staged_keys, self._staged_posted = [], {}, {}
        if keys:
            self._add_run(
                np.asarray(keys, dtype=np.int64),
                np.repeat(np.asarray(rids, dtype=np.int64), counts),
            )

    def _apply_staged(self, change: _Staged) -> None:
        self._grow(change.rid)
        if change.keys is None:
            self._staged_posted[change.rid] = _NO_TIME
            self._visible[change.rid] = _NO_TIME
            return
        self._staged_posted[change.rid] = change.posted_at
        self._visible[change.rid] = change.posted_at
        if self._tracked:
            self._seen.update(self._tracked.intersection(change.keys))
        staged, rid = self._staged_keys, change.rid
        hold = staged.setdefault
        for key in change.keys:
            held = hold(key, rid)
            if held is rid:  # the key's first staged holder (a posting's keys are unique)
                continue
            if isinstance(held, list):
                held.append(rid)
            else:
                staged[key] = [held, rid]

    # -- queries ------------------------------------------------------------------------------

    def find(self, keys: Sequence[int], since: int, until: int) -> BandHits:
        """Live postings sharing at least one of `keys`, posted within [since, until]."""
        # Sorted and unique in Python: np.unique of the few dozen keys a query holds was 2%
        # of the deciding process in an NHS ingest (py-spy), its cost numpy's per-call work.
        ordered = sorted(set(keys))
        query = np.asarray(ordered, dtype=np.int64)
        parts = [
            self._runs[run][1][start:stop]
            for run, _, start, stop in run_matches([k for k, _ in self._runs], query, self._bits)
        ]
        extra: list[int] = []
        if self._staged_keys:
            staged = self._staged_keys
            for key in ordered:
                held = staged.get(key)
                if held is None:
                    continue
                if isinstance(held, list):
                    extra += held
                else:
                    extra.append(held)
        if extra:
            parts.append(np.asarray(extra, dtype=np.int64))
        if not parts:
            empty = np.empty(0, dtype=np.int64)
            return BandHits(empty, empty, empty)
        rids, shared = np.unique(np.concatenate(parts), return_counts=True)
        posted = self._posted_of(rids)
        keep = (posted != _NO_TIME) & (posted >= since) & (posted <= until)
        return BandHits(rids[keep], shared[keep].astype(np.int64), posted[keep])

    def spans(self, keys: Sequence[int]) -> list[list[_I64]]:
        """Per key, the rids holding it: one array per run plus the staged ones (a posting's
        keys hold no duplicate and a rid is in one run or staged, so no rid comes twice).
        Views, not copies: one pass over the runs serves `count` and `holders` of any of
        these keys."""
        listed = list(keys)
        query = np.asarray(listed, dtype=np.int64)
        spans: list[list[_I64]] = [[] for _ in range(len(query))]
        order = np.argsort(query, kind="stable")
        position = order.tolist()
        ordered = np.ascontiguousarray(query[order])
        for run, q, start, stop in run_matches([k for k, _ in self._runs], ordered, self._bits):
            spans[position[q]].append(self._runs[run][1][start:stop])
        if self._staged_keys:
            staged_keys = self._staged_keys
            for i, key in enumerate(listed):
                staged = staged_keys.get(key)
                if staged is not None:
                    rids = staged if isinstance(staged, list) else [staged]
                    spans[i].append(np.asarray(rids, dtype=np.int64))
        return spans

    def count(
        self, spans: Sequence[Sequence[_I64]], since: int, until: int, at_most: int
    ) -> list[int]:
        """How many live postings posted within [since, until] hold each key of `spans`:
        exact up to `at_most`, and `at_most + 1` beyond (the caller only asks whether a key
        is rare). Counted from the newest holders back, so a key every posting holds ("NHS"
        in an English index) stops after `at_most + 1` live ones, without reading the old
        postings outside the window first."""
        return count_live(list(spans), self._visible, since, until, at_most)

    def holders(
        self, spans: Sequence[Sequence[_I64]], since: int, until: int
    ) -> tuple[_I64, _I64, _I64]:
        """Which live postings posted within [since, until] hold each key of `spans`:
        parallel arrays of (index into `spans`, rid, posted_at), one row per holding. What
        ranking by rare keys needs; pass keys known to be rare (`count`), since every
        holding of every key is read."""
        positions: list[_I64] = []
        parts: list[_I64] = []
        for i, held in enumerate(spans):
            for rids in held:
                parts.append(rids)
                positions.append(np.full(len(rids), i, dtype=np.int64))
        empty = np.empty(0, dtype=np.int64)
        if not parts:
            return empty, empty, empty
        index, rids = np.concatenate(positions), np.concatenate(parts)
        posted = self._posted_of(rids)
        keep = (posted != _NO_TIME) & (posted >= since) & (posted <= until)
        return index[keep], rids[keep], posted[keep]

    def _posted_of(self, rids: _I64) -> _I64:
        """posted_at of each rid as the open transaction sees it (_NO_TIME: not live)."""
        inside = rids < len(self._visible)
        if inside.all():
            return self._visible[rids]
        posted = np.full(len(rids), _NO_TIME, dtype=np.int64)
        posted[inside] = self._visible[rids[inside]]
        return posted

    # -- maintenance --------------------------------------------------------------------------

    def _grow(self, rid: int) -> None:
        if rid < len(self._posted):
            return
        size = max(rid + 1, 2 * len(self._posted))
        grown = np.full(size, _NO_TIME, dtype=np.int64)
        grown[: len(self._posted)] = self._posted
        self._posted = grown
        visible = np.full(size, _NO_TIME, dtype=np.int64)
        visible[: len(self._visible)] = self._visible
        self._visible = visible

    def compact(self) -> None:
        """One run of the live entries only (after a retention pass removed many postings):
        the memory of expired entries goes back now rather than at later merges."""
        if not self._runs:
            return
        keys = np.concatenate([k for k, _ in self._runs])
        rids = np.concatenate([r for _, r in self._runs])
        live = self._posted[rids] != _NO_TIME
        self._runs = [_merged_run(keys[live], rids[live])]
        self._filter(rebuild=True)

    def _add_run(self, keys: _I64, rids: _I64) -> None:
        """Add a run; merge runs while the newest is at least half the size of the one
        before (so there are O(log n) runs and each entry is merged O(log n) times),
        dropping entries of removed postings on the way."""
        self._runs.append(_sorted_run(keys, rids))
        self._filter(keys)
        while len(self._runs) > 1 and 2 * len(self._runs[-1][0]) >= len(self._runs[-2][0]):
            newer_keys, newer_rids = self._runs.pop()
            older_keys, older_rids = self._runs.pop()
            merged_keys = np.concatenate([older_keys, newer_keys])
            merged_rids = np.concatenate([older_rids, newer_rids])
            live = self._posted[merged_rids] != _NO_TIME
            self._runs.append(_merged_run(merged_keys[live], merged_rids[live]))

    def _filter(self, added: _I64 | None = None, rebuild: bool = False) -> None:
        """Mark `added` keys in the presence filter, or mark every key of the runs anew in
        one sized for them when `rebuild` or when they outgrew it (its size doubles, so
        each entry is marked O(1) times over the index's life). Removed postings' keys stay
        marked until a rebuild: the filter may pass a key nothing holds, never hide one."""
        size = _filter_bytes(self.entries)
        if rebuild or size > len(self._bits):
            self._bits = np.zeros(size, dtype=np.uint8)
            for keys, _ in self._runs:
                mark_keys(self._bits, keys)
        elif added is not None:
            mark_keys(self._bits, np.ascontiguousarray(added, dtype=np.int64))


def _filter_bytes(entries: int) -> int:
    """The presence filter's size for `entries` entries: a power of two bytes, at least
    `FILTER_BITS_PER_ENTRY` bits per entry."""
    wanted = max(_MIN_FILTER_BYTES, entries * FILTER_BITS_PER_ENTRY // 8)
    return 1 << (wanted - 1).bit_length()


def _sorted_run(keys: _I64, rids: _I64) -> tuple[_I64, _I64]:
    """A run of keys in any order (a load, a commit's postings), keys ascending with their
    rids in numpy's stable order, by the compiled linear `bucket_sort`. At start-up the
    window's keys become one run; under cProfile numpy's argsort of them took 0.53 s of the
    first search's 1.27 s on an index of 200,000 generated postings."""
    sorted_keys, sorted_rids, _ = bucket_sort(
        np.ascontiguousarray(keys, dtype=np.int64),
        np.ascontiguousarray(rids, dtype=np.int64),
        directory_bits(len(keys)),
    )
    return sorted_keys, sorted_rids


def _merged_run(keys: _I64, rids: _I64) -> tuple[_I64, _I64]:
    """Sorted runs concatenated, made one run by numpy's stable sort, which finds the runs
    already in order: 46 ms against the bucket sort's 56 ms for runs of 2M and 1M random
    keys, 2.5 against 4.4 ms for 200k and 100k (best of 3, a throwaway loop)."""
    order = np.argsort(keys, kind="stable")
    return keys[order], rids[order]
