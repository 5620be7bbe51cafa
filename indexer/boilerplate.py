"""Boilerplate learned from the corpus itself: text units that recur across different jobs.

A unit (a sentence or bullet line, see `indexer.sections`) is boilerplate when it has been
seen in the ads of several *different jobs*: in ads for at least `COMPANY_TITLES` distinct
titles of one employer (that employer's intro, benefits, equal-opportunity text), or in ads of
at least `GLOBAL_EMPLOYERS` distinct employers (a board's or a sector's standard text). Re-posts
of one vacancy repeat their own text too, which is why the count is of distinct titles and
employers, never of postings: a vacancy posted five times must keep its text.

The statistics are sets of "witnesses" per (scope, unit): the employer keys that used a unit
(global scope) or the title keys of one employer that used it (company scope). A set stops
growing once it reaches its threshold, so a hot unit costs a fixed number of rows, and a
unit's verdict only ever moves from "job text" to "boilerplate". Everything is a signed
64-bit xxhash, stored by the index (`IndexStore.unit_counts` and
`WriteSet.unit_observations`) or by `UnitCounter` in memory for offline scoring.

Pure: no I/O. The store-backed and the in-memory statistics apply the same rules below.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import xxhash

COMPANY_TITLES = 3
"""A unit seen in ads for this many distinct titles of one employer is its boilerplate.
Three, not two: two grades or two sites of one role share their whole text legitimately."""

GLOBAL_EMPLOYERS = 4
"""A unit seen in ads of this many distinct employers is board- or sector-wide boilerplate."""

MIN_UNIT_TOKENS = 4
"""Shorter units ("Python", "Apply now") are never counted: a skill bullet recurs across an
employer's jobs without being boilerplate, and short units weigh little in the shingles."""

GLOBAL_SCOPE = 0
"""Scope id of the whole-index statistics; company scopes are hashes of the company key."""

Key = tuple[int, int]
"""(scope, unit hash)."""

Observation = tuple[int, int, int]
"""(scope, unit hash, witness hash): one employer or title seen using a unit."""


def _hash(text: str) -> int:
    value = xxhash.xxh64_intdigest(text.encode("utf-8"))
    value = value - (1 << 64) if value >= 1 << 63 else value
    return value or 1  # 0 is the global scope id


def unit_hash(tokens: Sequence[str]) -> int | None:
    """Hash of a unit's normalised tokens; None for units too short to count."""
    if len(tokens) < MIN_UNIT_TOKENS:
        return None
    return _hash(" ".join(tokens))


Counts = Mapping[Key, tuple[int, bool]]
"""Per (scope, unit): how many witnesses the statistics hold, and whether the posting's own
witness for that scope is one of them (all the rules need; see `IndexStore.unit_counts`)."""


class Witnesses:
    """The scope and witness hashes of one posting: who it counts as in each scope.

    `company_key` and `title_key` are the normalised keys (`indexer.text`). A posting without
    a company counts as its own employer in the global scope (keyed by its title) and has no
    company scope.
    """

    __slots__ = ("company_scope", "employer", "title")

    def __init__(self, company_key: str, title_key: str) -> None:
        self.company_scope = _hash(f"company\x1f{company_key}") if company_key else None
        self.employer = _hash(f"employer\x1f{company_key or 'title:' + title_key}")
        self.title = _hash(f"title\x1f{title_key}")

    def scopes(self) -> list[tuple[int, int]]:
        """(scope, this posting's witness in it): the global scope, then its company's."""
        pairs = [(GLOBAL_SCOPE, self.employer)]
        if self.company_scope is not None:
            pairs.append((self.company_scope, self.title))
        return pairs

    def mask(self, units: Sequence[int | None], counts: Counts) -> list[bool]:
        """Which units are boilerplate for this posting, given the statistics before it.

        The posting's own employer and title count as witnesses, so the verdict is the one
        the statistics will hold once this posting is recorded."""
        result: list[bool] = []
        company = self.company_scope
        for unit in units:
            if unit is None:
                result.append(False)
                continue
            count, own = counts.get((GLOBAL_SCOPE, unit), (0, False))
            boiler = count + (not own) >= GLOBAL_EMPLOYERS
            if not boiler and company is not None:
                count, own = counts.get((company, unit), (0, False))
                boiler = count + (not own) >= COMPANY_TITLES
            result.append(boiler)
        return result

    def observations(self, units: Sequence[int | None], counts: Counts) -> list[Observation]:
        """The witness rows this posting adds: only new witnesses of unsaturated sets."""
        rows: list[Observation] = []
        caps = {GLOBAL_SCOPE: GLOBAL_EMPLOYERS}
        if self.company_scope is not None:
            caps[self.company_scope] = COMPANY_TITLES
        scopes = self.scopes()
        for unit in dict.fromkeys(u for u in units if u is not None):
            if counts.get((GLOBAL_SCOPE, unit), (0, False))[0] >= GLOBAL_EMPLOYERS:
                continue  # boilerplate for every employer for good: company rows add nothing
            for scope, witness in scopes:
                count, own = counts.get((scope, unit), (0, False))
                if not own and count < caps[scope]:
                    rows.append((scope, unit, witness))
        return rows


