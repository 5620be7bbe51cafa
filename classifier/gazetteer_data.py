"""The place index behind `classifier.gazetteer`, and the names it needs that no source has.

Towns are GeoNames' cities1000 rows (at least 1,000 inhabitants; coordinates, population,
admin1 and admin2 names), areas and codes come from `pycountry` (ISO 3166-1 and 3166-2: French
département numbers, local names), plus the groupings neither has (English metropolitan and
ceremonial counties, the NUTS-1 macroregions EURES uses). Only European towns are indexed
(`EUROPE`): all 155,000 took 3-11 s and 220 MB, and our boards name foreign places only across
their borders. Countries and ISO subdivisions stay worldwide (a few thousand areas: "Texas"
still resolves). Places are int ids over flat arrays; `Place` objects are built on demand.
"""

from __future__ import annotations

import gettext
import re
from array import array
from collections import defaultdict
from collections.abc import Collection, Iterable
from functools import cache
from typing import Any, NamedTuple

import pycountry
from anyascii import anyascii

from indexer.key_patterns import PLACE_ABBREVIATIONS
from indexer.language import stop_words

EUROPE = frozenset(
    " ".join(
        (
            "AT BE BG CY CZ DE DK EE ES FI FR GR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK",
            "CH IS LI NO GB GG IM JE GI AD MC SM VA AX FO",
            "AL BA ME MK RS XK MD UA BY",
        )
    ).split()
)
"""Countries whose towns are indexed: the EU; EFTA, the UK with its Crown dependencies and
Gibraltar, the microstates, Åland and the Faroes; the Western Balkans, Moldova, Ukraine and
Belarus. That is every country bordering FR, GB or the EURES ten (PL LV CY HR EE PT HU RO LT
BG) and every EURES member, but Russia and Turkey: 7,300 towns mostly outside Europe."""

BIG_TOWN = 10_000  # a town at least this big wins over an area of the same name ("Vienne")

