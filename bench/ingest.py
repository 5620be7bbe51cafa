"""Ingest benchmark: the NHS corpus through the real pipeline, beside an in-memory peer.

    python bench/ingest.py [--limit N]      (or: make bench)

Ours: every posting validated, cleaned, sketched, candidate-searched, scored, clustered and
committed to the embedded SQLite index, along `jobdedup ingest`'s path (groups of 256 per
commit, cleaning and sketching in --workers processes, default 1 as in the CLI; 0 runs them
in the deciding process). Per-posting latency on that path is
the sum of the stage timings; the `/dedup` path (one commit per posting) is timed separately
on the first --api-limit postings.
Peer: datasketch as its documentation says to use it (shared permutations through
`MinHash.generator`, xxhash as `hashfunc`, `MinHashLSH(threshold=0.5, num_perm=128)` query
then insert, hits verified by estimated Jaccard >= 0.5); it neither persists nor scores nor
clusters. First table: both as whole processes over the same JSONL file (start-up included),
alternated --rounds times: the issue's goal is ours >= 1.0x the peer. With --baseline-root
DIR (another checkout of jobdedup, e.g. `git worktree add /tmp/before f30da65`, run with
this interpreter, its compiled kernels built or copied), that code's `jobdedup ingest` of
the same file joins each round, so "no slower than before" is read in the same run, on the
same machine state, with means and medians over the rounds. Then the in-process stage table
(each side in its own process so peak RSS is its own). Never run as a test.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

_WORDS = re.compile(r"\w+")

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _summary(latencies: list[float], elapsed: float, extra: dict[str, Any]) -> dict[str, Any]:
    arr = np.array(latencies) * 1000.0
    return {
        "postings": len(latencies),
        "rate": len(latencies) / elapsed,
        "p50_ms": float(np.percentile(arr, 50)),
        "p99_ms": float(np.percentile(arr, 99)),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        **extra,
    }


def run_ours(limit: int | None, workers: int, boilerplate: bool = True) -> dict[str, Any]:
    """`jobdedup ingest`'s path on a fresh embedded index: the Deduplicator's stream (groups
    of 256 decisions per commit; cleaning and sketching in `workers` processes, if any).
    Per-posting latency is the sum of the pipeline's stage timings of each posting."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from bench.nhs import nhs_postings
    from service.factory import build_deduplicator
    from service.heap import settle_heap
    from service.preparation import start_worker
    from service.schemas import Posting
    from service.settings import Settings

    rows = nhs_postings(limit=limit)
    with tempfile.TemporaryDirectory(prefix="jobdedup-bench-") as tmp:
        dedup = build_deduplicator(Settings(data_dir=Path(tmp), boilerplate=boilerplate))
        settle_heap()  # as `jobdedup ingest` does
        latencies: list[float] = []
        stages: dict[str, float] = {}
        duplicates = candidates = 0
        pool = (
            ProcessPoolExecutor(
                workers,
                mp_context=get_context("spawn"),
                initializer=start_worker,
                initargs=(os.getpid(),),
            )
            if workers > 0
            else None
        )
        started = time.perf_counter()
        postings = (Posting.model_validate(row).core() for row in rows)
        for decision in dedup.dedup_stream(postings, executor=pool):
            latencies.append(sum(decision.timings.values()))
            for stage, seconds in decision.timings.items():
                stages[stage] = stages.get(stage, 0.0) + seconds
            duplicates += decision.status == "duplicate"
            candidates += len(decision.candidates)
        elapsed = time.perf_counter() - started
        if pool is not None:
            pool.shutdown()
        stats = dedup.store.stats()
        dedup.store.close()  # the last connection checkpoints the WAL into the main file
        on_disk = sum(f.stat().st_size for f in Path(tmp).glob("index.sqlite3*"))
    return _summary(
        latencies,
        elapsed,
        {
            "bytes_per_posting": on_disk / max(1, stats.postings),
            "duplicates": duplicates,
            "clusters": stats.clusters,
            "candidates_per_posting": candidates / max(1, len(rows)),
            "stage_ms": {k: 1000.0 * v / max(1, len(rows)) for k, v in stages.items()},
        },
    )


