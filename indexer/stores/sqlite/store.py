"""The embedded default `IndexStore`: stdlib sqlite3 in WAL mode, one file per index.

The table layout and row conversions live in `indexer.stores.sqlite.schema`.

Connections come from a small pool, one per operation (FastAPI runs routes in a thread pool;
WAL lets readers run beside the writer). Writes are serialised by one re-entrant lock per
store, which `writer()` also exposes so read-decide-write cycles do not interleave.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from datetime import datetime
from pathlib import Path
from typing import Any

from indexer.anchor_keys import (
    MAX_ANCHOR_DF,
    SEARCHED_LANGUAGES,
    TranslationQuery,
    anchor_keys,
    key_weights,
    language_key,
    languages_held,
    other_keys,
    other_languages,
    ranked,
)
from indexer.minhash import SketchParams
from indexer.stats import assemble, overlap_from_sets
from indexer.store import (
    Assignment,
    CandidateQuery,
    ClusterFilter,
    ClusterInfo,
    ClusterMember,
    ClusterPage,
    DuplicateStats,
    Feedback,
    IncompatibleIndex,
    IndexStats,
    ReviewPair,
    StatsQuery,
    StoredPosting,
    StoreError,
    StoreUnavailable,
    WriteSet,
    check_compatible,
)
from indexer.stores.sqlite.band_index import BandIndex
from indexer.stores.sqlite.datadir_lock import DataDirLock
from indexer.stores.sqlite.documents import DocumentCodec
from indexer.stores.sqlite.review import HAS_TITLE, cluster_summaries, feedback_labels, review_pairs
from indexer.stores.sqlite.schema import (
    BATCH,
    BUSY_TIMEOUT_MS,
    CACHE_KIB,
    HAS_MEMBER,
    MAX_IDLE,
    MAX_TS,
    MIGRATES_FROM,
    MIN_TS,
    SCHEMA,
    SCHEMA_VERSION,
    SELECT_CANDIDATE,
    SELECT_POSTING,
    SOURCES_SEPARATOR,
    STATS_LAYOUT,
    WAL_CHECKPOINT_PAGES,
    from_micros,
    marks,
    migrate_from_previous,
    row_to_posting,
    summary_of,
    to_json,
    to_micros,
)
from indexer.stores.sqlite.stats import counted_rows, source_sets
from indexer.stores.sqlite.unit_stats import UnitStatistics
from indexer.stores.sqlite.writes import (
    insert_posting,
    merge_clusters,
    refresh_cluster,
    remove_posting,
)

logger = logging.getLogger(__name__)


MIN_FREE_BYTES = 64_000_000
"""Free space below which the index reports itself unavailable for writes (/ready 503): a
group commit of 1,000 postings with their WAL frames needs tens of MB."""


class SqliteStore:
    """`IndexStore` on one SQLite file (WAL, synchronous=FULL: acknowledged means on disk)."""

    def __init__(self, path: Path, params: SketchParams, lock: DataDirLock | None = None) -> None:
        self._writer_lock = lock  # held for the store's life by the one writing process
        self.min_free_bytes = MIN_FREE_BYTES
        self._path = Path(path)
        self._params = params
        self._lock = threading.RLock()
        self._local = threading.local()  # .batch: this thread's open batch connection
        self._pool_lock = threading.Lock()
        self._idle: list[sqlite3.Connection] = []
        self._closed = False
        self._bands: BandIndex | None = None  # built on first need (writers only need it)
        self._stats: UnitStatistics | None = None  # read from the file on first need
        self._codec = DocumentCodec()
        try:
            with self._connection("open index") as conn:
                self._initialise(conn)
                self._codec.load(conn)
        except BaseException:
            self.close()
            raise

    @property
    def params(self) -> SketchParams:
        """The sketch parameters this index was created with (checked equal at open)."""
        return self._params

    # -- connections, errors, schema ------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        # check_same_thread=False because pooled connections move between threads; the pool
        # guarantees that only one thread uses a connection at a time.
        conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        # Before WAL initialises a new file (later, and on existing files, a no-op): retention
        # gives freed pages back to the file system (`expire`). Skipped on a file already in
        # WAL: setting it waits for the write lock, which a batch in this process may hold
        # while a connection opened for the key index reads (`_searchable`).
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_CHECKPOINT_PAGES}")
        return conn

    @contextmanager
    def _connection(self, what: str) -> Iterator[sqlite3.Connection]:
        """Lend a pooled connection for one operation and translate sqlite3 errors, so
        callers only ever see `StoreError`; inside this thread's `batch`, its connection.

        A pool rather than one connection per thread: FastAPI's worker threads come and go,
        and per-thread connections would pile up; a connection per operation lets WAL
        readers run in parallel with the writer.
        """
        batch_conn: sqlite3.Connection | None = getattr(self._local, "batch", None)
        if batch_conn is not None:
            with self._translated(what):
                yield batch_conn
            return
        with self._pooled(what) as conn:
            yield conn

    @contextmanager
    def _pooled(self, what: str) -> Iterator[sqlite3.Connection]:
        """A pooled connection even inside a batch: it reads the last committed state."""
        with self._translated(what):
            with self._pool_lock:
                if self._closed:
                    raise StoreUnavailable(f"index store at {self._path} is closed")
                conn = self._idle.pop() if self._idle else None
            conn = conn or self._connect()
            try:
                yield conn
            finally:
                with self._pool_lock:
                    if self._closed or conn.in_transaction or len(self._idle) >= MAX_IDLE:
                        conn.close()
                    else:
                        self._idle.append(conn)

    @contextmanager
    def _translated(self, what: str) -> Iterator[None]:
        """Translate sqlite3 errors so callers only ever see `StoreError`."""
        try:
            yield
        except (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError) as exc:
            raise StoreError(f"sqlite index {self._path}: {what} failed: {exc}") from exc
        except sqlite3.Error as exc:
            raise StoreUnavailable(f"sqlite index {self._path}: {what} failed: {exc}") from exc

    def _rows(self, what: str, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._connection(what) as conn:
            return conn.execute(sql, args).fetchall()

    @staticmethod
    @contextmanager
    def _transaction(conn: sqlite3.Connection, begin: str) -> Iterator[None]:
        """BEGIN ... COMMIT, or SAVEPOINT ... RELEASE inside a batch (`begin` says which)."""
        savepoint = begin.startswith("SAVEPOINT")
        if conn.in_transaction and not savepoint:
            yield  # a read snapshot inside a batch joins the batch's transaction
            return
        conn.execute(begin)
        try:
            yield
            conn.execute("RELEASE apply" if savepoint else "COMMIT")
        except BaseException:
            # SQLite may already have rolled back (I/O error, disk full); a failed COMMIT
            # (busy) leaves the transaction open, and it must not leak into the next call.
            if conn.in_transaction:
                conn.execute("ROLLBACK TO apply" if savepoint else "ROLLBACK")
                if savepoint:
                    conn.execute("RELEASE apply")
            raise

    def _initialise(self, conn: sqlite3.Connection) -> None:
        """Create the schema in an empty file, or check the stored version and parameters."""
        with self._transaction(conn, "BEGIN IMMEDIATE"):
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            if "meta" not in tables:
                if tables:
                    raise IncompatibleIndex(f"{self._path} is a SQLite file but not an index")
                # Not executescript(): it would COMMIT the IMMEDIATE transaction first.
                for statement in [*SCHEMA.split(";"), *STATS_LAYOUT]:
                    if statement.strip():
                        conn.execute(statement)
                params = json.dumps(self._params.to_dict(), sort_keys=True)
                conn.execute("INSERT INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
                conn.execute("INSERT INTO meta VALUES ('params', ?)", (params,))
                logger.info("created index %s", self._path)
                return
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            if str(meta.get("schema_version")) in MIGRATES_FROM:
                migrate_from_previous(conn, self._path, int(meta["schema_version"]))
                meta["schema_version"] = SCHEMA_VERSION
        stored: dict[str, Any] = json.loads(meta.get("params", "{}"))
        check_compatible(
            f"index at {self._path}",
            meta.get("schema_version"),
            stored,
            self._params,
            SCHEMA_VERSION,
        )

    # -- lifecycle ------------------------------------------------------------------------

    def ping(self) -> None:
        """Raise `StoreUnavailable` unless the file answers a trivial query and its file
        system can take writes: not mounted read-only, at least `min_free_bytes` free. With
        the disk full every write answered 503 while /ready said 200; a statvfs costs
        microseconds, so readiness probes can afford it."""
        self._rows("ping", "SELECT 1 FROM meta LIMIT 1")
        try:
            fs = os.statvfs(self._path.parent)
        except OSError as exc:
            raise StoreUnavailable(f"cannot stat the index directory: {exc}") from exc
        if fs.f_flag & os.ST_RDONLY:
            raise StoreUnavailable(f"{self._path.parent} is on a read-only file system")
        free = fs.f_bavail * fs.f_frsize
        if free < self.min_free_bytes:
            raise StoreUnavailable(
                f"{free // 1_000_000} MB free where the index lives, below the "
                f"{self.min_free_bytes // 1_000_000} MB needed to accept writes"
            )

    def close(self) -> None:
        """Close idle connections now and lent ones when returned; the last one to close
        checkpoints the WAL into the main file."""
        with self._pool_lock:
            self._closed = True
            idle, self._idle = self._idle, []
        if self._writer_lock is not None:
            self._writer_lock.release()
        for conn in idle:
            try:
                conn.close()
            except sqlite3.Error:
                logger.warning("closing a connection to %s failed", self._path)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self._lock:
            yield

    def writer(self, postings: Sequence[str] = ()) -> AbstractContextManager[None]:
        """Hold the store's write lock (re-entrant, so `apply` inside it does not deadlock);
        it covers every posting, so `postings` needs no claim.

        Serialises the threads of this process; a second process writing the same file is
        kept consistent per `apply` (SQLite's write lock), not per read-decide-write cycle.
        """
        return self._locked()

    @contextmanager
    def batch(self) -> Iterator[None]:
        """One transaction (and one fsync) for every `apply` of this thread in the block; each
        apply stays atomic through a savepoint. Re-entrant: an inner batch joins the outer."""
        if getattr(self._local, "batch", None) is not None:
            yield
            return
        with self._lock:
            self._new_dictionary_if_due()
            try:
                with (
                    self._connection("batch") as conn,
                    self._transaction(conn, "BEGIN IMMEDIATE"),
                ):
                    self._local.batch = conn
                    try:
                        yield
                    finally:
                        self._local.batch = None
            except BaseException:
                if self._bands is not None:
                    self._bands.rollback_to(0)
                if self._stats is not None:
                    self._stats.rollback_to(0)
                raise
            if self._bands is not None:
                self._bands.commit()
            if self._stats is not None:
                self._stats.commit()

    def _new_dictionary_if_due(self) -> None:
        """Start training a new document dictionary when enough postings were written since
        the last, and commit it at the first batch after the training thread is done
        (`indexer.stores.sqlite.documents`: `DocumentCodec.start`, `install`). Under the
        writer lock, outside any write transaction: the dictionary is committed before a row
        uses it. Borrows no connection unless the key index is still to be created or a
        dictionary is due or trained (every `/dedup` commit passes here)."""
        codec = self._codec
        if (
            self._bands is not None
            and not codec.trained()
            and (codec.training() or not codec.wants_dictionary(self._bands.next_rid))
        ):
            return
        with self._connection("sample a document dictionary") as conn:
            next_rid = self._band_index(conn).next_rid
            began = time.perf_counter()
            if codec.trained():
                codec.install(conn, next_rid)
                logger.info("document dictionary of %s in use from row %d", self._path, next_rid)
            elif not codec.training() and codec.wants_dictionary(next_rid):
                codec.start(conn)
                logger.info(
                    "document dictionary of %s: sample read in %.2f s, training",
                    self._path,
                    time.perf_counter() - began,
                )

    def _band_index(self, conn: sqlite3.Connection) -> BandIndex:
        """The in-memory key index (`stores.sqlite.band_index`), created empty on first use (its
        postings are loaded by `_searchable`). Called under the writer lock, before any
        write of the open transaction, so the largest rid it reads is a committed one."""
        if self._bands is None:
            max_rid = conn.execute("SELECT COALESCE(MAX(rid), 0) FROM postings").fetchone()[0]
            self._bands = BandIndex(
                int(max_rid), tracked=(language_key(lang) for lang in SEARCHED_LANGUAGES)
            )
        return self._bands

    def _searchable(self, conn: sqlite3.Connection, since: int) -> BandIndex:
        """The key index with every posting posted from `since` on loaded. Under the writer
        lock; the rows come from the committed file (`_pooled`), also inside a batch."""
        bands = self._band_index(conn)
        missing = bands.unloaded(since)
        if missing is not None:
            began = time.perf_counter()
            with self._pooled("load the key index") as reader:
                rows = reader.execute(
                    "SELECT p.rid, p.posted_at, COALESCE(k.band_keys, p.band_keys)"
                    " FROM postings p LEFT JOIN posting_keys k ON k.rid = p.rid"
                    " WHERE p.posted_at >= ? AND p.posted_at < ?",
                    missing,
                )
                loaded = bands.load(rows, since)
            # A back-filled posting loads a few older postings: not worth a line each.
            logger.log(
                logging.INFO if loaded >= 1000 else logging.DEBUG,
                "key index of %s: %d postings loaded in %.2f s, %d entries held",
                self._path,
                loaded,
                time.perf_counter() - began,
                bands.entries,
            )
        return bands

    # -- reads ----------------------------------------------------------------------------

    @property
    def concurrent_writers(self) -> bool:
        """No: one process writes a data directory (`indexer.stores.sqlite.datadir_lock`)."""
        return False

    def yield_writes(self) -> None:
        """Nothing to give way to: SQLite's write lock serialises whole cycles."""

    @property
    def reads_ahead(self) -> bool:
        """No: every read is a local page lookup, nothing to save by announcing it."""
        return False

    def read_ahead(self, posting_ids: Sequence[str], units: Sequence[tuple[int, int]]) -> None:
        """Nothing to do (see `reads_ahead`)."""

    def search_ahead(self, queries: Sequence[CandidateQuery]) -> None:
        """Nothing to do (see `reads_ahead`)."""

    def recheck_ids(
        self, queries: Sequence[CandidateQuery], since: datetime
    ) -> list[list[tuple[str, str]]]:
        """Nothing: no other process writes this data directory."""
        return [[] for _ in queries]

    def prepare_searches(self, since: datetime | None) -> None:
        """Load the key index from `since` on and the boilerplate statistics (what the first
        posting decided would load)."""
        with self._lock, self._connection("load the key index") as conn:
            self._searchable(conn, MIN_TS if since is None else to_micros(since))
            self._unit_stats()

    def get_posting(self, posting_id: str) -> StoredPosting | None:
        """The posting with this id, or None."""
        with self._connection("get posting") as conn:
            row = conn.execute(f"{SELECT_POSTING} WHERE p.id = ?", (posting_id,)).fetchone()
            return None if row is None else row_to_posting(row, self._unpacker(conn))

    def _unpacker(
        self, conn: sqlite3.Connection
    ) -> Callable[[bytes], tuple[dict[str, Any], dict[str, Any]]]:
        """`row_to_posting`'s reader of layout-6 document bodies, on this connection."""
        return lambda body: self._codec.unpack(conn, body)

    def find_candidates(self, query: CandidateQuery) -> list[StoredPosting]:
        """Postings sharing a band key or the block key within the window, best first.

        Shared keys are counted in the in-memory key index; the block key is a range scan
        of `postings_block`. Only the top `limit` postings (and those tied with the last of
        them on shared keys and time, so the id decides as the contract says) are read from
        `postings`, without their JSON columns.
        """
        if query.limit <= 0:
            return []
        since = MIN_TS if query.since is None else to_micros(query.since)
        until = MAX_TS if query.until is None else to_micros(query.until)
        with self._lock, self._connection("find candidates") as conn:
            hits = self._searchable(conn, since).find(query.band_keys, since, until)
            found = dict(
                zip(
                    hits.rids.tolist(),
                    zip(hits.shared.tolist(), hits.posted_at.tolist(), strict=True),
                    strict=True,
                )
            )
            if query.block_key and query.block_key != "|":
                rows = conn.execute(
                    "SELECT rid, posted_at FROM postings"
                    " WHERE block_key = ? AND posted_at BETWEEN ? AND ?",
                    (query.block_key, since, until),
                ).fetchall()
                for rid, posted_at in rows:
                    found.setdefault(rid, (0, posted_at))
            if not found:
                return []
            # One more than the limit: the query's own id may be among them.
            ranked = sorted(found.items(), key=lambda item: (-item[1][0], item[1][1]))
            cut = min(len(ranked), query.limit + 1)
            boundary = (-ranked[cut - 1][1][0], ranked[cut - 1][1][1])
            while cut < len(ranked) and (-ranked[cut][1][0], ranked[cut][1][1]) == boundary:
                cut += 1
            chosen = dict(ranked[:cut])
            rows = []
            rids = list(chosen)
            for begin in range(0, len(rids), BATCH):
                chunk = rids[begin : begin + BATCH]
                rows += conn.execute(
                    f"{SELECT_CANDIDATE} WHERE p.rid IN ({marks(len(chunk))})", chunk
                ).fetchall()
        postings = [
            (chosen[row["rid"]][0], row_to_posting(row))
            for row in rows
            if row["id"] != query.exclude_id
        ]
        postings.sort(key=lambda item: (-item[0], item[1].posted_at, item[1].id))
        return [posting for _, posting in postings[: query.limit]]

    def find_translations(self, query: TranslationQuery) -> list[StoredPosting]:
        """Rare-anchor hits in other languages (`indexer.anchor_keys`), counted in the
        in-memory key index: which other languages the window holds (their language keys),
        then each anchor key's holders in those languages and in the query's own, counted only
        as far as `MAX_ANCHOR_DF`, then the holders of the keys that weigh."""
        own = query.anchors.language
        if own is None or not other_languages(query):
            return []
        since = MIN_TS if query.since is None else to_micros(query.since)
        until = MAX_TS if query.until is None else to_micros(query.until)
        with self._lock, self._connection("find translations") as conn:
            bands = self._searchable(conn, since)
            seen = languages_held(bands.seen_keys, own)
            if not seen:
                return []
            # The languages the window holds first, then only their blocks (`other_keys`):
            # an index that ever held a few Welsh ads holds none in most windows, and each
            # block is as many keys as the query has anchors, to look up for nothing.
            held = bands.count(bands.spans([language_key(lang) for lang in seen]), since, until, 0)
            present = {lang: n for lang, n in zip(seen, held, strict=True) if n}
            keys = other_keys(query, list(present))
            if not keys:
                return []
            spans = bands.spans(keys)
            counted = bands.count(spans, since, until, MAX_ANCHOR_DF)
            # The own language's keys only for anchors rare somewhere else (usually none):
            # the others weigh nothing whatever their count on this side, and the common
            # ones ("NHS") are the costly ones to look up.
            width = len(query.anchors.hashes)
            needed = sorted({j % width for j, n in enumerate(counted) if 1 <= n <= MAX_ANCHOR_DF})
            if not needed:  # no key weighs (`key_weights`)
                return []
            per_key = dict(zip(keys, counted, strict=True))
            own_keys = anchor_keys(query.anchors.hashes, own)
            own_counts = bands.count(
                bands.spans([own_keys[i] for i in needed]), since, until, MAX_ANCHOR_DF
            )
            per_key.update((own_keys[i], n) for i, n in zip(needed, own_counts, strict=True))
            weights = key_weights(query, per_key, present)
            span_of = dict(zip(keys, spans, strict=True))
            rare = list(weights)
            index, rids, posted = bands.holders([span_of[k] for k in rare], since, until)
            scores: dict[int, list[float]] = {}
            for i, rid, at in zip(index.tolist(), rids.tolist(), posted.tolist(), strict=True):
                scores.setdefault(rid, [0.0, float(at)])[0] += weights[rare[i]]
            if not scores:
                return []
            # One more than the limit (the query's own id may be among them), and the ties
            # of the last, so that the id decides among equals as `ranked` says.
            near = None if query.near is None else to_micros(query.near)

            def rank(rid: int) -> tuple[float, float, float]:
                weight, at = scores[rid]
                return -round(weight, 9), 0.0 if near is None else abs(at - near), at

            order = sorted(scores, key=rank)
            cut = min(len(order), query.limit + 1)
            last = rank(order[cut - 1])
            while cut < len(order) and rank(order[cut]) == last:
                cut += 1
            rows = []
            chosen = order[:cut]
            for begin in range(0, len(chosen), BATCH):
                chunk = chosen[begin : begin + BATCH]
                rows += conn.execute(
                    f"{SELECT_CANDIDATE} WHERE p.rid IN ({marks(len(chunk))})", chunk
                ).fetchall()
        postings = {
            row["id"]: (scores[row["rid"]][0], row_to_posting(row))
            for row in rows
            if row["id"] != query.exclude_id
        }
        best = ranked(
            {pid: (s, p.posted_at) for pid, (s, p) in postings.items()}, query.limit, query.near
        )
        return [postings[pid][1] for pid in best]

    def unit_counts(
        self, scopes: Sequence[tuple[int, int]], units: Sequence[int | None]
    ) -> dict[tuple[int, int], tuple[int, bool]]:
        """Boilerplate statistics, answered from memory (`stores.sqlite.unit_stats`): what the
        open batch of this process wrote included, as SQLite answered inside it."""
        with self._lock:
            return self._unit_stats().counts(scopes, units)

    def _unit_stats(self) -> UnitStatistics:
        """The boilerplate statistics, read from the committed file on first need. Under the
        writer lock and before this process stages any record (`_write` asks here first),
        so the file holds every record there is."""
        if self._stats is None:
            began = time.perf_counter()
            with self._pooled("load the boilerplate statistics") as reader:
                cursor = reader.cursor()
                cursor.row_factory = None  # plain tuples: a Row per log row cost more
                rows = cursor.execute("SELECT entries FROM unit_stat_log")
                self._stats = UnitStatistics.from_entries(row[0] for row in rows)
            logger.log(
                logging.INFO if self._stats.records >= 100_000 else logging.DEBUG,
                "boilerplate statistics of %s: %d records loaded in %.2f s",
                self._path,
                self._stats.records,
                time.perf_counter() - began,
            )
        return self._stats

    def resolve_cluster(self, cluster_id: str) -> str | None:
        """The live cluster for an id or alias; None if unknown or the cluster is now empty."""
        with self._connection("resolve cluster") as conn:
            return self._resolve(conn, cluster_id)

    @staticmethod
    def _resolve(conn: sqlite3.Connection, cluster_id: str) -> str | None:
        # Aliases are repointed at every merge, so one hop always reaches the live id.
        row = conn.execute(
            "SELECT id FROM clusters WHERE id = ?1 UNION ALL SELECT c.id FROM aliases a"
            " JOIN clusters c ON c.id = a.cluster_id WHERE a.alias = ?1 LIMIT 1",
            (cluster_id,),
        ).fetchone()
        return None if row is None else str(row[0])

    def cluster_ids_in_use(self, cluster_id: str) -> bool:
        """True if the id is a live cluster, an alias or an alias target: an emptied
        cluster's id stays taken so its old aliases never reach an unrelated new cluster."""
        sql = (
            "SELECT EXISTS (SELECT 1 FROM clusters WHERE id = ?1)"
            " OR EXISTS (SELECT 1 FROM aliases WHERE alias = ?1 OR cluster_id = ?1)"
        )
        return bool(self._rows("check cluster id", sql, (cluster_id,))[0][0])

    def get_cluster(self, cluster_id: str) -> ClusterInfo | None:
        """The live cluster behind an id or alias with its members and aliases, read in one
        snapshot so that size and member list agree."""
        with self._connection("get cluster") as conn, self._transaction(conn, "BEGIN"):
            live = self._resolve(conn, cluster_id)
            if live is None:
                return None
            row = conn.execute("SELECT * FROM clusters WHERE id = ?", (live,)).fetchone()
            members = conn.execute(
                "SELECT id, title, company, source, posted_at FROM postings"
                " WHERE cluster_id = ? ORDER BY posted_at, id",
                (live,),
            ).fetchall()
            aliases = conn.execute(
                "SELECT alias FROM aliases WHERE cluster_id = ? ORDER BY alias", (live,)
            ).fetchall()
        listed = [ClusterMember(m[0], m[1], m[2], m[3], from_micros(m[4])) for m in members]
        canonical = next((m for m in listed if m.id == row["canonical_id"]), None)
        summary = dict(vars(summary_of(row)))
        if canonical is not None:
            summary.update(title=canonical.title, company=canonical.company)
            summary.update(source=canonical.source)
        return ClusterInfo(**summary, aliases=[a[0] for a in aliases], members=listed)

    def cluster_canonicals(self, cluster_ids: Sequence[str]) -> dict[str, str]:
        """Canonical posting id of each live cluster id given (aliases and unknowns left out)."""
        ids = list(dict.fromkeys(cluster_ids))
        result: dict[str, str] = {}
        for start in range(0, len(ids), BATCH):
            chunk = ids[start : start + BATCH]
            sql = f"SELECT id, canonical_id FROM clusters WHERE id IN ({marks(len(chunk))})"
            result.update({r[0]: r[1] for r in self._rows("read canonicals", sql, chunk)})
        return result

    def list_clusters(self, filters: ClusterFilter, after: str | None, limit: int) -> ClusterPage:
        """One keyset page of clusters ordered by id; fetches limit+1 to know if more exist."""
        limit = max(limit, 0)
        where = ["size >= ?"]
        args: list[Any] = [filters.min_size]
        for clause, value in (
            ("clusters.id > ?", after),
            ("last_seen >= ?", None if filters.since is None else to_micros(filters.since)),
            ("first_seen <= ?", None if filters.until is None else to_micros(filters.until)),
            (HAS_MEMBER.format(column="company_key"), filters.company_key),
            (HAS_MEMBER.format(column="source"), filters.source),
            (HAS_TITLE, None if filters.title is None else filters.title.casefold()),
        ):
            if value is not None:
                where.append(clause)
                args.append(value)
        where_sql = f"{' AND '.join(where)} ORDER BY clusters.id LIMIT ?"
        with self._connection("list clusters") as conn:
            rows = cluster_summaries(conn, where_sql, [*args, limit + 1])
        page = rows[:limit]
        more = len(rows) > limit and bool(page)
        return ClusterPage(clusters=page, next_after=page[-1].id if more else None)

    def iter_assignments(self) -> Iterator[Assignment]:
        """Every posting by id, read in keyset pages so no cursor stays open between yields
        (a streaming response may resume the generator on another thread)."""
        sql = (
            "SELECT p.id, p.cluster_id, c.canonical_id FROM postings p"
            " LEFT JOIN clusters c ON c.id = p.cluster_id"
            " WHERE ?1 IS NULL OR p.id > ?1 ORDER BY p.id LIMIT ?2"
        )
        after: str | None = None
        while True:
            rows = self._rows("read assignments", sql, (after, BATCH))
            for pid, cluster, canonical in rows:
                yield Assignment(pid, cluster, None if canonical in (None, pid) else canonical)
            if len(rows) < BATCH:
                return
            after = rows[-1][0]

    def stats(self) -> IndexStats:
        """Posting and cluster counts, and bytes on disk (main file plus the WAL)."""
        sql = (
            "SELECT (SELECT COUNT(*) FROM postings), (SELECT COUNT(*) FROM clusters),"
            " (SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size())"
        )
        postings, clusters, size = self._rows("read stats", sql)[0]
        with suppress(OSError):  # no WAL file right now: nothing to add
            size += self._path.with_name(self._path.name + "-wal").stat().st_size
        return IndexStats(postings=postings, clusters=clusters, bytes=size)

    def duplicate_stats(self, query: StatsQuery) -> DuplicateStats:
        """Per-day counts kept by triggers and the clusters' source sets, read in one
        snapshot (`indexer.stores.sqlite.stats`): no query sorts or reads the postings' rows."""
        since = None if query.since is None else to_micros(query.since)
        until = None if query.until is None else to_micros(query.until)
        with self._connection("read statistics") as conn, self._transaction(conn, "BEGIN"):
            rows = counted_rows(conn, query, since, until)
            sets = source_sets(conn, since, until)
        per_source, overlaps = overlap_from_sets(
            (sources.split(SOURCES_SEPARATOR) if sources else [], n) for sources, n in sets
        )
        return assemble(rows, query.interval, per_source, overlaps)

    def add_feedback(self, feedback: Feedback) -> None:
        """Store the label under the pair's ids in sorted order (the pair is unordered)."""
        first, second = sorted(
            [(feedback.a_id, feedback.a_document), (feedback.b_id, feedback.b_document)],
            key=lambda side: side[0],
        )
        with (
            self._lock,
            self._connection("store feedback") as conn,
            self._transaction(
                conn, "SAVEPOINT apply" if conn.in_transaction else "BEGIN IMMEDIATE"
            ),
        ):
            conn.execute(
                "INSERT OR REPLACE INTO feedback VALUES (?, ?, ?, ?, ?, ?)",
                (
                    first[0],
                    second[0],
                    feedback.label,
                    to_micros(feedback.at),
                    to_json(first[1]),
                    to_json(second[1]),
                ),
            )

    def iter_feedback(self) -> Iterator[Feedback]:
        """Every stored label, oldest first (read at once: feedback is small)."""
        rows = self._rows("read feedback", "SELECT * FROM feedback ORDER BY at, a_id, b_id")
        for row in rows:
            yield Feedback(
                a_id=row["a_id"],
                b_id=row["b_id"],
                label=row["label"],
                at=from_micros(row["at"]),
                a_document=json.loads(row["a_document"]),
                b_document=json.loads(row["b_document"]),
            )

    def feedback_labels(self, pairs: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """Labels of the pairs given that have one, by sorted ids (primary-key lookups)."""
        with self._connection("read feedback labels") as conn:
            return feedback_labels(conn, pairs)

    def review_pairs(self, threshold: float, margin: float, limit: int) -> list[ReviewPair]:
        """Pairs for the review queue (see the port), read in one snapshot: the decisions'
        scores through json_extract (one scan of `postings`), the merges from `merges`."""
        with self._connection("read review pairs") as conn, self._transaction(conn, "BEGIN"):
            return review_pairs(conn, threshold, margin, limit, self._unpacker(conn))

    # -- writes ---------------------------------------------------------------------------

    def apply(self, changes: WriteSet) -> None:
        """Deletions, merges, upserts and cluster statistics in one IMMEDIATE transaction,
        committed and fsynced (synchronous=FULL) before returning."""
        for posting, _ in changes.upserts:
            if len(posting.sketch) != self._params.num_perm:
                raise ValueError(
                    f"posting {posting.id}: sketch has {len(posting.sketch)} values, the index "
                    f"expects num_perm={self._params.num_perm}"
                )
        in_batch = getattr(self._local, "batch", None) is not None
        with self._lock:
            if not in_batch:
                self._new_dictionary_if_due()
            bands: BandIndex | None = None
            stats = self._unit_stats() if changes.unit_observations else None
            mark = 0 if stats is None else stats.mark()
            band_mark = 0
            try:
                with (
                    self._connection("apply changes") as conn,
                    self._transaction(conn, "SAVEPOINT apply" if in_batch else "BEGIN IMMEDIATE"),
                ):
                    bands = self._band_index(conn)
                    band_mark = bands.mark()
                    self._write(conn, bands, changes)
            except BaseException:
                if bands is not None:
                    bands.rollback_to(band_mark)
                if stats is not None:
                    stats.rollback_to(mark)
                raise
            if not in_batch:
                if bands is not None:
                    bands.commit()
                if stats is not None:
                    stats.commit()

    def expire(self, before: datetime, chunk: int = 500) -> int:
        """Retention: delete the postings posted before `before`, oldest first, `chunk` per
        transaction (each an `apply`, so clusters stay consistent and a crash loses at most
        the chunk in flight, never half of one). Then the freed pages go back to the file
        system (incremental auto-vacuum; a file migrated from layout 2 keeps them for reuse)
        and the key index drops the expired entries."""
        cutoff = to_micros(before)
        deleted = 0
        while True:
            with self._lock:
                rows = self._rows(
                    "find expired postings",
                    "SELECT id FROM postings WHERE posted_at < ? ORDER BY posted_at, id LIMIT ?",
                    (cutoff, chunk),
                )
                if not rows:
                    break
                self.apply(WriteSet(deletions=[row[0] for row in rows]))
            deleted += len(rows)
        if deleted:
            with self._lock, self._connection("give back free pages") as conn:
                # executescript steps the pragma to its end; execute() frees one page
                conn.executescript("PRAGMA incremental_vacuum;")
                # The file shrinks when a checkpoint moves the shrunk pages in: now, without
                # waiting for readers (TRUNCATE would wait up to the busy timeout while
                # holding the writer lock; a reader in an old snapshot only makes this one
                # partial, and the next automatic checkpoint finishes it).
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                if self._bands is not None:
                    self._bands.compact()
        return deleted

    def _write(self, conn: sqlite3.Connection, bands: BandIndex, changes: WriteSet) -> None:
        if changes.unit_observations:  # first: a write failing after it rolls it back too
            entries = self._unit_stats().stage(changes.unit_observations)
            if entries:
                conn.execute("INSERT INTO unit_stat_log (entries) VALUES (?)", (entries,))
        touched: set[str] = set()
        for posting_id in changes.deletions:
            touched.update(remove_posting(conn, bands, posting_id))
        for merge in changes.merges:
            touched.add(merge_clusters(conn, merge.absorbed, merge.survivor, merge.posting_id))
        for posting, keys in changes.upserts:
            touched.update(remove_posting(conn, bands, posting.id))
            cluster_id, opened = insert_posting(conn, bands, self._codec, posting, keys)
            if not opened:  # an opened cluster's row is written; only another change alters it
                touched.add(cluster_id)
        for cluster_id in sorted(touched):
            refresh_cluster(conn, cluster_id)


def open_sqlite_store(data_dir: Path, params: SketchParams, create: bool = True) -> SqliteStore:
    """Open (creating if needed, unless `create` is False) the index at
    `data_dir/index.sqlite3`. Readers such as `export` pass create=False, so a mistyped data
    directory is an error rather than a silently empty index. Writers (create=True) hold the
    data directory's lock (stores/sqlite/datadir_lock.py): a second writer raises DataDirInUse."""
    if not create and not (Path(data_dir) / "index.sqlite3").exists():
        raise StoreUnavailable(f"no index at {data_dir} (nothing has been ingested there)")
    try:
        Path(data_dir).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreUnavailable(f"cannot create index directory {data_dir}: {exc}") from exc
    lock = DataDirLock(Path(data_dir)) if create else None  # writers only; readers share
    try:
        return SqliteStore(Path(data_dir) / "index.sqlite3", params, lock)
    except BaseException:
        if lock is not None:
            lock.release()
        raise
