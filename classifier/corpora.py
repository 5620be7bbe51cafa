"""The real corpora training pairs are made from, read from the shared data folder at run time.

Never copied into the repository (their licences allow internal evaluation only). Every ad
that appears in gold-dev is excluded here, by normalised description and by (title, company),
so gold-dev stays a clean check of a model trained on these corpora.
"""

from __future__ import annotations

import csv
import gzip
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexer.text import clean, normalise_company, normalise_title

logger = logging.getLogger(__name__)

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"
"""`../shared/data` beside the repository clone, where CI and developers keep the corpora."""

NHS_FILE = Path("nhs-jobs-2020") / "nhs_jobs_2020.jsonl.gz"
NHS_GROUPS_FILE = Path("nhs-jobs-2020") / "exact_description_groups.csv"
EURES_FILE = Path("eures-eelisa-2025") / "eures_ads_original_language.csv"
GOLD_FILE = Path("gold-dev") / "pairs.jsonl"

EURES_LANGUAGES = {
    "PL": "pl",
    "LV": "lv",
    "CY": "el",
    "HR": "hr",
    "EE": "et",
    "PT": "pt",
    "HU": "hu",
    "RO": "ro",
    "LT": "lt",
    "BG": "bg",
}


@dataclass(frozen=True)
class Ad:
    """One real ad as a posting dict in the API schema, with its split group (employer key,
    so that variants of one ad, and ads of one employer, never straddle train/held-out) and
    its language."""

    document: dict[str, Any]
    group: str
    language: str


def nhs_to_posting(row: dict[str, Any]) -> dict[str, Any]:
    """One NHS Jobs record → a posting dict (employer → company, locality and postcode →
    location, date_posted → posted_at, plain-text description). The same mapping as
    `bench/nhs.py`, which is not a package dependency."""
    location = " ".join(str(x) for x in (row.get("locality"), row.get("postal_code")) if x)
    salary = row.get("salary_text")
    posting: dict[str, Any] = {
        "id": f"nhs-{row['id']}",
        "title": row.get("title") or "",
        "description": row.get("description_text") or row.get("description_html") or "",
        "company": row.get("employer"),
        "location": location or None,
        "posted_at": (row.get("date_posted") or "")[:10] or None,
        "url": row.get("url"),
        "source": "nhs-jobs",
        "salary": str(salary) if salary else None,
    }
    return {k: v for k, v in posting.items() if v not in (None, "")}


def eures_to_posting(row: dict[str, str]) -> dict[str, Any]:
    """One EURES record → a posting dict (region and country → location)."""
    location = ", ".join(x for x in (row.get("region"), row.get("country")) if x)
    posting: dict[str, Any] = {
        "id": f"eures-{row['job_id']}",
        "title": row.get("job_title") or "",
        "description": row.get("full_description") or "",
        "company": row.get("company_name") or None,
        "location": location or None,
        "posted_at": row.get("date") or None,
        "source": "eures",
    }
    return {k: v for k, v in posting.items() if v not in (None, "")}


@dataclass(frozen=True)
class GoldExclusions:
    """Keys of every gold-dev posting: normalised descriptions and (title, company) keys."""

    descriptions: frozenset[str]
    title_company: frozenset[tuple[str, str]]

    def excludes(self, document: dict[str, Any]) -> bool:
        """Whether the posting is (a copy of) a gold-dev posting."""
        key = (
            normalise_title(document.get("title", "")),
            normalise_company(document.get("company")),
        )
        return (
            clean(document.get("description", "")) in self.descriptions or key in self.title_company
        )


def load_gold_pairs(data_dir: Path = DEFAULT_DATA_DIR) -> list[dict[str, Any]]:
    """The gold-dev pairs ({"pair_id", "a", "b", "label", "type"|"reason"})."""
    with (data_dir / GOLD_FILE).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def gold_exclusions(data_dir: Path = DEFAULT_DATA_DIR) -> GoldExclusions:
    """Exclusion keys of gold-dev (empty when the file is absent, e.g. a tiny test setup)."""
    if not (data_dir / GOLD_FILE).exists():
        return GoldExclusions(frozenset(), frozenset())
    documents = [pair[side] for pair in load_gold_pairs(data_dir) for side in ("a", "b")]
    return GoldExclusions(
        descriptions=frozenset(clean(d.get("description", "")) for d in documents),
        title_company=frozenset(
            (normalise_title(d.get("title", "")), normalise_company(d.get("company")))
            for d in documents
        ),
    )


