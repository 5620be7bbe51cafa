"""Translated re-posts through /dedup: found through anchor keys, joined, never bridging.

The postings (`tests.translations`) are hand-written: a Polish ad, its English translation
posted five days later, an English ad of another employer and the same employer's other
vacancy in Polish. Band keys cannot find a translation (no shared shingle); the anchor keys
(`indexer.anchor_keys`) can. Scored by the shipped classifier, on both backends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from service.api import create_app
from service.settings import Settings
from tests.api.support import dedup, get_json
from tests.translations import (
    EN_CAPITALS,
    EN_OTHER_EMPLOYER,
    EN_TRANSLATION,
    PL_ORIGINAL,
    PL_OTHER_VACANCY,
    PT_CAPITALS,
)


def candidate_ids(decision: dict[str, Any]) -> list[str]:
    return [c["id"] for c in decision["candidates"]]


def test_a_translation_is_a_candidate_and_joins_its_original(client: TestClient) -> None:
    dedup(client, PL_ORIGINAL)
    dedup(client, EN_OTHER_EMPLOYER)

    translated = dedup(client, EN_TRANSLATION)

    assert candidate_ids(translated) == ["eures-pl-1"]  # not the English ad of another employer
    assert translated["status"] == "duplicate"
    assert translated["cluster_id"] == "eures-pl-1"
    assert translated["candidates"][0]["jaccard"] < 0.1  # no text in common


def test_the_original_after_its_translation_is_found_too(client: TestClient) -> None:
    dedup(client, EN_TRANSLATION)

    original = dedup(client, PL_ORIGINAL)

    assert candidate_ids(original) == ["eures-pl-1-en"]
    assert original["cluster_id"] == "eures-pl-1-en"


def test_a_translation_sharing_only_its_place_field_is_a_candidate(client: TestClient) -> None:
    """No anchor of the two texts survives translation; the location field does."""
    dedup(client, PT_CAPITALS)

    translated = dedup(client, EN_CAPITALS)

    assert candidate_ids(translated) == ["eures-pt-1"]


def test_same_language_postings_never_meet_through_anchors(client: TestClient) -> None:
    dedup(client, PL_ORIGINAL)

    other = dedup(client, PL_OTHER_VACANCY)  # shares the employer's address, phone, email

    assert candidate_ids(other) == []  # nor band keys: the two texts share too little
    assert other["cluster_id"] == "eures-pl-2"


def test_a_translation_links_no_second_cluster(data_dir: Path) -> None:
    """At a threshold of 0.04 the employer's other vacancy (scored 0.045 against the
    translation by the shipped model) would be merged into the original's cluster through
    the translation, as a same-language candidate at that score would be; the translation
    rule of `Deduplicator._decide` keeps it apart."""
    settings = Settings(data_dir=data_dir, threshold=0.04, merge_threshold=0.04)
    with TestClient(create_app(settings)) as client:
        dedup(client, PL_ORIGINAL)
        dedup(client, PL_OTHER_VACANCY)

        translated = dedup(client, EN_TRANSLATION)

        scores = {c["id"]: c["score"] for c in translated["candidates"]}
        assert scores["eures-pl-1"] > scores["eures-pl-2"] >= 0.04
        assert translated["cluster_id"] == "eures-pl-1"
        members = get_json(client, "/clusters/eures-pl-2")["members"]
        assert [m["id"] for m in members] == ["eures-pl-2"]
