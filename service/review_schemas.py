"""Response schemas of the review endpoints (`GET /pairs/explain`, `GET /review`).

Kept beside `service.schemas` (the public contract of the ingest side) with the same rule:
field names change only additively, because the review page and analysts' scripts read them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from service.schemas import ContributionOut, PairScoreOut

Label = Literal["duplicate", "not_duplicate"]


class WordedContributionOut(ContributionOut):
    """A feature's contribution with a sentence saying what it means for this pair."""

    text: str = Field(
        description='e.g. "The descriptions share 93% of their word sequences — raises the score"'
    )


class ExplainedVerdictOut(PairScoreOut):
    """The verdict `/pairs/score` gives for the pair (the later-posted posting as `a`)."""

    contributions: list[WordedContributionOut]  # type: ignore[assignment]


class DiffSegmentOut(BaseModel):
    """A run of word tokens (each with its trailing whitespace): `a` + `b` parts of all
    segments, joined in order, give the two texts exactly."""

    op: Literal["equal", "insert", "delete", "replace"]
    a: str
    b: str


class TextDiffOut(BaseModel):
    """A word-level diff; `truncated`: the texts were longer than what was compared (the
    rest is the last segment, not compared)."""

    segments: list[DiffSegmentOut]
    truncated: bool


class PairDiffOut(BaseModel):
    title: TextDiffOut
    description: TextDiffOut


class IndexedPostingOut(BaseModel):
    """An indexed posting: its document as stored and its cluster now."""

    id: str
    cluster_id: str
    posted_at: datetime
    posting: dict[str, Any]


class PairExplanationOut(BaseModel):
    """Two indexed postings side by side, in the order asked (`a`, `b`)."""

    a: IndexedPostingOut
    b: IndexedPostingOut
    newer_id: str = Field(description="The later-posted one, scored as the new posting")
    verdict: ExplainedVerdictOut
    recorded_score: float | None = Field(
        description="The score the index recorded for this pair when one side was decided "
        "(with the index's boilerplate statistics), if it was a candidate"
    )
    label: Label | None = Field(description="The pair's feedback label, if it has one")
    diff: PairDiffOut


class ReviewSideOut(BaseModel):
    id: str
    title: str
    company: str | None
    source: str | None
    cluster_id: str
    posted_at: datetime


class ReviewItemOut(BaseModel):
    """A doubtful pair: `a`'s stored decision scored it against `b`."""

    a_id: str
    b_id: str
    score: float
    threshold: float
    reason: Literal["near_threshold", "single_link_merge"]
    same_cluster: bool = Field(description="Whether both are in one cluster now")
    label: Label | None
    a: ReviewSideOut
    b: ReviewSideOut


class ReviewQueueOut(BaseModel):
    """A page of the review queue, most doubtful first, with progress over the whole queue."""

    items: list[ReviewItemOut]
    total: int = Field(description="Pairs in the queue (at most 2,000)")
    labelled: int = Field(description="Pairs of the queue that have a feedback label")
    offset: int
    limit: int
