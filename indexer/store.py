"""The index port: what the pipeline needs from a place that holds postings, sketches and clusters.

Adapters (`SqliteStore`, later the search-engine store) implement `IndexStore`; the pipeline
and the API only see this module. Errors raised by adapters are translated into the classes
below at the adapter boundary, so no caller ever catches sqlite3 or client exceptions.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from indexer.anchor_keys import TranslationQuery
from indexer.minhash import Sketch, SketchParams

SCHEMA_VERSION = 2
"""Version of the stored layout; an index written with another version is refused at open.
2: boilerplate unit statistics (`unit_witnesses`)."""


class StoreError(Exception):
    """Base class of every error an index store raises."""


class StoreUnavailable(StoreError):
    """The store cannot be reached or answered with an I/O error; retrying later may work."""


class StoreContended(StoreUnavailable):
    """A decision needed a document that an older decision of another service instance
    holds, and gave way (wait-die): nothing of it was written. The caller lets go of what
    it holds (`IndexStore.yield_writes`) and makes the decision again; left unhandled it is
    a 503 like any other unavailability."""


class IncompatibleIndex(StoreError):
    """The index on disk was written with another schema version or other sketch parameters.

    Comparing sketches made under different parameters gives meaningless similarities, so the
    service refuses to start rather than silently mis-cluster.
    """


def check_compatible(
    where: str,
    stored_version: object,
    stored_params: dict[str, Any],
    params: SketchParams,
    version: int = SCHEMA_VERSION,
) -> None:
    """Raise `IncompatibleIndex` unless an index's stored schema version (`version`, the
    adapter's own) and sketch parameters are this code's: the one check every adapter runs
    at open, with one wording."""
    if str(stored_version) != str(version):
        raise IncompatibleIndex(
            f"{where} has schema version {stored_version}, this service needs "
            f"{version}; rebuild the index"
        )
    wanted = params.to_dict()
    differences = [
        f"{key}={stored_params.get(key, '<unset>')!r} (service configured with "
        f"{key}={wanted.get(key, '<unset>')!r})"
        for key in sorted(set(stored_params) | set(wanted))
        if stored_params.get(key) != wanted.get(key)
    ]
    if differences:
        raise IncompatibleIndex(
            f"{where} was built with {', '.join(differences)}; rebuild the index or "
            "configure the same sketch parameters"
        )


@dataclass(frozen=True)
class StoredPosting:
    """One indexed posting: its identity, blocking fields, sketch and cluster.

    `document` is the posting as received (JSON-compatible) and `decision` the response
    returned when it was last written; both are kept verbatim so GET and idempotent re-posts
    answer exactly what the client saw.
    """

    id: str
    content_hash: str
    posted_at: datetime
    title: str
    company: str | None
    source: str | None
    company_key: str
    block_key: str
    sketch: Sketch
    shingle_count: int
    cluster_id: str
    document: dict[str, Any] = field(default_factory=dict)
    decision: dict[str, Any] = field(default_factory=dict)
    language: str | None = None
    """The language its reading found when it was prepared (`indexer.reading.Reading`; ""
    when it found none), kept so that its classifier fields, extracted again whenever it is a
    candidate, skip the language identifier (26-30% of that extraction on NHS ads). None:
    not kept (a row written before embedded layout 8, an engine document written before the
    field), and read from the document again."""


@dataclass(frozen=True)
class CandidateQuery:
    """Find postings that share a band key or the block key, inside a posted_at window.

    `since`/`until` are inclusive bounds (None = unbounded). Results are ordered by the number
    of shared band keys (descending), then by posted_at and id, and cut at `limit`. Candidate
    records carry an empty `document` and `decision`: verification needs only sketches and
    keys, decoding JSON is costly, and the scorer asks for the few documents it needs
    (`PairScorer.wanted_documents`).
    """

    band_keys: Sequence[int]
    block_key: str
    since: datetime | None
    until: datetime | None
    exclude_id: str | None
    limit: int


@dataclass(frozen=True)
class Merge:
    """Cluster `absorbed` is folded into `survivor`; `absorbed` becomes an alias of it."""

    absorbed: str
    survivor: str
    posting_id: str


@dataclass(frozen=True)
class WriteSet:
    """Everything one decision changes, applied atomically by `IndexStore.apply`.

    Order of application: deletions, then merges, then upserts (an upsert replaces the
    posting with the same id, band keys included). Cluster statistics of every touched
    cluster are recomputed from their members afterwards.
    """

    upserts: Sequence[tuple[StoredPosting, Sequence[int]]] = ()
    deletions: Sequence[str] = ()
    merges: Sequence[Merge] = ()
    unit_observations: Sequence[tuple[int, int, int]] = ()
    """Boilerplate statistics to add: (scope, unit, witness) rows (`indexer.boilerplate`).
    Statistics only grow: deleting or updating a posting does not take its units back."""


@dataclass(frozen=True)
class ClusterMember:
    """A posting as listed in a cluster."""

    id: str
    title: str
    company: str | None
    source: str | None
    posted_at: datetime


@dataclass(frozen=True)
class ClusterInfo:
    """A cluster with its members ordered by (posted_at, id); the first is the canonical."""

    id: str
    size: int
    first_seen: datetime
    last_seen: datetime
    canonical_id: str
    aliases: list[str]
    members: list[ClusterMember]
    title: str | None = None
    """Title, company and source of the canonical posting (as in `ClusterSummary`)."""
    company: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class ClusterSummary:
    """One row of the cluster listing (no members); `title`, `company` and `source` are the
    canonical posting's, so a listing can show what each cluster advertises."""

    id: str
    size: int
    first_seen: datetime
    last_seen: datetime
    canonical_id: str
    title: str | None = None
    company: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class ClusterFilter:
    """Filters of the cluster listing; `company` compares normalised company keys; `title`
    keeps clusters with a member whose title contains it (compared casefolded)."""

    min_size: int = 1
    company_key: str | None = None
    source: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    title: str | None = None


