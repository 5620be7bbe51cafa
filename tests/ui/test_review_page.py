"""The review page in a real browser against a real `jobdedup serve` with API keys.

An analyst's path: open /ui (asked for a key, nothing shown without one), search a cluster by
title, open it, compare a member with the canonical posting (score, reasons in words, the two
texts with their differences marked), label the pair (refused with a read key, stored with a
write key), work through the review queue (progress moves), and read the statistics (chart
and board overlap). Each assertion compares what the page shows with what the API answers
or stored. Screenshots go to JOBDEDUP_UI_SCREENSHOTS when it names a directory.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from tests.api.postings import (
    ACCOUNT_EXECUTIVE,
    BARISTA,
    DATA_ENGINEER,
    DATA_ENGINEER_REPOST,
    STAFF_NURSE,
    WAREHOUSE_OPERATIVE,
    near_duplicate_pair,
    posting,
)
from tests.processes import cli_env, start_serve

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

READ_KEY = "ui-read-key-0123456789"
WRITE_KEY = "ui-write-key-0123456789"


def _postings() -> list[dict[str, Any]]:
    """Six boards over three weeks: two re-posted vacancies, a retitled NHS re-post, a band 6
    version of the nurse ad, three generated re-posts, and unrelated ads."""
    nurse_repost = posting(
        STAFF_NURSE,
        id="indeed-5501",
        source="indeed",
        title="Staff Nurse - Acute Medical Unit - Full Time",
        posted_at="2024-02-27T08:00:00Z",
    )
    # The same text with a grade in one title only, 17 days later: a doubtful decision for
    # the queue (see `REVIEW_THRESHOLD`). Sent before the full-time re-post, so STAFF_NURSE
    # is its one candidate.
    nurse_band_6 = posting(
        STAFF_NURSE,
        id="nhsjobs-5502",
        title="Staff Nurse Band 6 - Acute Medical Unit",
        posted_at="2024-03-08T08:00:00Z",
    )
    out = [STAFF_NURSE, nurse_band_6, nurse_repost, DATA_ENGINEER, ACCOUNT_EXECUTIVE]
    out.append(DATA_ENGINEER_REPOST)
    out += [WAREHOUSE_OPERATIVE, BARISTA]
    for n in range(3):
        original, repost = near_duplicate_pair(n)
        out.append({**original, "source": "reed", "posted_at": f"2024-03-1{n}T09:00:00Z"})
        out.append({**repost, "source": "totaljobs", "posted_at": f"2024-03-1{n}T15:00:00Z"})
    return out


REVIEW_THRESHOLD = "0.75"
"""The server's threshold. The queue lists decisions within `service.review.REVIEW_MARGIN`
(0.25) of the threshold, and the grade-in-one-title pair scored 0.54 (model 9613a71642fb),
0.58 (6b0ed75daecd) and 0.90 (6f420cb17f8c): with the threshold at 0.75 it is doubtful for
each, so this test of the page no longer depends on how a retrained model scores it."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("ui-index")
    env = cli_env(
        data_dir,
        JOBDEDUP_API_KEYS=f"read:{READ_KEY},write:{WRITE_KEY}",
        JOBDEDUP_THRESHOLD=REVIEW_THRESHOLD,
    )
    process, base = start_serve(env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with httpx.Client(base_url=base, headers={"X-API-Key": WRITE_KEY}, timeout=60) as c:
            for item in _postings():
                c.post("/dedup", json=item).raise_for_status()
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


def _api(base: str, path: str, **params: str) -> Any:
    response = httpx.get(f"{base}{path}", params=params, headers={"X-API-Key": READ_KEY})
    response.raise_for_status()
    return response.json()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    yield tab
    context.close()


def _shot(page: Page, name: str) -> None:
    folder = os.environ.get("JOBDEDUP_UI_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def _enter_key(page: Page, key: str) -> None:
    """Type the key into the page's dialog and wait until the screen is drawn again with it
    (the dialog's close event, which takes the key, arrives after the click returns)."""
    page.wait_for_selector("main#view:not([aria-busy])", state="attached")  # none in flight
    before = page.locator("main#view").get_attribute("data-rendered") or "0"
    page.get_by_label("Key").fill(key)
    page.get_by_role("button", name="Use this key").click()
    page.wait_for_function(
        "(before) => Number(document.querySelector('main#view').dataset.rendered || 0)"
        " > Number(before)",
        arg=before,
    )


def _open_with_key(page: Page, base: str, fragment: str, key: str = READ_KEY) -> None:
    page.goto(f"{base}/ui#{fragment}")
    page.locator("#key-dialog[open]").wait_for()
    _enter_key(page, key)


def test_without_a_key_the_page_asks_for_one_and_shows_no_data(page: Page, server: str) -> None:
    page.goto(f"{server}/ui")
    dialog = page.locator("#key-dialog")
    dialog.wait_for(state="visible")
    assert "needs an API key" in dialog.inner_text()
    assert page.get_by_test_id("cluster-row").count() == 0
    page.get_by_role("button", name="Cancel").click()
    assert "unauthorized" in page.get_by_test_id("cluster-results").inner_text().lower() or (
        "api key" in page.get_by_test_id("cluster-results").inner_text().lower()
    )


def test_search_open_a_cluster_compare_and_label(page: Page, server: str) -> None:
    _open_with_key(page, server, "/clusters")
    page.get_by_test_id("filter-title").fill("data engineer")
    page.get_by_role("button", name="Search").click()
    rows = page.get_by_test_id("cluster-row")
    rows.first.wait_for()
    assert rows.count() == 1
    assert "Data Engineer" in rows.first.inner_text()
    _shot(page, "1-clusters")

    rows.first.click()
    page.get_by_test_id("member-row").first.wait_for()
    members = page.get_by_test_id("member-row")
    assert members.count() == 2
    assert "indeed-1001" in members.nth(0).inner_text()  # the canonical comes first
    assert "linkedin-77" in members.nth(1).inner_text()
    _shot(page, "2-cluster")

    page.get_by_test_id("compare-canonical").click()
    page.get_by_test_id("verdict").wait_for()
    explained = _api(server, "/pairs/explain", a="linkedin-77", b="indeed-1001")
    verdict = explained["verdict"]
    assert page.get_by_test_id("score").inner_text() == f"{verdict['probability']:.3f}"
    reasons = page.get_by_test_id("reasons").locator("li")
    assert reasons.count() == min(6, len(verdict["contributions"]))
    top = max(verdict["contributions"], key=lambda c: abs(c["contribution"]))
    assert top["text"] in reasons.first.inner_text()
    # The retitle "(H/F)" is the one difference: marked on the re-post's side only.
    assert page.get_by_test_id("diff-a").locator("del").all_inner_texts() != []
    assert "H/F" in " ".join(page.get_by_test_id("diff-a").locator("del").all_inner_texts())
    assert page.get_by_test_id("diff-b").locator("ins").count() == 0
    diff_a = page.get_by_test_id("diff-a").inner_text()
    assert re.sub(r"\s+", " ", DATA_ENGINEER["description"][:200]) in re.sub(r"\s+", " ", diff_a)
    _shot(page, "3-pair")

    # A read key may look but not label: the page asks for a wider key and stores nothing.
    page.keyboard.press("d")
    page.locator("#key-dialog[open]").wait_for()
    assert "write" in page.locator("#key-error").inner_text()
    assert _api(server, "/pairs/explain", a="linkedin-77", b="indeed-1001")["label"] is None
    _enter_key(page, WRITE_KEY)
    page.get_by_test_id("verdict").wait_for()
    page.keyboard.press("d")
    page.get_by_test_id("current-label").get_by_text("labelled duplicate").wait_for()
    stored = _api(server, "/pairs/explain", a="linkedin-77", b="indeed-1001")["label"]
    assert stored == "duplicate"


def test_review_queue_labels_advance_and_progress(page: Page, server: str) -> None:
    queue = _api(server, "/review", limit="500")
    items = queue["items"]
    assert items, "the fixture leaves uncertain decisions to review"
    before = queue["labelled"]
    assert before == sum(1 for item in items if item["label"])
    _open_with_key(page, server, "/review", WRITE_KEY)
    progress = page.get_by_test_id("review-progress")
    progress.wait_for()
    assert progress.inner_text() == f"{before} of {queue['total']} labelled"
    assert page.get_by_test_id("review-row").count() == len(items)
    _shot(page, "4-review-queue")

    first = next(i for i, item in enumerate(items) if not item.get("label"))
    page.get_by_test_id("start-review").click()
    page.get_by_test_id("review-position").wait_for()
    assert page.get_by_test_id("review-position").inner_text() == (
        f"item {first + 1} of {queue['total']}"
    )
    _shot(page, "5-review-pair")
    page.keyboard.press("n")
    # Labelled: the page moves on (to the next unlabelled item, or back to the queue).
    page.wait_for_function(f"!location.hash.endsWith('/review/{first}')")
    labelled = _api(server, "/review", limit="500")["items"][first]
    assert (labelled["a_id"], labelled["b_id"]) == (items[first]["a_id"], items[first]["b_id"])
    assert labelled["label"] == "not_duplicate"
    page.goto(f"{server}/ui#/review")
    page.get_by_test_id("review-progress").wait_for()
    assert page.get_by_test_id("review-progress").inner_text() == (
        f"{before + 1} of {queue['total']} labelled"
    )


def test_statistics_chart_and_board_overlap(page: Page, server: str) -> None:
    stats = _api(server, "/stats", interval="week", by="source")
    _open_with_key(page, server, "/stats")
    page.get_by_test_id("rate-chart").wait_for()
    groups = {row["group"] for row in stats["buckets"]}
    lines = page.get_by_test_id("rate-chart").locator("polyline").count()
    multi_week = {g for g in groups if sum(1 for r in stats["buckets"] if r["group"] == g) > 1}
    assert lines == len(multi_week)
    table = page.get_by_test_id("stats-table").locator("tbody tr")
    assert table.count() == len(groups)
    shown = {
        cells[0]: [int(c) for c in cells[1:4]]
        for cells in (row.split("\t") for row in table.all_inner_texts())
    }
    for group in groups:
        rows = [r for r in stats["buckets"] if r["group"] == group]
        assert shown[group] == [
            sum(r["postings"] for r in rows),
            sum(r["distinct"] for r in rows),
            sum(r["duplicates"] for r in rows),
        ]
    overlap = page.get_by_test_id("overlap")
    assert overlap.is_visible()
    linkedin_indeed = next(
        p["clusters"] for p in stats["overlap"] if {p["a"], p["b"]} == {"indeed", "linkedin"}
    )
    assert linkedin_indeed >= 1
    assert str(linkedin_indeed) in overlap.inner_text()
    _shot(page, "6-statistics")
