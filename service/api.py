"""FastAPI app factory and routes. Routes stay thin: parse, call one pipeline verb, map.

Routes are plain `def` so FastAPI runs them in its thread pool; the pipeline and store are
synchronous and thread-safe.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from time import perf_counter
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Query, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from indexer.posting import JobPosting
from indexer.store import ClusterFilter, ClusterInfo, StatsQuery, StoreError
from indexer.text import normalise_company
from service.auth import RequireApiKey, check_exposure, document_security, key_ring
from service.batches import drain
from service.bodies import batch_body, decode_cursor, encode_cursor
from service.decisions import Decision
from service.dependencies import Dedup
from service.errors import (
    ApiError,
    BodyLimit,
    install_error_handlers,
)
from service.factory import build_deduplicator
from service.heap import settle_heap
from service.memory import LARGE_REQUEST_CHARS, release_free_memory
from service.metrics import Metrics
from service.pipeline import Deduplicator
from service.retention import RetentionThread
from service.review_api import add_review_routes
from service.schemas import (
    MAX_BATCH,
    MAX_TITLE_CHARS,
    ClusterOut,
    ClusterPageOut,
    ClusterSummaryOut,
    ContributionOut,
    DedupResult,
    ErrorOut,
    FeedbackIn,
    FeedbackOut,
    PairScoreIn,
    PairScoreOut,
    Posting,
    PostingOut,
    StatsOut,
)
from service.settings import Settings
from service.ui import mount_ui
from service.warmup import warm_up

logger = logging.getLogger(__name__)

_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (400, 404, 413, 415, 422, 503)
}


class RequestMetrics:
    """ASGI middleware counting requests by route template and status, with latency."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500
        started = perf_counter()

        async def capture(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, capture)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            self.metrics.requests.labels(template, scope["method"], str(status)).inc()
            self.metrics.request_seconds.labels(template).observe(perf_counter() - started)


def _result(decision: Decision) -> DedupResult:
    return DedupResult.model_validate(decision.to_dict())


def _cluster_out(info: ClusterInfo) -> ClusterOut:
    return ClusterOut.model_validate(info, from_attributes=True)


