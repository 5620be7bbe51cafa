"""The place of work a text states (`classifier.stated_place`) and `stated_place_agrees`
(FEATURE_VERSION 12): boards list one vacancy under neighbouring communes, while a campaign's
ads state each its own site."""

from __future__ import annotations

import math

import pytest

from classifier import gazetteer
from classifier.board_habits import nearby_commune
from classifier.features import FEATURE_NAMES, pair_features
from classifier.fields import extract_fields
from classifier.stated_place import near, place_of_work, same_place, statement, title_place
from classifier.variants import Context

SITE = (
    "Rattaché(e) au service Finance, vous analysez les ventes et préparez les tableaux de "
    "bord mensuels. Vous intégrez notre équipe basée sur Bussy Saint Georges en tant que "
    "Data analyst, en alternance. Rythme : 3 jours en entreprise, 2 jours à l'école."
)


def _name(text: str) -> str | None:
    place = statement(text).place
    return None if place is None else place.name


@pytest.mark.parametrize(
    ("text", "town"),
    [
        (SITE, "Bussy-Saint-Georges"),
        ("Notre client est un établissement médical situé à PRIVAS, offrant des soins.", "Privas"),
        ("Lieu de travail : Lagny-sur-Marne. Démarrage immédiat.", "Lagny-sur-Marne"),
        ("The post is based at Leeds General Infirmary and covers nights.", "Leeds"),
        ("Location: Newcastle upon Tyne (hybrid).", "Newcastle upon Tyne"),
        ("Arbeitsort: Köln. Wir bieten ein gutes Team.", "Köln"),
        ("Poste basé à Paris 12ème avec la possibilité de télétravail.", "Paris 12"),
        # the other EURES languages, as their boards write it
        ("Lugar de trabajo: Sevilla. Ofrecemos contrato indefinido.", "Sevilla"),
        ("Sede di lavoro: Milano (MI). Contratto a tempo indeterminato.", "Milan"),
        ("Standplaats: Utrecht. Wij bieden een vast contract.", "Utrecht"),
        ("Miejsce pracy\xa0\xa0Kraków, ul. Długa 4. Umowa o pracę.", "Kraków"),
        ("Mjesto rada: Osijek. Radno vrijeme puno.", "Osijek"),
        ("Darbo vieta - Jonava. Darbo laikas pilnas.", "Jonava"),
        ("Darba vieta: Jelgava, pilna slodze.", "Jelgava"),
        # names starting with a capital beyond Latin-1 (Latin Extended-A)
        ("Miejsce pracy: Łódź, ul. Piotrkowska 1. Umowa o pracę.", "Łódź"),
        ("Miejsce pracy: Żywiec. Umowa o pracę.", "Żywiec"),
        ("Mjesto rada: Šibenik. Radno vrijeme puno.", "Šibenik"),
        ("Darbo vieta - Šiauliai. Darbo laikas pilnas.", "Šiauliai"),
        # a name that begins like an article is not one ("de", "the")
        ("The post is based in Derby and covers the county.", "Derby"),
        ("Location: Theale, Berkshire.", "Theale"),
        ("Werklocatie: Den Haag, 36 uur per week.", "The Hague"),
    ],
)
def test_the_place_after_a_cue_in_several_languages(text: str, town: str) -> None:
    assert _name(text) == town


@pytest.mark.parametrize(
    "text",
    [
        "Leeds Teaching Hospitals is one of the largest trusts in Europe.",  # no cue
        "The role is based in the community and covers the whole county.",  # no name
        "Le poste est basé sur la confiance et l'autonomie.",  # lower case after the cue
        "Location: remote within the UK.",
    ],
)
def test_no_place_without_a_cue_and_a_town(text: str) -> None:
    assert statement(text).place is None


