"""Opening a search-engine index: templates, aliases, the meta check, the fields added to an
older index (`add_fields`), whether the engine accepts writes (readiness), and real-time reads
by id.

Kept apart from `stores.elastic.store` (the adapter's behaviour) so each module holds one job.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from indexer.minhash import SketchParams
from indexer.store import SCHEMA_VERSION, StoreUnavailable, check_compatible
from indexer.stores.elastic.bodies import (
    ADDED_FIELDS,
    CLAIM_PROPERTIES,
    PARTITION_PROPERTIES,
    REGISTRY_PROPERTIES,
    REVIEW_PROPERTIES,
    STATS_PROPERTIES,
    TITLE_PROPERTIES,
    WRITER_PROPERTIES,
    IndexNames,
    assignments_page_query,
    cluster_documents_page_query,
    clusters_mappings,
    create_index_body,
    doc_id,
    index_template,
    member_titles,
    postings_mappings,
    state_id,
)
from indexer.stores.elastic.client import EngineClient, Operation, part
from indexer.stores.elastic.docs import Source, decision_score, stats_values
from indexer.stores.elastic.partitions import (
    PARTITIONS_ID,
    Partitions,
    partition_from_index,
    partition_index,
    registered,
)
from indexer.stores.elastic.plan import Fetched

logger = logging.getLogger(__name__)

META_ID = state_id("meta")


def open_indices(
    client: EngineClient, names: IndexNames, params: SketchParams, create: bool, shards: int = 1
) -> None:
    """Create templates, indices and the meta document if absent (safe when several
    instances start at once), then check the stored schema version and parameters, and
    (writers only) add the fields an older index lacks (`add_fields`).
    Without `create`, a missing index is an error (readers such as `export`). `shards`:
    primary shards of indices created now (an existing index keeps its own)."""
    if not create and not client.exists(names.clusters):
        raise StoreUnavailable(f"no index {names.prefix} on {client.engine} (nothing ingested)")
    for alias, mappings in (
        (names.postings, postings_mappings()),
        (names.clusters, clusters_mappings()),
    ):
        if not client.exists(alias):  # the template matters only when an index is created
            client.put_template(alias, _template(names, alias, mappings))
            client.create_index(names.first_index(alias), create_index_body(alias, shards))
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
        add_claim_fields(client, names)
        add_fields(client, names)


def add_claim_fields(client: EngineClient, names: IndexNames) -> None:
    """The fields of claims and tickets (`CLAIM_PROPERTIES`), of who wrote a posting
    (`WRITER_PROPERTIES`) and of its month index and language (`PARTITION_PROPERTIES`),
    added to an index made before them (idempotent mapping updates,
    at every writer start). Postings written before have no writer: no re-check finds them,
    which is right, as they were written before any running decision searched."""
    for alias, properties, mappings in (
        (names.clusters, {**CLAIM_PROPERTIES, **REGISTRY_PROPERTIES}, clusters_mappings()),
        (names.postings, {**WRITER_PROPERTIES, **PARTITION_PROPERTIES}, postings_mappings()),
    ):
        path = f"/{part(alias)}/_mapping"
        client.call("PUT", path, body={"properties": properties}, what="add writer fields")
        client.put_template(alias, _template(names, alias, mappings))


def _template(names: IndexNames, alias: str, mappings: dict[str, Any]) -> dict[str, Any]:
    """The index template behind an alias: the postings' makes every index join the alias
    (month indices, `indexer.stores.elastic.partitions`)."""
    joined = alias if alias == names.postings else None
    return index_template(f"{alias}-*", mappings, joined)


FIELDS_PAGE = 1000  # documents per page of the added fields' backfill


def fields_version(client: EngineClient, names: IndexNames) -> int:
    """The added fields an index carries, filled (`ADDED_FIELDS`; 0 before any): the lowest
    `_meta.stats_fields` over the indices behind the postings alias."""
    found = client.call("GET", f"/{part(names.postings)}/_mapping", what="read mapping")
    versions = [
        index.get("mappings", {}).get("_meta", {}).get("stats_fields") for index in found.values()
    ]
    return min((v if isinstance(v, int) else 0 for v in versions), default=0)


def add_fields(client: EngineClient, names: IndexNames) -> None:
    """Give indices made before the added fields (`ADDED_FIELDS`) those fields, additively:
    the mappings and templates gain them, every cluster document gets its member titles and
    every posting its statistics values (canonical flag from its cluster document, type from
    its decision, group copies) and its decision's score by partial update, page by page in
    id order, and only then is `_meta.stats_fields` set, so an interrupted backfill is redone
    at the next open. Idempotent; the schema version is unchanged."""
    if fields_version(client, names) >= ADDED_FIELDS:
        return
    mappings = postings_mappings()
    path = f"/{part(names.postings)}/_mapping"
    properties = {**STATS_PROPERTIES, **REVIEW_PROPERTIES}
    client.call("PUT", path, body={"properties": properties}, what="add posting fields")
    client.put_template(names.postings, _template(names, names.postings, mappings))
    clusters_path = f"/{part(names.clusters)}/_mapping"
    client.call(
        "PUT", clusters_path, body={"properties": TITLE_PROPERTIES}, what="add cluster fields"
    )
    client.put_template(names.clusters, _template(names, names.clusters, clusters_mappings()))
    titled = _fill_member_titles(client, names)
    filled = _fill_posting_fields(client, names)
    client.refresh(names.postings, names.clusters)
    client.call("PUT", path, body={"_meta": mappings["_meta"]}, what="mark added fields")
    logger.info(
        "added fields filled in %d postings and %d clusters of %s", filled, titled, names.prefix
    )


def _pages(
    client: EngineClient, index: str, query: Callable[[str | None], dict[str, Any]], key: str
) -> Iterator[list[Source]]:
    """Every document of a keyset-paged query, `FIELDS_PAGE` at a time (`key` orders it)."""
    after: str | None = None
    while True:
        sources = [hit["_source"] for hit in client.search(index, query(after))]
        if sources:
            yield sources
        if len(sources) < FIELDS_PAGE:
            return
        after = sources[-1][key]


def _fill_member_titles(client: EngineClient, names: IndexNames) -> int:
    filled = 0
    pages = _pages(
        client,
        names.clusters,
        lambda after: cluster_documents_page_query(after, FIELDS_PAGE),
        "cluster_id",
    )
    for sources in pages:
        operations: list[Operation] = [
            (
                {"update": {"_index": names.clusters, "_id": state_id("cluster", s["cluster_id"])}},
                {"doc": {"member_titles": member_titles(s.get("members") or [])}},
            )
            for s in sources
        ]
        client.bulk(operations, "false")
        filled += len(sources)
    return filled


_POSTING_FIELDS_SOURCE = [
    "posting_id",
    "partition",
    "cluster_id",
    "source",
    "company_key",
    "decision.duplicate_type",
    "decision.score",
]


def _fill_posting_fields(client: EngineClient, names: IndexNames) -> int:
    fetcher = EngineFetcher(client, names, write_index(client, names), Partitions("none"))
    filled = 0

    def query(after: str | None) -> dict[str, Any]:
        body = assignments_page_query(after, FIELDS_PAGE)
        body["_source"] = {"includes": _POSTING_FIELDS_SOURCE}
        return body

    for sources in _pages(client, names.postings, query, "posting_id"):
        clusters = fetcher.fetch([], sorted({s["cluster_id"] for s in sources}), []).clusters
        canonicals = {cid: doc["canonical_id"] for cid, doc in clusters.items() if doc["live"]}
        operations: list[Operation] = [
            (
                {
                    "update": {
                        "_index": partition_index(names, s.get("partition")),
                        "_id": doc_id(s["posting_id"]),
                    }
                },
                {
                    "doc": {
                        **stats_values(s, canonicals.get(s["cluster_id"]) == s["posting_id"]),
                        "decision_score": decision_score(s.get("decision")),
                    }
                },
            )
            for s in sources
        ]
        client.bulk(operations, "false")
        filled += len(sources)
    return filled


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


def write_index(client: EngineClient, names: IndexNames) -> str:
    """The concrete index behind the postings alias that holds the postings without a month
    (the alias's write index, or its only index): reads by id name it, as a multi-get cannot
    go through an alias that also covers month indices."""
    found = client.call("GET", f"/_alias/{part(names.postings)}", what="resolve postings alias")
    indices = sorted(found) if isinstance(found, dict) else []
    writers = [
        name
        for name in indices
        if found[name].get("aliases", {}).get(names.postings, {}).get("is_write_index")
    ]
    plain = [name for name in indices if partition_from_index(names, name) is None]
    if writers or plain:
        return str((writers or plain)[0])
    raise StoreUnavailable(f"{client.engine}: no index behind alias {names.postings}")


class EngineFetcher:
    """Real-time reads by logical id: postings, clusters, aliases and boilerplate statistics
    in one multi-get. A posting is asked of the write index and of every month index this
    process knows, and the month registry comes in the same multi-get: a month new to this
    process is asked in a second one (`stores.elastic.partitions` says why that suffices)."""

    def __init__(
        self, client: EngineClient, names: IndexNames, base: str, partitions: Partitions
    ) -> None:
        self._client, self._names, self.base = client, names, base
        self._partitions = partitions

    def fetch(
        self,
        postings: Sequence[str],
        clusters: Sequence[str],
        aliases: Sequence[str],
        units: Sequence[str] = (),
    ) -> Fetched:
        clusters_index = self._names.clusters
        months = self._partitions.known() if postings else []
        refs = self._posting_refs(postings, [None, *months])
        refs += [(clusters_index, state_id("cluster", i)) for i in clusters]
        refs += [(clusters_index, state_id("alias", i)) for i in aliases]
        refs += [(clusters_index, state_id("unit", key)) for key in units]
        if postings:
            refs.append((clusters_index, PARTITIONS_ID))
        found = Fetched({}, {}, {}, {})
        registry: Source | None = None
        sources = self._client.mget(refs, self._is_month)
        for source in sources:
            kind = source.get("kind")
            if kind == "cluster":
                found.clusters[source["cluster_id"]] = source
            elif kind == "alias":
                found.aliases[source["alias"]] = source["cluster_id"]
            elif kind == "unit":
                found.units[source["unit_key"]] = frozenset(int(w) for w in source["witnesses"])
            elif kind == "partitions":
                registry = source
            elif kind is None and "posting_id" in source:
                _keep_newest(found.postings, source)
        if postings:
            self._partitions.learn(registry)
            # Months this request did not ask (another thread's learning does not count).
            new = [p for p in registered(registry) if p not in months]
            for source in self._client.mget(self._posting_refs(postings, new), self._is_month):
                _keep_newest(found.postings, source)
        return found

    def fetch_at(self, refs: Sequence[tuple[str, str]]) -> dict[str, Source]:
        """Postings by (concrete index, posting id), as search hits name them: one ref each
        instead of one per month. A posting moved to another month since the search is not
        found (for a write, its claim reads it again with `fetch`)."""
        wanted = [(index, doc_id(pid)) for index, pid in dict.fromkeys(refs)]
        found: dict[str, Source] = {}
        for source in self._client.mget(wanted, self._is_month):
            _keep_newest(found, source)
        return found

    def _posting_refs(
        self, postings: Sequence[str], months: Sequence[str | None]
    ) -> list[tuple[str, str]]:
        indices = [self.base if m is None else partition_index(self._names, m) for m in months]
        return [(index, doc_id(i)) for i in postings for index in indices]

    def _is_month(self, index: str) -> bool:
        """A month index may be gone (dropped since this process read the registry)."""
        return partition_from_index(self._names, index) is not None


def _keep_newest(postings: dict[str, Source], source: Source) -> None:
    """One copy per posting; should a move between indices have left two (a bulk that
    failed half way, until its journal is replayed), the later write wins."""
    pid = source["posting_id"]
    held = postings.get(pid)
    if held is None or source.get("written_us", 0) >= held.get("written_us", 0):
        postings[pid] = source
