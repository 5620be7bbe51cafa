"""Text-understanding checks on the shared corpora: language identification and units.

    python bench/text.py

Prints (1) how often `detect_language` agrees with the EURES ad's country (where one
country has one language) and its cost per ad, (2) how many units of 1,000 NHS ads survive
re-wrapping every line at 40, 70 and 80 columns (re-posts re-wrap), and (3) the cost of
`split_units` next to plain tokenisation. Never run as a test.
"""

from __future__ import annotations

import csv
import statistics
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.nhs import nhs_postings  # noqa: E402
from indexer.language import detect_language  # noqa: E402
from indexer.sections import split_units  # noqa: E402
from indexer.text import tokenize  # noqa: E402

EURES = ROOT.parent / "shared" / "data" / "eures-eelisa-2025" / "eures_ads_original_language.csv"
COUNTRY_LANGUAGE = {
    "PL": "pl", "LV": "lv", "HR": "hr", "EE": "et", "PT": "pt",
    "HU": "hu", "RO": "ro", "LT": "lt", "BG": "bg",
}  # fmt: skip


def median_us(function: Callable[[str], object], texts: Sequence[str]) -> float:
    """Median wall time of one call, in microseconds."""
    times = []
    for text in texts:
        started = time.perf_counter_ns()
        function(text)
        times.append(time.perf_counter_ns() - started)
    return statistics.median(times) / 1000.0


def languages() -> None:
    with EURES.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    detect_language("warm up the model")
    known = [r for r in rows if r["country_code"] in COUNTRY_LANGUAGE]
    answers = [detect_language(r["full_description"]) for r in known]
    agree = sum(
        a == COUNTRY_LANGUAGE[r["country_code"]] for r, a in zip(known, answers, strict=True)
    )
    others = Counter(
        a for r, a in zip(known, answers, strict=True) if a != COUNTRY_LANGUAGE[r["country_code"]]
    )
    print(f"EURES: language = country's for {agree}/{len(known)} ads ({agree / len(known):.1%});")
    print(f"  the others answered {dict(others.most_common())}")
    texts = [r["full_description"] for r in rows]
    print(f"  detect_language median {median_us(detect_language, texts):.0f} us per ad")


def rewrap(text: str, width: int) -> str:
    return "\n".join(
        textwrap.fill(line, width) if line.strip() else line for line in text.split("\n")
    )


def units() -> None:
    ads = [p["description"] for p in nhs_postings()[::15][:1000]]
    for width in (40, 70, 80):
        kept = total = 0
        for ad in ads:
            original = [u.tokens for u in split_units(ad)]
            wrapped = {u.tokens for u in split_units(rewrap(ad, width))}
            kept += sum(tokens in wrapped for tokens in original)
            total += len(original)
        print(f"NHS re-wrapped at {width}: {kept / total:.1%} of {total} units unchanged")
    print(
        f"split_units median {median_us(split_units, ads):.0f} us per ad, "
        f"tokenize {median_us(tokenize, ads):.0f} us"
    )


if __name__ == "__main__":
    languages()
    units()