@pytest.mark.parametrize(
    ("text", "listing", "town"),
    [
        # employers type the place's later words in lower case; the capitalised name alone
        # ("Le", "Reignier", "Barrow") is no town near the listing, and the text stated none
        ("Notre client basé sur Le pouzin (07), un régleur H/F.", "07 - LE POUZIN", "Le Pouzin"),
        ("Un client basé à Reignier esery (74), un conducteur.", "Annemasse", "Reignier-Ésery"),
        ("The team based at Barrow in Furness. You will", "Ulverston", "Barrow in Furness"),
        # where the capitalised name resolves, no lower-case run is read after it ("de
        # ligne" is no "Ligné", "centre et à Marly" no Marly)
        ("Nos clients basés sur Beaune un Conducteur de ligne (H/F).", "21 - BEAUNE", "Beaune"),
        ("Un garage installé sur Metz centre et à Marly : mécaniciens.", "57 - METZ", "Metz"),
        # a lower-case run that is a town's name far from the listing is not read, and the
        # cue after it still is ("St George's" is no Swiss Saint-George)
        (
            "Endoscopy unit based at St George’s University Hospitals NHS Foundation Trust? "
            "We are The Nelson based in Wimbledon.",
            "Tooting SW17 0QT",
            "Wimbledon",
        ),
    ],
)
def test_a_town_written_on_in_lower_case_is_read_near_the_listing_only_after_no_town(
    text: str, listing: str, town: str
) -> None:
    found = place_of_work(text, gazetteer.resolve(listing)).place
    assert found is not None and found.name == town


def test_a_town_written_in_lower_case_far_from_the_listing_is_not_read() -> None:
    found = place_of_work("Un client basé à Reignier esery (74).", gazetteer.resolve("Brest"))
    assert found.place is None and found.named


CAMPAIGN = (
    "Vous aurez comme principales missions : assurer les trajets entre les écoles et le "
    "domicile familial. Le poste est basé à vert saint denis (77240). Rejoignez-nous !"
)


@pytest.mark.parametrize(
    ("text", "listing", "town"),
    [
        (CAMPAIGN, "77 - VERT ST DENIS", "Vert-Saint-Denis"),
        (
            CAMPAIGN.replace("vert saint denis", "grez sur loing"),
            "77 - GREZ SUR LOING",
            "Grez-sur-Loing",
        ),
        # all in lower case, its code after it: read near the listing only
        (CAMPAIGN.replace("vert saint denis", "grez sur loing"), "77 - NEMOURS", "Grez-sur-Loing"),
        (CAMPAIGN, "Brest", None),
        # the habit in German: a cue, the town in lower case, its postcode
        (
            "Ihr Arbeitsort: frankfurt am main (60311). Wir bieten",
            "Frankfurt am Main",
            "Frankfurt am Main",
        ),
        # without the code a lower-case run is no name ("basé à proximité du centre")
        (CAMPAIGN.replace(" (77240)", ""), "77 - VERT ST DENIS", None),
    ],
)
def test_a_town_typed_all_in_lower_case_with_its_code_is_read_near_the_listing(
    text: str, listing: str, town: str | None
) -> None:
    found = place_of_work(text, gazetteer.resolve(listing)).place
    assert (found and found.name) == town


def test_a_campaign_typing_each_town_in_lower_case_disagrees() -> None:
    """One home-care agency's copies of a template, each stating its own town in lower
    case: two places, not one vacancy under neighbouring communes."""
    chartrettes = CAMPAIGN.replace("vert saint denis (77240)", "chartrettes (77590)")
    assert _agrees(CAMPAIGN, "77 - VERT ST DENIS", chartrettes, "77 - CHARTRETTES") == 0.0
    assert _agrees(CAMPAIGN, "77 - VERT ST DENIS", CAMPAIGN, "77 - CESSON") == 1.0


def test_the_tokens_spare_the_search_only_when_no_cue_word_is_there() -> None:
    assert statement(SITE, frozenset({"analyst", "basee"})).place is not None
    assert statement(SITE, frozenset({"analyst", "alternance"})).place is None


def test_a_stated_place_far_from_the_listing_is_not_the_place_of_work() -> None:
    noisiel = gazetteer.resolve("Noisiel")
    marseille = gazetteer.resolve("Marseille")
    found = place_of_work(SITE, noisiel)
    assert found.place is not None and found.place.name == "Bussy-Saint-Georges"
    far = place_of_work(SITE, marseille)  # 400 km: one of several sites, or a misread name
    assert far.place is None and far.named  # but the text is not silent


def test_near_holds_containment_and_short_distances_only() -> None:
    bussy, noisiel = gazetteer.resolve("Bussy-Saint-Georges"), gazetteer.resolve("Noisiel")
    paris, paris12 = gazetteer.resolve("Paris"), gazetteer.resolve("Paris 12ème")
    region, lyon = gazetteer.resolve("Île-de-France"), gazetteer.resolve("Lyon")
    assert bussy and noisiel and paris and paris12 and region and lyon
    assert near(bussy, noisiel)  # 6 km
    assert near(paris12, paris) and near(region, bussy)  # containment either way
    assert not near(paris, lyon)


PRIVAS = "Notre client est un établissement médical situé à PRIVAS, offrant des soins."


