"""The embedded index's boilerplate statistics, held in memory (layout 7).

What they answer is `IndexStore.unit_counts` (see `indexer.boilerplate`): per (scope, unit),
how many witnesses the set holds and whether the asking posting's own is one of them. Until
layout 6 they were rows of a (scope, unit, witness) table, 27 per NHS ad, inserted at random
places of its B-tree and read back with two IN queries per posting: a tenth of the deciding
thread's time in `jobdedup ingest` of the NHS ads (py-spy: 3.3 s reading and 3.3 s writing of
57 s) and 712 bytes of file per posting.

Now a set is named by one signed 64-bit key, `stat_key(scope, unit)`, and every witness is a
12-byte record (key, 31-bit witness). The records live in memory as a main run sorted by key
and a small recent run that each commit inserts its records into (see `UnitStatistics`),
plus those of the open transaction (a dict, with an undo log for savepoints). The file keeps
them in `unit_stat_log`: each write that adds witnesses appends one row holding its records,
so a posting costs one append instead of ~27 random inserts, and opening the index reads
the rows back in one scan.

Keys: `unit ^ (scope * K)` over 64 bits. Units and company scopes are xxh64 hashes and the
global scope is 0, so a key is the unit itself in the global scope; two different sets share
a key with odds of 2**-64 per pair (about 4e-5 for 27M sets, which would merge two sets:
arithmetic, not measured), the same order as the 31-bit witnesses' (`WITNESS_BITS`).

Memory: 12 bytes per record in the sorted arrays and ~2 in the directory (the NHS ads: 27
records per ad, so ~380 MB per million such ads; the generated postings of bench/scale.py
~8). Statistics are never expired, as before: retention deletes postings, not what the
corpus taught.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from indexer._kernels import bucket_sort, set_counts
from indexer.boilerplate import Observation

WITNESS_BITS = 0x7FFFFFFF
"""A witness is kept as the low 31 bits of its hash: a set holds at most 4 of them, so two
witnesses of one set collide with odds of 6 / 2**31 (below 3e-9; arithmetic, not measured),
which would only count one witness short."""

RECORD = np.dtype([("key", "<i8"), ("witness", "<i4")])
"""One witness of one set, as `unit_stat_log.entries` stores it (12 bytes, packed)."""

_K = 0x9E3779B97F4A7C15  # odd: multiplying by it is a bijection of 64-bit words
_M64 = (1 << 64) - 1
MERGE_AT = 65536
"""Records the recent run holds before it joins the main run. Small, because every commit
inserts into it (a `/dedup` request commits alone); a merge copies the main run, once per
~2,400 NHS ads."""


def _scope_mask(scope: int) -> int:
    return ((scope & _M64) * _K) & _M64


def stat_key(scope: int, unit: int) -> int:
    """The signed 64-bit key of the set of (scope, unit)."""
    value = (unit & _M64) ^ _scope_mask(scope)
    return value - (1 << 64) if value >= 1 << 63 else value


def _keys(scopes: Sequence[int], units: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """`stat_key` of every (scope, unit), scope by scope: one numpy expression, since numpy
    calls, not arithmetic, are what a lookup of ~50 sets costs."""
    masks = np.array([_scope_mask(scope) for scope in scopes], dtype=np.uint64)
    return (units.view(np.uint64)[None, :] ^ masks[:, None]).ravel().view(np.int64)


class UnitStatistics:
    """The witness sets of one index, committed and staged (see the module docstring).

    Committed records are two sorted runs: the main one, and the recent one that each
    commit merges its records into until it holds an eighth of the main run (or
    `MERGE_AT`), when it joins the main run. Both are searched by one call of the compiled
    `set_counts` (`indexer._kernels`) per lookup. The open transaction's records are a dict
    with an undo log for savepoints. Not thread-safe: the store calls it under its writer
    lock; `counts` answers with the staged records, as SQLite answered inside a batch."""

    def __init__(self, records: npt.NDArray[np.void] | None = None) -> None:
        self._main = _sorted_run(
            np.empty(0, dtype=RECORD) if records is None else np.asarray(records, dtype=RECORD)
        )
        self._recent = _empty_recent()
        self._staged: dict[int, list[int]] = {}
        self._log: list[tuple[int, int]] = []

    @classmethod
    def from_entries(cls, blobs: Iterable[bytes]) -> UnitStatistics:
        """The statistics of the `unit_stat_log` rows' entries, in any order."""
        data = b"".join(blobs)
        return cls(np.frombuffer(data, dtype=RECORD))

    @property
    def records(self) -> int:
        """Witness records held, committed and staged."""
        return len(self._main[0]) + len(self._recent[0]) + len(self._log)

    def _committed(
        self, keys: npt.NDArray[np.int64], own: npt.NDArray[np.int32]
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint8]]:
        """Per key: the committed witnesses of its set, and whether `own` (per key) is one."""
        runs = [run for run in (self._main, self._recent) if len(run[0])]
        return set_counts(
            [k for k, _, _ in runs], [w for _, w, _ in runs], [d for _, _, d in runs], keys, own
        )

    def counts(
        self, scopes: Sequence[tuple[int, int]], units: Sequence[int | None]
    ) -> dict[tuple[int, int], tuple[int, bool]]:
        """`IndexStore.unit_counts`: (count, own) of every set of `scopes` x `units` that
        holds a witness; witnesses compare on their low 31 bits."""
        unique = list({u for u in units if u is not None})
        if not unique or not scopes:
            return {}
        values = np.asarray(unique, dtype=np.int64)
        keys = _keys([scope for scope, _ in scopes], values)
        owns = [own & WITNESS_BITS for _, own in scopes]
        width = len(unique)
        count, mine = self._committed(keys, np.array(owns, dtype=np.int32).repeat(width))
        found: dict[tuple[int, int], tuple[int, bool]] = {}
        held = count.tolist()
        for j in np.flatnonzero(count).tolist():
            s, i = divmod(j, width)
            found[(scopes[s][0], unique[i])] = (held[j], bool(mine[j]))
        if self._staged:
            listed = keys.tolist()
            for j in [j for j, key in enumerate(listed) if key in self._staged]:
                s, i = divmod(j, width)
                more = self._staged[listed[j]]
                n, flag = found.get((scopes[s][0], unique[i]), (0, False))
                found[(scopes[s][0], unique[i])] = (n + len(more), flag or owns[s] in more)
        return found

    def stage(self, rows: Iterable[Observation]) -> bytes:
        """Add witness rows to the open transaction (a witness a set already holds is
        ignored, as INSERT OR IGNORE did); returns the new records packed for the log row
        (empty when nothing was new)."""
        given = [(stat_key(scope, unit), witness & WITNESS_BITS) for scope, unit, witness in rows]
        if not given:
            return b""
        keys = np.array([key for key, _ in given], dtype=np.int64)
        _, mine = self._committed(keys, np.array([w for _, w in given], dtype=np.int32))
        added: list[tuple[int, int]] = []
        for (key, kept), flag in zip(given, mine.tolist(), strict=True):
            staged = self._staged.setdefault(key, [])
            if flag or kept in staged:
                if not staged:
                    del self._staged[key]
                continue
            staged.append(kept)
            self._log.append((key, kept))
            added.append((key, kept))
        if not added:
            return b""
        return _packed(added)

    def mark(self) -> int:
        """A savepoint: `rollback_to(mark)` drops what was staged after it."""
        return len(self._log)

    def rollback_to(self, mark: int = 0) -> None:
        """Forget the records staged after `mark` (all of them for 0)."""
        for key, witness in self._log[mark:]:
            held = self._staged[key]
            held.remove(witness)
            if not held:
                del self._staged[key]
        del self._log[mark:]

    def commit(self) -> None:
        """The transaction committed: its records are inserted into the recent run, whose
        directory keeps its bucket count (`_RECENT_BITS`) and only has the new keys counted
        in, so a commit costs what its own records cost plus one copy of the small recent
        run; at `MERGE_AT` records the recent run joins the main one."""
        if not self._log:
            return
        keys = np.array([key for key, _ in self._log], dtype=np.int64)
        witnesses = np.array([witness for _, witness in self._log], dtype=np.int32)
        self._staged, self._log = {}, []
        order = np.argsort(keys)
        keys, witnesses = keys[order], witnesses[order]
        held, kept, starts = self._recent
        at = np.searchsorted(held, keys, side="right")
        buckets = _buckets(keys, _RECENT_BITS)
        counted = np.bincount(buckets, minlength=len(starts) - 1)
        self._recent = (
            np.insert(held, at, keys),
            np.insert(kept, at, witnesses),
            starts + np.concatenate(([0], np.cumsum(counted))),
        )
        if len(self._recent[0]) >= MERGE_AT:
            self._merge()

    def _merge(self) -> None:
        keys, witnesses, _ = self._recent
        at = np.searchsorted(self._main[0], keys, side="right")
        merged = np.insert(self._main[0], at, keys)
        self._main = (merged, np.insert(self._main[1], at, witnesses), directory(merged))
        self._recent = _empty_recent()


