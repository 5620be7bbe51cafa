"""Titles written in both genders read with one form (`classifier.gender_forms`)."""

from __future__ import annotations

import pytest

from classifier.features import FEATURE_NAMES, pair_features
from classifier.fields import extract_fields
from classifier.gender_forms import fold_gender_forms, is_other_gender


@pytest.mark.parametrize(
    ("title", "folded"),
    [
        ("Vendeur / Vendeuse en équipement de la maison", "Vendeur en équipement de la maison"),
        (
            "Conducteur collecteur / Conductrice collectrice de lait",
            "Conducteur collecteur de lait",
        ),
        ("Aide ménager / ménagère à domicile (H/F)", "Aide ménager à domicile (H/F)"),
        ("Ménagère/ménager à domicile (H/F)", "ménager à domicile (H/F)"),
        ("Technicien / Technicienne support technique", "Technicien support technique"),
        ("Chargé / Chargée de clientèle", "Chargé de clientèle"),
        ("Cuisinier/Cuisinière", "Cuisinier"),
        ("Verkäufer/in", "Verkäufer"),
        ("Ingenieur/-in Luft- und Raumfahrttechnik", "Ingenieur Luft- und Raumfahrttechnik"),
        ("Vendedor / Vendedora de tienda", "Vendedor de tienda"),
        ("Enfermeiro / Enfermeira", "Enfermeiro"),
        ("Verkäufer / Verkäuferin", "Verkäufer"),
        ("Koch/Köchin", "Koch"),
        ("SAVJETNIK/SAVJETNICA", "SAVJETNIK"),
        ("Konobar / konobarica", "Konobar"),
        # labels write the whole phrase twice, words of both genders included
        (
            "Secrétaire administratif / Secrétaire administrative (H/F)",
            "Secrétaire administratif (H/F)",
        ),
        ("Technico-commercial / Technico-commerciale", "Technico-commercial"),
        ("Conducteur-receveur / Conductrice-receveuse", "Conducteur-receveur"),
        ("Manager / Manageuse restauration rapide", "Manager restauration rapide"),
        ("Vendeur / Vendeuse - Paris", "Vendeur - Paris"),
    ],
)
def test_the_second_form_of_a_double_gender_word_goes(title: str, folded: str) -> None:
    assert fold_gender_forms(title) == folded


@pytest.mark.parametrize(
    "title",
    [
        "Data Engineer (m/w/d)",
        "Sales Manager / Management Trainee",
        "Staff Nurse / Midwife",
        "Infirmier (H/F)",
        "Band 5 / Band 6 Nurse",
        "Serveur",
        "Bank Registered Nurse/In-Patients",  # "In-" starts a word, it is no German "/in"
        "Projeteur électricité CFO/CFA H/F",  # two acronyms, not two genders
        "Data Analyst / Data Scientist",  # shared words, but no word of another gender
        "Chef de projet / Chef de chantier",
    ],
)
def test_other_slashes_stay_as_written(title: str) -> None:
    assert fold_gender_forms(title) == title


def test_other_gender_needs_a_french_ending() -> None:
    assert is_other_gender("Directeur", "directrice")
    assert is_other_gender("livreuse", "Livreur")
    assert is_other_gender("technicien", "technicienne")
    assert is_other_gender("sportif", "sportive")
    assert not is_other_gender("manager", "management")
    assert not is_other_gender("h", "f")
    assert not is_other_gender("nurse", "nurse")


def test_a_job_centre_label_reads_like_the_employers_title() -> None:
    employer = {"id": "a", "title": "Vendeur rayon traiteur (H/F)", "description": "Vente."}
    label = {"id": "b", "title": "Vendeur / Vendeuse rayon traiteur", "description": "Vente."}
    a, b = extract_fields(employer), extract_fields(label)
    assert a.title_key == b.title_key == "vendeur rayon traiteur"
    row = dict(zip(FEATURE_NAMES, pair_features(employer, label), strict=True))
    assert row["title_equal"] == 1.0
