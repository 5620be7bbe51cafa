"""Training-pair generation: re-posting variants, vacancy-changing mutations, real-pair labels."""

from __future__ import annotations

import json
import random

import pytest

from classifier import mutations, variants
from classifier.board_habits import states_its_vacancy
from classifier.corpora import Ad
from classifier.fields import extract_fields
from classifier.pairs import STUB_SHARE, PairPlan, Synthesiser, label_real
from indexer.text import clean, normalise_company, normalise_title
from tests.classifier.postings import DEVELOPER_FR, NURSE_EN, synthetic_ads
from tests.processes import output_under_hash_seed

CTX = variants.Context(language="en")


@pytest.mark.parametrize("seed", range(20))
def test_repost_keeps_the_vacancy(seed: int) -> None:
    rng = random.Random(seed)
    repost = variants.repost(NURSE_EN, rng, CTX)
    assert repost["description"].strip()
    assert normalise_company(repost.get("company")) in ("", normalise_company(NURSE_EN["company"]))
    before, after = extract_fields(NURSE_EN), extract_fields(repost)
    assert after.grades <= before.grades | {"5"}
    assert not after.title_contract - {"full", "permanent", "part"}
    if after.outward_codes:
        assert after.outward_codes == before.outward_codes


def test_repost_is_reproducible() -> None:
    first = variants.repost(DEVELOPER_FR, random.Random(3), CTX)
    second = variants.repost(DEVELOPER_FR, random.Random(3), CTX)
    assert first == second


def test_snippet_cuts_at_a_word() -> None:
    cut = variants.snippet(NURSE_EN, random.Random(1), CTX)["description"]
    assert len(cut) < len(NURSE_EN["description"])
    body = cut.rstrip(".… []").removesuffix("... Read more").rstrip(".… []")
    assert NURSE_EN["description"].startswith(body)


@pytest.mark.parametrize(
    ("location", "town"),
    [
        ("07 - ST SAUVEUR DE MONTAGUT", "Saint-Sauveur-de-Montagut"),
        ("07 - VALLON PONT D ARC", "Vallon-Pont-d'Arc"),
        ("Willenhall, West Midlands WV13 3AG", "Willenhall"),
        ("Riga, Latvia", "Riga"),
        ("Ardèche", None),
    ],
)
def test_the_town_a_board_writes_is_the_place_the_listing_names(
    location: str, town: str | None
) -> None:
    # cut to two words, the first gave "ST SAUVEUR": Saint-Sauveur in Haute-Saône
    assert variants.town(location) == town


def test_retitle_keeps_the_title_key() -> None:
    for seed in range(30):
        title = variants.retitle(DEVELOPER_FR, random.Random(seed), CTX)["title"]
        key = normalise_title(title)
        assert "developpeur python" in key, title


def test_via_recruiter_names_the_client_or_speaks_for_it() -> None:
    ad = {**NURSE_EN, "description": f"Join {NURSE_EN['company']}. {NURSE_EN['description']}"}
    named, unnamed = 0, 0
    for seed in range(12):
        posted = variants.via_recruiter(ad, random.Random(seed), CTX)
        assert posted["company"] in variants.RECRUITERS
        voice = extract_fields(posted).client_voice
        if posted["description"].startswith("Our client, Riverside"):
            named += 1
            assert not voice  # the client's name is the evidence: company_in_other_description
        else:
            unnamed += 1
            assert voice, posted["description"][:120]
            assert "Riverside Hospitals" not in posted["description"]
            assert "Join our client." in posted["description"]
    assert named and unnamed


def test_an_unnamed_client_s_short_name_goes_too_but_not_the_text_s_words() -> None:
    text = "Join Riverside Care. At Riverside we care for patients."
    unnamed = 0
    for seed in range(12):
        posted = variants.for_client(text, "Riverside Care Ltd", "en", random.Random(seed))
        if not posted.startswith("Our client, "):
            unnamed += 1  # "Care" identifies no employer (GENERIC_COMPANY_WORDS): it stays
            assert posted.endswith("Join our client Care. At our client we care for patients.")
    assert unnamed


