"""The write statements of the embedded index, as functions over an open connection.

`SqliteStore.apply` runs them inside one transaction (or savepoint); they never commit.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime

from indexer.store import StoredPosting
from indexer.stores.sqlite.band_index import BandIndex
from indexer.stores.sqlite.documents import DocumentCodec
from indexer.stores.sqlite.schema import (
    FIELDS,
    INSERT_POSTING,
    SOURCES_SEPARATOR,
    int64_bytes,
    to_micros,
)


def remove_posting(conn: sqlite3.Connection, bands: BandIndex, posting_id: str) -> list[str]:
    """Delete a posting, its stored document and its keys from the key index; returns its
    cluster id (to refresh), if any."""
    row = conn.execute("SELECT rid, cluster_id FROM postings WHERE id = ?", (posting_id,))
    found = row.fetchone()
    if found is None:
        return []
    conn.execute("DELETE FROM postings WHERE rid = ?", (found[0],))
    conn.execute("DELETE FROM documents WHERE rid = ?", (found[0],))
    conn.execute("DELETE FROM posting_keys WHERE rid = ?", (found[0],))
    bands.stage_remove(int(found[0]))
    return [found[1]]


def merge_clusters(conn: sqlite3.Connection, absorbed: str, survivor: str, by: str) -> str:
    """Fold `absorbed` into `survivor`. Both are resolved first, so an alias never becomes
    a posting's cluster or another alias's target (A->B then B->C leaves A->C)."""
    absorbed, survivor = unalias(conn, absorbed), unalias(conn, survivor)
    if absorbed == survivor:
        return survivor
    for sql in (
        "UPDATE postings SET cluster_id = ?2 WHERE cluster_id = ?1",
        "UPDATE aliases SET cluster_id = ?2 WHERE cluster_id = ?1",
        "INSERT OR REPLACE INTO aliases (alias, cluster_id) VALUES (?1, ?2)",
    ):
        conn.execute(sql, (absorbed, survivor))
    conn.execute(
        "INSERT INTO merges (absorbed, survivor, posting_id, at) VALUES (?, ?, ?, ?)",
        (absorbed, survivor, by, to_micros(datetime.now(UTC))),
    )
    conn.execute("DELETE FROM clusters WHERE id = ?", (absorbed,))
    return survivor


def unalias(conn: sqlite3.Connection, cluster_id: str) -> str:
    row = conn.execute("SELECT cluster_id FROM aliases WHERE alias = ?", (cluster_id,))
    found = row.fetchone()
    return cluster_id if found is None else str(found[0])


def insert_posting(
    conn: sqlite3.Connection,
    bands: BandIndex,
    codec: DocumentCodec,
    posting: StoredPosting,
    keys: Sequence[int],
) -> tuple[str, bool]:
    """Insert a posting, its keys in a `posting_keys` row and in the key index, its document
    and decision in a `documents` row; returns the (unaliased) cluster it joined and whether
    it opened that cluster. The rid comes from the key index, which never hands one out twice
    (SQLite would reuse the largest rowid after a delete).

    A cluster without a row gets its row here, as `refresh_cluster` would write it for one
    member (this posting, canonical), and the posting row its `canonical` flag: the caller
    then refreshes the cluster only if another change of the same write touches it. Most
    postings open a cluster, and the refresh's three reads and an update were a fifth of
    their write."""
    values = {name: getattr(posting, name) for name in FIELDS}
    unique_keys = list(dict.fromkeys(keys))
    rid = bands.allocate_rid()
    cluster_id = unalias(conn, posting.cluster_id)
    posted_at = to_micros(posting.posted_at)
    opened = (
        conn.execute(
            "INSERT INTO clusters (id, size, first_seen, last_seen, canonical_id, sources)"
            " VALUES (?1, 1, ?2, ?2, ?3, ?4) ON CONFLICT (id) DO NOTHING",
            (cluster_id, posted_at, posting.id, posting.source or ""),
        ).rowcount
        == 1
    )
    values.update(
        rid=rid,
        cluster_id=cluster_id,
        posted_at=posted_at,
        sketch=int64_bytes(posting.sketch),
        band_keys=b"",
        document="",
        decision="",
        duplicate_type=posting.decision.get("duplicate_type"),
        score=posting.decision.get("score"),
        canonical=int(opened),
    )
    conn.execute(INSERT_POSTING, values)
    conn.execute(
        "INSERT INTO documents (rid, body) VALUES (?, ?)",
        (rid, codec.pack(posting.document, posting.decision)),
    )
    conn.execute(
        "INSERT INTO posting_keys (rid, band_keys) VALUES (?, ?)", (rid, int64_bytes(unique_keys))
    )
    bands.stage_add(rid, posted_at, unique_keys)
    return cluster_id, opened


def refresh_cluster(conn: sqlite3.Connection, cluster_id: str) -> None:
    """Recompute size, first/last seen, canonical (earliest, then smallest id) and the
    distinct sources from the members, or drop the row when none are left. The members'
    `canonical` flags follow (only the rows whose flag changes are written), so statistics
    count distinct vacancies from the postings index alone."""
    size, first, last = conn.execute(
        "SELECT COUNT(*), MIN(posted_at), MAX(posted_at) FROM postings WHERE cluster_id = ?",
        (cluster_id,),
    ).fetchone()
    if size == 0:
        conn.execute("DELETE FROM clusters WHERE id = ?", (cluster_id,))
        return
    canonical = conn.execute(
        "SELECT id FROM postings WHERE cluster_id = ? ORDER BY posted_at, id LIMIT 1",
        (cluster_id,),
    ).fetchone()[0]
    sources = sorted(
        row[0]
        for row in conn.execute(
            "SELECT DISTINCT source FROM postings WHERE cluster_id = ? AND source IS NOT NULL",
            (cluster_id,),
        )
    )
    conn.execute(
        "INSERT OR REPLACE INTO clusters (id, size, first_seen, last_seen, canonical_id, sources)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (cluster_id, size, first, last, canonical, SOURCES_SEPARATOR.join(sources)),
    )
    conn.execute(
        "UPDATE postings SET canonical = (id = ?2)"
        " WHERE cluster_id = ?1 AND canonical != (id = ?2)",
        (cluster_id, canonical),
    )
