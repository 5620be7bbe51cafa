"""`title_label_one_sided` (FEATURE_VERSION 14, 15): one title written in both genders in full,
as a job centre's occupation label, the other in the employer's way and naming the label's
occupation word. The folded titles the other title features compare no longer show that
form."""

from __future__ import annotations

import math

import pytest

from classifier.features import FEATURE_NAMES, pair_features
from classifier.fields import extract_fields

TEXT = (
    "Rattaché au cadre de santé du service de soins de suite et de réadaptation, vous "
    "dispensez des soins généraux aux patients hospitalisés. Poste en CDI à temps plein."
)


def _feature(title_a: str, title_b: str) -> float:
    a = {"id": "a", "title": title_a, "description": TEXT, "company": "Clinique du Parc"}
    b = {**a, "id": "b", "title": title_b}
    row = dict(zip(FEATURE_NAMES, pair_features(a, b), strict=True))
    return float(row["title_label_one_sided"])


@pytest.mark.parametrize(
    ("title", "words"),
    [
        ("Infirmier / Infirmière de soins généraux", {"infirmier"}),
        ("Aide ménager / ménagère à domicile", {"menager"}),
        ("Chauffeur routier / Chauffeuse routière", {"chauffeur", "routier"}),
        ("Verkäufer/in Lebensmittel", {"verkaufer"}),
        # EURES appends the Bundesagentur's label to German ads' titles: its word, not the
        # "m" of "(m/w/d)" nor "IAM" before the first slash
        (
            "Security Support Engineer (IAM/Cloud) (M/F/D) (Sicherheitstechniker/in)",
            {"sicherheitstechniker"},
        ),
        ("Führungskraft (m/w/d) (Projektleiter/in)", {"projektleiter"}),
        ("Nurse/In-Patients", set()),
        ("Vendedor / Vendedora", {"vendedor"}),
        ("Infirmier H/F en SSR - CDI", set()),  # a marker, not a word in both genders
        ("Chargé(e) de recrutement (H/F)", set()),
        ("Manager / Management trainee", set()),  # a slash between two words
        ("Data Engineer", set()),
    ],
)
def test_the_words_a_title_writes_in_both_genders(title: str, words: set[str]) -> None:
    assert extract_fields({"title": title, "description": TEXT}).title_label_words == words


def test_a_label_against_the_employers_title_is_one_sided() -> None:
    assert _feature("Infirmier H/F en SSR", "Infirmier / Infirmière de soins généraux") == 1.0


def test_the_feature_is_symmetric() -> None:
    assert _feature("Infirmier / Infirmière de soins généraux", "Infirmier H/F en SSR") == 1.0


def test_the_employers_title_may_name_the_occupation_in_another_form() -> None:
    assert _feature("Aide ménagère à domicile H/F", "Aide ménager / ménagère à domicile") == 1.0
    assert _feature("Chauffeurs routiers", "Chauffeur routier / Chauffeuse routière") == 1.0


def test_a_label_of_another_occupation_is_not_read_as_a_relay() -> None:
    # the same employer's other role, written as a label: nothing says it is this job
    assert _feature("Secrétaire comptable (H/F)", "Opérateur / Opératrice de saisie") == 0.0


def test_two_labels_or_two_employer_titles_are_not() -> None:
    assert _feature("Infirmier / Infirmière", "Infirmier / Infirmière de bloc") == 0.0
    assert _feature("Infirmier / Infirmière de bloc", "Vendeur / Vendeuse") == 0.0
    assert _feature("Infirmier H/F", "Comptable fournisseurs") == 0.0


def test_an_empty_title_is_unknown() -> None:
    assert math.isnan(_feature("", "Infirmier / Infirmière"))