def run_api_path(limit: int | None, boilerplate: bool = True) -> dict[str, Any]:
    """`/dedup`'s path without HTTP: one `Deduplicator.dedup` per posting, each committed
    (fsync) before the next, timed end to end."""
    from bench.nhs import nhs_postings
    from service.factory import build_deduplicator
    from service.heap import settle_heap
    from service.schemas import Posting
    from service.settings import Settings

    rows = nhs_postings(limit=limit)
    with tempfile.TemporaryDirectory(prefix="jobdedup-bench-") as tmp:
        dedup = build_deduplicator(Settings(data_dir=Path(tmp), boilerplate=boilerplate))
        settle_heap()  # as `jobdedup serve` does
        latencies: list[float] = []
        started = time.perf_counter()
        for row in rows:
            t0 = time.perf_counter()
            dedup.dedup(Posting.model_validate(row).core())
            latencies.append(time.perf_counter() - t0)
        elapsed = time.perf_counter() - started
        dedup.store.close()
    return _summary(latencies, elapsed, {})


def peer_shingles(description: str) -> list[bytes]:
    """What a datasketch user writes: lower-cased word tokens, 5-word shingles as bytes."""
    tokens = _WORDS.findall(description.lower())
    n = 5
    return [" ".join(tokens[i : i + n]).encode("utf-8") for i in range(max(1, len(tokens) - n + 1))]


def run_peer(limit: int | None, source: Path | None = None) -> dict[str, Any]:
    """datasketch as its documentation says to use it for a stream: one permutation table
    shared by every MinHash (`MinHash.generator`, which reuses the initialised state), a fast
    hash (`hashfunc` on xxhash's 32-bit digest, the default scheme's width), then per posting
    `MinHashLSH(threshold=0.5, num_perm=128).query` followed by `insert`, each hit verified by
    estimated Jaccard >= 0.5. In memory: it neither persists nor scores nor clusters.

    With `source` (a JSONL file) the whole process is timed as for `jobdedup ingest FILE`:
    reading and parsing the file included."""
    import xxhash
    from datasketch import MinHash, MinHashLSH

    def hash32(data: bytes) -> int:
        return xxhash.xxh32_intdigest(data)

    started = time.perf_counter()
    if source is None:
        from bench.nhs import nhs_postings

        rows = nhs_postings(limit=limit)
    else:
        with source.open(encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle]
    lsh = MinHashLSH(threshold=0.5, num_perm=128)
    sketches: dict[str, Any] = {}
    latencies: list[float] = []
    duplicates = candidates = 0
    if source is None:
        started = time.perf_counter()
    shingled = (peer_shingles(row["description"]) for row in rows)
    for row, sketch in zip(
        rows, MinHash.generator(shingled, num_perm=128, hashfunc=hash32), strict=True
    ):
        t0 = time.perf_counter()
        found = [k for k in lsh.query(sketch) if sketch.jaccard(sketches[k]) >= 0.5]
        lsh.insert(row["id"], sketch, check_duplication=False)
        sketches[row["id"]] = sketch
        latencies.append(time.perf_counter() - t0)
        duplicates += bool(found)
        candidates += len(found)
    elapsed = time.perf_counter() - started
    return _summary(
        latencies,
        elapsed,
        {
            "bytes_per_posting": float("nan"),
            "duplicates": duplicates,
            "clusters": float("nan"),
            "candidates_per_posting": candidates / max(1, len(rows)),
        },
    )


Round = tuple[float, float, float, int, float, float]
"""One alternation: ours s, peer s, baseline s (NaN without one), postings, ours CPU s,
baseline CPU s (NaN without one)."""


