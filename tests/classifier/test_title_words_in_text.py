"""`title_words_in_text_min` (FEATURE_VERSION 11): whether the words one title adds are
words of the other side's text. A job centre's occupation label names the job the text
describes; another role's title put on the same text does not."""

from __future__ import annotations

import math

from classifier.features import FEATURE_NAMES, pair_features

TEXT = (
    "Rattaché au cadre de santé du service de soins de suite et de réadaptation, vous "
    "dispensez des soins généraux aux patients hospitalisés. L'infirmier assure la "
    "surveillance clinique, prépare et administre les traitements, et participe aux "
    "transmissions avec l'équipe médicale. Poste en CDI à temps plein, planning en 12 heures."
)


def _feature(title_a: str, title_b: str, text_a: str = TEXT) -> float:
    a = {"id": "a", "title": title_a, "description": text_a, "company": "Clinique du Parc"}
    b = {**a, "id": "b", "title": title_b, "description": TEXT}
    row = dict(zip(FEATURE_NAMES, pair_features(a, b), strict=True))
    return float(row["title_words_in_text_min"])


def test_a_label_naming_the_job_in_the_text_is_found_there() -> None:
    # "soins" / "soin", "généraux" / "général" meet by their first five letters
    assert _feature("Infirmier H/F", "Infirmier / Infirmière de soins généraux") == 1.0


def test_another_roles_title_on_the_same_text_is_not() -> None:
    assert _feature("Infirmier H/F", "Comptable fournisseurs") == 0.0


def test_the_smaller_side_counts() -> None:
    # "chirurgie" is not in the text, "soins généraux" is: the pair reads as the smaller share
    assert _feature("Infirmier chirurgie H/F", "Infirmier / Infirmière de soins généraux") == 0.0


def test_the_text_read_is_the_other_sides() -> None:
    # the label's own words are looked up in the employer's text, here another job's
    other_text = "Tenue de la comptabilité fournisseurs, rapprochements bancaires, clôtures."
    assert _feature("Infirmier H/F", "Infirmier / Infirmière de soins généraux", other_text) == 0.0


def test_titles_with_the_same_words_have_nothing_to_look_for() -> None:
    assert math.isnan(_feature("Infirmier H/F", "Infirmière (H/F)"))
