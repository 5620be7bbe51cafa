"""Memory of a real `jobdedup serve`: under load that stores nothing, and under one big batch.

Soak (default): a fresh `serve` on a temporary data dir indexes `--index` real NHS ads
through /dedup/batch (beyond the corpus's 14,842 ads, re-posts of them: new id, a week or
more later, the closing line changed), then `--clients` threads send `--requests` requests
that store nothing: dry-run /dedup of held-out NHS ads and /pairs/score of the gold-dev pairs
and of held-out ads against each other. The server's VmRSS is read from /proc every
`--every` seconds. Goal (issue 13): RSS flat (within ±10%) over 100,000 such requests.

Batch (`--batch`): a fresh `serve` gets one /dedup/batch of 1,000 postings of ~64 kB built
from real ads (posting n is ads n, n+1, … joined: each overlaps the next by ~97%, so every
posting brings a full list of large candidates), just under the 64,000,000-byte body limit.
Goal: peak RSS (VmHWM, reset before the batch) ≤ 2 × idle + 200 MB.

    python bench/soak.py [--index 20000] [--requests 100000] [--clients 4] [--every 2]
    python bench/soak.py --batch [--ndjson] [--index 0]
    python bench/soak.py --index 2000 --requests 3000      # a quick run, under a minute
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load import concurrent_calls  # noqa: E402
from bench.memory import resident_mb  # noqa: E402
from bench.nhs import SHARED, nhs_postings  # noqa: E402
from tests.processes import cli_env, start_serve  # noqa: E402

GOLD_PAIRS = SHARED / "data" / "gold-dev" / "pairs.jsonl"
MAX_BATCH_BYTES = 64_000_000  # the service's default `max_batch_bytes`
HELD_OUT = 1000  # NHS ads never indexed: the dry runs' queries


def _reset_peak(pid: int) -> None:
    """Restart VmHWM at the current RSS (Linux 4.0+: "5" to clear_refs), so each phase reports
    its own peak; without permission the peak stays the process's lifetime peak."""
    with contextlib.suppress(OSError):
        Path(f"/proc/{pid}/clear_refs").write_text("5")


@dataclass
class Phase:
    """One row of the table: what ran and the server's RSS over it (MB)."""

    name: str
    requests: int
    seconds: float
    start: int
    end: int
    peak: int
    errors: int = 0

    @property
    def growth(self) -> float:
        return 100 * (self.end - self.start) / self.start


