"""The write statements of the embedded index, as functions over an open connection.

`SqliteStore.apply` runs them inside one transaction (or savepoint); they never commit.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np

from indexer.sqlite_schema import FIELDS, INSERT_POSTING, int64_bytes, to_json, to_micros
from indexer.store import StoredPosting


def remove_posting(conn: sqlite3.Connection, posting_id: str) -> list[str]:
    """Delete a posting and its band rows; returns its cluster id (to refresh), if any."""
    row = conn.execute(
        "SELECT rid, cluster_id, posted_at, band_keys FROM postings WHERE id = ?", (posting_id,)
    ).fetchone()
    if row is None:
        return []
    # The key list stored with the posting addresses its band rows by primary key, which
    # is cheaper than a second index on bands(posting_id).
    keys = np.frombuffer(row["band_keys"], dtype="<i8").tolist()
    conn.executemany(
        "DELETE FROM bands WHERE key = ? AND posted_at = ? AND rid = ?",
        [(key, row["posted_at"], row["rid"]) for key in keys],
    )
    conn.execute("DELETE FROM postings WHERE id = ?", (posting_id,))
    return [row["cluster_id"]]


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


def insert_posting(conn: sqlite3.Connection, posting: StoredPosting, keys: Sequence[int]) -> str:
    """Insert a posting and its band rows; returns the (unaliased) cluster it joined."""
    values = {name: getattr(posting, name) for name in FIELDS}
    unique_keys = list(dict.fromkeys(keys))
    values.update(
        cluster_id=unalias(conn, posting.cluster_id),
        posted_at=to_micros(posting.posted_at),
        sketch=int64_bytes(posting.sketch),
        band_keys=int64_bytes(unique_keys),
        document=to_json(posting.document),
        decision=to_json(posting.decision),
    )
    rid = conn.execute(INSERT_POSTING, values).lastrowid
    conn.executemany(
        "INSERT INTO bands (key, posted_at, rid) VALUES (?, ?, ?)",
        [(key, values["posted_at"], rid) for key in unique_keys],
    )
    return str(values["cluster_id"])


def refresh_cluster(conn: sqlite3.Connection, cluster_id: str) -> None:
    """Recompute size, first/last seen and canonical (earliest, then smallest id) from the
    members, or drop the row when none are left."""
    size, first, last = conn.execute(
        "SELECT COUNT(*), MIN(posted_at), MAX(posted_at) FROM postings WHERE cluster_id = ?",
        (cluster_id,),
    ).fetchone()
    if size == 0:
        conn.execute("DELETE FROM clusters WHERE id = ?", (cluster_id,))
        return
    conn.execute(
        "INSERT OR REPLACE INTO clusters (id, size, first_seen, last_seen, canonical_id)"
        " SELECT ?1, ?2, ?3, ?4, id FROM postings WHERE cluster_id = ?1"
        " ORDER BY posted_at, id LIMIT 1",
        (cluster_id, size, first, last),
    )
