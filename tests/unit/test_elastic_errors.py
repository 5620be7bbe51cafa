"""Which engine answers are "retry later" (503) and which are bugs (500): bodies as the
OpenSearch 2.4 test node answered them."""

from __future__ import annotations

from typing import Any

import pytest

from indexer.stores.elastic.errors import error_types, is_blocked, is_transient

NO_SHARD = {
    "root_cause": [{"type": "no_shard_available_action_exception", "reason": "No shard"}],
    "type": "no_shard_available_action_exception",
    "reason": "No shard available for [get [exp1][a]: routing [null]]",
}
ALL_SHARDS_FAILED = {
    "root_cause": [{"type": "no_shard_available_action_exception", "reason": None}],
    "type": "search_phase_execution_exception",
    "reason": "all shards failed",
    "failed_shards": [
        {"shard": 0, "reason": {"type": "illegal_index_shard_state_exception", "reason": "x"}}
    ],
}
RECOVERING = {
    "type": "illegal_index_shard_state_exception",
    "reason": "CurrentState[RECOVERING] operations only allowed when shard state is one of ...",
}
FLOOD_STAGE = {
    "type": "cluster_block_exception",
    "reason": "index [exp1] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded "
    "flood-stage watermark, index has read-only-allow-delete block];",
}
PARSING = {
    "root_cause": [{"type": "parsing_exception", "reason": "Unknown key", "line": 1}],
    "type": "parsing_exception",
    "reason": "Unknown key for a START_ARRAY in [docs].",
}
BAD_QUERY = {
    "root_cause": [{"type": "query_shard_exception", "reason": "failed to create query"}],
    "type": "search_phase_execution_exception",
    "reason": "all shards failed",
    "failed_shards": [{"shard": 0, "reason": {"type": "query_shard_exception"}}],
}


def test_error_types_are_read_from_causes_and_shard_failures() -> None:
    assert error_types(ALL_SHARDS_FAILED) == {
        "search_phase_execution_exception",
        "no_shard_available_action_exception",
        "illegal_index_shard_state_exception",
    }
    assert error_types({"type": "a", "caused_by": {"type": "b", "caused_by": {"type": "c"}}}) == {
        "a",
        "b",
        "c",
    }
    assert error_types("a plain string") == set()
    assert error_types(None) == set()


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (503, NO_SHARD),
        (200, NO_SHARD),  # a multi-get document's error has no status of its own
        (500, RECOVERING),  # a recovering shard answers 500
        (500, ALL_SHARDS_FAILED),
        (429, FLOOD_STAGE),
        (403, {"type": "cluster_block_exception", "reason": "FORBIDDEN/8/index write (api)"}),
        (503, {"type": "master_not_discovered_exception"}),
        (500, {"type": "rejected_execution_exception"}),
        (502, None),
        (504, "gateway timeout"),
    ],
)
def test_states_the_engine_leaves_on_its_own_are_transient(status: int, error: Any) -> None:
    assert is_transient(status, error)


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (400, PARSING),
        (400, BAD_QUERY),
        (404, {"type": "index_not_found_exception"}),
        (400, {"type": "mapper_parsing_exception"}),
        (500, {"type": "null_pointer_exception"}),
        (500, None),
    ],
)
def test_bugs_and_misconfigurations_are_not(status: int, error: Any) -> None:
    assert not is_transient(status, error)


def test_a_block_is_not_retried_like_a_full_queue() -> None:
    assert is_blocked(FLOOD_STAGE)
    assert not is_blocked({"type": "rejected_execution_exception"})
