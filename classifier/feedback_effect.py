"""How the analysts' labelled pairs change the model: `jobdedup train --with-feedback`.

The features of one training run are computed once (the expensive part) and fitted again
without the feedback rows, on the same split (fits take seconds), so the held-out and gold-dev
figures of the two models differ by the labels alone. The feedback pairs themselves are judged
twice: by the model that never saw them, and by k-fold cross-validation (each fold scored by
a model trained with the other folds' feedback), since the shipped model has them in its
training set and its own score on them says nothing about new pairs.

Both models are fitted on fold 0's training split of `classifier.train.cross_fitted`, and
every figure is taken at the threshold its model chose on fold 0's held-out split (the F1
rule of `classifier.train.THRESHOLD_RULE`), as the service would run that model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import lightgbm as lgb
import numpy as np
import numpy.typing as npt

from classifier.pairs import PairExample
from classifier.train import (
    FEEDBACK_WEIGHT,
    _auc,
    _metrics,
    fit,
    gold_report,
    held_out_threshold,
)
from indexer.minhash import SketchParams

MAX_FOLDS = 5
MIN_PER_CLASS = 2
"""Fewer labelled pairs of a class than this leave a fold model nothing of it to learn from."""

Predict = Callable[[npt.NDArray[np.float64]], npt.NDArray[np.float64]]


@dataclass(frozen=True)
class TrainingRows:
    """The feature rows of one training run (all pairs, feedback included) and its split."""

    matrix: npt.NDArray[np.float64]
    labels: npt.NDArray[np.float64]
    weights: npt.NDArray[np.float64]
    train_idx: Sequence[int]
    held_idx: Sequence[int]
    pairs: Sequence[PairExample]


@dataclass(frozen=True)
class Fitted:
    """A booster with the threshold it chose on fold 0's held-out split, and its scores there."""

    booster: lgb.Booster
    threshold: float
    held_scores: npt.NDArray[np.float64]


def compare_feedback(
    rows: TrainingRows,
    with_booster: lgb.Booster,
    seed: int,
    gold: Sequence[Mapping[str, Any]] | None,
    params: SketchParams,
    boilerplate: bool = True,
) -> dict[str, Any]:
    """The with/without-feedback comparison stored as the artifact's "feedback_effect".

    `with_booster` is the model fitted on all of `rows.train_idx` (fold 0's model of
    `classifier.train.cross_fitted`; the artifact is that fit on every pair); the model
    without feedback is fitted here on the same rows minus the feedback pairs. Rows of the
    result: "held_out", "gold_dev" (gold pairs that are also feedback pairs left out: the
    with-feedback model trained on them) and "feedback" (without: the model that never saw
    them; with: cross-validated), each {"without", "with": `_metrics` or None, "note"}; plus
    the thresholds and one score line per feedback pair (ids only, no posting text).
    """
    feedback = [i for i in rows.train_idx if rows.pairs[i].kind == "feedback"]
    base = [i for i in rows.train_idx if rows.pairs[i].kind != "feedback"]
    held_labels = rows.labels[rows.held_idx].astype(np.int64)
    without = _fitted(rows, fit(*_training(rows, base), seed))
    with_ = _fitted(rows, with_booster)
    feedback_labels = rows.labels[feedback].astype(np.int64)
    without_scores = _predictor(without.booster)(rows.matrix[feedback])
    with_scores = _predictor(with_.booster)(rows.matrix[feedback])
    cross = _cross_validate(rows, base, feedback, seed)
    return {
        "feedback_pairs": len(feedback),
        "feedback_duplicates": int(feedback_labels.sum()),
        "feedback_weight": FEEDBACK_WEIGHT,
        "thresholds": {
            "without": round(without.threshold, 6),
            "with": round(with_.threshold, 6),
            "cross_validated_folds": [] if isinstance(cross, str) else cross.fold_thresholds,
            "rule": "each model's own, chosen on fold 0's held-out split (THRESHOLD_RULE's F1 "
            "rule); a cross-validated pair is judged at the threshold of the fold model that "
            "scored it",
        },
        "held_out": {
            "without": _metrics(held_labels, without.held_scores, without.threshold),
            "with": _metrics(held_labels, with_.held_scores, with_.threshold),
            "note": "the same held-out pairs for both models",
        },
        "gold_dev": _gold_row(gold, rows, feedback, without, with_, params, boilerplate),
        "feedback": {
            "without": _metrics(feedback_labels, without_scores, without.threshold),
            "with": None if isinstance(cross, str) else cross.metrics(feedback_labels),
            "note": cross
            if isinstance(cross, str)
            else f"with: {len(cross.fold_thresholds)}-fold cross-validated (each fold scored "
            "by a model trained with the other folds' feedback)",
        },
        "pairs": [
            {
                "a": str(rows.pairs[i].a.get("id", "")),
                "b": str(rows.pairs[i].b.get("id", "")),
                "label": "duplicate" if label else "not_duplicate",
                "without": round(float(score), 4),
                "cross_validated": None
                if isinstance(cross, str)
                else round(float(cross.scores[n]), 4),
                "with_trained_on_it": round(float(trained), 4),
            }
            for n, (i, label, score, trained) in enumerate(
                zip(feedback, feedback_labels, without_scores, with_scores, strict=True)
            )
        ],
    }


