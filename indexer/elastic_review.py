"""The review queue's and the cluster search's reads on the search engine.

Request bodies are pure functions, as in `indexer.elastic_bodies`; the reads are functions
over an `EngineClient` that `ElasticStore` calls (kept apart so the adapter's module holds one
job). Nothing here writes, and nothing needs a mapping the indices do not already have:
- a stored decision is kept in `_source` only (`enabled: false`), so the postings nearest
  the threshold are found by a script sort that reads the score from `params._source`
  (available to sort scripts on OpenSearch 2.x and Elasticsearch 7.10+; one request, the
  engine reads every posting's source once, which is what the embedded index's json_extract
  scan does too);
- the merge history is kept on each surviving cluster's document (`merges`), found through
  the alias documents every merge writes (`kind: alias`, indexed `cluster_id`);
- titles are not indexed, so the listing's title filter reads the member titles of the
  cluster documents page by page (`members.title` by source filtering) and filters here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from indexer.elastic_bodies import IndexNames, cluster_listing_query, from_micros, state_id
from indexer.elastic_client import EngineClient
from indexer.elastic_docs import Source, cluster_summary
from indexer.review import best_candidate, pair_key
from indexer.store import ClusterFilter, ClusterSummary, ReviewPair, ReviewReason, ReviewSide

REVIEW_FIELDS = ("posting_id", "title", "company", "source", "cluster_id", "posted_at")
"""Posting document fields a review side shows."""
MAX_WINDOW = 10_000  # index.max_result_window: the most hits one search returns
IDS_PER_SEARCH = 1_000  # posting ids per terms lookup
NO_SCORE = 1.0e9  # sort value of a posting whose decision has no score (sorted last)
TITLE_PAGE = 2_000  # cluster documents read per request by the title filter
TITLE_SCAN = 50_000
"""Cluster documents the title filter reads for one listing page at most: past that the page
ends early (with fewer clusters, or none) and its cursor continues the scan, so one request
stays bounded on a large index."""

_DISTANCE_SCRIPT = """
def d = params['_source']['decision'];
if (!(d instanceof Map)) { return params.none; }
def s = d['score'];
if (!(s instanceof Number)) { return params.none; }
return Math.abs(((Number) s).doubleValue() - params.threshold);
"""


def near_threshold_query(threshold: float, size: int) -> dict[str, Any]:
    """Postings by the distance of their stored decision's score from `threshold`, nearest
    first, then by id (as the embedded index orders them). Only the sort values come back
    (distance, posting id): the hits' sources would be read for every hit, in or out of
    the margin, and the caller reads the few it keeps by id."""
    return {
        "query": {"match_all": {}},
        "sort": [
            {
                "_script": {
                    "type": "number",
                    "order": "asc",
                    "script": {
                        "lang": "painless",
                        "source": _DISTANCE_SCRIPT,
                        "params": {"threshold": threshold, "none": NO_SCORE},
                    },
                }
            },
            {"posting_id": "asc"},
        ],
        "size": min(size, MAX_WINDOW),
        "track_total_hits": False,
        "_source": False,
    }


def postings_by_id_query(ids: Sequence[str], decisions: bool) -> dict[str, Any]:
    """The review fields (and the decisions' candidates, if asked) of postings by id."""
    includes = [*REVIEW_FIELDS, "decision.candidates"] if decisions else list(REVIEW_FIELDS)
    return {
        "query": {"bool": {"filter": [{"terms": {"posting_id": list(ids)}}]}},
        "size": len(ids),
        "track_total_hits": False,
        "_source": {"includes": includes},
    }


def merged_targets_query() -> dict[str, Any]:
    """Alias documents (one per merged cluster id), for the clusters they resolve to."""
    return {
        "query": {"bool": {"filter": [{"term": {"kind": "alias"}}]}},
        "size": MAX_WINDOW,
        "track_total_hits": False,
        "_source": {"includes": ["cluster_id"]},
    }


def merge_histories_query(cluster_ids: Sequence[str]) -> dict[str, Any]:
    """The merge history of live clusters by id."""
    return {
        "query": {
            "bool": {
                "filter": [
                    {"term": {"kind": "cluster"}},
                    {"term": {"live": True}},
                    {"terms": {"cluster_id": list(cluster_ids)}},
                ]
            }
        },
        "size": len(cluster_ids),
        "track_total_hits": False,
        "_source": {"includes": ["cluster_id", "merges"]},
    }


def titled_listing_query(filters: ClusterFilter, after: str | None, size: int) -> dict[str, Any]:
    """`cluster_listing_query` with the member titles in the sources (the title filter)."""
    body = cluster_listing_query(filters, after, size)
    body["_source"] = {"excludes": ["aliases", "merges", "members.company*", "members.source"]}
    return body


def _side(source: Source) -> ReviewSide:
    return ReviewSide(
        id=source["posting_id"],
        title=source["title"],
        company=source.get("company"),
        source=source.get("source"),
        cluster_id=source["cluster_id"],
        posted_at=from_micros(source["posted_at"]),
    )


def postings_by_id(
    client: EngineClient, names: IndexNames, ids: Iterable[str], decisions: bool = False
) -> dict[str, Source]:
    """Posting sources (review fields) by id, one search per `IDS_PER_SEARCH` ids."""
    unique = list(dict.fromkeys(ids))
    found: dict[str, Source] = {}
    for start in range(0, len(unique), IDS_PER_SEARCH):
        body = postings_by_id_query(unique[start : start + IDS_PER_SEARCH], decisions)
        for hit in client.search(names.postings, body):
            found[hit["_source"]["posting_id"]] = hit["_source"]
    return found


def _merge_history(client: EngineClient, names: IndexNames, limit: int) -> list[Source]:
    """Merge entries (`absorbed`, `posting_id`, `at`) of live clusters, newest first, from
    the clusters the first `MAX_WINDOW` alias documents resolve to. A cluster later merged
    into another took its own history with it (the survivor keeps only its merges), unlike
    the embedded index's `merges` table, which keeps every merge."""
    aliases = client.search(names.clusters, merged_targets_query())
    targets = sorted({hit["_source"]["cluster_id"] for hit in aliases})
    entries: list[tuple[int, int, Source]] = []
    for start in range(0, len(targets), IDS_PER_SEARCH):
        body = merge_histories_query(targets[start : start + IDS_PER_SEARCH])
        for hit in client.search(names.clusters, body):
            history = hit["_source"].get("merges") or []
            entries += [(int(entry["at"]), n, entry) for n, entry in enumerate(history)]
    entries.sort(key=lambda item: (-item[0], -item[1]))
    return [entry for _, _, entry in entries[:limit]]


def review_pairs(
    client: EngineClient, names: IndexNames, threshold: float, margin: float, limit: int
) -> list[ReviewPair]:
    """`IndexStore.review_pairs` on the engine (the clusters index refreshed by the caller)."""
    if limit <= 0:
        return []
    nearest = [
        str(hit["sort"][1])
        for hit in client.search(names.postings, near_threshold_query(threshold, limit))
        if float(hit["sort"][0]) <= margin
    ]
    near = postings_by_id(client, names, nearest, decisions=True)
    found: list[tuple[Source, str | None, ReviewReason]] = [
        (near[pid], None, "near_threshold") for pid in nearest if pid in near
    ]
    merges = _merge_history(client, names, limit)
    bridges = postings_by_id(client, names, (m["posting_id"] for m in merges), decisions=True)
    found += [
        (bridges[m["posting_id"]], m["absorbed"], "single_link_merge")
        for m in merges
        if m["posting_id"] in bridges
    ]
    picked: list[tuple[ReviewSide, str, float, ReviewReason]] = []
    for source, absorbed, reason in found:
        best = best_candidate(source.get("decision") or {}, absorbed)
        if best is not None:
            picked.append((_side(source), best[0], best[1], reason))
    others = postings_by_id(client, names, (b_id for _, b_id, _, _ in picked))
    return [
        ReviewPair(a=a, b=_side(others[b_id]), score=score, reason=reason)
        for a, b_id, score, reason in picked
        if b_id in others
    ]


def feedback_labels(
    client: EngineClient, names: IndexNames, pairs: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    """`IndexStore.feedback_labels`: real-time multi-gets of the feedback documents."""
    keys = list(dict.fromkeys(pair_key(a, b) for a, b in pairs))
    labels: dict[tuple[str, str], str] = {}
    for start in range(0, len(keys), IDS_PER_SEARCH):
        refs = [
            (names.clusters, state_id("feedback", f"{a}\n{b}"))
            for a, b in keys[start : start + IDS_PER_SEARCH]
        ]
        for source in client.mget(refs):
            if source.get("kind") == "feedback":
                labels[(source["a_id"], source["b_id"])] = source["label"]
    return labels


def with_canonicals(
    client: EngineClient, names: IndexNames, page: list[ClusterSummary]
) -> list[ClusterSummary]:
    """Listing rows with their canonical posting's title, company and source (one search)."""
    canonicals = postings_by_id(client, names, (c.canonical_id for c in page))
    return [
        ClusterSummary(
            **{
                **vars(c),
                "title": (found := canonicals.get(c.canonical_id, {})).get("title"),
                "company": found.get("company"),
                "source": found.get("source"),
            }
        )
        for c in page
    ]


def titled_page(
    client: EngineClient, names: IndexNames, filters: ClusterFilter, after: str | None, want: int
) -> tuple[list[ClusterSummary], str | None, bool]:
    """Up to `want` clusters after `after` with a member title containing `filters.title`
    (casefolded), reading at most `TITLE_SCAN` cluster documents: (clusters, the id of the
    last cluster read, whether the listing was read to its end)."""
    needle = (filters.title or "").casefold()
    matched: list[ClusterSummary] = []
    last, read = after, 0
    while read < TITLE_SCAN:
        hits = client.search(names.clusters, titled_listing_query(filters, last, TITLE_PAGE))
        for hit in hits:
            doc = hit["_source"]
            read += 1
            last = doc["cluster_id"]
            titles = (m.get("title") or "" for m in doc.get("members") or [])
            if any(needle in title.casefold() for title in titles):
                matched.append(cluster_summary(doc))
                if len(matched) == want:
                    return matched, last, False
        if len(hits) < TITLE_PAGE:
            return matched, last, True
    return matched, last, False