Run = tuple[npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[np.int64]]
"""Keys ascending, their witnesses, and the keys' `directory`."""

DIRECTORY_BITS = 22
"""At most 2**22 buckets (32 MB of directory, for runs past 16M records)."""


def directory(keys: npt.NDArray[np.int64], bits: int | None = None) -> npt.NDArray[np.int64]:
    """Where each bucket of ascending `keys` begins (and, last, their count): bucket i
    holds the keys whose top `bits` bits, sign bit flipped, are i (by default about 4 keys
    a bucket). The keys are hashes, so buckets fill evenly, and a lookup starts in its
    bucket instead of a binary search through cold cache lines (py-spy of `jobdedup
    ingest`: the compiled search 1.02 s without the directory, 0.56 s with it)."""
    bits = directory_bits(len(keys)) if bits is None else bits
    if bits == 0:
        return np.array([0, len(keys)], dtype=np.int64)
    bounds = np.arange(1 << bits, dtype=np.uint64) << np.uint64(64 - bits)
    starts = np.searchsorted(keys, (bounds ^ np.uint64(1 << 63)).view(np.int64), side="left")
    return np.append(starts, len(keys)).astype(np.int64)


def _buckets(keys: npt.NDArray[np.int64], bits: int) -> npt.NDArray[np.intp]:
    """The directory bucket of each key."""
    shifted = (keys.view(np.uint64) ^ np.uint64(1 << 63)) >> np.uint64(64 - bits)
    return shifted.astype(np.intp)