@pytest.mark.parametrize("language", sorted(variants.UNNAMED_CLIENT_INTROS))
def test_every_unnamed_client_intro_is_read_as_an_agency_s(language: str) -> None:
    for intro in variants.UNNAMED_CLIENT_INTROS[language]:
        assert extract_fields({"title": "x", "description": intro}).client_voice, intro


DONORS = mutations.Donors(
    locations=["Riverside Hospital, Stevenage SG1 4AB", "Stevenage SG1 4AB", "Hitchin SG5 1AB"],
    titles=["Healthcare Assistant", "Staff Nurse - Band 5"],
    employers=[("Northside Care Ltd", "Luton LU1 2AA")],
)


def test_other_location_picks_a_clearly_different_place() -> None:
    for seed in range(10):
        pair = mutations.other_location(NURSE_EN, random.Random(seed), DONORS)
        assert pair is not None
        assert pair[1]["location"] == "Hitchin SG5 1AB"  # the other two are the same place


def test_other_location_renames_the_town_the_title_names() -> None:
    # a title still naming the old town would state the old place of work under the new
    # listing: one vacancy listed under two communes, not another site
    titled = {**NURSE_EN, "title": "Staff Nurse - Stevenage", "location": "Stevenage SG1 4AB"}
    for seed in range(10):
        pair = mutations.other_location(titled, random.Random(seed), DONORS)
        assert pair is not None and pair[1]["title"] == "Staff Nurse - Hitchin"


FRENCH_DONORS = mutations.Donors(
    locations=["France", "Ardèche", "07 - VEYRAS", "07 - ANNONAY"],
    titles=[],
    employers=[],
)


def test_other_location_never_picks_a_place_a_board_gives_for_the_same_vacancy() -> None:
    # France and the Ardèche hold Privas (the country_location and region_location
    # re-posts); Veyras lies 3 km away (a board's commune for one stated place of work)
    listed = {**DEVELOPER_FR, "location": "07 - PRIVAS"}
    for seed in range(10):
        pair = mutations.other_location(listed, random.Random(seed), FRENCH_DONORS)
        assert pair is not None and pair[1]["location"] == "07 - ANNONAY"


def test_other_location_renames_the_town_whatever_its_case() -> None:
    listed = {**DEVELOPER_FR, "title": "Conducteur de cars (H/F) Privas", "location": "07 - PRIVAS"}
    for seed in range(10):
        pair = mutations.other_location(listed, random.Random(seed), FRENCH_DONORS)
        assert pair is not None and pair[1]["title"] == "Conducteur de cars (H/F) Annonay"


def test_other_location_renames_a_district_whole() -> None:
    """A title naming the listing's district ("Paris 9") loses it whole, not its town only:
    "Serveur (H/F) Lyon 9" would state a district of the new listing's town that does not
    exist in the listing."""
    donors = mutations.Donors(locations=["69 - LYON 03"], titles=[], employers=[])
    listed = {**DEVELOPER_FR, "title": "Serveur (H/F) Paris 9", "location": "75 - PARIS 09"}
    pair = mutations.other_location(listed, random.Random(0), donors)
    assert pair is not None and pair[1]["title"] == "Serveur (H/F) Lyon 3"


def test_other_neighbour_town_moves_an_ad_stating_no_place_nearby() -> None:
    from classifier import gazetteer

    silent = {**NURSE_EN, "description": "You will join the ward team.", "location": "Leeds"}
    pair = mutations.other_neighbour_town(silent, random.Random(1), DONORS)
    assert pair is not None
    first, second = pair
    distance = gazetteer.distance_km(
        gazetteer.resolve("Leeds"), gazetteer.resolve(second["location"])
    )
    assert first == silent and distance is not None and 3.0 <= distance <= 20.0
    # a campaign's ad names its own town where the first named the first
    named = {**silent, "description": "Garde d'enfant sur Leeds. You will join the team."}
    moved = mutations.other_neighbour_town(named, random.Random(1), DONORS)
    assert moved is not None and "Leeds" not in moved[1]["description"]
    assert moved[1]["location"] in moved[1]["description"]
    # a text or a title stating the place of work: moving it would make a nearby listing
    stating = {**silent, "description": "The post is based at Leeds General Infirmary."}
    titled = {**silent, "title": "Staff Nurse - Leeds"}
    assert mutations.other_neighbour_town(stating, random.Random(1), DONORS) is None
    assert mutations.other_neighbour_town(titled, random.Random(1), DONORS) is None


