"""`jobdedup stats` checked against counts computed independently from `jobdedup export`.

On a real index (the NHS corpus, say), the figures are computed a second time without the
index's SQL: from the export lines (a duplicate is a line with a `duplicate_of`) and the
input file (posted_at and source of each id). Prints the weekly rows that differ (none
expected) and the totals.

    python -m bench.nhs /tmp/nhs.jsonl
    jobdedup ingest --data-dir /tmp/nhsidx /tmp/nhs.jsonl
    python bench/stats_vs_export.py --data-dir /tmp/nhsidx /tmp/nhs.jsonl
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import subprocess
import sys
import tempfile
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.processes import CLI

Row = tuple[str, str]
"""(Monday of the week, source)."""


def _week(posted_at: str) -> str:
    moment = datetime.fromisoformat(posted_at.replace("Z", "+00:00"))
    if moment.tzinfo is not None:  # the index buckets UTC days
        moment = moment.astimezone(UTC)
    day = moment.date()
    return (day - timedelta(days=day.weekday())).isoformat()


def _run(*args: str) -> str:
    done = subprocess.run([*CLI, *args], capture_output=True, text=True, check=True)
    return done.stdout


def from_export(data_dir: Path, postings: Path) -> tuple[Counter[Row], Counter[Row]]:
    """(postings, duplicates) per (week, source), from the export and the input file."""
    meta: dict[str, tuple[str, str]] = {}
    with postings.open(encoding="utf-8") as lines:
        for line in lines:
            item = json.loads(line)
            if not item.get("posted_at"):  # the index would hold the time it was received
                raise SystemExit(f"posting {item['id']} has no posted_at: cannot check")
            meta[str(item["id"])] = (_week(str(item["posted_at"])), item.get("source") or "")
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "export.jsonl"
        _run("export", "--data-dir", str(data_dir), "--out", str(out))
        exported = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    counts: Counter[Row] = Counter()
    duplicates: Counter[Row] = Counter()
    for line in exported:
        row = meta[line["id"]]
        counts[row] += 1
        duplicates[row] += line["duplicate_of"] is not None
    return counts, duplicates


def from_stats(data_dir: Path) -> tuple[Counter[Row], Counter[Row]]:
    """(postings, duplicates) per (week, source), as `jobdedup stats` prints them."""
    text = _run("stats", "--data-dir", str(data_dir), "--interval", "week", "--by", "source")
    counts: Counter[Row] = Counter()
    duplicates: Counter[Row] = Counter()
    for record in csv.DictReader(io.StringIO(text)):
        row = (record["bucket"][:10], record["group"])
        counts[row] += int(record["postings"])
        duplicates[row] += int(record["duplicates"])
    return counts, duplicates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("postings", type=Path, help="the JSONL file that was ingested")
    parser.add_argument("--data-dir", type=Path, required=True)
    args = parser.parse_args()
    expected_counts, expected_dups = from_export(args.data_dir, args.postings)
    counts, dups = from_stats(args.data_dir)
    rows = sorted(set(expected_counts) | set(counts))
    differing = [r for r in rows if (expected_counts[r], expected_dups[r]) != (counts[r], dups[r])]
    for row in differing:
        print(
            f"differs {row}: export {expected_counts[row]}/{expected_dups[row]}, "
            f"stats {counts[row]}/{dups[row]} (postings/duplicates)"
        )
    print(
        f"{len(rows)} (week, source) rows, {len(differing)} differ; postings "
        f"{sum(counts.values())} (export {sum(expected_counts.values())}), duplicates "
        f"{sum(dups.values())} (export {sum(expected_dups.values())})"
    )
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
