"""Request and response schemas of the HTTP API (and of the CLI's JSON lines).

Field names here are a public contract: crawlers and analysts' scripts depend on them, so they
change only additively.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from indexer.posting import JobPosting
from indexer.store import DuplicateStats, StatsQuery

MAX_DESCRIPTION_CHARS = 200_000
MAX_TITLE_CHARS = 1_000
MAX_FIELD_CHARS = 1_000
MAX_URL_CHARS = 4_096
MAX_BATCH = 1_000

Status = Literal["new", "duplicate", "unchanged", "updated"]
DuplicateKind = Literal["full", "semantic", "temporal", "partial"]


EARLIEST_POSTED_AT = datetime(1900, 1, 1, tzinfo=UTC)
LATEST_POSTED_AT = datetime(2200, 1, 1, tzinfo=UTC)
_DATE_RANGE = "must be a date from 1900-01-01 to 2199-12-31 (UTC)"
MAX_EXTRA_DEPTH = 32
"""`extra` nested deeper is refused: a value nested 255 deep was stored, then failed to
serialise on every `GET /postings/{id}` (a poison record)."""


class Posting(BaseModel):
    """A job posting as sent by a crawler. Unknown top-level fields are rejected (typos would
    otherwise be dropped silently); anything else goes into `extra`, which is kept as is."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)

    id: str = Field(min_length=1, max_length=256, description="The sender's stable id.")
    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS)
    description: str = Field(
        min_length=1, max_length=MAX_DESCRIPTION_CHARS, description="Plain text or HTML."
    )
    company: str | None = Field(default=None, max_length=MAX_FIELD_CHARS)
    location: str | None = Field(default=None, max_length=MAX_FIELD_CHARS)
    posted_at: datetime | None = Field(
        default=None, description="ISO date or datetime; defaults to receipt time (UTC)."
    )
    url: str | None = Field(default=None, max_length=MAX_URL_CHARS)
    source: str | None = Field(default=None, max_length=MAX_FIELD_CHARS)
    language: str | None = Field(default=None, max_length=35)
    salary: str | None = Field(default=None, max_length=MAX_FIELD_CHARS)
    extra: dict[str, Any] | None = None

    @field_validator("posted_at", mode="before")
    @classmethod
    def _date_or_datetime(cls, value: object) -> object:
        """Accept a bare date (midnight UTC) as well as a datetime."""
        if isinstance(value, str) and len(value) == 10:
            try:
                return datetime.combine(date.fromisoformat(value), time(0), tzinfo=UTC)
            except ValueError:
                return value
        return value

    @field_validator("posted_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        """Naive datetimes are taken as UTC; everything is stored in UTC. Dates outside
        [EARLIEST_POSTED_AT, LATEST_POSTED_AT) are refused (422) rather than clamped: a year-1
        or year-9999 date is a crawler's bug, and clamping would file the ad under a date it
        never had. Inside the range, the time window's arithmetic cannot overflow."""
        if value is None:
            return None
        try:
            value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        except OverflowError as exc:  # 0001-01-01T00:00+05:00 is before datetime.min in UTC
            raise ValueError(_DATE_RANGE) from exc
        if not EARLIEST_POSTED_AT <= value < LATEST_POSTED_AT:
            raise ValueError(_DATE_RANGE)
        return value

    @field_validator("id", "title", "description")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("id")
    @classmethod
    def _addressable(cls, value: str) -> str:
        """`GET /postings/{id}` must reach every stored id: HTTP clients resolve "." and ".."
        path segments before sending (RFC 3986 §5.2.4), so an id holding one is refused."""
        if any(segment in (".", "..") for segment in value.split("/")):
            raise ValueError('must not contain a "." or ".." path segment')
        return value

    @field_validator("extra")
    @classmethod
    def _extra_is_utf8(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        """`extra` is stored as is, so it must encode as UTF-8 JSON: a lone surrogate sent as
        a "\\ud800" escape passes JSON parsing but can be neither hashed nor stored."""
        if value is not None:
            if json_depth(value) > MAX_EXTRA_DEPTH:
                raise ValueError(f"must not nest deeper than {MAX_EXTRA_DEPTH} levels")
            try:
                json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
            except UnicodeEncodeError as exc:
                raise ValueError("must be encodable as UTF-8 (no lone surrogates)") from exc
            except ValueError as exc:  # NaN or Infinity: not JSON, would come back as null
                raise ValueError("must hold finite numbers only (no NaN or Infinity)") from exc
        return value

    def core(self) -> JobPosting:
        """The validated posting as the pipeline takes it (`indexer.posting`)."""
        return JobPosting(**{name: getattr(self, name) for name in type(self).model_fields})


def json_depth(value: object) -> int:
    """Nesting depth of a parsed JSON value (a scalar is 0), without recursion: a value
    nested 100,000 deep must be measured, not crash the measuring."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
        else:
            deepest = max(deepest, depth)
            continue
        deepest = max(deepest, depth + 1)
    return deepest


class CandidateOut(BaseModel):
    """A verified candidate with its score and sketch estimates."""

    id: str
    score: float
    jaccard: float
    overlap: float
    cluster_id: str


class ContributionOut(BaseModel):
    """One feature's value for a pair and its contribution to the score."""

    feature: str
    value: float | None = Field(
        description="The feature's value; null when unknown (e.g. a fact stated on one side only)"
    )
    contribution: float


class DedupResult(BaseModel):
    """The verdict for one posting (`explanation` only with `?explain=true`)."""

    id: str
    status: Status
    duplicate_of: str | None
    cluster_id: str
    duplicate_type: DuplicateKind | None
    score: float | None
    candidates: list[CandidateOut]
    explanation: list[ContributionOut] | None = None


class PairScoreIn(BaseModel):
    """Two postings to compare: `a` as the new posting, `b` as the indexed one."""

    model_config = ConfigDict(extra="forbid")

    a: Posting
    b: Posting


class PairScoreOut(BaseModel):
    """The scorer's verdict on one pair, with the features that weighed most."""

    probability: float
    duplicate: bool
    duplicate_type: DuplicateKind | None
    threshold: float
    scorer: str
    jaccard: float
    overlap: float
    contributions: list[ContributionOut]


class FeedbackIn(BaseModel):
    """An analyst's label for two indexed postings."""

    model_config = ConfigDict(extra="forbid")

    a_id: str = Field(min_length=1, max_length=256)
    b_id: str = Field(min_length=1, max_length=256)
    label: Literal["duplicate", "not_duplicate"]


class FeedbackOut(BaseModel):
    a_id: str
    b_id: str
    label: str
    stored: bool


class PostingOut(BaseModel):
    """An indexed posting: what was sent (posted_at filled in) and where it stands now."""

    id: str
    cluster_id: str
    duplicate_of: str | None
    posting: dict[str, Any]
    decision: dict[str, Any]


class ClusterMemberOut(BaseModel):
    id: str
    title: str
    company: str | None
    source: str | None
    posted_at: datetime


class ClusterOut(BaseModel):
    """A cluster of postings that advertise one vacancy; `canonical_id` is the earliest."""

    id: str
    size: int
    first_seen: datetime
    last_seen: datetime
    canonical_id: str
    aliases: list[str]
    members: list[ClusterMemberOut]


class ClusterSummaryOut(BaseModel):
    id: str
    size: int
    first_seen: datetime
    last_seen: datetime
    canonical_id: str
    title: str | None = Field(default=None, description="The canonical posting's title")
    company: str | None = Field(default=None, description="The canonical posting's company")
    source: str | None = Field(default=None, description="The canonical posting's source")


class ClusterPageOut(BaseModel):
    """A page of clusters; pass `next_cursor` as `cursor` to get the next page."""

    clusters: list[ClusterSummaryOut]
    next_cursor: str | None


class DuplicateTypesOut(BaseModel):
    """Duplicates of a bucket split by the type of their stored decision."""

    full: int = Field(description="Same text (estimated Jaccard >= 0.9), same title.")
    semantic: int = Field(description="Reworded, restructured or retitled copies.")
    temporal: int = Field(description="Re-advertisements posted much later.")
    partial: int = Field(description="Snippets or partial copies of a longer ad.")
    unknown: int = Field(
        description="Duplicates whose decision has no type: posted as new, their cluster "
        "later merged into an older one (or posted before the ad they now follow)."
    )


class StatsBucketOut(BaseModel):
    """Figures of one period (and group)."""

    start: datetime = Field(description="Start of the period (UTC): day, Monday or 1st.")
    group: str | None = Field(
        description="The source or normalised company key (null: not grouped, or none set)."
    )
    postings: int = Field(description="Postings received (posted_at in the period).")
    distinct: int = Field(
        description="Distinct vacancies: postings that are their cluster's canonical (first) "
        "posting, i.e. clusters first seen in the period."
    )
    duplicates: int = Field(
        description="postings - distinct: the postings whose export line has a duplicate_of."
    )
    duplicate_rate: float = Field(description="duplicates / postings.")
    by_type: DuplicateTypesOut


class SourceClustersOut(BaseModel):
    source: str
    clusters: int = Field(description="Clusters of the window holding a posting of the source.")


class OverlapOut(BaseModel):
    """One pair of sources (a < b) and the clusters holding postings of both."""

    a: str
    b: str
    clusters: int


class StatsOut(BaseModel):
    """Duplicate statistics (`GET /stats`, `jobdedup stats --format json`)."""

    since: datetime | None = Field(description="Inclusive start of the window (null: open).")
    until: datetime | None = Field(description="Exclusive end of the window (null: open).")
    interval: Literal["day", "week", "month"]
    by: Literal["source", "company"] | None
    buckets: list[StatsBucketOut] = Field(description="By start, then group (null first).")
    sources: list[SourceClustersOut] = Field(
        description="Per source, the clusters holding one of its postings, over the clusters "
        "whose [first_seen, last_seen] meets the window (as the cluster listing filters)."
    )
    overlap: list[OverlapOut] = Field(
        description="Board overlap: pairs of sources sharing clusters (same clusters as "
        "`sources`), most shared first; pairs sharing none are left out."
    )

    @classmethod
    def of(cls, query: StatsQuery, stats: DuplicateStats) -> StatsOut:
        """The response for a query and what the store counted."""
        return cls(
            since=query.since,
            until=query.until,
            interval=query.interval,
            by=query.by,
            buckets=[
                StatsBucketOut(
                    start=b.start,
                    group=b.group,
                    postings=b.postings,
                    distinct=b.distinct,
                    duplicates=b.duplicates,
                    duplicate_rate=round(b.duplicate_rate, 6),
                    by_type=DuplicateTypesOut(**b.by_type),
                )
                for b in stats.buckets
            ],
            sources=[
                SourceClustersOut(source=k, clusters=v) for k, v in stats.source_clusters.items()
            ],
            overlap=[OverlapOut(a=o.a, b=o.b, clusters=o.clusters) for o in stats.overlaps],
        )


class ErrorDetail(BaseModel):
    field: str | None = None
    reason: str


class ErrorBody(BaseModel):
    code: str
    message: str
    details: list[ErrorDetail] = []


class ErrorOut(BaseModel):
    """The one JSON error shape of the API."""

    error: ErrorBody
