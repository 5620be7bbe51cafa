"""Titles that boards decorate with the place or a requisition code, through /dedup.

`normalise_title` keeps a town named in the title ("Employé(e) de ménage H/F - Largentière")
and a code written without a keyword ("(STG-5521)"), so the block key and the company-title
key of the decorated title never meet the plain one's. The bare-title key
(`indexer.lookup_keys`) finds them. Candidates are checked, not verdicts, as in
`test_snippets.py`: the overlap baseline scores, and candidates do not depend on the scorer.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from indexer.lookup_keys import company_title_key
from indexer.minhash import SketchParams
from indexer.prepare import prepare_document
from tests.api.postings import generated_text
from tests.api.support import candidate_ids, dedup

PARAMS = SketchParams()


def posting(posting_id: str, title: str, location: str, text: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": posting_id,
        "title": title,
        "location": location,
        "posted_at": "2025-04-19",
        "description": text,
        **fields,
    }


PARTS = [generated_text(10 + i, 150) for i in range(5)]
EXCERPT = generated_text(12, 80)
"""A part of the long ad (its middle), as a board that shows an ad's main paragraph alone
carries it: too small a share of the long ad for a band key, and not its lead."""
LONG_TEXT = "\n\n".join([*PARTS[:2], EXCERPT, *PARTS[3:]])
CODED = posting(
    "linkedin-1",
    "INGENIEUR DATA JUNIOR - H/F - (STG-5521)",
    "Paris",
    LONG_TEXT,
    company="Banque Exemple",
)
PLAIN = posting("wttj-1", "INGENIEUR DATA JUNIOR - H/F", "Paris", EXCERPT, company="Banque Exemple")


def test_the_coded_and_the_plain_title_share_only_the_keys_of_the_bare_title() -> None:
    """The premise of the tests below: nothing but the keys of the title without its code
    (the bare-title key, and the company-title key of the bare title, which is the plain
    title's company-title key) would find one from the other."""
    coded, plain = prepare_document(CODED, PARAMS), prepare_document(PLAIN, PARAMS)
    assert coded.block_key != plain.block_key
    assert not set(coded.band_keys) & set(plain.band_keys)
    loose = company_title_key(plain.company_key, plain.title_key)
    assert set(coded.lookup_keys) & set(plain.lookup_keys) == {coded.bare_key, loose}


@pytest.mark.parametrize("order", [(CODED, PLAIN), (PLAIN, CODED)])
def test_a_title_with_a_requisition_code_finds_the_plain_title_either_way(
    overlap_client: TestClient, order: tuple[dict[str, Any], dict[str, Any]]
) -> None:
    first, second = order
    dedup(overlap_client, first)

    decision = dedup(overlap_client, second)

    assert candidate_ids(decision) == [first["id"]]


def test_a_title_naming_the_town_is_kept_as_a_candidate_however_little_text_vouches(
    overlap_client: TestClient,
) -> None:
    """An employer posts one text in many towns, each title naming its town: the index then
    calls that text boilerplate, and only the title links the town's re-post under the plain
    title to it. The texts here share nothing, as a sketch without boilerplate may."""
    town = posting(
        "ft-1",
        "Employé(e) de ménage H/F - Largentière",
        "07 - LARGENTIERE",
        generated_text(1, 120),
    )
    other_town = posting(
        "ft-2", "Employé(e) de ménage H/F - Lanas", "07 - LANAS", generated_text(2, 120)
    )
    other_role = posting(
        "ft-3", "Auxiliaire de vie H/F - Largentière", "07 - LARGENTIERE", generated_text(3, 120)
    )
    for ad in (town, other_town, other_role):
        dedup(overlap_client, ad)

    repost = dedup(
        overlap_client,
        posting("ft-4", "Employé(e) de ménage H/F", "07 - LARGENTIERE", generated_text(4, 120)),
    )

    assert candidate_ids(repost) == ["ft-1"]