@dataclass(frozen=True)
class ClusterPage:
    """A page of clusters ordered by id; `next_after` is the id to continue after, or None."""

    clusters: list[ClusterSummary]
    next_after: str | None


@dataclass(frozen=True)
class Assignment:
    """Where one posting stands now: its cluster and the cluster's canonical posting."""

    id: str
    cluster_id: str
    duplicate_of: str | None


@dataclass(frozen=True)
class Feedback:
    """An analyst's label for two indexed postings (for training with feedback)."""

    a_id: str
    b_id: str
    label: str
    at: datetime
    a_document: dict[str, Any] = field(default_factory=dict)
    b_document: dict[str, Any] = field(default_factory=dict)


ReviewReason = Literal["near_threshold", "single_link_merge"]


@dataclass(frozen=True)
class ReviewSide:
    """One posting of a review pair, as the review list shows it (no document)."""

    id: str
    title: str
    company: str | None
    source: str | None
    cluster_id: str
    posted_at: datetime


@dataclass(frozen=True)
class ReviewPair:
    """A pair the index decided on, worth a person's look: `a` is the posting whose stored
    decision scored the pair, `b` the candidate it was scored against, `score` that score."""

    a: ReviewSide
    b: ReviewSide
    score: float
    reason: ReviewReason


@dataclass(frozen=True)
class IndexStats:
    """Sizes for metrics and benchmarks."""

    postings: int
    clusters: int
    bytes: int


StatsInterval = Literal["day", "week", "month"]
StatsGrouping = Literal["source", "company"]
DUPLICATE_TYPES = ("full", "semantic", "temporal", "partial")
"""The stored decision's `duplicate_type` values counted by name; any other (None: a posting
decided new whose cluster later merged into an older one) is counted as "unknown"."""


@dataclass(frozen=True)
class StatsQuery:
    """Duplicate statistics over postings with posted_at in [since, until) (None: unbounded),
    per `interval` bucket aligned on UTC (day start, ISO week's Monday, month's first day),
    and per group when `by` is set (`company` groups by the normalised company key)."""

    since: datetime | None = None
    until: datetime | None = None
    interval: StatsInterval = "week"
    by: StatsGrouping | None = None

    def __post_init__(self) -> None:
        for side in ("since", "until"):  # naive = UTC, like posted_at
            moment: datetime | None = getattr(self, side)
            if moment is not None:
                utc = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment
                object.__setattr__(self, side, utc.astimezone(UTC))
        if self.interval not in ("day", "week", "month"):
            raise ValueError(f"interval must be day, week or month, not {self.interval!r}")
        if self.by not in (None, "source", "company"):
            raise ValueError(f"by must be source or company, not {self.by!r}")
        if self.since is not None and self.until is not None and self.since > self.until:
            raise ValueError("since must not be after until")


@dataclass(frozen=True)
class StatsBucket:
    """One bucket (and group) of the statistics. A duplicate is a posting that is not its
    cluster's canonical (its export line has a `duplicate_of`); `distinct` counts the
    canonicals, i.e. the clusters first seen in the bucket; `by_type` splits the duplicates
    by their stored decision's type (keys: `DUPLICATE_TYPES` and "unknown")."""

    start: datetime
    group: str | None
    postings: int
    distinct: int
    by_type: dict[str, int]

    @property
    def duplicates(self) -> int:
        return self.postings - self.distinct

    @property
    def duplicate_rate(self) -> float:
        return self.duplicates / self.postings if self.postings else 0.0


