"""Load everything the request path loads lazily, before the service says it is ready.

The language identifier's model, the stop-word lists, the Unicode translate tables, the
section lexicon, the field extractor's phrase tables and the gazetteer are built on first
use. Without this, `/ready` answered 200 while the first requests paid for the loading (8.9 s
on f30da65; 0.38 s for the first `/dedup` and 0.81 s for a first German/Spanish pair on
19817db), and on the search engine that first request held the writer lease meanwhile.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from time import perf_counter

from indexer.language import detect_language, stop_words
from indexer.posting import JobPosting
from service.pipeline import Deduplicator

logger = logging.getLogger(__name__)

# The languages of our corpora (NHS, the French boards, the EURES countries): their
# stop-word lists are read from stopwords-iso on first use.
LANGUAGES = (
    "en",
    "fr",
    "de",
    "es",
    "it",
    "pt",
    "nl",
    "pl",
    "cs",
    "sk",
    "sl",
    "hr",
    "hu",
    "ro",
    "bg",
    "el",
    "sv",
    "da",
    "fi",
    "et",
    "lv",
    "lt",
)

_SAMPLES = (
    (
        JobPosting(
            id="warm-up-a",
            title="Data Engineer (H/F) - CDI",
            company="Acme SAS",
            location="Lyon 3e, Rhône",
            salary="45 000 € par an",
            description=(
                "<p>Nous recherchons un ingénieur données pour notre équipe à Lyon.</p>"
                "<ul><li>Python, SQL</li></ul><p>Contact : jobs@acme.example, "
                "04 72 00 00 00. Réf. DE-2024-17</p>"
            ),
        ),
        JobPosting(
            id="warm-up-b",
            title="Staff Nurse - Band 5 - Full Time",
            company="Leeds Teaching Hospitals NHS Trust",
            location="Leeds, LS1 3EX",
            description=(
                "We are looking for a staff nurse to join the surgical ward. Permanent post, "
                "37.5 hours a week. Call 0113 000 0000 or write to jobs@nhs.example."
            ),
        ),
    ),
)


def warm_up(dedup: Deduplicator) -> float:
    """Load the lazy data, score sample pairs through the real path, and let the store load
    what searches of the current time window need (the embedded key index); nothing is
    written. Returns the seconds it took."""
    started = perf_counter()
    days = dedup.config.window_days
    dedup.store.prepare_searches(datetime.now(UTC) - timedelta(days=days) if days else None)
    detect_language("Nous recherchons un ingénieur données pour notre équipe.")
    for code in LANGUAGES:
        stop_words(code)
    for a, b in _SAMPLES:
        dedup.score_pair(a, b)
        dedup.score_pair(b, a)
    elapsed = perf_counter() - started
    logger.info("warmed up in %.2f s", elapsed)
    return elapsed
