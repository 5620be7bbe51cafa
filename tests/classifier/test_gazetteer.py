"""classifier.gazetteer: one place written at several granularities relates as "contains",
two towns as "different", whatever the board's spelling."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from classifier import gazetteer
from classifier.gazetteer import Place, distance_km, norm, relation, resolve
from tests.misdecoding import as_windows_1252
from tests.processes import output_under_hash_seed


def rel(a: str | None, b: str | None) -> str:
    return relation(resolve(a), resolve(b))


def place(text: str) -> Place:
    found = resolve(text)
    assert found is not None, text
    return found


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Puteaux", "Hauts-de-Seine"),
        ("Puteaux", "Île-de-France"),
        ("Hauts-de-Seine", "Île-de-France, France"),
        ("Bordeaux, Gironde", "Nouvelle-Aquitaine"),
        ("Paris 8e", "Île-de-France, France"),
        ("75 - Paris 8e Arrondissement", "Paris"),
        ("75 - PARIS 01", "75 - Paris (Dept.)"),
        ("Lyon 03", "Auvergne-Rhône-Alpes"),
        ("07 - Ardèche", "07 - ANNONAY"),
        ("France", "Lyon"),
        ("Marseille", "PACA"),
        ("Provence-Alpes-Côte d'Azur", "Nice"),
        ("Manchester", "Greater Manchester"),
        ("Manchester M1 1AA", "England"),
        ("Greater London", "London"),
        ("Chertsey, Surrey KT16 0PZ", "Surrey"),
        ("Maidstone", "Kent"),
        ("Cardiff", "Wales"),
        ("Glasgow", "Scotland"),
        ("Belfast", "Northern Ireland"),
        ("Leeds", "United Kingdom"),
        ("Wien", "Österreich"),
        ("Wien", "Austria"),
        ("Riga, Latvia", "Latvia, Latvia"),
        ("Warszawa", "Mazowieckie, Poland"),
        ("Łódź, Poland", "Central, Poland"),
        ("Zagreb, Croatia", "Hrvatska"),
        # a country in another language (pycountry's translations of ISO 3166-1)
        ("Sofia", "България"),
        ("Nicosia", "Κύπρος"),
        ("Berlin", "Niemcy"),
        ("София", "Bulgaria"),
        # EURES' name of Poland's eastern macroregion
        ("Lublin", "South-East"),
        ("South-East", "Polska"),
        # English counties as postal abbreviations; unitary towns GeoNames gives no county
        ("Stoke-on-Trent", "Royal Stoke Hospital, Staffs, ST4 6QG"),
        ("The Parkway, Fareham, Hants, PO16 7JL", "Hampshire"),
        ("Reading, RG1 8NQ", "Berkshire"),
        ("Luton", "Bedfordshire"),
    ],
)
def test_one_place_at_two_granularities_contains(a: str, b: str) -> None:
    assert rel(a, b) == "contains"
    assert rel(b, a) == "contains"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("07 - ANNONAY", "Annonay"),
        ("07 - ST PERAY", "Saint-Péray"),
        ("07 - GUILHERAND GRANGES", "Guilherand-Granges"),
        ("69 - LYON 01", "Lyon 1er"),
        ("F-75008", "Paris 8e"),
        ("Île-de-France, France", "ILE DE FRANCE"),
        ("Bordeaux Cedex", "Bordeaux"),
        ("PLYMOUTH PL6 8DH", "Plymouth"),
        ("Southampton General Hospital, Southampton SO14 2AA", "Southampton"),
        ("France", "France"),
    ],
)
def test_one_place_written_two_ways_is_same(a: str, b: str) -> None:
    assert rel(a, b) == "same"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Annonay", "Privas"),
        ("Lyon", "Villeurbanne"),
        ("Puteaux", "Courbevoie"),
        ("Paris 8e", "Paris 17e"),
        ("Leeds", "London"),
        ("Manchester", "Salford"),
        ("Hauts-de-Seine", "Gironde"),
        ("Île-de-France", "Occitanie"),
        ("France", "United Kingdom"),
        ("Lyon", "Riga"),
        ("Central, Poland", "South, Poland"),
        ("07 - AJOUX", "07 - PRIVAS"),
    ],
)
def test_other_places_are_different(a: str, b: str) -> None:
    assert rel(a, b) == "different"


def test_unresolved_is_unknown() -> None:
    assert resolve(None) is None
    assert resolve("  ") is None
    assert resolve("Télétravail xyzzy") is None
    assert rel("qwertyuiop", "Paris") == "unknown"
    assert rel("Paris", None) == "unknown"


def test_levels_and_ids() -> None:
    puteaux, dept, region = place("Puteaux"), place("Hauts-de-Seine"), place("Île-de-France")
    assert (puteaux.level, dept.level, region.level) == ("town", "admin2", "admin1")
    assert puteaux.country == dept.country == region.country == "FR"
    assert puteaux.admin2 == dept.key and puteaux.admin1 == region.key == dept.admin1
    assert place("07 - Ardèche").key == place("Ardèche").key
    assert place("2A - AJACCIO").admin2 == place("Corse-du-Sud").key
    assert place("Greater Manchester").level == "group2"
    assert place("Kent").country == "GB"
    assert place("England").level == "admin1"
    assert place("Paris 8e").level == "district"


def test_country_hint_wins_over_preferred_countries() -> None:
    assert place("Vienne").country == "FR"
    assert place("London").country == "GB"
    assert place("Hamburg, Germany").country == "DE"
    assert place("Paris, France").country == "FR"


def test_distance_km() -> None:
    d = distance_km(resolve("Annonay"), resolve("Privas"))
    assert d is not None and 50 < d < 75
    london_leeds = distance_km(resolve("London"), resolve("Leeds"))
    assert london_leeds is not None and 260 < london_leeds < 290
    assert distance_km(resolve("Annonay"), resolve("07 - ANNONAY")) == 0.0
    assert distance_km(resolve("Annonay"), resolve("Ardèche")) is None
    assert distance_km(None, resolve("Annonay")) is None


def test_resolve_is_memoised() -> None:
    assert resolve("Puteaux") is resolve("Puteaux")


def test_towns_outside_europe_are_not_indexed_but_their_areas_are() -> None:
    """Only European towns are indexed (gazetteer_data.EUROPE); ISO countries and subdivisions
    stay worldwide, so a foreign location resolves to its area, never to a European namesake."""
    assert place("Kyiv").country == "UA" and place("Kyiv").level == "town"
    assert (place("Texas").country, place("Texas").level) == ("US", "admin1")
    assert place("Dallas, Texas").key == place("Texas").key
    assert (place("Toronto, Canada").key, place("Toronto, Canada").level) == ("CA", "country")


def test_a_town_without_county_gets_the_county_of_its_exact_name() -> None:
    # GeoNames gives Vilnius no county; two counties strip to "vilnius" and the city's won only
    # by chance (set order) before the index was built country by country in file order.
    assert place("Vilnius").admin2 == "LT/2/vilnius/vilnius"


@pytest.mark.parametrize(
    ("text", "normalised"),
    [
        ("Łódź", "lodz"),
        ("Straße", "strasse"),
        ("Αθήνα", "athina"),
        ("Saint-Étienne", "st etienne"),
        ("  ÎLE-DE-FRANCE ", "ile de france"),
        ("Bucureşti, Sector 1", "bucuresti sector 1"),
    ],
)
def test_norm_transliterates_folds_and_abbreviates(text: str, normalised: str) -> None:
    assert norm(text) == normalised


def test_a_short_form_of_a_longer_town_name_is_that_town_not_its_last_word() -> None:
    # "Tunbridge Wells" is how ads name Royal Tunbridge Wells (Kent); Wells is in Somerset.
    short = resolve("Tunbridge Wells")
    assert short is not None and short.name == "Royal Tunbridge Wells"
    assert relation(short, resolve("Royal Tunbridge Wells, Kent")) == "same"
    assert relation(short, resolve("Wells, Somerset")) == "different"


@pytest.mark.parametrize(
    ("quarter", "city"),
    [("Intendente", "Lisbon"), ("Whitechapel", "London"), ("Tooting", "London")],
)
def test_a_quarter_of_a_large_city_is_inside_it(quarter: str, city: str) -> None:
    assert relation(resolve(quarter), resolve(city)) == "contains"
    assert relation(resolve(city), resolve(quarter)) == "contains"


@pytest.mark.parametrize(
    ("town", "city"),
    [("Villeurbanne", "Lyon"), ("Bron", "Lyon"), ("Ecully", "Lyon"), ("Salford", "Manchester")],
)
def test_a_neighbouring_commune_of_a_city_stays_another_place(town: str, city: str) -> None:
    assert relation(resolve(town), resolve(city)) == "different"


@pytest.mark.parametrize(
    ("commune", "neighbour"),
    # Communes too small for the gazetteer, named after the town beside them.
    [
        ("67 - ERNOLSHEIM LES SAVERNE", "67 - SAVERNE"),
        ("54 - MONCEL LES LUNEVILLE", "54 - LUNEVILLE"),
        ("59 - NOYELLES LES SECLIN", "Seclin"),
    ],
)
def test_a_commune_named_after_its_neighbour_is_not_the_neighbour(
    commune: str, neighbour: str
) -> None:
    place = resolve(commune)
    assert place is not None and place.unresolved
    assert relation(place, resolve(neighbour)) == "different"


@pytest.mark.parametrize(
    "unknown",
    # Small communes of Haute-Garonne missing from the gazetteer, whose words name towns
    # elsewhere (Saint-Hilaire in other départements, a "Rivière", a "Clermont").
    [
        "31 - ST CLAR DE RIVIERE",
        "31 - ST HILAIRE",
        "31 - CLERMONT LE FORT",
        "31600 Saint-Clar-de-Rivière",  # the postcode states the département too
    ],
)
def test_a_town_under_a_departement_prefix_lies_in_that_departement(unknown: str) -> None:
    place = resolve(unknown)
    assert place is not None
    assert (place.level, place.admin2) == ("admin2", place.key)
    assert place.unresolved
    # Another town of the département is another place, not one it contains.
    assert relation(place, resolve("31 - LABASTIDETTE")) == "different"
    assert relation(place, resolve(unknown)) == "same"


def test_a_departement_prefix_keeps_its_own_towns() -> None:
    place = resolve("31 - ST SAUVEUR")
    assert place is not None
    assert (place.name, place.level) == ("Saint-Sauveur", "town")
    assert relation(place, resolve("Haute-Garonne")) == "contains"


@pytest.mark.parametrize("wider", ["31 - Occitanie", "Occitanie 31000", "France 31000"])
def test_a_departement_with_its_region_or_country_names_no_town(wider: str) -> None:
    """The rule above leaves a name unresolved only if it is no area holding the département:
    a region or the country beside it is not an unknown town."""
    place = resolve(wider)
    assert place is not None
    assert place.unresolved == ""
    assert relation(place, resolve("Toulouse")) == "contains"


@pytest.mark.parametrize(
    ("town", "old_region"),
    [
        ("Lyon", "Rhône-Alpes"),
        ("Bordeaux", "Aquitaine"),
        ("Toulouse", "Midi-Pyrénées"),
        ("Lille", "Nord-Pas-de-Calais"),
        ("Strasbourg", "Alsace"),
        ("Nancy", "Lorraine"),
        ("Amiens", "Picardie"),
        ("Dijon", "Bourgogne"),
        ("Caen", "Basse-Normandie"),
        ("Montpellier", "Languedoc-Roussillon"),
        ("Clermont-Ferrand", "Auvergne"),
    ],
)
def test_the_regions_before_2016_hold_their_towns(town: str, old_region: str) -> None:
    """Aggregators still place ads in France's 22 regions of before 2016; without them
    "Nord-Pas-de-Calais" was read as the Pas-de-Calais département (so Lille was another
    place) and "Dijon, Bourgogne" as France."""
    assert rel(town, old_region) == "contains"
    assert place(f"{town}, {old_region}").name == place(town).name


def test_an_old_region_lies_in_todays_and_not_in_its_neighbour() -> None:
    assert rel("Rhône-Alpes", "Auvergne-Rhône-Alpes") == "contains"
    assert rel("Picardie", "Hauts-de-France") == "contains"
    assert rel("Clermont-Ferrand", "Rhône-Alpes") == "different"  # in Auvergne
    assert rel("Alsace", "Lorraine") == "different"
    assert rel("Merseyside", "England") == "contains"  # the English groups likewise


@pytest.mark.parametrize(
    ("written", "departement"),
    [
        ("53 - Mayenne", "Mayenne"),  # not the town of Mayenne
        ("67 - Rhin (Bas)", "Bas-Rhin"),  # Pôle emploi's partners invert the name
        ("31 - Garonne (Haute)", "Upper Garonne"),  # GeoNames' name
        ("92 - Seine (Hauts de)", "Hauts-de-Seine"),
    ],
)
def test_a_departement_prefix_with_its_own_name_is_the_departement(
    written: str, departement: str
) -> None:
    stated = place(written)
    assert (stated.level, stated.name, stated.unresolved) == ("admin2", departement, "")
    town = {"53": "53 - ERNEE", "67": "Strasbourg", "31": "Toulouse", "92": "Puteaux"}
    assert rel(written, town[written[:2]]) == "contains"


@pytest.mark.parametrize(
    ("written", "nation", "county"),
    [
        ("Ysbyty Gwynedd, Bangor, LL57 2PW", "wales", "gwynedd"),
        ("Bangor, BT20 4TD", "northern ireland", "ards and north down"),
        ("Newport, PO30 5TG", "england", "isle of wight"),
        ("Newport, NP20 2UB", "wales", "newport"),  # NP straddles a border: no hint
        ("Newcastle, NE2 1JP", "england", "newcastle upon tyne"),
    ],
)
def test_a_uk_postcode_chooses_among_towns_of_one_name(
    written: str, nation: str, county: str
) -> None:
    """A UK postcode's area names the nation (LL Wales, BT Northern Ireland, PO England):
    the town of that name there, not its namesake across a border."""
    found = place(written)
    assert (found.level, found.admin1) == ("town", f"GB/1/{nation}")
    assert found.admin2 == f"GB/2/{nation}/{county}"


def test_a_postcode_drops_namesakes_in_another_nation_but_not_stated_areas() -> None:
    # "Valley" is a village on Anglesey; TS is Teesside, in England
    assert place("Tees Valley, TS2 1BB").key == "GB/1/england"
    # the nations a board names are its statement, not namesakes
    assert place("England, Scotland and Wales, B16 9RG").level in ("admin1", "country")


@pytest.mark.parametrize(
    "written",
    [
        "Évreux",
        "27 - ÉVREUX",
        "Saint-Étienne",
        "Orléans",  # read as "OrlÃ©ans", it found a Polish town
        "Besançon",
        "Timişoara, România",
        "Łódź, Poland",
        "Gdańsk",
        "Košice",
    ],
)
def test_a_place_a_feed_mis_decoded_is_the_place_written(written: str) -> None:
    """A partner feed that read the ad's UTF-8 as Windows-1252 did so for its place too."""
    damaged = as_windows_1252(written)
    assert damaged != written
    assert place(damaged).key == place(written).key


