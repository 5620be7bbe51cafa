"""The Dockerfile and docker-compose.yml: validated without a Docker daemon.

`docker-compose config` (Debian's docker-compose 1.29; CI installs it) parses and validates the
compose file against its schema and prints it normalised; the image's health check command
is run for real against the app.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from service.api import create_app
from service.settings import Settings
from tests.api.support import serve

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"


def _compose_config(path: Path) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.skip("docker-compose is not installed (CI installs Debian's docker-compose)")
    return subprocess.run(
        [binary, "-f", str(path), "config"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=path.parent,
        check=False,
    )


def test_compose_file_is_valid_and_wires_the_service_to_elasticsearch_8() -> None:
    result = _compose_config(COMPOSE)
    assert result.returncode == 0, result.stderr
    config = result.stdout
    assert re.search(r"image: docker\.elastic\.co/elasticsearch/elasticsearch:8\.", config)
    assert "discovery.type: single-node" in config
    assert (
        "xpack.security.enabled: 'false'" in config or 'xpack.security.enabled: "false"' in config
    )
    assert "_cluster/health" in config  # the engine's health check
    assert "condition: service_healthy" in config  # the service waits for it
    assert "JOBDEDUP_BACKEND: elasticsearch" in config
    assert "JOBDEDUP_SEARCH_URL: http://elasticsearch:9200" in config
    assert "JOBDEDUP_API_KEYS:" in config  # keys passed through: the 0.0.0.0 bind needs them
    assert re.search(r"jobdedup-data:/data:rw", config)
    assert re.search(r"/models:ro", config)


def test_compose_validation_rejects_a_broken_file(tmp_path: Path) -> None:
    """The check above is not vacuous: a misspelt option fails validation."""
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(COMPOSE.read_text().replace("healthcheck:", "helthcheck:", 1))
    result = _compose_config(broken)
    assert result.returncode != 0
    assert "helthcheck" in result.stderr


def test_dockerfile_is_slim_non_root_and_health_checked() -> None:
    text = DOCKERFILE.read_text()
    assert re.findall(r"^FROM (\S+)", text, re.MULTILINE) == ["python:3.11-slim"] * 2
    users = re.findall(r"^USER (\S+)", text, re.MULTILINE)
    assert users and users[-1] not in ("root", "0")
    assert "curl" not in text.split("HEALTHCHECK", 1)[1]
    assert '"/ready"' in text or "/ready'" in text


def _healthcheck_command() -> list[str]:
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    match = re.search(r"^HEALTHCHECK .*?CMD (\[.*\])\s*$", text, re.MULTILINE)
    assert match, "HEALTHCHECK CMD [...] not found"
    command: list[str] = json.loads(match.group(1))
    return command


def test_the_image_health_check_follows_ready(tmp_path: Path) -> None:
    """The exact HEALTHCHECK command, run against the app: exit 0 while /ready is 200, not 0
    once it answers 503 (the store closed)."""
    command = _healthcheck_command()
    assert command[0] == "python"
    app = create_app(Settings(data_dir=tmp_path))
    with serve(app) as base_url:
        env = {**os.environ, "JOBDEDUP_PORT": base_url.rsplit(":", 1)[1]}
        healthy = subprocess.run([sys.executable, *command[1:]], env=env, timeout=30, check=False)
        assert healthy.returncode == 0
        app.state.deduplicator.store.close()  # /ready answers 503 from now on
        unhealthy = subprocess.run(
            [sys.executable, *command[1:]], env=env, timeout=30, capture_output=True, check=False
        )
        assert unhealthy.returncode != 0


def test_the_image_builds_the_compiled_kernels() -> None:
    """The wheel is built in the image's first stage: it must get setup.py (which compiles
    `indexer/_kernels.pyx`) and a C compiler, or the image has no kernels to import."""
    build = DOCKERFILE.read_text().split("\nFROM ")[1]  # the first stage
    copied = {
        name
        for line in re.findall(r"^COPY (.+)$", build, re.MULTILINE)
        for name in line.split()[:-1]
    }
    assert {"pyproject.toml", "setup.py", "indexer"} <= copied
    assert re.search(r"apt-get install [^\n]*\bgcc\b", build)
    assert (ROOT / "indexer" / "_kernels.pyx").is_file()