def test_a_stated_town_holds_for_a_commune_the_gazetteer_lacks_in_its_departement() -> None:
    lyas = gazetteer.resolve("07 - LYAS")  # 600 inhabitants: not in cities1000
    assert lyas is not None and lyas.unresolved == "lyas" and lyas.level == "admin2"
    found = place_of_work(PRIVAS, lyas)
    assert found.place is not None and found.place.name == "Privas"
    # another département's small commune: the stated town is another site, as before
    elsewhere = gazetteer.resolve("26 - MONTCLAR SUR GERVANNE")
    assert elsewhere is not None and elsewhere.unresolved
    assert place_of_work(PRIVAS, elsewhere).place is None


@pytest.mark.parametrize("listing", ["07 - LYAS", "Lyas 07000", "07000 Lyas"])
def test_a_small_commune_written_with_its_postcode_holds_too(listing: str) -> None:
    # the job centre's "NN - COMMUNE" and the other boards' postcode forms resolve alike
    found = place_of_work(PRIVAS, gazetteer.resolve(listing))
    assert found.place is not None and found.place.name == "Privas"


def test_two_small_communes_listing_one_stated_town_agree() -> None:
    assert _agrees(PRIVAS, "07 - LYAS", PRIVAS, "07 - PRANLES") == 1.0
    assert _agrees(PRIVAS, "07000 Lyas", PRIVAS, "Pranles 07000") == 1.0
    assert _agrees(PRIVAS, "07 - LYAS", PRIVAS, "07 - PRIVAS") == 1.0
    aubenas = PRIVAS.replace("PRIVAS", "AUBENAS")
    assert _agrees(PRIVAS, "07 - LYAS", aubenas, "07 - PRANLES") == 0.0


def _agrees(text_a: str, loc_a: str, text_b: str, loc_b: str) -> float:
    a = {"id": "a", "title": "Data analyst", "description": text_a, "location": loc_a}
    b = {**a, "id": "b", "description": text_b, "location": loc_b}
    row = dict(zip(FEATURE_NAMES, pair_features(a, b), strict=True))
    return float(row["stated_place_agrees"])


def test_one_stated_place_explains_two_boards_communes() -> None:
    assert _agrees(SITE, "Noisiel", SITE, "Villevaudé") == 1.0


def test_a_campaign_stating_each_site_disagrees() -> None:
    other = SITE.replace("Bussy Saint Georges", "Meaux")
    assert _agrees(SITE, "Bussy-Saint-Georges", other, "Meaux") == 0.0


def test_a_silent_snippet_listed_near_the_stated_place_agrees() -> None:
    assert _agrees(SITE, "Noisiel", "Analyse des ventes en alternance…", "Torcy") == 1.0


def test_a_stated_place_far_from_the_other_listing_says_nothing() -> None:
    # a snippet of a campaign ad listed elsewhere, or a text listing several sites
    assert math.isnan(_agrees(SITE, "Noisiel", "Analyse des ventes en alternance.", "Lyon"))
    several = "The post is based at Manchester, Newcastle or Bristol, as you prefer."
    assert math.isnan(_agrees(several, "Manchester", several, "Bristol"))


def test_a_text_naming_a_place_the_gazetteer_lacks_is_not_silent() -> None:
    park = "Lieu : Technopole Alpha, France. Vous analysez les ventes."
    assert math.isnan(_agrees(SITE, "Noisiel", park, "Torcy"))


PARK = "Lieu : Sophia Antipolis, France. Vous concevez les pipelines de données du groupe."


def test_one_site_the_gazetteer_lacks_explains_two_nearby_listings() -> None:
    # Thales' one text, under Vallauris (Welcome to the Jungle) and Valbonne (its own site)
    assert _agrees(PARK, "Vallauris", PARK, "Valbonne") == 1.0
    assert _agrees(PARK, "Vallauris", PARK, "Vallauris") == 1.0


def test_a_site_named_alike_says_nothing_far_away_or_under_an_area() -> None:
    assert math.isnan(_agrees(PARK, "Vallauris", PARK, "Lille"))
    assert math.isnan(_agrees(PARK, "Vallauris", PARK, "France"))


def test_two_sites_the_gazetteer_lacks_named_differently_say_nothing() -> None:
    other = PARK.replace("Sophia Antipolis", "Technopole Alpha")
    assert math.isnan(_agrees(PARK, "Vallauris", other, "Valbonne"))


