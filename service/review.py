"""What a person reviewing verdicts needs: one pair explained, and the queue of doubtful pairs.

Both read the index only. `explain_pair` scores two indexed postings exactly as `/pairs/score`
would (the later-posted one as the new posting), words every contribution
(`classifier.feature_words`) and diffs the texts (`service.diffs`). `review_queue` orders the
pairs the index decided on by how close their score came to the threshold, so the labels a
person gives go where the model is least sure (as dedupe's active learning does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from classifier.feature_words import describe
from indexer.posting import JobPosting
from indexer.review import pair_key
from indexer.store import Labels, PostingSearch, ReviewPair, StoredPosting
from service.bridging import recorded_score
from service.decisions import PairVerdict
from service.diffs import TextDiff, diff_texts
from service.schemas import Posting

QUEUE_CAP = 2_000
"""Pairs in the review queue at most (the nearest to the threshold): more than a person
labels in a sitting, and the queue is rebuilt per request in tens of milliseconds."""

REVIEW_MARGIN = 0.25
"""Decisions whose score lies further than this from the threshold are not doubtful enough
for the queue (merges through a single link are listed whatever their score)."""

_REASON_ORDER = {"single_link_merge": 0, "near_threshold": 1}


@dataclass(frozen=True)
class WordedContribution:
    """A feature's contribution with its sentence (`classifier.feature_words.describe`)."""

    feature: str
    value: float
    contribution: float
    text: str


@dataclass(frozen=True)
class PairExplanation:
    """Two indexed postings side by side: the verdict, its reasons in words, the diffs."""

    a: StoredPosting
    b: StoredPosting
    newer_id: str
    verdict: PairVerdict
    contributions: list[WordedContribution]
    recorded_score: float | None
    label: str | None
    title_diff: TextDiff
    description_diff: TextDiff


@dataclass(frozen=True)
class ReviewItem:
    """One pair of the queue, with its feedback label if it has one."""

    pair: ReviewPair
    label: str | None


@dataclass(frozen=True)
class ReviewQueue:
    """A page of the queue and the progress over all of it."""

    items: list[ReviewItem]
    total: int
    labelled: int


class _PairReads(PostingSearch, Labels, Protocol):
    """What explaining a pair reads: the two postings and their label."""


def explain_pair(
    store: _PairReads,
    score: Callable[[JobPosting, JobPosting], PairVerdict],
    a_id: str,
    b_id: str,
) -> PairExplanation | list[str]:
    """The explanation of two indexed postings, or the ids of those not indexed."""
    sides = {pid: store.get_posting(pid) for pid in dict.fromkeys((a_id, b_id))}
    missing = [pid for pid, found in sides.items() if found is None]
    a, b = sides[a_id], sides[b_id]
    if missing or a is None or b is None:
        return missing
    newer, older = (a, b) if (a.posted_at, a.id) >= (b.posted_at, b.id) else (b, a)
    verdict = score(
        Posting.model_validate(newer.document).core(),
        Posting.model_validate(older.document).core(),
    )
    return PairExplanation(
        a=a,
        b=b,
        newer_id=newer.id,
        verdict=verdict,
        contributions=[
            WordedContribution(
                c.feature, c.value, c.contribution, describe(c.feature, c.value, c.contribution)
            )
            for c in verdict.contributions
        ],
        recorded_score=_recorded_score(newer, older),
        label=store.feedback_labels([(a_id, b_id)]).get(pair_key(a_id, b_id)),
        title_diff=diff_texts(_text(a.document, "title"), _text(b.document, "title")),
        description_diff=diff_texts(
            _text(a.document, "description"), _text(b.document, "description")
        ),
    )


def review_queue(store: Labels, threshold: float, limit: int, offset: int) -> ReviewQueue:
    """The queue's page [offset, offset + limit): pairs nearest the threshold first (a pair
    found both near the threshold and as a merge is listed once, as the merge), at most
    `QUEUE_CAP`; labelled pairs stay in it, marked, so progress can be counted."""
    pairs = store.review_pairs(threshold, REVIEW_MARGIN, QUEUE_CAP)
    pairs.sort(key=lambda p: (abs(p.score - threshold), _REASON_ORDER[p.reason], p.a.id, p.b.id))
    queue: dict[tuple[str, str], ReviewPair] = {}
    for pair in pairs:
        queue.setdefault(pair_key(pair.a.id, pair.b.id), pair)
    kept = list(queue.items())[:QUEUE_CAP]
    labels = store.feedback_labels([key for key, _ in kept])
    page = kept[offset : offset + limit]
    return ReviewQueue(
        items=[ReviewItem(pair, labels.get(key)) for key, pair in page],
        total=len(kept),
        labelled=sum(1 for key, _ in kept if key in labels),
    )


def _recorded_score(newer: StoredPosting, older: StoredPosting) -> float | None:
    """The score the index recorded for the pair when one of them was decided, if any."""
    for decided, other in ((newer, older), (older, newer)):
        score = recorded_score(decided.decision, other.id)
        if score is not None:
            return score
    return None


def _text(document: dict[str, Any], name: str) -> str:
    value = document.get(name)
    return value if isinstance(value, str) else ""