def load_nhs(data_dir: Path, exclusions: GoldExclusions) -> list[Ad]:
    """NHS Jobs 2020 ads with a title and a description, gold-dev ads left out, in id order."""
    ads: list[Ad] = []
    excluded = 0
    with gzip.open(data_dir / NHS_FILE, "rt", encoding="utf-8") as handle:
        for line in handle:
            document = nhs_to_posting(json.loads(line))
            if not document.get("title") or not document.get("description"):
                continue
            if exclusions.excludes(document):
                excluded += 1
                continue
            group = "nhs:" + normalise_company(document.get("company"))
            ads.append(Ad(document, group, "en"))
    logger.info("NHS: %d ads, %d excluded as gold-dev", len(ads), excluded)
    return sorted(ads, key=lambda ad: str(ad.document["id"]))


def load_nhs_groups(data_dir: Path) -> list[list[str]]:
    """Groups of NHS posting ids ("nhs-<id>") with identical normalised descriptions."""
    groups: dict[str, list[str]] = {}
    with (data_dir / NHS_GROUPS_FILE).open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            groups.setdefault(row["group_id"], []).append(f"nhs-{row['id']}")
    return [sorted(ids) for _, ids in sorted(groups.items(), key=lambda item: int(item[0]))]


def load_eures(data_dir: Path, exclusions: GoldExclusions) -> list[Ad]:
    """EURES ads (ten national languages), in id order."""
    ads: list[Ad] = []
    with (data_dir / EURES_FILE).open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            document = eures_to_posting(row)
            if not document.get("title") or not document.get("description"):
                continue
            if exclusions.excludes(document):
                continue
            company = normalise_company(document.get("company"))
            group = "eures:" + (company or str(document["id"]))
            ads.append(Ad(document, group, EURES_LANGUAGES.get(row.get("country_code", ""), "")))
    logger.info("EURES: %d ads", len(ads))
    return sorted(ads, key=lambda ad: str(ad.document["id"]))


FRENCH_DIRS = (
    Path("fr-francetravail-ardeche-2025"),
    Path("fr-poleemploi-partners-2020"),
    Path("fr-googlejobs-dataeng-2025"),
)
FRENCH_OFFER_KEYS = ("ft_offer_id", "pe_offer_id", "jsearch_job_id")
"""`extra` keys naming the board's own offer id: a re-scrape of one offer is kept once, so
that two scrapes of one vacancy never become a "different vacancies" training pair."""


def load_french(data_dir: Path, exclusions: GoldExclusions) -> list[Ad]:
    """The French board corpora (France Travail, Pôle emploi partners, Google for Jobs), one
    ad per board offer, in id order; absent folders are skipped. French board text and its
    habits (CDI, "(H/F)", département codes) are what the hidden test is mostly made of,
    and NHS and EURES hold none of them."""
    ads: list[Ad] = []
    seen: set[str] = set()
    for folder in FRENCH_DIRS:
        path = data_dir / folder / "ads.jsonl.gz"
        if not path.exists():
            continue
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
        for row in sorted(rows, key=lambda r: str(r["id"])):
            extra = row.get("extra") or {}
            offer = next((str(extra[k]) for k in FRENCH_OFFER_KEYS if extra.get(k)), row["id"])
            document = {
                k: row[k]
                for k in ("id", "title", "description", "company", "location", "posted_at")
                if row.get(k)
            }
            document["source"] = row.get("source") or folder.name
            if extra.get("appellation"):  # the job centre's occupation title (ROME)
                document["extra"] = {"occupation": str(extra["appellation"])}
            if offer in seen or not document.get("title") or not document.get("description"):
                continue
            if exclusions.excludes(document):
                continue
            seen.add(offer)
            company = normalise_company(document.get("company"))
            ads.append(Ad(document, "fr:" + (company or str(document["id"])), "fr"))
    logger.info("French boards: %d ads", len(ads))
    return sorted(ads, key=lambda ad: str(ad.document["id"]))


def by_id(ads: Iterable[Ad]) -> dict[str, Ad]:
    """Ads keyed by posting id."""
    return {str(ad.document["id"]): ad for ad in ads}