@pytest.mark.parametrize(
    ("text", "site"),
    [
        (PARK, "sophia antipolis"),
        ("The post is based at Queen Alexandra Hospital in Cosham.", "queen alexandra hospital"),
        # a sentence going on after a capital, not a site's name (three branches' cleaning)
        ("Lieu de travail : Entretien de la banque MARZE à Vals les Bains.", ""),
        ("Location: This role is hybrid.", ""),
        ("Location:\nStart date: May 2025", ""),  # a form's empty field
        ("Location: Kent. Full time.", ""),  # a county: an area, not a site
        ("Based at the Child Development Centre. The child development team is new.", ""),
        ("Location: Remote Working, UK.", ""),
        # one site's name linked by "and" or "of", ending with a kind of site
        (
            "Based at the Eastern and Coastal Area Offices, Canterbury.",
            "eastern and coastal area offices",
        ),
        ("Based at Princess of Wales Hospital, Bridgend.", "princess of wales hospital"),
        # two places, an area, two sites: the first name, as before
        ("Lieu : Technopole Alpha et Parc Beta selon le profil.", "technopole alpha"),
        ("Location: South West of London.", ""),
        ("Based at Maidstone Hospital and Tunbridge Wells Hospital.", "maidstone hospital"),
        # a kind of site written in lower case after its name
        ("The post is based at Meadowbrook unit, Eagleton Ward, Salford.", "meadowbrook unit"),
        ("Il est basé au Campus Skipper (Le Pouzin / 07).", "le campus skipper"),
    ],
)
def test_a_site_is_a_proper_name_the_gazetteer_lacks(text: str, site: str) -> None:
    assert statement(text).site == site


@pytest.mark.parametrize(
    ("text", "listing", "town"),
    [
        ("Le poste est basé au Teil (07400). Nous recherchons un chef.", "07 - PRIVAS", "Le Teil"),
        ("Poste basé au Cheylard, au cœur de l'Ardèche.", "07 - LE CHEYLARD", "Le Cheylard"),
        ("Poste situé au Mans, en Sarthe.", "Allonnes", "Le Mans"),
        ("Mission basée aux Ulis (91).", "Orsay", "Les Ulis"),
    ],
)
def test_french_au_and_aux_hold_the_towns_article(text: str, listing: str, town: str) -> None:
    # "basé au Teil" was read as "basé a" + "u Teil", a lower-case word: no place at all
    found = place_of_work(text, gazetteer.resolve(listing))
    assert found.place is not None and found.place.name == town
    assert found.site == ""  # a town, not a site


def test_au_before_a_word_that_is_no_town_states_none_and_a_capital_a_is_no_cue() -> None:
    assert statement("Poste basé au centre de Lyon, près de la gare.").place is None
    assert statement("Notre siège est basé au Canada, à Montréal.").site == ""  # a country
    assert statement("Nos équipes sont basées aux États-Unis et en Inde.").site == ""
    # "BASE ADDRESS:" read as "base a" + "DDRESS" before the preposition had to end there
    assert not statement("LOCATION/BASE ADDRESS: see below").named


def test_copies_naming_one_site_with_a_lower_case_kind_agree_under_two_towns() -> None:
    text = "The post is based at Meadowbrook unit, Eagleton Ward, Salford. Nights rota."
    assert _agrees(text, "Salford", text, "Prestwich") == 1.0


def test_a_site_whose_name_holds_a_far_town_is_a_site() -> None:
    # "Radcliffe" is a town of Greater Manchester; the ad is listed at Oxford
    text = "The post is based at John Radcliffe Hospital. Hours of work are 37.5 a week."
    found = place_of_work(text, gazetteer.resolve("Oxford"))
    assert found.place is None and found.site == "john radcliffe hospital"
    assert _agrees(text, "Oxford", text, "Woodstock") == 1.0


def test_a_later_cue_names_the_site_when_the_first_names_none() -> None:
    text = "Location: Based at Shires Health Care\nSalary: negotiable"
    assert statement(text).site == "shires health care"


def test_the_training_habit_lists_a_stated_site_near_its_own_listing() -> None:
    import random

    posting = {"id": "x", "title": "Data Engineer", "description": PARK, "location": "Vallauris"}
    moved = nearby_commune(posting, random.Random(3), Context(language="fr"))
    vallauris, listed = gazetteer.resolve("Vallauris"), gazetteer.resolve(moved["location"])
    assert moved["description"] == PARK and moved["location"] != "Vallauris"
    assert vallauris and listed and 3 <= (gazetteer.distance_km(vallauris, listed) or 99) <= 20


