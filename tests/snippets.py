"""Aggregator snippets and the full ads they cut, shared by the unit and API suites.

An aggregator (the Adzuna API) returns the first 250-500 characters of a description, cut
mid-sentence and ended with "…", under the same title, company and location, while the full
ad is on another board (Welcome to the Jungle, France Travail), often under another spelling
of the employer. Hand-written, realistic French ads:

- `DATA_ENGINEER_FULL`: Acme Assurances' data engineer ad (employer intro, tasks, profile,
  offer); `DATA_ENGINEER_SNIPPET` is its first 400 characters as Adzuna shows them, under
  "Acme" and another title spelling;
- `ANALYST_FULL`: another vacancy of the same employer with the same intro paragraph;
- `INTRO_SNIPPET`: a snippet holding only that intro (the two vacancies both start with it);
- `BAKER_FULL`: an unrelated ad.
"""

from __future__ import annotations

from typing import Any

ACME_INTRO = (
    "Acme Assurances, filiale du Groupe Acme, accompagne depuis plus de quarante ans les "
    "particuliers et les entreprises de la région Auvergne-Rhône-Alpes. Nos mille deux cents "
    "collaborateurs conçoivent des contrats d'assurance simples et justes, et nous investissons "
    "chaque année dans la transformation numérique de nos métiers."
)

DATA_ENGINEER_TASKS = (
    "Au sein de la Direction Data, vous rejoignez une équipe de douze personnes qui construit "
    "la plateforme de données de l'entreprise. Vous concevez et maintenez les pipelines "
    "d'ingestion des contrats et des sinistres, depuis les systèmes de gestion jusqu'à "
    "l'entrepôt Snowflake, et vous industrialisez les modèles de tarification avec les "
    "actuaires. Vous écrivez du Python et du SQL, orchestrez les traitements avec Airflow, "
    "surveillez la qualité des données et participez aux revues de code de l'équipe."
)

DATA_ENGINEER_FULL_TEXT = (
    ACME_INTRO + "\n\nVos missions\n\n" + DATA_ENGINEER_TASKS + "\n\nVotre profil\n\n"
    "Diplômé d'une école d'ingénieur ou d'un master en informatique, vous justifiez d'au "
    "moins trois ans d'expérience en ingénierie des données. Vous maîtrisez Python, SQL et un "
    "orchestrateur comme Airflow ou Dagster, et vous connaissez les formats colonnes tels que "
    "Parquet. Une première expérience sur un entrepôt cloud est un plus.\n\n"
    "Ce que nous offrons\n\n"
    "Un CDI basé à Lyon Part-Dieu, deux jours de télétravail par semaine, un salaire entre "
    "48 000 et 56 000 euros bruts annuels selon expérience, un intéressement et vingt-cinq "
    "jours de congés payés plus des RTT."
)


def snippet_of(text: str, characters: int) -> str:
    """The first `characters` of `text` cut at a word boundary and ended with "…", newlines
    flattened, as the Adzuna API returns its description field."""
    flat = " ".join(text.split())
    return flat[:characters].rsplit(" ", 1)[0] + "…"


DATA_ENGINEER_SNIPPET_TEXT = snippet_of(ACME_INTRO + " " + DATA_ENGINEER_TASKS, 480)

ANALYST_FULL_TEXT = (
    ACME_INTRO + "\n\nVos missions\n\n"
    "Rattaché au responsable du contrôle de gestion, vous préparez les clôtures mensuelles et "
    "trimestrielles, analysez les écarts entre budget et réalisé des agences et construisez "
    "les tableaux de bord de la direction financière. Vous participez à l'élaboration du "
    "budget annuel et aux prévisions de trésorerie avec les équipes comptables.\n\n"
    "Votre profil\n\n"
    "Issu d'une formation supérieure en finance ou en école de commerce, vous avez deux ans "
    "d'expérience en contrôle de gestion, idéalement dans l'assurance ou la banque. Vous "
    "maîtrisez Excel et un outil de reporting comme Power BI."
)

INTRO_SNIPPET_TEXT = snippet_of(ACME_INTRO, 330)

BAKER_FULL_TEXT = (
    "La Boulangerie du Vieux Lyon recherche un boulanger confirmé pour sa production de nuit. "
    "Vous préparez les pâtes, façonnez et cuisez les pains de tradition, les viennoiseries et "
    "les pains spéciaux au levain, dans le respect des règles d'hygiène. Vous encadrez un "
    "apprenti et gérez les commandes de farine avec le gérant. CAP boulanger exigé, trois ans "
    "d'expérience minimum. Contrat à durée indéterminée de trente-neuf heures, du mardi au "
    "samedi, rémunération selon la convention collective et mutuelle prise en charge."
)


def ad(posting_id: str, **fields: Any) -> dict[str, Any]:
    """A posting dict in the /dedup schema (defaults: Lyon, 2025-03-03)."""
    return {"id": posting_id, "location": "Lyon", "posted_at": "2025-03-03", **fields}


DATA_ENGINEER_FULL = ad(
    "wttj-1",
    title="Data Engineer (H/F)",
    company="Acme Assurances",
    source="welcome_to_the_jungle",
    description=DATA_ENGINEER_FULL_TEXT,
)
DATA_ENGINEER_SNIPPET = ad(
    "adzuna-1",
    title="Data Engineer H/F",
    company="Acme",
    source="adzuna",
    posted_at="2025-03-05",
    description=DATA_ENGINEER_SNIPPET_TEXT,
)
ANALYST_FULL = ad(
    "wttj-2",
    title="Contrôleur de gestion (H/F)",
    company="Acme Assurances",
    source="welcome_to_the_jungle",
    description=ANALYST_FULL_TEXT,
)
BAKER_FULL = ad(
    "ft-1",
    title="Boulanger (H/F)",
    company="Boulangerie du Vieux Lyon",
    source="france_travail",
    description=BAKER_FULL_TEXT,
)


WTTJ_FULL_TEXT = (
    "Description de l'entreprise\n\n"
    + ACME_INTRO
    + "\n\nDescription du poste\n\n"
    + DATA_ENGINEER_FULL_TEXT.removeprefix(ACME_INTRO).lstrip()
)
"""The data engineer ad as Welcome to the Jungle prints it: the employer's intro under its
own heading, so the index reads it as a company section and leaves it out of the sketch."""

WTTJ_FULL = ad(
    "wttj-3",
    title="Data Engineer (H/F)",
    company="Acme Assurances",
    source="welcome_to_the_jungle",
    description=WTTJ_FULL_TEXT,
)
WTTJ_INTRO_SNIPPET = ad(
    "adzuna-3",
    title="Data Engineer (H/F)",
    company="Groupe Acme",
    source="adzuna",
    location="Auvergne-Rhône-Alpes",
    posted_at="2025-03-05",
    description=snippet_of(WTTJ_FULL_TEXT, 330),
)
"""An aggregator's snippet of `WTTJ_FULL`, the heading flattened into the intro: nothing in
it is left of the full ad's sketch, and only the company-title key (same title, another form
of the employer's name) relates the two."""
