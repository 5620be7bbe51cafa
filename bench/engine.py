"""Engine benchmark: the search-engine backend against the embedded index, same data, one run.

    python bench/engine.py --url http://127.0.0.1:9200 [--engine opensearch] [--limit 3000]
        [--api-limit 300] [--concurrent 1000] [--inflight 32] [--partitions month]
    (a local engine: ../shared/tools/opensearch-local/start.sh prints its URL)

For each backend, on a fresh index and as whole processes (start-up included): `jobdedup
ingest` of the first --limit NHS postings (the CLI's defaults: groups of 256, one preparation
process), then a real `jobdedup serve` on that index answers --api-limit `POST /dedup` one at
a time (the next NHS ads) and --concurrent more with --inflight requests in flight. Prints
one markdown table with engine / embedded ratios (issue 12's goals: ingest >= 0.5x, /dedup
at 32 in flight >= 0.5x); never run as a test. The engine's indices are deleted afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.load import concurrent_calls  # noqa: E402
from bench.nhs import nhs_postings  # noqa: E402
from service.factory import build_deduplicator  # noqa: E402
from service.settings import Settings  # noqa: E402
from tests.processes import CLI, start_serve  # noqa: E402


def run(
    env: dict[str, str],
    settings: Settings,
    source: Path,
    count: int,
    api_rows: list[dict[str, Any]],
    concurrent_rows: list[dict[str, Any]],
    inflight: int,
) -> dict[str, Any]:
    """Ingest `source` with the CLI, then time `/dedup` of a served index, on one backend."""
    started = time.perf_counter()
    done = subprocess.run(
        [*CLI, "ingest", "--no-progress", str(source)],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    ingest_s = time.perf_counter() - started
    found = re.search(r"duplicates (\d+)", done.stdout + done.stderr)
    process, base = start_serve(env)
    try:
        latencies: list[float] = []
        with httpx.Client(base_url=base, timeout=60) as http:
            for row in api_rows:
                t0 = time.perf_counter()
                http.post("/dedup", json=row).raise_for_status()
                latencies.append(time.perf_counter() - t0)
        rate, loaded, errors = concurrent_calls(
            base,
            lambda client, n: client.post("/dedup", json=concurrent_rows[n]),
            len(concurrent_rows),
            inflight,
        )
    finally:
        process.terminate()
        process.wait(timeout=60)
    dedup = build_deduplicator(settings)
    try:
        stats = dedup.store.stats()
    finally:
        dedup.store.close()
    ms = np.array(latencies) * 1000.0
    return {
        "ingest_rate": count / ingest_s,
        "ingest_s": ingest_s,
        "duplicates": int(found.group(1)) if found else -1,
        "clusters": stats.clusters,
        "bytes_per_posting": stats.bytes / max(1, stats.postings),
        "api_p50": float(np.percentile(ms, 50)),
        "api_p99": float(np.percentile(ms, 99)),
        "api_rate": len(api_rows) / (sum(latencies) or 1.0),
        "inflight_rate": rate,
        "inflight_p99": float(np.percentile(np.array(loaded) * 1000.0, 99)),
        "errors": errors,
    }


def _drop(url: str, prefix: str) -> None:
    from indexer.stores.elastic.client import part
    from indexer.stores.elastic.transports import connect_opensearch

    raw = connect_opensearch(url, 60.0)
    try:
        names = raw.request("GET", f"/{part(prefix)}-*")
        if names:
            raw.request("DELETE", "/" + ",".join(part(n) for n in names))
        for alias in ("postings", "clusters"):
            raw.request("DELETE", f"/_index_template/{part(f'{prefix}-{alias}')}")
    finally:
        raw.close()


def _table(
    embedded: dict[str, Any], engine: dict[str, Any], engine_name: str, n: int, m: int, k: int
) -> str:
    rows = [
        (f"`jobdedup ingest` of {n} postings (postings/s)", "ingest_rate", "{:.0f}"),
        ("ingest wall time, whole process (s)", "ingest_s", "{:.1f}"),
        ("flagged duplicates", "duplicates", "{:.0f}"),
        ("clusters", "clusters", "{:.0f}"),
        ("index bytes/posting", "bytes_per_posting", "{:.0f}"),
        (f"POST /dedup p50 (ms, {m} requests)", "api_p50", "{:.1f}"),
        ("POST /dedup p99 (ms)", "api_p99", "{:.1f}"),
        ("POST /dedup one client (requests/s)", "api_rate", "{:.0f}"),
        (f"POST /dedup {k} in flight (requests/s)", "inflight_rate", "{:.0f}"),
        (f"POST /dedup p99 at {k} in flight (ms)", "inflight_p99", "{:.0f}"),
        (f"errors at {k} in flight", "errors", "{:.0f}"),
    ]
    lines = [
        f"| metric | embedded (SQLite) | {engine_name} | engine / embedded |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, key, fmt in rows:
        a, b = embedded[key], engine[key]
        ratio = f"{b / a:.2f}x" if a else ""
        lines.append(f"| {label} | {fmt.format(a)} | {fmt.format(b)} | {ratio} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default=os.environ.get("JOBDEDUP_SEARCH_URL"), help="engine URL")
    parser.add_argument("--engine", choices=["opensearch", "elasticsearch"], default="opensearch")
    parser.add_argument("--limit", type=int, default=3000, help="postings ingested first")
    parser.add_argument("--api-limit", type=int, default=300, help="then sent to POST /dedup")
    parser.add_argument("--concurrent", type=int, default=1000, help="then sent in flight")
    parser.add_argument("--inflight", type=int, default=32)
    parser.add_argument(
        "--partitions",
        choices=["none", "month"],
        default="none",
        help="JOBDEDUP_SEARCH_PARTITIONS of the engine side (month: one index per month)",
    )
    args = parser.parse_args()
    if not args.url:
        parser.error("give --url (or JOBDEDUP_SEARCH_URL) of an Elasticsearch/OpenSearch node")
    rows = nhs_postings(limit=args.limit + args.api_limit + args.concurrent)
    ingest = rows[: args.limit]
    api = rows[args.limit : args.limit + args.api_limit]
    later = rows[args.limit + args.api_limit :]
    prefix = f"jobdedup-bench-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="jobdedup-bench-") as tmp:
        source = Path(tmp) / "ingest.jsonl"
        source.write_text("".join(json.dumps(r) + "\n" for r in ingest), encoding="utf-8")
        base_env = {k: v for k, v in os.environ.items() if not k.startswith("JOBDEDUP_")}
        base_env["JOBDEDUP_LOG_LEVEL"] = "WARNING"
        sqlite = Settings(data_dir=Path(tmp) / "sqlite")
        env = {**base_env, "JOBDEDUP_DATA_DIR": str(sqlite.data_dir)}
        embedded = run(env, sqlite, source, len(ingest), api, later, args.inflight)
        engine_settings = Settings(
            data_dir=Path(tmp) / "engine",
            backend=args.engine,
            search_url=args.url,
            search_index=prefix,
            search_partitions=args.partitions,
        )
        env = {
            **base_env,
            "JOBDEDUP_DATA_DIR": str(engine_settings.data_dir),
            "JOBDEDUP_BACKEND": args.engine,
            "JOBDEDUP_SEARCH_URL": args.url,
            "JOBDEDUP_SEARCH_INDEX": prefix,
            "JOBDEDUP_SEARCH_PARTITIONS": args.partitions,
        }
        try:
            engine = run(env, engine_settings, source, len(ingest), api, later, args.inflight)
        finally:
            _drop(args.url, prefix)
    print(_table(embedded, engine, args.engine, len(ingest), len(api), args.inflight))


if __name__ == "__main__":
    main()
