"""Cluster policy: which cluster a scored posting joins and which clusters it merges.

Pure functions over what the pipeline has read (the candidates' scores, sizes and clusters,
the linked clusters' earliest members): no store, no clock, no scorer. Each rule is tested on
its own (tests/unit/test_cluster_policy.py), and deciding a group of postings in memory can
reuse them. The pipeline (`Deduplicator._decide`) reads between the steps only what the
policy asks for:

1. `choose` names the match and the candidates that may link their clusters to it;
2. the bridging guard (`service.bridging.unbridged`, also pure) drops the linkers whose
   postings the index judged distinct (it needs their stored decisions and labels);
3. `plan` orders the linked clusters by their earliest members: the oldest survives, the
   others fold into it, and the earliest other member is the one the posting duplicates.

The rules (each with its measured reason where it was introduced):
- **Threshold.** Below the scorer's threshold the posting opens a cluster; otherwise it joins
  the cluster of its best-scoring candidate (ties: the earliest posted).
- **Merge threshold.** Another candidate links its cluster too only at or above the merge
  threshold (never below the scorer's threshold).
- **Snippet bridging rule.** A posting whose shingle set is under `PARTIAL_RATIO` of a
  candidate's is a snippet or partial copy of it (an aggregator's first 500 characters) and
  links nothing through it: if its match is such a candidate it joins that cluster and merges
  none. A snippet made of an employer's intro matches every ad of that employer.
- **Translation rule.** A candidate found only by the search across languages is treated like
  a snippet's candidate: it may be joined, never bridge two clusters (the classifier tells a
  translation from the employer's other vacancies less well, bench/translations_ingest.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from classifier.kinds import PARTIAL_RATIO


@dataclass(frozen=True)
class Scored:
    """A verified candidate with its score, as the policy sees it."""

    id: str
    cluster_id: str
    score: float
    posted_at: datetime
    shingle_count: int
    across: bool = False
    """Found only by the search across languages (`Deduplicator._translations`)."""


@dataclass(frozen=True)
class Choice:
    """What `choose` decided: the match (None: the posting opens a cluster), the best score
    (None without candidates) and the candidates that may link their clusters, best first."""

    match: Scored | None
    best_score: float | None
    linkers: tuple[Scored, ...] = ()


@dataclass(frozen=True)
class First:
    """The earliest member of a cluster (other than the posting being decided)."""

    id: str
    posted_at: datetime


@dataclass(frozen=True)
class ClusterPlan:
    """The surviving cluster, the clusters folded into it (oldest first) and the earliest
    member of the linked clusters other than the posting (None if it is alone)."""

    survivor: str
    absorbed: tuple[str, ...]
    duplicate_of: str | None


def is_snippet(shingle_count: int, other_shingle_count: int) -> bool:
    """Whether a posting of `shingle_count` sketched shingles is a snippet or partial copy of
    one of `other_shingle_count` (the `partial` rule of `classifier.kinds`)."""
    return shingle_count < PARTIAL_RATIO * other_shingle_count


def choose(
    shingle_count: int, scored: Sequence[Scored], threshold: float, merge_threshold: float
) -> Choice:
    """The match of a posting of `shingle_count` shingles among `scored`, and the other
    candidates that may link their clusters to the match's (module docstring: threshold,
    merge threshold, snippet and translation rules). `merge_threshold` is taken as at least
    `threshold`."""
    if not scored:
        return Choice(None, None)
    best = max(scored, key=lambda s: (s.score, -s.posted_at.timestamp()))
    if best.score < threshold:
        return Choice(None, best.score)
    if is_snippet(shingle_count, best.shingle_count) or best.across:
        return Choice(best, best.score)
    floor = max(merge_threshold, threshold)
    linkers = tuple(
        s
        for s in sorted(scored, key=lambda s: -s.score)
        if s.score >= floor
        and not is_snippet(shingle_count, s.shingle_count)
        and not s.across
        and s.cluster_id != best.cluster_id
    )
    return Choice(best, best.score, linkers)


def plan(linked: Iterable[str], firsts: Mapping[str, First]) -> ClusterPlan:
    """Order the linked clusters by their earliest members (`firsts`, keyed by cluster; a
    cluster without one, whose only member is the posting, sorts last, then by id): the
    first survives and the others are absorbed into it."""
    ordered = sorted(
        set(linked),
        key=lambda c: (firsts[c].posted_at, c) if c in firsts else (_LATEST, c),
    )
    earliest = min(firsts.values(), key=lambda f: (f.posted_at, f.id), default=None)
    return ClusterPlan(ordered[0], tuple(ordered[1:]), None if earliest is None else earliest.id)


def fresh_cluster_id(posting_id: str, kept: str | None, taken: Callable[[str], bool]) -> str:
    """The id of the cluster a posting opens: `kept` (the cluster an updated posting was alone
    in, which it keeps), else the posting's id, with a numbered suffix (`~2`, `~3`, …) while
    `taken` says an id is in use (an update leaving a cluster it opened, or an alias)."""
    if kept is not None:
        return kept
    candidate, n = posting_id, 1
    while taken(candidate):
        n += 1
        candidate = f"{posting_id}~{n}"
    return candidate


_LATEST = datetime.max.replace(tzinfo=UTC)
