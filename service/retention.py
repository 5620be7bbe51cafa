"""Retention: postings older than `JOBDEDUP_RETENTION_DAYS` leave the index, on both backends.

A crawl index grows by every posting it ever saw, while duplicates are only looked for within
the time window, so old postings cost disk, memory and start-up time for nothing. `serve`
runs a pass at start-up and then every `retention_every_s` seconds in a daemon thread;
`ingest` runs one after its last group; `jobdedup expire --before DATE` runs one by hand.
Each pass deletes through the store's `expire` (chunks of atomic applies, clusters kept
consistent: an emptied cluster goes, a cluster that lost its canonical gets the next one).
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime, timedelta

from indexer.prepare import parse_time
from indexer.store import StoreError
from service.pipeline import Deduplicator

logger = logging.getLogger(__name__)


def parse_moment(text: str) -> datetime:
    """`--before`: an ISO date (its midnight UTC) or datetime (`indexer.prepare.parse_time`);
    argparse reports the ValueError as a usage error."""
    moment = parse_time(text.strip())
    if moment is None:
        raise ValueError("a date is needed")
    return moment


def cutoff(retention_days: int, now: datetime | None = None) -> datetime:
    """The moment before which postings are expired: `retention_days` before `now`."""
    return (now or datetime.now(UTC)) - timedelta(days=retention_days)


class RetentionThread:
    """Expires old postings every `every_s` seconds until `stop` (a failed pass is logged
    and retried at the next tick: an engine outage must not end retention for good)."""

    def __init__(self, dedup: Deduplicator, retention_days: int, every_s: float) -> None:
        self._dedup = dedup
        self._days = retention_days
        self._every_s = every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="retention", daemon=True)

    def start(self) -> None:
        """Run the first pass now (in the thread) and then every `every_s` seconds."""
        self._thread.start()

    def stop(self) -> None:
        """Stop after the pass in progress, if any."""
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._dedup.expire(cutoff(self._days))
            except StoreError as exc:
                logger.warning("retention pass failed, retried in %.0f s: %s", self._every_s, exc)
            self._stop.wait(self._every_s)