COUNTRY_ALIASES = {
    "GB": "uk|great britain|britain|england and wales",
    "FR": "republique francaise",
    "BG": "balgariia",
    "CY": "kibris",
    "PT": "mainland portugal|continente",
    "CZ": "republique tcheque",
    "GR": "ellas",
    "LU": "letzebuerg",
}
"""Country names neither ISO 3166-1 nor its translations (`COUNTRY_LANGUAGES`) give: the
UK's short forms, another transliteration of Bulgaria, the Turkish name of Cyprus, EURES'
"Mainland Portugal", French forms, the Luxembourgish name."""
# Endonyms and exonyms of towns GeoNames names in English only.
TOWN_ALIASES = {
    ("AT", "vienna"): "wien|vienne autriche",
    ("PL", "warsaw"): "warszawa|varsovie",
    ("CZ", "prague"): "praha",
    ("PT", "lisbon"): "lisboa|lisbonne",
    ("RO", "bucharest"): "bucuresti|bucarest",
    ("DE", "munich"): "munchen",
    ("DE", "cologne"): "koln",
    ("BE", "brussels"): "bruxelles|brussel",
    ("IT", "rome"): "roma",
    ("IT", "milan"): "milano",
    ("GR", "athens"): "athina|athenes",
    ("CY", "nicosia"): "lefkosia|lefkosa|leykosia",
    ("DK", "copenhagen"): "kobenhavn",
    ("NL", "the hague"): "den haag|s gravenhage",
    ("CH", "geneva"): "geneve|genf",
    ("BG", "sofia"): "sofiia|sofiya",
    ("HR", "zagreb"): "zagrab",
    ("GB", "kingston upon hull"): "hull",
    ("GB", "newcastle upon tyne"): "newcastle",
}
# GeoNames' English admin1 names → other names boards use (pycountry links the ISO ones).
ADMIN1_ALIASES = {
    ("FR", "brittany"): "bretagne",
    ("FR", "normandy"): "normandie",
    ("FR", "corsica"): "corse",
    ("FR", "centre"): "centre val de loire",
    ("FR", "provence alpes cote d azur"): "paca|region sud",
    ("FR", "ile de france"): "idf|region parisienne",
    ("AT", "vienna"): "wien",
    ("PL", "mazovia"): "mazowieckie",
    ("PL", "lesser poland"): "malopolskie",
    ("PL", "silesia"): "slaskie",
    ("PL", "lower silesia"): "dolnoslaskie",
    ("PL", "greater poland"): "wielkopolskie",
    ("PL", "pomerania"): "pomorskie",
    ("PL", "west pomerania"): "zachodniopomorskie",
    ("PL", "kujawsko pomorskie"): "kuyavian pomeranian",
    ("PL", "lodz"): "lodzkie",
    ("PL", "lublin"): "lubelskie",
    ("PL", "subcarpathia"): "podkarpackie",
    ("PL", "podlasie"): "podlaskie",
    ("PL", "warmia masuria"): "warminsko mazurskie",
    ("PL", "lubusz"): "lubuskie",
    ("PL", "opole"): "opolskie",
}
_UK_COUNTY_ABBREVIATIONS = {
    "bedfordshire": "beds",
    "berkshire": "berks",
    "buckinghamshire": "bucks",
    "cambridgeshire": "cambs",
    "derbyshire": "derbys",
    "gloucestershire": "glos|gloucs",
    "hampshire": "hants",
    "hertfordshire": "herts",
    "lancashire": "lancs",
    "leicestershire": "leics",
    "lincolnshire": "lincs",
    "northamptonshire": "northants",
    "nottinghamshire": "notts",
    "oxfordshire": "oxon",
    "shropshire": "shrops|salop",
    "staffordshire": "staffs",
    "warwickshire": "warks",
    "wiltshire": "wilts",
    "worcestershire": "worcs",
    "north yorkshire": "n yorks|north yorks",
    "west yorkshire": "w yorks|west yorks",
    "south yorkshire": "s yorks|south yorks",
    "south gloucestershire": "south glos|s glos",
}
"""The English counties as the old postal abbreviations write them, which NHS Jobs' site
addresses still use ("Royal Stoke Hospital, Staffs, ST4 6QG", "The Parkway, Fareham, Hants",
"East and North Herts, SG1 4AB": 53 of the 14,842 ads of `../shared/data/nhs-jobs-2020`). No
gazetteer package has them; each names the county, as an admin2 area or a group of them
(`GROUPS`), whichever the county is (both for Hampshire)."""
ADMIN2_ALIASES = {
    ("FR", "south corsica"): "corse du sud",
    ("FR", "upper corsica"): "haute corse",
    ("FR", "upper garonne"): "haute garonne",
    ("FR", "loire et cher"): "loir et cher",
    **{("GB", county): short for county, short in _UK_COUNTY_ABBREVIATIONS.items()},
}
GROUP_ALIASES = {
    ("FR", "bourgogne"): "burgundy",
    ("FR", "picardie"): "picardy",
    ("FR", "basse normandie"): "lower normandy",
    ("FR", "haute normandie"): "upper normandy",
    # EURES names Poland's eastern macroregion (Lublin, Subcarpathia, Podlasie) "South-East":
    # 41 of its Polish ads in `../shared/data/eures-eelisa-2025`, whose texts name Lublin,
    # Chełm, Zamość, Przeworsk and Hajnówka; none is filed under "East".
    ("PL", "east"): "south east",
    **{("GB", county): short for county, short in _UK_COUNTY_ABBREVIATIONS.items()},
}
"""Other names boards use for a group of `GROUPS`."""
# Areas made of admin2 (GB, FR) or admin1 (NUTS-1) areas, by their stripped GeoNames names.
GROUPS: dict[tuple[str, str, str], str] = {
    ("GB", "group2", "greater manchester"): "bolton|bury|manchester|oldham|rochdale|salford"
    "|stockport|tameside|trafford|wigan",
    ("GB", "group2", "merseyside"): "knowsley|liverpool|sefton|st helens|wirral",
    ("GB", "group2", "south yorkshire"): "barnsley|doncaster|rotherham|sheffield",
    ("GB", "group2", "west yorkshire"): "bradford|calderdale|kirklees|leeds|wakefield",
    ("GB", "group2", "tyne and wear"): "gateshead|newcastle upon tyne|north tyneside"
    "|south tyneside|sunderland",
    ("GB", "group2", "west midlands"): "birmingham|coventry|dudley|sandwell|solihull|walsall"
    "|wolverhampton",
    ("GB", "group2", "berkshire"): "bracknell forest|reading|slough|west berkshire"
    "|windsor and maidenhead|wokingham",
    ("GB", "group2", "cheshire"): "cheshire east|cheshire west and chester|halton|warrington",
    ("GB", "group2", "bedfordshire"): "bedford|central bedfordshire|luton",
    ("GB", "group2", "northamptonshire"): "north northamptonshire|west northamptonshire",
    ("GB", "group2", "kent"): "kent|medway",
    ("GB", "group2", "essex"): "essex|southend on sea|thurrock",
    ("GB", "group2", "hampshire"): "hampshire|southampton|portsmouth",
    ("GB", "group2", "devon"): "devon|plymouth|torbay",
    ("GB", "group2", "dorset"): "dorset|bournemouth christchurch and poole",
    ("GB", "group2", "leicestershire"): "leicestershire|leicester|rutland",
    ("GB", "group2", "nottinghamshire"): "nottinghamshire|nottingham",
    ("GB", "group2", "derbyshire"): "derbyshire|derby",
    ("GB", "group2", "staffordshire"): "staffordshire|stoke on trent",
    ("GB", "group2", "somerset"): "somerset|bath and north east somerset|north somerset",
    ("GB", "group2", "gloucestershire"): "gloucestershire|south gloucestershire",
    ("GB", "group2", "wiltshire"): "wiltshire|swindon",
    ("GB", "group2", "east sussex"): "east sussex|brighton and hove",
    ("GB", "group2", "cambridgeshire"): "cambridgeshire|peterborough",
    ("GB", "group2", "buckinghamshire"): "buckinghamshire|milton keynes",
    ("GB", "group2", "shropshire"): "shropshire|telford and wrekin",
    ("GB", "group2", "lincolnshire"): "lincolnshire|north lincolnshire|north east lincolnshire",
    ("GB", "group2", "lancashire"): "lancashire|blackpool|blackburn with darwen",
    ("GB", "group2", "east riding of yorkshire"): "east riding of yorkshire|kingston upon hull",
    ("GB", "group2", "durham"): "durham|darlington|hartlepool|stockton on tees",
    # The preserved counties of Wales (1974-96 counties, kept for ceremonial use), which
    # NHS Wales addresses still name ("Rhymney, Gwent NP22 5NF", "Ysbyty Glan Clwyd"): the
    # locations of 41 of the 14,842 ads of `../shared/data/nhs-jobs-2020` name one of them.
    ("GB", "group2", "gwent"): "blaenau gwent|caerphilly|monmouthshire|newport|torfaen",
    ("GB", "group2", "clwyd"): "conwy|denbighshire|flintshire|wrexham",
    ("GB", "group2", "dyfed"): "carmarthenshire|ceredigion|pembrokeshire",
    ("GB", "group2", "mid glamorgan"): "bridgend|merthyr tydfil|rhondda cynon taf",
    ("GB", "group2", "south glamorgan"): "cardiff|vale of glamorgan",
    ("GB", "group2", "west glamorgan"): "neath port talbot|swansea",
    # The 22 regions of France before 2016, which aggregators still name ("Lyon,
    # Rhône-Alpes", "Alsace", "Midi-Pyrénées"); each lies within one region of today.
    ("FR", "group2", "alsace"): "bas rhin|haut rhin",
    ("FR", "group2", "aquitaine"): "dordogne|gironde|landes|lot et garonne|pyrenees atlantiques",
    ("FR", "group2", "auvergne"): "allier|cantal|haute loire|puy de dome",
    ("FR", "group2", "basse normandie"): "calvados|manche|orne",
    ("FR", "group2", "bourgogne"): "cote d or|nievre|saone et loire|yonne",
    ("FR", "group2", "champagne ardenne"): "ardennes|aube|marne|haute marne",
    ("FR", "group2", "franche comte"): "doubs|jura|haute saone|territoire de belfort",
    ("FR", "group2", "haute normandie"): "eure|seine maritime",
    ("FR", "group2", "languedoc roussillon"): "aude|gard|herault|lozere|pyrenees orientales",
    ("FR", "group2", "limousin"): "correze|creuse|haute vienne",
    ("FR", "group2", "lorraine"): "meurthe et moselle|meuse|moselle|vosges",
    ("FR", "group2", "midi pyrenees"): "ariege|aveyron|upper garonne|gers|lot|hautes pyrenees"
    "|tarn|tarn et garonne",
    ("FR", "group2", "nord pas de calais"): "nord|pas de calais",
    ("FR", "group2", "picardie"): "aisne|oise|somme",
    ("FR", "group2", "poitou charentes"): "charente|charente maritime|deux sevres|vienne",
    ("FR", "group2", "rhone alpes"): "ain|ardeche|drome|isere|loire|rhone|savoie|haute savoie",
    ("PL", "group1", "central"): "lodz|swietokrzyskie",
    ("PL", "group1", "south"): "lesser poland|silesia",
    ("PL", "group1", "east"): "lublin|subcarpathia|podlasie",
    ("PL", "group1", "north west"): "greater poland|west pomerania|lubusz",
    ("PL", "group1", "south west"): "lower silesia|opole",
    ("PL", "group1", "north"): "kujawsko pomorskie|warmia masuria|pomerania",
    ("RO", "group1", "macroregion one"): "bihor|bistrita nasaud|cluj|maramures|satu mare|salaj"
    "|alba|brasov|covasna|harghita|mures|sibiu",
    ("RO", "group1", "macroregion two"): "bacau|botosani|iasi|neamt|suceava|vaslui|braila"
    "|buzau|constanta|galati|tulcea|vrancea",
    ("RO", "group1", "macroregion three"): "arges|calarasi|dambovita|giurgiu|ialomita|prahova"
    "|teleorman|bucuresti|ilfov",
    ("RO", "group1", "macroregion four"): "dolj|gorj|mehedinti|olt|valcea|arad|caras severin"
    "|hunedoara|timis",
    ("BG", "group1", "northern and eastern bulgaria"): "vidin|montana|vratsa|pleven|lovech"
    "|veliko tarnovo|gabrovo|ruse|razgrad|silistra|varna|dobrich|shumen|targovishte|burgas"
    "|sliven|yambol|stara zagora",
    ("BG", "group1", "south western and south central bulgaria"): "sofia capital|sofia"
    "|blagoevgrad|pernik|kyustendil|plovdiv|haskovo|pazardzhik|smolyan|kardzhali",
    ("PT", "group1", "mainland portugal"): "aveiro|beja|braga|braganca|castelo branco|coimbra"
    "|evora|faro|guarda|leiria|lisbon|portalegre|porto|santarem|setubal|viana do castelo"
    "|vila real|viseu",
    ("HU", "group1", "central hungary"): "budapest|pest",
    ("HU", "group1", "transdanubia"): "fejer|komarom esztergom|veszprem|gyor moson sopron|vas"
    "|zala|baranya|somogy|tolna",
    ("HU", "group1", "great plain and north"): "borsod abauj zemplen|heves|nograd|hajdu bihar"
    "|jasz nagykun szolnok|szabolcs szatmar bereg|bacs kiskun|bekes|csongrad",
}


