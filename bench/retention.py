"""Retention benchmark on the search-engine backend: one postings index against month indices.

    python bench/retention.py --url http://127.0.0.1:9200 [--limit 14842] [--before 2020-11-01]

For each layout (`JOBDEDUP_SEARCH_PARTITIONS=none`, then `month`), on a fresh index and as
whole processes: `jobdedup ingest` of the first --limit NHS postings, `jobdedup export`,
`jobdedup expire --before DATE` (timed), `jobdedup export` again. Prints one markdown
table: ingest and expire times, what the postings indices hold on disk before and after
(live documents, deleted documents still on disk until Lucene merges them, bytes, and the
bytes of the indices dropped whole; bytes move with Lucene's merges between runs), and
whether the two layouts exported the same clusters before and after retention. Never run as a test;
the engine's indices are deleted afterwards. The month layout would wait out other stores'
write cycles once per pass (`drop_grace_s`); here no other store holds a ticket, so it does
not wait.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.engine import _drop  # noqa: E402
from bench.nhs import nhs_postings  # noqa: E402
from tests.processes import CLI  # noqa: E402


def _cli(env: dict[str, str], *args: str) -> tuple[float, str]:
    """Run a `jobdedup` verb; returns its wall time and stdout."""
    started = time.perf_counter()
    done = subprocess.run(
        [*CLI, *args], env=env, cwd=ROOT, check=True, capture_output=True, text=True
    )
    return time.perf_counter() - started, done.stdout


def _postings_disk(url: str, prefix: str) -> dict[str, Any]:
    """Live and deleted documents and bytes of every postings index of `prefix`."""
    from indexer.stores.elastic.client import part
    from indexer.stores.elastic.transports import connect_opensearch

    raw = connect_opensearch(url, 60.0)
    try:
        raw.request("POST", f"/{part(prefix)}-postings*/_refresh")
        found = raw.request("GET", f"/{part(prefix)}-postings*/_stats/docs,store")
        total = found["_all"]["primaries"]
        return {
            "indices": len(found["indices"]),
            "docs": int(total["docs"]["count"]),
            "deleted": int(total["docs"]["deleted"]),
            "bytes": int(total["store"]["size_in_bytes"]),
            "per_index": {
                name: int(stats["primaries"]["store"]["size_in_bytes"])
                for name, stats in found["indices"].items()
            },
        }
    finally:
        raw.close()


def run(
    url: str, engine: str, scheme: str, source: Path, count: int, before: str, tmp: Path
) -> dict[str, Any]:
    prefix = f"jobdedup-bench-{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("JOBDEDUP_")}
    env.update(
        {
            "JOBDEDUP_LOG_LEVEL": "WARNING",
            "JOBDEDUP_DATA_DIR": str(tmp / scheme),
            "JOBDEDUP_BACKEND": engine,
            "JOBDEDUP_SEARCH_URL": url,
            "JOBDEDUP_SEARCH_INDEX": prefix,
            "JOBDEDUP_SEARCH_PARTITIONS": scheme,
        }
    )
    try:
        ingest_s, _ = _cli(env, "ingest", "--no-progress", str(source))
        _, exported = _cli(env, "export")
        disk_before = _postings_disk(url, prefix)
        expire_s, _ = _cli(env, "expire", "--before", before)
        disk_after = _postings_disk(url, prefix)
        _, kept = _cli(env, "export")
    finally:
        _drop(url, prefix)
    return {
        "ingest_rate": count / ingest_s,
        "expire_s": expire_s,
        "expired": disk_before["docs"] - disk_after["docs"],
        "before": disk_before,
        "after": disk_after,
        "dropped_bytes": sum(
            size
            for name, size in disk_before["per_index"].items()
            if name not in disk_after["per_index"]
        ),
        "export": exported,
        "kept": kept,
    }


def _table(one: dict[str, Any], month: dict[str, Any], before: str) -> str:
    rows = [
        ("ingest (postings/s)", f"{one['ingest_rate']:.0f}", f"{month['ingest_rate']:.0f}"),
        ("postings indices", one["before"]["indices"], month["before"]["indices"]),
        (f"postings expired (before {before})", one["expired"], month["expired"]),
        (
            "`jobdedup expire` (s, whole process)",
            f"{one['expire_s']:.1f}",
            f"{month['expire_s']:.1f}",
        ),
        (
            "documents before / after",
            f"{one['before']['docs']} / {one['after']['docs']}",
            f"{month['before']['docs']} / {month['after']['docs']}",
        ),
        (
            "deleted documents left on disk after",
            one["after"]["deleted"],
            month["after"]["deleted"],
        ),
        ("postings bytes before", one["before"]["bytes"], month["before"]["bytes"]),
        ("postings bytes after (no merge forced)", one["after"]["bytes"], month["after"]["bytes"]),
        ("bytes of the indices dropped whole", one["dropped_bytes"], month["dropped_bytes"]),
    ]
    same_before = "yes" if one["export"] == month["export"] else "NO"
    same_after = "yes" if one["kept"] == month["kept"] else "NO"
    lines = ["| measure | one postings index | month indices |", "| --- | ---: | ---: |"]
    lines += [f"| {name} | {a} | {b} |" for name, a, b in rows]
    lines.append(
        f"| `export` identical before / after retention | {same_before} / {same_after} | |"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default=os.environ.get("JOBDEDUP_SEARCH_URL"), help="engine URL")
    parser.add_argument("--engine", choices=["opensearch", "elasticsearch"], default="opensearch")
    parser.add_argument("--limit", type=int, default=None, help="first NHS postings (all)")
    parser.add_argument("--before", default="2020-11-01", help="retention cut-off (a date)")
    args = parser.parse_args()
    if not args.url:
        parser.error("give --url (or JOBDEDUP_SEARCH_URL) of an Elasticsearch/OpenSearch node")
    rows = nhs_postings(limit=args.limit)
    with tempfile.TemporaryDirectory(prefix="jobdedup-bench-") as tmp:
        source = Path(tmp) / "ingest.jsonl"
        source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        one = run(args.url, args.engine, "none", source, len(rows), args.before, Path(tmp))
        month = run(args.url, args.engine, "month", source, len(rows), args.before, Path(tmp))
    print(_table(one, month, args.before))


if __name__ == "__main__":
    main()
