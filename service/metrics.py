"""Prometheus collectors on an app-owned registry (never the global one).

Owning the registry lets tests build many apps in one process without "duplicated timeseries"
errors, and keeps /metrics limited to what this service measures.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from indexer.store import IndexStats

_STAGE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
_REQUEST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)
_CANDIDATE_BUCKETS = (0, 1, 2, 5, 10, 20, 50, 100, 200)


class _IndexSizeCollector(Collector):
    """Reads index size at scrape time, so the figure is never stale."""

    def __init__(self, read: Callable[[], IndexStats]) -> None:
        self._read = read

    def collect(self) -> list[GaugeMetricFamily]:
        try:
            stats = self._read()
        except Exception:  # a scrape must not fail because the store is down
            return []
        postings = GaugeMetricFamily("jobdedup_index_postings", "Postings in the index.")
        postings.add_metric([], stats.postings)
        clusters = GaugeMetricFamily("jobdedup_index_clusters", "Clusters in the index.")
        clusters.add_metric([], stats.clusters)
        size = GaugeMetricFamily("jobdedup_index_bytes", "Bytes the index takes on disk.")
        size.add_metric([], stats.bytes)
        return [postings, clusters, size]


class Metrics:
    """The service's collectors; one instance per app."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "jobdedup_http_requests",
            "HTTP requests by route template, method and status code.",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self.request_seconds = Histogram(
            "jobdedup_http_request_seconds",
            "HTTP request latency by route template.",
            ["route"],
            buckets=_REQUEST_BUCKETS,
            registry=self.registry,
        )
        self.decisions = Counter(
            "jobdedup_decisions",
            "Dedup decisions by outcome (new, duplicate, unchanged, updated) and dry run.",
            ["status", "dry_run"],
            registry=self.registry,
        )
        self.stage_seconds = Histogram(
            "jobdedup_stage_seconds",
            "Time per pipeline stage (clean, sketch, candidates, score, persist; writer_wait: the "
            "posting's group waiting for the store's writer lock, and on a search engine for "
            "claims held by other instances; recheck: the search engine's re-check for "
            "near-duplicates written meanwhile by other instances).",
            ["stage"],
            buckets=_STAGE_BUCKETS,
            registry=self.registry,
        )
        self.candidates = Histogram(
            "jobdedup_candidates_per_posting",
            "Verified candidates scored per posting.",
            buckets=_CANDIDATE_BUCKETS,
            registry=self.registry,
        )
        self._scorer_info = Gauge(
            "jobdedup_scorer_info",
            "The pair scorer in use (value is always 1).",
            ["scorer", "version"],
            registry=self.registry,
        )

    def attach(
        self, read_stats: Callable[[], IndexStats], scorer: str, version: str
    ) -> Callable[[], None]:
        """Report the index the app's lifespan opened (sizes read at scrape time) and its
        scorer; returns what detaches them when the lifespan closes the index (the request
        collectors stay: they belong to the app, which outlives a lifespan)."""
        collector = _IndexSizeCollector(read_stats)
        self.registry.register(collector)
        self._scorer_info.labels(scorer=scorer, version=version).set(1)

        def detach() -> None:
            self.registry.unregister(collector)
            self._scorer_info.clear()

        return detach

    def observe_decision(
        self, status: str, dry_run: bool, timings: dict[str, float], candidates: int
    ) -> None:
        """Record one pipeline decision."""
        self.decisions.labels(status=status, dry_run=str(dry_run).lower()).inc()
        for stage, seconds in timings.items():
            self.stage_seconds.labels(stage=stage).observe(seconds)
        if status != "unchanged":
            self.candidates.observe(candidates)

    def render(self) -> bytes:
        """Prometheus text exposition of this registry."""
        return generate_latest(self.registry)
