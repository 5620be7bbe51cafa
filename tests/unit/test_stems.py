"""Title words compared without inflection (`classifier.stems`, title features)."""

from __future__ import annotations

import pytest

from classifier.features import FEATURE_NAMES, pair_features
from classifier.stems import stem_words


def stem_key(key: str, language: str | None) -> str:
    return " ".join(stem_words(key.split(), language))


DESCRIPTION = (
    "Nous recherchons une personne pour garder deux enfants au domicile des parents, "
    "le matin et le soir, du lundi au vendredi."
)


@pytest.mark.parametrize(
    ("language", "one", "other"),
    [
        ("fr", "garde d enfants a domicile", "garde d enfant a domicile"),
        ("fr", "planificateur industriel", "planificateur industrielle"),
        ("en", "staff nurses", "staff nurse"),
        ("de", "pflegefachkrafte", "pflegefachkraft"),
        ("es", "enfermeros", "enfermero"),
        ("pl", "pielegniarki", "pielegniarka"),
    ],
)
def test_inflections_of_one_word_meet(language: str, one: str, other: str) -> None:
    assert stem_key(one, language) == stem_key(other, language)


@pytest.mark.parametrize(
    ("language", "one", "other"),
    [
        ("fr", "technicien", "technique"),
        ("fr", "developpeur", "developpement"),
        ("en", "staff nurse ward 5", "staff nurse ward 6"),
        ("en", "band 5 nurse", "band 6 nurse"),
    ],
)
def test_other_words_and_numbers_stay_apart(language: str, one: str, other: str) -> None:
    assert stem_key(one, language) != stem_key(other, language)


def test_without_a_stemmer_the_words_stay() -> None:
    assert stem_key("garde enfants", None) == "garde enfants"
    assert stem_key("garde enfants", "xx") == "garde enfants"


def test_a_plural_in_the_title_is_the_same_title() -> None:
    one = {"id": "a", "title": "Garde d'enfants à domicile (H/F)", "description": DESCRIPTION}
    other = {"id": "b", "title": "Garde d'enfant à domicile", "description": DESCRIPTION}
    row = dict(zip(FEATURE_NAMES, pair_features(one, other), strict=True))
    assert row["title_equal"] == 1.0
    assert row["title_token_set_ratio"] == 1.0
    assert row["title_diff_tokens"] == 0.0


def test_one_gender_on_each_side_is_the_same_title() -> None:
    text = "Entretien du domicile de personnes âgées, du lundi au vendredi, en CDI."
    one = {"id": "a", "title": "Aide ménagère (H/F)", "description": text}
    other = {"id": "b", "title": "Aide ménager / ménagère à domicile", "description": text}
    row = dict(zip(FEATURE_NAMES, pair_features(one, other), strict=True))
    assert row["title_token_set_ratio"] == 1.0
