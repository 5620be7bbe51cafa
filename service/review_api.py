"""Routes of the review page's data: one pair explained, and the review queue.

Added to the app by its factory (`service.api.create_app`) directly, not through an included
router: this FastAPI keeps an included router as one opaque route, which the key check
(`service.auth.RequireApiKey`) could not match to a template. Routes stay thin: parse, call
one pipeline verb, map. Both read only, under the `read` scope (`service.auth.ROUTE_SCOPES`).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Query

from indexer.store import ReviewSide, StoredPosting
from service.dependencies import Dedup
from service.diffs import TextDiff
from service.errors import ApiError
from service.review import QUEUE_CAP, PairExplanation
from service.review_schemas import (
    DiffSegmentOut,
    ExplainedVerdictOut,
    IndexedPostingOut,
    PairDiffOut,
    PairExplanationOut,
    ReviewItemOut,
    ReviewQueueOut,
    ReviewSideOut,
    TextDiffOut,
    WordedContributionOut,
)

PostingId = Annotated[str, Query(min_length=1, max_length=256)]


def add_review_routes(app: FastAPI, responses: dict[int | str, dict[str, Any]]) -> None:
    """Add the `/pairs/explain` and `/review` routes to `app` (they reach the running
    deduplicator through `service.dependencies`)."""

    @app.get(
        "/pairs/explain", response_model=PairExplanationOut, responses=responses, tags=["review"]
    )
    def explain_pair(a: PostingId, b: PostingId, dedup: Dedup) -> PairExplanationOut:
        """Two indexed postings side by side: the verdict `/pairs/score` gives them (the
        later-posted one as the new posting), each contribution in words, word-level diffs
        of the titles and descriptions, and the pair's feedback label."""
        found = dedup.explain_pair(a, b)
        if isinstance(found, list):
            raise ApiError(
                404,
                "not_found",
                f"not indexed: {', '.join(found)}",
                [{"field": "a" if m == a else "b", "reason": "not indexed"} for m in found],
            )
        return _explanation_out(found, dedup.scorer.threshold, dedup.scorer.name)

    @app.get("/review", response_model=ReviewQueueOut, responses=responses, tags=["review"])
    def review(
        dedup: Dedup,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Annotated[int, Query(ge=0, le=QUEUE_CAP)] = 0,
    ) -> ReviewQueueOut:
        """The review queue: pairs whose recorded score came nearest the threshold, and
        pairs through which two clusters merged, most doubtful first; labelled pairs stay,
        marked, and `total`/`labelled` count the whole queue (at most 2,000 pairs)."""
        queue = dedup.review_queue(limit, offset)
        threshold = dedup.scorer.threshold
        return ReviewQueueOut(
            items=[
                ReviewItemOut(
                    a_id=item.pair.a.id,
                    b_id=item.pair.b.id,
                    score=round(item.pair.score, 6),
                    threshold=threshold,
                    reason=item.pair.reason,
                    same_cluster=item.pair.a.cluster_id == item.pair.b.cluster_id,
                    label=item.label,  # type: ignore[arg-type]
                    a=_side_out(item.pair.a),
                    b=_side_out(item.pair.b),
                )
                for item in queue.items
            ],
            total=queue.total,
            labelled=queue.labelled,
            offset=offset,
            limit=limit,
        )


def _side_out(side: ReviewSide) -> ReviewSideOut:
    return ReviewSideOut.model_validate(side, from_attributes=True)


def _posting_out(posting: StoredPosting) -> IndexedPostingOut:
    return IndexedPostingOut(
        id=posting.id,
        cluster_id=posting.cluster_id,
        posted_at=posting.posted_at,
        posting=posting.document,
    )


def _diff_out(diff: TextDiff) -> TextDiffOut:
    return TextDiffOut(
        segments=[DiffSegmentOut(op=s.op, a=s.a, b=s.b) for s in diff.segments],
        truncated=diff.truncated,
    )


def _explanation_out(found: PairExplanation, threshold: float, scorer: str) -> PairExplanationOut:
    verdict = found.verdict
    return PairExplanationOut(
        a=_posting_out(found.a),
        b=_posting_out(found.b),
        newer_id=found.newer_id,
        verdict=ExplainedVerdictOut(
            probability=round(verdict.probability, 6),
            duplicate=verdict.duplicate,
            duplicate_type=verdict.duplicate_type,  # type: ignore[arg-type]
            threshold=threshold,
            scorer=scorer,
            jaccard=round(verdict.jaccard, 6),
            overlap=round(verdict.overlap, 6),
            contributions=[
                WordedContributionOut.model_validate(c, from_attributes=True)
                for c in found.contributions
            ],
        ),
        recorded_score=found.recorded_score,
        label=found.label,  # type: ignore[arg-type]
        diff=PairDiffOut(
            title=_diff_out(found.title_diff), description=_diff_out(found.description_diff)
        ),
    )