_INDEX_DIGEST = (  # sets (an area's `within`) compared as sorted lists: their repr's order varies
    "import hashlib; from classifier import gazetteer; ix = gazetteer.index(); "
    "areas = [(*a[:-1], sorted(a.within)) for a in ix.areas]; "
    "print(hashlib.sha256(repr((list(ix.names.items()), areas, ix.area_ids)).encode())"
    ".hexdigest())"
)


def test_the_index_is_built_the_same_under_any_string_hash(tmp_path: Path) -> None:
    """Built twice from scratch (empty caches) under two `PYTHONHASHSEED`s: the same names in
    the same order. The order of `Index.names` decides which of several longer names a part
    finds first, and the index is built by whichever process finds no cache; the shipped
    model's training pairs must not depend on that process."""
    digests = {
        output_under_hash_seed(_INDEX_DIGEST, seed, JOBDEDUP_CACHE_DIR=str(tmp_path / seed))
        for seed in ("1", "2")
    }
    assert len(digests) == 1
    assert len(digests.pop().strip()) == len(hashlib.sha256().hexdigest())


def test_a_name_many_towns_bear_is_the_one_nearest_the_listing() -> None:
    """A text's "sur Merville" under "31 - MERVILLE": the Haute-Garonne commune, where the
    name alone resolves to the larger Merville in Nord."""
    listing = gazetteer.resolve("31 - MERVILLE")
    assert listing is not None and (listing.admin2 or "").endswith("upper garonne")
    near = gazetteer.resolve_near("Merville", listing)
    assert near is not None and near.key == listing.key
    alone = gazetteer.resolve_near("Merville", None)
    assert alone == gazetteer.resolve("Merville") and alone is not None
    assert alone.key != listing.key


