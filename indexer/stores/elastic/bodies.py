"""Request bodies of the search-engine store: index templates, mappings and queries.

Pure functions returning plain dicts, shared by the Elasticsearch and the OpenSearch client so
both engines receive byte-for-byte the same requests. Every body sticks to the API common to
Elasticsearch 8/9 and OpenSearch 2.x (the Elasticsearch 7.10 dialect): no `terms_set` with a
literal `minimum_should_match`, no runtime fields, no point-in-time.

Layout: two indices per store, each behind an alias (`{prefix}-postings`, `{prefix}-clusters`)
that points at a concrete index created from an index template (`…-000001`), so a later
re-index can swap the alias without touching the service.
- postings: one document per posting, `_id` derived from the posting id (idempotent
  re-posts). Indexed: band keys, block key, company key, source, cluster id, posted_at,
  the statistics fields and the decision's score; the sketch, shingle count, title,
  document and decision are stored in `_source` only.
- clusters: one document per live cluster (members, aliases and statistics, so that every
  cluster read is a real-time GET by id; its members' casefolded titles indexed for the
  listing's title filter), one per alias, plus the `meta` document (schema version and
  sketch parameters), the writers' `ticket` and `claim` documents (`indexer.stores.elastic.claims`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from indexer.store import ClusterFilter

MAX_ID_BYTES = 512  # Elasticsearch and OpenSearch refuse longer `_id`s
MAX_SCORED_KEYS = 512  # one bool clause per key; the default max_clause_count is 1,024
MAX_TERMS = 65_536  # index.max_terms_count: the longest `terms` list a query may carry
TEMPLATE_PRIORITY = 500  # above the built-in templates (100) whose patterns could overlap
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICRO = timedelta(microseconds=1)
_PREFIX = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,200}$")

_OFF = {"index": False, "doc_values": False}
_KEY = {"type": "keyword", "doc_values": False}  # filtered on, never sorted or aggregated
_STORED = {"type": "object", "enabled": False}  # kept verbatim in _source, not parsed


@dataclass(frozen=True)
class IndexNames:
    """Aliases, first concrete indices and template names of one store."""

    prefix: str

    @property
    def postings(self) -> str:
        return f"{self.prefix}-postings"

    @property
    def clusters(self) -> str:
        return f"{self.prefix}-clusters"

    def first_index(self, alias: str) -> str:
        """The concrete index created behind `alias` (later re-indexes take -000002...)."""
        return f"{alias}-000001"

    @property
    def pattern(self) -> str:
        """Every index, alias and template of this store (for tear-down in tests)."""
        return f"{self.prefix}-*"


def index_names(prefix: str) -> IndexNames:
    """Validate an index prefix (lowercase; engines refuse upper case and most symbols)."""
    if not _PREFIX.match(prefix):
        raise ValueError(
            f"index prefix {prefix!r} must be lowercase letters, digits, '-', '_' or '.', "
            "starting with a letter or digit"
        )
    return IndexNames(prefix)


def doc_id(key: str) -> str:
    """`_id` for a logical key: the key itself, or a SHA-256 digest when it is longer than
    the engines allow or starts with "~" (so a raw key can never equal a digest id)."""
    if key and not key.startswith("~") and len(key.encode("utf-8")) <= MAX_ID_BYTES:
        return key
    return "~sha256~" + hashlib.sha256(key.encode("utf-8")).hexdigest()


def feedback_id(a_id: str, b_id: str) -> str:
    """The document id of a pair's feedback label (`a_id`, `b_id` in sorted order)."""
    return state_id("feedback", f"{a_id}\n{b_id}")


def state_id(kind: str, key: str = "") -> str:
    """`_id` of a clusters-index document: kinds share the index, so the id is namespaced."""
    return doc_id(f"{kind}:{key}")


def _settings() -> dict[str, Any]:
    # auto_expand_replicas: no replica on a single node (green, not yellow), one replica as
    # soon as the cluster has a second node. One shard: a candidate query then touches one
    # Lucene index; millions of postings fit well within a shard.
    return {"number_of_shards": 1, "auto_expand_replicas": "0-1", "refresh_interval": "1s"}


