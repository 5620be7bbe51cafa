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
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
import xxhash

from classifier import contacts
from classifier import lexicon as lx
from classifier.companies import company_core
from classifier.contract_lists import drop_listed
from classifier.cover_sentences import COVER, TAIL_GRAMS, CoverSentence, cover_sentences, is_cut
from classifier.gazetteer import Place
from classifier.gender_forms import doubled_words, fold_gender_forms
from classifier.places import location_parts
from classifier.places import place_keys as place_keys  # re-exported: mutations uses it
from classifier.stated_place import listing_place
from classifier.stated_title import stated_title
from classifier.title_units import title_numbers, title_points
from classifier.words import SHINGLE_SIZE, sorted_unique, trigram_hashes, words
from indexer._kernels import layout_marks
from indexer.language import stop_words
from indexer.reading import Reading, field_text, read_text, short_field
from indexer.shingles import token_hashes
from indexer.stub_keys import STUB_MAX_WORDS, stub_phrases
from indexer.text import (
    clean,
    normalise_company,
    normalise_location,
    normalise_title,
    plain,
    strip_html,
)

_REGIONS: dict[str, tuple[str, ...]] = {
    "en": ("GB",),
    "fr": ("FR", "BE", "CH", "LU"),
    "de": ("DE", "AT", "CH", "LU"),
    "nl": ("NL", "BE"),
    "es": ("ES",),
    "it": ("IT", "CH"),
    "pt": ("PT",),
    "pl": ("PL",),
    "ro": ("RO",),
    "hr": ("HR",),
    "hu": ("HU",),
    "lt": ("LT",),
    "lv": ("LV",),
    "et": ("EE",),
    "el": ("GR", "CY"),
}
"""Phone regions of a language: national numbers are read in the first, else in the first
of the others where they are valid (a Flemish ad's "0470 12 34 56" is Belgian). English has
one region: checking validity costs a numbering-plan match per number, and Irish ads are few
next to UK ones."""
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
_PhraseIndex = dict[str, list[tuple[tuple[str, ...], str]]]


