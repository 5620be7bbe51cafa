"""The review queue's and the cluster search's reads on the search engine.

Request bodies are pure functions, as in `indexer.stores.elastic.bodies`; the reads are functions
over an `EngineClient` that `ElasticStore` calls (kept apart so the adapter's module holds one
job). Nothing here writes:
- the postings nearest the threshold are found by a range filter on `decision_score` (the
  stored decision's score, indexed with doc values since `ADDED_FIELDS` 2) and a sort script
  on its doc values, so only postings within the margin are visited and `_source` is read
  only for the postings kept (it was a script sort reading every posting's whole source:
  1.1-1.8 s on 14,842 postings);
- the merge history is kept on each surviving cluster's document (`merges`), found through
  the alias documents every merge writes (`kind: alias`, indexed `cluster_id`);
- the listing's title filter is a wildcard query on the cluster documents' `member_titles`
  (`elastic_bodies.cluster_listing_query`), so it needs nothing here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from indexer.review import best_candidate, pair_key
from indexer.store import ClusterSummary, ReviewPair, ReviewReason, ReviewSide
from indexer.stores.elastic.bodies import IndexNames, feedback_id, from_micros
from indexer.stores.elastic.client import EngineClient
from indexer.stores.elastic.docs import Source

REVIEW_FIELDS = ("posting_id", "title", "company", "source", "cluster_id", "posted_at")
"""Posting document fields a review side shows."""
MAX_WINDOW = 10_000  # index.max_result_window: the most hits one search returns
IDS_PER_SEARCH = 1_000  # posting ids per terms lookup
SLACK = 1e-9
"""Widening of the range filter: `threshold ± margin` rounds differently from the distance
`|score - threshold|` that decides (computed by the sort script in doubles, as SQLite does),
so the range lets a hair more through and the distance is compared with the margin here."""

_DISTANCE_SCRIPT = "Math.abs(doc['decision_score'].value - params.threshold)"


def near_threshold_query(
    threshold: float, margin: float, size: int, after: list[Any] | None = None
) -> dict[str, Any]:
    """Postings whose decision's score lies within `margin` of `threshold` (a range filter on
    `decision_score`, which postings without a score lack), nearest first, then by id (as the
    embedded index orders them), continued with search_after. Only the sort values come back
    (distance, posting id); the caller reads the sources of those it keeps by id."""
    body: dict[str, Any] = {
        "query": {
            "bool": {
                "filter": [
                    {
                        "range": {
                            "decision_score": {
                                "gte": threshold - margin - SLACK,
                                "lte": threshold + margin + SLACK,
                            }
                        }
                    }
                ]
            }
        },
        "sort": [
            {
                "_script": {
                    "type": "number",
                    "order": "asc",
                    "script": {
                        "lang": "painless",
                        "source": _DISTANCE_SCRIPT,
                        "params": {"threshold": threshold},
                    },
                }
            },
            {"posting_id": "asc"},
        ],
        "size": min(size, MAX_WINDOW),
        "track_total_hits": False,
        "_source": False,
    }
    if after is not None:
        body["search_after"] = after
    return body


def nearest_ids(
    client: EngineClient, names: IndexNames, threshold: float, margin: float, limit: int
) -> list[str]:
    """Ids of the (at most `limit`) postings nearest the threshold within the margin."""
    found: list[str] = []
    after: list[Any] | None = None
    while len(found) < limit:
        body = near_threshold_query(threshold, margin, limit - len(found), after)
        hits = client.search(names.postings, body)
        within = [hit for hit in hits if float(hit["sort"][0]) <= margin]
        found += [str(hit["sort"][1]) for hit in within]
        if len(within) < len(hits) or len(hits) < body["size"]:
            break
        after = hits[-1]["sort"]
    return found[:limit]


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
    nearest = nearest_ids(client, names, threshold, margin, limit)
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
            (names.clusters, feedback_id(a, b)) for a, b in keys[start : start + IDS_PER_SEARCH]
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
