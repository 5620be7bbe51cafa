"""Memory of a real `jobdedup serve` under load that stores nothing, and under one big batch.

Phase 1 indexes `--index` NHS ads through /dedup/batch. Phase 2 sends `--requests` requests
that store nothing (dry-run /dedup of real ads and /pairs/score of real pairs, from
`--clients` threads) and samples the server's RSS (VmRSS) every `--every` requests. With
`--batch`, phase 3 sends one /dedup/batch of 1,000 real ads padded to 60 kB each (~61 MB)
and reports the peak (VmHWM) against the idle RSS. Goals (issue 13): RSS flat (±10%) over
phase 2; the batch's peak ≤ 2 × idle + 200 MB.

    python bench/soak.py [--index 5000] [--requests 100000] [--clients 4] [--batch]
"""

from __future__ import annotations

import argparse
import itertools
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.nhs import nhs_postings  # noqa: E402
from tests.processes import cli_env, start_serve  # noqa: E402


def _status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of `pid`, in MB."""
    out: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) // 1024
    return out


def _start(data_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    return start_serve(cli_env(data_dir, JOBDEDUP_LOG_LEVEL="WARNING"))


def _no_store_load(base: str, ads: list[dict[str, Any]], total: int, clients: int,
                   every: int, pid: int) -> list[tuple[int, int]]:  # fmt: skip
    """`total` dry-run /dedup and /pairs/score requests; (requests done, RSS MB) samples."""
    counter = itertools.count()
    samples: list[tuple[int, int]] = [(0, _status(pid)["VmRSS"])]
    lock = threading.Lock()

    def work() -> None:
        with httpx.Client(base_url=base, timeout=120) as client:
            while (n := next(counter)) < total:
                ad = ads[n % len(ads)]
                if n % 2:
                    other = ads[(n * 7919) % len(ads)]
                    client.post("/pairs/score", json={"a": ad, "b": other})
                else:
                    client.post("/dedup", params={"dry_run": "true"}, json=ad)
                if (n + 1) % every == 0:
                    with lock:
                        samples.append((n + 1, _status(pid)["VmRSS"]))

    threads = [threading.Thread(target=work) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=int, default=5000, help="NHS ads indexed first")
    parser.add_argument("--requests", type=int, default=100_000, help="requests storing nothing")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--every", type=int, default=10_000, help="RSS sample interval")
    parser.add_argument("--batch", action="store_true", help="also one ~64 MB batch")
    args = parser.parse_args()

    ads = nhs_postings(limit=args.index + 1000)
    indexed, fresh = ads[: args.index], ads[args.index :]
    with tempfile.TemporaryDirectory() as tmp:
        server, base = _start(Path(tmp) / "index")
        try:
            idle = _status(server.pid)["VmRSS"]
            started = time.perf_counter()
            with httpx.Client(base_url=base, timeout=600) as client:
                for i in range(0, len(indexed), 500):
                    client.post("/dedup/batch", json=indexed[i : i + 500]).raise_for_status()
            loaded = _status(server.pid)["VmRSS"]
            print(f"idle {idle} MB; {len(indexed)} ads indexed in "
                  f"{time.perf_counter() - started:.0f} s: {loaded} MB")  # fmt: skip
            started = time.perf_counter()
            samples = _no_store_load(base, fresh, args.requests, args.clients, args.every,
                                     server.pid)  # fmt: skip
            took = time.perf_counter() - started
            print(f"\n{args.requests:,} requests storing nothing ({args.clients} clients, "
                  f"{args.requests / took:.0f}/s)\n")  # fmt: skip
            print("| requests | RSS MB | vs first sample |")
            print("| ---: | ---: | ---: |")
            first = samples[0][1]
            for done, rss in samples:
                print(f"| {done:,} | {rss} | {100 * (rss - first) / first:+.1f}% |")
            if args.batch:
                quiet = _status(server.pid)
                pad = " ".join(a["description"] for a in fresh)
                batch = [
                    {
                        **ad,
                        "id": f"big-{n}",
                        "description": (ad["description"] + " " + pad)[:60_000],
                    }
                    for n, ad in enumerate(itertools.islice(itertools.cycle(fresh), 1000))
                ]
                started = time.perf_counter()
                answer = httpx.post(f"{base}/dedup/batch", json=batch, timeout=1200)
                after = _status(server.pid)
                print(f"\none batch of 1,000 x 60 kB: {answer.status_code} in "
                      f"{time.perf_counter() - started:.0f} s; RSS before {quiet['VmRSS']} MB, "
                      f"peak {after['VmHWM']} MB (goal <= {2 * idle + 200}), "
                      f"after {after['VmRSS']} MB")  # fmt: skip
        finally:
            server.terminate()
            server.wait(timeout=60)


if __name__ == "__main__":
    main()
