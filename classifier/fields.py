"""Normalised fields of one posting: the facts the pair features compare.

Pure and deterministic. Extraction runs for the query and for every candidate, so it is kept
cheap: typographic characters are replaced first so that most ads become ASCII (where string
methods take fast paths), markers are found by a token scan instead of word-boundary regexes,
and contacts, references and salary (`classifier.contacts`) are read only where a `str.find`
located a hint.

Markers come from `classifier.lexicon` and are language-independent canonical names, so an
English and a German ad of the same vacancy produce comparable fields.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
import xxhash

from classifier import contacts
from classifier import lexicon as lx
from indexer.text import clean, normalise_company, normalise_title, strip_html, tokenize

_LANGUAGE_SAMPLE = 80  # tokens looked at to guess a language
_REGIONS = {
    "en": "GB",
    "fr": "FR",
    "de": "DE",
    "nl": "NL",
    "es": "ES",
    "it": "IT",
    "pt": "PT",
    "pl": "PL",
    "ro": "RO",
    "hr": "HR",
    "hu": "HU",
    "lt": "LT",
    "lv": "LV",
    "et": "EE",
    "el": "GR",
}
_CYRILLIC_LANGUAGES = frozenset({"bg", "ru", "uk", "sr", "mk", "be", "kk"})
"""Given codes of Cyrillic-script languages map to the guesser's "cyrl", so a posting with a
`language` field and one without compare equal."""
_TITLE_STOPWORDS = frozenset(
    [
        "and",
        "or",
        "of",
        "the",
        "for",
        "in",
        "at",
        "to",
        "with",
        "a",
        "an",
        "de",
        "du",
        "des",
        "la",
        "le",
        "les",
        "et",
        "en",
        "pour",
        "und",
        "der",
        "die",
        "das",
        "fur",
        "im",
        "van",
        "het",
        "voor",
    ]
)
_ASCII_WORDS = bytes(
    ord(chr(c).lower()) if c < 128 and chr(c).isalnum() else 32 for c in range(256)
)
"""bytes.translate table: ASCII letters lower-cased, digits kept, everything else a space."""

_PhraseIndex = dict[str, list[tuple[tuple[str, ...], str]]]


SHINGLE_SIZE = 3
"""Word n-gram size of the exact text features: shorter than the index's 5 so that an edit
or a typo breaks fewer shingles, which is what separates "edited re-post" from "other ad
sharing boilerplate" once the index has already said the texts overlap."""


@dataclass(frozen=True, slots=True, eq=False)
class PostingFields:
    """What the pair features compare, extracted once per posting.

    Sets are frozensets of canonical strings; "missing" is an empty set, an empty string or
    None, and the features decide what a missing value means for a pair.
    """

    title_key: str
    title_tokens: frozenset[str]
    seniority: frozenset[str]
    grades: frozenset[str]
    description_grades: frozenset[str]
    title_contract: frozenset[str]
    description_contract: frozenset[str]
    company_key: str
    company_tokens: frozenset[str]
    location_key: str
    location_tokens: frozenset[str]
    towns: frozenset[str]
    postcodes: frozenset[str]
    outward_codes: frozenset[str]
    remote: bool
    emails: frozenset[str]
    phones: frozenset[str]
    urls: frozenset[str]
    references: frozenset[str]
    salary: tuple[float, float] | None
    description_hash: int
    description_tokens: frozenset[str]
    description_numbers: frozenset[str]
    description_length: int
    shingles: npt.NDArray[np.int64]
    language: str | None


def extract_fields(document: Mapping[str, Any]) -> PostingFields:
    """Extract the comparable fields of a posting dict in the API schema.

    Only `title`, `description`, `company`, `location`, `salary` and `language` are read;
    absent or non-string values count as missing. Unit: one posting.
    """
    title = _text(document, "title")
    text = _plain(strip_html(_text(document, "description")))
    location = _text(document, "location")
    salary_text = _plain(_text(document, "salary"))

    title_words = clean(title).split()
    title_key = normalise_title(title)
    tokens = _tokens(text)
    token_set = frozenset(tokens)
    numbers = frozenset(filter(str.isdigit, token_set))
    language = _language(document.get("language"), tokens, text.isascii())
    location_clean = clean(location)
    postcodes, outward, places = _postcodes(location_clean, location)
    padded = f" {' '.join(tokens)} "
    title_padded = f" {' '.join(title_words)} "
    title_table, description_table = _tables()
    company_key = normalise_company(_text(document, "company"))
    references = contacts.references(text) | contacts.references(title)
    return PostingFields(
        title_key=title_key,
        title_tokens=frozenset(title_key.split()) - _TITLE_STOPWORDS,
        seniority=frozenset(lx.SENIORITY_WORDS[w] for w in title_words if w in lx.SENIORITY_WORDS),
        grades=_grades(title_words, joined=True) | _grades(_tokens(salary_text), joined=True),
        description_grades=_description_grades(padded, token_set),
        title_contract=_scan(title_padded, frozenset(title_words), title_table),
        description_contract=_scan(padded, token_set, description_table),
        company_key=company_key,
        company_tokens=frozenset(company_key.split()) - lx.GENERIC_COMPANY_WORDS,
        location_key=location_clean,
        location_tokens=places,
        towns=places - lx.GENERIC_PLACE_WORDS,
        postcodes=postcodes,
        outward_codes=outward,
        remote=bool(lx.REMOTE.search(title_padded) or lx.REMOTE.search(location_clean)),
        emails=contacts.emails(text),
        phones=contacts.phones(text, _REGIONS.get(language or "", "GB"), references),
        urls=contacts.urls(text),
        references=references,
        salary=contacts.salary(salary_text, frozenset(_tokens(salary_text)), text, token_set),
        description_hash=xxhash.xxh64_intdigest(padded.encode("utf-8")),
        description_tokens=token_set,
        description_numbers=numbers,
        description_length=len(tokens),
        shingles=_shingles(tokens),
        language=language,
    )


