"""Scoring labelled posting pairs offline and the metrics that judge a scorer.

Pairs are scored with the same preparation, sketches, scorer and duplicate-type rules as the
service, but independent of any index: each pair is compared on its own, so the figures
measure the scorer, not the candidate search.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from classifier.kinds import duplicate_type
from classifier.scoring import PairScorer, candidate_for
from indexer.minhash import SketchParams
from indexer.prepare import prepare_corpus, to_stored


@dataclass(frozen=True)
class PairResult:
    """One scored pair: its probability, the decision at the scorer's threshold and the type."""

    pair_id: str
    probability: float
    duplicate: bool
    type: str | None
    label: str | None
    gold_type: str | None
    reason: str | None
    source: str | None


def score_pairs(
    pairs: Iterable[dict[str, Any]], scorer: PairScorer, params: SketchParams
) -> list[PairResult]:
    """Score `{"pair_id", "a", "b", "label"?, "type"?, "reason"?}` objects, `a` as the new
    posting and `b` as the indexed candidate (the direction the service sees).

    Boilerplate statistics are learned from the postings of all the pairs (`prepare_corpus`):
    the file is the corpus, so scores do not depend on what any index holds."""
    pairs = list(pairs)
    documents = [
        side
        for pair in pairs
        for side in (_dated(pair["a"], pair["b"]), _dated(pair["b"], pair["a"]))
    ]
    prepared = prepare_corpus(documents, params)
    results = []
    for number, pair in enumerate(pairs):
        query, other = prepared[2 * number], prepared[2 * number + 1]
        candidate = candidate_for(query, to_stored(other, cluster_id=other.id))
        probability = scorer.score(query, [candidate])[0]
        duplicate = probability >= scorer.threshold
        results.append(
            PairResult(
                pair_id=str(pair.get("pair_id", "")),
                probability=float(probability),
                duplicate=duplicate,
                type=duplicate_type(query, candidate) if duplicate else None,
                label=pair.get("label"),
                gold_type=pair.get("type"),
                reason=pair.get("reason"),
                source=pair["a"].get("source") or pair["b"].get("source"),
            )
        )
    return results


def _dated(side: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """A side without posted_at takes the other side's, so an unknown date reads as "no
    gap" rather than as decades apart (which would skew the date features and the type)."""
    if side.get("posted_at") or not other.get("posted_at"):
        return side
    return {**side, "posted_at": other["posted_at"]}


def roc_auc(labels: Sequence[bool], scores: Sequence[float]) -> float:
    """Area under the ROC curve (probability a positive outranks a negative; ties count
    half). NaN when only one class is present."""
    y = np.asarray(labels, dtype=bool)
    s = np.asarray(scores, dtype=float)
    positives, negatives = s[y], s[~y]
    if len(positives) == 0 or len(negatives) == 0:
        return float("nan")
    greater = (positives[:, None] > negatives[None, :]).sum()
    ties = (positives[:, None] == negatives[None, :]).sum()
    return float((greater + 0.5 * ties) / (len(positives) * len(negatives)))


def average_precision(labels: Sequence[bool], scores: Sequence[float]) -> float:
    """PR-AUC as average precision: mean precision at the rank of each positive, ties
    broken pessimistically (negatives first) so a constant scorer gets no credit."""
    y = np.asarray(labels, dtype=bool)
    if not y.any():
        return float("nan")
    order = np.lexsort((y, -np.asarray(scores, dtype=float)))
    ranked = y[order]
    hits = np.cumsum(ranked)
    precision_at = hits / np.arange(1, len(ranked) + 1)
    return float(precision_at[ranked].mean())


def best_f1_threshold(labels: Sequence[bool], scores: Sequence[float]) -> tuple[float, float]:
    """(threshold, F1): the lowest score threshold that reaches the best F1 on these pairs.

    The lowest of the tied thresholds is taken because unseen re-posts are usually less
    similar than the labelled ones, so recall is the side to keep."""
    best = (1.0, -1.0)
    for threshold in sorted(set(scores)):
        f1 = binary_metrics(labels, [s >= threshold for s in scores])["f1"]
        if f1 > best[1]:
            best = (threshold, f1)
    return best


def binary_metrics(labels: Sequence[bool], decisions: Sequence[bool]) -> dict[str, float]:
    """Precision, recall, F1 and the confusion matrix of hard decisions."""
    y = np.asarray(labels, dtype=bool)
    d = np.asarray(decisions, dtype=bool)
    tp = int((y & d).sum())
    fp = int((~y & d).sum())
    fn = int((y & ~d).sum())
    tn = int((~y & ~d).sum())
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else float("nan")
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
    }