def format_feedback_effect(effect: Mapping[str, Any]) -> str:
    """The comparison as a small text table (P, R, F1, ROC-AUC per row and model)."""
    columns = f"{'P':>6} {'R':>6} {'F1':>6} {'AUC':>6}"
    lines = [
        f"feedback: {effect['feedback_pairs']} labelled pairs "
        f"({effect['feedback_duplicates']} duplicates), weight {effect['feedback_weight']:g}",
        f"{'':<15}{'pairs':>6}   {'without feedback':<27}   with feedback",
        f"{'':<15}{'':>6}   {columns}   {columns}",
    ]
    notes = []
    for key, name in (
        ("held_out", "held-out"),
        ("gold_dev", "gold-dev"),
        ("feedback", "feedback pairs"),
    ):
        row = effect[key]
        counted = row["without"] or row["with"]
        pairs = str(counted["n"]) if counted else "-"
        lines.append(
            f"{name:<15}{pairs:>6}   {_cells(row['without'])}   {_cells(row['with'])}".rstrip()
        )
        notes.append(f"  {name}: {row['note']}")
    thresholds = effect["thresholds"]
    notes.append(
        f"  thresholds (chosen on held-out per model): without {thresholds['without']:.4f}, "
        f"with {thresholds['with']:.4f}"
        + (
            ", folds " + " ".join(f"{t:.4f}" for t in thresholds["cross_validated_folds"])
            if thresholds["cross_validated_folds"]
            else ""
        )
    )
    return "\n".join([*lines, *notes])


