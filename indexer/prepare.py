"""From a posting's fields to everything the index compares: tokens, sketch, keys, content hash.

Pure and deterministic. The pipeline prepares a posting once, before taking the writer lock,
so the CPU-heavy part of a request (cleaning, shingling, sketching) runs outside it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from indexer.minhash import Sketch, SketchParams, band_keys, sketch_tokens
from indexer.store import StoredPosting
from indexer.text import block_key, normalise_company, normalise_title, tokenize

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class PreparedPosting:
    """A posting ready for candidate search and scoring (not yet assigned to a cluster)."""

    id: str
    posted_at: datetime
    title: str
    company: str | None
    source: str | None
    title_key: str
    company_key: str
    block_key: str
    sketch: Sketch
    shingle_count: int
    band_keys: list[int]
    content_hash: str
    document: dict[str, Any]


def posting_tokens(title: str, description: str) -> list[str]:
    """The tokens that get shingled: the description's, or the title's if it has none.

    The description is shingled alone: titles are compared through the block key (and later
    by the classifier), because re-posts retitle ("Data Engineer (H/F)").
    """
    return tokenize(description) or tokenize(title)


def content_hash(document: dict[str, Any]) -> str:
    """SHA-256 of the posting as the client sent it (canonical JSON, keys sorted).

    Used for idempotency: the same id with the same hash is `unchanged`. The document must be
    the received form, before defaults such as posted_at = receipt time are filled in, or every
    retry would look like an update.
    """
    canonical = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def prepare(
    *,
    posting_id: str,
    title: str,
    tokens: list[str],
    company: str | None,
    source: str | None,
    posted_at: datetime,
    document: dict[str, Any],
    received: dict[str, Any],
    params: SketchParams,
) -> PreparedPosting:
    """Shingle and sketch a posting's tokens (see `posting_tokens`) and compute its keys.

    `document` is what is stored and shown (defaults filled in); `received` is what the
    client sent, the basis of the content hash.
    """
    sketch, count = sketch_tokens(tokens, params)
    return PreparedPosting(
        id=posting_id,
        posted_at=posted_at,
        title=title,
        company=company,
        source=source,
        title_key=normalise_title(title),
        company_key=normalise_company(company),
        block_key=block_key(company, title),
        sketch=sketch,
        shingle_count=count,
        band_keys=band_keys(sketch, params),
        content_hash=content_hash(received),
        document=document,
    )


def prepare_document(
    document: dict[str, Any], params: SketchParams, default_time: datetime | None = None
) -> PreparedPosting:
    """Prepare a posting given as a plain dict in the API's posting schema (already valid).

    For offline work (evaluation, training) where postings are compared pairwise rather than
    through the index. `posted_at` may be an ISO date or datetime string; a missing one takes
    `default_time` (or the Unix epoch, so that results do not depend on the clock).
    """
    posted_at = _parse_time(document.get("posted_at")) or default_time or _EPOCH
    return prepare(
        posting_id=str(document["id"]),
        title=str(document.get("title", "")),
        tokens=posting_tokens(str(document.get("title", "")), str(document.get("description", ""))),
        company=document.get("company"),
        source=document.get("source"),
        posted_at=posted_at,
        document={**document, "posted_at": posted_at.isoformat()},
        received=document,
        params=params,
    )


def _parse_time(value: object) -> datetime | None:
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str) and value:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    else:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def to_stored(
    prepared: PreparedPosting, cluster_id: str, decision: dict[str, Any] | None = None
) -> StoredPosting:
    """The record to index for a prepared posting once its cluster is decided."""
    return StoredPosting(
        id=prepared.id,
        content_hash=prepared.content_hash,
        posted_at=prepared.posted_at,
        title=prepared.title,
        company=prepared.company,
        source=prepared.source,
        company_key=prepared.company_key,
        block_key=prepared.block_key,
        sketch=prepared.sketch,
        shingle_count=prepared.shingle_count,
        cluster_id=cluster_id,
        document=prepared.document,
        decision=decision or {},
    )