def test_unknown_when_no_text_states_a_place() -> None:
    text = "Vous analysez les ventes et préparez les tableaux de bord mensuels."
    assert math.isnan(_agrees(text, "Noisiel", text, "Villevaudé"))


def test_the_field_is_extracted_once_per_posting() -> None:
    fields = extract_fields({"title": "Data analyst", "description": SITE, "location": "Torcy"})
    assert fields.stated_place is not None and fields.stated_place.name == "Bussy-Saint-Georges"


def test_the_training_habit_lists_the_vacancy_near_its_stated_place() -> None:
    import random

    posting = {"id": "x", "title": "Data analyst", "description": SITE, "location": "Noisiel"}
    moved = nearby_commune(posting, random.Random(3), Context(language="fr"))
    bussy = gazetteer.resolve("Bussy-Saint-Georges")
    listed = gazetteer.resolve(moved["location"])
    assert moved["description"] == SITE and moved["location"] != "Noisiel"
    assert bussy and listed and (gazetteer.distance_km(bussy, listed) or 99) <= 20
    plain = {**posting, "description": "Vous analysez les ventes."}
    assert nearby_commune(plain, random.Random(3), Context(language="fr")) == plain


def test_the_training_habit_lists_some_vacancies_under_small_communes() -> None:
    import random

    from classifier.board_habits import small_communes

    listings = ["07 - LYAS", "07 - PRANLES", "07 - PRIVAS", "26 - MONTCLAR SUR GERVANNE", "Leeds"]
    small = small_communes({"location": where} for where in listings)
    ardeche = gazetteer.resolve("Ardèche")
    assert ardeche is not None and ardeche.key in small
    assert small[ardeche.key] == ("07 - LYAS", "07 - PRANLES")  # Privas is in the gazetteer
    posting = {"id": "x", "title": "Radiologie", "description": PRIVAS, "location": "07 - PRIVAS"}
    ctx = Context(language="fr", small_communes=small)
    moved = {nearby_commune(posting, random.Random(seed), ctx)["location"] for seed in range(40)}
    assert {"07 - LYAS", "07 - PRANLES"} <= moved  # and gazetteer towns near Privas
    resolved = [gazetteer.resolve(listing) for listing in moved]
    assert any(place is not None and not place.unresolved for place in resolved)
    assert "26 - MONTCLAR SUR GERVANNE" not in moved


# -- the place a title names (FEATURE_VERSION 16) --------------------------------------------


def _titled(title: str, location: str) -> str | None:
    place = title_place(title, gazetteer.resolve(location))
    return None if place is None else place.name


@pytest.mark.parametrize(
    ("title", "location", "town"),
    [
        ("Data Engineer CDI Paris 12ème", "Ivry-sur-Seine", "Paris 12"),
        ("Data Engineer en CDI à Paris 12ème - secteur Médias H/F", "Paris", "Paris 12"),
        ("Médecin psychiatre (f/h) (basé à tain-l'hermitage)", "07 - MAUVES", "Tain-l'Hermitage"),
        ("Garde d'enfants sur CHAMBÉRY (H/F)", "73 - CHAMBERY", "Chambéry"),
        ("Physiotherapist - Leeds", "Leeds LS25 2HA", "Leeds"),
        ("Lyon - Data Engineer", "Villeurbanne", "Lyon"),  # a part of its own
        ("Support Worker | Stoke-On-Trent | Learning Disabilities", "Stoke-On-Trent ST3", None),
    ],
)
def test_the_town_a_title_names_near_its_listing(
    title: str, location: str, town: str | None
) -> None:
    # Stoke-on-Trent: the listing is the town itself, which the title names
    assert _titled(title, location) == (town or "Stoke-on-Trent")


@pytest.mark.parametrize(
    ("title", "location"),
    [
        ("Data Engineer - Lyon", "Paris"),  # far from the listing: another site
        ("Aide-soignant Ernolsheim-lès-Saverne", "Saverne"),  # a commune beside Saverne
        ("ΕΡΓΑΤΕΣ ΓΕΩΡΓΙΑΣ", "Cyprus, Cyprus"),  # a village named "workers", inside a country
        ("Data Engineer - Suresnes", "Île-de-France"),  # no town listed: which one is meant
        ("ΕΡΓΑΤΕΣ ΣΥΣΚΕΥΑΣΙΑΣ", "Nicosia"),  # "workers", the job's first word; a village too
        ("Infirmier de bloc opératoire", "Privas"),
    ],
)
def test_no_title_place_far_away_inside_a_compound_or_under_an_area(
    title: str, location: str
) -> None:
    assert _titled(title, location) is None


