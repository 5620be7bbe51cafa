"""Duplicate types (Eurostat 2023 taxonomy): full, semantic, temporal, partial.

Rules, applied in this order to a posting and the candidate it was matched to:
1. `temporal`: posted_at more than `TEMPORAL_DAYS` apart (a re-advertisement later on);
2. `partial`: the smaller shingle set is under `PARTIAL_RATIO` of the larger one (one side
   carries only part of the other: a snippet, the first paragraph);
3. `full`: estimated Jaccard >= `FULL_JACCARD`, same normalised title and, when both are
   given, same normalised location;
4. `semantic`: everything else (restructured, reworded, retitled or re-formatted).
"""

from __future__ import annotations

from typing import Literal

from classifier.scoring import Candidate
from indexer.prepare import PreparedPosting
from indexer.text import normalise_location, normalise_title

DuplicateType = Literal["full", "semantic", "temporal", "partial"]

TEMPORAL_DAYS = 30
PARTIAL_RATIO = 0.6
FULL_JACCARD = 0.9


def _location(document: dict[str, object]) -> str:
    value = document.get("location")
    return normalise_location(value) if isinstance(value, str) else ""


def duplicate_type(query: PreparedPosting, match: Candidate) -> DuplicateType:
    """The type of a duplicate decision between `query` and its chosen `match`."""
    other = match.posting
    gap_days = abs((query.posted_at - other.posted_at).total_seconds()) / 86400.0
    if gap_days > TEMPORAL_DAYS:
        return "temporal"
    sizes = sorted((query.shingle_count, other.shingle_count))
    if sizes[1] > 0 and sizes[0] / sizes[1] < PARTIAL_RATIO:
        return "partial"
    loc_a, loc_b = _location(query.document), _location(other.document)
    same_location = not loc_a or not loc_b or loc_a == loc_b
    if (
        match.jaccard >= FULL_JACCARD
        and query.title_key == normalise_title(other.title)
        and same_location
    ):
        return "full"
    return "semantic"
