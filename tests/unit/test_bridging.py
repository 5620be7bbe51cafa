"""The judged-distinct rule: which recorded verdicts keep a posting from merging clusters."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np

from indexer.store import StoredPosting
from service.bridging import (
    judged_distinct,
    placed_within,
    recorded_score,
    scored_under,
    told_apart_elsewhere,
    unbridged,
)

THRESHOLD = 0.55


def _posting(
    pid: str, shingles: int = 100, scored: dict[str, float] | None = None
) -> StoredPosting:
    decision: dict[str, Any] = {
        "candidates": [{"id": other, "score": s} for other, s in (scored or {}).items()]
    }
    return StoredPosting(
        id=pid,
        content_hash=pid,
        posted_at=datetime(2024, 3, 1, tzinfo=UTC),
        title="t",
        company=None,
        source=None,
        company_key="",
        block_key="",
        sketch=np.zeros(4, dtype=np.int64),
        shingle_count=shingles,
        cluster_id=pid,
        decision=decision,
    )


def test_recorded_score_finds_the_candidate_or_none() -> None:
    decision = {"candidates": [{"id": "a", "score": 0.2}, {"id": "b", "score": 0.9}]}
    assert recorded_score(decision, "b") == 0.9
    assert recorded_score(decision, "c") is None
    assert recorded_score({}, "a") is None
    assert recorded_score({"candidates": [{"id": "a", "score": "x"}]}, "a") is None


def test_scored_under_lists_the_candidates_a_decision_told_apart() -> None:
    decision = _posting("d", scored={"low": 0.1, "high": 0.9, "edge": THRESHOLD}).decision
    assert scored_under(decision, THRESHOLD) == {"low"}
    assert scored_under({"candidates": [{"id": "x"}]}, THRESHOLD) == set()  # no score: no verdict


def test_a_low_recorded_score_either_way_means_distinct() -> None:
    older = _posting("a")
    newer = _posting("b", scored={"a": 0.04})
    assert judged_distinct(newer, older, THRESHOLD, {})
    assert judged_distinct(older, newer, THRESHOLD, {})


def test_a_high_or_missing_score_is_no_verdict() -> None:
    assert not judged_distinct(_posting("b", scored={"a": 0.9}), _posting("a"), THRESHOLD, {})
    assert not judged_distinct(_posting("b"), _posting("a"), THRESHOLD, {})


def test_a_snippet_scoring_low_against_its_full_ad_is_no_verdict() -> None:
    full = _posting("a", shingles=400)
    snippet = _posting("b", shingles=100, scored={"a": 0.1})  # 25% of the full ad's shingles
    assert not judged_distinct(snippet, full, THRESHOLD, {})


def test_labels_override_recorded_scores() -> None:
    low = _posting("b", scored={"a": 0.04})
    assert not judged_distinct(low, _posting("a"), THRESHOLD, {("a", "b"): "duplicate"})
    high = _posting("b", scored={"a": 0.99})
    assert judged_distinct(high, _posting("a"), THRESHOLD, {("a", "b"): "not_duplicate"})


def test_unbridged_keeps_linkers_compatible_with_everything_kept_so_far() -> None:
    best = _posting("best")
    told_apart_from_best = _posting("x", scored={"best": 0.1})
    fine = _posting("y")
    told_apart_from_fine = _posting("z", scored={"y": 0.2})
    kept = unbridged(best, [told_apart_from_best, fine, told_apart_from_fine], THRESHOLD, {})
    assert [p.id for p in kept] == ["y"]


def test_unbridged_checks_linkers_against_the_other_members_the_posting_matched() -> None:
    """The département's ad (best) matches both towns; one town's ad is in its cluster (a
    companion) and was told apart from the other town's ad (the linker)."""
    best = _posting("wide")
    town = _posting("aussonne")
    other_town = _posting("st-hilaire", scored={"aussonne": 0.06, "wide": 0.78})
    assert [p.id for p in unbridged(best, [other_town], THRESHOLD, {})] == ["st-hilaire"]
    assert unbridged(best, [other_town], THRESHOLD, {}, companions=[town]) == []


def test_placed_within_is_strict_containment_of_the_other_posting() -> None:
    """A posting placed at a wider area does not link clusters placed inside it."""
    assert placed_within("31 - Garonne (Haute)", {"location": "31 - TOULOUSE"})
    assert placed_within("Île-de-France", {"location": "Puteaux"})
    assert not placed_within("Puteaux", {"location": "Île-de-France"})  # the narrower one
    assert not placed_within("Toulouse", {"location": "31 - TOULOUSE"})  # the same town
    assert not placed_within("Lyon", {"location": "Villeurbanne"})  # neighbours
    assert not placed_within(None, {"location": "Lyon"})
    assert not placed_within("France", {})
    assert not placed_within("France", {"location": 7})


def test_a_posting_told_apart_from_a_member_listed_elsewhere() -> None:
    """Marcq's ad, matching an ad listed "France", told Bordeaux's apart: a member listed
    away from Marcq (Lille, 10 km, is a board's commune for one place of work). The same in
    Britain: a Leeds ad told apart from a Bristol one, joining through "England"."""
    marcq, lille = {"location": "59 - MARCQ EN BAROEUL"}, {"location": "59 - LILLE"}
    bordeaux = {"location": "33 - BORDEAUX"}
    assert placed_within("France", marcq) and placed_within("Hauts-de-France", marcq)
    assert told_apart_elsewhere(marcq, [bordeaux])
    assert told_apart_elsewhere(marcq, [lille, bordeaux])
    assert not told_apart_elsewhere(marcq, [lille])
    assert not told_apart_elsewhere(marcq, [])
    assert not told_apart_elsewhere(marcq, [{"location": "Nowhere Land"}])
    assert not told_apart_elsewhere({"location": "Nowhere Land"}, [bordeaux])
    leeds = {"location": "Leeds, LS9 7TF"}
    assert placed_within("England", leeds)
    assert told_apart_elsewhere(leeds, [{"location": "Bristol, BS1 2LX"}])
    assert not told_apart_elsewhere(leeds, [{"location": "Wakefield"}])  # 14 km