def postings_mappings() -> dict[str, Any]:
    """Postings: dynamic mapping off (strict: an unmapped field is a bug, refused loudly).

    `posted_at` is a `long` of UTC epoch microseconds: `date` keeps milliseconds only, which
    breaks the inclusive microsecond window, and `date_nanos` cannot hold dates before 1970.
    """
    return {
        "dynamic": "strict",
        "_meta": {"schema": "jobdedup-postings", "stats_fields": ADDED_FIELDS},
        "properties": {
            "posting_id": {"type": "keyword"},  # doc values: iter_assignments sorts on it
            "posted_at": {"type": "long"},  # doc values: candidates sort on it
            # Keyword, not long: a candidate query is ~50 exact-term clauses, which the terms
            # dictionary answers faster than the points tree of a numeric field (1.14 against
            # 2.04 ms a query, measured on 300 real queries; README "Both speed goals met"). Values
            # stay JSON integers in _source and queries (the field coerces them); an index
            # made with `long` keeps it and is queried alike.
            "band_keys": {"type": "keyword", "doc_values": False},
            "block_key": _KEY,
            "company_key": _KEY,
            "source": _KEY,
            "cluster_id": _KEY,
            "content_hash": {"type": "keyword", **_OFF},
            "title": {"type": "keyword", **_OFF},
            "company": {"type": "keyword", **_OFF},
            "sketch": {"type": "binary"},  # base64 little-endian int64; never indexed
            "shingle_count": {"type": "integer", **_OFF},
            "document": _STORED,
            "decision": _STORED,
            **STATS_PROPERTIES,
            **REVIEW_PROPERTIES,
            **WRITER_PROPERTIES,
            **PARTITION_PROPERTIES,
        },
    }


PARTITION_PROPERTIES: dict[str, Any] = {
    # The month index a posting lives in (`indexer.stores.elastic.partitions`), absent in the
    # alias's write index: read from `_source` only, to address the posting's next write.
    "partition": {"type": "keyword", **_OFF},
    # What the posting's reading found (`StoredPosting.language`), read from `_source` only.
    "language": {"type": "keyword", **_OFF},
}
WRITER_PROPERTIES: dict[str, Any] = {
    # Who wrote a posting document and when (its writer's clock, epoch µs): the pipeline's
    # re-check searches the postings other instances wrote since its group started.
    "written_us": {"type": "long"},
    "written_by": _KEY,
}

ADDED_FIELDS = 2
"""Version of the fields added to the layout after its first indices, kept in
`_meta.stats_fields` of the postings mapping (named after version 1): 1 = the statistics
fields (`STATS_PROPERTIES`), 2 = also the decision's score on postings (`REVIEW_PROPERTIES`)
and the member titles on cluster documents (`TITLE_PROPERTIES`). Set on new indices, and on
older ones once `elastic_setup` has added and filled the fields."""
STATS_SINCE = 1  # the statistics aggregate only indices at this version or later
REVIEW_SINCE = 2  # the review queue and the title filter, likewise
STATS_PROPERTIES: dict[str, Any] = {
    # Aggregated on (doc values): `source` and `company_key` are indexed without them and
    # an existing field's doc values cannot be switched on, so the groups are copies.
    "canonical": {"type": "boolean"},  # the posting is its cluster's canonical (kept on merges)
    "duplicate_type": {"type": "keyword"},  # the stored decision's type
    "stats_source": {"type": "keyword"},
    "stats_company": {"type": "keyword"},
}
REVIEW_PROPERTIES: dict[str, Any] = {
    # The stored decision's `score` (its best candidate's; absent without one): the review
    # queue filters on a range of it and sorts on its doc values.
    "decision_score": {"type": "double"},
}
MAX_TITLE_TERM = 8_191
"""Casefolded titles longer than this (characters) are left out of `member_titles`: Lucene
refuses a term over 32,766 UTF-8 bytes, which would fail the cluster's write (the API takes
titles of at most 1,000 characters, so only postings written past it are affected)."""
TITLE_PROPERTIES: dict[str, Any] = {
    # Distinct casefolded member titles, matched by a `*needle*` wildcard (exact substring).
    "member_titles": {"type": "keyword", "doc_values": False, "ignore_above": MAX_TITLE_TERM},
}