def _shingles(tokens: Sequence[str]) -> npt.NDArray[np.int64]:
    """Sorted unique hashes of the word 3-grams. Built from Python's string hash, cached on
    the token strings by the frozenset above, so this costs a few vector operations; the
    values are only compared within one process, never stored."""
    if not tokens:
        return np.empty(0, dtype=np.int64)
    hashes = np.fromiter(map(hash, tokens), dtype=np.int64, count=len(tokens))
    if len(hashes) < SHINGLE_SIZE:
        return np.unique(hashes[:1] ^ hashes[-1:])
    with np.errstate(over="ignore"):
        combined = hashes[: len(hashes) - 2] * np.int64(0x9E3779B1)
        combined ^= hashes[1 : len(hashes) - 1] * np.int64(0x85EBCA77)
        combined ^= hashes[2:] * np.int64(0xC2B2AE3D)
    return np.unique(combined)


def _text(document: Mapping[str, Any], key: str) -> str:
    value = document.get(key)
    return value if isinstance(value, str) else ""


def _plain(text: str) -> str:
    """Replace typographic characters (see `lexicon.TYPOGRAPHY`) so most ads become ASCII."""
    if text.isascii():
        return text
    for char, replacement in lx.TYPOGRAPHY:
        text = text.replace(char, replacement)
    return text


