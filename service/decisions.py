"""The pipeline's results and knobs: decisions, scored candidates, pair verdicts, config.

Plain dataclasses shared by the pipeline, the API and the CLI (which turn them into JSON).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from classifier.scoring import Contribution


@dataclass(frozen=True)
class PipelineConfig:
    """Decision knobs (see Settings for their defaults and meaning)."""

    window_days: int = 60
    max_candidates: int = 50
    verify_min_overlap: float = 0.2
    merge_threshold: float | None = None
    boilerplate: bool = True


@dataclass(frozen=True)
class PairVerdict:
    """The score of one pair of postings, outside the index."""

    probability: float
    duplicate: bool
    duplicate_type: str | None
    jaccard: float
    overlap: float
    contributions: list[Contribution]


@dataclass(frozen=True)
class ScoredCandidate:
    """A candidate as reported back to the client."""

    id: str
    score: float
    jaccard: float
    overlap: float
    cluster_id: str


@dataclass
class Decision:
    """The verdict for one posting; `timings` (seconds per stage) is for metrics only."""

    id: str
    status: str
    duplicate_of: str | None
    cluster_id: str
    duplicate_type: str | None
    score: float | None
    candidates: list[ScoredCandidate]
    timings: dict[str, float] = field(default_factory=dict)
    explanation: list[Contribution] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form shared by `/dedup`, the stored decision and `ingest --out`."""
        return {
            "id": self.id,
            "status": self.status,
            "duplicate_of": self.duplicate_of,
            "cluster_id": self.cluster_id,
            "duplicate_type": self.duplicate_type,
            "score": self.score,
            "candidates": [c.__dict__ for c in self.candidates],
        }