def whole_processes(limit: int | None, rounds: int, baseline: Path | None = None) -> list[Round]:
    """`jobdedup ingest FILE` (fresh data dir, default workers) and the peer reading the same
    FILE, each a whole process from its start (imports, model and gazetteer load, reading
    the file) to its exit, alternated `rounds` times; with `baseline`, that checkout's
    `jobdedup ingest` of FILE too, in each round, before ours in every other one. Returns
    a `Round` each: wall seconds, and the CPU seconds each `jobdedup ingest` used."""
    from bench.nhs import nhs_postings

    rows = nhs_postings(limit=limit)
    results: list[Round] = []
    with tempfile.TemporaryDirectory(prefix="jobdedup-bench-") as tmp:
        source = Path(tmp) / "postings.jsonl"
        with source.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        for n in range(rounds):
            before = (float("nan"), float("nan"))
            # The baseline goes first in every other round: neither code always runs
            # straight after the other.
            if baseline is not None and n % 2:
                before = _ingest_seconds(baseline, source, Path(tmp) / f"before-{n}")
            ours = _ingest_seconds(ROOT, source, Path(tmp) / f"index-{n}")
            if baseline is not None and not n % 2:
                before = _ingest_seconds(baseline, source, Path(tmp) / f"before-{n}")
            peer_cmd = [sys.executable, __file__, "--side", "peer-file", "--source", str(source)]
            started = time.perf_counter()
            subprocess.run(peer_cmd, check=True, capture_output=True, cwd=ROOT)
            peer_s = time.perf_counter() - started
            results.append((ours[0], peer_s, before[0], len(rows), ours[1], before[1]))
    return results


