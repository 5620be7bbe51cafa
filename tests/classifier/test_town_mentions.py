"""`location_in_other_description`: two different towns count only by the words that set
their names apart (FEATURE_VERSION 8), also for a commune the gazetteer lacks (9)."""

from __future__ import annotations

from classifier.features import FEATURE_NAMES, pair_features

TEXT = "Garde d'enfants au domicile d'une famille. Le poste est sur la ville de {town} ({code})."


def _mentioned(a_town: str, a_code: str, b_town: str, b_code: str, text: str = TEXT) -> float:
    a = {
        "id": "a",
        "title": "Garde d'enfant à domicile (H/F)",
        "description": text.format(town=a_town, code=a_code),
        "location": f"77 - {a_town}",
    }
    b = {**a, "id": "b", "description": text.format(town=b_town, code=b_code)}
    b["location"] = f"77 - {b_town}"
    row = dict(zip(FEATURE_NAMES, pair_features(a, b), strict=True))
    return float(row["location_in_other_description"])


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


def test_a_commune_the_gazetteer_lacks_counts_by_its_own_words() -> None:
    # "67 - ERNOLSHEIM LES SAVERNE" is the Bas-Rhin with the commune unresolved; its
    # neighbour Neuwiller-lès-Saverne is a gazetteer town. "Saverne" is in both names.
    a = {
        "id": "a",
        "title": "Garde d'enfant à domicile (H/F)",
        "description": "Garde d'enfants à Ernolsheim-lès-Saverne (67700), deux enfants.",
        "location": "67 - ERNOLSHEIM LES SAVERNE",
    }
    b = {
        **a,
        "id": "b",
        "description": "Garde d'enfants à Neuwiller-lès-Saverne (67330), deux enfants.",
        "location": "67 - NEUWILLER LES SAVERNE",
    }
    row = dict(zip(FEATURE_NAMES, pair_features(a, b), strict=True))
    assert row["location_in_other_description"] == 0.0


def test_a_town_is_named_by_all_its_own_words_not_one_common_word() -> None:
    # "petite" is a word of any French childcare ad, "sur" of any French text.
    text = "Garde d'enfants en bas âge, petite fille de 3 ans, sur {town}."
    a = {
        "id": "a",
        "title": "Garde d'enfant à domicile (H/F)",
        "description": text.format(town="Ille-sur-Têt"),
        "location": "66 - ILLE SUR TET",
    }
    b = {
        **a,
        "id": "b",
        "description": text.format(town="Moyeuvre-Petite"),
        "location": "57 - MOYEUVRE PETITE",
    }
    row = dict(zip(FEATURE_NAMES, pair_features(a, b), strict=True))
    assert row["location_in_other_description"] == 0.0
