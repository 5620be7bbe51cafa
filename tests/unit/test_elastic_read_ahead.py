"""When a candidate search run ahead of a group may stand for the live search."""

from __future__ import annotations

from typing import Any

from indexer.stores.elastic.store import _ahead_hits


def _hits(*ids: str) -> list[dict[str, Any]]:
    return [{"_source": {"posting_id": i}, "sort": [1, 0, i]} for i in ids]


def test_no_search_ahead_means_a_live_search() -> None:
    assert _ahead_hits(None, frozenset(), 3) is None


def test_hits_the_group_wrote_since_are_dropped_from_a_partial_page() -> None:
    ahead = (frozenset({"q"}), _hits("a", "b"))
    kept = _ahead_hits(ahead, frozenset({"q", "a"}), 3)
    assert kept is not None and [h["_source"]["posting_id"] for h in kept] == ["b"]


def test_a_full_page_without_drops_stands() -> None:
    ahead = (frozenset({"q"}), _hits("a", "b", "c"))
    kept = _ahead_hits(ahead, frozenset({"q", "z"}), 3)
    assert kept is not None and len(kept) == 3


def test_a_full_page_cut_short_is_searched_again() -> None:
    """The engine may hold a fourth posting that now belongs on the page."""
    ahead = (frozenset({"q"}), _hits("a", "b", "c"))
    assert _ahead_hits(ahead, frozenset({"q", "b"}), 3) is None


def test_a_search_that_skipped_more_than_the_live_one_does_not_stand() -> None:
    ahead = (frozenset({"q", "x"}), _hits("a"))
    assert _ahead_hits(ahead, frozenset({"q"}), 3) is None