def test_other_neighbour_town_never_moves_an_ad_into_its_own_city() -> None:
    """London's towns 3-20 km away are nearly all its quarters ("Marylebone", "Camden
    Town"), which the gazetteer reads as inside London: a board naming one lists the same
    place, so moving an ad there makes no negative (11 of London's 12 options were)."""
    from classifier import gazetteer

    silent = {**NURSE_EN, "description": "You will join the ward team.", "location": "London"}
    london = gazetteer.resolve("London")
    moved_to = set()
    for seed in range(20):
        pair = mutations.other_neighbour_town(silent, random.Random(seed), DONORS)
        assert pair is not None  # London has towns 3-20 km away that are not its quarters
        moved_to.add(pair[1]["location"])
    for location in moved_to:
        assert gazetteer.relation(london, gazetteer.resolve(location)) == "different", location


def test_other_role_fills_the_template_in() -> None:
    """Another role on the employer's template names that role where the text named the
    first one, whatever the case and gender marker; a text that never named its title
    stays as it was."""
    donors = mutations.Donors(locations=[], titles=["Data Engineer (H/F)"], employers=[])
    pair = mutations.other_role(DEVELOPER_FR, random.Random(0), donors)
    assert pair is not None
    first, second = pair
    assert first == DEVELOPER_FR
    assert second["title"] == "Data Engineer (H/F)"
    assert "un Data Engineer pour" in second["description"]
    assert "développeur python" not in second["description"].lower()
    silent = {**DEVELOPER_FR, "title": "Ingénieur logiciel F/H"}
    pair = mutations.other_role(silent, random.Random(0), donors)
    assert pair is not None
    assert pair[1]["description"] == DEVELOPER_FR["description"]


def test_other_grade_moves_the_band_everywhere() -> None:
    pair = mutations.other_grade(NURSE_EN, random.Random(0), DONORS)
    assert pair is not None
    first, second = (extract_fields(p) for p in pair)
    assert first.grades.isdisjoint(second.grades)
    assert first.salary != second.salary


def test_other_employer_moves_company_place_and_name_in_text() -> None:
    pair = mutations.other_employer(NURSE_EN, random.Random(1), DONORS)
    assert pair is not None
    moved = pair[1]
    assert moved["location"] == "Luton LU1 2AA"
    assert "riverside" not in clean(moved["description"]).split()


def test_other_terms_only_changes_the_opening_of_the_text() -> None:
    made = [mutations.other_terms(NURSE_EN, random.Random(seed), DONORS) for seed in range(10)]
    pairs = [pair for pair in made if pair is not None]
    assert len(pairs) >= 7  # None only when the ad's own terms hide the change
    tail = NURSE_EN["description"].split(". ", 1)[1]  # all but the opening sentence
    for first, second in pairs:
        assert first["title"] == second["title"]
        assert first["description"] != second["description"]
        assert first["description"].endswith(tail)
        assert second["description"].endswith(tail)


def _ad(document: dict[str, object], group: str = "g") -> Ad:
    return Ad(dict(document), group, "en")


@pytest.mark.parametrize(
    ("paragraph", "title"),
    [
        ("Clinical Pharmacist | Pharmacy | Band 7 dependent on experience | Bristol", "Pharmacist"),
        ("We are looking for a Ward Sister to lead the team on our surgical ward.", "Ward Sister"),
        ("Rémunération : 2 100 € brut mensuel, sur 13 mois, avec mutuelle et tickets.", "Vendeur"),
        ("Poste en CDD de 6 mois à pourvoir dès que possible dans notre agence.", "Comptable"),
        ("Poste basé à Annonay ou Saint-Félicien, au choix du candidat.", "Chauffeur"),
    ],
)
def test_a_paragraph_stating_its_vacancy_is_not_borrowed_as_boilerplate(
    paragraph: str, title: str
) -> None:
    assert states_its_vacancy(paragraph, title)


