"""Documents of the search-engine store and their conversions to and from the port's records.

Pure: dicts in, records out. A posting document holds what candidate search filters on
(band keys, block key, posted_at) and what verification needs (sketch, shingle count); a
cluster document holds the members, aliases and statistics of one cluster, so a cluster is
read by id in real time and never depends on the engine's refresh.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from indexer.store import ClusterInfo, ClusterMember, ClusterSummary, Feedback, StoredPosting
from indexer.stores.elastic.bodies import from_micros, member_titles, to_micros

Source = dict[str, Any]
"""A document's `_source`, as sent to and received from the engine."""


def encode_sketch(sketch: Sequence[int] | np.ndarray[Any, Any]) -> str:
    """Base64 of the little-endian int64 bytes: exact for every signed 64-bit value, and a
    third the size of a JSON array of 19-digit numbers."""
    return base64.b64encode(np.asarray(sketch, dtype="<i8").tobytes()).decode("ascii")


def decode_sketch(text: str) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Inverse of `encode_sketch`: a writable int64 array."""
    return np.frombuffer(base64.b64decode(text), dtype="<i8").astype(np.int64)


def posting_source(posting: StoredPosting, keys: Iterable[int], cluster_id: str) -> Source:
    """The postings-index document of a posting (band keys deduplicated, order kept)."""
    return {
        "posting_id": posting.id,
        "posted_at": to_micros(posting.posted_at),
        "band_keys": list(dict.fromkeys(int(k) for k in keys)),
        "block_key": posting.block_key,
        "company_key": posting.company_key,
        "source": posting.source,
        "cluster_id": cluster_id,
        "content_hash": posting.content_hash,
        "title": posting.title,
        "company": posting.company,
        "sketch": encode_sketch(posting.sketch),
        "shingle_count": posting.shingle_count,
        "document": posting.document,
        "decision": posting.decision,
        "decision_score": decision_score(posting.decision),
        "language": posting.language,
        # `canonical` is set when the cluster is summarised (`elastic_plan.Workspace.finish`)
        **stats_values(
            {
                "source": posting.source,
                "company_key": posting.company_key,
                "decision": posting.decision,
            },
            canonical=False,
        ),
    }


def stats_values(source: Source, canonical: bool) -> Source:
    """The statistics fields of a posting document (`elastic_bodies.STATS_PROPERTIES`)
    from its source, company key and decision."""
    return {
        "canonical": canonical,
        "duplicate_type": (source.get("decision") or {}).get("duplicate_type"),
        "stats_source": source.get("source"),
        "stats_company": source.get("company_key") or None,
    }


def decision_score(decision: Any) -> float | None:
    """The `decision_score` field of a posting document: its stored decision's `score` (the
    best candidate's, `service.decisions.Decision`), the value the embedded index's review
    queue reads with json_extract; None (field absent) when it is not a number."""
    score = decision.get("score") if isinstance(decision, dict) else None
    return float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None


def posting_from_source(source: Source) -> StoredPosting:
    """A stored posting from its document; absent document/decision (light reads) become {}."""
    return StoredPosting(
        id=source["posting_id"],
        content_hash=source["content_hash"],
        posted_at=from_micros(source["posted_at"]),
        title=source["title"],
        company=source.get("company"),
        source=source.get("source"),
        company_key=source["company_key"],
        block_key=source["block_key"],
        sketch=decode_sketch(source["sketch"]),
        shingle_count=source["shingle_count"],
        cluster_id=source["cluster_id"],
        document=source.get("document") or {},
        decision=source.get("decision") or {},
        language=source.get("language"),
    )


def member_of(source: Source) -> Source:
    """The entry a posting document contributes to its cluster document (with the month
    index it lives in, if any, which a later partial update of it must address)."""
    member = {
        "id": source["posting_id"],
        "title": source["title"],
        "company": source.get("company"),
        "source": source.get("source"),
        "company_key": source["company_key"],
        "posted_at": source["posted_at"],
    }
    if source.get("partition"):
        member["partition"] = source["partition"]
    return member


def new_cluster(cluster_id: str) -> Source:
    """An empty cluster document (filled and summarised by `summarise_cluster`)."""
    return {
        "kind": "cluster",
        "cluster_id": cluster_id,
        "live": False,
        "size": 0,
        "first_seen": 0,
        "last_seen": 0,
        "canonical_id": "",
        "company_keys": [],
        "sources": [],
        "members": [],
        "aliases": [],
        "merges": [],
    }


def summarise_cluster(doc: Source) -> None:
    """Recompute a cluster's statistics from its members, in place.

    Members are kept ordered by (posted_at, id); the first is the canonical. A cluster left
    without members is marked not live: it is then deleted, or kept as a tombstone while
    aliases still point at it, so its id is never reused by an unrelated cluster.
    """
    members = sorted(doc["members"], key=lambda m: (m["posted_at"], m["id"]))
    doc["members"] = members
    doc["size"] = len(members)
    doc["live"] = bool(members)
    doc["first_seen"] = members[0]["posted_at"] if members else 0
    doc["last_seen"] = max((m["posted_at"] for m in members), default=0)
    doc["canonical_id"] = members[0]["id"] if members else ""
    doc["company_keys"] = sorted({m["company_key"] for m in members})
    doc["sources"] = sorted({m["source"] for m in members if m.get("source") is not None})
    doc["member_titles"] = member_titles(members)
    doc["aliases"] = sorted(set(doc["aliases"]))


def cluster_summary(doc: Source) -> ClusterSummary:
    """A listing row from a (live) cluster document."""
    return ClusterSummary(
        id=doc["cluster_id"],
        size=doc["size"],
        first_seen=from_micros(doc["first_seen"]),
        last_seen=from_micros(doc["last_seen"]),
        canonical_id=doc["canonical_id"],
    )


def cluster_info(doc: Source) -> ClusterInfo:
    """A cluster with its members and aliases from a (live) cluster document; the title,
    company and source are the canonical member's (the first)."""
    canonical = doc["members"][0] if doc["members"] else {}
    return ClusterInfo(
        **{
            **vars(cluster_summary(doc)),
            "title": canonical.get("title"),
            "company": canonical.get("company"),
            "source": canonical.get("source"),
        },
        aliases=list(doc["aliases"]),
        members=[
            ClusterMember(
                id=m["id"],
                title=m["title"],
                company=m.get("company"),
                source=m.get("source"),
                posted_at=from_micros(m["posted_at"]),
            )
            for m in doc["members"]
        ],
    )


def alias_source(alias: str, cluster_id: str) -> Source:
    """An alias document: a merged cluster's id and the live cluster it now resolves to."""
    return {"kind": "alias", "alias": alias, "cluster_id": cluster_id}


def merge_entry(absorbed: str, posting_id: str) -> Source:
    """History entry kept on the survivor (what was folded in, by which posting, when)."""
    return {"absorbed": absorbed, "posting_id": posting_id, "at": to_micros(datetime.now(UTC))}


def feedback_source(feedback: Feedback) -> Source:
    """A feedback document; the pair is unordered, so its ids are stored sorted."""
    first, second = sorted(
        [(feedback.a_id, feedback.a_document), (feedback.b_id, feedback.b_document)],
        key=lambda side: side[0],
    )
    return {
        "kind": "feedback",
        "a_id": first[0],
        "b_id": second[0],
        "label": feedback.label,
        "at": to_micros(feedback.at),
        "a_document": first[1],
        "b_document": second[1],
    }


def feedback_from_source(source: Source) -> Feedback:
    return Feedback(
        a_id=source["a_id"],
        b_id=source["b_id"],
        label=source["label"],
        at=from_micros(source["at"]),
        a_document=source.get("a_document") or {},
        b_document=source.get("b_document") or {},
    )
