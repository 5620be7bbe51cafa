"""`jobdedup stats` output: the statistics as CSV tables or as the API's JSON body.

Kept apart from `service.cli` (argument parsing and commands) so each module holds one job.
"""

from __future__ import annotations

import csv
import json
from typing import IO

from indexer.store import DUPLICATE_TYPES, DuplicateStats, StatsQuery
from service.schemas import StatsOut

BUCKET_COLUMNS = [
    "bucket",
    "group",
    "postings",
    "distinct",
    "duplicates",
    "duplicate_rate",
    *DUPLICATE_TYPES,
    "unknown",
]
OVERLAP_COLUMNS = ["source_a", "source_b", "clusters"]


def write_buckets_csv(stats: DuplicateStats, out: IO[str]) -> int:
    """One row per bucket and group (`BUCKET_COLUMNS`; the bucket as its start date, the
    group empty when not grouped or not set); returns the rows written."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(BUCKET_COLUMNS)
    for b in stats.buckets:
        types = [b.by_type[name] for name in (*DUPLICATE_TYPES, "unknown")]
        writer.writerow(
            [
                b.start.date().isoformat(),
                b.group or "",
                b.postings,
                b.distinct,
                b.duplicates,
                f"{b.duplicate_rate:.6f}",
                *types,
            ]
        )
    return len(stats.buckets)


def write_overlap_csv(stats: DuplicateStats, out: IO[str]) -> int:
    """The overlap table: first a row (source, source, clusters) per source with its own
    cluster count (the matrix's diagonal), then one row per pair sharing clusters."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(OVERLAP_COLUMNS)
    for source, clusters in stats.source_clusters.items():
        writer.writerow([source, source, clusters])
    for row in stats.overlaps:
        writer.writerow([row.a, row.b, row.clusters])
    return len(stats.source_clusters) + len(stats.overlaps)


def write_json(query: StatsQuery, stats: DuplicateStats, out: IO[str]) -> int:
    """The body `GET /stats` answers for the same query, on one line."""
    body = StatsOut.of(query, stats).model_dump(mode="json")
    out.write(json.dumps(body, ensure_ascii=False) + "\n")
    return len(stats.buckets)
