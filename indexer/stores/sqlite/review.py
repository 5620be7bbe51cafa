"""The review queue's and the cluster search's reads on the embedded index.

Functions over an open connection, called by `SqliteStore` (kept apart so the adapter's
module holds one job). The layout is `indexer.stores.sqlite.schema`'s; nothing here writes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from indexer.review import best_candidate, pair_key
from indexer.store import ClusterSummary, ReviewPair, ReviewReason, ReviewSide
from indexer.stores.sqlite.schema import BATCH, from_micros, marks, summary_of

_SIDE = "p.id, p.title, p.company, p.source, p.cluster_id, p.posted_at"

# One scan of `postings` for the scores (48 ms over the 14,842 NHS ads when they were read
# with json_extract), cheaper than an index for a page a person opens. Rows written before
# layout 6 have no `score`: json_extract reads it out of their decision.
_SCORE = (
    "COALESCE(score, CASE WHEN typeof(decision) = 'text' AND decision != ''"
    " THEN json_extract(decision, '$.score') END)"
)
_NEAR_THRESHOLD = f"""
SELECT {_SIDE}, p.decision, d.body FROM (
    SELECT rid, abs({_SCORE} - ?1) AS distance, id FROM postings
    WHERE abs({_SCORE} - ?1) <= ?2
    ORDER BY distance, id LIMIT ?3
) t JOIN postings p ON p.rid = t.rid LEFT JOIN documents d ON d.rid = p.rid
ORDER BY t.distance, t.id
"""

_MERGES = f"""
SELECT m.absorbed, {_SIDE}, p.decision, d.body FROM merges m
JOIN postings p ON p.id = m.posting_id LEFT JOIN documents d ON d.rid = p.rid
ORDER BY m.at DESC, m.rowid DESC LIMIT ?1
"""

CASEFOLD_CONTAINS = "jobdedup_casefold_contains"
"""SQL function (text, needle) → 1 if the casefolded text contains the casefolded needle:
SQLite's LIKE and lower() fold ASCII only, and titles are multilingual."""


HAS_TITLE = (
    "EXISTS (SELECT 1 FROM postings p WHERE p.cluster_id = clusters.id"
    f" AND {CASEFOLD_CONTAINS}(p.title, ?))"
)
"""The listing's title filter (its argument casefolded by the caller)."""


def _casefold_contains(text: str | None, needle: str | None) -> int:
    return int(text is not None and needle is not None and needle in text.casefold())


def _side(row: sqlite3.Row) -> ReviewSide:
    return ReviewSide(
        id=row["id"],
        title=row["title"],
        company=row["company"],
        source=row["source"],
        cluster_id=row["cluster_id"],
        posted_at=from_micros(row["posted_at"]),
    )


def _sides(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, ReviewSide]:
    unique = list(dict.fromkeys(ids))
    found: dict[str, ReviewSide] = {}
    for start in range(0, len(unique), BATCH):
        chunk = unique[start : start + BATCH]
        sql = f"SELECT {_SIDE} FROM postings p WHERE p.id IN ({marks(len(chunk))})"
        found.update((row["id"], _side(row)) for row in conn.execute(sql, chunk))
    return found


def review_pairs(
    conn: sqlite3.Connection,
    threshold: float,
    margin: float,
    limit: int,
    unpack: Callable[[bytes], tuple[dict[str, Any], dict[str, Any]]],
) -> list[ReviewPair]:
    """`IndexStore.review_pairs` over one read snapshot (the caller's transaction); `unpack`
    reads a layout-6 document body (`indexer.stores.sqlite.documents`)."""
    if limit <= 0:
        return []
    found: list[tuple[sqlite3.Row, str | None, ReviewReason]] = [
        (row, None, "near_threshold")
        for row in conn.execute(_NEAR_THRESHOLD, (threshold, margin, limit))
    ]
    found += [
        (row, row["absorbed"], "single_link_merge") for row in conn.execute(_MERGES, (limit,))
    ]
    picked: list[tuple[ReviewSide, str, float, ReviewReason]] = []
    for row, absorbed, reason in found:
        decision: dict[str, Any] = (
            json.loads(row["decision"]) if row["body"] is None else unpack(row["body"])[1]
        )
        best = best_candidate(decision, absorbed)
        if best is not None:
            picked.append((_side(row), best[0], best[1], reason))
    others = _sides(conn, [b_id for _, b_id, _, _ in picked])
    return [
        ReviewPair(a=a, b=others[b_id], score=score, reason=reason)
        for a, b_id, score, reason in picked
        if b_id in others
    ]


def feedback_labels(
    conn: sqlite3.Connection, pairs: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    """`IndexStore.feedback_labels`: one primary-key lookup per distinct pair."""
    labels: dict[tuple[str, str], str] = {}
    for key in dict.fromkeys(pair_key(a, b) for a, b in pairs):
        row = conn.execute("SELECT label FROM feedback WHERE a_id = ? AND b_id = ?", key).fetchone()
        if row is not None:
            labels[key] = str(row[0])
    return labels


def cluster_summaries(
    conn: sqlite3.Connection, where: str, args: Sequence[Any]
) -> list[ClusterSummary]:
    """Cluster listing rows matching `where` (over `clusters`; the caller's LIMIT included),
    with the canonical posting's title, company and source. The title filter's SQL function
    is registered on the connection first (cheap; pooled connections are shared)."""
    conn.create_function(CASEFOLD_CONTAINS, 2, _casefold_contains, deterministic=True)
    sql = (
        "SELECT clusters.*, cp.title AS c_title, cp.company AS c_company,"
        " cp.source AS c_source FROM clusters"
        f" LEFT JOIN postings cp ON cp.id = clusters.canonical_id WHERE {where}"
    )
    return [
        replace(
            summary_of(row), title=row["c_title"], company=row["c_company"], source=row["c_source"]
        )
        for row in conn.execute(sql, args)
    ]