def _cells(metrics: Mapping[str, Any] | None) -> str:
    if metrics is None:
        return f"{'-':>6} {'-':>6} {'-':>6} {'-':>6}"
    return " ".join(
        f"{'-':>6}" if _missing(metrics[k]) else f"{metrics[k]:>6.3f}"
        for k in ("precision", "recall", "f1", "roc_auc")
    )


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _training(
    rows: TrainingRows, indices: Sequence[int]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    return rows.matrix[indices], rows.labels[indices], rows.weights[indices]


def _predictor(booster: lgb.Booster) -> Predict:
    def predict(matrix: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        if not len(matrix):
            return np.empty(0, dtype=np.float64)
        return np.asarray(booster.predict(matrix, num_threads=1), dtype=np.float64)

    return predict


def _fitted(rows: TrainingRows, booster: lgb.Booster) -> Fitted:
    scores = _predictor(booster)(rows.matrix[rows.held_idx])
    threshold, _ = held_out_threshold(rows.labels[rows.held_idx].astype(np.int64), scores)
    return Fitted(booster, threshold, scores)


def _folds(labels: npt.NDArray[np.int64], k: int, seed: int) -> npt.NDArray[np.int64]:
    """Fold of each pair: seeded, dealt class by class so each fold gets its share of both."""
    rng = np.random.default_rng(seed)
    folds = np.empty(len(labels), dtype=np.int64)
    dealt = 0
    for label in (1, 0):
        members = np.flatnonzero(labels == label)
        rng.shuffle(members)
        folds[members] = (np.arange(len(members)) + dealt) % k
        dealt += len(members)
    return folds


@dataclass(frozen=True)
class CrossValidated:
    """Each feedback pair's score by the fold model that did not train on it, and that
    model's held-out threshold."""

    scores: npt.NDArray[np.float64]
    thresholds: npt.NDArray[np.float64]
    fold_thresholds: list[float]

    def metrics(self, labels: npt.NDArray[np.int64]) -> dict[str, Any]:
        """`_metrics` of the pooled folds: each decision at its fold model's threshold (the
        margin above it, judged at 0), ROC-AUC over the pooled probabilities."""
        result = _metrics(labels, self.scores - self.thresholds, 0.0)
        result["roc_auc"] = round(_auc(labels, self.scores), 4)
        return result


def _cross_validate(
    rows: TrainingRows, base: Sequence[int], feedback: Sequence[int], seed: int
) -> CrossValidated | str:
    """k-fold scores of the feedback pairs, or why they are not computed."""
    labels = rows.labels[feedback].astype(np.int64)
    duplicates, others = int(labels.sum()), int(len(labels) - labels.sum())
    if min(duplicates, others) < MIN_PER_CLASS:
        return (
            f"with: not cross-validated, it needs at least {MIN_PER_CLASS} feedback pairs of "
            f"each class (have {duplicates} duplicate, {others} not duplicate)"
        )
    k = min(MAX_FOLDS, len(feedback))
    folds = _folds(labels, k, seed)
    scores = np.empty(len(feedback), dtype=np.float64)
    thresholds = np.empty(len(feedback), dtype=np.float64)
    fold_thresholds: list[float] = []
    rows_of = np.asarray(feedback, dtype=np.int64)
    for fold in range(k):
        kept = [*base, *rows_of[folds != fold].tolist()]
        model = _fitted(rows, fit(*_training(rows, kept), seed))
        scores[folds == fold] = _predictor(model.booster)(rows.matrix[rows_of[folds == fold]])
        thresholds[folds == fold] = model.threshold
        fold_thresholds.append(round(model.threshold, 6))
    return CrossValidated(scores, thresholds, fold_thresholds)


def _gold_row(
    gold: Sequence[Mapping[str, Any]] | None,
    rows: TrainingRows,
    feedback: Sequence[int],
    without: Fitted,
    with_: Fitted,
    params: SketchParams,
    boilerplate: bool,
) -> dict[str, Any]:
    if gold is None:
        return {"without": None, "with": None, "note": "no gold-dev file in the corpora"}
    taken = {_pair_key(rows.pairs[i].a, rows.pairs[i].b) for i in feedback}
    kept = [pair for pair in gold if _pair_key(pair["a"], pair["b"]) not in taken]
    note = f"{len(gold) - len(kept)} of {len(gold)} gold-dev pairs left out: also feedback"
    if not kept:
        return {"without": None, "with": None, "note": note}
    return {
        "without": gold_report(
            kept, _predictor(without.booster), without.threshold, params, boilerplate
        )["overall"],
        "with": gold_report(kept, _predictor(with_.booster), with_.threshold, params, boilerplate)[
            "overall"
        ],
        "note": note,
    }


def _pair_key(a: Mapping[str, Any], b: Mapping[str, Any]) -> frozenset[str]:
    return frozenset((str(a.get("id", "")), str(b.get("id", ""))))
