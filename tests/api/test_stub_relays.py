"""A job centre's stub of a board's ad ("En bref : <the board's title>, <keywords>"), through
/dedup, on every backend.

The stub holds a dozen words, no company, and the job centre's occupation label for title:
no band key, lead fingerprint, block, company-title or bare-title key meets the ad's. The
stub keys (`indexer.stub_keys`) do, whichever arrives first. Candidates are checked, not
verdicts, as in `test_snippets.py`: the overlap baseline scores, and candidates do not
depend on the scorer.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from indexer.minhash import SketchParams
from indexer.prepare import prepare_document
from tests.api.postings import generated_text
from tests.api.support import candidate_ids, dedup

PARAMS = SketchParams()

AD = {
    "id": "board-1",
    "title": "Commercial(e) vente menuiserie aluminium (H/F)",
    "company": "RG Aluminium",
    "location": "07 - JOYEUSE",
    "posted_at": "2025-04-19",
    "description": generated_text(31, 250),
}
STUB = {
    "id": "relay-1",
    "title": "Assistant commercial / Assistante commerciale",
    "location": "07 - JOYEUSE",
    "posted_at": "2025-04-20",
    "description": "En bref : Commercial(e) vente menuiserie aluminium, Relation client, Autonomie",
}


def test_the_stub_and_its_ad_share_only_stub_keys() -> None:
    """The premise of the tests below: nothing else would find one from the other."""
    ad, stub = prepare_document(AD, PARAMS), prepare_document(STUB, PARAMS)
    assert ad.block_key != stub.block_key
    assert not set(ad.band_keys + ad.lookup_keys) & set(stub.band_keys + stub.lookup_keys)
    assert set(stub.search_keys) & set(ad.index_keys)
    assert set(ad.search_keys) & set(stub.index_keys)


@pytest.mark.parametrize("order", [(AD, STUB), (STUB, AD)])
def test_a_stub_naming_the_ad_s_title_finds_the_ad_either_way(
    overlap_client: TestClient, order: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    first, second = order
    dedup(overlap_client, first)

    decision = dedup(overlap_client, second)

    assert candidate_ids(decision) == [first["id"]]


TOWN_AD = {
    **AD,
    "id": "board-3",
    "title": "Directeur de magasin Dourdan (H/F)",
    "location": "91 - DOURDAN",
}
TOWN_STUB = {
    **STUB,
    "id": "relay-3",
    "title": "Directeur / Directrice de magasin de grande distribution",
    "location": "91 - DOURDAN",
    "description": "En bref : Directeur de magasin Dourdan, de la marge, Autonomie",
}


def test_a_title_naming_its_town_is_keyed_with_the_town_too() -> None:
    """The ad's bare title drops the town of its listing ("directeur de magasin"); the
    stub copies the title as written, town included."""
    ad, stub = prepare_document(TOWN_AD, PARAMS), prepare_document(TOWN_STUB, PARAMS)
    assert ad.bare_title == "directeur de magasin"
    assert set(stub.search_keys) & set(ad.index_keys)
    assert set(ad.search_keys) & set(stub.index_keys)


@pytest.mark.parametrize("order", [(TOWN_AD, TOWN_STUB), (TOWN_STUB, TOWN_AD)])
def test_a_stub_naming_the_title_with_its_town_finds_the_ad_either_way(
    overlap_client: TestClient, order: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    first, second = order
    dedup(overlap_client, first)

    assert candidate_ids(dedup(overlap_client, second)) == [first["id"]]


@pytest.mark.parametrize("order", ["stub first", "ad first"])
def test_a_stub_naming_another_title_finds_nothing(overlap_client: TestClient, order: str) -> None:
    """The employer's other ad at the same place: the stub names a title it does not have."""
    other = {**AD, "id": "board-2", "title": "Poseur menuiserie aluminium (H/F)"}
    first, second = (STUB, other) if order == "stub first" else (other, STUB)
    dedup(overlap_client, first)

    assert candidate_ids(dedup(overlap_client, second)) == []


def test_an_ad_longer_than_a_stub_is_not_read_as_phrases() -> None:
    """A short ad of ordinary sentences keeps its own keys only: its commas do not make it
    a list of titles, so it neither searches nor is indexed under other titles."""
    words = ", ".join(["Commercial(e) vente menuiserie aluminium"] * 8)
    long = prepare_document({**STUB, "description": words}, PARAMS)
    ad = prepare_document(AD, PARAMS)
    assert long.stub_phrases == ()
    assert not set(long.search_keys) & set(ad.index_keys)
