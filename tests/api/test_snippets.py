"""Aggregator snippets through /dedup: found through lead fingerprints, never bridging clusters.

The snippet (`tests.snippets`) is the first 480 characters of a full ad, under "Acme" where
the full ad says "Acme Assurances": different block keys and no shared LSH band key, so before
lookup keys it never met its full ad. Candidates are checked, not verdicts: which score a
snippet gets is the classifier's business, so the overlap baseline scores here (candidates do
not depend on the scorer). The bridging rule is checked at threshold 0.7, so that the snippet
is a duplicate of both clusters it links.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from classifier.scoring import candidate_for
from indexer.minhash import SketchParams
from indexer.prepare import prepare_document, to_stored
from service.api import create_app
from service.pipeline import CONTAINMENT_MIN_OVERLAP, MAX_PARTIAL_CANDIDATES
from service.settings import Settings
from tests.api.postings import generated_text
from tests.api.support import candidate_ids, dedup, get_json
from tests.snippets import (
    ACME_INTRO,
    ANALYST_FULL,
    BAKER_FULL,
    DATA_ENGINEER_FULL,
    DATA_ENGINEER_SNIPPET,
    INTRO_SNIPPET_TEXT,
    WTTJ_FULL,
    WTTJ_INTRO_SNIPPET,
    ad,
)

PARAMS = SketchParams()


def test_a_snippet_posted_after_its_full_ad_is_a_candidate_of_it(
    overlap_client: TestClient,
) -> None:
    dedup(overlap_client, DATA_ENGINEER_FULL)
    dedup(overlap_client, BAKER_FULL)

    snippet = dedup(overlap_client, DATA_ENGINEER_SNIPPET)

    assert candidate_ids(snippet) == ["wttj-1"]
    found = snippet["candidates"][0]
    assert found["overlap"] >= 0.8  # the snippet is contained in the full ad


def test_a_snippet_of_only_the_intro_is_a_candidate_through_the_company_title_key(
    overlap_client: TestClient,
) -> None:
    """The snippet's text is the full ad's company section, which the full ad's sketch leaves
    out: the estimated overlap is 0, and the hit through the company-title key is kept as a
    block-key hit would be."""
    dedup(overlap_client, WTTJ_FULL)
    dedup(overlap_client, BAKER_FULL)

    snippet = dedup(overlap_client, WTTJ_INTRO_SNIPPET)

    assert candidate_ids(snippet) == ["wttj-3"]
    assert snippet["candidates"][0]["overlap"] < CONTAINMENT_MIN_OVERLAP


@pytest.mark.parametrize(
    "title",
    [
        "Offre d'emploi : Data Engineer (H/F)",
        "Offre d’emploi - Data Engineer (H/F) - Réf. DE20931",
        "[Urgent] Data Engineer",
        "URGENT - Offre d'emploi : Data Engineer (H/F)",  # lead-ins stacked
    ],
)
def test_an_intro_snippet_under_a_board_s_lead_in_is_a_candidate_of_the_full_ad(
    overlap_client: TestClient, title: str
) -> None:
    """An aggregator that both decorates the title and names the employer another way: the
    company-title key of the decorated title and the bare-title key (whole company key) both
    miss, the company-title key of the bare title does not."""
    dedup(overlap_client, WTTJ_FULL)
    dedup(overlap_client, BAKER_FULL)

    snippet = dedup(overlap_client, {**WTTJ_INTRO_SNIPPET, "title": title})

    assert candidate_ids(snippet) == ["wttj-3"]


def test_an_intro_snippet_under_a_lead_in_and_another_title_is_no_candidate(
    overlap_client: TestClient,
) -> None:
    dedup(overlap_client, WTTJ_FULL)

    other = {**WTTJ_INTRO_SNIPPET, "title": "Offre d'emploi : Actuaire (H/F)"}
    assert candidate_ids(dedup(overlap_client, other)) == []


@pytest.mark.parametrize("order", ["full first", "snippet first"])
def test_an_intro_snippet_naming_no_employer_is_a_candidate_of_the_full_ad(
    overlap_client: TestClient, order: str
) -> None:
    """No company, so no company-title or bare-title key of the full ad's; the intro is the
    full ad's company section, so no lead fingerprint: only the opening keys meet."""
    snippet = {**WTTJ_INTRO_SNIPPET, "company": None, "posted_at": "2025-03-01"}
    first, second = (WTTJ_FULL, snippet) if order == "full first" else (snippet, WTTJ_FULL)
    dedup(overlap_client, first)
    dedup(overlap_client, BAKER_FULL)

    assert candidate_ids(dedup(overlap_client, second)) == [first["id"]]


