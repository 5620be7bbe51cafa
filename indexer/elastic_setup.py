"""Opening a search-engine index: templates, aliases, the meta check, whether the engine accepts
writes (readiness), and real-time reads by id.

Kept apart from `indexer.elastic` (the adapter's behaviour) so each module holds one job.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from indexer.elastic_bodies import (
    STATS_PROPERTIES,
    IndexNames,
    assignments_page_query,
    clusters_mappings,
    create_index_body,
    doc_id,
    index_template,
    postings_mappings,
    state_id,
)
from indexer.elastic_client import EngineClient, Operation, part
from indexer.elastic_docs import Source, stats_values
from indexer.elastic_stats import has_stats_fields
from indexer.minhash import SketchParams
from indexer.store import SCHEMA_VERSION, StoreUnavailable, check_compatible

logger = logging.getLogger(__name__)

META_ID = state_id("meta")


def open_indices(
    client: EngineClient, names: IndexNames, params: SketchParams, create: bool
) -> None:
    """Create templates, indices and the meta document if absent (safe when several
    instances start at once), then check the stored schema version and parameters.
    Without `create`, a missing index is an error (readers such as `export`)."""
    if not create and not client.exists(names.clusters):
        raise StoreUnavailable(f"no index {names.prefix} on {client.engine} (nothing ingested)")
    for alias, mappings in (
        (names.postings, postings_mappings()),
        (names.clusters, clusters_mappings()),
    ):
        if not client.exists(alias):  # the template matters only when an index is created
            client.put_template(alias, index_template(f"{alias}-*", mappings))
            client.create_index(names.first_index(alias), create_index_body(alias))
    meta = {"kind": "meta", "schema_version": SCHEMA_VERSION, "params": params.to_dict()}
    hit = client.get(names.clusters, META_ID)
    if hit is None and client.create(names.clusters, META_ID, meta) is not None:
        logger.info("created index %s on %s", names.prefix, client.engine)
        return
    hit = hit or client.get(names.clusters, META_ID)
    stored: dict[str, Any] = hit["_source"] if hit else {}
    where = f"{client.engine} index {names.prefix}"
    check_compatible(where, stored.get("schema_version"), stored.get("params", {}), params)
    if create:
        add_stats_fields(client, names)


STATS_PAGE = 1000  # postings per page of the statistics backfill


def add_stats_fields(client: EngineClient, names: IndexNames) -> None:
    """Give a postings index made before duplicate statistics their fields, additively: the
    mapping and the template gain them, every posting gets its values (canonical flag from
    its cluster document, type from its decision, group copies) by partial update, page by
    page in posting-id order, and only then is `_meta.stats_fields` set, so an interrupted
    backfill is redone at the next open. Idempotent; the schema version is unchanged."""
    if has_stats_fields(client, names):
        return
    mappings = postings_mappings()
    path = f"/{part(names.postings)}/_mapping"
    client.call("PUT", path, body={"properties": STATS_PROPERTIES}, what="add statistics fields")
    client.put_template(names.postings, index_template(f"{names.postings}-*", mappings))
    fetcher = EngineFetcher(client, names.postings, names.clusters)
    after: str | None = None
    filled = 0
    while True:
        body = assignments_page_query(after, STATS_PAGE)
        body["_source"] = {
            "includes": [
                "posting_id",
                "cluster_id",
                "source",
                "company_key",
                "decision.duplicate_type",
            ]
        }
        sources = [hit["_source"] for hit in client.search(names.postings, body)]
        clusters = fetcher.fetch([], sorted({s["cluster_id"] for s in sources}), [])[1]
        canonicals = {cid: doc["canonical_id"] for cid, doc in clusters.items() if doc["live"]}
        operations: list[Operation] = [
            (
                {"update": {"_index": names.postings, "_id": doc_id(s["posting_id"])}},
                {"doc": stats_values(s, canonicals.get(s["cluster_id"]) == s["posting_id"])},
            )
            for s in sources
        ]
        client.bulk(operations, "false")
        filled += len(sources)
        if len(sources) < STATS_PAGE:
            break
        after = sources[-1]["posting_id"]
    client.refresh(names.postings)
    client.call("PUT", path, body={"_meta": mappings["_meta"]}, what="mark statistics fields")
    logger.info("statistics fields added to %d postings of %s", filled, names.prefix)


def check_writable(client: EngineClient, names: IndexNames) -> None:
    """Raise `StoreUnavailable` naming the reason unless the engine would accept writes to
    this store: no write block on the cluster or on the indices behind our aliases (the
    read-only block the disk flood-stage watermark sets, a block an operator set), and no
    primary shard of them unassigned (health red; also a master must answer at all)."""
    indices = f"{part(names.postings)},{part(names.clusters)}"
    state = client.call(
        "GET", f"/_cluster/state/blocks/{indices}", {"filter_path": "blocks"}, what="blocks"
    )
    blocks = state.get("blocks", {}) if isinstance(state, dict) else {}
    scopes = [("cluster", blocks.get("global") or {})]
    scopes += sorted(
        (f"index {name}", found) for name, found in (blocks.get("indices") or {}).items()
    )
    reasons = [
        f"{scope}: {block.get('description', block_id)}"
        for scope, found in scopes
        for block_id, block in sorted(found.items())
        if "write" in block.get("levels", ())
    ]
    if reasons:
        raise StoreUnavailable(f"{client.engine} rejects writes ({'; '.join(reasons)})")
    health = client.call("GET", f"/_cluster/health/{indices}", what="cluster health")
    if health.get("status") == "red":
        raise StoreUnavailable(
            f"{client.engine}: indices of {names.prefix} are red "
            f"({health.get('unassigned_shards')} shards unassigned, "
            f"{health.get('initializing_shards')} initializing)"
        )


class EngineFetcher:
    """Real-time reads by logical id: postings, clusters and aliases in one multi-get."""

    def __init__(self, client: EngineClient, postings: str, clusters: str) -> None:
        self._client, self._postings, self._clusters = client, postings, clusters

    def fetch(
        self, postings: Sequence[str], clusters: Sequence[str], aliases: Sequence[str]
    ) -> tuple[dict[str, Source], dict[str, Source], dict[str, str]]:
        refs = [(self._postings, doc_id(i)) for i in postings]
        refs += [(self._clusters, state_id("cluster", i)) for i in clusters]
        refs += [(self._clusters, state_id("alias", i)) for i in aliases]
        found_postings: dict[str, Source] = {}
        found_clusters: dict[str, Source] = {}
        found_aliases: dict[str, str] = {}
        for source in self._client.mget(refs):
            kind = source.get("kind")
            if kind == "cluster":
                found_clusters[source["cluster_id"]] = source
            elif kind == "alias":
                found_aliases[source["alias"]] = source["cluster_id"]
            elif kind is None and "posting_id" in source:
                found_postings[source["posting_id"]] = source
        return found_postings, found_clusters, found_aliases

    def fetch_units(self, keys: Sequence[str]) -> dict[str, frozenset[int]]:
        """Boilerplate statistics documents by unit key, in one multi-get."""
        refs = [(self._clusters, state_id("unit", key)) for key in keys]
        return {
            source["unit_key"]: frozenset(int(w) for w in source["witnesses"])
            for source in self._client.mget(refs)
            if source.get("kind") == "unit"
        }
