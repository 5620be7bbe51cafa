"""The NHS Jobs 2020 corpus (../shared/data/nhs-jobs-2020) as postings in the service schema.

Read from the shared folder at run time; the corpus is never copied into the repository.
Run as a script to write a JSONL file for `jobdedup ingest`:
    python -m bench.nhs var/nhs.jsonl
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SHARED = Path(__file__).resolve().parents[2] / "shared"
NHS_FILE = SHARED / "data" / "nhs-jobs-2020" / "nhs_jobs_2020.jsonl.gz"


def _salary(row: dict[str, Any]) -> str | None:
    text = row.get("salary_text")
    return str(text) if text else None


def to_posting(row: dict[str, Any]) -> dict[str, Any]:
    """One corpus record → a posting dict for /dedup (employer → company, locality and
    postcode → location, date_posted → posted_at, plain-text description)."""
    location = ", ".join(str(x) for x in (row.get("locality"), row.get("postal_code")) if x)
    posting: dict[str, Any] = {
        "id": str(row["id"]),
        "title": row["title"],
        "description": row.get("description_text") or row.get("description_html") or "",
        "company": row.get("employer"),
        "location": location or None,
        "posted_at": row.get("date_posted"),
        "url": row.get("url"),
        "source": "nhs-jobs",
        "salary": _salary(row),
    }
    return {k: v for k, v in posting.items() if v not in (None, "")}


def nhs_postings(path: Path = NHS_FILE, limit: int | None = None) -> list[dict[str, Any]]:
    """All postings in date order (posted_at, then id), as a live stream would bring them."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        rows = [to_posting(json.loads(line)) for line in handle]
    rows = [r for r in rows if r.get("description") and r.get("title")]
    rows.sort(key=lambda r: (r.get("posted_at", ""), r["id"]))
    return rows[:limit] if limit else rows


def _write(out: Path) -> Iterator[int]:
    with out.open("w", encoding="utf-8") as handle:
        for row in nhs_postings():
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            yield 1


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "var/nhs.jsonl")
    target.parent.mkdir(parents=True, exist_ok=True)
    print(f"wrote {sum(_write(target))} postings to {target}", file=sys.stderr)