@dataclass(frozen=True, slots=True, eq=False)
class PostingFields:
    """What the pair features compare, extracted once per posting.

    Sets are frozensets of canonical strings; "missing" is an empty set, an empty string or
    None, and the features decide what a missing value means for a pair. `salary` is the range
    as written (what the shipped model learnt from); `salary_yearly` the amounts per year
    (`contacts.Pay`: monthly × 12, weekly × 52, daily and hourly rates left out), which is
    what compares across boards that state monthly (DE, NL, FR) or yearly (UK) pay.
    """

    title_key: str
    title_tokens: frozenset[str]
    title_label_words: frozenset[str]
    """The title's words written in both genders in full ("Vendeur / Vendeuse" -> "vendeur",
    "Verkäufer/in"), normalised like `title_key`'s: job centres' occupation labels write
    their occupation words so, employers' titles rarely do (`classifier.gender_forms`;
    "(H/F)" and "Chargé(e)" are markers, not double words). Empty for any other title."""
    seniority: frozenset[str]
    grades: frozenset[str]
    description_grades: frozenset[str]
    title_numbers: frozenset[str]
    title_points: frozenset[str]
    """The ward's or post's number and the compass points the title names
    (`classifier.title_units`): "Staff Nurse - 7 North" -> {"7"} and {"north"}."""
    title_contract: frozenset[str]
    description_contract: frozenset[str]
    cover_sentences: tuple[CoverSentence, ...]
    """The 3-grams of each sentence stating a cover, bank or locum post, outside its phrase
    and before it (`classifier.cover_sentences`); empty for the many ads stating none."""
    index_title_key: str
    """The title as the index keys it (`normalise_title` of the title as written, both
    genders kept): what a stub's phrases are compared with (`indexer.stub_keys`)."""
    stub_phrases: tuple[str, ...]
    """The title keys of the description's phrases if it is a stub (`indexer.stub_keys`:
    "En bref : Commercial terrain, Relation client"), else ()."""
    company_key: str
    company_tokens: frozenset[str]
    company_core: str
    """`company_key` without the ad's own place closing it ("cer france ardeche" under a
    listing in Ardèche → "cer france"; `classifier.companies.company_core`): what
    `company_ratio` compares."""
    client_voice: bool
    """The text speaks for an unnamed end client ("pour le compte de notre client", "on
    behalf of our client": `lexicon.CLIENT_VOICE`): the company field names an agency, so a
    different name on the other side is no evidence of another employer."""
    location_key: str
    location_tokens: frozenset[str]
    towns: frozenset[str]
    postcodes: frozenset[str]
    outward_codes: frozenset[str]
    remote: bool
    place: Place | None
    """The location resolved in the shipped gazetteer (town, département or county, region
    or country), None when it is not found there."""
    namesakes: tuple[Place, ...]
    """The places a bare listing name may also be ("Châtillon": Hauts-de-Seine, Savoie or
    Rhône) when the ad states its place near none of them; the pair's other copy then
    decides (`features._pair_places`). Empty for nearly every listing."""
    stated_place: Place | None
    """The place of work the text states, or else the town its title names, when it is near
    `place` (`classifier.stated_place`)."""
    place_named: bool
    """Whether the text names a place of work at all (resolved, near `place` or not)."""
    place_titled: bool
    """Whether `stated_place` is the town the title names (the text states none)."""
    stated_title: str
    """The title key of the employer's title the text's opening lines state ("POSTE :
    Business Developer H/F"; `classifier.stated_title`), else empty."""
    stated_site: str
    """The site the text states when the gazetteer resolves no place there ("sophia
    antipolis", "queen alexandra hospital"; `stated_place.site_name`), else empty."""
    emails: frozenset[str]
    phones: frozenset[str]
    urls: frozenset[str]
    references: frozenset[str]
    salary: tuple[float, float] | None
    salary_period: str | None
    salary_yearly: tuple[float, float] | None
    description_hash: int
    description_tokens: frozenset[str]
    description_numbers: frozenset[str]
    content_tokens: frozenset[str]
    """Description words without numbers and without the stop words of its language."""
    description_length: int
    shingles: npt.NDArray[np.int64]
    tail_grams: npt.NDArray[np.int64]
    """The description's last `cover_sentences.TAIL_GRAMS` word 3-grams, sorted and unique,
    if it ends mid-sentence (`cover_sentences.is_cut`), else empty: where a copy cut by its
    length ends (`cover_sentences.kept_share`)."""
    job_shingles: npt.NDArray[np.int64]
    """3-word shingles of the middle of the description (see `MIN_JOB_TOKENS`), empty if
    the ad is shorter."""
    language: str | None
    anchors: frozenset[str]
    """Names, places, tools, numbers and codes of title, company and description: what a
    translation keeps (`classifier.anchors`)."""
    layout: str
    """The description's punctuation, numbers and line breaks in order (`layout`): what a
    translation keeps of the text's shape when it shares no word with the original."""


