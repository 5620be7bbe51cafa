"""Service instances on one search engine: throughput, and how long decisions wait on each other.

    python bench/instances.py --url http://127.0.0.1:9200 [--engine opensearch]
        [--indexed 3000] [--requests 1000] [--inflight 32] [--instances 1,2]

For each instance count, on a fresh engine index holding the first --indexed NHS ads (put
there by `jobdedup ingest`): that many `jobdedup serve` processes on the same index, and
--inflight client threads spread over them sending the next --requests ads to `POST /dedup`
(the same ads for every instance count). Prints, per instance count: throughput, latency,
and the time the postings' groups waited for the store's writer (the in-process lock, the
claims other instances held and the decisions made again after giving way: the
`writer_wait` stage of `jobdedup_stage_seconds`, scraped from every instance), as a mean per
posting and as a share of the request time, and the re-check's time (`recheck`). Issue 12's
goal is that adding instances adds throughput and that decisions do not wait on a global
lock.
Never run as a test; the engine's indices are deleted afterwards.
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

import httpx
import numpy as np
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.engine import _drop  # noqa: E402
from bench.load import concurrent_calls  # noqa: E402
from bench.nhs import nhs_postings  # noqa: E402
from tests.processes import CLI, start_serve  # noqa: E402


def _stage(base: str, stage: str) -> tuple[float, float]:
    """(seconds in all, postings) of one instance's `stage` in `jobdedup_stage_seconds`."""
    text = httpx.get(f"{base}/metrics", timeout=30).text
    total = count = 0.0
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.labels.get("stage") != stage:
                continue
            if sample.name == "jobdedup_stage_seconds_sum":
                total = sample.value
            elif sample.name == "jobdedup_stage_seconds_count":
                count = sample.value
    return total, count


def run(
    env: dict[str, str], instances: int, source: Path, requests: list[dict[str, Any]], inflight: int
) -> dict[str, float]:
    """Fill the index, start `instances` servers on it, send `requests` across them."""
    subprocess.run(
        [*CLI, "ingest", "--no-progress", str(source)],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    servers = []
    try:
        for n in range(instances):
            servers.append(
                start_serve({**env, "JOBDEDUP_DATA_DIR": f"{env['JOBDEDUP_DATA_DIR']}-{n}"})
            )
        bases = [base for _, base in servers]
        rate, latencies, errors = concurrent_calls(
            bases,
            lambda client, n: client.post("/dedup", json=requests[n]),
            len(requests),
            inflight,
        )
        waits = [_stage(base, "writer_wait") for base in bases]
        rechecks = [_stage(base, "recheck") for base in bases]
    finally:
        for process, _ in servers:
            process.terminate()
        for process, _ in servers:
            process.wait(timeout=60)
    waited = sum(w for w, _ in waits)
    posted = sum(c for _, c in waits)
    ms = np.array(latencies) * 1000.0
    return {
        "rate": rate,
        "p50": float(np.percentile(ms, 50)),
        "p99": float(np.percentile(ms, 99)),
        "errors": errors,
        "wait_ms": 1000.0 * waited / max(posted, 1.0),
        "wait_share": waited / max(sum(latencies), 1e-9),
        "recheck_ms": 1000.0 * sum(t for t, _ in rechecks) / max(posted, 1.0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", default=os.environ.get("JOBDEDUP_SEARCH_URL"), help="engine URL")
    parser.add_argument("--engine", choices=["opensearch", "elasticsearch"], default="opensearch")
    parser.add_argument("--indexed", type=int, default=3000)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--inflight", type=int, default=32)
    parser.add_argument("--instances", default="1,2", help="instance counts, comma-separated")
    args = parser.parse_args()
    if not args.url:
        parser.error("give --url (or JOBDEDUP_SEARCH_URL) of an Elasticsearch/OpenSearch node")
    rows = nhs_postings(limit=args.indexed + args.requests)
    indexed, requests = rows[: args.indexed], rows[args.indexed :]
    results: list[tuple[int, dict[str, float]]] = []
    with tempfile.TemporaryDirectory(prefix="jobdedup-instances-") as tmp:
        source = Path(tmp) / "indexed.jsonl"
        source.write_text("".join(json.dumps(r) + "\n" for r in indexed), encoding="utf-8")
        base_env = {k: v for k, v in os.environ.items() if not k.startswith("JOBDEDUP_")}
        for count in (int(c) for c in args.instances.split(",")):
            prefix = f"jobdedup-inst-{uuid.uuid4().hex[:8]}"
            env = {
                **base_env,
                "JOBDEDUP_LOG_LEVEL": "WARNING",
                "JOBDEDUP_DATA_DIR": str(Path(tmp) / f"data-{count}"),
                "JOBDEDUP_BACKEND": args.engine,
                "JOBDEDUP_SEARCH_URL": args.url,
                "JOBDEDUP_SEARCH_INDEX": prefix,
            }
            started = time.perf_counter()
            try:
                results.append((count, run(env, count, source, requests, args.inflight)))
            finally:
                _drop(args.url, prefix)
            print(
                f"{count} instance(s) done in {time.perf_counter() - started:.0f} s",
                file=sys.stderr,
            )
    first = results[0][1]["rate"]
    print(
        f"{args.indexed} NHS ads indexed, {len(requests)} POST /dedup, {args.inflight} in flight\n"
    )
    print(
        "| instances | requests/s | vs 1 | p50 (ms) | p99 (ms) | writer wait per posting (ms)"
        " | share of request time waiting | re-check per posting (ms) | errors |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for count, r in results:
        print(
            f"| {count} | {r['rate']:.0f} | {r['rate'] / first:.2f}x | {r['p50']:.0f}"
            f" | {r['p99']:.0f} | {r['wait_ms']:.1f} | {r['wait_share']:.0%}"
            f" | {r['recheck_ms']:.1f} | {r['errors']:.0f} |"
        )


if __name__ == "__main__":
    main()