@dataclass
class Sampler:
    """Reads the server's VmRSS every `every` seconds in a thread, with the count of requests
    done at that moment, until stopped."""

    pid: int
    every: float
    done: int = 0
    samples: list[tuple[float, int, int]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._origin = time.perf_counter()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.sample()

    def sample(self) -> int:
        rss = int(resident_mb(self.pid)[0])
        with self._lock:
            self.samples.append((time.perf_counter() - self._origin, self.done, rss))
        return rss

    def count(self) -> None:
        with self._lock:
            self.done += 1

    def stop(self) -> None:
        self._stop.set()

    def phase(self, name: str, run: Any) -> Phase:
        """Run `run()` (returns (requests, errors)) and summarise RSS over it."""
        _reset_peak(self.pid)
        first, started = len(self.samples), time.perf_counter()
        start = self.sample()
        requests, errors = run()
        seconds = time.perf_counter() - started
        end = self.sample()
        peak = max([end, int(resident_mb(self.pid)[1]), *(s[2] for s in self.samples[first:])])
        return Phase(name, requests, seconds, start, end, peak, errors)


def _repost(ad: dict[str, Any], k: int) -> dict[str, Any]:
    """The ad advertised again k weeks later under a new id, its closing line changed."""
    posted = time.strptime(ad["posted_at"][:10], "%Y-%m-%d")
    later = time.strftime("%Y-%m-%d", time.gmtime(time.mktime(posted) + k * 7 * 86400 + 43200))
    note = f"\nRe-advertised: closing date extended to week {k}."
    return {
        **ad,
        "id": f"{ad['id']}-r{k}",
        "posted_at": later,
        "description": ad["description"] + note,
    }


def corpus(n_index: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(`n_index` ads to index in date order, `HELD_OUT` others spread over the same dates)."""
    ads = nhs_postings()
    step = max(2, len(ads) // HELD_OUT)
    held = ads[::step][:HELD_OUT]
    held_ids = {a["id"] for a in held}
    rest = [a for a in ads if a["id"] not in held_ids]
    indexed = rest[:n_index]
    k = 1
    while len(indexed) < n_index:
        indexed += [_repost(a, k) for a in rest[: n_index - len(indexed)]]
        k += 1
    indexed.sort(key=lambda a: (a["posted_at"], a["id"]))
    return indexed, held


def _pairs(fresh: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    gold = [json.loads(line) for line in GOLD_PAIRS.read_text(encoding="utf-8").splitlines()]
    pairs = [(p["a"], p["b"]) for p in gold]
    pairs += [(a, fresh[(i * 7919 + 1) % len(fresh)]) for i, a in enumerate(fresh)]
    return pairs


def index_all(base: str, ads: list[dict[str, Any]], sampler: Sampler) -> tuple[int, int]:
    """Index `ads` in batches of 500; (postings, postings in failed batches)."""
    errors = 0
    with httpx.Client(base_url=base, timeout=600) as client:
        for i in range(0, len(ads), 500):
            batch = ads[i : i + 500]
            if client.post("/dedup/batch", json=batch).status_code != 200:
                errors += len(batch)
            sampler.count()
    return len(ads), errors


def no_store_load(base: str, fresh: list[dict[str, Any]], total: int, clients: int,
                  sampler: Sampler) -> tuple[int, int]:  # fmt: skip
    """`total` requests that store nothing from `clients` threads; (requests, errors)."""
    pairs = _pairs(fresh)

    def call(client: httpx.Client, n: int) -> httpx.Response:
        if n % 2:
            a, b = pairs[(n // 2) % len(pairs)]
            answer = client.post("/pairs/score", json={"a": a, "b": b})
        else:
            ad = fresh[(n // 2) % len(fresh)]
            answer = client.post("/dedup", params={"dry_run": "true"}, json=ad)
        sampler.count()
        return answer

    _, _, errors = concurrent_calls(base, call, total, clients)
    return total, errors


def big_batch(ads: list[dict[str, Any]], ndjson: bool) -> bytes:
    """1,000 postings of ~64 kB (posting n: ads n, n+1, … joined), encoded just under
    `MAX_BATCH_BYTES`."""
    budget = (MAX_BATCH_BYTES - 4096) // 1000  # per item, with room for separators
    items: list[bytes] = []
    for n in range(1000):
        text, i = "", n
        while len(text) < budget:
            text += ads[i % len(ads)]["description"] + "\n\n"
            i += 1
        item = {**ads[n % len(ads)], "id": f"big-{n}", "description": text[:budget]}
        encoded = json.dumps(item, ensure_ascii=False).encode()
        while len(encoded) > budget:  # escapes and multi-byte characters take more room
            item["description"] = item["description"][: budget - (len(encoded) - budget) - 64]
            encoded = json.dumps(item, ensure_ascii=False).encode()
        items.append(encoded)
    return b"\n".join(items) + b"\n" if ndjson else b"[" + b",".join(items) + b"]"


def _quiet() -> tuple[int, int]:
    time.sleep(5)
    return 0, 0


def _table(phases: list[Phase]) -> None:
    print("| phase | items | s | items/s | errors | RSS start MB | RSS end MB | peak MB | growth |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for p in phases:
        print(f"| {p.name} | {p.requests:,} | {p.seconds:.0f} | {p.requests / p.seconds:.0f} | "
              f"{p.errors} | {p.start} | {p.end} | {p.peak} | {p.growth:+.1f}% |")  # fmt: skip


def _curve(sampler: Sampler, since: int, points: int = 10) -> None:
    """About `points` RSS samples spread over the requests done since `since`."""
    rows = [s for s in sampler.samples if s[1] >= since]
    if not rows:
        return
    total = rows[-1][1] - since
    print("\n| requests | s | RSS MB | vs first |")
    print("| ---: | ---: | ---: | ---: |")
    first, mark = rows[0][2], -1
    for t, done, rss in rows:
        if done - since >= mark or (t, done, rss) == rows[-1]:
            print(f"| {done - since:,} | {t - rows[0][0]:.0f} | {rss} | "
                  f"{100 * (rss - first) / first:+.1f}% |")  # fmt: skip
            mark = done - since + max(1, total // points)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=int, help="ads indexed first (20,000; 0 with --batch)")
    parser.add_argument("--requests", type=int, default=100_000, help="requests storing nothing")
    parser.add_argument("--clients", type=int, default=4, help="client threads")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between RSS samples")
    parser.add_argument("--batch", action="store_true", help="one ~64 MB batch instead")
    parser.add_argument("--ndjson", action="store_true", help="send the batch as NDJSON")
    args = parser.parse_args()
    n_index = args.index if args.index is not None else (0 if args.batch else 20_000)

    indexed, fresh = corpus(n_index)
    body = big_batch(indexed + fresh, args.ndjson) if args.batch else b""
    with tempfile.TemporaryDirectory() as tmp:
        server, base = start_serve(cli_env(Path(tmp) / "index", JOBDEDUP_LOG_LEVEL="WARNING"))
        sampler = Sampler(server.pid, args.every)
        try:
            time.sleep(1)
            idle = sampler.sample()
            phases = []
            if indexed:
                phases.append(
                    sampler.phase(
                        f"index {len(indexed):,} ads", lambda: index_all(base, indexed, sampler)
                    )
                )
            if args.batch:
                media = "application/x-ndjson" if args.ndjson else "application/json"

                def send() -> tuple[int, int]:
                    answer = httpx.post(f"{base}/dedup/batch", content=body, timeout=1800,
                                        headers={"content-type": media})  # fmt: skip
                    return 1, int(answer.status_code != 200)

                name = f"batch 1,000 x {len(body) // 1000:,} B ({len(body) / 1e6:.1f} MB)"
                phases.append(sampler.phase(name, send))
                time.sleep(2)
                phases.append(sampler.phase("quiet 5 s after", _quiet))
            else:
                since = sampler.done
                phases.append(
                    sampler.phase(
                        "no-store requests",
                        lambda: no_store_load(base, fresh, args.requests, args.clients, sampler),
                    )
                )
            sampler.stop()
            print(f"\nidle RSS {idle} MB\n")
            _table(phases)
            if args.batch:
                print(f"\nbatch peak {phases[-2].peak} MB; goal <= 2 x idle + 200 = "
                      f"{2 * idle + 200} MB")  # fmt: skip
            else:
                _curve(sampler, since)
        finally:
            sampler.stop()
            server.terminate()
            server.wait(timeout=60)


if __name__ == "__main__":
    main()
