"""`ElasticStore`: the `IndexStore` on Elasticsearch 8/9 or OpenSearch 2.x.

One adapter for both engines, parametrised by an `EngineClient` over either official client;
request bodies come from `stores.elastic.bodies`, documents from `stores.elastic.docs`.

How the port's promises are kept on an engine whose searches lag writes by a refresh:
- **Read-after-write**: postings are written with `refresh=true` (configurable: `wait_for`),
  so an `apply` returns only once its postings are searchable, on every replica. Lookups by
  id (postings, clusters, aliases, claims, tickets) are real-time GETs and need no refresh;
  the cluster listing and stats refresh the clusters index before they search it.
- **No global lock** (`indexer.stores.elastic.claims`, docs/concurrency.md): `writer()` is a write
  cycle. A per-instance lock queues this process's threads; across instances, the cycle
  claims the documents it writes (its postings, the clusters it reads to join, leave, merge
  or name) before reading them, so cycles on unrelated postings run in parallel and two
  that write one cluster take turns. A cycle that meets an older cycle's claim gives way
  (`StoreContended`; `yield_writes`, then the pipeline decides again); near-duplicates
  written at once by two instances are joined by the pipeline's re-check after the write.
  Waiting for the lock and the claims ends at `lease_wait_s` (default: the client's
  timeout) with `StoreUnavailable`: a frozen engine gives 503s, not a growing queue.
- **Nothing half-written**: each flush is journaled in this store's ticket before its bulk;
  a journal left by a failed bulk is replayed by this store's next cycle, or, if the
  instance died, by whoever takes one of its claims or sweeps its expired ticket first,
  before any document it covers can be claimed again.
- **batch()**: one write cycle for the whole block, which keeps the block's writes in memory
  (a `Workspace`); reads of this thread inside the block merge them (candidates, postings,
  clusters), and one bulk (one refresh) sends them all when the block exits. Reads that
  cannot merge (listing, export, stats) flush first. An exception discards the block.
- **Retention**: `expire(before)` deletes postings posted before a date through `apply`
  (clusters stay consistent), in chunks found by a range query. With month indices
  (`partitions="month"`, `indexer.stores.elastic.partitions`) every month wholly before the
  cut-off goes in one request once its postings have left their clusters: their `_id`s
  still resolve with real-time multi-gets (each known month is asked, the registry of
  months read alongside), a posting whose `posted_at` moves is deleted from its old month,
  and clusters spanning months are rewritten as before.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from indexer.anchor_keys import TranslationQuery
from indexer.boilerplate import counts_from_witnesses
from indexer.minhash import SketchParams
from indexer.store import (
    Assignment,
    CandidateQuery,
    ClusterFilter,
    ClusterInfo,
    ClusterPage,
    DuplicateStats,
    Feedback,
    IncompatibleIndex,
    IndexStats,
    ReviewPair,
    StatsQuery,
    StoreContended,
    StoredPosting,
    StoreError,
    StoreUnavailable,
    WriteSet,
)
from indexer.stores.elastic import review as elastic_review
from indexer.stores.elastic import stats as elastic_stats
from indexer.stores.elastic.bodies import (
    MAX_SCORED_KEYS,
    MAX_TERMS,
    REVIEW_SINCE,
    STATS_SINCE,
    IndexNames,
    assignments_page_query,
    candidate_query,
    cluster_listing_query,
    feedback_id,
    feedback_page_query,
    ids_before_query,
    index_names,
    live_clusters_count,
    recent_writes_query,
    recheck_query,
    to_micros,
)
from indexer.stores.elastic.claims import TTL_S, Claims
from indexer.stores.elastic.client import EngineClient, Operation, part
from indexer.stores.elastic.docs import (
    Source,
    cluster_info,
    cluster_summary,
    feedback_from_source,
    feedback_source,
    posting_from_source,
)
from indexer.stores.elastic.partitions import (
    DROPPING,
    PARTITIONS_ID,
    Partitions,
    PartitionScheme,
    create_partition_body,
    partition_end,
    partition_from_index,
    partition_index,
    partition_page_query,
    partition_pattern,
    registered,
    registry_set,
    window_months,
)
from indexer.stores.elastic.plan import (
    SearchKey,
    Workspace,
    overlay_matches,
    plan_apply,
    unit_key,
    without_documents,
)
from indexer.stores.elastic.setup import (
    META_ID,
    EngineFetcher,
    check_writable,
    fields_version,
    open_indices,
    write_index,
)
from indexer.stores.elastic.translations import LanguagesSeen, TranslationSearch

logger = logging.getLogger(__name__)

PAGE = 1000  # postings per iter_assignments page
MAX_BATCH_POSTINGS = 4096  # a batch holding more pending postings is flushed early (memory)
RECHECK_SCAN = 5000  # recent postings of other stores matched in memory by a re-check
PING_S = 3.0  # readiness answers within this (or the client's timeout, if shorter)


def _target(operation: Operation) -> str:
    """The index a bulk operation writes to."""
    return str(next(iter(operation[0].values()))["_index"])


def _is_posting_index(alias: str, index: str) -> bool:
    return index == alias or index.startswith(f"{alias}-")


class ElasticStore:
    """`IndexStore` on a search engine (see the module docstring for the mechanisms)."""

    def __init__(
        self,
        client: EngineClient,
        params: SketchParams,
        prefix: str,
        refresh: str = "true",
        create: bool = True,
        lease_ttl_s: float = TTL_S,
        lease_wait_s: float | None = None,
        shards: int = 1,
        partitions: PartitionScheme = "none",
        drop_grace_s: float | None = None,
    ) -> None:
        if refresh not in ("true", "wait_for"):
            raise ValueError(f"refresh must be 'true' or 'wait_for', not {refresh!r}")
        self._client = client
        self._params = params
        self._names = index_names(prefix)
        self._refresh = refresh
        self._shards = shards
        self._partitions = Partitions(partitions)
        self._drop_grace_s = drop_grace_s
        self._made: set[str] = set()  # month indices this process created or found there
        self._dropping: frozenset[str] = frozenset()  # months expire() is dropping (its cycles)
        self._claims = Claims(client, self._names.clusters, self._replay, ttl_s=lease_ttl_s)
        self._instance = uuid.uuid4().hex  # names this store's posting writes (`recheck_ids`)
        self._wait_s = client.timeout if lease_wait_s is None else lease_wait_s
        self._lock = threading.Lock()
        self._depth = 0  # writer() nesting of the thread holding _lock
        self._holder: int | None = None  # that thread's id
        self._workspace: Workspace | None = None  # the open cycle's reads and pending writes
        self._batching = False  # inside batch(): applies wait for the block's end
        self._broken = False  # a journaled bulk failed: keep the claims for the replay
        self._poisoned = False  # an apply failed half way through folding into the batch
        self._closed = False
        if params.bands > MAX_SCORED_KEYS:
            raise IncompatibleIndex(
                f"bands={params.bands}: the search-engine backend scores at most "
                f"{MAX_SCORED_KEYS} band keys per query"
            )
        open_indices(client, self._names, params, create, shards)
        self._fetcher = EngineFetcher(
            client, self._names, write_index(client, self._names), self._partitions
        )
        self._fields = 0  # the added fields known present (`_require_fields`)
        self._translations = TranslationSearch(client, self._names.postings, LanguagesSeen())
        # Runs the searches announced ahead while the deciding thread decides (`search_ahead`).
        self._ahead = ThreadPoolExecutor(max_workers=1, thread_name_prefix="search-ahead")
        # Sends a write's cluster documents while the deciding thread sends its postings.
        self._beside = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bulk-beside")

    @property
    def params(self) -> SketchParams:
        """The sketch parameters this index was created with (checked equal at open)."""
        return self._params

    @property
    def names(self) -> IndexNames:
        """Index, alias and template names (for operations tooling and tests)."""
        return self._names

    # -- lifecycle ------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise StoreUnavailable(f"index store {self._names.prefix} is closed")

    def ping(self) -> None:
        """Raise `StoreUnavailable` (with the reason) unless the engine answers a real-time
        GET of this index's meta document and would accept writes: no block on our indices
        or the cluster (read-only after the disk watermark, a write block), every primary
        shard of our indices assigned (health not red), a master elected."""
        self._check_open()
        with self._client.until(time.monotonic() + min(PING_S, self._client.timeout)):
            if self._client.get(self._names.clusters, META_ID) is None:
                raise StoreError(f"index {self._names.prefix} has no meta document")
            check_writable(self._client, self._names)

    def close(self) -> None:
        """Close the client's connections; the store is unusable afterwards."""
        self._closed = True
        self._ahead.shutdown(wait=False, cancel_futures=True)
        self._beside.shutdown(wait=False, cancel_futures=True)
        self._claims.close()
        self._client.transport.close()

    # -- write cycles and batches ----------------------------------------------------------

    @property
    def concurrent_writers(self) -> bool:
        """Yes: other instances may write the index at the same time (no global lock), so
        the pipeline re-checks for near-duplicates written meanwhile."""
        return True

    @contextmanager
    def writer(self, postings: Sequence[str] = ()) -> Iterator[None]:
        """A write cycle (re-entrant within the holding thread): this instance's lock, the
        claims of `postings` at once, then the claims the cycle's reads make (see the module
        docstring). Waiting for the lock and each claim ends within `lease_wait_s` with
        StoreUnavailable; an older write holding a claim gives StoreContended."""
        if self._mine():
            if postings and self._workspace is not None:
                self._workspace.claim_postings(postings)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        deadline = time.monotonic() + self._wait_s
        if not self._lock.acquire(timeout=self._wait_s):
            raise StoreUnavailable(
                f"another request of this instance held the writer for {self._wait_s} s"
            )
        try:
            self._check_open()
            self._depth, self._holder, self._broken = 1, threading.get_ident(), False
            error: BaseException | None = None
            try:
                with self._client.until(deadline):
                    self._claims.begin()
                self._workspace = self._cycle_workspace()
                if postings:
                    self._workspace.claim_postings(postings)
                yield
            except BaseException as exc:
                error = exc
                raise
            finally:
                self._depth, self._holder, self._workspace = 0, None, None
                try:
                    self._let_go(error)
                finally:
                    self._claims.end()
        finally:
            self._lock.release()

    def _cycle_workspace(self) -> Workspace:
        claimer = _CycleClaims(self._claims, self._client, self._wait_s)
        return Workspace(self._fetcher, claimer, self._partitions)

    def _let_go(self, error: BaseException | None) -> None:
        if self._broken or (
            isinstance(error, StoreUnavailable) and not isinstance(error, StoreContended)
        ):
            # A journal that must survive until replayed, or an engine that does not answer:
            # the claims stay, for this store's next cycle to release (after replaying), or
            # for the others to take once this store's ticket expires.
            self._claims.keep()
            return
        try:
            self._claims.release()
        except StoreError as exc:
            logger.warning("could not release the cycle's claims: %s", exc)
            return
        if error is None:
            self._claims.finish()

    def yield_writes(self) -> None:
        """Give way after StoreContended: send what the open batch holds (decisions made
        before the one that gave way, whole), let go of every claim, and go on with an empty
        workspace; the cycle keeps its age, so its retry is older than any newcomer."""
        if not self._mine() or self._workspace is None:
            return
        if self._workspace.pending:
            self._flush(self._workspace)
        self._claims.release()
        self._workspace = self._cycle_workspace()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group the applies of this thread into one bulk sent when the block exits."""
        with self.writer():
            if self._batching:
                yield
                return
            self._batching, self._poisoned = True, False
            try:
                yield
                if self._poisoned:
                    raise StoreError("an apply failed inside the batch; nothing was written")
                assert self._workspace is not None
                self._flush(self._workspace)
            finally:
                self._batching = False

    def _mine(self) -> bool:
        return self._holder == threading.get_ident()

    def _reader(self) -> Workspace:
        """The open cycle's workspace for its own thread; a fresh one (engine only) else."""
        if self._workspace is not None and self._mine():
            return self._workspace
        return Workspace(self._fetcher)

    def _sync(self) -> None:
        """Flush the open cycle of this thread (before reads that cannot merge it)."""
        if self._workspace is not None and self._mine() and self._workspace.pending:
            self._flush(self._workspace)
            self._workspace = self._cycle_workspace()

    def _flush(self, workspace: Workspace) -> None:
        stamp = {"written_us": int(time.time() * 1_000_000), "written_by": self._instance}
        operations = workspace.pending.operations(self._names, stamp, self._dropping)
        if not operations:
            return
        self._make_months(operations)
        # Until the bulk is through, the ticket holds a journal that must be replayed: if
        # anything fails from here on, the claims are kept rather than released.
        self._broken = True
        self._claims.journal(operations)
        self._send(operations)
        self._claims.journal(())  # cleared before the claims go: never replayed over newer
        self._broken = False

    def _send(self, operations: Sequence[Operation]) -> None:
        """Cluster documents (no refresh: they are read by real-time GET, and the listing
        refreshes before it searches) and postings (refreshed before this returns, so the
        next candidate search sees them: one refresh per write instead of two), as two bulks
        at once, within one deadline. Nothing needs them in order: other writers wait on the
        claims until both are through, and the journal covers a write that failed half way.
        With both changes of c7433a4 (this and the statistics read with the postings),
        `/dedup` at 32 in flight went from 50 to 62 requests/s (README, engine section)."""
        postings = self._names.postings
        ops = [(op, _is_posting_index(postings, _target(op))) for op in operations]
        others = [op for op, is_posting in ops if not is_posting]
        mine = [op for op, is_posting in ops if is_posting]
        if not (others and mine):
            self._client.bulk(others or mine, "false" if others else self._refresh)
            return
        deadline = self._client.deadline()

        def send_others() -> None:
            with self._client.until(deadline):
                self._client.bulk(others, "false")

        beside = self._beside.submit(send_others)
        try:
            self._client.bulk(mine, self._refresh)
        finally:
            wait([beside])
        beside.result()  # raises what the cluster bulk raised

    def _make_months(self, operations: Sequence[Operation]) -> None:
        """Create the month indices a bulk writes into, the first time this process does
        (with `JOBDEDUP_SEARCH_SHARDS` shards; the engine would make them from the template
        with one). Registering them is the bulk's own business (`Pending.operations`).
        Without months this store never writes a posting into one (a delete or partial
        update of another store's month addresses an index that exists)."""
        if self._partitions.scheme == "none":
            return
        for index in dict.fromkeys(_target(op) for op in operations):
            if index not in self._made and partition_from_index(self._names, index):
                self._client.create_index(
                    index, create_partition_body(self._names.postings, self._shards)
                )
                self._made.add(index)

    def _replay(self, operations: Sequence[Operation]) -> None:
        self._send(operations)

    # -- writes ---------------------------------------------------------------------------

    def apply(self, changes: WriteSet) -> None:
        """Fold the changes into the workspace; outside a batch, journal and send them as
        one bulk, searchable when this returns."""
        for posting, _ in changes.upserts:
            if len(posting.sketch) != self._params.num_perm:
                raise ValueError(
                    f"posting {posting.id}: sketch has {len(posting.sketch)} values, the index "
                    f"expects num_perm={self._params.num_perm}"
                )
        for _, keys in changes.upserts:
            self._translations.languages.written(keys)
        with self.writer():
            workspace = self._workspace
            assert workspace is not None
            try:
                plan_apply(workspace, changes)
            except StoreContended:
                raise  # raised by a claim, before plan_apply changed anything
            except BaseException:
                self._poisoned = self._batching  # the workspace may hold part of this apply
                if not self._batching:
                    self._workspace = self._cycle_workspace()
                raise
            if not self._batching:
                self._flush(workspace)
                self._workspace = self._cycle_workspace()
                return
            self._claims.renew_if_due()
            if len(workspace.pending.postings) >= MAX_BATCH_POSTINGS:
                self._sync()

    def expire(self, before: datetime, chunk: int = 500) -> int:
        """Retention: delete every posting posted before `before` (a datetime); returns how
        many were deleted. Every month index wholly before `before` goes in one request once
        its postings have left their clusters (`indexer.stores.elastic.partitions`; when other
        stores hold tickets, the store's `drop_grace_s` waits out write cycles that read the
        registry before the month was marked, by default the longest a cycle may last);
        the rest are deleted chunk by chunk, each chunk one writer cycle."""
        grace_s = self._drop_grace_s
        if grace_s is None:
            grace_s = self._wait_s + 2 * self._client.timeout
        deleted = self._drop_months(self._months_before(before), chunk, grace_s)
        while True:
            hits = self._client.search(
                self._names.postings, ids_before_query(to_micros(before), chunk)
            )
            ids = [hit["_source"]["posting_id"] for hit in hits]
            if not ids:
                return deleted
            self.apply(WriteSet(deletions=ids))
            deleted += len(ids)

    def _months_before(self, before: datetime) -> list[str]:
        """Month indices wholly before `before`: those the registry names, and any other
        the engine holds (one a replayed journal made again after its month was dropped)."""
        registry = self._client.get(self._names.clusters, PARTITIONS_ID)
        named = set(registered((registry or {}).get("_source")))
        path = f"/{part(partition_pattern(self._names))}/_alias"
        held = self._client.call(
            "GET", path, {"ignore_unavailable": "true"}, what="list month indices"
        )
        named |= {
            m for m in (partition_from_index(self._names, i) for i in held or {}) if m is not None
        }
        return sorted(m for m in named if to_micros(partition_end(m)) <= to_micros(before))

    def _drop_months(self, months: Sequence[str], chunk: int, grace_s: float) -> int:
        """Drop month indices: mark them all, take their postings out of their clusters
        (nothing sent to the indices themselves), wait out older write cycles once, take
        out those written since the mark, then delete each index and forget its month (the
        steps and their argument: `indexer.stores.elastic.partitions`). Returns the postings."""
        if not months:
            return 0
        registry = {"_index": self._names.clusters, "_id": PARTITIONS_ID}
        marks = [({"update": registry}, registry_set(m, DROPPING)) for m in months]
        self._client.bulk(marks, "false")
        marked = time.monotonic()
        # Writers stamp with their own clock: the last page reaches back one timeout more.
        mark_us = int(time.time() * 1_000_000) - int(self._client.timeout * 1_000_000)
        seen: dict[str, set[str]] = {m: set() for m in months}
        for month in months:
            self._leave_clusters(month, chunk, None, seen[month])
        if self._claims.other_tickets():
            time.sleep(max(0.0, marked + grace_s - time.monotonic()))
        else:
            # No other store has written since before the mark (each writes under a
            # ticket, made before its first read): only this process's cycles can have
            # read the registry before it, and they hold this lock until they end.
            with self._lock:
                pass
        for month in months:
            index = partition_index(self._names, month)
            self._leave_clusters(month, chunk, mark_us, seen[month])
            self._client.call(
                "DELETE", f"/{part(index)}", {"ignore_unavailable": "true"}, what="drop month"
            )
            self._made.discard(index)
            self._client.bulk([({"update": registry}, registry_set(month, None))], "false")
            logger.info("dropped month index %s (%d postings)", index, len(seen[month]))
        return sum(len(ids) for ids in seen.values())

    def _leave_clusters(
        self,
        month: str,
        chunk: int,
        written_since_us: int | None,
        seen: set[str],
    ) -> None:
        """Delete, through the writer path, the postings of a month index being dropped
        (those written since `written_since_us`, if given) not in `seen`, page by page in
        id order, adding them to `seen`; the deletes aimed at the index itself are left
        out, so its documents stay to page on."""
        after: str | None = None
        index = partition_index(self._names, month)
        try:
            self._client.refresh(index)
        except StoreError:
            return  # gone already: an earlier pass deleted it, and forgets the month now
        while True:
            body = partition_page_query(after, chunk, written_since_us)
            ids = [hit["_source"]["posting_id"] for hit in self._client.search(index, body)]
            if not ids:
                return
            fresh = [pid for pid in ids if pid not in seen]
            if fresh:
                with self.writer():  # set inside the cycle: no other cycle flushes with it
                    self._dropping = frozenset({month})
                    try:
                        self.apply(WriteSet(deletions=fresh))
                    finally:
                        self._dropping = frozenset()
                seen.update(fresh)
            after = ids[-1]

    # -- reads ----------------------------------------------------------------------------

    def get_posting(self, posting_id: str) -> StoredPosting | None:
        """The posting with this id (real-time GET; the open batch's writes included)."""
        self._check_open()
        source = self._reader().posting(posting_id)
        return None if source is None else posting_from_source(source)

    @property
    def reads_ahead(self) -> bool:
        """Yes: each read is a round trip, and a group's reads fit in a few."""
        return True

    def read_ahead(self, posting_ids: Sequence[str], units: Sequence[tuple[int, int]]) -> None:
        """Fetch, in one multi-get, the postings a group's decisions will read (and whether
        their ids name a cluster or an alias, which a new cluster's name depends on) and the
        boilerplate statistics they will count. Only inside this thread's batch. The
        postings and cluster names are claimed for the batch first where no other writer
        holds them; the others are claimed (and read again) when a decision needs them."""
        self._check_open()
        workspace = self._batch_workspace()
        if workspace is None:
            return
        _, named = workspace.claim(posting_ids, posting_ids, wait=False)
        keys = [unit_key(scope, unit) for scope, unit in units]
        workspace.prefetch(postings=posting_ids, clusters=named, aliases=named, units=keys)

    def prepare_searches(self, since: datetime | None) -> None:
        """Nothing to load: the engine holds the index."""

    def search_ahead(self, queries: Sequence[CandidateQuery]) -> None:
        """Start a group's candidate searches as one `_msearch`, followed by one multi-get of
        every hit's document (clusters are read once claimed, not ahead), on a background
        thread: the deciding thread goes on deciding the postings before these and waits only
        when `find_candidates` needs an answer not back yet. The background thread only reads
        the engine; its answers are folded into the workspace by the deciding thread, and
        `find_candidates` uses them only when this store's writes cannot have changed them
        (see there)."""
        self._check_open()
        workspace = self._batch_workspace()
        if workspace is None:
            return
        pending = list(workspace.pending.postings)
        todo: dict[SearchKey, dict[str, Any]] = {}
        for query in queries:
            key = _search_key(query)
            if key is None or key in workspace.searches or key in workspace.ahead or key in todo:
                continue
            skipped = pending if query.exclude_id is None else [*pending, query.exclude_id]
            todo[key] = candidate_query(list(key[0]), key[1], key[2], key[3], skipped, key[5])
        if not todo:
            return
        excluded = [frozenset(pending if k[4] is None else [*pending, k[4]]) for k in todo]
        # One budget for both requests, counted from now: a decision waiting for them waits
        # at most one timeout, as for a live search.
        deadline = time.monotonic() + self._client.timeout
        targets = [self._window_indices(key[2], key[3]) for key in todo]
        future = self._ahead.submit(self._search_and_fetch, list(todo.values()), targets, deadline)
        batch = _AheadBatch(list(todo), excluded, future)
        for key in todo:
            workspace.ahead[key] = batch

    def _window_indices(self, since_us: int | None, until_us: int | None) -> str | None:
        """The indices a candidate search of this window needs, once month indices exist:
        the write index and the months the window overlaps, as wildcard patterns the engine
        resolves at search time (a month another instance created since is searched too).
        None, the whole alias, without month indices, without a window, or over more than
        `MAX_WINDOW_MONTHS` months. A search of 3,000 NHS ads spanning 16 months touched 17
        shards through the alias (the engine skips no shard on a `long` range)."""
        if since_us is None or until_us is None:
            return None
        if self._partitions.scheme == "none" and not self._partitions.known():
            return None
        months = window_months(since_us, until_us)
        if months is None:
            return None
        patterns = [f"{partition_index(self._names, m)}*" for m in months]
        return ",".join([self._fetcher.base, *patterns])

    def _search_and_fetch(
        self, bodies: list[dict[str, Any]], targets: list[str | None], deadline: float
    ) -> _AheadResult:
        """(On the background thread.) The searches' hits, then their documents, both
        answered by `deadline`."""
        with self._client.until(deadline):
            results = self._client.msearch(self._names.postings, bodies, targets)
            refs = [
                (hit["_index"], hit["_source"]["posting_id"]) for hits in results for hit in hits
            ]
            hit_ids = list(dict.fromkeys(pid for _, pid in refs))
            # Clusters are not read ahead: a cycle reads a cluster only once it claimed it.
            found = self._fetcher.fetch_at(refs)
        return _AheadResult(results, hit_ids, found)

    def _ahead_answer(
        self, workspace: Workspace, key: SearchKey
    ) -> tuple[frozenset[str], list[Source]] | None:
        """The search run ahead for `key`, waiting for its batch if it is still running."""
        batch = workspace.ahead.get(key)
        if batch is not None:
            result = batch.future.result()  # re-raises what the background request raised
            for one, excluded, hits in zip(batch.keys, batch.excluded, result.hits, strict=True):
                workspace.searches[one] = (excluded, hits)
                workspace.ahead.pop(one, None)
            workspace.absorb(result.postings, result.found_postings)
        return workspace.searches.get(key)

    def _batch_workspace(self) -> Workspace | None:
        mine = self._workspace is not None and self._mine() and self._batching
        return self._workspace if mine else None

    def find_candidates(self, query: CandidateQuery) -> list[StoredPosting]:
        """Band-key or block-key hits in the window, most shared keys first (one search;
        inside a batch, merged with the batch's pending postings, which the search skips).

        A search run ahead (`search_ahead`) answers instead when this store's own writes
        cannot have changed it: it skipped a subset of what the live search skips (pending
        postings only accumulate), so dropping the now-skipped hits gives the live answer
        unless that cut a full page (`limit` hits) short. Postings other instances wrote
        since it ran are the re-check's (docs/concurrency.md), as for a live search."""
        self._check_open()
        key = _search_key(query)
        if key is None:
            return []
        keys, block, since, until = set(key[0]), key[1], key[2], key[3]
        workspace = self._reader()
        skipped = list(workspace.pending.postings)
        if query.exclude_id is not None:
            skipped.append(query.exclude_id)
        hits = _ahead_hits(self._ahead_answer(workspace, key), frozenset(skipped), query.limit)
        if hits is None:
            body = candidate_query(key[0], block, since, until, skipped, query.limit)
            target = self._window_indices(since, until)
            if target is None:
                hits = self._client.search(self._names.postings, body)
            else:
                hits = self._client.msearch(self._names.postings, [body], [target])[0]
        found: list[tuple[int, Source]] = []
        for hit in hits:
            source = hit["_source"]
            moved = workspace.pending.repoints.get(source["posting_id"])
            found.append(
                (int(hit["sort"][0]), {**source, "cluster_id": moved or source["cluster_id"]})
            )
        for shared, source in overlay_matches(
            workspace, keys, block, since, until, query.exclude_id
        ):
            found.append((shared, without_documents(source)))
        found.sort(key=lambda item: (-item[0], item[1]["posted_at"], item[1]["posting_id"]))
        return [posting_from_source(source) for _, source in found[: query.limit]]

    def find_translations(self, query: TranslationQuery) -> list[StoredPosting]:
        """Rare-anchor hits in other languages (`indexer.stores.elastic.translations`: up to three
        searches, none on an index that has only ever held the query's language), merged
        with the open batch's pending postings as `find_candidates` merges them."""
        self._check_open()
        return self._translations.find(query, self._reader(), self._window_indices)

    def recheck_ids(
        self, queries: Sequence[CandidateQuery], since: datetime
    ) -> list[list[tuple[str, str]]]:
        """The candidate searches again, among the postings other stores wrote at or after
        `since` (this thread's open cycle is flushed first). One search finds those sharing a
        key with any posting of the group (few: postings of other instances in the last
        minute, near the group's); up to `RECHECK_SCAN` of them are matched against each
        query here (a search of 42 key clauses per posting cost the engine 2-3 ms each even
        when a filter left nothing to match). Beyond that, one `_msearch`."""
        self._check_open()
        self._sync()
        written_since = to_micros(since)
        keyed = [(_search_key(query), query) for query in queries]
        band_keys = {k for key, _ in keyed if key is not None for k in key[0]}
        blocks = {key[1] for key, _ in keyed if key is not None and key[1]}
        if len(band_keys) <= MAX_TERMS and len(blocks) <= MAX_TERMS:
            body = recent_writes_query(
                band_keys, blocks, written_since, self._instance, RECHECK_SCAN
            )
            recent = self._client.search(self._names.postings, body)
            if len(recent) < RECHECK_SCAN:
                return [[] if key is None else _matching(key, recent) for key, _ in keyed]
        bodies = [
            recheck_query(
                list(key[0]),
                key[1],
                key[2],
                key[3],
                q.exclude_id,
                key[5],
                written_since,
                self._instance,
            )
            for key, q in keyed
            if key is not None
        ]
        answers = iter(self._client.msearch(self._names.postings, bodies))
        return [
            []
            if key is None
            else [(h["_source"]["posting_id"], h["_source"]["cluster_id"]) for h in next(answers)]
            for key, _ in keyed
        ]

    def unit_counts(
        self, scopes: Sequence[tuple[int, int]], units: Sequence[int | None]
    ) -> dict[tuple[int, int], tuple[int, bool]]:
        """Boilerplate statistics (real-time multi-get of the statistics documents; the open
        batch's writes included)."""
        self._check_open()
        by_key = {
            unit_key(scope, unit): (scope, unit)
            for unit in units
            if unit is not None
            for scope, _ in scopes
        }
        found = self._reader().units(by_key)
        return counts_from_witnesses(
            {by_key[key]: witnesses for key, witnesses in found.items()}, scopes
        )

    def resolve_cluster(self, cluster_id: str) -> str | None:
        """The live cluster for an id or alias; None if unknown or emptied."""
        self._check_open()
        return self._resolve(self._reader(), cluster_id)

    @staticmethod
    def _resolve(workspace: Workspace, cluster_id: str) -> str | None:
        workspace.prefetch(clusters=[cluster_id], aliases=[cluster_id])
        doc = workspace.cluster(cluster_id)
        if doc is not None and doc["live"]:
            return cluster_id
        target = workspace.alias_target(cluster_id)
        if target is not None and (live := workspace.cluster(target)) and live["live"]:
            return target
        return None

    def cluster_ids_in_use(self, cluster_id: str) -> bool:
        """True for a live cluster, a tombstone (emptied but aliased) or an alias."""
        self._check_open()
        workspace = self._reader()
        workspace.prefetch(clusters=[cluster_id], aliases=[cluster_id])
        return workspace.cluster(cluster_id) is not None or (
            workspace.alias_target(cluster_id) is not None
        )

    def get_cluster(self, cluster_id: str) -> ClusterInfo | None:
        """The live cluster behind an id or alias, from its one document (a consistent
        snapshot: members, size and aliases were written together)."""
        self._check_open()
        workspace = self._reader()
        live = self._resolve(workspace, cluster_id)
        doc = None if live is None else workspace.cluster(live)
        return None if doc is None else cluster_info(doc)

    def cluster_canonicals(self, cluster_ids: Sequence[str]) -> dict[str, str]:
        """Canonical posting id of each live cluster id given (one multi-get)."""
        self._check_open()
        workspace = self._reader()
        workspace.prefetch(clusters=cluster_ids)
        docs = ((cid, workspace.cluster(cid)) for cid in dict.fromkeys(cluster_ids))
        return {cid: doc["canonical_id"] for cid, doc in docs if doc and doc["live"]}

    def list_clusters(self, filters: ClusterFilter, after: str | None, limit: int) -> ClusterPage:
        """One keyset page of live clusters ordered by id (limit+1 fetched to know if more);
        the title filter is a wildcard query on the member titles (`cluster_listing_query`)."""
        self._check_open()
        self._sync()
        if filters.title is not None:
            self._require_fields(REVIEW_SINCE, "the title filter")
        limit = max(limit, 0)
        self._client.refresh(self._names.clusters)  # see _send; cheap when nothing changed
        body = cluster_listing_query(filters, after, limit + 1)
        rows = [
            cluster_summary(hit["_source"])
            for hit in self._client.search(self._names.clusters, body)
        ]
        page = elastic_review.with_canonicals(self._client, self._names, rows[:limit])
        return ClusterPage(
            clusters=page, next_after=page[-1].id if len(rows) > limit and page else None
        )

    def _require_fields(self, version: int, what: str) -> None:
        """Raise StoreError unless the index carries the added fields of `version` (a reader
        opened an index no writer has migrated yet). Once seen, never asked again: fields are
        only ever added."""
        if self._fields < version:
            self._fields = fields_version(self._client, self._names)
        if self._fields < version:
            raise StoreError(
                f"index {self._names.prefix} predates {what}; open it once with a writer"
                " (serve or ingest) to add its fields"
            )

    def iter_assignments(self) -> Iterator[Assignment]:
        """Every posting by id, in pages continued with search_after (nothing held open
        between pages), with canonicals from one multi-get of cluster documents per page."""
        self._check_open()
        self._sync()
        after: str | None = None
        while True:
            hits = self._client.search(self._names.postings, assignments_page_query(after, PAGE))
            rows = [(h["_source"]["posting_id"], h["_source"]["cluster_id"]) for h in hits]
            canonicals = self.cluster_canonicals([cluster for _, cluster in rows])
            for pid, cluster in rows:
                canonical = canonicals.get(cluster)
                yield Assignment(pid, cluster, None if canonical in (None, pid) else canonical)
            if len(rows) < PAGE:
                return
            after = rows[-1][0]

    def stats(self) -> IndexStats:
        """Posting and live cluster counts, and the indices' size on disk."""
        self._check_open()
        self._sync()
        self._client.refresh(self._names.clusters)
        return IndexStats(
            postings=self._client.count(self._names.postings),
            clusters=self._client.count(self._names.clusters, live_clusters_count()),
            bytes=self._client.store_bytes(self._names.postings, self._names.clusters),
        )

    def duplicate_stats(self, query: StatsQuery) -> DuplicateStats:
        """Duplicate statistics from aggregations (`indexer.stores.elastic.stats`), after the open
        batch is flushed and cluster documents are refreshed (postings are searchable once
        written)."""
        self._check_open()
        self._require_fields(STATS_SINCE, "duplicate statistics")
        self._sync()
        self._client.refresh(self._names.clusters)
        return elastic_stats.duplicate_stats(self._client, self._names, query)

    # -- analyst feedback -----------------------------------------------------------------

    def add_feedback(self, feedback: Feedback) -> None:
        """Store the label under the pair's sorted ids (one document: atomic on its own, so
        it needs neither a claim nor the journal), searchable when this returns."""
        self._check_open()
        source = feedback_source(feedback)
        key = feedback_id(source["a_id"], source["b_id"])
        action = {"index": {"_index": self._names.clusters, "_id": key}}
        self._client.bulk([(action, source)], self._refresh)

    def iter_feedback(self) -> Iterator[Feedback]:
        """Every stored label, oldest first, in search_after pages."""
        self._check_open()
        after: list[Any] | None = None
        while True:
            hits = self._client.search(self._names.clusters, feedback_page_query(after, PAGE))
            for hit in hits:
                yield feedback_from_source(hit["_source"])
            if len(hits) < PAGE:
                return
            after = hits[-1]["sort"]

    def feedback_labels(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """Labels of the pairs given that have one, by sorted ids (real-time multi-gets)."""
        self._check_open()
        return elastic_review.feedback_labels(self._client, self._names, pairs)

    # -- review queue ---------------------------------------------------------------------

    def review_pairs(self, threshold: float, margin: float, limit: int) -> list[ReviewPair]:
        """Pairs for the review queue (see the port and `indexer.stores.elastic.review`)."""
        self._check_open()
        self._sync()
        self._require_fields(REVIEW_SINCE, "the review queue")
        self._client.refresh(self._names.clusters)  # merge histories are searched
        return elastic_review.review_pairs(self._client, self._names, threshold, margin, limit)


def _search_key(query: CandidateQuery) -> SearchKey | None:
    """What identifies a candidate search; None when it cannot find anything."""
    keys = tuple(sorted(set(query.band_keys)))
    block = query.block_key if query.block_key not in ("", "|") else None
    if query.limit <= 0 or not (keys or block):
        return None
    since = None if query.since is None else to_micros(query.since)
    until = None if query.until is None else to_micros(query.until)
    return keys, block, since, until, query.exclude_id, query.limit


def _matching(key: SearchKey, recent: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The hits a candidate search (`key`) would give among `recent` postings, in its order
    (shared band keys, then posted_at, then id), as (posting id, cluster id)."""
    keys, block, since, until, exclude, limit = key
    wanted = set(keys)
    found: list[tuple[int, int, str, str]] = []
    for hit in recent:
        source = hit["_source"]
        shared = len(wanted.intersection(source.get("band_keys") or ()))
        if not shared and (block is None or source.get("block_key") != block):
            continue
        when = int(source["posted_at"])
        if (since is not None and when < since) or (until is not None and when > until):
            continue
        if source["posting_id"] != exclude:
            found.append((-shared, when, source["posting_id"], source["cluster_id"]))
    found.sort()
    return [(pid, cluster_id) for _, _, pid, cluster_id in found[:limit]]


def _ahead_hits(
    ahead: tuple[frozenset[str], list[Source]] | None, skipped: frozenset[str], limit: int
) -> list[Source] | None:
    """The hits of a search run ahead, as the live search would give them now, or None
    when that cannot be told (hits were dropped from a full page)."""
    if ahead is None:
        return None
    excluded, hits = ahead
    if not excluded <= skipped:
        return None
    kept = [hit for hit in hits if hit["_source"]["posting_id"] not in skipped]
    return kept if len(kept) == len(hits) or len(hits) < limit else None


@dataclass(frozen=True)
class _AheadResult:
    """What the background thread brings back: hits per search, and the documents asked for
    (found ones by id; ids not found are absent)."""

    hits: list[list[Source]]
    postings: list[str]
    found_postings: dict[str, Source]


@dataclass(frozen=True)
class _AheadBatch:
    """Searches started together: their keys, what each excluded, the running request."""

    keys: list[SearchKey]
    excluded: list[frozenset[str]]
    future: Future[_AheadResult]


class _CycleClaims:
    """The claims of a write cycle as its workspace makes them: each call waits for other
    writers at most `wait_s` (StoreUnavailable after that)."""

    def __init__(self, claims: Claims, client: EngineClient, wait_s: float) -> None:
        self._claims, self._client, self._wait_s = claims, client, wait_s

    def claim(self, names: Iterable[str], wait: bool = True) -> set[str]:
        with self._client.until(time.monotonic() + self._wait_s):
            return self._claims.claim(names, wait)