def report(results: Sequence[PairResult]) -> dict[str, Any]:
    """Overall metrics plus breakdowns by gold type (duplicates), by reason (non-duplicates)
    and by source, for the labelled pairs among `results`."""
    labelled = [r for r in results if r.label in ("duplicate", "not_duplicate")]
    labels = [r.label == "duplicate" for r in labelled]
    scores = [r.probability for r in labelled]
    overall: dict[str, Any] = binary_metrics(labels, [r.duplicate for r in labelled])
    overall.update(
        pairs=len(labelled),
        roc_auc=roc_auc(labels, scores),
        pr_auc=average_precision(labels, scores),
    )
    by_type: dict[str, list[PairResult]] = defaultdict(list)
    by_reason: dict[str, list[PairResult]] = defaultdict(list)
    by_source: dict[str, list[PairResult]] = defaultdict(list)
    for r in labelled:
        if r.label == "duplicate":
            by_type[r.gold_type or "untyped"].append(r)
        else:
            by_reason[r.reason or "unspecified"].append(r)
        by_source[r.source or "unknown"].append(r)
    return {
        "overall": overall,
        "duplicates_by_type": {
            k: {"pairs": len(v), "recall": sum(r.duplicate for r in v) / len(v)}
            for k, v in sorted(by_type.items())
        },
        "non_duplicates_by_reason": {
            k: {"pairs": len(v), "false_positive_rate": sum(r.duplicate for r in v) / len(v)}
            for k, v in sorted(by_reason.items())
        },
        "by_source": {
            k: binary_metrics([r.label == "duplicate" for r in v], [r.duplicate for r in v])
            for k, v in sorted(by_source.items())
        },
    }


def format_report(summary: dict[str, Any], scorer: str, threshold: float) -> str:
    """The report as the text `jobdedup evaluate` prints."""
    o = summary["overall"]
    lines = [
        f"scorer {scorer}  threshold {threshold:.4f}  labelled pairs {o['pairs']}",
        f"precision {o['precision']:.3f}  recall {o['recall']:.3f}  F1 {o['f1']:.3f}  "
        f"ROC-AUC {o['roc_auc']:.3f}  PR-AUC {o['pr_auc']:.3f}",
        "confusion matrix (rows: gold, columns: predicted)",
        "                 duplicate  not_duplicate",
        f"  duplicate      {o['tp']:9d}  {o['fn']:13d}",
        f"  not_duplicate  {o['fp']:9d}  {o['tn']:13d}",
        "duplicates by type (recall)",
    ]
    for name, row in summary["duplicates_by_type"].items():
        lines.append(f"  {name:28s} {row['recall']:.3f}  ({row['pairs']} pairs)")
    lines.append("non-duplicates by reason (false positive rate)")
    for name, row in summary["non_duplicates_by_reason"].items():
        lines.append(f"  {name:28s} {row['false_positive_rate']:.3f}  ({row['pairs']} pairs)")
    lines.append("by source (precision / recall / F1)")
    for name, row in summary["by_source"].items():
        lines.append(f"  {name:28s} {row['precision']:.3f} / {row['recall']:.3f} / {row['f1']:.3f}")
    return "\n".join(lines)
