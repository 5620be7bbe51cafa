"""`POST /dedup` of a real `jobdedup serve` against the same server's `/health`.

    python bench/api.py [--indexed 3000] [--sequential 300] [--concurrent 1000] [--inflight 32]

A fresh embedded index gets the first --indexed NHS ads through `jobdedup ingest`; then a
real `serve` process answers, over HTTP on loopback: --sequential `/health` and then as many
`/dedup` requests one at a time (the next NHS ads), and --concurrent of each with --inflight
requests in flight (one thread and one keep-alive connection per slot). Prints the p50s,
the throughputs and their ratios. Goals (issue 11): sequential /dedup p50 <= 3x /health p50;
at 32 in flight /dedup >= 0.5x the throughput of /health, no errors. Never run as a test.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.load import Call, concurrent_calls  # noqa: E402
from bench.nhs import nhs_postings  # noqa: E402
from tests.processes import CLI, cli_env, start_serve  # noqa: E402


def _sequential(base: str, call: Call, count: int) -> tuple[list[float], int]:
    latencies: list[float] = []
    errors = 0
    with httpx.Client(base_url=base, timeout=60) as client:
        for n in range(count):
            started = time.perf_counter()
            errors += call(client, n).status_code != 200
            latencies.append(time.perf_counter() - started)
    return latencies, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--indexed", type=int, default=3000)
    parser.add_argument("--sequential", type=int, default=300)
    parser.add_argument("--concurrent", type=int, default=1000)
    parser.add_argument("--inflight", type=int, default=32)
    args = parser.parse_args()
    rows = nhs_postings(limit=args.indexed + args.sequential + args.concurrent)
    indexed, fresh = rows[: args.indexed], rows[args.indexed :]
    later = fresh[args.sequential :]

    def health(client: httpx.Client, n: int) -> httpx.Response:
        return client.get("/health")

    def dedup_sequential(client: httpx.Client, n: int) -> httpx.Response:
        return client.post("/dedup", json=fresh[n])

    def dedup_concurrent(client: httpx.Client, n: int) -> httpx.Response:
        return client.post("/dedup", json=later[n])

    with tempfile.TemporaryDirectory(prefix="jobdedup-api-bench-") as tmp:
        data = Path(tmp) / "index"
        source = Path(tmp) / "indexed.jsonl"
        source.write_text("".join(json.dumps(r) + "\n" for r in indexed), encoding="utf-8")
        env = cli_env(data, JOBDEDUP_LOG_LEVEL="WARNING")
        subprocess.run([*CLI, "ingest", "--no-progress", str(source)], env=env, check=True)
        process, base = start_serve(env)
        try:
            health_seq, health_seq_err = _sequential(base, health, args.sequential)
            dedup_seq, dedup_seq_err = _sequential(base, dedup_sequential, args.sequential)
            health_rate, _, health_err = concurrent_calls(
                base, health, args.concurrent, args.inflight
            )
            dedup_rate, dedup_lat, dedup_err = concurrent_calls(
                base, dedup_concurrent, len(later), args.inflight
            )
        finally:
            process.terminate()
            process.wait(timeout=60)
    ms = 1000.0
    h50, d50 = np.percentile(health_seq, 50) * ms, np.percentile(dedup_seq, 50) * ms
    print(f"index of {args.indexed} NHS ads; {args.inflight} in flight for the throughputs\n")
    print("| measure | /health | /dedup | ratio | goal |")
    print("| --- | ---: | ---: | ---: | --- |")
    print(f"| sequential p50 (ms) | {h50:.2f} | {d50:.2f} | {d50 / h50:.1f}x | <= 3x |")
    print(
        f"| {args.inflight} in flight (requests/s) | {health_rate:.0f} | {dedup_rate:.0f}"
        f" | {dedup_rate / health_rate:.2f}x | >= 0.5x |"
    )
    p99 = np.percentile(dedup_lat, 99) * ms
    print(f"| /dedup p99 at {args.inflight} in flight (ms) | | {p99:.0f} | | |")
    errors = health_seq_err + dedup_seq_err + health_err + dedup_err
    print(f"| errors | {health_seq_err + health_err} | {dedup_seq_err + dedup_err} | | 0 |")
    if errors:
        sys.exit(1)


if __name__ == "__main__":
    main()
