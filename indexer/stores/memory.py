"""An `IndexStore` held in this process's memory, for fast tests of what sits above the port.

Plain dicts behind one lock, answering every method of the port as the adapters on disk do
(the contract suite, tests/contract, runs on it beside them); nothing is written anywhere and
nothing survives the `MemoryIndex` it wraps. It is not a backend users can choose: its
searches scan every posting (fine for the hundreds of postings of a test, not for a crawl)
and its `stats().bytes` estimates memory, not a file.

Atomicity is a snapshot: `apply` and the outermost `batch` copy the containers (shallowly:
every value kept is immutable) and put them back if the write fails, so a failed write leaves
what was there, as a rolled-back transaction does. Reads wait for a writer's batch to end
(one lock), so no reader ever sees a batch that might still be rolled back.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime

from indexer.anchor_keys import (
    MAX_ANCHOR_DF,
    TranslationQuery,
    key_weights,
    language_key,
    other_languages,
    ranked,
    searched_keys,
)
from indexer.boilerplate import counts_in
from indexer.minhash import SketchParams
from indexer.review import best_candidate, pair_key
from indexer.stats import DAY_US, CountedRow, assemble, overlap_from_sets, to_us
from indexer.store import (
    SCHEMA_VERSION,
    Assignment,
    CandidateQuery,
    ClusterFilter,
    ClusterInfo,
    ClusterMember,
    ClusterPage,
    ClusterSummary,
    DuplicateStats,
    Feedback,
    IndexStats,
    ReviewPair,
    ReviewReason,
    ReviewSide,
    StatsQuery,
    StoredPosting,
    StoreUnavailable,
    WriteSet,
    check_compatible,
)


@dataclass(frozen=True)
class _Cluster:
    id: str
    size: int
    first_seen: datetime
    last_seen: datetime
    canonical_id: str
    sources: tuple[str, ...]


@dataclass
class _State:
    """Everything an index holds; containers are replaced or copied, values never change."""

    postings: dict[str, StoredPosting] = field(default_factory=dict)
    keys: dict[str, frozenset[int]] = field(default_factory=dict)
    members: dict[str, frozenset[str]] = field(default_factory=dict)
    clusters: dict[str, _Cluster] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    merges: list[tuple[str, str, str]] = field(default_factory=list)
    feedback: dict[tuple[str, str], Feedback] = field(default_factory=dict)
    units: dict[tuple[int, int], frozenset[int]] = field(default_factory=dict)

    def copy(self) -> _State:
        return _State(
            dict(self.postings),
            dict(self.keys),
            dict(self.members),
            dict(self.clusters),
            dict(self.aliases),
            list(self.merges),
            dict(self.feedback),
            dict(self.units),
        )


class MemoryIndex:
    """The data of one in-memory index, which `MemoryStore`s open (a test's "data
    directory": closing a store and opening another on the same `MemoryIndex` finds it)."""

    def __init__(self, params: SketchParams) -> None:
        self.params = params
        self.state = _State()
        self.lock = threading.RLock()


class MemoryStore:
    """`IndexStore` over a `MemoryIndex` (see the module docstring)."""

    def __init__(self, index: MemoryIndex, params: SketchParams) -> None:
        check_compatible("in-memory index", SCHEMA_VERSION, index.params.to_dict(), params)
        self.index = index
        self._params = params
        self._local = threading.local()  # .depth: batches open in this thread
        self._closed = False

    # -- lifecycle ------------------------------------------------------------------------

    @property
    def params(self) -> SketchParams:
        return self._params

    def ping(self) -> None:
        self._state()

    def close(self) -> None:
        self._closed = True

    def _state(self) -> _State:
        if self._closed:
            raise StoreUnavailable("in-memory index store is closed")
        return self.index.state

    @contextmanager
    def _reading(self) -> Iterator[_State]:
        with self.index.lock:
            yield self._state()

    # -- write cycle ----------------------------------------------------------------------

    def writer(self, postings: Sequence[str] = ()) -> AbstractContextManager[None]:
        """The index's one lock (re-entrant), which covers every posting."""
        return self._locked()

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self.index.lock:
            yield

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Every apply of the block kept or, if the block fails, none (a snapshot taken by
        the outermost batch); the lock is held throughout."""
        with self.index.lock:
            depth = getattr(self._local, "depth", 0)
            before = self._state().copy() if depth == 0 else None
            self._local.depth = depth + 1
            try:
                yield
            except BaseException:
                if before is not None:
                    self.index.state = before
                raise
            finally:
                self._local.depth = depth

    @property
    def concurrent_writers(self) -> bool:
        return False

    def yield_writes(self) -> None:
        """Nothing: this store never gives way."""

    def apply(self, changes: WriteSet) -> None:
        """Deletions, merges, upserts, then the touched clusters recomputed, all or none."""
        for posting, _ in changes.upserts:
            if len(posting.sketch) != self._params.num_perm:
                raise ValueError(
                    f"posting {posting.id}: sketch has {len(posting.sketch)} values, the index "
                    f"expects num_perm={self._params.num_perm}"
                )
        with self.index.lock:
            before = self._state()
            state = before.copy()
            _write(state, changes)
            self.index.state = state

    def expire(self, before: datetime, chunk: int = 500) -> int:
        """Delete the postings posted before `before`, oldest first, `chunk` per apply."""
        deleted = 0
        while True:
            with self._reading() as state:
                old = sorted(
                    (p.posted_at, p.id) for p in state.postings.values() if p.posted_at < before
                )[:chunk]
                if not old:
                    return deleted
                self.apply(WriteSet(deletions=[pid for _, pid in old]))
            deleted += len(old)

    # -- search hints: nothing to save in memory ------------------------------------------

    @property
    def reads_ahead(self) -> bool:
        return False

    def read_ahead(self, posting_ids: Sequence[str], units: Sequence[tuple[int, int]]) -> None:
        """Nothing to fetch ahead."""

    def search_ahead(self, queries: Sequence[CandidateQuery]) -> None:
        """Nothing to fetch ahead."""

    def prepare_searches(self, since: datetime | None) -> None:
        """Nothing to load."""

    # -- what deciding reads --------------------------------------------------------------

    def get_posting(self, posting_id: str) -> StoredPosting | None:
        with self._reading() as state:
            return state.postings.get(posting_id)

    def find_candidates(self, query: CandidateQuery) -> list[StoredPosting]:
        """Postings sharing band keys (counted) or the block key, in the inclusive window,
        by shared keys, posted_at and id, without documents."""
        if query.limit <= 0:
            return []
        wanted = set(query.band_keys)
        block = query.block_key if query.block_key and query.block_key != "|" else None
        with self._reading() as state:
            hits = [
                (len(wanted & state.keys[p.id]), p)
                for p in state.postings.values()
                if p.id != query.exclude_id and _within(p.posted_at, query.since, query.until)
            ]
        found = [(shared, p) for shared, p in hits if shared or p.block_key == block]
        found.sort(key=lambda item: (-item[0], item[1].posted_at, item[1].id))
        return [_bare(p) for _, p in found[: query.limit]]

    def find_translations(self, query: TranslationQuery) -> list[StoredPosting]:
        """`indexer.anchor_keys`' ranking over the window's postings, counted by a scan."""
        languages = other_languages(query)
        if not languages:
            return []
        with self._reading() as state:
            window = [
                (p, state.keys[p.id])
                for p in state.postings.values()
                if _within(p.posted_at, query.since, query.until)
            ]
        held = {lang: sum(language_key(lang) in keys for _, keys in window) for lang in languages}
        present = {lang: n for lang, n in held.items() if n}
        searched = searched_keys(query, list(present))
        per_key = {
            key: min(sum(key in k for _, k in window), MAX_ANCHOR_DF + 1) for key in searched
        }
        weights = key_weights(query, per_key, present)
        scores = {
            p.id: (sum(weights[k] for k in keys & weights.keys()), p.posted_at)
            for p, keys in window
            if p.id != query.exclude_id and keys & weights.keys()
        }
        postings = {p.id: p for p, _ in window}
        return [_bare(postings[pid]) for pid in ranked(scores, query.limit, query.near)]

    def recheck_ids(
        self, queries: Sequence[CandidateQuery], since: datetime
    ) -> list[list[tuple[str, str]]]:
        """Nothing: no other process writes this index."""
        return [[] for _ in queries]

    def unit_counts(
        self, scopes: Sequence[tuple[int, int]], units: Sequence[int | None]
    ) -> dict[tuple[int, int], tuple[int, bool]]:
        with self._reading() as state:
            return counts_in(state.units, scopes, units)

    # -- clusters -------------------------------------------------------------------------

    def resolve_cluster(self, cluster_id: str) -> str | None:
        with self._reading() as state:
            return _resolve(state, cluster_id)

    def cluster_ids_in_use(self, cluster_id: str) -> bool:
        with self._reading() as state:
            return (
                cluster_id in state.clusters
                or cluster_id in state.aliases
                or cluster_id in state.aliases.values()
            )

    def get_cluster(self, cluster_id: str) -> ClusterInfo | None:
        with self._reading() as state:
            live = _resolve(state, cluster_id)
            if live is None:
                return None
            summary = _summary(state, state.clusters[live])
            members = sorted(
                (state.postings[pid] for pid in state.members.get(live, ())),
                key=lambda p: (p.posted_at, p.id),
            )
            aliases = sorted(a for a, target in state.aliases.items() if target == live)
        return ClusterInfo(
            **vars(summary),
            aliases=aliases,
            members=[
                ClusterMember(p.id, p.title, p.company, p.source, p.posted_at) for p in members
            ],
        )

    def cluster_canonicals(self, cluster_ids: Sequence[str]) -> dict[str, str]:
        with self._reading() as state:
            return {
                cid: state.clusters[cid].canonical_id
                for cid in cluster_ids
                if cid in state.clusters
            }

    def list_clusters(self, filters: ClusterFilter, after: str | None, limit: int) -> ClusterPage:
        limit = max(limit, 0)
        needle = None if filters.title is None else filters.title.casefold()
        with self._reading() as state:
            page: list[ClusterSummary] = []
            for cid in sorted(state.clusters):
                if len(page) > limit:
                    break
                cluster = state.clusters[cid]
                members = [state.postings[pid] for pid in state.members.get(cid, ())]
                if (
                    cluster.size >= filters.min_size
                    and (after is None or cid > after)
                    and (filters.since is None or cluster.last_seen >= filters.since)
                    and (filters.until is None or cluster.first_seen <= filters.until)
                    and (
                        filters.company_key is None
                        or any(p.company_key == filters.company_key for p in members)
                    )
                    and (filters.source is None or any(p.source == filters.source for p in members))
                    and (needle is None or any(needle in p.title.casefold() for p in members))
                ):
                    page.append(_summary(state, cluster))
        more = len(page) > limit and limit > 0
        return ClusterPage(clusters=page[:limit], next_after=page[limit - 1].id if more else None)

    def iter_assignments(self) -> Iterator[Assignment]:
        with self._reading() as state:
            rows = [
                (p.id, p.cluster_id, state.clusters.get(p.cluster_id))
                for p in sorted(state.postings.values(), key=lambda p: p.id)
            ]
        for pid, cluster_id, cluster in rows:
            canonical = None if cluster is None else cluster.canonical_id
            yield Assignment(pid, cluster_id, None if canonical in (None, pid) else canonical)

    # -- analytics ------------------------------------------------------------------------

    def stats(self) -> IndexStats:
        """Counts, and as `bytes` what the postings hold (sketches, keys and their JSON
        documents and decisions): there is no file, so the figure is memory, estimated."""
        with self._reading() as state:
            held = sum(
                8 * (len(p.sketch) + len(state.keys[p.id]))
                + len(json.dumps(p.document, ensure_ascii=False))
                + len(json.dumps(p.decision, ensure_ascii=False))
                for p in state.postings.values()
            )
            count = len(state.postings)
            return IndexStats(postings=count, clusters=len(state.clusters), bytes=held)

    def duplicate_stats(self, query: StatsQuery) -> DuplicateStats:
        """Counted from every posting of the window, grouped as the adapters on disk group."""
        with self._reading() as state:
            rows: list[CountedRow] = []
            for p in state.postings.values():
                if (query.since is not None and p.posted_at < query.since) or (
                    query.until is not None and p.posted_at >= query.until
                ):
                    continue
                micros = to_us(p.posted_at)
                group = {"source": p.source, "company": p.company_key, None: None}[query.by]
                cluster = state.clusters.get(p.cluster_id)
                canonical = cluster is not None and cluster.canonical_id == p.id
                kind = p.decision.get("duplicate_type")
                rows.append((micros - micros % DAY_US, group or None, canonical, kind or None, 1))
            sets = [
                (list(c.sources), 1)
                for c in state.clusters.values()
                if (query.since is None or c.last_seen >= query.since)
                and (query.until is None or c.first_seen < query.until)
            ]
        per_source, overlaps = overlap_from_sets(sets)
        return assemble(rows, query.interval, per_source, overlaps)

    # -- labels ---------------------------------------------------------------------------

    def add_feedback(self, feedback: Feedback) -> None:
        first, second = sorted(
            [(feedback.a_id, feedback.a_document), (feedback.b_id, feedback.b_document)],
            key=lambda side: side[0],
        )
        stored = replace(
            feedback, a_id=first[0], b_id=second[0], a_document=first[1], b_document=second[1]
        )
        with self.index.lock:
            state = self._state().copy()
            state.feedback.pop((first[0], second[0]), None)  # a new label goes last
            state.feedback[(first[0], second[0])] = stored
            self.index.state = state

    def iter_feedback(self) -> Iterator[Feedback]:
        with self._reading() as state:
            labels = list(state.feedback.values())
        yield from sorted(labels, key=lambda f: (f.at, f.a_id, f.b_id))

    def feedback_labels(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
        with self._reading() as state:
            keys = dict.fromkeys(pair_key(a, b) for a, b in pairs)
            return {key: state.feedback[key].label for key in keys if key in state.feedback}

    def review_pairs(self, threshold: float, margin: float, limit: int) -> list[ReviewPair]:
        if limit <= 0:
            return []
        with self._reading() as state:
            near = sorted(
                (abs(score - threshold), p.id)
                for p in state.postings.values()
                if isinstance(score := p.decision.get("score"), int | float)
                and abs(score - threshold) <= margin
            )[:limit]
            found: list[tuple[StoredPosting, str | None, ReviewReason]] = [
                (state.postings[pid], None, "near_threshold") for _, pid in near
            ]
            found += [
                (state.postings[by], absorbed, "single_link_merge")
                for absorbed, _, by in reversed(state.merges)
                if by in state.postings
            ][:limit]
            pairs: list[ReviewPair] = []
            for posting, absorbed, reason in found:
                best = best_candidate(posting.decision, absorbed)
                if best is not None and best[0] in state.postings:
                    pairs.append(
                        ReviewPair(_side(posting), _side(state.postings[best[0]]), best[1], reason)
                    )
        return pairs


def open_memory_store(index: MemoryIndex | None, params: SketchParams) -> MemoryStore:
    """A store over `index` (a new empty one if None), refused if its parameters differ."""
    return MemoryStore(MemoryIndex(params) if index is None else index, params)


# -- writes ---------------------------------------------------------------------------------


def _write(state: _State, changes: WriteSet) -> None:
    """`WriteSet` applied to a copy of the state (the caller keeps it only if this returns)."""
    for scope, unit, witness in changes.unit_observations:
        key = (scope, unit)
        state.units[key] = state.units.get(key, frozenset()) | {witness}
    touched: set[str] = set()
    for posting_id in changes.deletions:
        touched.update(_remove(state, posting_id))
    for merge in changes.merges:
        touched.add(_merge(state, merge.absorbed, merge.survivor, merge.posting_id))
    for posting, keys in changes.upserts:
        touched.update(_remove(state, posting.id))
        cluster_id = state.aliases.get(posting.cluster_id, posting.cluster_id)
        state.postings[posting.id] = replace(posting, cluster_id=cluster_id)
        state.keys[posting.id] = frozenset(keys)
        state.members[cluster_id] = state.members.get(cluster_id, frozenset()) | {posting.id}
        touched.add(cluster_id)
    for cluster_id in sorted(touched):
        _refresh(state, cluster_id)


def _remove(state: _State, posting_id: str) -> list[str]:
    posting = state.postings.pop(posting_id, None)
    if posting is None:
        return []
    del state.keys[posting_id]
    state.members[posting.cluster_id] = state.members[posting.cluster_id] - {posting_id}
    return [posting.cluster_id]


def _merge(state: _State, absorbed: str, survivor: str, by: str) -> str:
    """Fold `absorbed` into `survivor`, both unaliased first (A->B then B->C leaves A->C)."""
    absorbed = state.aliases.get(absorbed, absorbed)
    survivor = state.aliases.get(survivor, survivor)
    if absorbed == survivor:
        return survivor
    moved = state.members.pop(absorbed, frozenset())
    for pid in moved:
        state.postings[pid] = replace(state.postings[pid], cluster_id=survivor)
    state.members[survivor] = state.members.get(survivor, frozenset()) | moved
    for alias, target in list(state.aliases.items()):
        if target == absorbed:
            state.aliases[alias] = survivor
    state.aliases[absorbed] = survivor
    state.merges.append((absorbed, survivor, by))
    state.clusters.pop(absorbed, None)
    return survivor


def _refresh(state: _State, cluster_id: str) -> None:
    """Size, first and last seen, canonical (earliest, then smallest id) and sources from the
    members; the cluster goes when none are left."""
    members = [state.postings[pid] for pid in state.members.get(cluster_id, ())]
    if not members:
        state.clusters.pop(cluster_id, None)
        state.members.pop(cluster_id, None)
        return
    canonical = min(members, key=lambda p: (p.posted_at, p.id))
    state.clusters[cluster_id] = _Cluster(
        cluster_id,
        len(members),
        canonical.posted_at,
        max(p.posted_at for p in members),
        canonical.id,
        tuple(sorted({p.source for p in members if p.source is not None})),
    )


# -- reads ----------------------------------------------------------------------------------


def _resolve(state: _State, cluster_id: str) -> str | None:
    live = state.aliases.get(cluster_id, cluster_id)
    return live if live in state.clusters else None


def _summary(state: _State, cluster: _Cluster) -> ClusterSummary:
    canonical = state.postings[cluster.canonical_id]
    return ClusterSummary(
        id=cluster.id,
        size=cluster.size,
        first_seen=cluster.first_seen,
        last_seen=cluster.last_seen,
        canonical_id=cluster.canonical_id,
        title=canonical.title,
        company=canonical.company,
        source=canonical.source,
    )


def _side(posting: StoredPosting) -> ReviewSide:
    return ReviewSide(
        id=posting.id,
        title=posting.title,
        company=posting.company,
        source=posting.source,
        cluster_id=posting.cluster_id,
        posted_at=posting.posted_at,
    )


def _within(moment: datetime, since: datetime | None, until: datetime | None) -> bool:
    return (since is None or moment >= since) and (until is None or moment <= until)


def _bare(posting: StoredPosting) -> StoredPosting:
    """A candidate as the port returns it: without document and decision."""
    return replace(posting, document={}, decision={})
