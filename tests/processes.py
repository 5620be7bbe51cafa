"""Real `jobdedup` processes for tests and benchmarks: a free port, a clean environment and a
`serve` started on a data directory and waited for until `/ready` says 200."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

CLI = [sys.executable, "-m", "service.cli"]
ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A loopback port nobody listens on now (the server binds it a moment later)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def cli_env(data_dir: Path, **variables: str) -> dict[str, str]:
    """This environment without any JOBDEDUP_* variable of the caller's shell, pointed at
    `data_dir`, plus `variables` (JOBDEDUP_ names)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("JOBDEDUP_")}
    env["JOBDEDUP_DATA_DIR"] = str(data_dir)
    env.update(variables)
    return env


def wait_ready(process: subprocess.Popen[Any], base: str, timeout: float = 90) -> None:
    """Return once `base`/ready answers 200; fail if the process ends or time runs out."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{base}/ready", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"jobdedup serve did not become ready at {base}")
        time.sleep(0.2)


def start_serve(env: dict[str, str], **popen: Any) -> tuple[subprocess.Popen[Any], str]:
    """`jobdedup serve` on a free loopback port with `env`, ready; returns it and its URL."""
    port = free_port()
    process = subprocess.Popen([*CLI, "serve", "--port", str(port)], env=env, cwd=ROOT, **popen)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(process, base)
    except BaseException:
        process.kill()
        process.wait(timeout=30)
        raise
    return process, base


def output_under_hash_seed(code: str, hash_seed: str, **variables: str) -> str:
    """What `python -c code` prints when Python's string hash is salted with `hash_seed`
    (`PYTHONHASHSEED`), run from the checkout with `variables` added to the environment. Two
    seeds printing the same shows that nothing of the result follows a set's or a dict's
    hash order, which changes from one process to the next."""
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT), **variables}
    child = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return child.stdout
