"""Training pairs of translated re-posts, from EURES ads and their English machine translations.

`../shared/data/eures-eelisa-2025/eures_crosslingual_mt_pairs.csv` holds 1,110 EURES ads in
their own language (PL, LV, HR, PT, CY, LT, RO, EE, BG, HU) beside an English machine
translation of each. Without such pairs the classifier had never seen a duplicate that
shares no words, and scored every translation as another vacancy (docs/crosslingual.md).

Families, one seeded `random.Random` for every choice:
- `xling_pos`: an ad against its own translation, posted 0-14 days later (same place);
- `xling_country`: an ad against the translation of another ad of its country;
- `xling_employer`: an ad against the translation of another ad of its employer (the
  hardest: the employer's name, address and contacts are shared).
A negative's translated side takes its query's place and a date near it: the file stores one
region and date per row, so a positive always agrees on both, and a model allowed to see
the negatives' own would learn that artefact instead of the anchors. Originals already in
English, rows whose translation equals the original and near-copies (word Jaccard >= 0.5,
two ads of one template) are left out. Ads of gold-dev are excluded like in `corpora`.
"""

from __future__ import annotations

import csv
import random
from collections import defaultdict
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from classifier.corpora import GoldExclusions
from classifier.pairs import PairExample
from indexer.language import detect_language
from indexer.text import normalise_company, tokenize

TRANSLATIONS_FILE = Path("eures-eelisa-2025") / "eures_crosslingual_mt_pairs.csv"
MAX_DAYS_LATER = 14
NEAR_COPY = 0.5
Row = dict[str, str]


def load_translations(data_dir: Path, exclusions: GoldExclusions) -> list[Row]:
    """Usable rows (see the module docstring), in job-id order; none if the file is absent."""
    path = data_dir / TRANSLATIONS_FILE
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    usable = [
        row
        for row in rows
        if all(
            row[f"{field}_{side}"].strip()
            for field in ("title", "description")
            for side in ("original", "en_mt")
        )
        and row["description_original"].strip() != row["description_en_mt"].strip()
        and detect_language(row["description_original"]) != "en"
        and not exclusions.excludes(posting(row, "original", row, 0))
    ]
    return sorted(usable, key=lambda row: row["job_id"])


def translation_pairs(rows: Sequence[Row], seed: int) -> list[PairExample]:
    """Positives and the two negative families (module docstring), reproducibly."""
    rng = random.Random(seed)
    words = {row["job_id"]: frozenset(tokenize(row["description_original"])) for row in rows}
    by_country: dict[str, list[Row]] = defaultdict(list)
    by_employer: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_country[row["country_code"]].append(row)
        if _employer(row):
            by_employer[_employer(row)].append(row)

    def others(row: Row, pool: Sequence[Row]) -> list[Row]:
        mine = words[row["job_id"]]
        return [
            other
            for other in pool
            if other["job_id"] != row["job_id"]
            and len(mine & words[other["job_id"]]) < NEAR_COPY * len(mine | words[other["job_id"]])
        ]

    examples: list[PairExample] = []
    for row in rows:
        later = rng.randint(0, MAX_DAYS_LATER)
        examples.append(_pair(row, row, later, 1, "xling_pos"))
        country = others(row, by_country[row["country_code"]])
        if country:
            examples.append(_pair(row, rng.choice(country), later, 0, "xling_country"))
        employer = others(row, by_employer.get(_employer(row), []))
        if employer:
            examples.append(_pair(row, rng.choice(employer), later, 0, "xling_employer"))
    return examples


def _pair(query: Row, other: Row, days_later: int, label: int, kind: str) -> PairExample:
    """The query's original against `other`'s translation, placed where the query is."""
    return PairExample(
        a=posting(query, "original", query, 0),
        b=posting(other, "en_mt", query, days_later),
        label=label,
        kind=kind,
        groups=(_group(query), _group(other)),
    )


def posting(row: Row, side: str, place: Row, days_later: int = 0) -> dict[str, Any]:
    """One side of a row in the posting schema, at `place`'s region and date (+ days); the id
    names the placement unless it is the row's own, unmoved."""
    posted = date.fromisoformat(place["date"]) + timedelta(days=days_later)
    placed = "" if place is row and not days_later else f"@{place['job_id']}+{days_later}"
    document = {
        # one id per distinct document: feature matrices memoise prepared postings by id
        "id": f"xl-{row['job_id']}-{side}{placed}",
        "title": row[f"title_{side}"],
        "description": row[f"description_{side}"],
        "company": row[f"company_{side}"].strip() or None,
        "location": place["region"] or None,
        "posted_at": posted.isoformat(),
        "source": "eures",
    }
    return {key: value for key, value in document.items() if value not in (None, "")}


def _employer(row: Row) -> str:
    return normalise_company(row["company_original"])


def _group(row: Row) -> str:
    """The split group: the employer, named as `corpora.load_eures` names EURES groups, so an
    employer's ads fall on one side of the split in both files."""
    return "eures:" + (_employer(row) or f"xl-{row['job_id']}")