@pytest.mark.parametrize(
    ("location", "county"),
    [
        ("Peacock Centre, Mill Rd, Cambs, CB1 3DR", "cambridgeshire"),
        ("East and North Herts, SG1 4AB", "hertfordshire"),
        ("STL, Hants, BH24 2RR", "hampshire"),
        ("East Staffs, DE14", "staffordshire"),
        ("Patchway Hub, South Glos, BS34 5PE", "south gloucestershire"),
    ],
)
def test_a_county_in_its_postal_abbreviation_is_the_county(location: str, county: str) -> None:
    """NHS site addresses' "Cambs", "Herts", "Hants": read as England or the UK before."""
    assert place(location).key.endswith(f"/{county}")


@pytest.mark.parametrize(
    "location",
    [
        "London Road, DE1 2QY",
        "Leeds Road Hospital, BD3 9LH",
        "District Nursing Hants Lane, L40 8JU",
        "Vauxhall Bridge Road, SW1V 1DX",
        "Enhanced Care Ward, Uttoxeter New Road, DE22 3WQ",
    ],
)
def test_a_place_named_in_a_street_name_is_not_the_place(location: str) -> None:
    """A site address's street named after a town (Derby's London Road, Bradford's Leeds
    Road Hospital) says nothing of where the site is: the postcode's nation is all it says."""
    assert place(location).key == "GB/1/england"


