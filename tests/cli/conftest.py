"""Fixtures of the CLI suite: no JOBDEDUP_* variable leaks in from the developer's shell."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _no_jobdedup_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings read JOBDEDUP_* variables; only the variables a test sets may be seen."""
    for name in list(os.environ):
        if name.startswith("JOBDEDUP_"):
            monkeypatch.delenv(name)
