"""What the review queue reads from a stored decision: shared by every store adapter.

A posting's stored decision (`service.decisions.Decision.to_dict`, kept verbatim by the
index) lists the candidates it was scored against: `{"id", "score", "cluster_id", ...}`.
The adapters only read it (and its `score`); this module reads the candidates in one place, so
the embedded index and the engine pick the same candidate for the same decision.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def best_candidate(
    decision: Mapping[str, Any], cluster_id: str | None = None
) -> tuple[str, float] | None:
    """Id and score of the highest-scored candidate of a stored decision (only candidates
    that were in `cluster_id` when scored, if given); the first listed wins a tie, as the
    candidates are listed best overlap first. None without a usable candidate: a decision
    written by another version, or without candidates."""
    best: tuple[str, float] | None = None
    candidates = decision.get("candidates")
    for candidate in candidates if isinstance(candidates, list) else ():
        if not isinstance(candidate, Mapping):
            continue
        pid, score = candidate.get("id"), candidate.get("score")
        if not isinstance(pid, str) or not isinstance(score, int | float):
            continue
        if cluster_id is not None and candidate.get("cluster_id") != cluster_id:
            continue
        if best is None or score > best[1]:
            best = (pid, float(score))
    return best


def pair_key(a_id: str, b_id: str) -> tuple[str, str]:
    """The key of an unordered pair: its ids in sorted order (as feedback is stored)."""
    return (a_id, b_id) if a_id <= b_id else (b_id, a_id)
