"""`jobdedup train --with-feedback`: labels stored through the service are read from the index,
and the effect of training on them is printed and written with `--report`.

The real corpora take minutes to turn into training pairs, so `corpus_pairs` gives the small
generated set of the classifier tests as its one draw; everything else (service, index, CLI,
training, artifact) is the real thing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.api import create_app
from service.cli import main
from service.settings import Settings
from tests.classifier.feedback_pairs import MOVED, ads, moved, training_pairs


@pytest.fixture(autouse=True)
def _small_corpora(monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = training_pairs()
    monkeypatch.setattr("classifier.train.corpus_pairs", lambda *_: [pairs])


def _store_feedback(data_dir: Path) -> int:
    """Index moved copies of fixture ads through POST /dedup and label them duplicate, and
    two pairs of two employers' ads not duplicate, through POST /feedback; returns the count."""
    documents = [ad.document for ad in ads()[4:]]
    labels = [(d, moved(d, i), "duplicate") for i, d in enumerate(documents[:3])]
    labels += [(documents[MOVED + i], documents[MOVED + 2 + i], "not_duplicate") for i in (0, 1)]
    with TestClient(create_app(Settings(data_dir=data_dir))) as client:
        for a, b, label in labels:
            for posting in (a, b):
                assert client.post("/dedup", json=posting).status_code == 200
            response = client.post(
                "/feedback", json={"a_id": a["id"], "b_id": b["id"], "label": label}
            )
            assert response.json()["stored"] is True
    return len(labels)


def _train(tmp_path: Path, *extra: str) -> int:
    return main(
        [
            "train",
            "--with-feedback",
            "--data-dir",
            str(tmp_path / "index"),
            "--output",
            str(tmp_path / "model"),
            "--corpora",
            str(tmp_path / "corpora"),
            *extra,
        ]
    )


def test_train_with_feedback_prints_the_comparison_and_writes_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stored = _store_feedback(tmp_path / "index")
    assert _train(tmp_path, "--report", str(tmp_path / "report.json")) == 0
    err = capsys.readouterr().err
    assert f"training with {stored} feedback labels" in err
    assert "without feedback" in err and "with feedback" in err
    for name in ("held-out", "gold-dev", "feedback pairs"):
        assert any(line.startswith(name) for line in err.splitlines()), name
    report: dict[str, Any] = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    effect = report["feedback_effect"]
    assert effect["feedback_pairs"] == stored
    assert effect["held_out"]["with"]["n"] < report["held_out"]["n"]  # one fold of five
    assert len(effect["thresholds"]["cross_validated_folds"]) == stored  # k = min(5, pairs)
    assert (tmp_path / "model" / "model.txt").exists()


def test_train_with_no_feedback_stored_says_so_and_trains_as_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with TestClient(create_app(Settings(data_dir=tmp_path / "index"))):
        pass  # an empty index
    assert _train(tmp_path, "--report", str(tmp_path / "report.json")) == 0
    err = capsys.readouterr().err
    assert "no feedback labels stored in the index: training without" in err
    assert "without feedback" not in err
    assert "feedback_effect" not in json.loads((tmp_path / "report.json").read_text())
