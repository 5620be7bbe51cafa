"""Anchors as the classifier compares them: what two postings' anchor sets share.

The anchor words themselves (`anchors`, `transliterate`) live in `indexer.anchor_words`,
because the index keys them too (`indexer.anchor_keys`: how a translated re-post becomes a
candidate), and a posting reads them once (`indexer.reading`) for its keys and its fields.
"""

from __future__ import annotations


def shared_anchors(
    a: frozenset[str], b: frozenset[str], words_a: frozenset[str], words_b: frozenset[str]
) -> frozenset[str]:
    """Anchors of either side found on the other, as an anchor or as a plain word ("Python"
    in one ad, "python" in the other)."""
    return (a & b) | (a & words_b) | (b & words_a)