def test_an_employer_paragraph_is_borrowed() -> None:
    intro = (
        "Our Trust provides acute and community services to half a million people across "
        "the county, and we are proud of the care our teams give every day."
    )
    assert not states_its_vacancy(intro, "Staff Nurse")


def test_real_labels() -> None:
    a = _ad(NURSE_EN)
    copy = _ad({**NURSE_EN, "id": "b"})
    fa, fb = extract_fields(a.document), extract_fields(copy.document)
    assert label_real(a, copy, fa, fb, 0.95) == (1, "real_repost")
    assert label_real(a, copy, fa, fb, 0.3) == (0, "real_role")
    assert label_real(a, copy, fa, fb, 0.6) is None
    moved = _ad({**NURSE_EN, "id": "c", "location": "Hitchin SG5 1AB"})
    assert label_real(a, moved, fa, extract_fields(moved.document), 1.0) == (0, "real_location")
    bank = _ad({**NURSE_EN, "id": "d", "title": "Staff Nurse - Band 5", "salary": "£18.85"})
    assert label_real(a, bank, fa, extract_fields(bank.document), 1.0) == (
        0,
        "real_grade_or_contract",
    )
    other = _ad({**NURSE_EN, "id": "e"}, group="h")
    assert label_real(a, other, fa, extract_fields(other.document), 0.5) == (0, "real_employer")


def test_synthesiser_is_reproducible_and_labels_both_classes() -> None:
    plan = PairPlan(positives=20, mutations=20, boilerplate=5, random=5)
    ads = synthetic_ads(8)

    def build(seed: int) -> list[tuple[str, int, str, str]]:
        synthesiser = Synthesiser(ads, random.Random(seed))
        pairs = [synthesiser.finish(raw) for raw in synthesiser.build(plan)]
        return [(p.kind, p.label, p.a["description"], p.b["title"]) for p in pairs]

    first = build(5)
    assert first == build(5)
    assert first != build(6)
    labels = [label for _, label, _, _ in first]
    stubs = round(plan.positives * STUB_SHARE)  # stub relays beside the planned positives
    assert labels.count(1) == 20 + stubs
    assert len(labels) >= 45 + stubs


def _household(number: int, text: str, title: str = "Garde d'enfant à domicile (H/F)") -> Ad:
    document = {
        "id": f"h{number}",
        "title": title,
        "company": "Particulier Employeur",
        "location": "59 - LILLE",
        "description": text,
    }
    return Ad(document, "fr:particulier employeur", "fr")


_HOUSEHOLDS = [
    "Bonjour, nous sommes deux parents et cherchons une personne de confiance pour récupérer "
    "nos enfants de deux et six ans à l'école le soir, quatre jours par semaine, jusqu'à "
    "notre retour vers vingt heures. Merci aux personnes intéressées.",
    "Bonjour, bientôt parents, nous recherchons une assistante maternelle agréée pour notre "
    "futur petit garçon à compter de juin, près de la mairie, horaires de bureau, contrat "
    "sur dix mois avec congés payés.",
    "Nous cherchons pour la rentrée une étudiante disponible le mercredi et pendant les "
    "vacances scolaires pour garder trois enfants, faire les devoirs et préparer le repas "
    "du soir dans notre maison avec jardin.",
]


def test_other_text_under_the_same_title_is_another_vacancy() -> None:
    """Two households' short ads under one title and one placeholder employer share almost
    no text: another vacancy, labelled 0. Ads of another title, a stub (a relay of the
    other ad, maybe) and the same text are never paired so."""
    ads = [_household(i, text) for i, text in enumerate(_HOUSEHOLDS)]
    ads.append(_household(7, "En bref : Garde d'enfant à domicile, Autonomie"))  # a stub
    ads.append(_household(8, _HOUSEHOLDS[0], "Femme de ménage (H/F)"))
    ads.append(_household(9, _HOUSEHOLDS[0]))  # the first ad again
    made = Synthesiser(ads, random.Random(2))._other_text_same_title(30)
    assert made
    for pair in made:
        assert (pair.label, pair.kind) == (0, "other_text_same_title")
        assert pair.first["title"] == pair.second["title"] == "Garde d'enfant à domicile (H/F)"
        assert pair.first["description"] != pair.second["description"]
        assert not {pair.first["id"], pair.second["id"]} & {"h7", "h8"}