# ----------------------------------------------------------------------------- names

_PUNCT = re.compile(r"[^a-z0-9]+")
_TOKEN_MAP = PLACE_ABBREVIATIONS
_AREA_AFFIX = re.compile(
    r"^(?:departement (?:de la |de l |des |du |de |d )?|city and county of |city and borough of "
    r"|metropolitan borough of |royal borough of |london borough of |borough of |city of "
    r"|county of |district of |politischer bezirk |powiat |obshtina |comuna |grad |sir "
    r"|regierungsbezirk |state of |the )|(?: county borough| county| municipality| district"
    r"| voivodeship| region| province| city| council| rajonas)$"
)


class _Fold(dict[int, str]):
    """Each code point's share of `norm`, remembered: its `anyascii` transliteration (made one
    code point at a time, so the same as over the whole string), lowercased, with anything but
    a-z and 0-9 as a space. `str.translate` over this table does in C what `anyascii`, `lower`
    and `_PUNCT.sub` did in Python."""

    def __missing__(self, code: int) -> str:
        self[code] = folded = _PUNCT.sub(" ", anyascii(chr(code)).lower())
        return folded


_FOLD = _Fold()


def norm(text: str) -> str:
    """Accent-, case- and punctuation-free form of a name, "Saint"/"Sainte" as "st"/"ste":
    the form every lookup compares."""
    words = text.translate(_FOLD).split()
    if not _TOKEN_MAP.keys() & words:
        return " ".join(words)
    return " ".join(_TOKEN_MAP.get(w, w) for w in words)


