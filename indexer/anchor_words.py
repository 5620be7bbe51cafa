"""Anchors: the words of an ad that survive translation.

Used twice: the classifier compares two postings' anchors (`classifier.anchors`), and the
index keys them so that a translation becomes a candidate at all (`indexer.anchor_keys`).

A re-post translated into another language shares almost none of its original's words or
shingles, so every text feature calls it a different ad. What it keeps is its *anchors*:
names of the employer, places, products and tools ("Kaunas", "AutoCAD", "SAP"), numbers and
codes (a reference, a salary figure, a postcode). docs/crosslingual.md measured them on
EURES ads against their English machine translations: capitalised tokens alone separated an
ad's translation from other ads of its country with ROC-AUC 0.914, and combined with the
classifier's other features (cross-validated) gave recall 0.80 at 1% false positives.

Anchors are tokens of two characters or more with a digit or a capital letter, minus the
stop words of the text's language (sentence openers such as "The", "Wir", "Nous"); in a text
written in capitals that is every word, and it still meets the same word in lower case on
the other side (`classifier.anchors.shared_anchors`). Words of scripts without case never
count. Cyrillic and Greek are transliterated with `anyascii` first, so that "Пловдив" can
meet "Plovdiv" (the study: recall on BG and CY ads 0.30 -> 0.60); other scripts are left as
they are. Keys are casefolded and accent-folded like `indexer.text` tokens, so an anchor
also matches the same word written in lower case on the other side.
"""

from __future__ import annotations

import re
import unicodedata

from anyascii import anyascii

from indexer._kernels import ascii_anchor_words
from indexer.text import fold_accents

_TRANSLITERATED = re.compile(r"[\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f]")  # Greek, Cyrillic
_WORD = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")


def transliterate(text: str) -> str:
    """Cyrillic and Greek in Latin letters (anyascii); any other text unchanged."""
    return anyascii(text) if _TRANSLITERATED.search(text) else text


def anchors(
    text: str, stop_words: frozenset[str] = frozenset(), names: bool = False
) -> frozenset[str]:
    """The anchor keys of a plain text (title, company and description joined).

    `stop_words` are casefolded, accent-folded words never taken as anchors (the text's own
    language: a capitalised sentence opener is not a name). An ASCII text is read by a
    compiled pass; in Python, splitting it with `bytes.translate` and rejecting most words
    by one `islower` call took ~0.1 ms per ad (`python bench/kernels.py`: 0.094 against
    0.032 ms; 0.97 ms when every character's case was counted first and a regex split the
    words). `names`: the text is a
    field made of names (a location), so every word of two characters or more counts,
    whatever its case ("lisboa" as a board may write it)."""
    if text.isascii():  # one compiled pass (`_kernels.ascii_anchor_words`)
        keys = ascii_anchor_words(text, names)
    else:
        found: set[str] = set()
        for token in _WORD.findall(transliterate(unicodedata.normalize("NFKC", text))):
            if len(token) < 2 or (token.islower() and not names):
                continue
            if names or token != token.lower() or _DIGIT.search(token):  # a capital, or a digit
                found.add(token)
        keys = {fold_accents(token.casefold()).replace("_", "") for token in found}
    keys.discard("")
    return frozenset(keys - stop_words)
