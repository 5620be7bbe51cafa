"""Bridging guard: a posting never merges two clusters the index already judged distinct.

Single-link clustering chains: a posting that matches two clusters merges them, so one vague
posting can fold together vacancies that were compared directly and told apart. On real
boards this is common: a campaign posts one text for many towns, each ad scores low against
the others ("different places"), and one ad whose place the gazetteer cannot read (or that
names only the region) matches all of them. In the French corpora one such posting merged 21
clusters of a childcare campaign into one of 171 postings.

The evidence is already stored: each posting's decision lists the candidates it was scored
against. Two postings are *judged distinct* when an analyst labelled them `not_duplicate`,
or when one's recorded score for the other is under the threshold and neither is a snippet of
the other (under `PARTIAL_RATIO` of its shingles). Snippets are exempt because a snippet
scores low against its full ad by nature; a later full copy that matches both should still
merge them. An analyst's `duplicate` label overrides a low recorded score.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import combinations
from typing import Any

from classifier.gazetteer import resolve
from classifier.kinds import PARTIAL_RATIO
from classifier.stated_place import near
from indexer.review import pair_key
from indexer.store import StoredPosting

Labels = Mapping[tuple[str, str], str]
"""Feedback labels keyed by the pair's ids in sorted order (`IndexStore.feedback_labels`)."""


def recorded_scores(decision: Mapping[str, Any]) -> Iterator[tuple[str, float]]:
    """(candidate id, score) of each candidate a stored decision scored."""
    for candidate in decision.get("candidates") or ():
        if isinstance(candidate, Mapping) and isinstance(candidate.get("score"), int | float):
            yield str(candidate.get("id")), float(candidate["score"])


def recorded_score(decision: Mapping[str, Any], candidate_id: str) -> float | None:
    """The score a stored decision gave `candidate_id`, or None if it was not a candidate."""
    return next((s for pid, s in recorded_scores(decision) if pid == candidate_id), None)


def scored_under(decision: Mapping[str, Any], threshold: float) -> set[str]:
    """Ids a stored decision scored under `threshold`: the postings it told apart, unless
    one is a snippet of the other (`judged_distinct` decides that with both postings)."""
    return {pid for pid, score in recorded_scores(decision) if score < threshold}


def _partial(a: StoredPosting, b: StoredPosting) -> bool:
    small, large = sorted((a.shingle_count, b.shingle_count))
    return small < PARTIAL_RATIO * large


def judged_distinct(a: StoredPosting, b: StoredPosting, threshold: float, labels: Labels) -> bool:
    """Whether the index holds a verdict that `a` and `b` are different vacancies (see the
    module's docstring). Both postings need their stored `decision`."""
    label = labels.get(pair_key(a.id, b.id))
    if label is not None:
        return label == "not_duplicate"
    if _partial(a, b):
        return False
    for newer, older in ((a, b), (b, a)):
        score = recorded_score(newer.decision, older.id)
        if score is not None and score < threshold:
            return True
    return False


def placed_within(location: object, document: Mapping[str, Any]) -> bool:
    """Whether the posting `document` is placed strictly inside the place `location` names
    (a town of the département, a département of the region): then a posting at `location`
    does not link its cluster to another. An ad placed only at the département ("31 - Garonne
    (Haute)") matches every town's ad of a campaign that posts one text for many towns, and
    many of those were never compared with each other (50 candidates each, a 60-day window),
    so the judged-distinct evidence below cannot stop it
    (tests/api/test_campaigns.py: two towns 74 days apart, merged without this rule)."""
    inner = document.get("location")
    if not isinstance(location, str) or not isinstance(inner, str):
        return False
    outer_place, inner_place = resolve(location), resolve(inner)
    if outer_place is None or inner_place is None or outer_place.key == inner_place.key:
        return False
    return outer_place.key in inner_place.within


def told_apart_elsewhere(
    document: Mapping[str, Any], told_apart: Sequence[Mapping[str, Any]]
) -> bool:
    """Whether one of the postings `told_apart` from a posting (`document`; their documents,
    each scored under the threshold and no snippet of it) is listed away from it: neither
    place holds the other nor lies within 25 km (`stated_place.near`).

    The deduplicator asks it when a posting would join its match's cluster through a match
    listed at a wider place (`placed_within`: a département, a region, a country holding
    the posting's town). A wide listing states no place of work, so it matches the ads of
    every town, and single-link clustering then joins towns that were compared and told
    apart: in the French corpora three households' "Garde d'enfant à domicile (H/F)" ads
    at Bordeaux, listed "France" and at Marcq-en-Barœul were one cluster, Marcq's ad joined
    through the "France" one (0.475) after scoring Bordeaux's 0.014. The posting then
    opens a cluster of its own."""
    here = resolve(str(document.get("location") or ""))
    if here is None:
        return False
    for other in told_apart:
        there = resolve(str(other.get("location") or ""))
        if there is not None and not near(here, there):
            return True
    return False


def label_pairs(postings: Sequence[StoredPosting]) -> list[tuple[str, str]]:
    """Every unordered pair of `postings` (the feedback labels to look up)."""
    return [pair_key(a.id, b.id) for a, b in combinations(postings, 2)]


def unbridged(
    best: StoredPosting,
    linkers: Sequence[StoredPosting],
    threshold: float,
    labels: Labels,
    companions: Sequence[StoredPosting] = (),
) -> list[StoredPosting]:
    """The linkers (best-scored first) whose clusters may merge with `best`'s: taken in order,
    each accepted unless it was judged distinct from `best`, from one of `companions` (the
    posting's other candidates in `best`'s cluster) or from one accepted before it. Greedy in
    score order, so the strongest links win a conflict.

    Why the companions: a campaign's ad placed only at the département joined one town's
    cluster; its copy from a second snapshot then matched that ad (the best) and another
    town's ad (a linker). The two towns' ads had been told apart (0.06), but the check looked
    at the best match only, and the two towns merged (French corpora, model 6f420cb17f8c)."""
    accepted = [best, *companions]
    kept: list[StoredPosting] = []
    for posting in linkers:
        if not any(judged_distinct(posting, other, threshold, labels) for other in accepted):
            accepted.append(posting)
            kept.append(posting)
    return kept
