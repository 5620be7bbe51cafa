"""`jobdedup ingest | export`: the same pipeline as the API, driven from JSONL files."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.api import create_app
from service.cli import main
from service.schemas import DedupResult
from service.settings import Settings
from tests.api.postings import (
    ACCOUNT_EXECUTIVE,
    DATA_ENGINEER,
    DATA_ENGINEER_REPOST,
    STAFF_NURSE,
    WAREHOUSE_OPERATIVE,
    generated_text,
    posting,
)

REPO = Path(__file__).resolve().parents[2]
VALID = [DATA_ENGINEER, DATA_ENGINEER_REPOST, ACCOUNT_EXECUTIVE, WAREHOUSE_OPERATIVE]
LINES = [
    json.dumps(DATA_ENGINEER),  # 1
    '{"id": "broken", "title": ',  # 2: not JSON
    json.dumps(DATA_ENGINEER_REPOST),  # 3
    json.dumps(posting(STAFF_NURSE, title=None)),  # 4: valid JSON, invalid posting
    "",  # 5: blank lines are skipped silently
    json.dumps(ACCOUNT_EXECUTIVE),  # 6
    json.dumps(WAREHOUSE_OPERATIVE, ensure_ascii=False),  # 7
]
EXPORTED = [
    {"id": "indeed-1001", "cluster_id": "indeed-1001", "duplicate_of": None},
    {"id": "indeed-1002", "cluster_id": "indeed-1002", "duplicate_of": None},
    {"id": "linkedin-77", "cluster_id": "indeed-1001", "duplicate_of": "indeed-1001"},
    {"id": "reed-3003", "cluster_id": "reed-3003", "duplicate_of": None},
]
SUMMARY = re.compile(
    r"postings 4 +new 3 +duplicates 1 +updated 0 +unchanged 0 +invalid lines 2 +clusters 3 "
    r"+elapsed [\d.]+s +rate \d+ postings/s"
)


@pytest.fixture
def postings_file(tmp_path: Path) -> Path:
    path = tmp_path / "postings.jsonl"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _ingest(postings_file: Path, *flags: str) -> int:
    return main(["ingest", str(postings_file), "--no-progress", *flags])


def test_ingest_reports_invalid_lines_and_writes_one_decision_per_posting(
    postings_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out" / "decisions.jsonl"

    code = _ingest(postings_file, "--data-dir", str(tmp_path / "index"), "--out", str(out))

    assert code == 0
    stderr = capsys.readouterr().err
    assert re.search(r"^line 2: invalid JSON", stderr, re.MULTILINE)
    assert re.search(r"^line 4: invalid posting: title", stderr, re.MULTILINE)
    assert "line 5" not in stderr
    assert SUMMARY.search(stderr), stderr
    decisions = _read_jsonl(out)
    assert [d["id"] for d in decisions] == [p["id"] for p in VALID]
    for decision in decisions:
        # Every /dedup field; `explanation` appears only with ?explain=true.
        assert set(decision) == set(DedupResult.model_fields) - {"explanation"}
        DedupResult.model_validate(decision)
    assert [d["status"] for d in decisions] == ["new", "duplicate", "new", "new"]
    assert decisions[1]["duplicate_of"] == "indeed-1001"
    assert decisions[1]["cluster_id"] == "indeed-1001"
    assert [c["id"] for c in decisions[1]["candidates"]] == ["indeed-1001"]


def test_ingest_says_how_many_postings_had_no_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An undated posting takes its receipt time: in a batch of 2024 ads it meets none of
    # them, and the user is told rather than left to wonder why its copy stayed apart.
    undated = {k: v for k, v in DATA_ENGINEER_REPOST.items() if k != "posted_at"}
    path = tmp_path / "mixed.jsonl"
    path.write_text(f"{json.dumps(DATA_ENGINEER)}\n{json.dumps(undated)}\n", encoding="utf-8")

    assert _ingest(path, "--data-dir", str(tmp_path / "index"), "--out", str(tmp_path / "o")) == 0

    stderr = capsys.readouterr().err
    assert re.search(r"^postings 2  new 2  duplicates 0 ", stderr, re.MULTILINE), stderr
    assert "undated 1: postings with no posted_at took the time they were received" in stderr
    assert "within 60 days" in stderr
    # with no window the receipt time keeps nothing apart, and nothing is said
    path.write_text(f"{json.dumps(undated)}\n", encoding="utf-8")
    assert _ingest(path, "--data-dir", str(tmp_path / "i2"), "--window-days", "0") == 0
    assert "undated" not in capsys.readouterr().err


def test_export_gives_one_line_per_indexed_posting(
    postings_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "index")
    assert _ingest(postings_file, "--data-dir", index) == 0
    exported = tmp_path / "export.jsonl"

    assert main(["export", "--data-dir", index, "--out", str(exported)]) == 0

    assert _read_jsonl(exported) == EXPORTED
    assert "exported 4 postings" in capsys.readouterr().err


def test_export_to_stdout(
    postings_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "index")
    assert _ingest(postings_file, "--data-dir", index) == 0
    capsys.readouterr()

    assert main(["export", "--data-dir", index]) == 0

    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line) for line in lines] == EXPORTED


def test_ingesting_the_same_file_again_changes_nothing(
    postings_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "index")
    out = tmp_path / "again.jsonl"
    assert _ingest(postings_file, "--data-dir", index) == 0

    assert _ingest(postings_file, "--data-dir", index, "--out", str(out)) == 0

    decisions = _read_jsonl(out)
    assert [d["status"] for d in decisions] == ["unchanged"] * 4
    assert decisions[1]["duplicate_of"] == "indeed-1001"
    assert "postings 4  new 0  duplicates 0  updated 0  unchanged 4" in capsys.readouterr().err


def test_dry_run_ingest_decides_but_stores_nothing(
    postings_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "index")
    out = tmp_path / "dry.jsonl"

    assert _ingest(postings_file, "--data-dir", index, "--dry-run", "--out", str(out)) == 0

    assert [d["status"] for d in _read_jsonl(out)] == ["new", "new", "new", "new"]
    capsys.readouterr()
    assert main(["export", "--data-dir", index]) == 0
    assert capsys.readouterr().out == ""


def test_data_dir_from_the_environment_is_shared_by_ingest_and_export(
    postings_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    index = tmp_path / "env-index"
    monkeypatch.setenv("JOBDEDUP_DATA_DIR", str(index))

    assert _ingest(postings_file) == 0
    assert (index / "index.sqlite3").is_file()
    capsys.readouterr()
    assert main(["export"]) == 0
    from_env = capsys.readouterr().out
    assert main(["export", "--data-dir", str(index)]) == 0
    from_flag = capsys.readouterr().out

    assert [json.loads(line) for line in from_env.splitlines()] == EXPORTED
    assert from_flag == from_env


def test_data_dir_flag_overrides_the_environment(
    postings_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    env_index, flag_index = tmp_path / "env-index", tmp_path / "flag-index"
    monkeypatch.setenv("JOBDEDUP_DATA_DIR", str(env_index))

    assert _ingest(postings_file, "--data-dir", str(flag_index)) == 0

    assert (flag_index / "index.sqlite3").is_file()
    assert not env_index.exists()
    capsys.readouterr()
    assert main(["export", "--data-dir", str(flag_index)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 4


@pytest.mark.parametrize(
    ("env", "flags", "status"),
    [
        ({}, [], "new"),  # default window: 60 days
        ({"JOBDEDUP_WINDOW_DAYS": "90"}, [], "duplicate"),
        ({"JOBDEDUP_WINDOW_DAYS": "90"}, ["--window-days", "30"], "new"),  # flag wins
        ({}, ["--window-days", "90"], "duplicate"),
    ],
)
def test_pipeline_settings_come_from_environment_and_flags(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    flags: list[str],
    status: str,
) -> None:
    """The same ad posted 74 days later is a duplicate only inside a window of >= 74 days."""
    path = tmp_path / "late-repost.jsonl"
    early = posting(DATA_ENGINEER, posted_at="2024-01-01")
    late = posting(DATA_ENGINEER_REPOST, posted_at="2024-03-15")
    path.write_text(json.dumps(early) + "\n" + json.dumps(late) + "\n", encoding="utf-8")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = tmp_path / "out.jsonl"

    assert _ingest(path, "--data-dir", str(tmp_path / "index"), "--out", str(out), *flags) == 0

    assert [d["status"] for d in _read_jsonl(out)] == ["new", status]


def test_gzip_input_is_read(
    tmp_path: Path, postings_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gz = tmp_path / "postings.jsonl.gz"
    gz.write_bytes(gzip.compress(postings_file.read_bytes()))

    assert _ingest(gz, "--data-dir", str(tmp_path / "index")) == 0

    assert SUMMARY.search(capsys.readouterr().err)


def test_progress_bar_mode_gives_the_same_result(
    postings_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "decisions.jsonl"

    code = main(
        ["ingest", str(postings_file), "--data-dir", str(tmp_path / "i"), "--out", str(out)]
    )

    assert code == 0
    assert [d["status"] for d in _read_jsonl(out)] == ["new", "duplicate", "new", "new"]
    stderr = capsys.readouterr().err
    assert "line 2: invalid JSON" in stderr
    assert SUMMARY.search(stderr)


def test_worker_processes_give_the_same_decisions(
    postings_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    in_process, pooled = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    args = ["--data-dir", str(tmp_path / "a"), "--out", str(in_process), "--workers", "0"]
    assert _ingest(postings_file, *args) == 0

    code = _ingest(
        postings_file, "--data-dir", str(tmp_path / "b"), "--out", str(pooled), "--workers", "2"
    )

    assert code == 0
    assert _read_jsonl(pooled) == _read_jsonl(in_process)
    assert "line 2: invalid JSON" in capsys.readouterr().err


def test_line_that_is_not_utf8_is_reported_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(
        json.dumps(DATA_ENGINEER).encode()
        + b'\n{"id": "x", "title": "Caf\xe9", "description": "serveur"}\n'
        + json.dumps(ACCOUNT_EXECUTIVE).encode()
        + b"\n"
    )
    out = tmp_path / "out.jsonl"

    code = _ingest(path, "--data-dir", str(tmp_path / "index"), "--out", str(out))

    assert code == 0
    assert "line 2:" in capsys.readouterr().err
    assert [d["id"] for d in _read_jsonl(out)] == ["indeed-1001", "indeed-1002"]


def test_cli_decides_exactly_like_the_api_one_by_one(tmp_path: Path) -> None:
    items = [
        DATA_ENGINEER,
        DATA_ENGINEER,  # the same id and content again: unchanged
        DATA_ENGINEER_REPOST,
        ACCOUNT_EXECUTIVE,
        posting(DATA_ENGINEER, description=WAREHOUSE_OPERATIVE["description"]),  # updated
        # a re-post of the updated ad under another id: a duplicate of the update
        posting(DATA_ENGINEER, id="copy-1", description=WAREHOUSE_OPERATIVE["description"]),
    ]
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    out = tmp_path / "out.jsonl"

    assert _ingest(path, "--data-dir", str(tmp_path / "cli"), "--out", str(out)) == 0

    with TestClient(create_app(Settings(data_dir=tmp_path / "api"))) as client:
        expected = [client.post("/dedup", json=item).json() for item in items]
    assert _read_jsonl(out) == expected
    assert [d["status"] for d in expected] == [
        "new",
        "unchanged",
        "duplicate",
        "new",
        "updated",
        "duplicate",
    ]


def test_duplicates_across_commit_groups_are_found(tmp_path: Path) -> None:
    """Bulk ingest commits in groups; a re-post in a later group must see its original."""
    items: list[dict[str, Any]] = [
        {
            "id": f"gen-{n}",
            "title": f"Role {n}",
            "posted_at": "2024-05-01",
            "description": generated_text(seed=n, words=40),
        }
        for n in range(300)
    ]
    items.append(posting(items[0], id="copy-of-0", title="Role 0 (H/F)"))
    items.append(posting(items[299], id="copy-of-299"))
    path = tmp_path / "many.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    out = tmp_path / "out.jsonl"

    assert _ingest(path, "--data-dir", str(tmp_path / "index"), "--out", str(out)) == 0

    decisions = {d["id"]: d for d in _read_jsonl(out)}
    assert len(decisions) == 302
    assert sum(d["status"] == "new" for d in decisions.values()) == 300
    assert decisions["copy-of-0"]["duplicate_of"] == "gen-0"
    assert decisions["copy-of-299"]["duplicate_of"] == "gen-299"


def test_missing_input_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = tmp_path / "index"

    code = main(["ingest", str(tmp_path / "nope.jsonl"), "--data-dir", str(index)])

    assert code == 2
    assert "no such file" in capsys.readouterr().err
    assert not index.exists()  # nothing was opened or created


@pytest.mark.parametrize(
    ("flags", "env", "setting"),
    [
        (["--window-days", "-1"], {}, "window_days"),
        (["--threshold", "1.5"], {}, "threshold"),
        ([], {"JOBDEDUP_NUM_PERM": "64"}, "rows"),  # 42 bands x 3 rows do not fit in 64
    ],
)
def test_bad_setting_exits_2(
    postings_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    env: dict[str, str],
    setting: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    code = _ingest(postings_file, "--data-dir", str(tmp_path / "index"), *flags)

    assert code == 2
    assert f"jobdedup: bad setting {setting}:" in capsys.readouterr().err


def test_index_built_with_other_sketch_parameters_exits_1(
    postings_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    index = str(tmp_path / "index")
    assert _ingest(postings_file, "--data-dir", index) == 0
    capsys.readouterr()
    monkeypatch.setenv("JOBDEDUP_NUM_PERM", "256")

    assert _ingest(postings_file, "--data-dir", index) == 1

    assert "num_perm" in capsys.readouterr().err


def test_unknown_command_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["frobnicate"])

    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


# -- the installed console script, end to end --------------------------------------------------


def _jobdedup_command() -> list[str]:
    script = Path(sys.executable).with_name("jobdedup")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "service.cli"]


def test_console_script_ingest_then_export(postings_file: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JOBDEDUP_")}
    env.update(JOBDEDUP_DATA_DIR=str(tmp_path / "index"), PYTHONPATH=str(REPO))
    out = tmp_path / "decisions.jsonl"

    ingest = subprocess.run(
        [*_jobdedup_command(), "ingest", str(postings_file), "--out", str(out)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    export = subprocess.run(
        [*_jobdedup_command(), "export"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert ingest.returncode == 0, ingest.stderr
    assert "line 2: invalid JSON" in ingest.stderr
    assert "line 4: invalid posting: title" in ingest.stderr
    assert SUMMARY.search(ingest.stderr), ingest.stderr
    assert [d["status"] for d in _read_jsonl(out)] == ["new", "duplicate", "new", "new"]
    assert export.returncode == 0, export.stderr
    assert [json.loads(line) for line in export.stdout.splitlines()] == EXPORTED
    assert "exported 4 postings" in export.stderr


def test_console_script_missing_file_exits_2(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JOBDEDUP_")}
    env.update(JOBDEDUP_DATA_DIR=str(tmp_path / "index"), PYTHONPATH=str(REPO))

    result = subprocess.run(
        [*_jobdedup_command(), "ingest", str(tmp_path / "missing.jsonl")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert result.returncode == 2
    assert "no such file" in result.stderr


def _export(index: Path, out: Path) -> list[dict[str, Any]]:
    assert main(["export", "--data-dir", str(index), "--out", str(out)]) == 0
    return _read_jsonl(out)


def test_expire_before_a_date_keeps_the_later_postings_and_their_clusters(
    postings_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "index"
    assert _ingest(postings_file, "--data-dir", str(index)) == 0
    capsys.readouterr()

    assert main(["expire", "--data-dir", str(index), "--before", "2024-03-03"]) == 0

    assert "expired 2 postings; 2 postings in 2 clusters remain" in capsys.readouterr().err
    # indeed-1001 (1 March) and indeed-1002 (2 March) are gone; the re-post of indeed-1001
    # is now the first of its cluster, which keeps its id.
    assert _export(index, tmp_path / "after.jsonl") == [
        {"id": "linkedin-77", "cluster_id": "indeed-1001", "duplicate_of": None},
        {"id": "reed-3003", "cluster_id": "reed-3003", "duplicate_of": None},
    ]


def test_ingest_applies_the_retention_setting_and_expire_needs_a_date(
    postings_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    index = tmp_path / "index"
    assert main(["expire", "--data-dir", str(index)]) == 2
    assert "give --before DATE or set JOBDEDUP_RETENTION_DAYS" in capsys.readouterr().err

    monkeypatch.setenv("JOBDEDUP_RETENTION_DAYS", "30")  # every fixture is from 2024
    assert _ingest(postings_file, "--data-dir", str(index)) == 0
    assert capsys.readouterr().err.rstrip().endswith("expired 4")
    assert _export(index, tmp_path / "after.jsonl") == []


def test_expire_rejects_a_date_it_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["expire", "--data-dir", str(tmp_path), "--before", "last tuesday"])
    assert exited.value.code == 2
