"""Anchors as the classifier compares them: what two postings' anchor sets share.

The anchor words themselves (`anchors`, `transliterate`) live in `indexer.anchor_words`,
because the index keys them too (`indexer.anchor_keys`: how a translated re-post becomes a
candidate); they are re-exported here for the classifier's callers.
"""

from __future__ import annotations

from indexer.anchor_words import anchors, transliterate

__all__ = ["anchors", "shared_anchors", "transliterate"]


def shared_anchors(
    a: frozenset[str], b: frozenset[str], words_a: frozenset[str], words_b: frozenset[str]
) -> frozenset[str]:
    """Anchors of either side found on the other, as an anchor or as a plain word ("Python"
    in one ad, "python" in the other)."""
    return (a & b) | (a & words_b) | (b & words_a)