def test_the_text_states_first_and_the_title_when_the_text_is_silent() -> None:
    paris = gazetteer.resolve("Paris")
    text = place_of_work(SITE, gazetteer.resolve("Noisiel"), title="Data analyst - Paris")
    assert text.place is not None and text.place.name == "Bussy-Saint-Georges"
    silent = place_of_work("Vous analysez les ventes.", paris, title="Data analyst - Paris 12e")
    assert silent.place is not None and silent.place.name == "Paris 12" and silent.named


def _titled_agrees(title_a: str, loc_a: str, title_b: str, loc_b: str) -> float:
    text = "Vous construisez les pipelines de données de l'équipe Médias."
    a = {"id": "a", "title": title_a, "description": text, "location": loc_a}
    b = {"id": "b", "title": title_b, "description": text, "location": loc_b}
    row = dict(zip(FEATURE_NAMES, pair_features(a, b), strict=True))
    return float(row["stated_place_agrees"])


def test_two_boards_communes_of_one_titled_place_agree() -> None:
    assert (
        _titled_agrees(
            "Data Engineer en CDI à Paris 12ème",
            "Paris",
            "Data Engineer CDI Paris 12ème",
            "Ivry-sur-Seine",
        )
        == 1.0
    )


def test_a_campaign_titling_each_town_disagrees() -> None:
    assert (
        _titled_agrees(
            "Data Engineer - Noisiel",
            "Noisiel",
            "Data Engineer - Lagny-sur-Marne",
            "Lagny-sur-Marne",
        )
        == 0.0
    )


def test_the_training_habit_moves_a_titled_town_to_a_nearby_commune() -> None:
    import random

    posting = {"id": "x", "title": "Data analyst - Noisiel", "description": "Vous analysez.",
               "location": "Noisiel"}  # fmt: skip
    moved = nearby_commune(posting, random.Random(3), Context(language="fr"))
    assert moved["location"] != "Noisiel" and moved["title"] == posting["title"]


def test_the_training_habit_reads_the_town_the_employer_titled_not_a_boards_decoration() -> None:
    """A board appending its listing's town to the title lists the vacancy there: the copy
    "Data analyst - Noisiel" whose employer wrote "Data analyst" stays under Noisiel."""
    import random

    posting = {"id": "x", "title": "Data analyst - Noisiel", "description": "Vous analysez.",
               "location": "Noisiel"}  # fmt: skip
    ctx = Context(language="fr")
    assert nearby_commune(posting, random.Random(3), ctx, "Data analyst") == posting
    moved = nearby_commune(posting, random.Random(3), ctx, "Data analyst - Noisiel")
    assert moved["location"] != "Noisiel"


def test_a_town_only_one_title_names_says_nothing_of_a_silent_neighbour() -> None:
    # a campaign titles one ad with its town and not the next: "Auxiliaire de vie Viroflay"
    # and "Auxiliaire de Vie" listed at Buc, 5 km away
    assert math.isnan(
        _titled_agrees("Auxiliaire de vie Viroflay", "Viroflay", "Auxiliaire de vie", "Buc")
    )


@pytest.mark.parametrize(
    ("text", "listing", "town"),
    [
        ("Garde d'enfant expérimenté CDI (H/F) sur Muret. La mission : ...", "31 - MURET", "Muret"),
        ("Un Auditeur Confirmé F/H en CDI sur Laval. Votre fonction", "53 - LAVAL", "Laval"),
        (
            "Le garage, entreprise familiale sur Privas, recherche un mécanicien.",
            "07 - AUBENAS",
            "Privas",
        ),
        # a cue of `_CUE` comes first, wherever it stands
        ("Déplacements sur Valence. Poste basé à Privas.", "07 - PRIVAS", "Privas"),
    ],
)
def test_sur_before_a_town_near_the_listing_states_it(text: str, listing: str, town: str) -> None:
    found = place_of_work(text, gazetteer.resolve(listing))
    assert found.place is not None and found.place.name == town


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Vous travaillez sur Excel et sur SAP au quotidien.", True),  # no town
        ("Déplacements fréquents sur Paris et Marseille.", True),  # towns far from the listing
        ("Sur le secteur de Lyon, vous aurez pour mission de nettoyer les locaux.", False),
    ],
)
def test_sur_before_anything_else_states_no_place(text: str, named: bool) -> None:
    """ "sur" introduces much besides a place: only a town near the listing is the place of
    work. A capitalised name after it still makes the text no silent one (what it names may
    be a place the gazetteer lacks: "sur Garche", a quarter of Thionville); "Sur le" names
    nothing."""
    found = place_of_work(text, gazetteer.resolve("69 - LYON"))
    assert found.place is None
    assert found.named is named


