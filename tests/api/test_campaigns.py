"""A campaign posts one text for many towns; one of its ads names only the département.

Each town's ad is another vacancy (the guideline's multi-site rule), and the model scores
two of them low ("different places"), while the département's ad contains every town, so it
scores high against each. Before the join guard and the wider-place rule, that ad was a hub:
each later town's ad joined its cluster, and the French corpora got clusters of 94, 59 and 44
towns' ads. Real scorer, default settings.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.api.support import dedup

CAMPAIGN = (
    "Description du poste : Garde d'enfant expérimenté CDI (H/F) sur {town}. La mission : "
    "vous aurez pour rôle d'effectuer l'ensemble des activités liées à la garde d'enfants de "
    "plus de trois ans au domicile de nos clients : sortie d'école, aide aux devoirs, "
    "préparation des repas et du goûter, jeux et activités d'éveil, bain et coucher. Vous "
    "veillez à la sécurité et au bien-être des enfants et rendez compte aux parents à leur "
    "retour. Le profil : vous avez une première expérience réussie de la garde d'enfants, "
    "personnelle ou professionnelle, vous êtes patient, ponctuel et créatif, et vous aimez "
    "transmettre. Un diplôme de la petite enfance (CAP AEPE, BAFA) est un plus. Les "
    "conditions : contrat à durée indéterminée à temps partiel, douze heures par semaine en "
    "période scolaire, du lundi au vendredi de 16 h 30 à 19 h, rémunération selon profil, "
    "frais de transport remboursés, mutuelle d'entreprise et formations prises en charge. "
    "Rejoignez un réseau de services à la personne présent dans toute la région."
)

TOWNS = ["LABASTIDETTE", "AUSSONNE", "COLOMIERS", "MURET", "BALMA"]


def campaign_ad(number: int, location: str, town: str) -> dict[str, Any]:
    return {
        "id": f"pe-{number}",
        "title": "Garde d'enfant à domicile (H/F)",
        "description": CAMPAIGN.format(town=town.title()),
        "location": location,
        "posted_at": "2020-04-05",
    }


def test_an_ad_placed_at_the_departement_links_no_two_towns_of_a_campaign(
    client: TestClient,
) -> None:
    decisions = [dedup(client, campaign_ad(i, f"31 - {t}", t)) for i, t in enumerate(TOWNS[:2])]
    wide = dedup(client, campaign_ad(9, "31 - Haute-Garonne", "Montlaur"))
    decisions += [
        dedup(client, campaign_ad(i, f"31 - {t}", t)) for i, t in enumerate(TOWNS) if i >= 2
    ]

    town_clusters = [d["cluster_id"] for d in decisions]
    assert len(set(town_clusters)) == len(TOWNS), town_clusters
    # The département's ad may join one town's cluster (it may be that vacancy), no more.
    assert town_clusters.count(wide["cluster_id"]) <= 1


def test_an_ad_placed_at_the_departement_merges_no_two_towns_never_compared(
    client: TestClient,
) -> None:
    """Two towns' ads 74 days apart are outside each other's 60-day window, so neither was
    scored against the other and no judged-distinct evidence stands between them; the
    département's ad posted between them matches both. It joins one, and links nothing
    placed inside its own place."""
    first = dedup(client, {**campaign_ad(1, "31 - LABASTIDETTE", "Labastidette"),
                           "posted_at": "2020-01-01"})  # fmt: skip
    last = dedup(client, {**campaign_ad(2, "31 - AUSSONNE", "Aussonne"),
                          "posted_at": "2020-03-15"})  # fmt: skip
    wide = dedup(client, {**campaign_ad(9, "31 - Haute-Garonne", "Montlaur"),
                          "posted_at": "2020-02-07"})  # fmt: skip
    assert wide["status"] == "duplicate"  # it matches a town's ad
    clusters = {
        d["id"]: client.get(f"/postings/{d['id']}").json()["cluster_id"] for d in (first, last)
    }
    assert clusters["pe-1"] != clusters["pe-2"]


def test_a_second_copy_of_the_departement_ad_merges_no_two_towns_told_apart(
    client: TestClient,
) -> None:
    """The département's ad joins one town's cluster; its copy from the next scrape matches
    that ad best, and the other town's ad too. The two towns' ads were told apart, so the
    copy joins and merges nothing (French corpora: "31 - AUSSONNE" and "31 - ST HILAIRE",
    a commune the gazetteer reads only as its département, merged this way)."""
    # "ST HILAIRE" names communes in many départements: read as the département only, so
    # it is not placed inside the département's ad (the wider-place rule cannot refuse it).
    towns = [
        dedup(client, campaign_ad(i, f"31 - {t}", t))
        for i, t in enumerate(("AUSSONNE", "ST HILAIRE"))
    ]
    wide = dedup(client, campaign_ad(9, "31 - Haute-Garonne", "Montlaur"))
    copy = dedup(client, {**campaign_ad(10, "31 - Haute-Garonne", "Montlaur")})
    assert wide["status"] == "duplicate" and copy["status"] == "duplicate"
    clusters = [client.get(f"/postings/{d['id']}").json()["cluster_id"] for d in towns]
    assert clusters[0] != clusters[1], clusters


def test_a_copy_merges_no_town_told_apart_from_a_member_it_never_saw(client: TestClient) -> None:
    """The same, with the first town's ad outside the copy's 60-day window, so the copy never
    scores it: the evidence is the second town's own decision, which told the first town's
    ad apart."""

    def ad(number: int, location: str, town: str, day: str) -> dict[str, Any]:
        return {**campaign_ad(number, location, town), "posted_at": day}

    first = dedup(client, ad(1, "31 - AUSSONNE", "Aussonne", "2020-01-01"))
    wide = dedup(client, ad(9, "31 - Haute-Garonne", "Montlaur", "2020-02-20"))
    second = dedup(client, ad(2, "31 - ST HILAIRE", "St Hilaire", "2020-02-25"))
    copy = dedup(client, ad(10, "31 - Haute-Garonne", "Montlaur", "2020-03-06"))
    assert wide["cluster_id"] == first["cluster_id"]  # the département's ad joined a town
    assert second["cluster_id"] != first["cluster_id"]  # told apart (the join guard)
    assert copy["status"] == "duplicate"
    clusters = {
        d["id"]: client.get(f"/postings/{d['id']}").json()["cluster_id"] for d in (first, second)
    }
    assert clusters["pe-1"] != clusters["pe-2"]


HOUSEHOLDS = {
    "33 - BORDEAUX": (
        "Bonjour, nous cherchons un/une assistant(e) maternel(le) agréée secteur bordeaux "
        "caudéran pour début décembre pour une petite fille qui va naître fin septembre."
    ),
    "France": (
        "Bonjour,\nbientôt parents, nous recherchons un/une assistant(e) maternel(le) agréée "
        "pour notre futur petit prince, à compter de juin.\nnous habitons près de la mairie "
        "d'arras et travaillons à saint laurent blangy."
    ),
    "59 - MARCQ EN BAROEUL": (
        "Bonjour.\nnous sommes deux parents d'enfants de 2 ans et 6 ans. nous avons besoin "
        "d'une personne de confiance qui pourra récupérer notre fils à 16h15 chez un/une "
        "assistant(e) maternel(le) du secteur et qui ira récupérer ma fille à l'école à 16h50 "
        "jusqu'à notre retour à 20h15 le lundi, mardi, jeudi et vendredi.\nmerci aux "
        "personnes que ça peut intéresser."
    ),
}


def test_an_ad_listed_at_the_country_links_no_town_to_one_told_apart(client: TestClient) -> None:
    """Three households' short ads under one title and "employer": Bordeaux's, one listed
    "France" that scores high against it (the country holds every town; the French
    corpora joined them at 0.618), and Marcq-en-Barœul's, told apart from Bordeaux's but
    matching the "France" ad. Marcq's ad must not join Bordeaux's through it (the French
    export made one cluster of the three)."""

    def ad(number: int, location: str) -> dict[str, Any]:
        return {
            "id": f"pe-{number}",
            "title": "Garde d'enfant à domicile (H/F)",
            "company": "Particulier Employeur",
            "description": HOUSEHOLDS[location],
            "location": location,
            "posted_at": "2020-04-05",
        }

    bordeaux = dedup(client, ad(1, "33 - BORDEAUX"))
    france = dedup(client, ad(2, "France"))
    marcq = dedup(client, ad(3, "59 - MARCQ EN BAROEUL"))
    assert france["cluster_id"] == bordeaux["cluster_id"]  # the country's ad joined a town
    scores = {c["id"]: c["score"] for c in marcq["candidates"]}
    assert scores["pe-1"] < scores["pe-2"], scores  # told Bordeaux apart, matched "France"
    assert marcq["cluster_id"] != bordeaux["cluster_id"], marcq
