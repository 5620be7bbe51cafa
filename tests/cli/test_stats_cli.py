"""`jobdedup stats` against `jobdedup export`: the same index, figures computed two ways.

The statistics are computed here a second time, independently of the index's SQL: from the
export lines (a duplicate is a posting with a `duplicate_of`), the input file (posted_at,
source) and the decisions `ingest --out` wrote (types). A few postings are also placed in
their buckets by hand.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.cli import main
from tests.api.postings import (
    ACCOUNT_EXECUTIVE,
    BARISTA,
    DATA_ENGINEER,
    DATA_ENGINEER_REPOST,
    STAFF_NURSE,
    WAREHOUSE_OPERATIVE,
    posting,
)

POSTINGS = [
    DATA_ENGINEER,  # indeed, Fri 03-01
    DATA_ENGINEER_REPOST,  # linkedin, Mon 03-04: a duplicate
    ACCOUNT_EXECUTIVE,  # indeed, Sat 03-02
    posting(ACCOUNT_EXECUTIVE, id="totaljobs-9", source="totaljobs", posted_at="2024-04-15"),
    STAFF_NURSE,  # nhsjobs, 02-20
    posting(STAFF_NURSE, id="indeed-5501", source="indeed", posted_at="2024-02-21T12:00:00Z"),
    WAREHOUSE_OPERATIVE,  # reed, 03-05
    BARISTA,  # reed, Wed 03-06: decided new ...
    # ... then this earlier copy (Sunday night) arrives: it becomes the canonical and the
    # reed posting a duplicate whose decision has no type
    posting(BARISTA, id="linkedin-3004", source="linkedin", posted_at="2024-03-03T23:59:59Z"),
]
TYPES = ["full", "semantic", "temporal", "partial", "unknown"]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _monday(posted_at: str) -> str:
    day = date.fromisoformat(posted_at[:10])
    return (day - timedelta(days=day.weekday())).isoformat()


@pytest.fixture
def index(tmp_path: Path) -> tuple[Path, list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """An index of POSTINGS; its export lines and the decisions by id."""
    source = tmp_path / "postings.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in POSTINGS), encoding="utf-8")
    data = tmp_path / "index"
    decisions = tmp_path / "decisions.jsonl"
    exported = tmp_path / "export.jsonl"
    ingest = ["ingest", str(source), "--no-progress", "--data-dir", str(data)]
    assert main([*ingest, "--out", str(decisions)]) == 0
    assert main(["export", "--data-dir", str(data), "--out", str(exported)]) == 0
    return data, _jsonl(exported), {d["id"]: d for d in _jsonl(decisions)}


def _stats(data: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    capsys.readouterr()
    assert main(["stats", "--data-dir", str(data), *flags]) == 0
    return capsys.readouterr().out


def test_weekly_stats_by_source_equal_counts_from_the_export(
    index: tuple[Path, list[dict[str, Any]], dict[str, dict[str, Any]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    data, exported, decisions = index
    given = {p["id"]: p for p in POSTINGS}

    rows = list(csv.DictReader(io.StringIO(_stats(data, capsys, "--by", "source"))))

    expected: dict[tuple[str, str], Counter[str]] = {}
    for line in exported:
        item = given[line["id"]]
        tally = expected.setdefault((_monday(item["posted_at"]), item["source"]), Counter())
        tally["postings"] += 1
        if line["duplicate_of"] is None:
            tally["distinct"] += 1
        else:
            tally[decisions[line["id"]]["duplicate_type"] or "unknown"] += 1
    got = {
        (row["bucket"], row["group"]): Counter(
            {k: int(row[k]) for k in ("postings", "distinct", *TYPES) if int(row[k])}
        )
        for row in rows
    }
    assert got == expected
    for row in rows:
        duplicates = int(row["postings"]) - int(row["distinct"])
        assert int(row["duplicates"]) == duplicates == sum(int(row[k]) for k in TYPES)
        assert float(row["duplicate_rate"]) == pytest.approx(duplicates / int(row["postings"]))
    # by hand: Friday 03-01 is in the week of Monday 02-26, Sunday 03-03 23:59:59 too, and
    # the repost of Monday 03-04 14:30 opens the next week
    by_key = {(row["bucket"], row["group"]): row for row in rows}
    assert by_key[("2024-02-26", "indeed")]["postings"] == "2"  # indeed-1001, indeed-1002
    assert by_key[("2024-02-26", "linkedin")]["distinct"] == "1"  # linkedin-3004
    assert by_key[("2024-03-04", "linkedin")]["full"] == "1"  # linkedin-77
    reed = by_key[("2024-03-04", "reed")]
    assert (reed["postings"], reed["distinct"], reed["unknown"]) == ("2", "1", "1")
    assert by_key[("2024-04-15", "totaljobs")]["temporal"] == "1"
    assert len(rows) == 7


def test_json_and_overlap_tables(
    index: tuple[Path, list[dict[str, Any]], dict[str, dict[str, Any]]],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    data, exported, _ = index
    given = {p["id"]: p for p in POSTINGS}
    out = tmp_path / "stats.json"

    _stats(data, capsys, "--format", "json", "--interval", "month", "--out", str(out))
    body = json.loads(out.read_text(encoding="utf-8"))
    overlap = list(csv.reader(io.StringIO(_stats(data, capsys, "--overlap"))))

    assert [(b["start"], b["postings"], b["distinct"]) for b in body["buckets"]] == [
        ("2024-02-01T00:00:00Z", 2, 1),
        ("2024-03-01T00:00:00Z", 6, 4),
        ("2024-04-01T00:00:00Z", 1, 0),
    ]
    clusters: dict[str, set[str]] = {}
    for line in exported:
        clusters.setdefault(line["cluster_id"], set()).add(given[line["id"]]["source"])
    per_source = Counter(s for sources in clusters.values() for s in sources)
    pairs = Counter(
        (a, b) for sources in clusters.values() for a in sources for b in sources if a < b
    )
    assert {s["source"]: s["clusters"] for s in body["sources"]} == per_source
    assert {(o["a"], o["b"]): o["clusters"] for o in body["overlap"]} == pairs
    assert overlap[0] == ["source_a", "source_b", "clusters"]
    assert {(a, b): int(n) for a, b, n in overlap[1:] if a == b} == {
        (s, s): n for s, n in per_source.items()
    }
    assert {(a, b): int(n) for a, b, n in overlap[1:] if a != b} == pairs


def test_window_and_bad_options(
    index: tuple[Path, list[dict[str, Any]], dict[str, dict[str, Any]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    data, _, _ = index

    window = ["--since", "2024-03-04", "--until", "2024-03-06", "--interval", "day"]
    rows = list(csv.DictReader(io.StringIO(_stats(data, capsys, *window))))

    # linkedin-77 (03-04 14:30) and reed-3003 (03-05 08:00); reed-3004 (03-06) is out
    assert [(r["bucket"], r["postings"], r["distinct"]) for r in rows] == [
        ("2024-03-04", "1", "0"),
        ("2024-03-05", "1", "1"),
    ]
    backwards = ["--since", "2024-03-06", "--until", "2024-03-01"]
    assert main(["stats", "--data-dir", str(data), *backwards]) == 2
    assert "since must not be after until" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["stats", "--data-dir", str(data), "--interval", "year"])


def test_stats_of_a_missing_index_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stats", "--data-dir", str(tmp_path / "nothing")]) == 1
    assert "no index" in capsys.readouterr().err
