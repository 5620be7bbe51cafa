"""An acknowledged posting is never lost, with real processes on the embedded index: `serve`
killed with -9 while 32 requests are in flight, and a file system that refuses writes
(a file-size limit set on the running server: the kernel answers EFBIG, as a full disk
answers ENOSPC) until room is made again."""

from __future__ import annotations

import json
import resource
import signal
import sqlite3
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.postings import generated_text
from tests.processes import CLI, cli_env, start_serve


def _serve(data_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    env = cli_env(data_dir, JOBDEDUP_LOG_LEVEL="WARNING")
    return start_serve(
        env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # A write past the file-size limit must fail with EFBIG, not kill the server.
        preexec_fn=lambda: signal.signal(signal.SIGXFSZ, signal.SIG_IGN),
    )


def _posting(n: int) -> dict[str, Any]:
    return {"id": f"ad-{n}", "title": f"Role {n}", "description": generated_text(5000 + n)}


def _stored_ids(data_dir: Path) -> set[str]:
    with sqlite3.connect(data_dir / "index.sqlite3") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return {row[0] for row in conn.execute("SELECT id FROM postings")}


@pytest.mark.sqlite_only
def test_kill_9_of_serve_with_32_in_flight_loses_no_acknowledged_posting(
    tmp_path: Path,
) -> None:
    data_dir = tmp_path / "index"
    server, base = _serve(data_dir)
    acknowledged: set[str] = set()
    lock = threading.Lock()
    numbers = iter(range(100_000))

    def client() -> None:
        with httpx.Client(base_url=base, timeout=30) as http:
            while True:
                with lock:
                    n = next(numbers)
                try:
                    answer = http.post("/dedup", json=_posting(n))
                except httpx.HTTPError:
                    return  # the server died under us: this one was never acknowledged
                if answer.status_code == 200:
                    with lock:
                        acknowledged.add(f"ad-{n}")

    threads = [threading.Thread(target=client) for _ in range(32)]
    for thread in threads:
        thread.start()
    while len(acknowledged) < 300:
        assert server.poll() is None
        time.sleep(0.05)
    server.send_signal(signal.SIGKILL)
    server.wait(timeout=30)
    for thread in threads:
        thread.join(timeout=60)

    assert acknowledged <= _stored_ids(data_dir)  # integrity_check ok inside
    restarted, base = _serve(data_dir)  # the lock died with the killed process
    try:
        for posting_id in sorted(acknowledged)[:20]:
            assert httpx.get(f"{base}/postings/{posting_id}").status_code == 200
    finally:
        restarted.terminate()
        restarted.wait(timeout=30)


@pytest.mark.sqlite_only
def test_writes_refused_by_the_file_system_answer_503_and_recover(tmp_path: Path) -> None:
    data_dir = tmp_path / "index"
    server, base = _serve(data_dir)
    try:
        with httpx.Client(base_url=base, timeout=30) as http:
            for n in range(5):
                assert http.post("/dedup", json=_posting(n)).status_code == 200
            size = max(f.stat().st_size for f in data_dir.glob("index.sqlite3*"))
            # No file of the index may grow any more: the next commit cannot be written.
            resource.prlimit(server.pid, resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))
            refused = [http.post("/dedup", json=_posting(100 + n)) for n in range(40)]
            assert {r.status_code for r in refused} <= {200, 503}, [r.text for r in refused]
            full = [r for r in refused if r.status_code == 503]
            assert full, "a file system refusing writes must give 503"
            assert all(r.headers.get("Retry-After") for r in full)
            accepted = {f"ad-{100 + n}" for n, r in enumerate(refused) if r.status_code == 200}

            limit = (resource.RLIM_INFINITY, resource.RLIM_INFINITY)
            resource.prlimit(server.pid, resource.RLIMIT_FSIZE, limit)
            again = http.post("/dedup", json=_posting(200))
            assert again.status_code == 200, again.text  # recovered without a restart
            for posting_id in accepted | {f"ad-{n}" for n in range(5)} | {"ad-200"}:
                assert http.get(f"/postings/{posting_id}").status_code == 200
    finally:
        server.terminate()
        server.wait(timeout=30)
    refused_ids = {f"ad-{100 + n}" for n in range(40)} - accepted
    assert not refused_ids & _stored_ids(data_dir)  # a 503 stored nothing


@pytest.mark.sqlite_only
def test_kill_9_of_ingest_never_leaves_out_ahead_of_the_index(tmp_path: Path) -> None:
    data_dir, out = tmp_path / "index", tmp_path / "decisions.jsonl"
    source = tmp_path / "ads.jsonl"
    with source.open("w", encoding="utf-8") as handle:
        for n in range(8_000):
            handle.write(json.dumps(_posting(n)) + "\n")
    env = cli_env(data_dir)
    command = [*CLI, "ingest", str(source), "--no-progress", "--out", str(out)]
    ingest = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not out.exists() or out.stat().st_size < 20_000:
        assert ingest.poll() is None and time.monotonic() < deadline
        time.sleep(0.1)
    ingest.send_signal(signal.SIGKILL)
    ingest.wait(timeout=30)

    reported = [json.loads(line) for line in out.read_text().splitlines() if line.endswith("}")]
    assert reported
    assert {d["id"] for d in reported} <= _stored_ids(data_dir)  # acknowledged = stored

    out.unlink()
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    statuses = {json.loads(line)["id"]: json.loads(line)["status"] for line in out.open()}
    assert all(statuses[d["id"]] == "unchanged" for d in reported)
    assert len(statuses) == 8_000