@dataclass(frozen=True)
class SourceOverlap:
    """Clusters holding postings of both sources (`a` < `b`)."""

    a: str
    b: str
    clusters: int


@dataclass(frozen=True)
class DuplicateStats:
    """Buckets ordered by (start, group; no group first) and the board overlap table:
    `source_clusters` counts, per source, the clusters holding a posting of it, and
    `overlaps` the pairs of sources sharing clusters (pairs with none left out), over the
    clusters whose [first_seen, last_seen] span meets [since, until) (the rule of the
    cluster listing's since/until)."""

    buckets: list[StatsBucket]
    source_clusters: dict[str, int]
    overlaps: list[SourceOverlap]


# -- ports ------------------------------------------------------------------------------------
# Small protocols, one per role, so a consumer names only what it uses (the review functions
# take `Labels` and `PostingSearch`); `IndexStore` is all of them: what an adapter
# (`indexer.stores`) implements and the pipeline holds.


class Lifecycle(Protocol):
    """The index as a resource: its sketch parameters, whether it answers, closing it."""

    @property
    def params(self) -> SketchParams:
        """The sketch parameters this index was created with."""
        ...

    def ping(self) -> None:
        """Raise `StoreUnavailable` unless the store answers."""
        ...

    def close(self) -> None:
        """Release connections; the store is unusable afterwards."""
        ...


class WriteCycle(Protocol):
    """Writing decisions: the isolated read-decide-write cycle, groups of them in one commit,
    retention."""

    def writer(self, postings: Sequence[str] = ()) -> AbstractContextManager[None]:
        """One read-decide-write cycle, isolated from the cycles of other threads and
        processes on every document it writes: `postings` (those it will write or delete,
        read inside the cycle as they stand) and the clusters it reads. Near-duplicates sent
        at once see each other: the second one's candidate search runs after the first
        one's write, or (`concurrent_writers`) the pipeline's re-check joins them."""
        ...

    def batch(self) -> AbstractContextManager[None]:
        """Group every `apply` made by this thread inside the block into one commit (bulk
        ingest: one fsync per group instead of one per posting). Reads inside the block see
        the uncommitted writes; nothing is durable until the block exits, so callers
        acknowledge postings only after it. Holds the writer lock for the whole block."""
        ...

    @property
    def concurrent_writers(self) -> bool:
        """Whether other processes may write the index at the same time as this store (no
        global lock): the pipeline then re-checks, after each write, for near-duplicates
        written meanwhile."""
        ...

    def yield_writes(self) -> None:
        """After `StoreContended` inside `writer()`/`batch()`: make what the open batch holds
        durable (whole decisions made before the one that gave way) and let go of every
        claim, so the decision can be made again. Nothing to do for a store that never
        raises StoreContended."""
        ...

    def apply(self, changes: WriteSet) -> None:
        """Apply a decision atomically and durably: committed when this returns (inside
        `batch()`, atomically and committed when the batch exits)."""
        ...

    def expire(self, before: datetime, chunk: int = 500) -> int:
        """Retention: delete every posting posted before `before`, `chunk` postings per
        atomic apply (clusters refreshed as for any deletion: an emptied cluster goes, a
        cluster that lost its canonical gets the next member); returns how many went."""
        ...


class SearchHints(Protocol):
    """Hints that let a remote store answer a group's reads in fewer round trips; answers never
    change with or without them."""

    @property
    def reads_ahead(self) -> bool:
        """Whether `read_ahead` and `search_ahead` save anything (each read is a round trip
        to a remote engine): callers skip computing the hints when they would not."""
        ...

    def read_ahead(self, posting_ids: Sequence[str], units: Sequence[tuple[int, int]]) -> None:
        """Hint, inside `batch()`: the decisions about to be made read these postings, ask
        whether their ids name a cluster or an alias, and read these (scope, unit)
        boilerplate statistics. A remote store fetches them at once; every answer stays
        exactly what it would be without the hint."""
        ...

    def search_ahead(self, queries: Sequence[CandidateQuery]) -> None:
        """Hint, inside `batch()`: these candidate searches are about to be made, one per
        decision, in order. A remote store runs them in one round trip against the state
        before the group's pending writes (which it merges at `find_candidates` time, as
        it does for a search made then); a later search that differs from its hint, or
        that the group's own writes could change, is made live. Answers never change."""
        ...

    def prepare_searches(self, since: datetime | None) -> None:
        """Hint at start-up: candidate searches are about to cover postings from `since` on
        (None: all). A store that keeps a structure in memory for them loads it now, so the
        first request does not pay for it. Answers never change."""
        ...


