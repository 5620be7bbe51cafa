"""One writer per embedded index, with real processes: a second `serve` or `ingest` on a data
dir being written is refused with the holder's pid, readers keep working, a killed holder
frees the index, and preparation processes die with a killed `ingest`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from indexer.stores.sqlite.datadir_lock import DataDirInUse
from service.api import create_app
from service.settings import Settings
from tests.api.postings import generated_text
from tests.processes import CLI, cli_env, free_port, start_serve


def _env(data_dir: Path) -> dict[str, str]:
    return cli_env(data_dir)


def _postings(path: Path, count: int) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for n in range(count):
            posting = {"id": f"ad-{n}", "title": f"Role {n}", "description": generated_text(n)}
            handle.write(json.dumps(posting) + "\n")
    return path


@pytest.fixture
def server(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    process, _ = start_serve(
        _env(tmp_path / "index"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True
    )
    try:
        yield process
    finally:
        process.kill()
        process.wait(timeout=30)


def test_a_second_writer_in_one_process_is_refused(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "index")
    second = create_app(settings)
    with (
        TestClient(create_app(settings)),  # its lifespan holds the index open
        pytest.raises(DataDirInUse, match=f"pid {os.getpid()}"),
        TestClient(second),
    ):
        pass
    with TestClient(create_app(settings)) as client:  # released when the first one stopped
        assert client.get("/ready").status_code == 200


@pytest.mark.sqlite_only
def test_second_writers_are_refused_readers_served_and_a_killed_holder_frees_the_index(
    tmp_path: Path, server: subprocess.Popen[str]
) -> None:
    data_dir = tmp_path / "index"
    env = _env(data_dir)
    postings = _postings(tmp_path / "ads.jsonl", 3)

    ingest = subprocess.run(
        [*CLI, "ingest", str(postings), "--no-progress"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ingest.returncode == 1
    assert f"pid {server.pid}" in ingest.stderr and "one writer" in ingest.stderr

    second = subprocess.run(
        [*CLI, "serve", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert second.returncode == 1 and f"pid {server.pid}" in second.stderr

    export = subprocess.run([*CLI, "export"], env=env, capture_output=True, text=True, timeout=120)
    assert export.returncode == 0, export.stderr

    server.send_signal(signal.SIGKILL)
    server.wait(timeout=30)
    after = subprocess.run(
        [*CLI, "ingest", str(postings), "--no-progress"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert after.returncode == 0, after.stderr


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.sqlite_only
def test_preparation_processes_die_with_a_killed_ingest(tmp_path: Path) -> None:
    postings = _postings(tmp_path / "ads.jsonl", 20_000)
    ingest = subprocess.Popen(
        [*CLI, "ingest", str(postings), "--no-progress", "--workers", "2"],
        env=_env(tmp_path / "index"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 90
        workers: set[int] = set()
        while len(workers) < 2:
            assert ingest.poll() is None, "ingest ended before its workers were seen"
            assert time.monotonic() < deadline, "no preparation processes appeared"
            workers = {c for c in _children(ingest.pid) if "spawn_main" in _cmdline(c)}
            time.sleep(0.2)
        ingest.send_signal(signal.SIGKILL)
        ingest.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(_alive(w) for w in workers):
            assert time.monotonic() < deadline, f"workers outlived ingest: {workers}"
            time.sleep(0.1)
    finally:
        if ingest.poll() is None:
            ingest.kill()


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