def _tokens(text: str) -> list[str]:
    """The words of `indexer.text.tokenize`, through the ASCII fast path when possible."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_WORDS).decode("ascii").split()
    return tokenize(text)


@dataclass(frozen=True)
class _PhraseTable:
    """A marker table ready for scanning: word phrases by first word, number-led phrases
    ("# months contract") as one regex."""

    by_first: _PhraseIndex
    firsts: frozenset[str]
    numbered: re.Pattern[str] | None
    numbered_words: frozenset[str]


@cache
def _tables() -> tuple[_PhraseTable, _PhraseTable]:
    """(title table, description table), built on first use (not at import time)."""
    return _table(lx.TITLE_CONTRACT), _table(lx.DESCRIPTION_CONTRACT)


def _table(table: Mapping[str, tuple[str, ...]]) -> _PhraseTable:
    by_first: _PhraseIndex = {}
    numbered: list[str] = []
    numbered_words: set[str] = set()
    for marker, phrases in table.items():
        for phrase in phrases:
            first, *rest = phrase.split()
            if first == "#":
                numbered.append(f"(?P<{marker}_{len(numbered)}>{' '.join(rest)})")
                numbered_words.add(rest[0])
            else:
                by_first.setdefault(first, []).append((tuple(rest), marker))
    pattern = re.compile(r" \d+ (?:" + "|".join(numbered) + ") ") if numbered else None
    return _PhraseTable(by_first, frozenset(by_first), pattern, frozenset(numbered_words))


def _scan(padded: str, tokens: frozenset[str], table: _PhraseTable) -> frozenset[str]:
    """Canonical markers whose phrase occurs in `padded` (cleaned words joined by single
    spaces, with a space at both ends). Only phrases whose first word is in `tokens` are
    looked for, each with one `in` test, so a 3 KB ad costs a few µs."""
    found: set[str] = set()
    for first in tokens & table.firsts:
        for rest, marker in table.by_first[first]:
            if marker not in found and (not rest or f" {first} {' '.join(rest)} " in padded):
                found.add(marker)
    if table.numbered is not None and tokens & table.numbered_words:
        for match in table.numbered.finditer(padded):
            if match.lastgroup:
                found.add(match.lastgroup.rsplit("_", 1)[0])
    return frozenset(found)


def _description_grades(padded: str, tokens: frozenset[str]) -> frozenset[str]:
    """Grades in a long text: `_grades` on the few words after each grade word, found with
    `str.find` (a token loop over a whole ad costs ten times more)."""
    found: set[str] = set()
    for word in tokens & lx.GRADE_WORDS:
        for start in contacts.positions(padded, f" {word} ", limit=20):
            window = padded[start + 1 : start + len(word) + 40].split()[:5]
            found |= _grades(window, joined=False, first_only=True)
    return frozenset(found)


def _grades(tokens: Sequence[str], joined: bool, first_only: bool = False) -> frozenset[str]:
    """Grade values ("5", "8a", "13") after a grade word; the word itself is dropped so that
    "Band 5" and "Grade 5" compare equal (boards translate the word, not the number).
    `joined` also reads one-token grades ("band5", "E13"), worth it on short titles only."""
    found: set[str] = set()
    size = len(tokens)
    for i, token in enumerate(tokens):
        if joined and (match := lx.GRADE_JOINED.match(token)):
            found.add(match.group(1))
            continue
        if token not in lx.GRADE_WORDS or i + 1 >= size:
            continue
        value = tokens[i + 1]
        if not lx.GRADE_VALUE.match(value) or (token == "e" and not value.isdigit()):
            continue
        found.add(value)
        j, connected = i + 2, False
        if j < size and tokens[j] in lx.GRADE_CONNECTORS:
            j, connected = j + 1, True
        if j < size and tokens[j] == "band":
            j += 1
        if j < size and (
            lx.SINGLE_GRADE.match(tokens[j])
            or (connected and tokens[j][0].isdigit() and lx.GRADE_VALUE.match(tokens[j]))
        ):
            found.add(tokens[j])  # "band 5 6" (from "5/6") or "band 5 or 6"
        if first_only:
            break
    return frozenset(found)


def place_keys(location: str | None) -> tuple[frozenset[str], frozenset[str]]:
    """(postcodes and UK outward codes, town tokens) of a location string: what two
    locations must share to possibly be one place of work."""
    cleaned = clean(location or "")
    full, outward, places = _postcodes(cleaned, location or "")
    return full | outward, places - lx.GENERIC_PLACE_WORDS


def _postcodes(cleaned: str, raw: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(full postcodes, UK outward codes, place-name tokens) of a location.

    A UK postcode is an outward token ("sw17") optionally followed by an inward one ("7dj");
    4-6 digit tokens and Polish "00-950" are generic postcodes. The rest, minus stopwords,
    are the place-name tokens.
    """
    words = cleaned.split()
    full: set[str] = {f"{a}{b}" for a, b in lx.DASHED_POSTCODE.findall(raw)}
    outward: set[str] = set()
    used: set[int] = set()
    for i, word in enumerate(words):
        if lx.UK_OUTWARD.match(word) and any(c.isdigit() for c in word):
            outward.add(word)
            used.add(i)
            if i + 1 < len(words) and lx.UK_INWARD.match(words[i + 1]):
                full.add(f"{word} {words[i + 1]}")
                used.add(i + 1)
        elif lx.NUMERIC_POSTCODE.match(word):
            following = words[i + 1] if i + 1 < len(words) else ""
            if len(word) == 4 and len(following) == 2 and following.isalpha():
                full.add(word + following)  # Dutch "3511 AB"
                used.add(i + 1)
            else:
                full.add(word)
            used.add(i)
    places = frozenset(
        w
        for i, w in enumerate(words)
        if i not in used and w not in lx.LOCATION_STOPWORDS and not w.isdigit()
    )
    return frozenset(full), frozenset(outward), places


@cache
def _stopword_languages() -> dict[str, tuple[str, ...]]:
    languages: dict[str, list[str]] = {}
    for language, words in lx.STOPWORDS.items():
        for word in words:
            languages.setdefault(word, []).append(language)
    return {word: tuple(langs) for word, langs in languages.items()}


def _language(given: object, tokens: Sequence[str], ascii_only: bool) -> str | None:
    """The posting's language: the given code's first subtag ("fr-BE" → "fr"), else a guess
    from stopwords and script over the first tokens ("cyrl" for Cyrillic), else None."""
    if isinstance(given, str) and given.strip():
        code = given.strip().lower().replace("_", "-").split("-")[0]
        return "cyrl" if code in _CYRILLIC_LANGUAGES else code
    sample = tokens[:_LANGUAGE_SAMPLE]
    if not sample:
        return None
    if not ascii_only:
        cyrillic = sum(1 for t in sample if "\u0400" <= t[0] <= "\u04ff")
        greek = sum(1 for t in sample if "\u0370" <= t[0] <= "\u03ff")
        if max(cyrillic, greek) * 2 > len(sample):
            return "cyrl" if cyrillic >= greek else "el"
    index = _stopword_languages()
    hits: dict[str, int] = {}
    for token in sample:
        for language in index.get(token, ()):
            hits[language] = hits.get(language, 0) + 1
    best = max(sorted(hits), key=lambda lang: hits[lang], default=None)
    return best if best is not None and hits[best] >= 3 else None
