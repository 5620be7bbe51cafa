"""`title_words_in_text_min` (FEATURE_VERSION 11): whether the words one title adds are
words of the other side's text. A job centre's occupation label names the job the text
describes; another role's title put on the same text does not."""

from __future__ import annotations

import math

import pytest

from classifier.features import FEATURE_NAMES, pair_features

TEXT = (
    "Rattaché au cadre de santé du service de soins de suite et de réadaptation, vous "
    "dispensez des soins généraux aux patients hospitalisés. L'infirmier assure la "
    "surveillance clinique, prépare et administre les traitements, et participe aux "
    "transmissions avec l'équipe médicale. Poste en CDI à temps plein, planning en 12 heures."
)


def _feature(title_a: str, title_b: str, text_a: str = TEXT, text_b: str = TEXT) -> float:
    a = {"id": "a", "title": title_a, "description": text_a, "company": "Clinique du Parc"}
    b = {**a, "id": "b", "title": title_b, "description": text_b}
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


@pytest.mark.parametrize(
    ("text", "employer_title", "label", "other_role"),
    [
        (
            "Buscamos un camarero con experiencia en servicio de sala para nuestro restaurante. "
            "Atenderá a los clientes y servirá mesas en turno de tarde. Contrato indefinido.",
            "Camarero/a (H/M)",
            "Camarero de sala",  # "sala": a stem under 4 letters, read by its word
            "Contable",
        ),
        (
            "Für unser Seniorenzentrum suchen wir eine engagierte Pflegefachkraft für die "
            "Altenpflege. Sie übernehmen die Grundpflege unserer Bewohner. Unbefristet.",
            "Pflegefachkraft (m/w/d) Seniorenzentrum",
            "Altenpfleger/in",
            "Buchhalter (m/w/d)",
        ),
        (
            "Rejoignez notre équipe d'aide à domicile : auxiliaire de vie, vous accompagnez des "
            "personnes âgées au quotidien, aide au repas et à la toilette. CDI à temps partiel. "
            "Poste à pourvoir dès que possible.",  # over 30 words: no stub (`stub_keys`)
            "Auxiliaire de vie (H/F)",
            "Aide à domicile",  # "aide" (stem "aid") is a word of the text
            "Comptable",
        ),
    ],
)
def test_the_habit_in_other_languages(
    text: str, employer_title: str, label: str, other_role: str
) -> None:
    assert _feature(employer_title, label, text, text) > 0.5
    assert _feature(employer_title, other_role, text, text) == 0.0