def directory_bits(records: int) -> int:
    """Directory bits for a run of `records`: about 4 keys a bucket."""
    return min(DIRECTORY_BITS, max(0, (records // 4).bit_length() - 1))


_RECENT_BITS = max(1, (MERGE_AT // 4).bit_length() - 1)
"""The recent run's directory bits: about 4 keys a bucket when it is full."""


def _empty_recent() -> Run:
    empty = np.empty(0, dtype=np.int64)
    return empty, np.empty(0, dtype=np.int32), directory(empty, _RECENT_BITS)


def _sorted_run(records: npt.NDArray[np.void]) -> Run:
    """A run of records (in any order): keys ascending, their witnesses, the keys'
    directory, by the compiled `bucket_sort` (linear: a restart sorts every record ever
    written, 5.4M for 200k NHS ads, which numpy's argsort took 1.2 s to order)."""
    keys = np.ascontiguousarray(records["key"], dtype=np.int64)
    witnesses = np.ascontiguousarray(records["witness"], dtype=np.int32)
    return bucket_sort(keys, witnesses, directory_bits(len(keys)))


def _packed(records: Sequence[tuple[int, int]]) -> bytes:
    """Records as `RECORD` bytes (the log row's entries)."""
    packed = np.empty(len(records), dtype=RECORD)
    packed["key"] = [key for key, _ in records]
    packed["witness"] = [witness for _, witness in records]
    return packed.tobytes()
