"""`train(feedback_pairs=...)` fits with and without the analysts' labels on one split and
reports both: the figures move when the labels say something the generated pairs do not."""

from __future__ import annotations

import json
from pathlib import Path
from statistics import mean
from typing import Any

import pytest

from classifier.feedback_effect import format_feedback_effect
from classifier.model import METADATA_FILE, load_model
from classifier.train import split, train
from tests.classifier.feedback_pairs import MOVED, feedback_labels, training_pairs

SEED = 3


def _gold(labels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Gold-dev pairs: two that are also feedback pairs (sides swapped for one), two not."""
    first, second = labels[0], labels[-1]
    fresh = [p["b"] for p in labels[MOVED : MOVED + 2]]
    return [
        {"pair_id": "g1", "a": first["a"], "b": first["b"], "label": "duplicate"},
        {"pair_id": "g2", "a": second["b"], "b": second["a"], "label": "not_duplicate"},
        {"pair_id": "g3", "a": fresh[0], "b": {**fresh[0], "id": "g3"}, "label": "duplicate"},
        {"pair_id": "g4", "a": fresh[0], "b": fresh[1], "label": "not_duplicate"},
    ]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("feedback")
    (root / "gold-dev").mkdir()
    gold = "".join(json.dumps(p) + "\n" for p in _gold(feedback_labels()))
    (root / "gold-dev" / "pairs.jsonl").write_text(gold, encoding="utf-8")
    metrics = train(
        root / "model",
        seed=SEED,
        pairs=training_pairs(),
        data_dir=root,
        workers=1,
        feedback_pairs=feedback_labels(),
    )
    return root / "model", metrics


def test_the_labels_change_how_their_pattern_is_scored(
    trained: tuple[Path, dict[str, Any]],
) -> None:
    effect = trained[1]["feedback_effect"]
    contradicting = [p for p in effect["pairs"] if p["label"] == "duplicate"]
    assert len(contradicting) == MOVED
    without = mean(p["without"] for p in contradicting)
    assert without < 0.5  # the generated pairs taught: another town, another vacancy
    assert mean(p["cross_validated"] for p in contradicting) > without + 0.3
    assert mean(p["with_trained_on_it"] for p in contradicting) > without + 0.3
    row = effect["feedback"]
    assert row["with"]["recall"] > row["without"]["recall"]
    assert row["note"].startswith("with: 5-fold cross-validated")


def test_both_models_are_judged_on_fold_zeros_held_out_pairs(
    trained: tuple[Path, dict[str, Any]],
) -> None:
    metrics = trained[1]
    held = metrics["feedback_effect"]["held_out"]
    first_fold = len(split(training_pairs(), SEED)[1])  # feedback pairs are never held out
    assert held["without"]["n"] == held["with"]["n"] == first_fold
    assert held["without"]["positives"] == held["with"]["positives"]
    assert first_fold < metrics["pairs"]["held_out"]  # the artifact's figures pool five folds


def test_the_artifact_is_the_model_with_feedback_and_stores_the_comparison(
    trained: tuple[Path, dict[str, Any]],
) -> None:
    directory, metrics = trained
    stored = json.loads((directory / METADATA_FILE).read_text())["metrics"]["feedback_effect"]
    effect = metrics["feedback_effect"]
    assert stored["thresholds"] == effect["thresholds"]
    assert load_model(directory).threshold == metrics["threshold"]  # the five folds' choice
    assert len(effect["thresholds"]["cross_validated_folds"]) == 5
    assert effect["feedback_pairs"] == len(feedback_labels())
    assert effect["feedback_duplicates"] == MOVED


def test_gold_dev_pairs_that_are_also_feedback_are_left_out(
    trained: tuple[Path, dict[str, Any]],
) -> None:
    gold = trained[1]["feedback_effect"]["gold_dev"]
    assert gold["without"]["n"] == gold["with"]["n"] == 2
    assert gold["note"] == "2 of 4 gold-dev pairs left out: also feedback"
    assert trained[1]["gold_dev"]["overall"]["n"] == 4  # the artifact's own report: all of it


def test_the_table_names_each_row_and_model(trained: tuple[Path, dict[str, Any]]) -> None:
    table = format_feedback_effect(trained[1]["feedback_effect"])
    lines = table.splitlines()
    assert "without feedback" in lines[1] and "with feedback" in lines[1]
    for name in ("held-out", "gold-dev", "feedback pairs"):
        row = next(line for line in lines if line.startswith(name))
        assert len(row.split()) == len(name.split()) + 1 + 8  # pairs, then P R F1 AUC twice
    assert "thresholds (chosen on held-out per model)" in table


def test_too_few_labels_of_a_class_are_not_cross_validated(tmp_path: Path) -> None:
    labels = feedback_labels()[: MOVED + 1]  # one not-duplicate label only
    effect = train(
        tmp_path / "model",
        seed=SEED,
        pairs=training_pairs(),
        data_dir=tmp_path,
        workers=1,
        feedback_pairs=labels,
    )["feedback_effect"]
    assert effect["feedback"]["with"] is None
    note = effect["feedback"]["note"]
    assert "at least 2 feedback pairs of each class (have 10 duplicate, 1 not" in note
    assert effect["gold_dev"] == {
        "without": None,
        "with": None,
        "note": "no gold-dev file in the corpora",
    }
    assert all(p["cross_validated"] is None for p in effect["pairs"])
    assert "feedback pairs" in format_feedback_effect(effect)


def test_without_feedback_there_is_no_comparison(tmp_path: Path) -> None:
    metrics = train(
        tmp_path / "model", seed=SEED, pairs=training_pairs(), data_dir=tmp_path, workers=1
    )
    assert "feedback_effect" not in metrics
