"""SQLite layout of the embedded index and the conversions between rows and records.

Kept apart from `stores.sqlite.store` (the adapter's behaviour) so each module holds one job.
Layout: `postings` (one row per posting, sketch and index keys as little-endian int64 bytes,
posted_at as UTC epoch microseconds, an integer `rid` that names the posting in the in-memory
key index `indexer.stores.sqlite.band_index`), `clusters` (statistics
kept by `apply`), `aliases` (merged cluster ids -> live id), `merges` (history) and
`unit_stat_log` (boilerplate statistics, read into memory: `stores.sqlite.unit_stats`), and by
rid `documents` and `posting_keys` (layout 6). `meta`
holds the schema version and sketch parameters, checked at open.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import zlib
from collections.abc import Callable, Sequence
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from indexer.minhash import Sketch
from indexer.store import ClusterSummary, StoredPosting
from indexer.stores.sqlite.stats import STATS_FILL, STATS_TABLES, STATS_TRIGGERS, STATS_UNTRIGGER
from indexer.stores.sqlite.unit_stats import RECORD, WITNESS_BITS, stat_key

logger = logging.getLogger(__name__)

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICRO = timedelta(microseconds=1)
MIN_TS, MAX_TS = -(2**63), 2**63 - 1  # stand-ins for an unbounded window side
BATCH = 500  # ids per IN (...) list and rows per iter_assignments page
BUSY_TIMEOUT_MS = 5000
MAX_IDLE = 16  # pooled connections kept open; more are opened under load and closed after
CACHE_KIB = 16384  # per connection; the 2 MB default made band-key inserts ~35% slower at 20k
WAL_CHECKPOINT_PAGES = 10000
"""Pages the WAL may hold before a commit copies them into the database (default 1,000).
Band-key rows land on random pages, so one ingest group of 256 postings dirties thousands of
pages and the default checkpointed at nearly every commit: at 10,000 the COMMIT share of
ingest fell from 0.20 to 0.10 ms per posting (5,000 NHS ads). The WAL file grows to ~40 MB."""

SCHEMA_VERSION = 9
"""Version of the embedded layout (the engine's is `indexer.store.SCHEMA_VERSION`).
9: documents are written as Zstandard frames, with dictionaries trained on the index's own
   ads (`indexer.stores.sqlite.documents`); the zlib bodies written before read as they are,
   so opening a layout-8 file converts nothing. Layout 8's code cannot read the new bodies.
8: `postings.language`, what the posting's reading found when it was prepared
   (`StoredPosting.language`); NULL in rows written before, which are read again.
7: the boilerplate statistics are held in memory (`stores.sqlite.unit_stats`); the file keeps their
   records in `unit_stat_log`, one row per write that adds any, instead of a `unit_stats`
   row per witness.
6: a posting's document and decision go to a `documents` row of their own, compressed with
   a dictionary sampled from the index (`indexer.stores.sqlite.documents`), and its score to
   `postings.score` (what the review queue reads); the index keys to `posting_keys`, so a
   `postings` row is ~1.3 KB (three to a 4 KB page); rows written before keep theirs in
   `postings` and read as before. Boilerplate statistics in `unit_stats`, witnesses of 31
   bits (`unit_witnesses` stored 64).
5: `postings.document` written as zlib-compressed JSON (`pack_document`); rows written
   before stay JSON text and read as before, so opening a layout-4 file converts nothing.
4: duplicate statistics: `postings.canonical` (kept by `refresh_cluster`) and
   `postings.duplicate_type` (from the stored decision), `clusters.sources` (the members'
   distinct sources), and the counting tables, triggers and indexes of
   `indexer.stores.sqlite.stats`.
3: no `bands` table: the keys are indexed in memory from `postings.band_keys`; an index on
   `postings(posted_at)` for retention (`expire`); new files use incremental auto-vacuum.
2: boilerplate unit statistics (`unit_witnesses`)."""

LAYOUT_6_TABLES = """
CREATE TABLE documents (rid INTEGER PRIMARY KEY, body BLOB NOT NULL);
CREATE TABLE dictionaries (
    id INTEGER PRIMARY KEY, from_rid INTEGER NOT NULL, bytes BLOB NOT NULL);
CREATE TABLE posting_keys (rid INTEGER PRIMARY KEY, band_keys BLOB NOT NULL);
"""
"""Layout 6's tables: a posting's document and decision (`indexer.stores.sqlite.documents`) and its
index keys, each in a row of its own by rid."""

UNIT_STATS_6 = """
CREATE TABLE IF NOT EXISTS unit_stats (
    scope INTEGER NOT NULL, unit INTEGER NOT NULL, witness INTEGER NOT NULL,
    PRIMARY KEY (scope, unit, witness)) WITHOUT ROWID
"""
"""Layout 6's boilerplate statistics, one row per witness (31 bits): created only on the way
from layout 5 to 7. Keying them by scope XOR unit (one column less, 542 against 708 bytes
per NHS ad) scattered an employer's rows over the table: reading them cost 0.51 against 0.38
ms per posting (cProfile, 3,500 NHS ads), which is why layout 6 kept the scope first; in
memory (layout 7) the order of the file no longer matters."""

LAYOUT_7_TABLES = """
CREATE TABLE unit_stat_log (id INTEGER PRIMARY KEY, entries BLOB NOT NULL);
"""
"""Layout 7's boilerplate statistics: each row the packed records (`unit_stats.
RECORD`) one write added."""


SCHEMA = (
    """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE postings (
    rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, posted_at INTEGER NOT NULL,
    cluster_id TEXT NOT NULL,
    block_key TEXT NOT NULL, company_key TEXT NOT NULL, source TEXT, company TEXT,
    title TEXT NOT NULL, content_hash TEXT NOT NULL, shingle_count INTEGER NOT NULL,
    canonical INTEGER NOT NULL DEFAULT 0, duplicate_type TEXT,
    band_keys BLOB NOT NULL, sketch BLOB NOT NULL, document TEXT NOT NULL,
    decision TEXT NOT NULL, score REAL, language TEXT);
CREATE INDEX postings_block ON postings(block_key, posted_at);
CREATE INDEX postings_cluster ON postings(cluster_id, posted_at, id);
CREATE INDEX postings_posted ON postings(posted_at);
CREATE TABLE clusters (
    id TEXT PRIMARY KEY, size INTEGER NOT NULL, first_seen INTEGER NOT NULL,
    last_seen INTEGER NOT NULL, canonical_id TEXT NOT NULL, sources TEXT NOT NULL DEFAULT '');
CREATE TABLE aliases (alias TEXT PRIMARY KEY, cluster_id TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX aliases_target ON aliases(cluster_id);
CREATE TABLE feedback (
    a_id TEXT NOT NULL, b_id TEXT NOT NULL, label TEXT NOT NULL, at INTEGER NOT NULL,
    a_document TEXT NOT NULL, b_document TEXT NOT NULL,
    PRIMARY KEY (a_id, b_id)) WITHOUT ROWID;
CREATE TABLE merges (
    absorbed TEXT NOT NULL, survivor TEXT NOT NULL, posting_id TEXT NOT NULL,
    at INTEGER NOT NULL);
"""
    + LAYOUT_6_TABLES
    + LAYOUT_7_TABLES
)
# Small columns come first in `postings`: SQLite reads a row's columns in order, and the
# sketch and document usually spill onto overflow pages that most queries never need.

FIELDS = [f.name for f in fields(StoredPosting)]
SELECT_POSTING = (
    "SELECT "
    + ", ".join(f"p.{name}" for name in FIELDS)
    + ", d.body FROM postings p LEFT JOIN documents d ON d.rid = p.rid"
)
# Candidates skip the JSON columns: decoding them was a third of the time per posting.
SELECT_LIGHT = (
    "SELECT "
    + ", ".join(f"p.{name}" for name in FIELDS if name not in ("document", "decision"))
    + " FROM postings p"
)
SELECT_CANDIDATE = SELECT_LIGHT.replace("SELECT ", "SELECT p.rid, ", 1)
INSERT_POSTING = (
    f"INSERT INTO postings (rid, {', '.join(FIELDS)}, band_keys, duplicate_type, score,"
    " canonical)"
    f" VALUES (:rid, {', '.join(':' + name for name in FIELDS)}, :band_keys, :duplicate_type,"
    " :score, :canonical)"
)
"""The `canonical` flag is set at insert (the posting that opens a cluster is its canonical:
`writes.insert_posting`), so `refresh_cluster` rarely flips it: each flip rewrites the
statistics counts through the update trigger (2 removals and 2 additions more)."""
SOURCES_SEPARATOR = "\x1f"
"""Joins a cluster's sorted distinct sources in `clusters.sources` (a unit separator: no
board name holds one)."""
STATS_LAYOUT = [*STATS_TABLES, *STATS_TRIGGERS]
"""Statements of the statistics layout (`indexer.stores.sqlite.stats`), run after `SCHEMA`."""


MIGRATES_FROM = ("2", "3", "4", "5", "6", "7", "8")
"""Stored layout versions `migrate_from_previous` brings to `SCHEMA_VERSION`."""


def migrate_from_previous(conn: sqlite3.Connection, path: object, version: int = 2) -> None:
    """Bring a version-2 to -8 index to the current layout inside the caller's transaction.
    2 -> 3: the per-key `bands` rows are dropped (every posting row already holds its keys).
    The file keeps the freed pages for later writes (a file created before layout 3 has no
    incremental auto-vacuum: `VACUUM` gives its free pages back to the file system).
    3 -> 4: the statistics columns are added and filled from what is stored (types from the
    decisions, canonical flags from the clusters, sources from the members).
    4 -> 5: nothing to rewrite (`unpack_document` reads both kinds of rows).
    5 -> 6: the `documents`, `dictionaries` and `posting_keys` tables and `postings.score`
    are added; the rows written before keep their document, decision, keys and a NULL score
    (the review queue reads their score out of the decision), so no posting is rewritten. The
    statistics rows move to `unit_stats` in one statement, their witnesses cut to 31 bits.
    6 -> 7: the `unit_stats` rows become records of `unit_stat_log` (`move_unit_stats`).
    7 -> 8: `postings.language` is added, NULL in every row written before.
    8 -> 9: nothing to rewrite (`DocumentCodec` reads both kinds of bodies)."""
    if version <= 2:
        conn.execute("DROP TABLE IF EXISTS bands")
        conn.execute("CREATE INDEX IF NOT EXISTS postings_posted ON postings(posted_at)")
    if version <= 3:
        for table, column, kind in (
            ("postings", "canonical", "INTEGER NOT NULL DEFAULT 0"),
            ("postings", "duplicate_type", "TEXT"),
            ("clusters", "sources", "TEXT NOT NULL DEFAULT ''"),
        ):
            if column not in {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
        for statement in (
            *STATS_UNTRIGGER,
            "UPDATE postings SET duplicate_type = json_extract(decision, '$.duplicate_type')"
            " WHERE typeof(decision) = 'text' AND decision != ''",
            "UPDATE postings SET canonical = id IN (SELECT canonical_id FROM clusters)",
            "UPDATE clusters SET sources = COALESCE((SELECT group_concat(source, char(31))"
            " FROM (SELECT DISTINCT source FROM postings p WHERE p.cluster_id = clusters.id"
            " AND source IS NOT NULL ORDER BY source)), '')",
            *STATS_TABLES,
            *STATS_FILL,
            *STATS_TRIGGERS,
        ):
            conn.execute(statement)
    if version <= 5:
        if "score" not in {row[1] for row in conn.execute("PRAGMA table_info(postings)")}:
            conn.execute("ALTER TABLE postings ADD COLUMN score REAL")
        for statement in LAYOUT_6_TABLES.split(";"):
            if statement.strip():
                conn.execute(statement.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"))
        conn.execute(UNIT_STATS_6)
        conn.execute(
            "INSERT OR IGNORE INTO unit_stats (scope, unit, witness)"
            " SELECT scope, unit, witness & ? FROM unit_witnesses",
            (WITNESS_BITS,),
        )
        conn.execute("DROP TABLE unit_witnesses")
    if version <= 6:
        conn.execute(LAYOUT_7_TABLES.strip().replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"))
        move_unit_stats(conn)
    columns = {row[1] for row in conn.execute("PRAGMA table_info(postings)")}
    if version <= 7 and "language" not in columns:
        conn.execute("ALTER TABLE postings ADD COLUMN language TEXT")
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))
    logger.info("index %s migrated from layout %d to %d", path, version, SCHEMA_VERSION)


def move_unit_stats(conn: sqlite3.Connection, chunk: int = 100_000) -> None:
    """Layout 6 -> 7: every `unit_stats` row as a record of `unit_stat_log` (`chunk` records
    a row), then the table dropped. Its primary key made the rows distinct, as the records
    must be."""
    cursor = conn.execute("SELECT scope, unit, witness FROM unit_stats")
    while rows := cursor.fetchmany(chunk):
        records = np.array(
            [(stat_key(scope, unit), witness & WITNESS_BITS) for scope, unit, witness in rows],
            dtype=RECORD,
        )
        conn.execute("INSERT INTO unit_stat_log (entries) VALUES (?)", (records.tobytes(),))
    conn.execute("DROP TABLE unit_stats")


def to_micros(moment: datetime) -> int:
    """UTC epoch microseconds of a datetime; naive datetimes are taken as UTC.

    Integers sort and range-compare correctly in SQLite, unlike ISO strings with offsets.
    """
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - EPOCH) // MICRO


def from_micros(micros: int) -> datetime:
    """Inverse of `to_micros`: a tz-aware UTC datetime."""
    return EPOCH + timedelta(microseconds=micros)


def int64_bytes(values: Sequence[int] | Sketch) -> bytes:
    return np.asarray(values, dtype="<i8").tobytes()


def to_json(value: dict[str, Any] | list[Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def unpack_document(stored: bytes | str | None) -> dict[str, Any]:
    """A document stored in `postings.document` before layout 6: zlib-compressed JSON
    (layout 5) or JSON text (before)."""
    if stored is None:
        return {}
    if isinstance(stored, bytes):
        stored = zlib.decompress(stored)
    loaded: dict[str, Any] = json.loads(stored)
    return loaded


def row_to_posting(
    row: sqlite3.Row,
    unpack: Callable[[bytes], tuple[dict[str, Any], dict[str, Any]]] | None = None,
) -> StoredPosting:
    """A `postings` row (full, or light without document/decision) as a record. A full row
    of layout 6 carries its `documents.body`, which `unpack` reads (`DocumentCodec`)."""
    values = dict(zip(row.keys(), row, strict=True))
    values.pop("rid", None)
    body = values.pop("body", None)
    values["posted_at"] = from_micros(row["posted_at"])
    values["sketch"] = np.frombuffer(row["sketch"], dtype="<i8").astype(np.int64)
    if body is not None and unpack is not None:
        values["document"], values["decision"] = unpack(body)
    else:
        values["document"] = unpack_document(values.get("document"))
        values["decision"] = json.loads(values.get("decision", "{}"))
    return StoredPosting(**values)


def summary_of(row: sqlite3.Row) -> ClusterSummary:
    first, last = from_micros(row["first_seen"]), from_micros(row["last_seen"])
    return ClusterSummary(row["id"], row["size"], first, last, row["canonical_id"])


HAS_MEMBER = "EXISTS (SELECT 1 FROM postings p WHERE p.cluster_id = clusters.id AND p.{column} = ?)"


def marks(count: int) -> str:
    return ",".join("?" * count)
