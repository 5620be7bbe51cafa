"""Training pairs of translated re-posts (classifier.translations) from a small fixture file."""

from __future__ import annotations

import csv
from datetime import date
from pathlib import Path

from classifier.corpora import GoldExclusions
from classifier.translations import TRANSLATIONS_FILE, load_translations, translation_pairs

FIELDS = [
    "job_id", "country_code", "date", "region", "title_original", "company_original",
    "description_original", "title_en_mt", "company_en_mt", "description_en_mt",
]  # fmt: skip
ROWS = [
    ["PL1", "PL", "2025-03-03", "Pomorskie", "Spawacz", "Stocznia Gdańsk",
     "Zatrudnimy spawacza w Gdańsku. Wymagamy uprawnień MIG/MAG oraz doświadczenia.",
     "Welder", "Stocznia Gdańsk",
     "We will hire a welder in Gdańsk. We require MIG/MAG qualifications and experience."],
    ["PL2", "PL", "2025-04-10", "Wielkopolskie", "Magazynier", "Stocznia Gdańsk",
     "Szukamy magazyniera do pracy zmianowej w Poznaniu, wymagane uprawnienia UDT.",
     "Warehouse worker", "Stocznia Gdańsk",
     "We are looking for a warehouse worker for shift work in Poznań, UDT licence required."],
    ["PL3", "PL", "2025-05-01", "Mazowieckie", "Kierowca", "Trans Sp. z o.o.",
     "Praca dla kierowcy kategorii C+E w transporcie międzynarodowym, wyjazdy tygodniowe.",
     "Driver", "Trans Sp. z o.o.",
     "Work for a C+E category driver in international transport, weekly trips."],
    ["PL4", "PL", "2025-05-02", "Mazowieckie", "Driver", "English Ltd",
     "We are hiring a driver for international transport with weekly trips and a bonus.",
     "Driver", "English Ltd",
     "We are hiring a driver for international transport with weekly trips and a good bonus."],
    ["LV1", "LV", "2025-06-01", "Rīga", "Pavārs", "Restorāns",
     "Pavārs", "Cook", "Restorāns", "Pavārs"],  # translation equal to the original: dropped
]  # fmt: skip


def _data_dir(tmp_path: Path) -> Path:
    path = tmp_path / TRANSLATIONS_FILE
    path.parent.mkdir(parents=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(FIELDS)
        writer.writerows(ROWS)
    return tmp_path


def _none() -> GoldExclusions:
    return GoldExclusions(frozenset(), frozenset())


def test_english_originals_and_unchanged_translations_are_left_out(tmp_path: Path) -> None:
    rows = load_translations(_data_dir(tmp_path), _none())
    assert [row["job_id"] for row in rows] == ["PL1", "PL2", "PL3"]


def test_missing_file_gives_no_rows(tmp_path: Path) -> None:
    assert load_translations(tmp_path, _none()) == []


def test_gold_ads_are_excluded(tmp_path: Path) -> None:
    gold = GoldExclusions(frozenset(), frozenset({("kierowca", "trans")}))
    rows = load_translations(_data_dir(tmp_path), gold)
    assert "PL3" not in [row["job_id"] for row in rows]


def test_families_labels_and_placement(tmp_path: Path) -> None:
    rows = load_translations(_data_dir(tmp_path), _none())
    pairs = translation_pairs(rows, seed=7)
    kinds = [(p.kind, p.label) for p in pairs]
    assert kinds.count(("xling_pos", 1)) == 3
    assert kinds.count(("xling_country", 0)) == 3
    assert kinds.count(("xling_employer", 0)) == 2  # PL1 and PL2 share an employer
    for pair in pairs:
        assert pair.a["id"].endswith("-original") and "-en_mt@" in pair.b["id"]
        assert pair.b["location"] == pair.a["location"]  # a negative sits where its query is
        days = date.fromisoformat(pair.b["posted_at"]) - date.fromisoformat(pair.a["posted_at"])
        assert 0 <= days.days <= 14
        same_ad = pair.a["id"].split("-")[1] == pair.b["id"].split("-")[1]
        assert same_ad == (pair.label == 1)
    employer = next(p for p in pairs if p.kind == "xling_employer")
    assert employer.groups[0] == employer.groups[1] == "eures:stocznia gdansk"


def test_a_side_placed_differently_gets_its_own_id(tmp_path: Path) -> None:
    rows = load_translations(_data_dir(tmp_path), _none())
    documents: dict[str, dict[str, object]] = {}
    for pair in translation_pairs(rows, seed=7):
        for side in (pair.a, pair.b):
            assert documents.setdefault(side["id"], side) == side  # same id, same document


def test_pairs_are_reproducible_and_follow_the_seed(tmp_path: Path) -> None:
    rows = load_translations(_data_dir(tmp_path), _none())
    assert translation_pairs(rows, seed=3) == translation_pairs(rows, seed=3)
    dates = {tuple(p.b["posted_at"] for p in translation_pairs(rows, seed=s)) for s in range(10)}
    assert len(dates) > 1  # the seed drives the choices (here the re-post delays)
