"""`location_in_other_description`: two different towns count only by the words that set
their names apart (FEATURE_VERSION 8), also for a commune the gazetteer lacks (9)."""

from __future__ import annotations

import pytest

from classifier.features import FEATURE_NAMES, pair_features

TEXT = "Garde d'enfants au domicile d'une famille. Le poste est sur la ville de {town} ({code})."


def _named(a_location: str, a_text: str, b_location: str, b_text: str) -> float:
    """`location_in_other_description` of two childcare ads at the locations given."""
    a = {
        "id": "a",
        "title": "Garde d'enfant à domicile (H/F)",
        "description": a_text,
        "location": a_location,
    }
    b = {**a, "id": "b", "description": b_text, "location": b_location}
    row = dict(zip(FEATURE_NAMES, pair_features(a, b), strict=True))
    return float(row["location_in_other_description"])


def _mentioned(a_town: str, a_code: str, b_town: str, b_code: str, text: str = TEXT) -> float:
    return _named(
        f"77 - {a_town}",
        text.format(town=a_town, code=a_code),
        f"77 - {b_town}",
        text.format(town=b_town, code=b_code),
    )


def test_communes_sharing_a_word_are_not_named_by_it() -> None:
    assert _mentioned("Lagny-sur-Marne", "77400", "Vaires-sur-Marne", "77360") == 0.0


def test_a_text_listing_both_towns_names_them() -> None:
    both = "Poste à pourvoir à Lagny-sur-Marne ou à Vaires-sur-Marne ({town}, {code})."
    assert _mentioned("Lagny-sur-Marne", "77400", "Vaires-sur-Marne", "77360", both) == 1.0


def test_a_short_form_of_a_long_name_still_names_the_town() -> None:
    a = {
        "id": "a",
        "title": "Approvals Administrator",
        "description": "Based in Manchester or Newcastle, with travel between the two.",
        "location": "Manchester M1 3DZ",
    }
    b = {**a, "id": "b", "location": "Newcastle upon Tyne NE2 4NQ"}
    row = dict(zip(FEATURE_NAMES, pair_features(a, b), strict=True))
    assert row["location_in_other_description"] == 1.0


@pytest.mark.parametrize(
    ("a_location", "a_town", "b_location", "b_town"),
    [
        # The Bas-Rhin with the commune unresolved, against a gazetteer town; "Saverne" is
        # in both names.
        (
            "67 - ERNOLSHEIM LES SAVERNE",
            "Ernolsheim-lès-Saverne",
            "67 - NEUWILLER LES SAVERNE",
            "Neuwiller-lès-Saverne",
        ),
        # "petite" is a word of any French childcare ad, "sur" of any French text.
        ("66 - ILLE SUR TET", "Ille-sur-Têt", "57 - MOYEUVRE PETITE", "Moyeuvre-Petite"),
    ],
    ids=["commune-the-gazetteer-lacks", "one-common-word"],
)
def test_two_communes_are_named_only_by_all_their_own_words(
    a_location: str, a_town: str, b_location: str, b_town: str
) -> None:
    text = "Garde d'enfants en bas âge, petite fille de 3 ans, sur {town}."
    named = _named(a_location, text.format(town=a_town), b_location, text.format(town=b_town))
    assert named == 0.0


def test_a_commune_the_gazetteer_lacks_is_named_by_all_its_own_words() -> None:
    """The counterpart of the test above: each text names the other's commune in full."""
    text = "Garde d'enfants, familles à Ernolsheim-lès-Saverne et Neuwiller-lès-Saverne."
    named = _named("67 - ERNOLSHEIM LES SAVERNE", text, "67 - NEUWILLER LES SAVERNE", text)
    assert named == 1.0