def extract_fields(
    document: Mapping[str, Any],
    reading: Reading | None = None,
    known_language: str | None = None,
    index_title_key: str | None = None,
) -> PostingFields:
    """Extract the comparable fields of a posting dict in the API schema.

    Only `title`, `description`, `company`, `location`, `salary` and `language` are read;
    absent or non-string values count as missing. Unit: one posting. `reading` is the
    document's `indexer.reading.read_document`, when the caller has it already (a prepared
    posting carries it): language and anchors are then not read again. Else `known_language`,
    what an earlier reading found ("" for none; a stored posting keeps it), spares the
    language identifier. `index_title_key`, the title as the index keys it when the caller has it
    (a prepared posting's `title_key`, a stored one's block key), spares normalising the
    title once more (25 µs) on the /dedup path; it is the same string unless a feed
    mis-decoded the title, which the index keys as written and `short_field` repairs, so
    then the repaired title is normalised as in training.
    """
    written_title = short_field(document, "title")
    title = fold_gender_forms(written_title)
    stripped = strip_html(field_text(document, "description"))
    text = plain(stripped)  # "…" becomes ".": whether the text is cut is read before
    if reading is None:
        reading = read_text(document, text, known_language=known_language)
    location = short_field(document, "location")
    salary_text = plain(short_field(document, "salary"))

    title_words = clean(title).split()
    title_key = normalise_title(title)
    tokens = words(text)
    # interned: a scorer keeps thousands of these sets, and most words recur across ads
    # (48.0 -> 36.9 KB per extracted posting, 2,000 NHS ads, tracemalloc)
    token_set = frozenset(map(sys.intern, tokens))
    numbers = frozenset(filter(str.isdigit, token_set))
    language = reading.language
    location_clean = clean(location)
    postcodes, outward, places = location_parts(location_clean, location)
    stop = stop_words(language or "")
    padded = f" {' '.join(tokens)} "
    title_padded = f" {' '.join(title_words)} "
    title_table, description_table = _tables()
    company_key = normalise_company(short_field(document, "company"))
    references = contacts.references(text) | contacts.references(title)
    region, *fallbacks = _REGIONS.get(language or "", ("GB",))
    pay = contacts.pay(salary_text, frozenset(words(salary_text)), text, token_set)
    shingles, middle, tail = _shingles(tokens, is_cut(stripped))
    description_contract = _description_contract(padded, token_set, description_table)
    place, statement, namesakes = listing_place(location, text, token_set, written_title)
    return PostingFields(
        title_key=title_key,
        title_tokens=frozenset(title_key.split()) - _TITLE_STOPWORDS,
        title_label_words=frozenset(
            filter(None, map(normalise_title, doubled_words(written_title, title)))
        ),
        seniority=frozenset(lx.SENIORITY_WORDS[w] for w in title_words if w in lx.SENIORITY_WORDS),
        grades=_grades(title_words, joined=True) | _grades(words(salary_text), joined=True),
        description_grades=_description_grades(padded, token_set),
        title_numbers=title_numbers(written_title),
        title_points=title_points(title_words, language),
        title_contract=_scan(title_padded, frozenset(title_words), title_table),
        description_contract=description_contract,
        cover_sentences=cover_sentences(text) if description_contract & COVER else (),
        index_title_key=(
            index_title_key
            if index_title_key is not None and written_title == field_text(document, "title")
            else normalise_title(written_title)
        ),
        stub_phrases=(
            stub_phrases(field_text(document, "description"))
            if len(tokens) <= STUB_MAX_WORDS
            else ()
        ),
        company_key=company_key,
        company_tokens=frozenset(company_key.split()) - lx.GENERIC_COMPANY_WORDS,
        company_core=company_core(company_key, place, places, stop, location_clean),
        client_voice=lx.client_voice(padded, token_set),
        location_key=normalise_location(location),
        location_tokens=places,
        towns=_towns(places, stop),
        postcodes=postcodes,
        outward_codes=outward,
        remote=bool(lx.REMOTE.search(title_padded) or lx.REMOTE.search(location_clean)),
        place=place,
        namesakes=namesakes,
        stated_place=statement.place,
        place_named=statement.named,
        place_titled=statement.titled,
        stated_title=stated_title(text),
        stated_site=statement.site,
        emails=contacts.emails(text),
        phones=contacts.phones(text, region, references, tuple(fallbacks)),
        urls=contacts.urls(text),
        references=references,
        salary=(pay.low, pay.high) if pay else None,
        salary_period=pay.period if pay else None,
        salary_yearly=pay.yearly if pay else None,
        description_hash=xxhash.xxh64_intdigest(padded.encode("utf-8")),
        description_tokens=token_set,
        description_numbers=numbers,
        content_tokens=token_set - numbers - stop,
        description_length=len(tokens),
        shingles=shingles,
        tail_grams=tail,
        job_shingles=middle,
        language=language,
        anchors=reading.anchors,
        layout=layout(text),
    )


