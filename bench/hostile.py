"""Hostile requests against a real `jobdedup serve`, and what they do to everyone else.

For each pathological description (200,000 characters of one repeated fragment: unclosed
comments, style or script blocks, tags, entities...), sends it to `/dedup` (dry run) and
two of them to `/pairs/score`, then a batch of 64 such postings, while another thread
polls `/health` every 20 ms. Prints, per request: status, seconds, and /health p50/p99/max
during it. Goals (issue 13): each answered in < 2 s, /health p99 < 250 ms meanwhile.

    python bench/hostile.py [--size 200000] [--batch 64]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.processes import cli_env, start_serve  # noqa: E402

FRAGMENTS = {
    "unclosed comments": "<!--",
    "unclosed style": "<style>",
    "unclosed script": "<script>",
    "unclosed tags": "<p ",
    "unclosed links": '<a href="',
    "lone brackets": "<",
    "entities": "&amp;",
    "escaped tags": "&lt;div ",
    "nested inline tags": "<b><i>",
    "no spaces": "x",
}


class HealthProbe:
    """Polls /health every 20 ms in a thread; `window()` gives latencies since `mark()`."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.samples: list[tuple[float, float]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        with httpx.Client(timeout=60) as client:
            while not self.stop.is_set():
                started = time.perf_counter()
                client.get(f"{self.base}/health")
                self.samples.append((started, time.perf_counter() - started))
                time.sleep(0.02)

    def window(self, since: float, until: float) -> list[float]:
        return [s for t, s in list(self.samples) if since <= t <= until]


def _posting(n: int, description: str) -> dict[str, Any]:
    return {"id": f"hostile-{n}", "title": "Data Engineer", "description": description}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=200_000, help="characters per description")
    parser.add_argument("--batch", type=int, default=64, help="postings in the batch request")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        env = cli_env(Path(tmp) / "index", JOBDEDUP_LOG_LEVEL="WARNING")
        server, base = start_serve(env)
        try:
            probe = HealthProbe(base)
            rows = []
            with httpx.Client(base_url=base, timeout=600) as client:
                for name, fragment in FRAGMENTS.items():
                    text = (fragment * (args.size // len(fragment) + 1))[: args.size]
                    requests: list[tuple[str, str, Any]] = [
                        ("/dedup", "/dedup?dry_run=true", _posting(0, text)),
                        (
                            "/pairs/score",
                            "/pairs/score",
                            {"a": _posting(1, text), "b": _posting(2, text)},
                        ),
                    ]
                    if name == "unclosed comments":
                        batch = [_posting(n, text) for n in range(args.batch)]
                        requests.append(
                            (f"/dedup/batch ({args.batch})", "/dedup/batch?dry_run=true", batch)
                        )
                    for label, url, body in requests:
                        started = time.perf_counter()
                        answer = client.post(url, json=body)
                        ended = time.perf_counter()
                        health = sorted(probe.window(started, ended)) or [0.0]
                        p99 = health[min(len(health) - 1, int(0.99 * len(health)))]
                        p50 = statistics.median(health)
                        took = ended - started
                        rows.append((name, label, answer.status_code, took, p50, p99, health[-1]))
            probe.stop.set()
        finally:
            server.terminate()
            server.wait(timeout=30)

    print(f"\n{args.size:,} characters per description; /health polled every 20 ms\n")
    print("| input | route | status | seconds | /health p50 ms | p99 ms | max ms |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for name, label, status, seconds, p50, p99, worst in rows:
        print(f"| {name} | {label} | {status} | {seconds:.2f} | {p50 * 1000:.1f} | "
              f"{p99 * 1000:.1f} | {worst * 1000:.1f} |")  # fmt: skip
    slowest = max(r[3] for r in rows if "batch" not in r[1])
    worst_p99 = max(r[5] for r in rows)
    print(f"\nslowest single request {slowest:.2f} s (goal < 2 s); worst /health p99 "
          f"{worst_p99 * 1000:.0f} ms (goal < 250 ms)")  # fmt: skip


if __name__ == "__main__":
    main()
