"""Engine benchmark: the search-engine backend against the embedded index, same data, one run.

    python bench/engine.py --url http://127.0.0.1:9200 [--engine opensearch] [--limit 3000]
    (a local engine: ../shared/tools/opensearch-local/start.sh prints its URL)

For each backend, on a fresh index: ingest the first --limit NHS postings along
`jobdedup ingest`'s path (groups of 256 decisions per batch, one process), then send the next
--api-limit postings one by one to `POST /dedup` of the real app under uvicorn, over HTTP, and
time each request. Prints one markdown table; never run as a test. The engine's indices are
deleted afterwards.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import uvicorn

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.nhs import nhs_postings  # noqa: E402
from service.api import create_app  # noqa: E402
from service.factory import build_deduplicator  # noqa: E402
from service.schemas import Posting  # noqa: E402
from service.settings import Settings  # noqa: E402


@contextmanager
def _served(settings: Settings) -> Iterator[str]:
    """The app under uvicorn on a free loopback port; yields its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app(settings), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            time.sleep(0.01)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def run(
    settings: Settings, rows: list[dict[str, Any]], api_rows: list[dict[str, Any]]
) -> dict[str, Any]:
    """Ingest `rows`, then time `/dedup` for each of `api_rows`, on the configured backend."""
    dedup = build_deduplicator(settings)
    try:
        started = time.perf_counter()
        statuses = [d.status for d in dedup.dedup_stream(Posting.model_validate(r) for r in rows)]
        ingest_s = time.perf_counter() - started
        stats = dedup.store.stats()
    finally:
        dedup.store.close()
    latencies: list[float] = []
    with _served(settings) as base_url, httpx.Client(base_url=base_url, timeout=60) as http:
        for row in api_rows:
            t0 = time.perf_counter()
            response = http.post("/dedup", json=row)
            latencies.append(time.perf_counter() - t0)
            response.raise_for_status()
    ms = np.array(latencies) * 1000.0
    return {
        "ingest_rate": len(rows) / ingest_s,
        "ingest_s": ingest_s,
        "duplicates": statuses.count("duplicate"),
        "clusters": stats.clusters,
        "bytes_per_posting": stats.bytes / max(1, stats.postings),
        "api_p50": float(np.percentile(ms, 50)),
        "api_p99": float(np.percentile(ms, 99)),
        "api_rate": len(api_rows) / (sum(latencies) or 1.0),
    }


def _drop(url: str, prefix: str) -> None:
    from indexer.elastic_client import part
    from indexer.elastic_transports import connect_opensearch

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
    embedded: dict[str, Any], engine: dict[str, Any], engine_name: str, n: int, m: int
) -> str:
    rows = [
        (f"ingest of {n} postings (postings/s)", "ingest_rate", "{:.0f}"),
        ("ingest wall time (s)", "ingest_s", "{:.1f}"),
        ("flagged duplicates", "duplicates", "{:.0f}"),
        ("clusters", "clusters", "{:.0f}"),
        ("index bytes/posting", "bytes_per_posting", "{:.0f}"),
        (f"POST /dedup p50 (ms, {m} requests)", "api_p50", "{:.1f}"),
        ("POST /dedup p99 (ms)", "api_p99", "{:.1f}"),
        ("POST /dedup one client (requests/s)", "api_rate", "{:.0f}"),
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
    args = parser.parse_args()
    if not args.url:
        parser.error("give --url (or JOBDEDUP_SEARCH_URL) of an Elasticsearch/OpenSearch node")
    rows = nhs_postings(limit=args.limit + args.api_limit)
    ingest, api = rows[: args.limit], rows[args.limit :]
    prefix = f"jobdedup-bench-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="jobdedup-bench-") as tmp:
        embedded = run(Settings(data_dir=Path(tmp)), ingest, api)
        engine_settings = Settings(
            data_dir=Path(tmp) / "engine",
            backend=args.engine,
            search_url=args.url,
            search_index=prefix,
        )
        try:
            engine = run(engine_settings, ingest, api)
        finally:
            _drop(args.url, prefix)
    print(_table(embedded, engine, args.engine, len(ingest), len(api)))


if __name__ == "__main__":
    main()
