"""A partner feed's copy whose UTF-8 was read as Windows-1252, through /dedup with the shipped
classifier: "Vous Ãªtes" is "Vous êtes" (`indexer.text.repair_encoding`).

Every accented word of such a copy differs from the board's original, which the index and the
classifier compared as written until the repair: 141 of 200 mis-decoded copies of France
Travail ads were scored as other vacancies.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.support import dedup, get_json
from tests.misdecoding import as_windows_1252

ORIGINAL_TEXT = (
    "Vous êtes à la recherche d'un poste où l'exigence et la qualité du service sont au cœur "
    "du métier ? Notre établissement de santé, situé à Privas, recrute un(e) préparateur(rice) "
    "en pharmacie hospitalière.\n\n"
    "Vos missions : préparer et délivrer les traitements aux services de soins, gérer les "
    "stocks de médicaments et de dispositifs médicaux, réaliser les préparations stériles sous "
    "la responsabilité du pharmacien, participer à la traçabilité des produits dérivés du sang "
    "et à la rétrocession aux patients extérieurs.\n\n"
    "Votre profil : titulaire du brevet professionnel de préparateur en pharmacie, idéalement "
    "du diplôme de préparateur hospitalier, vous êtes rigoureux(se), organisé(e) et doté(e) "
    "d'un réel sens de l'écoute. Une première expérience en établissement est appréciée.\n\n"
    "Poste à pourvoir dès que possible, en CDI à temps plein, du lundi au vendredi. "
    "Rémunération selon la grille de la fonction publique hospitalière, prime de service, "
    "accès au restaurant du personnel et crèche d'entreprise."
)

ORIGINAL = {
    "id": "ft-1",
    "title": "Préparateur / Préparatrice en pharmacie hospitalière (H/F)",
    "company": "Hôpital Sainte-Marie",
    "location": "07 - Privas",
    "description": ORIGINAL_TEXT,
    "posted_at": "2025-05-12",
    "source": "france_travail",
}


def relayed(original: dict[str, Any], posting_id: str, **changes: Any) -> dict[str, Any]:
    """The partner feed's copy: every text field mis-decoded, posted two days later."""
    fields = ("title", "company", "location", "description")
    copy = {**original, **{f: as_windows_1252(original[f]) for f in fields}, **changes}
    return {**copy, "id": posting_id, "posted_at": "2025-05-14", "source": "partner_feed"}


def test_the_fixture_is_mis_decoded_throughout() -> None:
    copy = relayed(ORIGINAL, "partner-1")
    assert "Vous Ãªtes" in copy["description"] and "HÃ´pital" in copy["company"]


def test_a_mis_decoded_relay_joins_its_original(client: TestClient) -> None:
    dedup(client, ORIGINAL)

    relay = dedup(client, relayed(ORIGINAL, "partner-1"))

    assert relay["status"] == "duplicate"
    assert relay["duplicate_of"] == "ft-1"


def test_the_original_after_its_mis_decoded_relay_joins_it(client: TestClient) -> None:
    dedup(client, {**relayed(ORIGINAL, "partner-1"), "posted_at": "2025-05-10"})

    original = dedup(client, ORIGINAL)

    assert original["status"] == "duplicate"
    assert original["duplicate_of"] == "partner-1"


def test_the_relay_is_stored_as_it_was_sent(client: TestClient) -> None:
    """The repair is how texts are compared, not a change to what the client sent."""
    copy = relayed(ORIGINAL, "partner-1")
    dedup(client, copy)

    stored = get_json(client, "/postings/partner-1")

    assert stored["posting"]["description"] == copy["description"]


def test_another_vacancy_of_the_employer_stays_apart(client: TestClient) -> None:
    dedup(client, ORIGINAL)
    other = relayed(
        ORIGINAL,
        "partner-2",
        title=as_windows_1252("Infirmier / Infirmière de bloc opératoire (H/F)"),
        description=as_windows_1252(
            "Vous êtes infirmier(ère) diplômé(e) d'État et souhaitez rejoindre le bloc "
            "opératoire de notre établissement ? Vos missions : accueil du patient, "
            "instrumentation, circulation et préparation de la salle, gestion des "
            "dispositifs médicaux stériles, traçabilité. Astreintes rémunérées. "
            "Poste en CDI à temps plein, horaires en 12 heures."
        ),
    )

    decision = dedup(client, other)

    assert decision["status"] == "new"
