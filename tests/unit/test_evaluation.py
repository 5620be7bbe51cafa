"""The metrics `jobdedup evaluate` prints, on hand-computed cases."""

from __future__ import annotations

import math

from classifier.evaluation import (
    average_precision,
    best_f1_threshold,
    binary_metrics,
    roc_auc,
)


def test_roc_auc_counts_ranked_pairs_and_half_ties() -> None:
    assert roc_auc([True, False], [0.9, 0.1]) == 1.0
    assert roc_auc([True, False], [0.1, 0.9]) == 0.0
    assert roc_auc([True, False, False], [0.5, 0.5, 0.1]) == 0.75
    assert math.isnan(roc_auc([True, True], [0.1, 0.2]))


def test_average_precision_breaks_ties_pessimistically() -> None:
    assert average_precision([True, False, True], [0.9, 0.8, 0.7]) == (1 + 2 / 3) / 2
    # A constant scorer ranks the negatives first: no credit for luck.
    assert average_precision([False, True], [0.5, 0.5]) == 0.5


def test_binary_metrics_confusion_and_scores() -> None:
    m = binary_metrics([True, True, False, False], [True, False, True, False])
    assert (m["tp"], m["fn"], m["fp"], m["tn"]) == (1, 1, 1, 1)
    assert m["precision"] == m["recall"] == m["f1"] == 0.5


def test_best_f1_threshold_takes_the_lowest_of_the_best() -> None:
    labels = [True, True, False, False]
    scores = [0.9, 0.8, 0.6, 0.2]
    # Any threshold in (0.6, 0.8] gives F1 1.0; the lowest score reaching it is 0.8.
    assert best_f1_threshold(labels, scores) == (0.8, 1.0)
