"""The scoring port (`PairScorer`), verified candidates and the unsupervised overlap baseline.

A scorer gets a prepared posting and all of its verified candidates in one call, so a model
can score them as one batch. Scores are probabilities-like numbers in [0, 1] compared with the
scorer's own threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from indexer.minhash import estimate_jaccard, overlap_from_jaccard
from indexer.prepare import PreparedPosting
from indexer.store import StoredPosting

OVERLAP_THRESHOLD = 0.99
"""Baseline threshold on the estimated overlap coefficient, set on gold-dev: the best F1 there
is reached around 0.99 (`best_f1_threshold` over the pairs' sketch estimates: 0.80 with the
plain sketches of version 1, 0.774 with the boilerplate-free sketches of version 2, where
0.99 is still the best round value). It is high because gold-dev is full of different
vacancies with identical text: text alone cannot tell them apart."""


Remember = Literal["all", "candidates", "none"]
"""Which postings of a scoring call are indexed, so a scorer that memoises what it extracts
may keep them: "all" (a posting being indexed and its candidates), "candidates" (a dry run:
the query will not be indexed), "none" (a pair scored outside the index). A bounded memo
filled with postings that never come back as candidates only evicts those that do: 100,000
dry runs and pair scores grew the service by ~60 MB that way (`bench/soak.py`)."""


@dataclass(frozen=True)
class Candidate:
    """An indexed posting found for a query, with its sketch estimates against the query."""

    posting: StoredPosting
    jaccard: float
    overlap: float


def candidate_for(query: PreparedPosting, other: StoredPosting) -> Candidate:
    """`other` as a candidate of `query`, with its sketch estimates against it."""
    jaccard = estimate_jaccard(query.sketch, other.sketch)
    overlap = overlap_from_jaccard(jaccard, query.shingle_count, other.shingle_count)
    return Candidate(other, jaccard, overlap)


@dataclass(frozen=True)
class Contribution:
    """One feature's part in a score: its value for the pair and its contribution (for the
    trained model, LightGBM's SHAP-style contribution to the raw score)."""

    feature: str
    value: float
    contribution: float


class PairScorer(Protocol):
    """Scores (query, candidate) pairs; one call per posting for all of its candidates."""

    @property
    def name(self) -> str:
        """Short name shown in /ready and metrics (e.g. "overlap")."""
        ...

    @property
    def version(self) -> str:
        """Version of the scorer or model artifact."""
        ...

    @property
    def threshold(self) -> float:
        """Scores at or above this are duplicates."""
        ...

    def wanted_documents(self, candidates: Sequence[Candidate]) -> set[str]:
        """Ids of the candidates whose full `document` `score` needs (the caller loads them:
        decoding every candidate's JSON cost more than scoring; a scorer that remembers
        what it extracted asks only for postings it has not seen in this version)."""
        ...

    def score(
        self,
        query: PreparedPosting,
        candidates: Sequence[Candidate],
        *,
        remember: Remember = "all",
    ) -> list[float]:
        """One score in [0, 1] per candidate, in order; `remember` says which of the postings
        are indexed (see `Remember`)."""
        ...

    def explain(
        self,
        query: PreparedPosting,
        candidate: Candidate,
        top: int = 8,
        *,
        remember: Remember = "all",
    ) -> list[Contribution]:
        """The features that weighed most in the candidate's score, largest first
        (`remember` as for `score`)."""
        ...


@dataclass(frozen=True)
class OverlapScorer:
    """Published unsupervised baseline (Zhao et al. 2021): the overlap coefficient
    |A∩B| / min(|A|, |B|) of description shingles, estimated from the sketches."""

    threshold: float = OVERLAP_THRESHOLD
    name: str = "overlap"
    version: str = "1"

    def wanted_documents(self, candidates: Sequence[Candidate]) -> set[str]:
        """None: the overlap comes from the sketches."""
        return set()

    def score(
        self,
        query: PreparedPosting,
        candidates: Sequence[Candidate],
        *,
        remember: Remember = "all",
    ) -> list[float]:
        """The candidates' estimated overlap with the query, already computed at verification."""
        return [c.overlap for c in candidates]

    def explain(
        self,
        query: PreparedPosting,
        candidate: Candidate,
        top: int = 8,
        *,
        remember: Remember = "all",
    ) -> list[Contribution]:
        """The baseline has one feature: the overlap, contributing its distance from the
        threshold."""
        return [Contribution("overlap", candidate.overlap, candidate.overlap - self.threshold)][
            :top
        ]