def norm_each(words: Collection[str]) -> set[str]:
    """`norm` of each of `words`: a lower-case ASCII word without an abbreviation ("saint")
    is its own form, so only the others are folded (a text's few hundred words in
    `stated_place.site_name`, where folding each cost a tenth of the field extraction)."""
    same = {w for w in words if w.isascii() and w.islower() and w.isalpha()}
    folded = {norm(w) for w in words if w not in same or w in _TOKEN_MAP}
    return (same - _TOKEN_MAP.keys()) | folded


@cache
def _area_names(name: str) -> tuple[str, ...]:
    """A name as written and without its administrative affixes ("County Durham", "Durham").

    A tuple in that order, not a set: the build iterates these names, and a set's order
    follows the process's string hash (`PYTHONHASHSEED`), so two builds of the index would
    differ in which area a shared name finds first and in the order of `Index.names`."""
    full = norm(name)
    stripped = _AREA_AFFIX.sub("", full).strip()
    stripped = _AREA_AFFIX.sub("", stripped).strip()
    return tuple(dict.fromkeys(n for n in (full, stripped, stripped.removeprefix("county ")) if n))


# ----------------------------------------------------------------------------- the index


class Area(NamedTuple):
    """An area (country, admin1/2, group, ISO subdivision): the fields of its `Place`."""

    key: str
    name: str
    level: str
    country: str
    admin1: str | None
    admin2: str | None
    within: frozenset[str]