CLAIM_PROPERTIES: dict[str, Any] = {
    # Writer tickets and document claims (`indexer.stores.elastic.claims`), read by id only.
    "started_us": {"type": "long", **_OFF},
    "state": {"type": "keyword", **_OFF},
    "claim": {"type": "keyword", **_OFF},
}


REGISTRY_PROPERTIES: dict[str, Any] = {
    # The registry of month indices (`indexer.stores.elastic.partitions`): month -> state.
    "partitions": _STORED,
}


def clusters_mappings() -> dict[str, Any]:
    """Clusters, aliases, analyst feedback, boilerplate unit statistics, meta, ticket and
    claim documents, told apart by `kind`."""
    return {
        "dynamic": "strict",
        "_meta": {"schema": "jobdedup-clusters"},
        "properties": {
            "kind": _KEY,
            "cluster_id": {"type": "keyword"},  # doc values: the listing sorts on it
            "live": {"type": "boolean"},
            "size": {"type": "integer"},
            "first_seen": {"type": "long"},
            "last_seen": {"type": "long"},
            "canonical_id": {"type": "keyword", **_OFF},
            "company_keys": _KEY,
            "sources": _KEY,
            "members": _STORED,
            "aliases": _STORED,
            "merges": _STORED,
            "alias": {"type": "keyword", **_OFF},
            "schema_version": {"type": "integer", **_OFF},
            "params": _STORED,
            "a_id": {"type": "keyword"},  # feedback: sorted on, with `at` and `b_id`
            "b_id": {"type": "keyword"},
            "label": {"type": "keyword", **_OFF},
            "at": {"type": "long"},
            "a_document": _STORED,
            "b_document": _STORED,
            "owner": {"type": "keyword", **_OFF},
            "expires_us": {"type": "long", **_OFF},
            "pending": _STORED,
            **CLAIM_PROPERTIES,
            "unit_key": {"type": "keyword", **_OFF},  # boilerplate statistics
            "witnesses": _STORED,
            **TITLE_PROPERTIES,
            **REGISTRY_PROPERTIES,
        },
    }


def recheck_query(
    band_keys: Sequence[int],
    block_key: str | None,
    since_us: int | None,
    until_us: int | None,
    exclude_id: str | None,
    limit: int,
    written_since_us: int,
    writer: str,
) -> dict[str, Any]:
    """`candidate_query` restricted to postings written at or after `written_since_us` by
    another writer than `writer`, answering ids and cluster ids only (the re-check). The
    range on `written_us` selects few documents, so the search is cheap."""
    body = candidate_query(
        band_keys, block_key, since_us, until_us, [] if exclude_id is None else [exclude_id], limit
    )
    query = body["query"]["bool"]
    query["filter"] = [
        *query.get("filter", []),
        {"range": {"written_us": {"gte": written_since_us}}},
    ]
    query["must_not"] = [*query.get("must_not", []), {"term": {"written_by": writer}}]
    return {**body, "_source": ["posting_id", "cluster_id"]}


def recent_writes_query(
    band_keys: Collection[int],
    block_keys: Collection[str],
    written_since_us: int,
    writer: str,
    size: int,
) -> dict[str, Any]:
    """Postings written at or after `written_since_us` by another writer than `writer` that
    share a band key or a block key with a group of postings, with what a candidate search
    matches on (the re-check, matched per posting in memory): one `terms` filter per field
    for the whole group instead of a search of 42 key clauses per posting."""
    should: list[dict[str, Any]] = [{"terms": {"band_keys": sorted(band_keys)}}]
    if block_keys:
        should.append({"terms": {"block_key": sorted(block_keys)}})
    return {
        "query": {
            "bool": {
                "filter": [
                    {"range": {"written_us": {"gte": written_since_us}}},
                    {"bool": {"should": should, "minimum_should_match": 1}},
                ],
                "must_not": [{"term": {"written_by": writer}}],
            }
        },
        "size": size,
        "track_total_hits": False,
        "_source": ["posting_id", "cluster_id", "band_keys", "block_key", "posted_at"],
    }