@pytest.mark.parametrize(
    ("location", "town"),
    [("12 rue de Lyon, Marseille", "Marseille"), ("Royal Derby Hospital", "Derby")],
)
def test_a_site_or_street_beside_a_town_keeps_the_town(location: str, town: str) -> None:
    assert place(location).name == town


def test_a_translated_country_name_another_place_bears_stays_that_place() -> None:
    """Polish "Włochy" (Italy) is a district of Warsaw, French "Grenade" (Grenada) a commune."""
    assert (place("Włochy").country, place("Włochy").level) == ("PL", "town")
    assert (place("Grenade").country, place("Grenade").level) == ("FR", "town")


@pytest.mark.parametrize(
    ("name", "country"),
    [("États-Unis", "US"), ("Maroc", "MA"), ("Chine", "CN"), ("Inde", "IN"), ("Chiny", "BE")],
)
def test_countries_outside_europe_have_their_translated_names(name: str, country: str) -> None:
    # "Chiny" (China in Polish) stays the Belgian town that bears it
    assert place(name).country == country


@pytest.mark.parametrize(
    ("listing", "town"),
    [("07 - Vans", "Les Vans"), ("07 - Teil", "Le Teil"), ("72 - Mans", "Le Mans")],
)
def test_a_commune_listed_without_its_article_is_the_town_with_it(listing: str, town: str) -> None:
    assert (place(listing).name, place(listing).level) == (town, "town")