LAYOUT_CHARS = 2000
"""Layout characters kept, a bound on the comparison's cost (the NHS ads: median 57, at most
328)."""


def layout(text: str) -> str:
    """The text's shape in one character per mark: its punctuation (". , ; : ! ? ( )"),
    "0" per number, "|" per run of line breaks and "-" per free-standing dash (a list item or
    a clause break, not a hyphen inside a word, which languages place differently), read by
    a compiled pass (`indexer._kernels.layout_marks`). A machine
    or human translation keeps it almost intact (1,105 EURES originals against their English
    translations: median similarity 0.93, 88% at 0.8 or more) while another ad of the same
    employer, translated too, does not (median 0.62, 20% at 0.8 or more; another ad of the
    same country 0.44, 3%): the evidence a pair in two languages has when no word is
    shared."""
    return layout_marks(text, LAYOUT_CHARS)


def _towns(places: frozenset[str], stop: frozenset[str]) -> frozenset[str]:
    """The words of a location that name its town: not generic place words ("centre"), nor
    the short function words of multi-word names ("Saint-Marcel-sur-Lignon": "sur"), which
    every text of the language holds, so a town "named in the other ad" matched any French ad.
    Short (4 letters or fewer) and a stop word of the ad's language: "Ely" and "Wells" stay.
    A name made only of such words keeps them."""
    named = places - lx.GENERIC_PLACE_WORDS
    particles = {w for w in named if len(w) <= 4 and w in stop}
    return named - particles if named - particles else named


def description_markers(text: str) -> frozenset[str]:
    """The contract markers a description states (what `PostingFields.description_contract`
    holds), without extracting the other fields: for training transformations that must not
    contradict the text."""
    tokens = words(plain(strip_html(text)))
    return _description_contract(f" {' '.join(tokens)} ", frozenset(tokens), _tables()[1])


def _description_contract(
    padded: str, tokens: frozenset[str], table: _PhraseTable
) -> frozenset[str]:
    """`_scan` of a text without its asides (`lexicon.DESCRIPTION_ASIDES`,
    `lexicon.COLLEAGUE_COUNT`) and its lists of contracts (`contract_lists.drop_listed`):
    contract phrases that speak of other staff, of a perk or of every contract an agency
    places, not of the post."""
    removed = False
    if "locum" in tokens:
        padded, counted = lx.COLLEAGUE_COUNT.subn(r" \1 ", padded)
        removed = counted > 0
    for aside, aside_words in _ASIDES:
        if aside_words <= tokens and aside in padded:
            padded, removed = padded.replace(aside, " "), True
    if removed:  # `_scan` finds a one-word phrase ("locum") in the tokens: they lose it too
        tokens = frozenset(padded.split())
    found = _scan(padded, tokens, table)
    if (unlisted := drop_listed(padded, tokens, found, table.by_first)) is None:
        return found
    return _scan(unlisted, frozenset(unlisted.split()), table)


_ASIDES = tuple((f" {aside} ", frozenset(aside.split())) for aside in lx.DESCRIPTION_ASIDES)
"""Each aside as `padded` holds it, with its words: a set test first, as most texts hold
none."""