def index_template(
    pattern: str, mappings: dict[str, Any], alias: str | None = None
) -> dict[str, Any]:
    """A composable index template (`PUT _index_template/…`), same body on both engines.
    With `alias` (postings), every index it makes joins it: a month index the engine
    creates by itself (a write cycle's journal replayed after its month was dropped) stays
    searchable; the first index's own request makes it the alias's write index."""
    return {
        "index_patterns": [pattern],
        "priority": TEMPLATE_PRIORITY,
        "template": {
            "settings": _settings(),
            "mappings": mappings,
            **({"aliases": {alias: {}}} if alias else {}),
        },
        "_meta": {"managed_by": "jobdedup"},
    }


def create_index_body(alias: str, shards: int = 1) -> dict[str, Any]:
    """The first concrete index behind `alias`: mappings and settings come from the template,
    but for the number of primary shards (`JOBDEDUP_SEARCH_SHARDS`), fixed at creation."""
    return {
        "aliases": {alias: {"is_write_index": True}},
        "settings": {"number_of_shards": shards},
    }


def candidate_query(
    band_keys: Sequence[int],
    block_key: str | None,
    since_us: int | None,
    until_us: int | None,
    exclude_ids: Sequence[str],
    limit: int,
) -> dict[str, Any]:
    """Postings sharing a band key or the block key inside the window, best first.

    Everything runs in filter context: each band key is a `constant_score` filter worth 1, so
    the score is exactly the number of shared keys (the block-key filter is worth 0 and only
    makes a posting eligible). The window and the exclusions are plain filters. Ties go to the
    earlier posting, then the smaller id, as in the embedded index.
    """
    keys = sorted(set(band_keys))
    if len(keys) > MAX_SCORED_KEYS:
        raise ValueError(f"{len(keys)} band keys in one query; at most {MAX_SCORED_KEYS}")
    if len(exclude_ids) > MAX_TERMS:
        raise ValueError(f"{len(exclude_ids)} excluded ids in one query; at most {MAX_TERMS}")
    should: list[dict[str, Any]] = [
        {"constant_score": {"filter": {"term": {"band_keys": key}}, "boost": 1.0}} for key in keys
    ]
    if block_key:
        should.append(
            {"constant_score": {"filter": {"term": {"block_key": block_key}}, "boost": 0}}
        )
    window: dict[str, int] = {}
    if since_us is not None:
        window["gte"] = since_us
    if until_us is not None:
        window["lte"] = until_us
    query: dict[str, Any] = {"should": should, "minimum_should_match": 1}
    if window:
        query["filter"] = [{"range": {"posted_at": window}}]
    if exclude_ids:
        query["must_not"] = [{"terms": {"posting_id": list(exclude_ids)}}]
    return {
        "query": {"bool": query},
        "sort": [{"_score": "desc"}, {"posted_at": "asc"}, {"posting_id": "asc"}],
        "size": limit,
        "track_total_hits": False,
        "_source": {"excludes": ["band_keys", "document", "decision"]},
    }


def cluster_listing_query(filters: ClusterFilter, after: str | None, size: int) -> dict[str, Any]:
    """Live clusters matching the listing filters, ordered by id, keyset-paged after `after`.

    `since`/`until` keep clusters whose [first_seen, last_seen] span meets the window, the
    company and source filters keep clusters with at least one member having that value, and
    the title filter those with a member title containing it (both casefolded), exactly as
    the embedded index does.
    """
    clauses: list[dict[str, Any]] = [
        {"term": {"kind": "cluster"}},
        {"term": {"live": True}},
        {"range": {"size": {"gte": filters.min_size}}},
    ]
    if after is not None:
        clauses.append({"range": {"cluster_id": {"gt": after}}})
    if filters.since is not None:
        clauses.append({"range": {"last_seen": {"gte": to_micros(filters.since)}}})
    if filters.until is not None:
        clauses.append({"range": {"first_seen": {"lte": to_micros(filters.until)}}})
    if filters.company_key is not None:
        clauses.append({"term": {"company_keys": filters.company_key}})
    if filters.source is not None:
        clauses.append({"term": {"sources": filters.source}})
    if filters.title is not None:
        clauses.append({"wildcard": {"member_titles": {"value": contains_pattern(filters.title)}}})
    return {
        "query": {"bool": {"filter": clauses}},
        "sort": [{"cluster_id": "asc"}],
        "size": size,
        "track_total_hits": False,
        "_source": {"excludes": ["members", "aliases", "merges", "member_titles"]},
    }


