"""Duplicate statistics on the search engine: aggregation bodies and the requests that run them.

The bodies are pure functions; `duplicate_stats` sends them. Nothing here reads documents one
by one: postings are counted by a `composite` aggregation over (group, canonical, duplicate
type), each composite bucket split by a `range` aggregation on posted_at whose ranges are the
query's buckets (computed by `indexer.stats`, so alignment is exactly the embedded index's;
`posted_at` is a long of microseconds, which `date_histogram` cannot bucket). The board
overlap is an `adjacency_matrix` over live cluster documents, one filter per source.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from indexer.stats import CountedRow, assemble, bucket_edges, overlaps_from_pairs
from indexer.store import DuplicateStats, StatsQuery
from indexer.stores.elastic.bodies import IndexNames, to_micros
from indexer.stores.elastic.client import EngineClient, part

MAX_SOURCES = 10_000  # distinct sources read for the overlap table
MATRIX_FILTERS = 100  # index.max_adjacency_matrix_filters: the engines' default ceiling
RANGE_BUCKETS_PER_PAGE = 20_000
"""Composite buckets times ranges per response, well under search.max_buckets (65,535 on
OpenSearch 2.x) so that a long day-by-day window pages instead of failing."""
GROUP_FIELDS = {"source": "stats_source", "company": "stats_company"}


def _window(since_us: int | None, until_us: int | None) -> dict[str, Any]:
    bounds: dict[str, int] = {}
    if since_us is not None:
        bounds["gte"] = since_us
    if until_us is not None:
        bounds["lt"] = until_us
    return {"range": {"posted_at": bounds}} if bounds else {"match_all": {}}


def prelude_body(since_us: int | None, until_us: int | None) -> dict[str, Any]:
    """The first and last posted_at in the window (to lay out buckets when a side is open)
    and every source in the index (the overlap table's filters)."""
    return {
        "size": 0,
        "track_total_hits": False,
        "query": _window(since_us, until_us),
        "aggs": {
            "first": {"min": {"field": "posted_at"}},
            "last": {"max": {"field": "posted_at"}},
            "all": {
                "global": {},
                "aggs": {"sources": {"terms": {"field": "stats_source", "size": MAX_SOURCES}}},
            },
        },
    }


def counts_body(
    since_us: int | None,
    until_us: int | None,
    group_field: str | None,
    edges: Sequence[int],
    after: dict[str, Any] | None,
    size: int,
) -> dict[str, Any]:
    """One page of postings counted per (group, canonical, type) and bucket."""
    sources: list[dict[str, Any]] = []
    if group_field is not None:
        sources.append({"g": {"terms": {"field": group_field, "missing_bucket": True}}})
    sources.append({"c": {"terms": {"field": "canonical", "missing_bucket": True}}})
    sources.append({"t": {"terms": {"field": "duplicate_type", "missing_bucket": True}}})
    composite: dict[str, Any] = {"size": size, "sources": sources}
    if after is not None:
        composite["after"] = after
    ranges = [{"from": lo, "to": hi} for lo, hi in pairwise(edges)]
    return {
        "size": 0,
        "track_total_hits": False,
        "query": _window(since_us, until_us),
        "aggs": {
            "counts": {
                "composite": composite,
                "aggs": {"b": {"range": {"field": "posted_at", "ranges": ranges}}},
            }
        },
    }


def counted_rows(aggregation: dict[str, Any]) -> list[CountedRow]:
    """Rows for `indexer.stats.fold` from a page of `counts_body`."""
    rows: list[CountedRow] = []
    for bucket in aggregation["buckets"]:
        key = bucket["key"]
        for part_ in bucket["b"]["buckets"]:
            if part_["doc_count"]:
                canonical = key["c"] in (True, 1, "true")
                start = round(part_["from"])
                rows.append((start, key.get("g"), canonical, key["t"], part_["doc_count"]))
    return rows


def overlap_body(
    since_us: int | None, until_us: int | None, sources: Sequence[str]
) -> dict[str, Any]:
    """Live clusters whose [first_seen, last_seen] meets the window, counted per source
    (filter `s<i>`) and per pair of sources (`s<i>&s<j>`)."""
    clauses: list[dict[str, Any]] = [{"term": {"kind": "cluster"}}, {"term": {"live": True}}]
    if since_us is not None:
        clauses.append({"range": {"last_seen": {"gte": since_us}}})
    if until_us is not None:
        clauses.append({"range": {"first_seen": {"lt": until_us}}})
    filters = {f"s{i}": {"term": {"sources": name}} for i, name in enumerate(sources)}
    return {
        "size": 0,
        "track_total_hits": False,
        "query": {"bool": {"filter": clauses}},
        "aggs": {"pairs": {"adjacency_matrix": {"filters": filters}}},
    }


def _aggregate(client: EngineClient, index: str, body: dict[str, Any]) -> dict[str, Any]:
    params = {"allow_partial_search_results": "false"}
    result = client.call("POST", f"/{part(index)}/_search", params, body, what="statistics")
    aggregations: dict[str, Any] = result["aggregations"]
    return aggregations


def duplicate_stats(client: EngineClient, names: IndexNames, query: StatsQuery) -> DuplicateStats:
    """The port's statistics in 3+ searches: a prelude, the counts (one page for a few
    groups), and one adjacency matrix per block of sources. The caller refreshes first and
    has checked that the index carries the statistics fields."""
    since = None if query.since is None else to_micros(query.since)
    until = None if query.until is None else to_micros(query.until)
    prelude = _aggregate(client, names.postings, prelude_body(since, until))
    sources = sorted(b["key"] for b in prelude["all"]["sources"]["buckets"])
    rows: list[CountedRow] = []
    if prelude["first"]["value"] is not None:
        # The postings' own span: a window reaching far beyond it needs no empty ranges.
        first, last = round(prelude["first"]["value"]), round(prelude["last"]["value"])
        edges = bucket_edges(first, last, query.interval)
        size = max(1, min(1000, RANGE_BUCKETS_PER_PAGE // (len(edges) - 1)))
        group = GROUP_FIELDS.get(query.by or "")
        after: dict[str, Any] | None = None
        while True:
            body = counts_body(since, until, group, edges, after, size)
            page = _aggregate(client, names.postings, body)["counts"]
            rows += counted_rows(page)
            after = page.get("after_key")
            if after is None or len(page["buckets"]) < size:
                break
    per_source, pairs = _overlap(client, names, since, until, sources)
    return assemble(rows, query.interval, per_source, overlaps_from_pairs(pairs))


def _overlap(
    client: EngineClient,
    names: IndexNames,
    since: int | None,
    until: int | None,
    sources: list[str],
) -> tuple[dict[str, int], dict[tuple[str, str], int]]:
    """Per-source and per-pair cluster counts. More sources than one matrix may filter on
    are split in blocks of half that size, every pair of blocks asked together."""
    groups = [sources]
    if len(sources) > MATRIX_FILTERS:
        half = MATRIX_FILTERS // 2
        blocks = [sources[i : i + half] for i in range(0, len(sources), half)]
        groups = [
            blocks[i] + (blocks[j] if j != i else [])
            for i in range(len(blocks))
            for j in range(i, len(blocks))
        ]
    per_source: dict[str, int] = {}
    pairs: dict[tuple[str, str], int] = {}
    for group in groups:
        if not group:
            continue
        body = overlap_body(since, until, group)
        for bucket in _aggregate(client, names.clusters, body)["pairs"]["buckets"]:
            picked = [group[int(key[1:])] for key in bucket["key"].split("&")]
            if len(picked) == 1:
                per_source[picked[0]] = bucket["doc_count"]
            else:
                first, second = sorted(picked)
                pairs[(first, second)] = bucket["doc_count"]
    return dict(sorted(per_source.items())), pairs
