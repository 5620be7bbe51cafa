"""The unit a title names (classifier.title_units, feature title_unit_conflict), and the
employer's compass words kept in the compared titles (features._title_features)."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from classifier.features import FEATURE_NAMES, pair_features
from classifier.fields import extract_fields
from classifier.mutations import SPECIALTIES, UNIT_FORMS, Donors, other_specialty
from tests.classifier.postings import ADVISOR_NL, DEVELOPER_FR, ENGINEER_DE, NURSE_EN


def _units(title: str, base: dict[str, Any] = NURSE_EN) -> frozenset[str]:
    """The numbers (as "#n") and compass points the title names."""
    fields = extract_fields({**base, "title": title})
    return frozenset(f"#{n}" for n in fields.title_numbers) | fields.title_points


def _unit_conflict(first: str, second: str) -> float:
    a = {**NURSE_EN, "id": "a", "title": first}
    return _feature("title_unit_conflict", a, {**a, "id": "b", "title": second})


def _feature(name: str, a: dict[str, Any], b: dict[str, Any]) -> float:
    return float(pair_features(a, b)[FEATURE_NAMES.index(name)])


@pytest.mark.parametrize(
    ("title", "units"),
    [
        ("Staff Nurse (Ward 6)", {"#6"}),
        ("Staff Nurse - 7 North", {"#7", "north"}),
        ("Bank Nurse - West Essex", {"west"}),
        ("CONSULTANT IN EMERGENCY MEDICINE (POST 2)", {"#2"}),
        ("Conducteur de cars (07) H/F", {"#7"}),  # "H/F" is no "h" of hours
        ("Covid-19 Vaccinator - Hub 3", {"#3"}),
    ],
)
def test_a_title_names_its_unit(title: str, units: set[str]) -> None:
    assert _units(title) == units


@pytest.mark.parametrize(
    "title",
    [
        "Phlebotomist - 16 hours per week",
        "Specialty Doctor in Anaesthetics (2 POSTS)",
        "Consultant Psychiatrist - 11 PA",
        "Band 5 Staff Nurse",
        "Registered Nurse with £5,000 Welcome Bonus",
        "Staff Nurse 37.5 hours",
        "Agent de production 35h",
        "Trust Doctor CT1",
        "Stage Data Engineer - 6 mois",
        "Data Engineer - Réf 123",
        "Staff Nurse [SYS-33448]",
    ],
)
def test_quantities_grades_money_and_references_name_no_unit(title: str) -> None:
    assert _units(title) == frozenset()


def test_compass_words_are_read_in_english_and_the_titles_own_language() -> None:
    assert _units("Responsable secteur Est (H/F)", DEVELOPER_FR) == {"east"}
    assert _units("Responsable secteur Nord", DEVELOPER_FR) == {"north"}
    # "est" is no compass point in an English title
    assert _units("Nurse est. 2020") == frozenset()


def test_unit_conflict_is_three_valued() -> None:
    assert _unit_conflict("Staff Nurse - Ward 6", "Staff Nurse - Ward 7") == 1.0
    assert _unit_conflict("Staff Nurse - 7 South", "Staff Nurse - 7 North") == 1.0
    assert _unit_conflict("Staff Nurse - 7 North", "Staff Nurse - Ward 7") == 0.0
    assert _unit_conflict("Staff Nurse - North West", "Staff Nurse - West") == 0.0
    assert math.isnan(_unit_conflict("Staff Nurse - Ward 6", "Staff Nurse"))
    assert math.isnan(_unit_conflict("Staff Nurse - Ward 6", "Staff Nurse - North"))


def test_two_wards_of_one_text_conflict_and_a_unit_on_one_side_is_unknown() -> None:
    ward_6 = {**NURSE_EN, "id": "w6", "title": "Staff Nurse - Ward 6 - Goole"}
    ward_7 = {**NURSE_EN, "id": "w7", "title": "Staff Nurse - Ward 7 - Goole"}
    plain = {**NURSE_EN, "id": "w", "title": "Staff Nurse - Goole"}
    assert _feature("title_unit_conflict", ward_6, ward_7) == 1.0
    assert _feature("title_unit_conflict", ward_6, {**ward_6, "id": "again"}) == 0.0
    assert math.isnan(_feature("title_unit_conflict", ward_6, plain))


def test_an_employers_compass_words_stay_in_the_titles() -> None:
    """The employer's identifying words are dropped from both titles; "North" and "West" of
    "London North West University Healthcare" identify no employer, and dropping them made
    "Staff Nurse - 7 North" and "Staff Nurse - 7 South" one title (token set ratio 1)."""
    company = "London North West University Healthcare NHS Trust"
    south = {**NURSE_EN, "id": "s", "title": "Staff Nurse - 7 South", "company": company}
    north = {**NURSE_EN, "id": "n", "title": "Staff Nurse - 7 North", "company": company}
    assert _feature("title_token_set_ratio", south, north) < 0.95
    assert _feature("title_equal", south, north) == 0.0
    # the employer's own word is still dropped: "Acme" named in one title only
    acme = {**NURSE_EN, "company": "Acme Care", "title": "Staff Nurse - Acme"}
    assert _feature("title_equal", acme, {**acme, "id": "x", "title": "Staff Nurse"}) == 1.0


def test_the_training_mutation_names_two_units_that_conflict() -> None:
    rng = random.Random(5)
    donors = Donors(titles=(), locations=(), employers=())
    seen: set[str] = set()
    for _ in range(400):
        made = other_specialty(NURSE_EN, rng, donors)
        assert made is not None
        if made[0]["title"].endswith(tuple(SPECIALTIES)):
            continue
        assert _feature("title_unit_conflict", *made) == 1.0
        seen.add(made[0]["title"])
    assert len(seen) > len(UNIT_FORMS)


@pytest.mark.parametrize(
    ("base", "first", "second"),
    [
        (ENGINEER_DE, "Pflegefachkraft (m/w/d) Station 3", "Pflegefachkraft (m/w/d) Station 4"),
        (ENGINEER_DE, "Vertriebsleiter Region Nord (m/w/d)", "Vertriebsleiter Region Süd (m/w/d)"),
        (ENGINEER_DE, "Vertriebsleiter Ost", "Vertriebsleiter West"),
        (ADVISOR_NL, "Adviseur regio Noord", "Adviseur regio Zuid"),
        (DEVELOPER_FR, "Commercial secteur Est (H/F)", "Commercial secteur Ouest (H/F)"),
    ],
)
def test_the_habit_in_the_other_languages(base: dict[str, Any], first: str, second: str) -> None:
    """Numbers need no language; compass points are read in the ad's own language."""
    a = {**base, "title": first}
    assert _feature("title_unit_conflict", a, {**a, "id": "other", "title": second}) == 1.0
