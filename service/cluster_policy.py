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
- **Join guard.** A posting joins no cluster holding a candidate it was told apart from (scored
  under half the threshold, neither a snippet of the other, not found only across
  languages), even through another member it
  matches; the best joinable candidate decides. Single-link joining chains as merging does:
  a campaign posts one text for many towns, each town's ad scores low against the others
  ("different places"), and one ad placed only at the département ("31 - Garonne (Haute)")
  matches them all, so each town's ad joined the département ad's cluster and the French
  corpora got clusters of 94, 59 and 44 such ads. The bridging guard stops the merges, this
  stops the joins.
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
    top = max(s.score for s in scored)
    apart = told_apart(shingle_count, scored, threshold)
    joinable = [s for s in scored if s.cluster_id not in apart]
    if not joinable:
        return Choice(None, top)
    best = max(joinable, key=lambda s: (s.score, -s.posted_at.timestamp()))
    if best.score < threshold:
        return Choice(None, top)
    if is_snippet(shingle_count, best.shingle_count) or best.across:
        return Choice(best, top)
    floor = max(merge_threshold, threshold)
    linkers = tuple(
        s
        for s in sorted(joinable, key=lambda s: -s.score)
        if s.score >= floor
        and not is_snippet(shingle_count, s.shingle_count)
        and not s.across
        and s.cluster_id != best.cluster_id
    )
    return Choice(best, top, linkers)


APART = 0.6
"""A candidate scored under this share of the threshold is told apart for the join guard.
Clearly under, not merely under: on the NHS ingest the members a posting scored under the
threshold inside the cluster it would join scored 0.31-0.52 where the two read as one
vacancy or a doubtful case (the same fellowship posted three times, one text for two sites)
and 0.01-0.06 where they were other vacancies (another ward, a campaign's other towns).
0.5 until the forty-fifth session: then a childcare campaign's ads at communes too small
for the gazetteer scored 0.24-0.25 against each other (threshold 0.471) and 0.80 against
the campaign's ad listed at the département, which joined them into one cluster; at 0.6
(0.283) that French export loses those 7 pairs and 2 doubtful ones, the NHS export and
gold-dev through the index are unchanged."""


def told_apart(shingle_count: int, scored: Sequence[Scored], threshold: float) -> set[str]:
    """Clusters holding a candidate the posting was scored against and told apart from:
    under `APART` of the threshold, neither of the two a snippet of the other (a snippet
    scores low against its full ad by nature), not found only across languages (the
    classifier tells translations apart less well). The posting joins none of them, whatever
    else in them it matches (the join guard, module docstring)."""
    return {
        s.cluster_id
        for s in scored
        if s.score < APART * threshold
        and not s.across
        and not is_snippet(shingle_count, s.shingle_count)
        and not is_snippet(s.shingle_count, shingle_count)
    }


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