def test_two_towns_stated_are_two_places_however_close() -> None:
    """A campaign states each commune of a suburb: Aucamville and Fonbeauzard lie 1 km apart."""
    aucamville = gazetteer.resolve("31 - AUCAMVILLE")
    fonbeauzard = gazetteer.resolve("31 - FONBEAUZARD")
    assert aucamville is not None and fonbeauzard is not None
    assert not same_place(aucamville, fonbeauzard)
    assert same_place(aucamville, aucamville)


def test_a_bare_name_many_towns_bear_has_namesakes_and_a_qualified_one_has_none() -> None:
    assert {p.admin2 for p in gazetteer.namesakes("Hook")} >= {
        "GB/2/england/hampshire",
        "GB/2/england/greater london",
    }
    # a second part, a postcode or a département prefix already says which one is meant
    for listing in ("Hook, Hampshire", "Rainham, ME8 7PL", "26 - ST VALLIER", "Basingstoke"):
        assert gazetteer.namesakes(listing) == ()


@pytest.mark.parametrize(
    ("title", "text", "listing", "county"),
    [
        # the title names the town: "Hook" is the Hampshire one, 9 km from Basingstoke
        ("Occupational Therapist - Basingstoke", "You will join our team.", "Hook", "hampshire"),
        # the text states it: "Rainham" is the Medway one, beside Gillingham
        ("Ambulance Driver", "The post is based at Gillingham.", "Rainham", "medway"),
        ("Auxiliaire de vie (H/F) à ANNONAY", "Vous aidez.", "Saint-Vallier", "drome"),
        # a EURES board's cue: "Mosty" is the West Pomeranian one, 9 km from Goleniów
        ("Pielęgniarka", "Miejsce pracy: Goleniów. Umowa o pracę.", "Mosty", "goleniowski"),
    ],
)
def test_a_bare_listing_is_the_namesake_near_the_place_the_ad_states(
    title: str, text: str, listing: str, county: str
) -> None:
    preferred = gazetteer.resolve(listing)
    assert preferred is not None and not (preferred.admin2 or "").endswith(county)
    fields = extract_fields({"title": title, "description": text, "location": listing})
    assert fields.place is not None and (fields.place.admin2 or "").endswith(county)
    assert fields.stated_place is not None


def test_a_bare_listing_stating_nothing_keeps_the_preferred_namesake() -> None:
    fields = extract_fields({"title": "Nurse", "description": "Join us.", "location": "Hook"})
    assert fields.place == gazetteer.resolve("Hook")


def test_two_boards_listing_a_titled_vacancy_under_a_namesake_commune_agree() -> None:
    title = "Occupational Therapist - Reablement - Basingstoke"
    assert _titled_agrees(title, "Basingstoke, RG24 8AG", title, "Hook") == 1.0


def _place_features(loc_a: str, loc_b: str) -> tuple[float, float]:
    text = "Vous rejoignez notre équipe et construisez nos outils internes."
    a = {"id": "a", "title": "Développeur", "description": text, "location": loc_a}
    row = dict(
        zip(FEATURE_NAMES, pair_features(a, {**a, "id": "b", "location": loc_b}), strict=True)
    )
    return row["place_relation"], row["place_distance_log"]


@pytest.mark.parametrize(
    ("bare", "other", "km"),
    [
        ("Châtillon", "69 - CHATILLON", 0.0),  # the Rhône commune, not Hauts-de-Seine's
        ("Rainham", "Gillingham, ME7 2BU", 8.0),  # Medway's, not Havering's (45 km)
        ("Hook", "Basingstoke, RG24 8AG", 12.0),  # Hampshire's, not London's
    ],
)
def test_a_bare_listing_that_states_nothing_is_the_namesake_near_the_other_copy(
    bare: str, other: str, km: float
) -> None:
    relation, distance = _place_features(bare, other)
    assert relation in (0.0, 1.0) or distance <= math.log1p(km)


def test_a_bare_listing_far_from_every_namesake_stays_far() -> None:
    _, distance = _place_features("Hook", "Lyon")
    assert distance > math.log1p(500.0)


