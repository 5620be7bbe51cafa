"""The embedded index's boilerplate statistics, held in memory (layout 7).

What they answer is `IndexStore.unit_counts` (see `indexer.boilerplate`): per (scope, unit),
how many witnesses the set holds and whether the asking posting's own is one of them. Until
layout 6 they were rows of a (scope, unit, witness) table, 27 per NHS ad, inserted at random
places of its B-tree and read back with two IN queries per posting: a tenth of the deciding
thread's time in `jobdedup ingest` of the NHS ads (py-spy: 3.3 s reading and 3.3 s writing of
57 s) and 712 bytes of file per posting.

Now a set is named by one signed 64-bit key, `stat_key(scope, unit)`, and every witness is a
12-byte record (key, 31-bit witness). The records live in memory as one array sorted by key
plus the few committed since the last merge (a dict) and those of the open transaction
(another dict, with an undo log for savepoints). The file keeps them in `unit_stat_log`: each
write that adds witnesses appends one row holding its records, so a posting costs one
append instead of ~27 random inserts, and opening the index reads the rows back in one scan.

Keys: `unit ^ (scope * K)` over 64 bits. Units and company scopes are xxh64 hashes and the
global scope is 0, so a key is the unit itself in the global scope; two different sets share
a key with odds of 2**-64 per pair (about 4e-5 for 27M sets, which would merge two sets:
arithmetic, not measured), the same order as the 31-bit witnesses' (`WITNESS_BITS`).

Memory: 12 bytes per record in the sorted arrays (the NHS ads: 27 records per ad, so 324 MB
per million such ads; the generated postings of bench/scale.py ~8). Statistics are never
expired, as before: retention deletes postings, not what the corpus taught.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

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
"""Committed records kept in a dict before they join the sorted arrays (or an eighth of the
arrays, when that is more), so a merge copies the arrays once per many postings."""


def _scope_mask(scope: int) -> int:
    return ((scope & _M64) * _K) & _M64


def stat_key(scope: int, unit: int) -> int:
    """The signed 64-bit key of the set of (scope, unit)."""
    value = (unit & _M64) ^ _scope_mask(scope)
    return value - (1 << 64) if value >= 1 << 63 else value


def _keys(scope: int, units: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    mask = np.uint64(_scope_mask(scope))
    return (units.view(np.uint64) ^ mask).view(np.int64)


class UnitStatistics:
    """The witness sets of one index, committed and staged (see the module docstring).

    Not thread-safe: the store calls it under its writer lock. The staged view (what the
    open transaction wrote) is what `counts` answers, as SQLite answered inside a batch."""

    def __init__(self, records: npt.NDArray[np.void] | None = None) -> None:
        if records is None or len(records) == 0:
            self._keys = np.empty(0, dtype=np.int64)
            self._witnesses = np.empty(0, dtype=np.int32)
        else:
            order = np.argsort(records["key"], kind="stable")
            self._keys = np.ascontiguousarray(records["key"][order], dtype=np.int64)
            self._witnesses = np.ascontiguousarray(records["witness"][order], dtype=np.int32)
        self._recent: dict[int, set[int]] = {}
        self._recent_count = 0
        self._staged: dict[int, set[int]] = {}
        self._log: list[tuple[int, int]] = []

    @classmethod
    def from_entries(cls, blobs: Iterable[bytes]) -> UnitStatistics:
        """The statistics of the `unit_stat_log` rows' entries, in any order."""
        data = b"".join(blobs)
        return cls(np.frombuffer(data, dtype=RECORD))

    @property
    def records(self) -> int:
        """Witness records held, committed and staged."""
        return len(self._keys) + self._recent_count + len(self._log)

    def _found(self, key: int, lo: int, hi: int) -> list[int]:
        witnesses: list[int] = self._witnesses[lo:hi].tolist() if hi > lo else []
        witnesses.extend(self._recent.get(key, ()))
        witnesses.extend(self._staged.get(key, ()))
        return witnesses

    def counts(
        self, scopes: Sequence[tuple[int, int]], units: Sequence[int | None]
    ) -> dict[tuple[int, int], tuple[int, bool]]:
        """`IndexStore.unit_counts`: (count, own) of every set of `scopes` x `units` that
        holds a witness; witnesses compare on their low 31 bits."""
        unique = sorted({u for u in units if u is not None})
        found: dict[tuple[int, int], tuple[int, bool]] = {}
        if not unique:
            return found
        values = np.asarray(unique, dtype=np.int64)
        for scope, own in scopes:
            own &= WITNESS_BITS
            keys = _keys(scope, values)
            lo = np.searchsorted(self._keys, keys, side="left").tolist()
            hi = np.searchsorted(self._keys, keys, side="right").tolist()
            for unit, key, begin, end in zip(unique, keys.tolist(), lo, hi, strict=True):
                if end == begin and key not in self._recent and key not in self._staged:
                    continue
                witnesses = self._found(key, begin, end)
                if witnesses:
                    found[(scope, unit)] = (len(witnesses), own in witnesses)
        return found

    def stage(self, rows: Iterable[Observation]) -> bytes:
        """Add witness rows to the open transaction (a witness a set already holds is
        ignored, as INSERT OR IGNORE did); returns the new records packed for the log row
        (empty when nothing was new)."""
        given = [(stat_key(scope, unit), witness & WITNESS_BITS) for scope, unit, witness in rows]
        if not given:
            return b""
        keys = np.array([key for key, _ in given], dtype=np.int64)
        lo = np.searchsorted(self._keys, keys, side="left").tolist()
        hi = np.searchsorted(self._keys, keys, side="right").tolist()
        added: list[tuple[int, int]] = []
        for (key, kept), begin, end in zip(given, lo, hi, strict=True):
            if kept in self._found(key, begin, end):
                continue
            self._staged.setdefault(key, set()).add(kept)
            self._log.append((key, kept))
            added.append((key, kept))
        return np.array(added, dtype=RECORD).tobytes() if added else b""

    def mark(self) -> int:
        """A savepoint: `rollback_to(mark)` drops what was staged after it."""
        return len(self._log)

    def rollback_to(self, mark: int = 0) -> None:
        """Forget the records staged after `mark` (all of them for 0)."""
        for key, witness in self._log[mark:]:
            held = self._staged[key]
            held.discard(witness)
            if not held:
                del self._staged[key]
        del self._log[mark:]

    def commit(self) -> None:
        """The transaction committed: its records join the committed ones (and the sorted
        arrays, once enough have gathered)."""
        for key, witness in self._log:
            self._recent.setdefault(key, set()).add(witness)
        self._recent_count += len(self._log)
        self._staged, self._log = {}, []
        if self._recent_count >= max(MERGE_AT, len(self._keys) // 8):
            self._merge()

    def _merge(self) -> None:
        pairs = [(key, witness) for key, held in self._recent.items() for witness in held]
        keys = np.array([key for key, _ in pairs], dtype=np.int64)
        witnesses = np.array([witness for _, witness in pairs], dtype=np.int32)
        order = np.argsort(keys, kind="stable")
        keys, witnesses = keys[order], witnesses[order]
        at = np.searchsorted(self._keys, keys, side="right")
        self._keys = np.insert(self._keys, at, keys)
        self._witnesses = np.insert(self._witnesses, at, witnesses)
        self._recent, self._recent_count = {}, 0