def create_app(settings: Settings, deduplicator: Deduplicator | None = None) -> FastAPI:
    """Build the app: check the exposure (no keys on a public address is refused) and wire
    the routes. Nothing is opened here: the app's lifespan owns the store and the scorer.
    It opens them when the server starts (an incompatible index or a second writer fails the
    start-up), or takes over `deduplicator` (what `jobdedup serve` opens first, to fail with
    the CLI's message before uvicorn starts), and closes the store when the server stops.
    Routes reach them through `service.dependencies`."""
    keys = key_ring(settings.api_keys, settings.api_keys_file)
    check_exposure(settings.host, keys, settings.auth)
    metrics = Metrics()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        dedup = deduplicator or build_deduplicator(settings)
        try:
            detach = metrics.attach(dedup.store.stats, dedup.scorer.name, dedup.scorer.version)
            # Before the server accepts a connection: /ready is never 200 while the first
            # request would still pay for loading models and language data.
            warm_up(dedup)
            settle_heap()
            retention = (
                None
                if settings.retention_days is None
                else RetentionThread(dedup, settings.retention_days, settings.retention_every_s)
            )
            if retention is not None:
                retention.start()
            app.state.deduplicator = dedup
            try:
                yield
            finally:
                app.state.deduplicator = None
                if retention is not None:
                    retention.stop()
                detach()
        finally:
            dedup.store.close()

    app = FastAPI(
        title="jobdedup",
        version="0.1.0",
        description="Near-duplicate detection for job postings.",
        lifespan=lifespan,
    )
    app.state.deduplicator = None
    app.state.metrics = metrics
    install_error_handlers(app)

    @app.post(
        "/dedup",
        response_model=DedupResult,
        response_model_exclude_unset=True,  # `explanation` appears only when asked for
        responses=_ERRORS,
        tags=["dedup"],
    )
    def dedup_one(
        posting: Posting, dedup: Dedup, dry_run: bool = False, explain: bool = False
    ) -> DedupResult:
        """Verdict for one posting: new, duplicate (of which, in which cluster), unchanged or
        updated. Committed before the response unless `dry_run`. With `explain`, the top
        feature contributions for the best candidate are added."""
        decision = dedup.dedup(posting.core(), dry_run=dry_run, explain=explain)
        metrics.observe_decision(
            decision.status, dry_run, decision.timings, len(decision.candidates)
        )
        result = _result(decision)
        if decision.explanation is not None:
            result.explanation = [
                ContributionOut.model_validate(c, from_attributes=True)
                for c in decision.explanation
            ]
        return result

    @app.post("/pairs/score", response_model=PairScoreOut, responses=_ERRORS, tags=["dedup"])
    def score_pair(pair: PairScoreIn, dedup: Dedup) -> PairScoreOut:
        """Score two postings against each other, outside the index (nothing is stored)."""
        verdict = dedup.score_pair(pair.a.core(), pair.b.core())
        scorer = dedup.scorer
        return PairScoreOut(
            probability=round(verdict.probability, 6),
            duplicate=verdict.duplicate,
            duplicate_type=verdict.duplicate_type,  # type: ignore[arg-type]
            threshold=scorer.threshold,
            scorer=scorer.name,
            jaccard=round(verdict.jaccard, 6),
            overlap=round(verdict.overlap, 6),
            contributions=[
                ContributionOut.model_validate(c, from_attributes=True)
                for c in verdict.contributions
            ],
        )

    @app.post("/feedback", response_model=FeedbackOut, responses=_ERRORS, tags=["dedup"])
    def feedback(label: FeedbackIn, dedup: Dedup) -> FeedbackOut:
        """Store an analyst's label for two indexed postings (used by `train --with-feedback`)."""
        missing = dedup.feedback(label.a_id, label.b_id, label.label)
        if missing:
            raise ApiError(
                404,
                "not_found",
                f"not indexed: {', '.join(missing)}",
                [
                    {"field": "a_id" if m == label.a_id else "b_id", "reason": "not indexed"}
                    for m in missing
                ],
            )
        return FeedbackOut(a_id=label.a_id, b_id=label.b_id, label=label.label, stored=True)

    @app.post(
        "/dedup/batch",
        response_model=list[DedupResult],
        response_model_exclude_unset=True,
        responses=_ERRORS,
        tags=["dedup"],
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {"schema": {"type": "array", "maxItems": MAX_BATCH}},
                    "application/x-ndjson": {"schema": {"type": "string"}},
                },
            }
        },
    )
    def dedup_batch(
        postings: Annotated[list[JobPosting], Depends(batch_body)],
        dedup: Dedup,
        dry_run: bool = False,
    ) -> list[DedupResult]:
        """Up to 1,000 postings, answered in order as if posted one by one. The batch is one
        transaction: if the index fails part-way, nothing of it is stored (503)."""
        large = sum(len(p.description) for p in postings) > LARGE_REQUEST_CHARS
        results = []
        # drain: each posting is released once prepared, not when the response is built
        for decision in dedup.dedup_stream(drain(postings), dry_run=dry_run, group=len(postings)):
            metrics.observe_decision(
                decision.status, dry_run, decision.timings, len(decision.candidates)
            )
            results.append(_result(decision))
        if large:
            release_free_memory()
        return results

    @app.get("/postings/{posting_id:path}", response_model=PostingOut, responses=_ERRORS)
    def get_posting(posting_id: str, dedup: Dedup) -> PostingOut:
        """An indexed posting, its cluster and the cluster's canonical posting."""
        found = dedup.posting(posting_id)
        if found is None:
            raise ApiError(404, "not_found", f"posting {posting_id!r} is not indexed")
        stored, canonical = found
        return PostingOut(
            id=stored.id,
            cluster_id=stored.cluster_id,
            duplicate_of=canonical,
            posting=stored.document,
            decision=stored.decision,
        )

    @app.delete("/postings/{posting_id:path}", responses=_ERRORS)
    def delete_posting(posting_id: str, dedup: Dedup) -> dict[str, Any]:
        """Remove a posting from the index and its cluster."""
        if not dedup.delete(posting_id):
            raise ApiError(404, "not_found", f"posting {posting_id!r} is not indexed")
        return {"id": posting_id, "deleted": True}

    @app.get("/clusters/{cluster_id:path}", response_model=ClusterOut, responses=_ERRORS)
    def get_cluster(cluster_id: str, dedup: Dedup) -> ClusterOut:
        """A cluster with its members; the id of a merged cluster resolves to the survivor."""
        info = dedup.cluster(cluster_id)
        if info is None:
            raise ApiError(404, "not_found", f"cluster {cluster_id!r} does not exist")
        return _cluster_out(info)

    @app.get("/clusters", response_model=ClusterPageOut, responses=_ERRORS)
    def list_clusters(
        dedup: Dedup,
        min_size: Annotated[int, Query(ge=1, le=1_000_000_000)] = 1,
        company: str | None = None,
        source: str | None = None,
        title: Annotated[str | None, Query(min_length=1, max_length=MAX_TITLE_CHARS)] = None,
        since: datetime | None = None,
        until: datetime | None = None,
        cursor: str | None = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> ClusterPageOut:
        """Clusters ordered by id, filtered; follow `next_cursor` for the next page. `title`
        keeps clusters with a member whose title contains it (case-insensitive: Unicode
        casefold)."""
        filters = ClusterFilter(
            min_size=min_size,
            company_key=normalise_company(company) if company else None,
            source=source,
            since=since,
            until=until,
            title=title,
        )
        after = decode_cursor(cursor) if cursor else None
        page = dedup.clusters(filters, after, limit)
        return ClusterPageOut(
            clusters=[
                ClusterSummaryOut.model_validate(c, from_attributes=True) for c in page.clusters
            ],
            next_cursor=encode_cursor(page.next_after) if page.next_after else None,
        )

    @app.get("/stats", response_model=StatsOut, responses=_ERRORS, tags=["analysis"])
    def duplicate_stats(
        dedup: Dedup,
        since: Annotated[
            datetime | None, Query(description="Inclusive start (ISO date or datetime, UTC).")
        ] = None,
        until: Annotated[datetime | None, Query(description="Exclusive end.")] = None,
        interval: Annotated[
            Literal["day", "week", "month"], Query(description="Period of a bucket.")
        ] = "week",
        by: Annotated[
            Literal["source", "company"] | None, Query(description="Group each period by.")
        ] = None,
    ) -> StatsOut:
        """Duplicate statistics per period (and source or company) for postings posted in
        [since, until): postings, distinct vacancies, duplicates by type, the duplicate rate;
        and the board overlap table (which sources share clusters)."""
        try:
            query = StatsQuery(since=since, until=until, interval=interval, by=by)
        except ValueError as exc:
            raise ApiError(
                422, "validation_error", str(exc), [{"field": "until", "reason": str(exc)}]
            ) from exc
        return StatsOut.of(query, dedup.duplicate_stats(query))

    @app.get("/health", tags=["ops"])
    def health() -> dict[str, str]:
        """Liveness: the process answers."""
        return {"status": "ok"}

    @app.get("/ready", tags=["ops"], responses=_ERRORS)
    def ready(response: Response, dedup: Dedup) -> dict[str, Any]:
        """Readiness: the store answers and the scorer is loaded; 503 otherwise."""
        scorer = dedup.scorer
        body: dict[str, Any] = {
            "scorer": {
                "name": scorer.name,
                "version": scorer.version,
                "threshold": scorer.threshold,
            }
        }
        try:
            dedup.store.ping()
            body.update(status="ready", store="ok")
        except StoreError as exc:
            response.status_code = 503
            response.headers["Retry-After"] = "5"
            body.update(status="unavailable", store=str(exc))
        return body

    @app.get("/metrics", tags=["ops"])
    def prometheus() -> Response:
        """Prometheus text exposition."""
        return Response(metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")

    add_review_routes(app, _ERRORS)
    mount_ui(app)

    app.add_middleware(
        BodyLimit,
        default_limit=settings.max_body_bytes,
        limits={"/dedup/batch": settings.max_batch_bytes},
    )
    if keys.enabled and settings.auth != "off":
        # Outside BodyLimit: an anonymous caller is refused before any body is buffered.
        app.add_middleware(RequireApiKey, keys=keys, routes=app)
    document_security(app)
    app.add_middleware(RequestMetrics, metrics=metrics)
    return app