@pytest.mark.parametrize(
    ("text", "listing", "town"),
    [
        ("The post is based at Addenbrookes Hospital, Cambridge.", "Comberton", "Cambridge"),
        (
            "Based at the Children's Centre, Princess of Wales Hospital in Bridgend, the post",
            "Aberkenfig",
            "Bridgend",
        ),
        ("based at the University Dental Hospital, Cardiff with teaching", "Barry", "Cardiff"),
        # a street between the site and its town is no place ("Hucknall" is a town too)
        ("Location: City Campus, Hucknall Rd, Nottingham NG5 1PB", "Ruddington", "Nottingham"),
        ("Based at New Haven – Bromsgrove", "Worcester", "Bromsgrove"),
        ("Location: Gard, Nimes", "30 - NIMES", "Nîmes"),
        ("Position based in France in Ledenon (30) ideally.", "Vers-Pont-du-Gard", "Lédenon"),
        # the same habit in the other languages the boards write
        ("Arbeitsort: Klinikum Nord, Hamburg. Wir bieten", "Norderstedt", "Hamburg"),
        ("Lugar de trabajo: Hospital Universitario La Paz, Madrid.", "Alcobendas", "Madrid"),
        ("Sede di lavoro: Ospedale Niguarda a Milano. Contratto", "Sesto San Giovanni", "Milan"),
        ("Local de trabalho: Hospital de Santa Maria em Lisboa.", "Amadora", "Lisbon"),
        ("Standplaats: Antonius Ziekenhuis te Nieuwegein.", "Utrecht", "Nieuwegein"),
        ("Miejsce pracy: Szpital Wojewódzki, Kraków. Umowa", "Wieliczka", "Kraków"),
    ],
)
def test_the_town_of_a_sites_address_is_the_place_of_work(
    text: str, listing: str, town: str
) -> None:
    # read at the site's name only, these texts stated no place: a copy listed under a
    # neighbouring town read as another site's
    found = place_of_work(text, gazetteer.resolve(listing))
    assert found.place is not None and found.place.name == town


def test_two_copies_of_a_sites_address_agree_under_two_towns() -> None:
    text = "The post is based at Addenbrookes Hospital, Cambridge. Nights rota."
    assert _agrees(text, "Cambridge", text, "Comberton") == 1.0
    other = text.replace("Cambridge", "Huntingdon")
    assert _agrees(text, "Cambridge", other, "Huntingdon") == 0.0


def test_a_list_of_towns_after_a_name_is_no_address() -> None:
    text = "Notre cabinet RH, 3 agences situées à Andrézieux, Montbrison, St Etienne, recrute."
    assert statement(text).place is None
    assert place_of_work(text, gazetteer.resolve("42 - ANDREZIEUX BOUTHEON")).place is None


def test_a_far_place_at_the_first_cue_leaves_the_next_cue_its_turn() -> None:
    # "Mount Vernon" resolved to Vernon (Eure) and hid the town the next cue states
    text = (
        "The team is based at Mount Vernon Hospital day unit. The cancer centre is based in "
        "Northwood in Middlesex."
    )
    found = place_of_work(text, gazetteer.resolve("Ruislip"))
    assert found.place is not None and found.place.name == "Northwood"


def test_a_sites_name_in_an_e_mail_address_is_still_a_proper_name() -> None:
    # "addenbrookes" in lower case in the contact's address made the site a common word
    text = "The post is based at Addenbrookes Hospital.\n\nEmail paul.selby@addenbrookes.nhs.uk"
    assert statement(text).site == "addenbrookes hospital"
    assert statement(text.replace("paul.selby@", "www.")).site == "addenbrookes hospital"
    assert statement(text.replace("paul.selby@", "HTTPS://")).site == "addenbrookes hospital"
    # written in lower case in the prose, the name is a common word's, not a site's
    prose = text + "\nThe addenbrookes campus is large."
    assert statement(prose).site == ""


@pytest.mark.parametrize(
    ("inner", "outer"),
    [
        ("Intendente", "Lisbon"),  # a city's quarter GeoNames lists as a town of its own
        ("Privas", "Ardèche"),  # a town in its département
        ("Lyon", "France"),
    ],
)
def test_a_place_inside_the_other_is_at_distance_zero(inner: str, outer: str) -> None:
    # the gap between two centres (Intendente is 0.6 km from Lisbon's) read as the
    # distance of two neighbouring towns cost a re-post of its quarter (FEATURE_VERSION 48)
    assert _place_features(inner, outer) == (1.0, 0.0)
    relation, distance = _place_features("Intendente", "Almada")  # across the Tagus
    assert relation == 2.0 and distance > 0.0
