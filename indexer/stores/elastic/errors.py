"""Which engine answers mean "try again later" (503) and which mean a bug (500).

An engine answers a state it will leave on its own (a shard recovering after a restart, no
master elected yet, a node shedding load, an index made read-only by the disk watermark)
with a status that is not always 503: a recovering shard is a 500
`illegal_index_shard_state_exception`, a real-time multi-get answers 200 with a
`no_shard_available_action_exception` per document, a bulk answers 200 with per-item
failures, a write block is a 403 or 429 `cluster_block_exception`. So the error *types* are
read as well as the status, anywhere in the error (its root causes, causes and per-shard
failures). Everything else (a malformed query, a mapping conflict, a missing index) stays a
`StoreError`: a bug or a misconfiguration that retrying will not fix.
"""

from __future__ import annotations

from typing import Any

TRANSIENT_STATUSES = frozenset({429, 502, 503, 504})

SHARD_UNAVAILABLE = frozenset(
    {
        # A shard not (yet) usable: recovering, relocating, closing, not allocated.
        "no_shard_available_action_exception",
        "illegal_index_shard_state_exception",
        "index_shard_not_started_exception",
        "index_shard_not_recovering_exception",
        "index_shard_recovering_exception",
        "index_shard_relocated_exception",
        "index_shard_closed_exception",
        "shard_not_found_exception",
        "unavailable_shards_exception",
        "primary_missing_action_exception",
        "already_closed_exception",
        "index_closed_exception",  # an operator closed the index (maintenance)
    }
)
CLUSTER_UNAVAILABLE = frozenset(
    {
        # Blocks: read-only after the disk flood-stage watermark, a write block set by an
        # operator, "no master" and "state not recovered" after a restart.
        "cluster_block_exception",
        "master_not_discovered_exception",
        "cluster_manager_not_discovered_exception",  # OpenSearch 2.x name
        "not_master_exception",
        "not_cluster_manager_exception",
        "process_cluster_event_timeout_exception",
        "node_not_connected_exception",
        "node_disconnected_exception",
        "node_closed_exception",
        "connect_transport_exception",
        "receive_timeout_transport_exception",
        "send_request_transport_exception",
        "transport_serialization_exception",
        "timeout_exception",  # Elasticsearch/OpenSearchTimeoutException, prefix dropped
    }
)
OVERLOADED = frozenset(
    {
        "es_rejected_execution_exception",  # Elasticsearch
        "rejected_execution_exception",  # OpenSearch (OpenSearchRejectedExecutionException)
        "circuit_breaking_exception",
    }
)
TRANSIENT_TYPES = SHARD_UNAVAILABLE | CLUSTER_UNAVAILABLE | OVERLOADED

_MAX_DEPTH = 8  # error bodies nest causes a few levels deep; never walk further


def error_types(error: Any) -> set[str]:
    """Every `type` named in an engine error object: the error itself, its `root_cause`
    list, its `caused_by` chain and its per-shard `failed_shards[].reason`."""
    found: set[str] = set()
    pending: list[tuple[Any, int]] = [(error, 0)]
    while pending:
        node, depth = pending.pop()
        if depth > _MAX_DEPTH or not isinstance(node, dict):
            continue
        if isinstance(node.get("type"), str):
            found.add(node["type"])
        for key in ("caused_by", "reason"):
            pending.append((node.get(key), depth + 1))
        for key in ("root_cause", "failed_shards"):
            items = node.get(key)
            if isinstance(items, list):
                pending.extend((item, depth + 1) for item in items[:50])
    return found


def is_transient(status: int, error: Any) -> bool:
    """True if an engine error (HTTP status and the `error` object of the answer, or of one
    bulk item or multi-get document) is a state the engine leaves on its own."""
    return status in TRANSIENT_STATUSES or bool(error_types(error) & TRANSIENT_TYPES)


def is_blocked(error: Any) -> bool:
    """True for an index or cluster block: retrying at once cannot help (unlike a 429 from
    a full queue), so the caller answers 503 at once."""
    return "cluster_block_exception" in error_types(error)
