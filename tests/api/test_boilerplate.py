"""Boilerplate learned by the index: text that many employers share stops making candidates."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from service.api import create_app
from service.settings import Settings
from tests.api.postings import generated_text
from tests.api.support import dedup

# A job board's standard text, appended to every ad it carries: long next to each job's own
# text, so without boilerplate learning it alone makes any two ads near-duplicates.
BOARD_TEXT = " ".join(
    [
        "This vacancy was published on the regional jobs board operated by the county council.",
        "Applicants must hold the right to work in the country before the closing date.",
        "All applications are handled through the online portal and paper forms are not accepted.",
        "Shortlisted candidates will be contacted by email within two weeks of the closing date.",
        "The board does not charge candidates any fee at any stage of the recruitment process.",
        "Please read the privacy statement before you submit your personal details to us.",
        "If you need the advert in another format, contact the board's helpdesk by telephone.",
        "Employers listed here have agreed to the board's charter on fair recruitment practice.",
    ]
)
EMPLOYERS = ["Acme", "Globex", "Initech", "Umbrella"]


def board_ad(n: int, employer: str) -> dict[str, Any]:
    return {
        "id": f"board-{n}",
        "title": f"Role {n}",
        "company": employer,
        "posted_at": f"2024-03-{n + 1:02d}",
        "description": f"{generated_text(seed=500 + n, words=40)}\n\n{BOARD_TEXT}",
    }


def candidates_of_a_new_employers_ad(client: TestClient) -> list[dict[str, Any]]:
    for n, employer in enumerate(EMPLOYERS):
        dedup(client, board_ad(n, employer))
    result = dedup(client, board_ad(len(EMPLOYERS), "Hooli"))
    assert result["status"] == "new"
    candidates: list[dict[str, Any]] = result["candidates"]
    return candidates


def test_text_of_many_employers_is_learned_as_boilerplate(client: TestClient) -> None:
    assert candidates_of_a_new_employers_ad(client) == []


def test_without_learning_the_shared_text_makes_candidates(settings: Settings) -> None:
    with TestClient(create_app(settings.model_copy(update={"boilerplate": False}))) as client:
        found = candidates_of_a_new_employers_ad(client)
    assert {c["id"] for c in found} >= {"board-0", "board-1", "board-2", "board-3"}
