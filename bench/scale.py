"""The embedded index at 10k-200k postings: disk, start-up, memory and per-posting latency.

    python bench/scale.py [--checkpoints 10000,100000,200000] [--probe 1000] [--workers 1]

Issue 11's size goals: index <= 4 KB per posting on disk, resident memory <= 1.5 GB and
start-up <= 15 s per 1M indexed postings (measured at 100k and 200k, extrapolated), p99 per
posting at 200k indexed <= 1.5x its value at 10k.

Postings are generated from real NHS ads by `bench.growth.generated` (800 a day, every
seventh a re-post). The index is filled through the real pipeline (`Deduplicator.dedup_stream`:
boilerplate statistics, candidates, clusters, groups of 256 per commit) but with the overlap
scorer (`JOBDEDUP_SCORER=overlap`), which needs no field extraction: at the 44-54 postings/s
the classifier's probes ran from 50k on, filling 200k postings with it would take about an
hour on two cores, against 12 minutes with the overlap scorer (713 s in the README run).
The measurements themselves use the shipped classifier.

At each checkpoint the filled directory is copied, and a fresh process (spawned, as a user's
restart) opens the copy: start-up is the imports, building the store and the scorer, and
deciding the first generated posting (its candidate search loads the in-memory key index for
its time window), with the resident memory then; it then decides the next --probe generated
postings through the same path (`ingest`'s,
preparation in --workers processes), their per-posting stage times giving p50 and p99, and
reports its peak resident memory. Never run as a test.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.growth import generated  # noqa: E402
from bench.memory import resident_mb  # noqa: E402


@dataclass
class Probe:
    """What one fresh process measured on a copy of the index."""

    indexed: int
    bytes_per_posting: float
    startup_s: float
    rss_after_startup_mb: float
    rate: float
    p50_ms: float
    p99_ms: float
    candidates: float
    peak_rss_mb: float


def _fill(data_dir: str, rows: list[dict[str, Any]], workers: int) -> None:
    """Append `rows` to the index through the pipeline, with the overlap scorer."""
    from service.factory import build_deduplicator
    from service.schemas import Posting
    from service.settings import Settings

    dedup = build_deduplicator(Settings(data_dir=Path(data_dir), scorer="overlap"))
    pool = ProcessPoolExecutor(workers, mp_context=get_context("spawn")) if workers else None
    try:
        postings = [Posting.model_validate(row).core() for row in rows]
        for _ in dedup.dedup_stream(postings, executor=pool):
            pass
    finally:
        if pool is not None:
            pool.shutdown()
        dedup.store.close()


def _count(data_dir: str) -> int:
    """Postings an index kept by an earlier run (--keep) holds."""
    from service.factory import build_store
    from service.settings import Settings

    store = build_store(Settings(data_dir=Path(data_dir)))
    try:
        return store.stats().postings
    finally:
        store.close()


def _probe(data_dir: str, indexed: int, rows: list[dict[str, Any]], workers: int) -> Probe:
    """Start-up, memory and latency of a fresh process on the index in `data_dir`. Start-up
    counts the imports too (this module imports none of the service's at its top)."""
    started = time.perf_counter()
    from service.factory import build_deduplicator
    from service.heap import settle_heap
    from service.schemas import Posting
    from service.settings import Settings

    dedup = build_deduplicator(Settings(data_dir=Path(data_dir)))
    postings = [Posting.model_validate(row).core() for row in rows]
    (first,) = list(dedup.dedup_stream(postings[:1]))
    settle_heap()
    startup = time.perf_counter() - started
    rss_started = resident_mb()[0]
    stats = dedup.store.stats()
    postings = postings[1:]
    pool = ProcessPoolExecutor(workers, mp_context=get_context("spawn")) if workers else None
    latencies = [sum(first.timings.values())]
    candidates = len(first.candidates)
    try:
        began = time.perf_counter()
        for decision in dedup.dedup_stream(postings, executor=pool):
            latencies.append(sum(decision.timings.values()))
            candidates += len(decision.candidates)
        elapsed = time.perf_counter() - began
    finally:
        if pool is not None:
            pool.shutdown()
        dedup.store.close()
    ms = np.array(latencies) * 1000.0
    return Probe(
        indexed=indexed,
        bytes_per_posting=stats.bytes / max(stats.postings, 1),
        startup_s=startup,
        rss_after_startup_mb=rss_started,
        rate=len(postings) / elapsed,
        p50_ms=float(np.percentile(ms, 50)),
        p99_ms=float(np.percentile(ms, 99)),
        candidates=candidates / len(rows),
        peak_rss_mb=resident_mb()[1],
    )


def _in_fresh_process(function: Any, *args: Any) -> Any:
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as one:
        return one.submit(function, *args).result()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--checkpoints", default="10000,100000,200000")
    parser.add_argument("--probe", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--keep",
        metavar="DIR",
        help="fill the index in DIR and keep it; a later run with the same DIR and"
        " checkpoints continues from the postings it already holds (they are the same"
        " generated postings, in order)",
    )
    args = parser.parse_args()
    checkpoints = sorted(int(c) for c in args.checkpoints.split(","))
    rows = list(generated(checkpoints[-1] + args.probe))
    probes: list[Probe] = []
    print(
        "| indexed | bytes/posting | start-up (s) | RSS after start-up (MB) | postings/s"
        " | p50 (ms) | p99 (ms) | candidates/posting | peak RSS (MB) | fill (s) |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory(prefix="jobdedup-scale-") as tmp:
        filled_dir, probe_dir = Path(tmp) / "index", Path(tmp) / "probe"
        if args.keep:
            filled_dir = Path(args.keep)
        filled = _in_fresh_process(_count, str(filled_dir)) if filled_dir.exists() else 0
        for checkpoint in checkpoints:
            began = time.perf_counter()
            if filled > checkpoint:
                sys.exit(f"{filled_dir} holds {filled} postings, past checkpoint {checkpoint}")
            for start in range(filled, checkpoint, 50_000):  # a process per 50k: bounded RSS
                end = min(start + 50_000, checkpoint)
                _in_fresh_process(_fill, str(filled_dir), rows[start:end], args.workers)
            fill_s = time.perf_counter() - began
            filled = checkpoint
            shutil.rmtree(probe_dir, ignore_errors=True)
            shutil.copytree(filled_dir, probe_dir)
            probe = rows[checkpoint : checkpoint + args.probe]
            result: Probe = _in_fresh_process(
                _probe, str(probe_dir), checkpoint, probe, args.workers
            )
            probes.append(result)
            print(
                f"| {result.indexed} | {result.bytes_per_posting:.0f} | {result.startup_s:.2f}"
                f" | {result.rss_after_startup_mb:.0f} | {result.rate:.0f}"
                f" | {result.p50_ms:.2f} | {result.p99_ms:.2f} | {result.candidates:.2f}"
                f" | {result.peak_rss_mb:.0f} | {fill_s:.0f} |",
                flush=True,
            )
    _extrapolate(probes)


def _extrapolate(probes: list[Probe]) -> None:
    """Per 1M postings from the slope between the first and the last checkpoint, and the
    p99 ratio against the first."""
    first, last = probes[0], probes[-1]
    span = (last.indexed - first.indexed) / 1_000_000
    if span <= 0:
        return
    memory = (last.rss_after_startup_mb - first.rss_after_startup_mb) / span
    peak = (last.peak_rss_mb - first.peak_rss_mb) / span
    startup = (last.startup_s - first.startup_s) / span
    print(
        f"\nper 1M indexed postings (slope {first.indexed} -> {last.indexed}):"
        f" resident memory after start-up +{memory:.0f} MB, peak while deciding +{peak:.0f} MB"
        f" (goal <= 1,536 MB); start-up +{startup:.1f} s (goal <= 15 s)."
        f"\nAt {last.indexed}: resident {last.rss_after_startup_mb:.0f} MB after start-up,"
        f" peak {last.peak_rss_mb:.0f} MB, start-up {last.startup_s:.1f} s; p99"
        f" {last.p99_ms / first.p99_ms:.2f}x its value at {first.indexed} (goal <= 1.5x)."
    )


if __name__ == "__main__":
    main()