def counts_from_witnesses(
    found: Mapping[Key, Iterable[int]], scopes: Sequence[tuple[int, int]]
) -> dict[Key, tuple[int, bool]]:
    """`Counts` from witness sets (for stores that keep the sets themselves)."""
    own = dict(scopes)
    result: dict[Key, tuple[int, bool]] = {}
    for (scope, unit), witnesses in found.items():
        values = set(witnesses)
        result[(scope, unit)] = (len(values), own.get(scope) in values)
    return result


def with_added(
    counts: Counts,
    added: Mapping[Key, set[int]],
    scopes: Sequence[tuple[int, int]],
    units: Iterable[int | None],
) -> dict[Key, tuple[int, bool]]:
    """`counts` (of `scopes` x `units`, the asking posting's) as they will read once the
    witnesses `added` by postings written since are recorded: what a store's `unit_counts`
    will answer then. Each added witness was new to its set when added (`Witnesses.
    observations` only adds new ones), so the counts simply grow by the sets' sizes."""
    result = dict(counts)
    own = dict(scopes)
    for key in {(scope, unit) for unit in units if unit is not None for scope in own}:
        witnesses = added.get(key)
        if not witnesses:
            continue
        count, mine = result.get(key, (0, False))
        result[key] = (count + len(witnesses), mine or own[key[0]] in witnesses)
    return result


def counts_in(
    seen: Mapping[Key, Iterable[int]],
    scopes: Sequence[tuple[int, int]],
    units: Iterable[int | None],
) -> dict[Key, tuple[int, bool]]:
    """`IndexStore.unit_counts` answered from witness sets held by (scope, unit) key."""
    found = {
        (scope, unit): seen[(scope, unit)]
        for unit in units
        if unit is not None
        for scope, _ in scopes
        if (scope, unit) in seen
    }
    return counts_from_witnesses(found, scopes)


class UnitCounter:
    """In-memory unit statistics, for scoring pairs outside an index (evaluation, training):
    the corpus at hand (a pairs file, the training ads) is the corpus the rules learn from."""

    def __init__(self) -> None:
        self._seen: dict[Key, frozenset[int]] = {}

    def unit_counts(
        self, scopes: Sequence[tuple[int, int]], units: Iterable[int | None]
    ) -> dict[Key, tuple[int, bool]]:
        """Same contract as `IndexStore.unit_counts`."""
        return counts_in(self._seen, scopes, units)

    def record(self, rows: Iterable[Observation]) -> None:
        """Add witness rows (as produced by `Witnesses.observations`)."""
        for scope, unit, witness in rows:
            key = (scope, unit)
            self._seen[key] = self._seen.get(key, frozenset()) | {witness}

    def observe(self, witnesses: Witnesses, units: Sequence[int | None]) -> None:
        """Record one posting's units."""
        self.record(witnesses.observations(units, self.unit_counts(witnesses.scopes(), units)))