def contains_pattern(needle: str) -> str:
    """A wildcard pattern matching the terms that contain `needle` casefolded (its `*`, `?`
    and backslashes escaped, so they match themselves). A leading wildcard visits every
    distinct term of the field; titles are short and repeat, so that is a few thousand terms
    per hundred thousand postings, in memory, where the previous way read every cluster's
    members."""
    escaped = re.sub(r"([\\*?])", r"\\\1", needle.casefold())
    return f"*{escaped}*"


def member_titles(members: Sequence[dict[str, Any]]) -> list[str]:
    """The `member_titles` of a cluster document: its members' distinct casefolded titles
    (Python's `str.casefold`, as the embedded index's title filter folds them)."""
    titles = {m["title"].casefold() for m in members if isinstance(m.get("title"), str)}
    return sorted(titles)


def assignments_page_query(after: str | None, size: int) -> dict[str, Any]:
    """One page of (posting id, cluster id) in posting-id order, continued with search_after
    (no scroll context and no point-in-time, so nothing is left open between pages)."""
    body: dict[str, Any] = {
        "query": {"match_all": {}},
        "sort": [{"posting_id": "asc"}],
        "size": size,
        "track_total_hits": False,
        "_source": {"includes": ["posting_id", "cluster_id"]},
    }
    if after is not None:
        body["search_after"] = [after]
    return body


def cluster_documents_page_query(after: str | None, size: int) -> dict[str, Any]:
    """One page of cluster documents (live or not) with their member titles, by cluster id,
    continued with search_after (the added fields' backfill)."""
    body: dict[str, Any] = {
        "query": {"bool": {"filter": [{"term": {"kind": "cluster"}}]}},
        "sort": [{"cluster_id": "asc"}],
        "size": size,
        "track_total_hits": False,
        "_source": {"includes": ["cluster_id", "members.title"]},
    }
    if after is not None:
        body["search_after"] = [after]
    return body


def feedback_page_query(after: list[Any] | None, size: int) -> dict[str, Any]:
    """One page of feedback documents, oldest first, continued with search_after."""
    body: dict[str, Any] = {
        "query": {"bool": {"filter": [{"term": {"kind": "feedback"}}]}},
        "sort": [{"at": "asc"}, {"a_id": "asc"}, {"b_id": "asc"}],
        "size": size,
        "track_total_hits": False,
    }
    if after is not None:
        body["search_after"] = after
    return body


def ids_before_query(before_us: int, size: int) -> dict[str, Any]:
    """Ids of postings posted strictly before `before_us` (retention), oldest first."""
    return {
        "query": {"bool": {"filter": [{"range": {"posted_at": {"lt": before_us}}}]}},
        "sort": [{"posted_at": "asc"}, {"posting_id": "asc"}],
        "size": size,
        "track_total_hits": False,
        "_source": {"includes": ["posting_id"]},
    }


def live_clusters_count() -> dict[str, Any]:
    """Body of `_count` over live clusters."""
    return {
        "query": {"bool": {"filter": [{"term": {"kind": "cluster"}}, {"term": {"live": True}}]}}
    }


def to_micros(moment: datetime) -> int:
    """UTC epoch microseconds of a datetime (naive = UTC): integers compare exactly."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - EPOCH) // MICRO


def from_micros(micros: int) -> datetime:
    """Inverse of `to_micros`: a tz-aware UTC datetime."""
    return EPOCH + timedelta(microseconds=micros)