class PostingSearch(Protocol):
    """What deciding a posting reads: postings, candidates, translations, the re-check,
    boilerplate statistics."""

    def get_posting(self, posting_id: str) -> StoredPosting | None:
        """The posting with this id, or None."""
        ...

    def find_candidates(self, query: CandidateQuery) -> list[StoredPosting]:
        """Postings sharing a band key or the block key, within the window (see CandidateQuery)."""
        ...

    def find_translations(self, query: TranslationQuery) -> list[StoredPosting]:
        """Postings in other languages sharing rare anchor keys with the query, within its
        window, best first (`indexer.anchor_keys`: which keys count, how they weigh and rank);
        as `find_candidates`, without documents, the current transaction's writes included."""
        ...

    def recheck_ids(
        self, queries: Sequence[CandidateQuery], since: datetime
    ) -> list[list[tuple[str, str]]]:
        """For each query, the (posting id, cluster id) of what `find_candidates` finds among
        the postings that other processes wrote at or after `since` (their clocks): the
        pipeline's re-check (`concurrent_writers`), one round trip for a group."""
        ...

    def unit_counts(
        self, scopes: Sequence[tuple[int, int]], units: Sequence[int | None]
    ) -> dict[tuple[int, int], tuple[int, bool]]:
        """Boilerplate statistics for every (scope, unit) with `scope` from `scopes` (pairs of
        scope id and the asking posting's witness in it) and `unit` from `units` (None is
        skipped): the number of witnesses recorded and whether the asking posting's witness
        is one of them. Keys never seen are left out. See `indexer.boilerplate`."""
        ...


class ClusterReads(Protocol):
    """Clusters as they stand: ids, aliases, members, canonicals, pages, the export."""

    def resolve_cluster(self, cluster_id: str) -> str | None:
        """The live cluster id for an id or an alias of a merged cluster; None if unknown."""
        ...

    def cluster_ids_in_use(self, cluster_id: str) -> bool:
        """True if the id names a live cluster or an alias (so a new cluster cannot take it)."""
        ...

    def get_cluster(self, cluster_id: str) -> ClusterInfo | None:
        """The cluster (aliases resolved) with its members; None if unknown or empty."""
        ...

    def cluster_canonicals(self, cluster_ids: Sequence[str]) -> dict[str, str]:
        """Canonical posting id of each live cluster id given (unknown ids are left out)."""
        ...

    def list_clusters(self, filters: ClusterFilter, after: str | None, limit: int) -> ClusterPage:
        """Clusters matching the filters, ordered by id, starting after `after`."""
        ...

    def iter_assignments(self) -> Iterator[Assignment]:
        """Every indexed posting with its cluster and canonical, ordered by posting id."""
        ...


class Analytics(Protocol):
    """Counts for ops and analysts."""

    def stats(self) -> IndexStats:
        """Counts and on-disk size."""
        ...

    def duplicate_stats(self, query: StatsQuery) -> DuplicateStats:
        """Postings, distinct vacancies and duplicates (by type) per bucket and group, and
        the board overlap table (see `StatsQuery`, `DuplicateStats`), computed by the index
        (SQL GROUP BY, engine aggregations), never by reading every posting here."""
        ...


class Labels(Protocol):
    """Analysts' labels and the review queue built from recorded decisions."""

    def add_feedback(self, feedback: Feedback) -> None:
        """Store (or replace) the label for the unordered pair {a_id, b_id}, with both
        postings' documents as they are now, so training does not depend on them staying
        indexed."""
        ...

    def iter_feedback(self) -> Iterator[Feedback]:
        """Every stored label, oldest first."""
        ...

    def feedback_labels(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """The stored label of each pair given that has one, keyed by the pair's ids in
        sorted order (a label is for the unordered pair)."""
        ...

    def review_pairs(self, threshold: float, margin: float, limit: int) -> list[ReviewPair]:
        """Pairs for the review queue, from the decisions the index recorded:
        - `near_threshold`: up to `limit` postings whose stored decision's score lies within
          `margin` of `threshold`, nearest first (then by id), each with the best-scored
          candidate of that decision (`indexer.review.best_candidate`);
        - `single_link_merge`: up to `limit` recorded cluster merges, newest first, each as
          the posting that bridged the clusters and its best-scored candidate from the
          absorbed cluster.
        Sides show where the postings stand now; a pair with a side no longer indexed (or
        a bridging posting whose decision has changed since) is left out."""
        ...


class IndexStore(
    Lifecycle, WriteCycle, SearchHints, PostingSearch, ClusterReads, Analytics, Labels, Protocol
):
    """Port for the index of postings, sketches, band keys and clusters: every role above."""