@pytest.mark.parametrize("order", ["full first", "snippet first"])
def test_an_intro_snippet_of_a_title_naming_its_departement_is_a_candidate(
    overlap_client: TestClient, order: str
) -> None:
    """The board's title names the town and its département number ("- Lyon (69)"), the
    aggregator lists the département and its length limit cut the title inside the number:
    the listing's words cannot take "Lyon" out of the snippet's title, the number can."""
    full = {**WTTJ_FULL, "title": "CDD Data Engineer H/F - LYON (69)"}
    snippet = {
        **WTTJ_INTRO_SNIPPET,
        "title": "URGENT - CDD Data Engineer H/F - LYON (69",
        "company": None,
        "location": "Rhône",
        "posted_at": "2025-03-01" if order == "snippet first" else "2025-03-05",
    }
    first, second = (full, snippet) if order == "full first" else (snippet, full)
    dedup(overlap_client, first)
    dedup(overlap_client, BAKER_FULL)

    assert candidate_ids(dedup(overlap_client, second)) == [first["id"]]


def test_a_full_ad_posted_after_its_snippet_finds_the_snippet(overlap_client: TestClient) -> None:
    dedup(overlap_client, {**DATA_ENGINEER_SNIPPET, "posted_at": "2025-03-01"})

    full = dedup(overlap_client, DATA_ENGINEER_FULL)

    assert candidate_ids(full) == ["adzuna-1"]


def test_a_snippet_linking_two_clusters_does_not_merge_them(tmp_path: Path) -> None:
    # Two vacancies of one employer open with the same intro; an aggregator's snippet holds
    # only that intro, under the aggregator's spelling of the employer. It is contained in
    # both ads (a duplicate of each for the overlap scorer), joins one cluster, merges none.
    settings = Settings(data_dir=tmp_path, scorer="overlap", threshold=0.7)
    with TestClient(create_app(settings)) as client:
        engineer = dedup(client, DATA_ENGINEER_FULL)
        analyst = dedup(client, {**ANALYST_FULL, "posted_at": "2025-03-04"})
        assert (engineer["status"], analyst["status"]) == ("new", "new")

        snippet = dedup(
            client,
            ad("adzuna-9", title="Acme recrute", company="Adzuna", description=INTRO_SNIPPET_TEXT),
        )

        assert sorted(candidate_ids(snippet)) == ["wttj-1", "wttj-2"]
        assert all(c["score"] >= 0.7 for c in snippet["candidates"])
        assert snippet["status"] == "duplicate"
        assert snippet["duplicate_type"] == "partial"
        assert snippet["cluster_id"] in ("wttj-1", "wttj-2")
        for cluster_id in ("wttj-1", "wttj-2"):
            cluster = get_json(client, f"/clusters/{cluster_id}")
            assert cluster["id"] == cluster_id
            assert cluster["aliases"] == []
        assert (
            get_json(client, "/clusters/wttj-1")["size"]
            + get_json(client, "/clusters/wttj-2")["size"]
            == 3
        )


def test_an_intro_snippet_fetches_a_bounded_number_of_the_employers_ads(
    tmp_path: Path,
) -> None:
    # Without learned boilerplate every ad of the employer keeps its intro, and the snippet
    # of that intro is contained in each of them: the partial candidates are capped.
    settings = Settings(data_dir=tmp_path, scorer="overlap", threshold=0.7, boilerplate=False)
    with TestClient(create_app(settings)) as client:
        for n in range(MAX_PARTIAL_CANDIDATES + 4):
            vacancy = ad(
                f"acme-{n}",
                title=f"Poste {n}",
                company="Acme Assurances",
                description=ACME_INTRO + "\n\nVos missions\n\n" + generated_text(seed=500 + n),
            )
            assert dedup(client, vacancy)["status"] == "new"

        snippet = dedup(
            client,
            ad("adzuna-9", title="Acme recrute", company="Adzuna", description=INTRO_SNIPPET_TEXT),
        )

        assert len(snippet["candidates"]) == MAX_PARTIAL_CANDIDATES
        assert len(get_json(client, "/clusters", min_size=2)["clusters"]) == 1


def test_ads_sharing_only_an_opening_are_not_candidates_through_lookup_keys(
    overlap_client: TestClient,
) -> None:
    # Two vacancies of one size share their first 50 words and nothing else: the lead
    # fingerprints meet, but an overlap of about 0.3 is no containment, and without a shared
    # band key or block key the hit is dropped (CONTAINMENT_MIN_OVERLAP).
    opening = generated_text(seed=700, words=50)
    first = ad("a", title="Poste A", company="Acme", description=f"{opening} {generated_text(701)}")
    second = ad(
        "b", title="Poste B", company="Acme", description=f"{opening} {generated_text(702)}"
    )
    query, other = prepare_document(second, PARAMS), prepare_document(first, PARAMS)
    assert set(query.lookup_keys) & set(other.lookup_keys)
    assert not set(query.band_keys) & set(other.band_keys)
    overlap = candidate_for(query, to_stored(other, "a")).overlap
    assert 0.2 <= overlap < CONTAINMENT_MIN_OVERLAP

    dedup(overlap_client, first)

    assert candidate_ids(dedup(overlap_client, second)) == []