class Index:
    """Every indexed place as an int id: a town is a row of the flat town arrays, an area is
    `~i` for `areas[i]`. `names` maps a normalised name to its candidates in the order the
    sources list them (which breaks ranking ties)."""

    def __init__(self) -> None:
        self.names: dict[str, int | tuple[int, ...]] = {}
        self.areas: list[Area] = []
        self.area_ids: dict[str, int] = {}  # key → id (< 0)
        self.area_pop: dict[str, int] = {}  # key → inhabitants of its indexed towns
        self.departements: dict[str, int] = {}  # French département number → id
        self.town_name: list[str] = []
        self.town_row = array("i")  # row in the GeoNames file, ascending: the town's key
        self.town_ctx = array("i")  # index in `contexts`
        self.town_lat, self.town_lon = array("d"), array("d")
        self.town_pop = array("i")
        # (country, admin1 key, admin2 key, keys of every area holding the town)
        self.contexts: list[tuple[str, str | None, str | None, frozenset[str]]] = []


class _Names(dict[str, int | list[int]]):
    """Name → ids while the index is built. A lone id stays an int: most names have one place,
    and an int is smaller than a list (and not tracked by the garbage collector)."""

    def add(self, name: str, place: int) -> None:
        ids = self.get(name)
        if ids is None:
            self[name] = place
        elif isinstance(ids, int):
            self[name] = [ids, place]
        else:
            ids.append(place)

    def final(self) -> dict[str, int | tuple[int, ...]]:
        """Each name's ids in order, once each (a place can come twice under a name)."""
        return {n: i if isinstance(i, int) else tuple(dict.fromkeys(i)) for n, i in self.items()}


Rows = Iterable[tuple[int, list[dict[str, Any]]]]
"""GeoNames rows, one country at a time: (number of its first row in the file, its rows)."""


def build(rows: Rows) -> Index:
    """The index of every country, ISO subdivision and group, and of the towns in `rows` (one
    country at a time, in file order: a town's key is its row number)."""
    ix = Index()
    names = _Names()
    groups_of = _add_countries_and_groups(ix, names)
    _add_towns(ix, names, groups_of, rows)
    by_name: dict[tuple[str, str, str], int] = {}
    for i, area in enumerate(ix.areas):
        if area.level in ("admin1", "admin2"):
            aliases = ADMIN1_ALIASES if area.level == "admin1" else ADMIN2_ALIASES
            written = _area_names(area.name)
            area_names = dict.fromkeys(written)  # ordered: see `_area_names`
            for n in written:
                area_names.update(dict.fromkeys(aliases.get((area.country, n), "").split("|")))
            area_names.pop("", None)
            for n in area_names:
                names.add(n, ~i)
                by_name.setdefault((area.country, area.level, n), ~i)
    _add_subdivisions(ix, names, by_name)
    _add_country_translations(ix, names)
    _add_english_variants(ix, names)
    _place_groups_in_regions(ix)
    ix.names = names.final()
    _area_names.cache_clear()
    return ix