def _ingest_seconds(root: Path, source: Path, data: Path) -> tuple[float, float]:
    """Wall and CPU (user + system, of the process and its workers) seconds of `python -m
    service.cli ingest SOURCE` of the checkout at `root` (first on the module path, run from
    there) into the fresh directory `data`. The CPU seconds are read beside the wall time
    because this machine's speed moves from minute to minute (one baseline's rounds took
    41.6-70.4 s in one run): CPU time is what the code costs, wall time what a user waits."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = [sys.executable, "-m", "service.cli", "ingest", "--no-progress"]
    cmd += ["--data-dir", str(data), str(source)]
    env = {**os.environ, "PYTHONPATH": str(root)}
    started = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, cwd=root, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - used.ru_utime) + (after.ru_stime - used.ru_stime)
    return wall, cpu


def _before_summary(rounds: list[Round]) -> str:
    """Means and medians of this checkout's and the baseline's whole-process seconds, and
    the means of the CPU seconds they used."""
    ours = [r[0] for r in rounds]
    before = [r[2] for r in rounds]
    mean_ratio = float(np.mean(before)) / float(np.mean(ours))
    ours_cpu, before_cpu = (
        float(np.mean([r[4] for r in rounds])),
        float(np.mean([r[5] for r in rounds])),
    )
    return (
        f"against the baseline: this checkout mean {np.mean(ours):.1f} s, median "
        f"{np.median(ours):.1f} s; baseline mean {np.mean(before):.1f} s, median "
        f"{np.median(before):.1f} s; rate ratio (this / baseline, means) {mean_ratio:.2f}x\n"
        f"CPU seconds (user + system, means): this checkout {ours_cpu:.1f}, baseline "
        f"{before_cpu:.1f}; ratio (baseline / this) {before_cpu / ours_cpu:.2f}x"
    )


def _child(
    side: str, limit: int | None, workers: int = 1, boilerplate: bool = True
) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--side", side, "--workers", str(workers)]
    if limit:
        cmd += ["--limit", str(limit)]
    if not boilerplate:
        cmd.append("--no-boilerplate")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def _table(ours: dict[str, Any], peer: dict[str, Any]) -> str:
    rows = [
        ("postings", "postings", "{:.0f}"),
        ("postings/s", "rate", "{:.0f}"),
        ("p50 per posting (ms)", "p50_ms", "{:.3f}"),
        ("p99 per posting (ms)", "p99_ms", "{:.3f}"),
        ("index bytes/posting", "bytes_per_posting", "{:.0f}"),
        ("peak RSS (MB)", "peak_rss_mb", "{:.0f}"),
        ("flagged duplicates", "duplicates", "{:.0f}"),
        ("candidates/posting", "candidates_per_posting", "{:.2f}"),
        ("clusters", "clusters", "{:.0f}"),
    ]
    lines = [
        "| metric | jobdedup (SQLite, persisted, scored) | datasketch MinHashLSH (memory)"
        " | ratio |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, key, fmt in rows:
        a, b = ours[key], peer[key]
        ratio = a / b if isinstance(b, float | int) and b == b and b else float("nan")
        ratio_text = "" if ratio != ratio else f"{ratio:.2f}x"
        b_text = "n/a" if b != b else fmt.format(b)
        lines.append(f"| {label} | {fmt.format(a)} | {b_text} | {ratio_text} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, help="only the first N postings (date order)")
    parser.add_argument(
        "--workers", type=int, default=1, help="preparation processes (ours; 0: in-process)"
    )
    parser.add_argument("--api-limit", type=int, default=2000, help="postings for the API path")
    parser.add_argument(
        "--no-boilerplate",
        action="store_true",
        help="ours without corpus-learned boilerplate (JOBDEDUP_BOILERPLATE=false), to compare",
    )
    parser.add_argument(
        "--rounds", type=int, default=2, help="alternations of the whole-process comparison"
    )
    parser.add_argument(
        "--side", choices=["ours", "peer", "peer-file", "api"], help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--baseline-root",
        type=Path,
        help="another jobdedup checkout whose `ingest` joins each whole-process round",
    )
    parser.add_argument("--source", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.baseline_root is not None and not (args.baseline_root / "service" / "cli.py").exists():
        parser.error(f"--baseline-root {args.baseline_root}: no service/cli.py there")
    learn = not args.no_boilerplate
    if args.side:
        runs = {
            "ours": lambda: run_ours(args.limit, args.workers, learn),
            "peer": lambda: run_peer(args.limit),
            "peer-file": lambda: run_peer(None, args.source),
            "api": lambda: run_api_path(args.limit, learn),
        }
        print(json.dumps(runs[args.side]()))
        return
    baseline = args.baseline_root
    print("Whole processes (`jobdedup ingest FILE` against the datasketch peer reading FILE):")
    extra = f" baseline {baseline} (s) | this / baseline |" if baseline else ""
    extra += " this CPU (s) | baseline CPU (s) |" if baseline else ""
    print(
        "| round | jobdedup ingest (s) | peer (s) | jobdedup postings/s | peer postings/s"
        f" | ratio |{extra}"
    )
    print(
        "| --- | ---: | ---: | ---: | ---: | ---: |"
        + (" ---: | ---: | ---: | ---: |" if baseline else "")
    )
    rounds = whole_processes(args.limit, args.rounds, baseline)
    for n, (ours_s, peer_s, before_s, count, ours_cpu, before_cpu) in enumerate(rounds, 1):
        against = f" {before_s:.1f} | {before_s / ours_s:.2f}x |" if baseline else ""
        against += f" {ours_cpu:.1f} | {before_cpu:.1f} |" if baseline else ""
        print(
            f"| {n} | {ours_s:.1f} | {peer_s:.1f} | {count / ours_s:.0f} | {count / peer_s:.0f}"
            f" | {peer_s / ours_s:.2f}x |{against}"
        )
    if baseline:
        print(_before_summary(rounds))
    print()
    ours = _child("ours", args.limit, args.workers, learn)
    peer = _child("peer", args.limit)
    print(_table(ours, peer))
    print(f"\nthroughput ratio (ours / peer): {ours['rate'] / peer['rate']:.2f}x")
    stages = ", ".join(f"{k} {v:.3f}" for k, v in ours["stage_ms"].items())
    print(f"ours, mean stage time per posting (ms): {stages}")
    api = _child("api", args.api_limit, boilerplate=learn)
    print(
        f"\n/dedup path (one commit per posting, first {api['postings']} postings): "
        f"{api['rate']:.0f} postings/s, p50 {api['p50_ms']:.2f} ms, p99 {api['p99_ms']:.2f} ms"
    )


if __name__ == "__main__":
    main()
