"""Statistics benchmark: `IndexStore.duplicate_stats` (what `GET /stats` calls) on big indices.

    python bench/stats.py --sizes 100000,1000000                       # embedded index
    python bench/stats.py --sizes 100000 --url http://127.0.0.1:9200   # and the engine

An index of N postings is written directly through the store's `batch`/`apply` (the
classifier pipeline is not run: deciding 1M postings would take hours, and the statistics
only read what a decision stores). The postings are generated from the real NHS Jobs 2020
ads (../shared/data): each vacancy takes the title, employer, location and the first 600
characters of the text of one ad (ads are reused round-robin, as an employer posts many
vacancies), is first posted on a day spread over 6 months (2024-01-01 .. 2024-06-30), and
about half of the vacancies are posted again 1-4 more times (clusters of 2-5) on other
boards or the same board within 0-45 days; duplicates carry a stored type (full, semantic,
partial, temporal after 30 days, or none). Sketches are random (128 values, unread by the
statistics) and no band keys are written. Each query is timed 3 times after the build;
the table gives the first and the median time. Engine indices are deleted afterwards.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.nhs import nhs_postings  # noqa: E402
from indexer.minhash import SketchParams  # noqa: E402
from indexer.store import IndexStore, StatsQuery, StoredPosting, WriteSet  # noqa: E402
from indexer.stores.elastic.client import EngineClient  # noqa: E402
from indexer.stores.elastic.store import ElasticStore  # noqa: E402
from indexer.stores.elastic.transports import connect_opensearch  # noqa: E402
from indexer.stores.sqlite.store import open_sqlite_store  # noqa: E402
from indexer.text import keys_block, normalise_company, normalise_title  # noqa: E402

SOURCES = [  # a UK job-board landscape, most postings on the first few
    ("nhs-jobs", 30),
    ("indeed", 20),
    ("linkedin", 12),
    ("reed", 8),
    ("totaljobs", 7),
    ("cv-library", 5),
    ("adzuna", 4),
    ("jooble", 3),
    ("glassdoor", 3),
    ("monster", 2),
    ("guardian-jobs", 2),
    ("jobsite", 1),
    ("cwjobs", 1),
    ("simplyhired", 1),
    ("caterer", 1),
]
START = datetime(2024, 1, 1, tzinfo=UTC)
SPAN_DAYS = 182
WRITE_GROUP = 500  # postings per WriteSet
BATCH_POSTINGS = 20_000  # postings per store batch (one commit / one bulk)


def generate(n: int, seed: int = 7) -> Iterator[list[StoredPosting]]:
    """Clusters of postings (lists, the canonical first) until n postings are made."""
    rng = np.random.default_rng(seed)
    ads = nhs_postings()
    names = [name for name, _ in SOURCES]
    weights = np.array([w for _, w in SOURCES], dtype=float)
    weights /= weights.sum()
    params = SketchParams()
    made = vacancy = 0
    while made < n:
        ad = ads[vacancy % len(ads)]
        size = 1 if rng.random() < 0.5 else int(rng.integers(2, 6))
        size = min(size, n - made)
        first = START + timedelta(seconds=float(rng.uniform(0, SPAN_DAYS * 86_400)))
        sketch = rng.integers(-(2**63), 2**63 - 1, size=params.num_perm, dtype=np.int64)
        cluster = f"v{vacancy}"
        members = []
        for k in range(size):
            posted = first + (timedelta(0) if k == 0 else timedelta(days=float(rng.uniform(0, 45))))
            source = str(rng.choice(names, p=weights))
            kind = None if k == 0 else _kind(rng, posted - first)
            pid = f"{source}-{vacancy}-{k}"
            members.append(_posting(ad, pid, cluster, posted, source, sketch, kind))
        made += size
        vacancy += 1
        yield members


def _kind(rng: np.random.Generator, gap: timedelta) -> str | None:
    if gap > timedelta(days=30):
        return "temporal"
    return str(rng.choice(["full", "semantic", "partial", ""], p=[0.55, 0.3, 0.1, 0.05])) or None


def _posting(
    ad: dict[str, Any],
    pid: str,
    cluster: str,
    posted: datetime,
    source: str,
    sketch: Any,
    kind: str | None,
) -> StoredPosting:
    company = ad.get("company")
    company_key, title_key = normalise_company(company), normalise_title(ad["title"])
    document = {**ad, "id": pid, "source": source, "posted_at": posted.isoformat()}
    document["description"] = ad["description"][:600]
    return StoredPosting(
        id=pid,
        content_hash=f"h{pid}",
        posted_at=posted,
        title=ad["title"],
        company=company,
        source=source,
        company_key=company_key,
        block_key=keys_block(company_key, title_key),
        sketch=sketch,
        shingle_count=300,
        cluster_id=cluster,
        document=document,
        decision={"id": pid, "cluster_id": cluster, "duplicate_type": kind},
    )


def build(store: IndexStore, n: int) -> float:
    """Write n generated postings; returns the seconds it took."""
    started = time.perf_counter()
    pending: list[tuple[StoredPosting, list[int]]] = []
    in_batch = 0
    batch = store.batch()
    batch.__enter__()
    for members in generate(n):
        pending += [(p, []) for p in members]
        if len(pending) >= WRITE_GROUP:
            store.apply(WriteSet(upserts=pending))
            in_batch += len(pending)
            pending = []
        if in_batch >= BATCH_POSTINGS:
            batch.__exit__(None, None, None)
            batch = store.batch()
            batch.__enter__()
            in_batch = 0
    if pending:
        store.apply(WriteSet(upserts=pending))
    batch.__exit__(None, None, None)
    return time.perf_counter() - started


def timed(
    call: Callable[[], Any], before: Callable[[], None], repeat: int = 3
) -> tuple[float, float, Any]:
    """(first, median) seconds of `repeat` calls, `before` run untimed before each, and the
    last result."""
    times, result = [], None
    for _ in range(repeat):
        before()
        started = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - started)
    return times[0], statistics.median(times), result


def run(
    store: IndexStore,
    n: int,
    backend: str,
    rows: list[str],
    before: Callable[[], None] = lambda: None,
    prebuilt: bool = False,
) -> None:
    if not prebuilt:
        built = build(store, n)
        print(f"{backend} N={n}: built in {built:.0f} s", file=sys.stderr)
    for by in ("source", None):
        query = StatsQuery(interval="week", by=by)
        first, median, result = timed(partial(store.duplicate_stats, query), before)
        postings = sum(b.postings for b in result.buckets)
        assert postings == n, (postings, n)
        rows.append(
            f"| {n:,} | {backend} | week | {by or '-'} | {len(result.buckets)} "
            f"| {first:.2f} | {median:.2f} |"
        )
        print(rows[-1], file=sys.stderr)


def _cache_clearer(client: EngineClient, prefix: str) -> Callable[[], None]:
    """The shard request cache answers a repeated aggregation from memory until the next
    refresh; a live index refreshes at every write, so each timed call starts without it."""

    def clear() -> None:
        client.call("POST", f"/{prefix}-*/_cache/clear", {"request": "true"}, what="clear")

    return clear


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--engine-sizes", default="100000")
    parser.add_argument("--url", help="an OpenSearch node: also time the engine adapter")
    parser.add_argument("--dir", type=Path, help="where the embedded indices go (default tmp)")
    parser.add_argument(
        "--engine-prefix",
        help="time this existing engine index (built by an earlier run with --keep) instead",
    )
    parser.add_argument("--keep", action="store_true", help="keep the engine indices")
    args = parser.parse_args()
    rows = [
        "| postings | backend | interval | by | buckets | first s | median s |",
        "|---:|---|---|---|---:|---:|---:|",
    ]
    params = SketchParams()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for n in (int(s) for s in args.sizes.split(",") if s):
            store = open_sqlite_store(Path(tmp) / f"n{n}", params)
            try:
                run(store, n, "sqlite", rows)
            finally:
                store.close()
    if args.url:
        for n in (int(s) for s in args.engine_sizes.split(",") if s):
            client = EngineClient(connect_opensearch(args.url, 120.0))
            prefix = args.engine_prefix or f"bench-stats-{n}-{uuid.uuid4().hex[:8]}"
            engine = ElasticStore(client, params, prefix)
            clear = _cache_clearer(client, prefix)
            try:
                run(engine, n, "opensearch", rows, clear, prebuilt=bool(args.engine_prefix))
            finally:
                if not (args.keep or args.engine_prefix):
                    client.call("DELETE", f"/{engine.names.pattern}", what="drop indices")
                    for alias in (engine.names.postings, engine.names.clusters):
                        client.call("DELETE", f"/_index_template/{alias}", what="drop template")
                engine.close()
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