def _place_groups_in_regions(ix: Index) -> None:
    """A group of counties lies within the region (admin1) that holds all its towns, when
    one does ("Rhône-Alpes" within "Auvergne-Rhône-Alpes", "Merseyside" within England), so
    that the group and its region relate as "contains", not as two different places."""
    regions: dict[str, set[str | None]] = defaultdict(set)
    for _, admin1, _, within in ix.contexts:
        for key in within:
            regions[key].add(admin1)
    for i, area in enumerate(ix.areas):
        held = regions.get(area.key, set())
        if area.level == "group2" and len(held) == 1 and (admin1 := next(iter(held))):
            up = ix.areas[~ix.area_ids[admin1]]
            ix.areas[i] = area._replace(admin1=admin1, within=area.within | {admin1} | up.within)


def _add_area(
    ix: Index, key: str, name: str, level: str, cc: str, a1: str | None, within: set[str]
) -> int:
    if key not in ix.area_ids:
        ix.area_ids[key] = ~len(ix.areas)
        a2 = key if level == "admin2" else None
        ix.areas.append(Area(key, name, level, cc, a1, a2, frozenset(within)))
    return ix.area_ids[key]


def _add_countries_and_groups(ix: Index, names: _Names) -> dict[tuple[str, str], set[str]]:
    """Every ISO country under its names and aliases; the groups, and for each of their members'
    names the groups it belongs to."""
    for country in pycountry.countries:
        cc = country.alpha_2
        written = {country.name, getattr(country, "common_name", ""), country.alpha_3}
        written |= {getattr(country, "official_name", "")}
        place = _add_area(ix, cc, country.name, "country", cc, None, set())
        keys = {norm(n) for n in written if n} | set(COUNTRY_ALIASES.get(cc, "").split("|"))
        for k in sorted(keys - {""}):  # sorted: a set's order changes with the string hash
            names.add(k, place)
    groups_of: dict[tuple[str, str], set[str]] = defaultdict(set)
    for (cc, level, gname), members in GROUPS.items():
        key = f"{cc}/{level}/{gname}"
        area = _add_area(ix, key, gname.title(), level, cc, None, {cc})
        for name in (gname, *GROUP_ALIASES.get((cc, gname), "").split("|")):
            if name:
                names.add(name, area)
        for member in members.split("|"):
            groups_of[(cc, member)].add(key)
    return groups_of


COUNTRY_LANGUAGES = frozenset(
    {"bg", "cs", "da", "de", "el", "es", "et", "fi", "fr", "ga", "hr", "hu", "it", "lt", "lv"}
    | {"mt", "nl", "pl", "pt", "ro", "sk", "sl", "sv"}
)
"""The languages of the boards' and EURES' countries, in which a location may name a
country: "България", "Niemcy" (Germany on a Polish board), "Allemagne"."""


def _add_country_translations(ix: Index, names: _Names) -> None:
    """Each country under its name in `COUNTRY_LANGUAGES`, from the translations of ISO
    3166-1 that pycountry ships (its `LOCALES_DIR`), where `COUNTRY_ALIASES` has only a few
    transliterations (a hand-written "balgariia" missed "България", which folds to "b
    lgariya"). Countries outside Europe too: French ads say where a company is "basé aux
    États-Unis" or "au Maroc", and a country read as the name of a site made two ads
    mentioning it two sites.

    A translated name that another place already bears is left out: Polish "Włochy" (Italy)
    is a district of Warsaw, "Węgry" (Hungary) a village, French "Grenade" (Grenada) a
    commune. So is one that is a stop word of one of those languages (`_common_words`): a
    Latvian name of Chad folds to Spanish "cada" (each)."""
    translations = [
        gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[language])
        for language in sorted(COUNTRY_LANGUAGES)
    ]
    taken = set(names) | _common_words()
    for country in pycountry.countries:
        place = ix.area_ids[country.alpha_2]
        found = {norm(t.gettext(country.name)) for t in translations}
        for name in sorted(found - taken - {""}):  # sorted: a set's order varies by run
            names.add(name, place)


