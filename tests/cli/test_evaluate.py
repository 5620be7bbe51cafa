"""`jobdedup evaluate`: metrics on labelled pairs and one prediction per pair."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from service.cli import main
from tests.api.postings import ACCOUNT_EXECUTIVE, DATA_ENGINEER, DATA_ENGINEER_REPOST


def _write(path: Path, lines: list[Any]) -> Path:
    path.write_text(
        "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines),
        encoding="utf-8",
    )
    return path


def _predictions(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


PAIRS = [
    {
        "pair_id": "dup",
        "a": DATA_ENGINEER_REPOST,
        "b": DATA_ENGINEER,
        "label": "duplicate",
        "type": "full",
    },
    {
        "pair_id": "other",
        "a": ACCOUNT_EXECUTIVE,
        "b": DATA_ENGINEER,
        "label": "not_duplicate",
        "reason": "shared_boilerplate_only",
    },
]


@pytest.mark.parametrize("scorer", ["lightgbm", "overlap"])
def test_labelled_pairs_print_metrics_and_write_predictions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scorer: str
) -> None:
    pairs = _write(tmp_path / "pairs.jsonl", PAIRS)
    out = tmp_path / "pred.jsonl"

    assert main(["evaluate", str(pairs), "--predictions", str(out), "--scorer", scorer]) == 0

    printed = capsys.readouterr().out
    assert f"scorer {scorer}" in printed
    for heading in ("precision 1.000  recall 1.000  F1 1.000", "confusion matrix"):
        assert heading in printed
    assert "full" in printed and "shared_boilerplate_only" in printed
    predictions = _predictions(out)
    assert [p["pair_id"] for p in predictions] == ["dup", "other"]
    assert all(set(p) == {"pair_id", "probability", "duplicate", "type"} for p in predictions)
    assert predictions[0]["duplicate"] is True and predictions[0]["type"] is not None
    assert predictions[1]["duplicate"] is False and predictions[1]["type"] is None
    assert predictions[0]["probability"] > predictions[1]["probability"]


def test_unlabelled_pairs_are_scored_without_metrics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unlabelled = [{k: v for k, v in p.items() if k not in ("label", "type")} for p in PAIRS]
    out = tmp_path / "pred.jsonl"

    assert (
        main(["evaluate", str(_write(tmp_path / "p.jsonl", unlabelled)), "--predictions", str(out)])
        == 0
    )

    assert "scored 2 unlabelled pairs" in capsys.readouterr().out
    assert len(_predictions(out)) == 2


def test_off_schema_sides_are_scored_and_bad_lines_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd_a = {k: v for k, v in DATA_ENGINEER_REPOST.items() if k != "id"}
    odd_a["employer"] = "ACME"  # not a schema field: kept under extra, the pair still scored
    lines: list[Any] = [
        {"pair_id": "odd", "a": odd_a, "b": DATA_ENGINEER, "label": "duplicate"},
        "not json",
        {"pair_id": "one-sided", "a": DATA_ENGINEER},
    ]
    out = tmp_path / "pred.jsonl"

    assert (
        main(["evaluate", str(_write(tmp_path / "p.jsonl", lines)), "--predictions", str(out)]) == 0
    )

    errors = capsys.readouterr().err
    assert "line 1: posting a does not fit the schema" in errors
    assert "line 2:" in errors and "line 3:" in errors
    assert [p["pair_id"] for p in _predictions(out)] == ["odd"]
    assert _predictions(out)[0]["duplicate"] is True


def test_missing_file_exits_2(tmp_path: Path) -> None:
    assert main(["evaluate", str(tmp_path / "nope.jsonl")]) == 2
