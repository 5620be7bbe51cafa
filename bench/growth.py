"""How ingest speed holds up as the embedded index grows.

    python bench/growth.py [--chunks 5] [--chunk-size 10000] [--workers 1]

Postings are generated from real NHS ads (../shared/data, never copied here): posting k takes
the title, employer and location of one ad and 8-30 sentences drawn at random from all the
corpus's sentences, 800 postings a day; every seventh is a re-post of an earlier generated
posting a few days later with its last sentence dropped. So the rate of near-duplicates
stays that of a crawl however large the index grows (an earlier version that joined halves
of two ads reused each ad's halves more and more often, and its candidates per posting grew
from 1 to 4 by 20k postings: it measured its own data, not the index). They go through
`jobdedup ingest`'s path (the Deduplicator's stream, groups of 256 per commit, `--workers`
preparation processes) into one fresh index, chunk after chunk; each chunk's row gives the
index size before it, its postings/s, the p50 and p99 of the per-posting stage times,
candidates per posting and the process's peak RSS; then the store is re-opened and its key
index built, timed. Goal (issue 11): p99 at 200k indexed <= 1.5x its value at 10k. Never run as a
test.
"""

from __future__ import annotations

import argparse
import random
import re
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
PER_DAY = 800
REPOST_EVERY = 7


def generated(count: int, seed: int = 11) -> Iterator[dict[str, Any]]:
    """`count` postings assembled from NHS ads (see the module docstring)."""
    from bench.nhs import nhs_postings

    ads = nhs_postings()
    pool = [s for ad in ads for s in _SENTENCE.split(ad["description"]) if s.strip()]
    rng = random.Random(seed)
    start = datetime(2021, 1, 4, tzinfo=UTC)
    made: list[dict[str, Any]] = []
    for k in range(count):
        posted = start + timedelta(days=k / PER_DAY)
        if k % REPOST_EVERY == REPOST_EVERY - 1 and made:
            earlier = made[rng.randrange(max(0, len(made) - 4 * PER_DAY), len(made))]
            sentences = earlier["description"].split("\n")
            posting = {
                **earlier,
                "id": f"g{k}",
                "description": "\n".join(sentences[:-1] or sentences),
                "posted_at": posted.isoformat(),
            }
        else:
            ad = ads[rng.randrange(len(ads))]
            body = [pool[rng.randrange(len(pool))] for _ in range(rng.randint(8, 30))]
            posting = {key: ad[key] for key in ("title", "company", "location") if key in ad}
            posting.update(
                id=f"g{k}",
                description="\n".join(body),
                posted_at=posted.isoformat(),
                source="generated",
            )
        made.append(posting)
        if len(made) > 8 * PER_DAY:
            del made[:PER_DAY]
        yield posting


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=5)
    parser.add_argument("--chunk-size", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()

    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from service.factory import build_deduplicator
    from service.schemas import Posting
    from service.settings import Settings

    stream = generated(args.chunks * args.chunk_size)
    print("| indexed before | postings/s | p50 ms | p99 ms | candidates/posting | peak RSS MB |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory(prefix="jobdedup-growth-") as tmp:
        dedup = build_deduplicator(Settings(data_dir=Path(tmp)))
        pool = (
            ProcessPoolExecutor(args.workers, mp_context=get_context("spawn"))
            if args.workers > 0
            else None
        )
        for chunk in range(args.chunks):
            rows = [next(stream) for _ in range(args.chunk_size)]
            postings = [Posting.model_validate(row).core() for row in rows]
            latencies: list[float] = []
            candidates = 0
            started = time.perf_counter()
            for decision in dedup.dedup_stream(postings, executor=pool):
                latencies.append(sum(decision.timings.values()))
                candidates += len(decision.candidates)
            elapsed = time.perf_counter() - started
            ms = np.array(latencies) * 1000.0
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
            print(
                f"| {chunk * args.chunk_size} | {len(rows) / elapsed:.0f}"
                f" | {np.percentile(ms, 50):.2f} | {np.percentile(ms, 99):.2f}"
                f" | {candidates / len(rows):.2f} | {rss:.0f} |",
                flush=True,
            )
        if pool is not None:
            pool.shutdown()
        stats = dedup.store.stats()
        dedup.store.close()
        print(f"\n{stats.postings} postings, {stats.bytes / stats.postings:.0f} bytes each on disk")
        _reopen(Settings(data_dir=Path(tmp)))


def _reopen(settings: Any) -> None:
    """Start-up on the index just written: open the store and build its in-memory key index
    (the first candidate search does), timed, with the resident memory that adds."""
    from bench.memory import resident_mb
    from indexer.store import CandidateQuery
    from service.factory import build_store

    before = resident_mb()[0]
    started = time.perf_counter()
    store = build_store(settings)
    store.find_candidates(CandidateQuery([0], "", None, None, None, 1))
    elapsed = time.perf_counter() - started
    print(
        f"store re-opened and its key index built: {elapsed:.2f} s,"
        f" resident memory +{resident_mb()[0] - before:.0f} MB"
    )
    store.close()


if __name__ == "__main__":
    main()
