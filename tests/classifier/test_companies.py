"""Employers' names compared past a branch's own place and words run together
(`classifier.companies`, FEATURE_VERSION 49)."""

from __future__ import annotations

from typing import Any

import pytest

from classifier import gazetteer
from classifier.companies import company_core, company_ratio, place_names, respaced
from classifier.features import FEATURE_NAMES, pair_features
from classifier.places import location_parts
from indexer.language import stop_words
from indexer.text import clean, normalise_company

FRENCH_STOP = stop_words("fr")


def _core(company: str, location: str, stop: frozenset[str] = FRENCH_STOP) -> str:
    listing = clean(location)
    words = location_parts(listing, location)[2]
    return company_core(
        normalise_company(company), gazetteer.resolve(location), words, stop, listing
    )


@pytest.mark.parametrize(
    ("company", "location", "core"),
    [
        ("CER FRANCE ARDECHE", "07 - PRIVAS", "cer france"),  # the listing's département
        ("Domaliance Aubenas", "07 - AUBENAS", "domaliance"),  # the listing's town
        ("Yoopala Val de Marne", "Créteil", "yoopala"),  # four words: the département
        ("Cerfrance", "Privas", "cerfrance"),  # nothing closes it
        ("Orange", "Orange", "orange"),  # nothing would be left
        ("Mairie de Privas", "07 - PRIVAS", "mairie de privas"),  # the town's own institution
        ("Hôpital de Saint-Étienne", "Saint-Étienne", "hopital de saint etienne"),
        ("Keyrus France", "Paris", "keyrus france"),  # a country names another legal entity
        ("Keyrus France", "France", "keyrus"),  # ... unless the listing is that country
        ("Domaliance Aubenas", "07 - ANNONAY", "domaliance aubenas"),  # another town's branch
        ("Senior Compagnie Vogüé", "07 - VOGUE", "senior compagnie"),  # a town the gazetteer lacks
        ("GARAGE POZIN TOURNON", "07 - TOURNON SUR RHONE", "garage pozin"),  # a longer name's
        ("EXPANSION 07 AUBENAS", "07 - AUBENAS", "expansion 07"),  # the listing's "07" is no name
        ("CASÉO Aubenas", "07 - AUBENAS", "caseo"),  # an Italian village's name is no area
        (
            "MUTUALITE FRANCAISE SUD RHONE ALPES",
            "07 - PRIVAS",
            "mutualite francaise sud rhone alpes",
        ),
    ],
)
def test_a_branch_named_by_its_own_place_compares_by_its_network(
    company: str, location: str, core: str
) -> None:
    assert _core(company, location) == core


ENGLISH_STOP = stop_words("en")


@pytest.mark.parametrize(
    ("company", "location"),
    [
        # a trust named after the area it serves: the rest would name another area's body
        ("West Suffolk NHS Foundation Trust", "Bury St. Edmunds IP33 2QZ"),
        ("East London NHS Foundation Trust", "Newham CAMHS, LONDON E13 8AL"),
        ("Royal Berkshire NHS Foundation Trust", "Royal Berkshire NHS Foundation Trust, Reading"),
        ("University Hospitals Dorset NHS Foundation Trust", "Poole, Dorset BH15 2JB"),
        ("University Hospitals Birmingham NHS Foundation Trust", "Birmingham B15 2TH"),
        ("Public Health England", "Porton Down, Salisbury SP4 0JG"),
        ("Torbay and South Devon NHS Foundation Trust", "Torquay TQ2 7AA"),
        # several areas' body, not a branch
        ("Norfolk and Suffolk NHS Foundation Trust", "Wedgwood House, Bury St Edmunds IP33 2QZ"),
        ("University Hospitals of Derby and Burton NHS Foundation Trust", "Burton On Trent"),
        # the listing writes the employer, whose last word is no branch's place
        ("Kingston Hospital NHS Foundation Trust", "Kingston Hospital, Kingston Upon Thames"),
        ("The Royal Marsden NHS Foundation Trust", "The Royal Marsden, Sutton SM2 5PT"),
        ("Swansea Bay University Health Board", "Swansea Bay University Health Board, Swansea"),
        (
            "Manchester University NHS Foundation Trust",
            "Manchester University Hospitals, Manchester",
        ),
    ],
)
def test_a_body_named_after_its_area_keeps_its_whole_name(company: str, location: str) -> None:
    assert _core(company, location, ENGLISH_STOP) == normalise_company(company)


def test_a_country_the_listing_writes_is_one_of_its_names() -> None:
    sofia = place_names(gazetteer.resolve("Sofia, Bulgaria"), ["sofia", "bulgaria"])
    assert "bulgaria" in sofia and "sofia" in sofia
    assert "france" not in place_names(gazetteer.resolve("Lyon"), ["lyon"])


def test_words_run_together_are_written_as_the_other_name_writes_them() -> None:
    assert respaced(["cer", "france"], ["cerfrance"]) == ["cerfrance"]
    assert respaced(["pole", "emploi", "services"], ["poleemploi"]) == ["poleemploi", "services"]
    # a legal form or initials joining into a short word is chance, not one name
    assert respaced(["s", "a"], ["sa"]) == ["s", "a"]
    assert respaced(["acme", "group"], ["acmegroup", "other"]) == ["acmegroup"]


@pytest.mark.parametrize(
    ("a", "b", "at_least", "below"),
    [
        ("cer france", "cerfrance", 1.0, None),
        ("domaliance", "domaliance", 1.0, None),
        ("keyrus", "keyrus france", 1.0, None),  # a subset, as token_set_ratio reads it
        ("ada", "adapei", None, 0.7),  # one name's start is no other name
        ("cerfrance", "groupama", None, 0.5),
    ],
)
def test_company_ratio(a: str, b: str, at_least: float | None, below: float | None) -> None:
    ratio = company_ratio(a, b)
    assert at_least is None or ratio >= at_least
    assert below is None or ratio < below


def _row(a: dict[str, Any], b: dict[str, Any]) -> dict[str, float]:
    return dict(zip(FEATURE_NAMES, pair_features(a, b).tolist(), strict=True))


TEXT = (
    "Nous recherchons un comptable pour notre agence. Vous tenez les dossiers de nos "
    "clients agriculteurs et artisans, établissez les bilans et conseillez les chefs "
    "d'entreprise."
)


def test_a_job_centre_naming_the_branch_reads_as_the_same_employer() -> None:
    board = {"id": "a", "title": "Comptable", "description": TEXT, "company": "Cerfrance"}
    board["location"] = "Privas"
    relay = {**board, "id": "b", "company": "CER FRANCE ARDECHE", "location": "07 - PRIVAS"}
    row = _row(board, relay)
    assert row["company_equal"] == 0.0  # the names as written still differ
    assert row["company_ratio"] == 1.0  # was 0.667
    other = {**relay, "id": "c", "company": "Groupama Rhône-Alpes Auvergne"}
    assert _row(board, other)["company_ratio"] < 0.5


def test_two_branches_of_one_network_in_two_towns_stay_two_places() -> None:
    a = {"id": "a", "title": "Aide à domicile", "description": TEXT}
    a |= {"company": "Domaliance Aubenas", "location": "07 - AUBENAS"}
    b = {**a, "id": "b", "company": "Domaliance Annonay", "location": "07 - ANNONAY"}
    row = _row(a, b)
    assert row["company_ratio"] == 1.0
    assert row["place_relation"] == 2.0  # the places say two branches, as before
    assert row["place_distance_log"] > 3.0