def _common_words() -> set[str]:
    """The stop words of `COUNTRY_LANGUAGES` and English, folded like place names."""
    return {norm(w) for language in (*COUNTRY_LANGUAGES, "en") for w in stop_words(language)}


_COMPASS = {"north": "n", "northern": "n", "south": "s", "southern": "s", "east": "e"}
_COMPASS |= {"eastern": "e", "west": "w", "western": "w"}
_LINKS = {"upon": "on", "on": "upon"}
VARIANT_COUNTRIES = frozenset({"GB", "IE"})


def english_variants(name: str, town: bool) -> tuple[str, ...]:
    """The other ways British and Irish addresses write a place's normalised name:
    - "upon" and "on" between the words of a town on a river or the sea, either way round
      ("Burton-on-Trent" is GeoNames' "Burton upon Trent", "Stratford-on-Avon" its
      "Stratford-upon-Avon", "Walton upon Thames" its "Walton-on-Thames");
    - an area's leading compass word as its initial, two as their initials ("W Sussex", "N
      Yorkshire", "NE Lincolnshire", "N Ireland");
    - an area's "County" as "Co" ("Co. Durham", "Co Cork").
    Each of these read as another place or none: "Burton on Trent DE13" was the Burton in
    Lincolnshire, 70 km away, "Stratford-on-Avon" a commune of Seine-et-Marne named Avon."""
    words = name.split()
    found: list[str] = []
    for i, word in enumerate(words[1:-1], 1):
        if word in _LINKS:
            found.append(" ".join([*words[:i], _LINKS[word], *words[i + 1 :]]))
    if town or len(words) < 2:
        return tuple(found)
    if words[0] == "county":
        found.append(" ".join(["co", *words[1:]]))
    lead = 0
    while lead < len(words) and words[lead] in _COMPASS:
        lead += 1
    if lead in (1, 2) and lead < len(words):  # not "South East", a compass point alone
        initials = "".join(_COMPASS[w] for w in words[:lead])
        found.append(" ".join([initials, *words[lead:]]))  # "ne lincolnshire"
    return tuple(found)


def short_form(name: str) -> str:
    """The words before "upon"/"on" of a town on a river or the sea, as its own people and
    NHS addresses write it ("Southend SS2 4XH", "Newark NG24", "Bexhill TN40"), "" for other
    names. Indexed for towns of at least `BIG_TOWN` inhabitants, where no place bears it:
    "Kingston" (a parish of Jamaica) and "Burton" (towns of that name) are not added."""
    words = name.split()
    for i, word in enumerate(words[1:-1], 1):
        if word in _LINKS:
            return " ".join(words[:i])
    return ""


def _add_english_variants(ix: Index, names: _Names) -> None:
    """Each British or Irish place under its `english_variants` (and a big town under its
    `short_form`), where no place already bears the variant: a name is read as what it is
    before it is read as a variant."""
    taken = set(names)
    for name in sorted(taken):  # sorted: a set's order varies by run
        ids = names[name]
        for place in [ids] if isinstance(ids, int) else list(ids):
            if place < 0:
                area = ix.areas[~place]
                country, town = area.country, False
                if area.level == "country":
                    continue
            else:
                country, town = ix.contexts[ix.town_ctx[place]][0], True
            if country not in VARIANT_COUNTRIES:
                continue
            variants = english_variants(name, town)
            if town and ix.town_pop[place] >= BIG_TOWN:
                variants += (short_form(name),)
            for variant in variants:
                if variant and variant not in taken:
                    names.add(variant, place)


