"""The `jobdedup` command: serve | ingest | export | stats | expire | evaluate | train.

Every command reads the same `Settings` (the `JOBDEDUP_*` variables), with flags overriding
them, so `ingest` then `export` or `serve` work on the same index.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing import get_context
from pathlib import Path
from typing import IO, Any, BinaryIO, cast

from pydantic import ValidationError
from tqdm import tqdm

from classifier.evaluation import format_report, report, score_pairs
from classifier.model import ClassifierError
from indexer.posting import JobPosting
from indexer.store import StatsQuery, StoreError
from service.factory import ConfigurationError, build_deduplicator, build_scorer
from service.heap import settle_heap
from service.preparation import start_worker
from service.retention import cutoff, parse_moment
from service.schemas import Posting
from service.settings import Settings
from service.stats_tables import write_buckets_csv, write_json, write_overlap_csv
from service.validation import validation_details

logger = logging.getLogger(__name__)

_OVERRIDES = {
    "data_dir": "JOBDEDUP_DATA_DIR",
    "backend": "JOBDEDUP_BACKEND",
    "search_url": "JOBDEDUP_SEARCH_URL",
    "window_days": "JOBDEDUP_WINDOW_DAYS",
    "threshold": "JOBDEDUP_THRESHOLD",
}


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", type=Path, help="index directory (JOBDEDUP_DATA_DIR)")
    parser.add_argument("--backend", help="sqlite (JOBDEDUP_BACKEND)")
    parser.add_argument("--search-url", help="search engine URL (JOBDEDUP_SEARCH_URL)")
    parser.add_argument("--window-days", type=int, help="candidate window (JOBDEDUP_WINDOW_DAYS)")
    parser.add_argument("--threshold", type=float, help="duplicate threshold (JOBDEDUP_THRESHOLD)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and --help)."""
    parser = argparse.ArgumentParser(prog="jobdedup", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the HTTP service")
    _add_common(serve)
    serve.add_argument("--host", help="bind address (JOBDEDUP_HOST, default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (JOBDEDUP_PORT, default 8000)")

    ingest = sub.add_parser("ingest", help="deduplicate postings from a JSONL file")
    _add_common(ingest)
    ingest.add_argument("file", type=Path, help="postings, one JSON object per line (.gz ok)")
    ingest.add_argument("--out", type=Path, help="write one decision per valid posting here")
    ingest.add_argument("--dry-run", action="store_true", help="decide without writing")
    ingest.add_argument("--no-progress", action="store_true", help="no progress bar")
    ingest.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes that clean and sketch ahead of the decisions (default 1; 0: all in"
        " this process)",
    )

    expire = sub.add_parser("expire", help="delete postings posted before a date (retention)")
    _add_common(expire)
    expire.add_argument(
        "--before",
        type=parse_moment,
        help="ISO date or datetime (a date is its midnight UTC); default: now minus"
        " JOBDEDUP_RETENTION_DAYS",
    )

    export = sub.add_parser("export", help="write {id, cluster_id, duplicate_of} per posting")
    _add_common(export)
    export.add_argument("--out", type=Path, help="output file (default: stdout)")
    stats = sub.add_parser("stats", help="duplicate statistics per period and board (CSV/JSON)")
    _add_common(stats)
    for side, meaning in (("since", "inclusive start"), ("until", "exclusive end")):
        stats.add_argument(
            f"--{side}", type=parse_moment, help=f"{meaning}: ISO date (midnight UTC) or datetime"
        )
    stats.add_argument("--interval", choices=["day", "week", "month"], default="week")
    stats.add_argument("--by", choices=["source", "company"], help="group each period by")
    stats.add_argument("--format", choices=["csv", "json"], default="csv")
    stats.add_argument(
        "--overlap", action="store_true", help="CSV: print the board overlap table instead"
    )
    stats.add_argument("--out", type=Path, help="output file (default: stdout)")
    evaluate = sub.add_parser("evaluate", help="score labelled posting pairs, print metrics")
    _add_common(evaluate)
    evaluate.add_argument("file", type=Path, help='pairs JSONL: {"pair_id", "a", "b", "label"}')
    evaluate.add_argument("--predictions", type=Path, help="write one prediction per pair")
    evaluate.add_argument("--scorer", help="lightgbm or overlap (JOBDEDUP_SCORER)")

    train = sub.add_parser("train", help="train the pair classifier, write the model artifact")
    _add_common(train)
    train.add_argument("--output", type=Path, help="artifact directory (default: the shipped one)")
    train.add_argument("--seed", type=int, help="random seed (fixed default: reproducible)")
    train.add_argument("--corpora", type=Path, help="corpora directory (default ../shared/data)")
    train.add_argument(
        "--with-feedback", action="store_true", help="add the analysts' labels stored in the index"
    )
    train.add_argument(
        "--report", type=Path, help="write the training metrics (JSON) here, feedback effect too"
    )
    return parser


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings from the environment, with any flag given overriding its variable."""
    overrides: dict[str, Any] = {}
    for name in (*_OVERRIDES, "host", "port", "scorer"):
        value = getattr(args, name, None)
        if value is not None:
            overrides[name] = value
    return Settings(**overrides)


def _open_binary(path: Path) -> BinaryIO:
    if path.suffix == ".gz":
        return cast(BinaryIO, gzip.open(path, "rb"))
    return path.open("rb")


def _numbered_lines(path: Path, report: Callable[[str], None]) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line. Lines are decoded one by one, so a line
    that is not UTF-8 is reported and skipped instead of aborting the run; a BOM is ignored."""
    with _open_binary(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                report(f"line {number}: not UTF-8 ({exc.reason} at byte {exc.start})")
                continue
            if line.strip():
                yield number, line


def _count_lines(path: Path) -> int:
    with _open_binary(path) as handle:
        return sum(1 for _ in handle)


@contextmanager
def _output(path: Path | None) -> Iterator[IO[str]]:
    if path is None:
        yield sys.stdout
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        yield handle


def _parse_line(line: str) -> JobPosting:
    return Posting.model_validate(json.loads(line)).core()


def _valid_postings(
    lines: Iterable[tuple[int, str]], counts: Counter[str], report: Callable[[str], None]
) -> Iterator[JobPosting]:
    """Postings of numbered JSONL lines; invalid lines are reported with their number and
    skipped."""
    for number, line in lines:
        try:
            yield _parse_line(line)
        except json.JSONDecodeError as exc:
            counts["invalid"] += 1
            report(f"line {number}: invalid JSON: {exc.msg}")
        except ValidationError as exc:
            counts["invalid"] += 1
            reasons = "; ".join(
                f"{d['field']}: {d['reason']}" for d in validation_details(exc.errors())
            )
            report(f"line {number}: invalid posting: {reasons}")


@contextmanager
def _preparers(workers: int) -> Iterator[Executor | None]:
    """A process pool of `workers` processes for cleaning and sketching (none for 0).

    One process is the default: it overlaps preparation with the deciding thread, which took
    NHS ingest from 213 to 275-319 postings/s on two cores; a second one adds nothing
    measurable there (289/s), since the deciding thread is the bottleneck."""
    if workers <= 0:
        yield None
        return
    with ProcessPoolExecutor(
        workers,
        mp_context=get_context("spawn"),
        initializer=start_worker,
        initargs=(os.getpid(),),
    ) as pool:
        yield pool


def cmd_ingest(args: argparse.Namespace) -> int:
    """Run every posting of a JSONL file through the pipeline, in file order.

    Decisions are committed in groups and each decision line is written only after its
    group is committed, so what `--out` shows is durable.
    """
    settings = settings_from(args)
    if not args.file.exists():
        print(f"jobdedup ingest: no such file: {args.file}", file=sys.stderr)
        return 2
    total = 0 if args.no_progress else _count_lines(args.file)
    dedup = build_deduplicator(settings)
    settle_heap()
    counts: Counter[str] = Counter()
    started = time.perf_counter()
    try:
        with (
            _output(args.out) if args.out else _null() as out,
            tqdm(total=total, disable=args.no_progress, unit="line", file=sys.stderr) as bar,
            _preparers(args.workers) as pool,
        ):

            def skipped(message: str) -> None:
                bar.write(message, file=sys.stderr)
                bar.update(1)

            def undecodable(message: str) -> None:
                counts["invalid"] += 1
                skipped(message)

            lines = _numbered_lines(args.file, undecodable)
            postings = _counting_undated(_valid_postings(lines, counts, skipped), counts)
            for decision in dedup.dedup_stream(postings, dry_run=args.dry_run, executor=pool):
                bar.update(1)
                counts[decision.status] += 1
                if out is not None:
                    out.write(json.dumps(decision.to_dict(), ensure_ascii=False) + "\n")
        elapsed = time.perf_counter() - started
        if settings.retention_days is not None and not args.dry_run:
            counts["expired"] = dedup.expire(cutoff(settings.retention_days))
        stats = dedup.store.stats()
    finally:
        dedup.store.close()
    valid = sum(v for k, v in counts.items() if k not in ("invalid", "expired", "undated"))
    rate = valid / elapsed if elapsed > 0 else 0.0
    print(
        f"postings {valid}  new {counts['new']}  duplicates {counts['duplicate']}  "
        f"updated {counts['updated']}  unchanged {counts['unchanged']}  "
        f"invalid lines {counts['invalid']}  clusters {stats.clusters}  "
        f"elapsed {elapsed:.1f}s  rate {rate:.0f} postings/s"
        + (f"  expired {counts['expired']}" if "expired" in counts else ""),
        file=sys.stderr,
    )
    if counts["undated"] and settings.window_days:
        print(
            f"undated {counts['undated']}: postings with no posted_at took the time they were "
            f"received, so they meet only postings within {settings.window_days} days of "
            "it; give their posted_at to compare them with older ads",
            file=sys.stderr,
        )
    return 0


def _counting_undated(postings: Iterable[JobPosting], counts: Counter[str]) -> Iterator[JobPosting]:
    """`postings`, counting under "undated" those with no posted_at: each takes its receipt
    time (`service.preparation.prepare_posting`), which in a batch of old ads is outside
    every window but today's. In `fr-googlejobs-dataeng-2025`, 69 of 271 rows have no date,
    and two copies of one ad scoring 0.77 never met; the summary says so instead of
    leaving the user to find out from the clusters."""
    for posting in postings:
        if posting.posted_at is None:
            counts["undated"] += 1
        yield posting


def cmd_expire(args: argparse.Namespace) -> int:
    """Delete the postings posted before --before (or the retention cutoff)."""
    settings = settings_from(args)
    before = args.before
    if before is None and settings.retention_days is None:
        print("jobdedup expire: give --before DATE or set JOBDEDUP_RETENTION_DAYS", file=sys.stderr)
        return 2
    dedup = build_deduplicator(settings)
    try:
        deleted = dedup.expire(before or cutoff(settings.retention_days or 0))
        stats = dedup.store.stats()
    finally:
        dedup.store.close()
    print(
        f"expired {deleted} postings; {stats.postings} postings in {stats.clusters} clusters"
        " remain",
        file=sys.stderr,
    )
    return 0


@contextmanager
def _null() -> Iterator[None]:
    yield None


def cmd_export(args: argparse.Namespace) -> int:
    """One line per indexed posting: {id, cluster_id, duplicate_of}, clusters as they stand."""
    dedup = build_deduplicator(settings_from(args), create=False)
    written = 0
    try:
        with _output(args.out) as out:
            for item in dedup.assignments():
                row = {
                    "id": item.id,
                    "cluster_id": item.cluster_id,
                    "duplicate_of": item.duplicate_of,
                }
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                written += 1
    finally:
        dedup.store.close()
    print(f"exported {written} postings", file=sys.stderr)
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    """Duplicate statistics, read beside a running writer like `export` (no writer lock)."""
    try:
        query = StatsQuery(since=args.since, until=args.until, interval=args.interval, by=args.by)
    except ValueError as exc:
        print(f"jobdedup stats: {exc}", file=sys.stderr)
        return 2
    dedup = build_deduplicator(settings_from(args), create=False)
    try:
        stats = dedup.duplicate_stats(query)
    finally:
        dedup.store.close()
    with _output(args.out) as out:
        if args.format == "json":
            write_json(query, stats, out)
        elif args.overlap:
            write_overlap_csv(stats, out)
        else:
            write_buckets_csv(stats, out)
    print(f"{len(stats.buckets)} buckets, {len(stats.overlaps)} overlapping pairs", file=sys.stderr)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the HTTP service with uvicorn (one process: the embedded index's writer lock is
    per process)."""
    import uvicorn

    from service.api import create_app

    settings = settings_from(args)
    # Opened before uvicorn starts, so an incompatible index or a second writer is reported
    # like any CLI error; the app's lifespan takes the deduplicator over and closes it.
    dedup = build_deduplicator(settings)
    try:
        app = create_app(settings, dedup)
    except BaseException:
        dedup.store.close()
        raise
    uvicorn.run(app, host=settings.host, port=settings.port, log_level=settings.log_level.lower())
    return 0


def _lenient_posting(raw: object, fallback_id: str) -> dict[str, Any]:
    """A pair side that fails the `/dedup` schema, made scorable rather than dropped: known
    fields kept as strings, unknown ones moved into `extra`, a missing id or posted_at taken
    from the pair. Offline evaluation must give one prediction per pair."""
    data = raw if isinstance(raw, dict) else {}
    known = set(Posting.model_fields) - {"extra"}
    document: dict[str, Any] = {
        k: str(v) for k, v in data.items() if k in known and v is not None and k != "posted_at"
    }
    document.setdefault("id", fallback_id)
    try:
        posted = Posting.model_validate(
            {"id": "x", "title": "x", "description": "x", "posted_at": data.get("posted_at")}
        ).posted_at
    except ValidationError:
        posted = None
    if posted is not None:
        document["posted_at"] = posted.isoformat()
    extra = {k: v for k, v in data.items() if k not in known and k != "extra"}
    if isinstance(data.get("extra"), dict) or extra:
        document["extra"] = {**(data.get("extra") or {}), **extra}
    return document


def _read_pairs(path: Path, report: Callable[[str], None]) -> list[dict[str, Any]]:
    """Labelled pairs from JSONL. Postings are validated like `/dedup` input; a side that
    fails is reported with its line number and still scored as given (see
    `_lenient_posting`); a line that is not a pair object is reported and skipped."""
    pairs: list[dict[str, Any]] = []
    for number, line in _numbered_lines(path, report):
        try:
            pair = json.loads(line)
            sides = {k: pair[k] for k in ("a", "b")}
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            report(f"line {number}: not a pair object with 'a' and 'b': {exc}")
            continue
        pair.setdefault("pair_id", f"line-{number}")
        for key, raw in sides.items():
            try:
                posting = Posting.model_validate(raw)
                pair[key] = posting.model_dump(mode="json", exclude_none=True)
            except ValidationError as exc:
                reasons = "; ".join(
                    f"{d['field']}: {d['reason']}" for d in validation_details(exc.errors())
                )
                report(
                    f"line {number}: posting {key} does not fit the schema ({reasons}); "
                    "scored as given"
                )
                pair[key] = _lenient_posting(raw, f"{pair['pair_id']}-{key}")
        pairs.append(pair)
    return pairs


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Score labelled pairs with the configured scorer and print the metrics."""
    settings = settings_from(args)
    if not args.file.exists():
        print(f"jobdedup evaluate: no such file: {args.file}", file=sys.stderr)
        return 2
    scorer = build_scorer(settings)
    pairs = _read_pairs(args.file, lambda msg: print(msg, file=sys.stderr))
    results = score_pairs(pairs, scorer, settings.sketch_params())
    if args.predictions:
        with _output(args.predictions) as out:
            for r in results:
                row = {
                    "pair_id": r.pair_id,
                    "probability": round(r.probability, 6),
                    "duplicate": r.duplicate,
                    "type": r.type,
                }
                out.write(json.dumps(row) + "\n")
    if any(r.label in ("duplicate", "not_duplicate") for r in results):
        print(format_report(report(results), scorer.name, scorer.threshold))
    else:
        print(f"scored {len(results)} unlabelled pairs with {scorer.name}")
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    """Train the classifier on the corpora (plus stored feedback) and write the artifact."""
    from classifier.corpora import DEFAULT_DATA_DIR
    from classifier.model import DEFAULT_MODEL_DIR
    from classifier.train import DEFAULT_SEED, train

    feedback: list[dict[str, Any]] = []
    if args.with_feedback:
        dedup = build_deduplicator(settings_from(args), create=False)
        try:
            feedback = [
                {"a": f.a_document, "b": f.b_document, "label": f.label}
                for f in dedup.store.iter_feedback()
            ]
        finally:
            dedup.store.close()
        if feedback:
            print(f"training with {len(feedback)} feedback labels", file=sys.stderr)
        else:
            print("no feedback labels stored in the index: training without", file=sys.stderr)
    metrics = train(
        args.output or DEFAULT_MODEL_DIR,
        seed=DEFAULT_SEED if args.seed is None else args.seed,
        feedback_pairs=feedback,
        data_dir=args.corpora or DEFAULT_DATA_DIR,
    )
    held = metrics["held_out"]
    print(
        f"model written to {args.output or DEFAULT_MODEL_DIR}: threshold "
        f"{metrics['threshold']:.3f}, held-out F1 {held['f1']:.3f} ROC-AUC {held['roc_auc']:.3f}",
        file=sys.stderr,
    )
    if "feedback_effect" in metrics:
        from classifier.feedback_effect import format_feedback_effect

        print(format_feedback_effect(metrics["feedback_effect"]), file=sys.stderr)
    if args.report:
        args.report.write_text(json.dumps(metrics, indent=2, sort_keys=True) + "\n", "utf-8")
    return 0


_COMMANDS = {
    "serve": cmd_serve,
    "ingest": cmd_ingest,
    "export": cmd_export,
    "stats": cmd_stats,
    "expire": cmd_expire,
    "evaluate": cmd_evaluate,
    "train": cmd_train,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `jobdedup` console script."""
    args = build_parser().parse_args(argv)
    try:
        settings = settings_from(args)
    except ValidationError as exc:
        for detail in validation_details(exc.errors()):
            print(f"jobdedup: bad setting {detail['field']}: {detail['reason']}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    try:
        return _COMMANDS[args.command](args)
    except (ConfigurationError, StoreError, ClassifierError) as exc:
        print(f"jobdedup {args.command}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
