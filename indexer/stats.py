"""Duplicate statistics: bucket alignment and the folding of counted rows, shared by adapters.

Pure: both adapters count postings per (sub-bucket, group, canonical, duplicate type) in the
index (SQL GROUP BY, engine aggregations) and hand the few counted rows here, so the two
backends cannot disagree on alignment, on what a duplicate is or on how types are named.
Times are UTC epoch microseconds, as both adapters store them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta

from indexer.store import (
    DUPLICATE_TYPES,
    DuplicateStats,
    SourceOverlap,
    StatsBucket,
    StatsInterval,
)

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
DAY_US = 86_400_000_000
WEEK_US = 7 * DAY_US
MONDAY_US = 4 * DAY_US
"""1970-01-01 was a Thursday: ISO weeks start 4 days after the epoch, modulo a week."""
UNKNOWN = "unknown"

CountedRow = tuple[int, str | None, bool, str | None, int]
"""(start of a sub-bucket in µs, group, canonical, stored duplicate type, postings). A
sub-bucket lies inside one bucket of the query's interval (a day inside its month)."""


def to_us(moment: datetime) -> int:
    """UTC epoch microseconds (naive = UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - EPOCH) // timedelta(microseconds=1)


def from_us(micros: int) -> datetime:
    return EPOCH + timedelta(microseconds=micros)


def sub_bucket(interval: StatsInterval) -> tuple[int, int]:
    """(width, offset) in µs of the fixed-width buckets an adapter counts in for `interval`:
    the interval itself for day and week, days for month (months have no fixed width; a
    month is a whole number of UTC days, so days fold into it exactly)."""
    return (WEEK_US, MONDAY_US) if interval == "week" else (DAY_US, 0)


def bucket_start(micros: int, interval: StatsInterval) -> int:
    """Start (µs) of the bucket holding `micros`: the UTC day, the ISO week's Monday 00:00,
    or the month's first day 00:00."""
    if interval == "month":
        day = from_us(micros)
        return to_us(datetime(day.year, day.month, 1, tzinfo=UTC))
    width, offset = sub_bucket(interval)
    return micros - (micros - offset) % width


def bucket_edges(first_us: int, last_us: int, interval: StatsInterval) -> list[int]:
    """Starts of the consecutive buckets covering [first_us, last_us], plus the end of the
    last one (so n buckets give n + 1 edges): the ranges an engine aggregation counts in."""
    edges = [bucket_start(first_us, interval)]
    while edges[-1] <= last_us:
        edges.append(_next_start(edges[-1], interval))
    return edges


def _next_start(start_us: int, interval: StatsInterval) -> int:
    if interval != "month":
        return start_us + sub_bucket(interval)[0]
    day = from_us(start_us)
    year, month = (day.year + 1, 1) if day.month == 12 else (day.year, day.month + 1)
    return to_us(datetime(year, month, 1, tzinfo=UTC))


def fold(rows: Iterable[CountedRow], interval: StatsInterval) -> list[StatsBucket]:
    """Buckets from counted rows: postings summed per (bucket, group), canonicals counted as
    distinct, the other postings split by type (a type outside `DUPLICATE_TYPES` is
    "unknown"). Ordered by start, then group with no group first."""
    totals: dict[tuple[int, str | None], list[int]] = {}
    slots = {name: i for i, name in enumerate((*DUPLICATE_TYPES, UNKNOWN), start=2)}
    for start, group, canonical, kind, count in rows:
        if not count:
            continue
        key = (bucket_start(start, interval), group or None)
        tally = totals.setdefault(key, [0] * (2 + len(slots)))
        tally[0] += count
        if canonical:
            tally[1] += count
        else:
            tally[slots.get(kind or UNKNOWN, slots[UNKNOWN])] += count
    return [
        StatsBucket(
            start=from_us(start),
            group=group,
            postings=tally[0],
            distinct=tally[1],
            by_type={name: tally[slot] for name, slot in slots.items()},
        )
        for (start, group), tally in sorted(
            totals.items(), key=lambda item: (item[0][0], item[0][1] is not None, item[0][1] or "")
        )
    ]


def overlap_from_sets(
    source_sets: Iterable[tuple[Sequence[str], int]],
) -> tuple[dict[str, int], list[SourceOverlap]]:
    """The overlap table from (a cluster's distinct sources, number of such clusters) rows:
    per source the clusters holding it, per unordered pair those holding both."""
    per_source: dict[str, int] = {}
    pairs: dict[tuple[str, str], int] = {}
    for sources, count in source_sets:
        names = sorted(set(sources))
        for i, a in enumerate(names):
            per_source[a] = per_source.get(a, 0) + count
            for b in names[i + 1 :]:
                pairs[(a, b)] = pairs.get((a, b), 0) + count
    return dict(sorted(per_source.items())), overlaps_from_pairs(pairs)


def overlaps_from_pairs(pairs: dict[tuple[str, str], int]) -> list[SourceOverlap]:
    """Overlap rows, pairs without a shared cluster left out, most shared first."""
    rows = [SourceOverlap(min(a, b), max(a, b), n) for (a, b), n in pairs.items() if n]
    return sorted(rows, key=lambda row: (-row.clusters, row.a, row.b))


def assemble(
    rows: Iterable[CountedRow],
    interval: StatsInterval,
    source_clusters: dict[str, int],
    overlaps: list[SourceOverlap],
) -> DuplicateStats:
    """The port's answer from what an adapter counted."""
    return DuplicateStats(fold(rows, interval), source_clusters, overlaps)