def _add_towns(
    ix: Index, names: _Names, groups_of: dict[tuple[str, str], set[str]], rows_by_country: Rows
) -> None:
    """The European GeoNames towns, their admin1/admin2 areas, and the areas' populations."""
    contexts: dict[tuple[str, str, str], int] = {}
    context_pop: list[int] = []

    def context(cc: str, state: str, county: str) -> int:
        within = {cc}
        a1 = a2 = None
        if state:
            a1 = f"{cc}/1/{norm(state)}"
            g1 = {g for n in _area_names(state) for g in groups_of.get((cc, n), ())}
            _add_area(ix, a1, state, "admin1", cc, a1, {cc} | g1)
            within |= {a1} | g1
        if county:
            a2 = f"{cc}/2/{norm(state)}/{norm(county)}"
            g2 = {g for n in _area_names(county) for g in groups_of.get((cc, n), ())}
            _add_area(ix, a2, county, "admin2", cc, a1, within | g2)
            within |= {a2} | g2
        ix.contexts.append((cc, a1, a2, frozenset(within)))
        context_pop.append(0)
        return len(ix.contexts) - 1

    for first_row, rows in rows_by_country:
        cc = rows[0]["country_code"]
        admin2_of: dict[tuple[str, str], str] = {}  # (state, a name of a county) → county
        for state, county in dict.fromkeys(
            (r.get("state") or "", r.get("county") or "") for r in rows
        ):
            for n in _area_names(county) if county else ():
                admin2_of[(state, n)] = county
        first_town = len(ix.town_name)
        ix.town_name.extend(r["city"] for r in rows)
        ix.town_row.extend(range(first_row, first_row + len(rows)))
        ix.town_lat.extend(r["latitude"] for r in rows)
        ix.town_lon.extend(r["longitude"] for r in rows)
        ix.town_pop.extend(r["population"] for r in rows)
        for town, row in enumerate(rows, first_town):
            state, pop = row.get("state") or "", row["population"]
            key_name = norm(row["city"])
            county = row.get("county") or admin2_of.get((state, key_name), "")
            if not county and _in_a_county_group(groups_of, cc, key_name):
                county = row["city"]  # a unitary authority named after its town
            ctx = contexts.get((cc, state, county))
            if ctx is None:
                ctx = contexts[(cc, state, county)] = context(cc, state, county)
            ix.town_ctx.append(ctx)
            context_pop[ctx] += pop
            names.add(key_name, town)
            # ("" too, as the name every big town is found under when a part is only a number)
            for alias in TOWN_ALIASES.get((cc, key_name), "").split("|") if pop > BIG_TOWN else ():
                names.add(alias, town)
    for (_, _, _, within), pop in zip(ix.contexts, context_pop, strict=True):
        for key in within:
            ix.area_pop[key] = ix.area_pop.get(key, 0) + pop


def _in_a_county_group(groups_of: dict[tuple[str, str], set[str]], cc: str, name: str) -> bool:
    """Whether a town's own name is a member of a group of counties (`GROUPS`): the county a
    town without one in GeoNames is, when it is a unitary authority of its name. Reading and
    Luton, the only English towns without a county there, are then inside Berkshire and
    Bedfordshire ("Berks, Reading, RG1 8NQ" read as England, the smallest area holding both)."""
    return any("/group2/" in key for key in groups_of.get((cc, name), ()))


_BRACKETS = re.compile(r"\s*\[.*\]")
_INVERTED = re.compile(r"^(.*), (City of|County of|The)$")


def _add_subdivisions(ix: Index, names: _Names, by_name: dict[tuple[str, str, str], int]) -> None:
    """ISO 3166-2 names and codes: linked to the GeoNames area of the same name, else added as
    their own area under their parent. French département numbers come from here."""
    subs = sorted(pycountry.subdivisions, key=lambda s: s.parent_code is not None)
    linked: dict[str, int] = {}
    london = ix.area_ids.get("GB/2/england/greater london")
    for sub in subs:
        cc, name = sub.country_code, _BRACKETS.sub("", sub.name)
        name = _INVERTED.sub(r"\2 \1", name)
        parent = linked.get(sub.parent_code) if sub.parent_code else None
        if sub.type in ("London borough", "City corporation") and london is not None:
            parent = london
        level = "admin1" if parent is None else "admin2"
        area_names = _area_names(name)
        found = next((by_name[(cc, lv, n)] for lv in (level, "admin2", "admin1")
                      for n in area_names if (cc, lv, n) in by_name), None)  # fmt: skip
        if found is None:
            key = f"{cc}/iso/{sub.code}"
            up = None if parent is None else ix.areas[~parent]
            within = {cc} if up is None else {up.key} | up.within
            found = _add_area(ix, key, name, level, cc, up.key if up else None, within)
        linked[sub.code] = found
        for n in area_names:
            names.add(n, found)
        number = sub.code.removeprefix("FR-").removesuffix("C")
        if cc == "FR" and re.fullmatch(r"\d\d|2[AB]|97\d", number):
            ix.departements[number] = found
