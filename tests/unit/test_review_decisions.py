"""indexer.review: the candidate a review pair takes from a stored decision."""

from __future__ import annotations

from typing import Any

from indexer.review import best_candidate, pair_key


def candidate(pid: str, score: Any, cluster: str = "c") -> dict[str, Any]:
    return {"id": pid, "score": score, "jaccard": 0.5, "overlap": 0.5, "cluster_id": cluster}


def test_the_best_score_wins_and_the_first_listed_breaks_a_tie() -> None:
    decision = {"candidates": [candidate("a", 0.4), candidate("b", 0.7), candidate("c", 0.7)]}
    assert best_candidate(decision) == ("b", 0.7)


def test_a_cluster_restricts_the_candidates() -> None:
    decision = {"candidates": [candidate("a", 0.9, "x"), candidate("b", 0.2, "y")]}
    assert best_candidate(decision, "y") == ("b", 0.2)
    assert best_candidate(decision, "z") is None


def test_malformed_or_empty_decisions_have_no_candidate() -> None:
    assert best_candidate({}) is None
    assert best_candidate({"candidates": None}) is None
    assert (
        best_candidate({"candidates": ["x", {"id": 3, "score": 1}, candidate("a", None)]}) is None
    )
    assert best_candidate({"candidates": [candidate("a", 1)]}) == ("a", 1.0)


def test_a_pair_key_is_the_sorted_ids() -> None:
    assert pair_key("b", "a") == pair_key("a", "b") == ("a", "b")