_OTHER_EMPLOYER = """
import json, random
from classifier import mutations
ad = {"title": "Business Analyst", "company": "North of England Commissioning Support",
      "location": "Durham", "description": "Join England Commissioning Support in Durham."}
donors = mutations.Donors(locations=[], titles=[],
                          employers=[("Health Education England", "Leeds")])
print(json.dumps(mutations.other_employer(ad, random.Random(3), donors)))
"""


def test_other_employer_writes_the_same_text_under_any_string_hash() -> None:
    """The new name holds a word of the old one ("England"). Replaced one word after the
    other, the text depended on which came first, an order that followed the process's
    string hash (one training pair did, and with it the shipped model), and the new name's
    "England" could be replaced again."""
    texts = {output_under_hash_seed(_OTHER_EMPLOYER, seed) for seed in ("1", "2", "3", "4")}
    assert len(texts) == 1
    moved = json.loads(texts.pop())[1]
    assert moved["company"] == "Health Education England"
    assert "Commissioning" not in moved["description"]
    assert "Support" not in moved["description"]
    assert "Education Health" not in moved["description"]  # no name inside a name


def test_some_relays_keep_the_text_as_it_is() -> None:
    """A job centre relays a board's ad under its label without editing it: a share of the
    relay pairs keeps the ad's text on both sides (`RELAY_VERBATIM`), so that one text under
    two titles is also taught as one vacancy; the others are re-posted like every pair."""
    ads = [
        Ad({**ad.document, "extra": {"occupation": "Agent / Agente de service"}}, ad.group, "fr")
        for ad in synthetic_ads(8)
    ]
    synthesiser = Synthesiser(ads, random.Random(5))
    raw = synthesiser.build(PairPlan(positives=400, mutations=0, boilerplate=0, random=0))
    relays = [p for p in raw if p.kind == "pos_occupation_title"]
    assert any(p.verbatim for p in relays)
    assert not all(p.verbatim for p in relays)
    for pair in relays:
        made = synthesiser.finish(pair)
        kept = [side["description"] == pair.ad.document["description"] for side in (made.a, made.b)]
        if pair.verbatim:
            assert kept == [True, True]
            assert made.a["title"] != made.b["title"]


def test_labels_follow_the_title_they_were_given_for() -> None:
    """Relays teach the habit only where the label differs from the title, and a posting
    made into another role keeps no label: else a relay habit writes the first role's
    label over the second role's title and trains a relay as another vacancy."""
    ads = [
        Ad(
            {**ad.document, "extra": {"occupation": f"Agent / Agente de service {i}"}},
            ad.group,
            "fr",
        )
        for i, ad in enumerate(synthetic_ads(8))
    ]
    ads.append(
        Ad({**ads[0].document, "id": "relay", "title": "Agent / Agente de service 0"}, "r", "fr")
    )
    synthesiser = Synthesiser(ads, random.Random(4))
    raw = synthesiser.build(PairPlan(positives=300, mutations=300, boilerplate=0, random=0))
    relays = [p for p in raw if p.kind == "pos_occupation_title"]
    assert relays
    assert all(p.ad.document["id"] != "relay" for p in relays)
    assert all(p.second["title"].startswith("Agent / Agente") for p in relays)
    retitled = [
        p for p in raw if p.kind.startswith("mut_") and p.first["title"] != p.second["title"]
    ]
    assert retitled
    made = [p for p in retitled if not p.kind.startswith("mut_stub_")]
    assert not any(
        "occupation" in side.get("extra", {}) for p in made for side in (p.first, p.second)
    )
    # A stub naming another title of the employer is made without the ad's label; the ad
    # keeps its own, and the stub is never re-posted with relay habits. A stub of the same
    # title at another site keeps the label: the occupation is the same.
    stubs = [p for p in retitled if p.kind.startswith("mut_stub_")]
    assert not any(
        "occupation" in p.second.get("extra", {}) for p in stubs if p.kind == "mut_stub_other_role"
    )
    # (A stub of another ad of the title may list the ad coarser: see test_stub_relays.)
    assert all(p.first is p.ad.document for p in stubs if p.kind != "mut_stub_other_vacancy")
