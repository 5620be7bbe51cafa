"""How fast the review page answers an analyst, in a real browser, on a real index.

Starts `jobdedup serve` on an existing data directory (build one with `jobdedup ingest`),
opens /ui in Debian's headless Chromium (Playwright) and times, from navigation to the
screen's content being drawn: the first load (cluster list), a cluster, a pair with its
explanation and diff, the review queue and the statistics page. Each screen is loaded
`--rounds` times in a fresh browser context (no cache); the table gives the median and the
worst. `--screenshots DIR` saves one picture per screen (the README's pictures).

    .venv/bin/python bench/ui.py --data-dir /tmp/nhsidx --rounds 5 --label 20
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.processes import cli_env, start_serve
from tests.ui.conftest import CHROMIUM, CHROMIUM_ARGS


def _largest_cluster(base: str) -> dict[str, Any]:
    """The cluster the pair screen opens: the largest of the first page of clusters of ≥ 2."""
    page = httpx.get(f"{base}/clusters", params={"min_size": 2, "limit": 1000}, timeout=60).json()
    if not page["clusters"]:
        raise SystemExit("the index has no cluster of two postings or more")
    best: dict[str, Any] = max(page["clusters"], key=lambda c: (c["size"], c["id"]))
    return best


def _screens(base: str) -> list[tuple[str, str, str]]:
    """(name, URL fragment, selector that appears when the screen is drawn)."""
    cluster = _largest_cluster(base)
    members = httpx.get(f"{base}/clusters/{cluster['id']}", timeout=60).json()["members"]
    a, b = members[1]["id"], members[0]["id"]
    return [
        ("first load: clusters", "/clusters", "[data-testid=cluster-row]"),
        ("cluster", f"/cluster/{_part(cluster['id'])}", "[data-testid=member-row]"),
        ("pair: verdict and diff", f"/pair/{_part(a)}/{_part(b)}", "[data-testid=diff-a]"),
        ("review queue", "/review", "[data-testid=review-progress]"),
        ("statistics", "/stats", "[data-testid=stats-table]"),
    ]


def _part(value: str) -> str:
    """A path segment of the page's hash routes (ids may hold `/`)."""
    return quote(value, safe="")


def _time_screen(
    new_page: Callable[[], Any], base: str, fragment: str, selector: str, shot: Path | None
) -> float:
    page = new_page()
    started = time.perf_counter()
    page.goto(f"{base}/ui#{fragment}")
    page.wait_for_selector(selector, timeout=60_000)
    elapsed = time.perf_counter() - started
    if shot is not None:
        page.screenshot(path=str(shot))
    page.context.close()
    return elapsed


def _label_queue(new_page: Callable[[], Any], base: str, count: int) -> list[float]:
    """Label `count` pairs of the review queue with the keyboard, as an analyst would, and
    return the seconds from each key press to the next pair being drawn (page and API time
    only: the analyst's reading time comes on top)."""
    page = new_page()
    page.goto(f"{base}/ui#/review")
    page.wait_for_selector("[data-testid=start-review]:not([disabled])", timeout=60_000)
    page.click("[data-testid=start-review]")
    page.wait_for_selector("[data-testid=review-position]", timeout=60_000)
    waits: list[float] = []
    for number in range(count):
        position = page.inner_text("[data-testid=review-position]")
        started = time.perf_counter()
        page.keyboard.press("d" if number % 2 == 0 else "n")
        page.wait_for_function(
            "(before) => { const node = document.querySelector('[data-testid=review-position]');"
            " return node && node.textContent !== before"
            " && !document.querySelector('main[aria-busy]'); }",
            arg=position,
            timeout=60_000,
        )
        waits.append(time.perf_counter() - started)
    page.context.close()
    return waits


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="an ingested index")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--screenshots", type=Path, help="save one PNG per screen here")
    parser.add_argument(
        "--label",
        type=int,
        default=0,
        help="then label this many queue pairs by keyboard, on a copy of the index",
    )
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    process, base = start_serve(
        cli_env(args.data_dir), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        stats = httpx.get(f"{base}/metrics", timeout=60).text
        postings = next(
            (
                line.split()[-1]
                for line in stats.splitlines()
                if line.startswith("jobdedup_index_postings ")
            ),
            "?",
        )
        screens = _screens(base)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

            def new_page() -> Any:
                return browser.new_context(viewport={"width": 1280, "height": 900}).new_page()

            times: dict[str, list[float]] = {name: [] for name, _, _ in screens}
            for round_no in range(args.rounds):
                for number, (name, fragment, selector) in enumerate(screens, start=1):
                    shot = None
                    if args.screenshots is not None and round_no == args.rounds - 1:
                        args.screenshots.mkdir(parents=True, exist_ok=True)
                        shot = (
                            args.screenshots
                            / f"{number}-{name.split(':')[0].replace(' ', '-')}.png"
                        )
                    times[name].append(_time_screen(new_page, base, fragment, selector, shot))
            waits = _label_copy(args, browser, new_page) if args.label else []
            browser.close()
    finally:
        process.terminate()
        process.wait(timeout=30)

    print(
        f"index: {args.data_dir} ({postings.removesuffix('.0')} postings), "
        f"{args.rounds} rounds, fresh context each"
    )
    print("| screen | median s | worst s |")
    print("| --- | ---: | ---: |")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values):.3f} | {max(values):.3f} |")
    if waits:
        print(
            f"| label {len(waits)} queue pairs by key (key press -> next pair drawn), "
            f"total {sum(waits):.2f} s | {statistics.median(waits):.3f} | {max(waits):.3f} |"
        )
    return 0


def _label_copy(args: argparse.Namespace, browser: Any, new_page: Callable[[], Any]) -> list[float]:
    """Label on a copy of the data directory (served apart) so the index measured stays as
    it was."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "index"
        shutil.copytree(args.data_dir, copy, ignore=shutil.ignore_patterns("writer.lock"))
        process, base = start_serve(
            cli_env(copy), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            return _label_queue(new_page, base, args.label)
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    raise SystemExit(main())