def test_a_listing_naming_no_commune_of_its_departement_stays_the_departement() -> None:
    assert place("07 - LYAS").level == "admin2"  # too small for the gazetteer


def test_a_translated_country_name_that_is_a_common_word_names_no_country() -> None:
    # Latvian "Čada" (Chad) folds to Spanish "cada" (each)
    assert gazetteer.resolve("cada") is None


@pytest.mark.parametrize(
    ("written", "official"),
    [
        ("Queens Hospital, Burton on Trent DE13 0RB", "Burton upon Trent"),
        ("Stratford-on-Avon", "Stratford-upon-Avon"),
        ("Walton upon Thames", "Walton-on-Thames"),
        ("Kingston on Thames", "Kingston upon Thames"),
        ("Southend-upon-Sea", "Southend-on-Sea"),
        ("W Sussex", "West Sussex"),
        ("E. Sussex", "East Sussex"),
        ("N Yorkshire", "North Yorkshire"),
        ("NE Lincolnshire", "North East Lincolnshire"),
        ("N Ireland", "Northern Ireland"),
        ("To be negotiated, Co. Durham DL2 2TS", "County Durham"),
        ("Co Cork", "County Cork"),
    ],
)
def test_a_british_or_irish_place_written_another_way_is_that_place(
    written: str, official: str
) -> None:
    """Written "on" for "upon" and back, a compass word's initial, "Co" for "County": each read as
    another place or none before ("Burton on Trent" was the Burton in Lincolnshire,
    "Stratford-on-Avon" a French commune named Avon, "Co. Durham DL2" Durham city)."""
    assert place(written).key == place(official).key


