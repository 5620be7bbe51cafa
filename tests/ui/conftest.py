"""Fixtures of the browser suite: Debian's Chromium driven by Playwright, one per session.

The browser is the system's (`/usr/bin/chromium`, package `chromium`, installed by `.ci/run`),
never one Playwright downloads. Without it the suite is skipped, unless
JOBDEDUP_REQUIRE_BROWSER=1 (set by CI) turns the skip into a failure, so CI cannot pass by
silently not running the page's tests.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser

CHROMIUM = os.environ.get("JOBDEDUP_CHROMIUM", "/usr/bin/chromium")
# As the machine's notes say: without the background-networking flags Chromium keeps trying
# to reach Google's hosts, which a closed network refuses.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _browser_missing() -> str | None:
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"no Chromium at {CHROMIUM} (Debian package `chromium`)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (dev extra)"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """A headless Chromium for the whole session (starting one takes ~1 s)."""
    missing = _browser_missing()
    if missing:
        if os.environ.get("JOBDEDUP_REQUIRE_BROWSER") == "1":
            pytest.fail(f"JOBDEDUP_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