def _shingles(
    tokens: Sequence[str], cut: bool
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Sorted unique hashes of the word 3-grams (`words.trigram_hashes`) of the whole text, of
    its middle (see `MIN_JOB_TOKENS`) and, if the text is `cut`, of its last `TAIL_GRAMS`,
    from one pass: the middle's and the tail's 3-grams are slices of the whole's before
    sorting."""
    empty = np.empty(0, dtype=np.int64)
    if not tokens:
        return empty, empty, empty
    if len(tokens) < SHINGLE_SIZE:
        hashes = token_hashes(tokens).view(np.int64)
        return hashes[:1] ^ hashes[-1:], empty, empty
    combined = trigram_hashes(tokens)
    tail = sorted_unique(combined[-TAIL_GRAMS:].copy()) if cut else empty
    size = len(tokens)
    middle = (
        sorted_unique(combined[size // 4 : size - size // 8 - 2].copy())
        if size >= MIN_JOB_TOKENS
        else empty
    )
    return sorted_unique(combined), middle, tail


MIN_JOB_TOKENS = 60
"""Ads shorter than this (tokens) get no middle: a snippet's middle is not where an employer
puts its intro or outro. The middle runs from a quarter of the tokens to an eighth before the
end: where the job is described, away from the opening and closing parts that employers and
boards rewrite between scrapes (intro, "about us", how to apply). By position, not by
`indexer.sections.split_units`, which would cost 0.73 ms per ad on NHS ads (1,000 ads
measured) against about nothing here; the index sketch already compares the units the
section rules call job-specific."""


@dataclass(frozen=True)
class _PhraseTable:
    """A marker table ready for scanning: word phrases by first word, phrases with a number
    ("# months contract", "contrat de # mois") as one regex."""

    by_first: _PhraseIndex
    firsts: frozenset[str]
    numbered: re.Pattern[str] | None
    numbered_words: frozenset[str]
    numbered_parts: tuple[tuple[str, ...], ...]
    """The words around the number of each numbered phrase ("# months contract": " months
    contract"): the pattern runs only on a text holding all of one phrase's (a third of
    the NHS texts hold "months", few of them one of these phrases)."""
    needles: dict[str, tuple[tuple[str, str], ...]]
    """`by_first` as `_scan` searches it: each phrase space-padded ("" for a one-word
    phrase, which the token set has already matched), built once, not at every scan."""


@cache
def _tables() -> tuple[_PhraseTable, _PhraseTable]:
    """(title table, description table), built on first use (not at import time)."""
    return (
        _table(lx.with_eures_terms(lx.TITLE_CONTRACT)),
        _table(lx.with_eures_terms(lx.DESCRIPTION_CONTRACT)),
    )


def _table(table: Mapping[str, tuple[str, ...]]) -> _PhraseTable:
    by_first: _PhraseIndex = {}
    numbered: list[str] = []
    numbered_words: set[str] = set()
    numbered_parts: list[tuple[str, ...]] = []
    for marker, phrases in table.items():
        for phrase in phrases:
            first, *rest = phrase.split()
            if "#" in phrase.split():
                body = r"\d+".join(re.escape(part) for part in phrase.split("#"))
                numbered.append(f"(?P<{marker}_{len(numbered)}>{body})")
                numbered_words.add(next(w for w in phrase.split() if w != "#"))
                numbered_parts.append(tuple(part for part in phrase.split("#") if part))
            else:
                by_first.setdefault(first, []).append((tuple(rest), marker))
    pattern = re.compile(" (?:" + "|".join(numbered) + ") ") if numbered else None
    needles = {
        first: tuple((f" {first} {' '.join(rest)} " if rest else "", m) for rest, m in entries)
        for first, entries in by_first.items()
    }
    return _PhraseTable(
        by_first,
        frozenset(by_first),
        pattern,
        frozenset(numbered_words),
        tuple(numbered_parts),
        needles,
    )


def _scan(padded: str, tokens: frozenset[str], table: _PhraseTable) -> frozenset[str]:
    """Canonical markers whose phrase occurs in `padded` (cleaned words joined by single
    spaces, with a space at both ends). Only phrases whose first word is in `tokens` are
    looked for, each with one `in` test, so a 3 KB ad costs a few µs."""
    found: set[str] = set()
    for first in tokens & table.firsts:
        for needle, marker in table.needles[first]:
            if marker not in found and (not needle or needle in padded):
                found.add(marker)
    if (
        table.numbered is not None
        and tokens & table.numbered_words
        and any(all(part in padded for part in parts) for parts in table.numbered_parts)
    ):
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