@pytest.mark.parametrize(
    ("town", "county"),
    [
        ("Rhymney, NP22 5NF", "Gwent"),
        ("Newport NP20 4EZ", "Gwent"),
        ("Bodelwyddan", "Clwyd"),
        ("Carmarthen", "Dyfed"),
        ("Swansea", "West Glamorgan"),
        ("Cardiff", "South Glamorgan"),
        ("Merthyr Tydfil", "Mid Glamorgan"),
        ("Gwent NP44 8YN", "Wales"),
    ],
)
def test_the_preserved_counties_of_wales_hold_their_towns(town: str, county: str) -> None:
    assert rel(town, county) == "contains"


@pytest.mark.parametrize(
    ("town", "county"),
    [("Newport, Isle of Wight", "Gwent"), ("Bangor, Gwynedd", "Clwyd"), ("Swansea", "Dyfed")],
)
def test_a_town_outside_a_preserved_county_is_not_in_it(town: str, county: str) -> None:
    assert rel(town, county) == "different"


@pytest.mark.parametrize(
    ("written", "official"),
    [
        ("Southend Hospital, Southend SS0 0RY", "Southend-on-Sea"),
        ("Newark Hospital, Newark NG24 4DE", "Newark on Trent"),
        ("Bexhill TN40 2DZ", "Bexhill-on-Sea"),
    ],
)
def test_a_big_town_on_a_river_or_the_sea_by_its_short_form_is_that_town(
    written: str, official: str
) -> None:
    """Read as England (no town named) before."""
    assert place(written).key == place(official).key


def test_a_short_form_another_place_bears_is_not_added() -> None:
    """The name "Kingston" is already a place (a parish of Jamaica), so neither Kingston upon Thames
    nor Kingston upon Hull is filed under it: "Kingston KT2" is not read as Hull, 250 km
    from its postcode."""
    assert place("Kingston KT2 7QB").key != place("Kingston upon Hull").key


@pytest.mark.parametrize(
    ("site", "town"),
    [
        ("Ward 32, Tunbridge Wells Hospital TN2 4QJ", "Royal Tunbridge Wells"),
        ("Physiotherapy G23910, Leamington Spa Hospital CV34 6SR", "Royal Leamington Spa"),
    ],
)
def test_a_site_named_after_the_end_of_a_longer_town_name_is_in_that_town(
    site: str, town: str
) -> None:
    """Read as Wells in Somerset (206 km away) and as England before."""
    assert place(site).name == town


@pytest.mark.parametrize(
    ("site", "not_town"),
    [
        ("07 - ARRAS SUR RHONE", "Tournon-sur-Rhône"),
        ("Minster on Sea ME12 3LT", "Southend-on-Sea"),
        ("Queen Mary's House, Hampstead NW3 1DU", "St Mary's"),
    ],
)
def test_a_link_word_or_a_fragment_ends_no_longer_name(site: str, not_town: str) -> None:
    """The words "sur Rhône", "on Sea" and "Mary s" end many names; none of them names the site."""
    assert place(site).name != not_town


def test_a_spaced_hyphen_before_a_link_word_joins_one_name() -> None:
    """NHS Jobs' "Stoke - on-Trent" was Stoke, a village in Cheshire 51 km away."""
    assert place("University Hospital of North Midlands, Stoke - on-Trent ST4 6QG").name == (
        "Stoke-on-Trent"
    )
    assert place("Cross Site - Royal Derby Hospital").name == "Derby"


@pytest.mark.parametrize(
    ("listing", "town"),
    [
        ("Biggin Hill, Kent, TN16 3TJ", "Biggin Hill"),  # Greater London, post town in Kent
        ("Aldershot, Surrey, GU11 1AY", "Aldershot"),  # Hampshire, at the Surrey line
        ("Shirebrook, Nottinghamshire, NG20 8BA", "Shirebrook"),  # Derbyshire
    ],
)
def test_a_town_under_its_postal_county_is_the_town(listing: str, town: str) -> None:
    assert (place(listing).name, place(listing).level) == (town, "town")


@pytest.mark.parametrize(
    "listing",
    [
        "Aldershot, Cumbria",  # a county far away is a disagreement
        "Bradford and Calderdale, HD3 3EB",  # a service's area, not a town's county
        "Bristol, North Somerset, South Glos, BS15 9TR",  # two counties
    ],
)
def test_a_town_beside_a_county_it_does_not_border_or_an_area_stays_the_area(
    listing: str,
) -> None:
    assert place(listing).level not in ("district", "town")
