"""Request bodies and documents of the search-engine store (pure; no engine needed)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from indexer.stores.elastic.bodies import (
    MAX_ID_BYTES,
    MAX_SCORED_KEYS,
    candidate_query,
    clusters_mappings,
    contains_pattern,
    doc_id,
    from_micros,
    index_names,
    member_titles,
    postings_mappings,
    to_micros,
)
from indexer.stores.elastic.docs import decision_score, decode_sketch, encode_sketch

INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)


def test_candidate_query_scores_shared_keys_in_filter_context_only() -> None:
    body = candidate_query([3, 1, 3, 2], "acme|dev", 10, 20, ["self"], 25)
    text = json.dumps(body)
    assert "terms_set" not in text and "script" not in text  # portable to OpenSearch 2.x
    query = body["query"]["bool"]
    keys = [c["constant_score"]["filter"]["term"]["band_keys"] for c in query["should"][:-1]]
    assert keys == [1, 2, 3]  # deduplicated: a repeated key counts once
    assert all(c["constant_score"]["boost"] == 1.0 for c in query["should"][:-1])
    block = query["should"][-1]["constant_score"]
    assert block == {"filter": {"term": {"block_key": "acme|dev"}}, "boost": 0}
    assert query["minimum_should_match"] == 1
    assert query["filter"] == [{"range": {"posted_at": {"gte": 10, "lte": 20}}}]
    assert query["must_not"] == [{"terms": {"posting_id": ["self"]}}]
    assert body["sort"][0] == {"_score": "desc"} and body["size"] == 25
    assert set(body["_source"]["excludes"]) == {"band_keys", "document", "decision"}


def test_candidate_query_guards_the_clause_and_terms_limits() -> None:
    with pytest.raises(ValueError, match="band keys"):
        candidate_query(range(MAX_SCORED_KEYS + 1), None, None, None, [], 10)
    with pytest.raises(ValueError, match="excluded ids"):
        candidate_query([1], None, None, None, ["x"] * 65_537, 10)
    unbounded = candidate_query([1], None, None, None, [], 10)["query"]["bool"]
    assert "filter" not in unbounded and "must_not" not in unbounded


def test_mappings_are_strict_and_index_only_what_queries_use() -> None:
    postings = postings_mappings()
    assert postings["dynamic"] == "strict"
    fields = postings["properties"]
    assert fields["band_keys"] == {"type": "keyword", "doc_values": False}
    assert fields["document"] == {"type": "object", "enabled": False}
    assert fields["sketch"]["type"] == "binary"
    assert fields["shingle_count"]["index"] is False
    assert clusters_mappings()["dynamic"] == "strict"
    assert fields["decision_score"] == {"type": "double"}  # range-filtered and sorted on
    assert clusters_mappings()["properties"]["member_titles"]["doc_values"] is False


def test_title_pattern_is_the_casefolded_needle_with_wildcards_escaped() -> None:
    assert contains_pattern("Straße") == "*strasse*"
    assert contains_pattern("100% *remote*? C:\\") == "*100% \\*remote\\*\\? c:\\\\*"
    assert contains_pattern("") == "**"


def test_member_titles_are_distinct_and_casefolded() -> None:
    members = [{"title": "Staff NURSE"}, {"title": "staff nurse"}, {"title": "ÄRZTIN"}, {}]
    assert member_titles(members) == ["staff nurse", "ärztin"]


def test_decision_score_is_the_stored_score_or_none() -> None:
    assert decision_score({"score": 0.5, "candidates": []}) == 0.5
    assert decision_score({"score": 1}) == 1.0
    for missing in ({"score": None}, {"score": True}, {"score": "0.5"}, {}, None):
        assert decision_score(missing) is None


@pytest.mark.parametrize("key", ["p-1", "a/b?c", "é" * 200, "x" * MAX_ID_BYTES])
def test_doc_id_keeps_short_ids(key: str) -> None:
    assert doc_id(key) == key


@pytest.mark.parametrize("key", ["é" * 257, "x" * (MAX_ID_BYTES + 1), "~sha256~abc", "", "~"])
def test_doc_id_hashes_long_or_reserved_ids(key: str) -> None:
    hashed = doc_id(key)
    assert hashed.startswith("~sha256~") and len(hashed.encode()) <= MAX_ID_BYTES
    assert hashed != key and doc_id(key) == hashed


@pytest.mark.parametrize("prefix", ["Upper", "-dash", "", "a b", "a*", "_x"])
def test_index_prefix_must_be_a_valid_index_name(prefix: str) -> None:
    with pytest.raises(ValueError, match="index prefix"):
        index_names(prefix)


def test_index_names() -> None:
    names = index_names("jobdedup")
    assert (names.postings, names.clusters) == ("jobdedup-postings", "jobdedup-clusters")
    assert names.first_index(names.postings) == "jobdedup-postings-000001"


@given(st.lists(INT64, min_size=1, max_size=64))
def test_sketch_encoding_round_trips_every_int64(values: list[int]) -> None:
    decoded = decode_sketch(encode_sketch(np.array(values, dtype=np.int64)))
    assert decoded.dtype == np.int64 and decoded.tolist() == values


def test_micros_are_exact_and_timezone_aware() -> None:
    paris = datetime(2024, 2, 29, 23, 59, 59, 999_999, tzinfo=timezone(timedelta(hours=1)))
    assert from_micros(to_micros(paris)) == paris
    assert from_micros(to_micros(datetime(1, 1, 1))) == datetime(1, 1, 1, tzinfo=UTC)
    assert to_micros(datetime(1970, 1, 1, 0, 0, 0, 1)) == 1
