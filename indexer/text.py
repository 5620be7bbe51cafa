"""Text normalisation for job postings: HTML to comparable plain text, tokens and field keys.

Everything here is pure (no I/O) and deterministic across processes, because the output feeds
hashes and keys that are persisted: any change to what `clean`, `tokenize` or the field keys
(`normalise_title`, `normalise_company`, `block_key`) produce must bump `NORMALISER_VERSION`,
which is stored with every sketch and checked when an index is opened.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

from indexer import key_patterns as kp
from indexer.glue import unglue

NORMALISER_VERSION = 3
"""Version of the cleaning/tokenising and key rules; part of `SketchParams` and so of every
index. 2: multilingual title, company and location keys. 3: contract and schedule words of
the EURES languages, Spanish and Italian left out of title keys."""

# Every pattern below is linear on any input: a match attempt starts only at "<" and stops at
# the next "<" or ">" (or after 2,000 characters), so the attempts of a text never overlap.
# Searches that must cross "<" (a comment's or a script's end) are done by `_drop_comments`
# and `_drop_scripts` with one forward search per opening, stopping for good at the first
# opening left unclosed. The
# previous `<!--.*?-->` and `<script>.*?</script>` rescanned the rest of the text from every
# unclosed opening: 200 kB of "<!--" took 159 s (issue 13).
_TAG_BODY = r"[^<>]{0,2000}"
_BLOCK_TAG = re.compile(
    r"<\s*/?\s*(?:p|div|br|li|ul|ol|h[1-6]|tr|td|th|table|section|article|header|footer)\b"
    + _TAG_BODY
    + ">",
    re.IGNORECASE,
)
_DROP_OPEN = re.compile(r"<\s*(script|style)\b" + _TAG_BODY + ">", re.IGNORECASE)
_DROP_CLOSE = {
    name: re.compile(rf"<\s*/\s*{name}\s*>", re.IGNORECASE) for name in ("script", "style")
}
# A tag starts with a letter, "/" or "!": "Salary <30k, >5 years" is text, not a tag.
_ANY_TAG = re.compile(r"<\s*[/!]?[a-zA-Z]" + _TAG_BODY + ">")
_SPACES = re.compile(r"\s+")
_ASCII_SEPARATORS = re.compile(r"[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+")


def _drop_comments(text: str) -> str:
    """Each `<!-- … -->` replaced by a space; an unclosed `<!--` and what follows stay (no
    later comment can close either), as the former non-greedy regex left them."""
    if "<!--" not in text:
        return text
    out: list[str] = []
    pos = 0
    while (start := text.find("<!--", pos)) != -1:
        end = text.find("-->", start + 4)
        if end == -1:
            break
        out += (text[pos:start], " ")
        pos = end + 3
    out.append(text[pos:])
    return "".join(out)


def _drop_scripts(text: str) -> str:
    """Each `<script …>…</script>` and `<style …>…</style>` replaced by a space, leftmost
    first; once an element is found unclosed, later openings of that name are left alone (no
    closing tag follows them either)."""
    out: list[str] = []
    pos = search = 0
    unclosed: set[str] = set()
    while (opening := _DROP_OPEN.search(text, search)) is not None:
        name = opening.group(1).lower()
        if name in unclosed:
            search = opening.end()
            continue
        closing = _DROP_CLOSE[name].search(text, opening.end())
        if closing is None:
            unclosed.add(name)
            search = opening.start() + 1
            continue
        out += (text[pos : opening.start()], " ")
        pos = search = closing.end()
    out.append(text[pos:])
    return "".join(out)


_UNDEFINED_IN_1252 = (0x81, 0x8D, 0x8F, 0x90, 0x9D)
_CP1252_DEFINED = bytes(b for b in range(0x80, 0xA0) if b not in _UNDEFINED_IN_1252)
_CP1252_HIGH = _CP1252_DEFINED.decode("cp1252")
"""What Windows-1252 shows for the bytes 0x80-0x9F that it defines (€, ‚, ƒ, „, …, curly
quotes, dashes, ™, Œ, Š, Ž, Ÿ…); Latin-1 shows all of them as control characters."""
_CONTINUATION = "[\u0080-\u00bf" + _CP1252_HIGH + "]"
"""A UTF-8 continuation byte (0x80-0xBF) as either code page shows it."""
_LEADS = "\u00c2\u00c3\u00c4\u00c5\u00cc\u00cd\u00ce\u00cf\u00d0\u00d1\u00e2"
"""Lead bytes as shown: of an accented Latin letter (Ã, Â), of Latin Extended (Ä, Å), of a
combining accent (Ì, Í: text whose accents were decomposed), Greek (Î, Ï), Cyrillic (Ð, Ñ)
or of curly quotes, dashes and the euro sign (â)."""
_MOJIBAKE = re.compile(f"[{_LEADS}]{_CONTINUATION}")
"""Two characters that UTF-8 read as Windows-1252 or Latin-1 leaves: one of `_LEADS`, then
a continuation byte. Legitimate text rarely has these pairs ("GESTÃO", "ROMÂNIA", "ÎLE",
"ESPAÑA", "château" put a letter after them)."""
_ENCODED_CHARACTER = re.compile(
    f"[\u00c2-\u00df]{_CONTINUATION}"
    f"|[\u00e0-\u00ef]{_CONTINUATION}{{2}}"
    f"|[\u00f0-\u00f4]{_CONTINUATION}{{3}}"
)
"""One UTF-8 character as either code page shows its bytes: a lead byte of 2, 3 or 4, then
as many continuation bytes."""
_BYTE_OF = {chr(byte): byte for byte in range(0x80, 0x100)} | dict(
    zip(_CP1252_HIGH, _CP1252_DEFINED, strict=True)
)
"""The byte behind each character of `_ENCODED_CHARACTER`: Windows-1252's characters for
0x80-0x9F, Latin-1's for the rest (and for the five bytes Windows-1252 leaves undefined,
which decoders commonly pass through as Latin-1 control characters)."""


def repair_encoding(text: str) -> str:
    """`text` with UTF-8 that was read as Windows-1252 or Latin-1 decoded again ("Vous Ãªtes"
    → "Vous êtes", "dâ€™une" → "d’une", "TimiÅŸoara" → "Timişoara", "Â£25,000" → "£25,000").

    Partner feeds relay ads that way (10 of the 1,450 Pôle emploi partner ads, one each in
    the France Travail and Google for Jobs corpora): every accented word of the copy then
    differs from the board's original, and half of such copies were scored as other
    vacancies (`bench/robustness.py`, family `encoding_damage`). Text without a `_MOJIBAKE`
    pair is returned as it is: per ad (1,500 of each corpus, a timer around each call),
    45 µs of preparation and 33 µs of field extraction for French ads, whose every piece
    is looked at, 16 and 7 µs for NHS ones. Otherwise every
    `_ENCODED_CHARACTER` whose bytes are valid UTF-8 is decoded, and again until nothing
    changes (text mis-decoded twice: "ÃƒÂ©" → "Ã©" → "é"). Character by character, so the
    repair of a text holds the repair of each of its parts and repairing again changes
    nothing (`indexer.sections.split_units` tokenises an ad's pieces apart and must find
    the tokens of the whole).

    ftfy's `fix_encoding` was measured for this and not used: it weighs whole texts and left
    short uppercase fields alone ("TEHNIÄŒAR", "TimiÅŸoara": 37 of the family's 400 EURES
    pairs stayed missed for their titles and places), at ~700 µs per ad. Accents that were
    dropped ("equipe") need nothing: tokens fold accents anyway; characters a feed replaced
    by "?" ("A?uvre") are lost and stay so.

    The index's tokens change only for such text, so `NORMALISER_VERSION` stays: an index
    built before keeps the mis-decoded postings' sketches, which compare with new postings
    as they did (a posting sent again is sketched anew)."""
    if text.isascii() or not any(lead in text for lead in _LEADS):
        return text  # most texts: str.find per lead is faster than the pattern's scan
    while _MOJIBAKE.search(text) is not None:
        repaired = _ENCODED_CHARACTER.sub(_decoded, text)
        if repaired == text:
            break
        text = repaired  # shorter each round: the loop ends
    return text


def _decoded(match: re.Match[str]) -> str:
    """One `_ENCODED_CHARACTER` decoded, or as it was when its bytes are not UTF-8."""
    shown = match.group()
    try:
        return bytes(_BYTE_OF[char] for char in shown).decode("utf-8")
    except UnicodeDecodeError:
        return shown


def strip_html(raw: str) -> str:
    """Turn HTML (or plain text) into plain text with line breaks at block elements.

    Entities are unescaped twice because scraped ads are often double-escaped
    (``&amp;amp;``); plain text passes through unchanged apart from entities. Text that was
    mis-decoded on the way is decoded again last (`repair_encoding`), once entities and
    tags no longer split its characters, and then the words a feed glued together where it
    dropped line breaks are parted again (`indexer.glue.unglue`). Linear in the length of
    any input (see the patterns above), but for that repair: one pass per layer of
    mis-decoding, each layer at least halving the characters it decodes (100 kB mis-decoded
    eight times: 0.1 s).
    """
    if "<" not in raw and "&" not in raw:
        return unglue(repair_encoding(raw))
    # Unescape first: a double-escaped ad ("&lt;p&gt;") carries its tags as entities.
    text = html.unescape(html.unescape(raw))
    text = _drop_comments(text)
    if "<" in text:
        text = _drop_scripts(text)
    text = _BLOCK_TAG.sub("\n", text)
    # Inline tags (<b>, <span>) sit inside words as often as between them: drop them.
    return unglue(repair_encoding(_ANY_TAG.sub("", text)))


TYPOGRAPHY: tuple[tuple[str, str], ...] = (
    ("\u2019", "'"),
    ("\u2018", "'"),
    ("\u201c", '"'),
    ("\u201d", '"'),
    ("\u2013", "-"),
    ("\u2014", "-"),
    ("\u2022", " "),
    ("\u00b7", " "),
    ("\u25cf", " "),
    ("\u2026", "."),
    ("\u00a0", " "),
    ("\u202f", " "),
    ("\u00a3", " gbp "),
    ("\u20ac", " eur "),
)
"""Typographic characters replaced before the classifier's fields and the posting's reading
(`indexer.reading`) are extracted. Most English ads are ASCII but for a curly quote, a dash
or "£"; replacing them keeps the text ASCII, where `str.lower` and `str.translate` take fast
paths. Currency symbols become ISO-like words, which the salary patterns read like
"EUR 45.000". Not used by `clean` or `tokenize`: the index's keys do not depend on it."""


def plain(text: str) -> str:
    """`text` with its typographic characters replaced (`TYPOGRAPHY`)."""
    if text.isascii():
        return text
    for char, replacement in TYPOGRAPHY:
        text = text.replace(char, replacement)
    return text


def fold_accents(text: str) -> str:
    """Remove accents (combining marks with a non-zero combining class) after NFKD, so
    "Responsable" matches "Résponsable".

    Only accents go (é → e, й → и, ά → α); letters stay in their own script, letters without a
    decomposition (ß, ø, ł) are kept, and so are the spacing vowel signs of Thai or Devanagari
    (combining class 0), which are part of their words. Thai tone marks do have a combining
    class and are removed, like accents.
    """
    if text.isascii():
        return text
    return unicodedata.normalize("NFKD", text).translate(_tables().accents)


SCANNED_PLANES = ((0x0, 0x40000), (0xE0000, 0xF0000))
"""The code points `_Tables` reads: planes 0-3 and 14. Planes 4-13 are unassigned and 15-16
private use, so none of their code points is punctuation, a symbol, a separator, a control,
a format character or a mark (`tests/unit/test_text.py` checks it against Python's Unicode
database); scanning them made the tables cost every process 0.39 s instead of 0.12 s."""


class _Tables:
    """str.translate tables over Unicode categories, built once on first use (not at import
    time: scanning the planes that hold characters takes 0.12 s). translate runs in C; regexes
    with large character classes took 1.29 ms per NHS ad, this path 0.25 ms."""

    def __init__(self) -> None:
        self.accents: dict[int, str | None] = {}
        self.separators: dict[int, str | None] = {ord("_"): " "}
        for code in (c for start, stop in SCANNED_PLANES for c in range(start, stop)):
            char = chr(code)
            category = unicodedata.category(char)
            if category[0] in "PSZ" or category == "Cc":
                self.separators[code] = " "  # punctuation, symbols, spaces, controls
            elif category == "Cf":
                self.separators[code] = None  # soft hyphen, zero-width joiners: inside words
            elif category[0] == "M" and unicodedata.combining(char):
                self.accents[code] = None
        self.words = {**self.separators, **self.accents}


@lru_cache(maxsize=1)
def _tables() -> _Tables:
    return _Tables()


def clean(raw: str) -> str:
    """Normalise a title or description for comparison: one line of casefolded words.

    Steps: HTML to text, entity unescape, NFKC, casefold, accent folding, punctuation and
    underscores to spaces, whitespace collapsed. Digits are kept (grades, bands and reference
    numbers tell vacancies apart). Unit: a str in, a str out.
    """
    return " ".join(tokenize(raw))


def tokenize(raw: str) -> list[str]:
    """Word tokens of a raw title or description (the words of `clean(raw)`).

    A word is a run of letters, digits and the marks that belong to them; everything in the
    Unicode punctuation, symbol, separator and control categories splits words, so Cyrillic,
    Greek, Arabic or Devanagari words survive intact.
    """
    words = _tables().words
    text = unicodedata.normalize("NFKC", strip_html(raw)).casefold()
    if text.isascii():  # str.translate has a fast path for ASCII: 30x faster than below
        return text.translate(words).split()
    tokens: list[str] = []
    for part in _ASCII_SEPARATORS.split(unicodedata.normalize("NFKD", text)):
        if part.isascii():
            if part:
                tokens.append(part)
        else:  # accents deleted, non-ASCII punctuation and symbols to spaces
            tokens.extend(part.translate(words).split())
    return tokens


# --- Field keys: title, company, location --------------------------------------------------------
# The keys are persisted (block keys, company keys), so a change to what they produce bumps
# NORMALISER_VERSION like a change to `clean`. Their patterns and word lists are in
# `indexer.key_patterns`.


def fold_field(text: str) -> str:
    """Casefolded, accent-folded text with its punctuation: what punctuation patterns read.
    "&" and "<" (separators to `clean` anyway) go, so that `clean` does not unescape twice."""
    text = fold_accents(unicodedata.normalize("NFKC", strip_html(text)).casefold())
    return text.replace("&", " ").replace("<", " ")


def _strip_parenthesised(match: re.Match[str]) -> str:
    """A parenthesised gender marker ("(m/w/d)", "(all genders)") becomes a space; any other
    parenthesis stays."""
    parts = [p for p in kp.GENDER_SPLIT.split(match.group(1)) if p]
    is_gender = kp.is_gender_group(parts) or " ".join(parts) in kp.GENDER_PHRASES
    return " " if is_gender else match.group(0)


def _strip_separated(match: re.Match[str]) -> str:
    """Separated gender letters ("m/w/d", "H F") become a space; others ("H/W", "I/O") stay."""
    parts = [p for p in kp.GENDER_SPLIT.split(match.group(0)) if p]
    return " " if kp.is_gender_group(parts) else match.group(0)


def normalise_title(title: str) -> str:
    """Title key for blocking: the cleaned title without what re-posts add or drop.

    Removed: gender markers in all their forms ("(H/F)", "m/w/d", "(M/V/X)", "(gn)", "(all
    genders)", "Entwickler*in" → "entwickler", "Chargé(e)" → "charge"; the bare feminine
    "Entwicklerin" is kept), reference codes ("Réf. ABC-123", "Kennziffer 4711"), contract and
    schedule words ("CDI", "Vollzeit", "parttime", "12 month fixed term contract", "32 uur"),
    and remote markers ("(Remote)", "télétravail", "Homeoffice"). Seniority ("junior",
    "confirmé", "medior", "Head of"), grades and role words stay: they tell vacancies apart.
    """
    # Each pass runs only when a cheap test says it can match: most titles need none of them.
    text = fold_field(title)
    if "(" in text:
        text = kp.PARENTHESISED.sub(_strip_parenthesised, text)
    if "/" in text or "|" in text:
        text = kp.SLASHED.sub(_strip_separated, text)
    if not kp.SUFFIX_MARKS.isdisjoint(text) or kp.SUFFIX_HINT.search(text):
        text = kp.GENDER_SUFFIX.sub("", text)
    if any(hint in text for hint in kp.REFERENCE_HINTS):
        text = kp.TITLE_REFERENCE.sub(" ", text)
    if any(hint in text for hint in kp.DELIMITED_HINTS):
        text = kp.TITLE_DELIMITED.sub(" ", text)
    text = clean(text)
    words = text.split()
    if (
        not kp.NOISE_FIRST_WORDS.isdisjoint(words)
        or not kp.NOISE_UNIT_WORDS.isdisjoint(words)
        or any(w[0].isdigit() and not w.isdigit() for w in words)
    ):
        text = kp.TITLE_NOISE.sub(" ", text)
    if text[-2:-1] == " ":
        text = kp.TRAILING_LETTERS.sub(_strip_separated, text)
    return _SPACES.sub(" ", text).strip()


def normalise_company(company: str | None) -> str:
    """Company key for blocking: the cleaned name without its legal form, so that the same
    employer written two ways gets one key ("Acme GmbH" == "ACME", "Acme GmbH & Co. KG",
    "Nestlé S.A." == "Nestlé SA", "Marks & Spencer plc" == "Marks and Spencer").

    Country and branch words stay ("Acme Nederland B.V." → "acme nederland"): they are part
    of the registered name of a different legal entity, often a different employer.
    """
    if not company:
        return ""
    text = clean(company)
    words = text.split()
    if not kp.ANYWHERE_FIRST.isdisjoint(words):
        text = _SPACES.sub(" ", kp.COMPANY_ANYWHERE.sub(" ", text)).strip()
        words = text.split()
    if len(words) > 1 and words[-1] in kp.TRAILING_LAST:
        text = kp.COMPANY_TRAILING.sub("", text)
    if len(words) > 1 and words[0] in kp.LEADING_FIRST:
        text = kp.COMPANY_LEADING.sub("", text)
    if not kp.AND_WORDS.isdisjoint(words):
        text = _SPACES.sub(" ", kp.COMPANY_AND.sub(" ", text)).strip()
    return text


def _location_codes(match: re.Match[str]) -> str:
    return f"{match.group(1)}{match.group(2)}" if match.group(1) else " "


def normalise_location(location: str | None) -> str:
    """Location key: place words in their order, then postcodes; empty when unknown.

    "75008 Paris" == "Paris 75008"; a trailing country set apart goes ("London, UK" ==
    "London"); remote markers go ("Lyon (hybride)" == "Lyon"), and a location that is only a
    marker and a country ("Télétravail", "Homeoffice", "Remote, UK") is "remote". Names are
    not guessed: "Frankfurt am Main" and "Amsterdam-Zuidoost" keep all their words (the town
    tokens of `classifier.fields` still match them with "Frankfurt" and "Amsterdam").
    """
    if not location:
        return ""
    folded = fold_field(location)
    while (country := kp.LOCATION_COUNTRY.search(folded)) and country.start():
        folded = folded[: country.start()]
    if "-" in folded or "cedex" in folded:
        folded = kp.LOCATION_CODES.sub(_location_codes, folded)
    text = clean(folded)
    words = text.split()
    if not kp.REMOTE_FIRST.isdisjoint(words):
        cleaned = _SPACES.sub(" ", kp.LOCATION_REMOTE.sub(" ", text)).strip()
        if cleaned != text and not cleaned:
            return "remote"
        words = cleaned.split()
    places: list[str] = []
    codes: list[str] = []
    i = 0
    while i < len(words):
        word, following = words[i], words[i + 1] if i + 1 < len(words) else ""
        if word.isalpha():  # no postcode starts a run of letters only: skip the patterns
            places.append(word)
        elif len(word) == 4 and word.isdigit() and len(following) == 2 and following.isalpha():
            codes.append(word + following)  # Dutch "3511 AB"
            i += 1
        elif kp.POSTCODE.match(word):
            codes.append(word)
        elif kp.UK_OUTWARD.match(word) and kp.UK_INWARD.match(following):
            codes.append(f"{word} {following}")
            i += 1
        else:
            places.append(word)
        i += 1
    return " ".join(dict.fromkeys(places + codes))  # "London SE5 8AZ, London, SE5 8AZ"


def block_key(company: str | None, title: str) -> str:
    """The (company, title) blocking key; re-posts of one vacancy usually share it."""
    return keys_block(normalise_company(company), normalise_title(title))


def keys_block(company_key: str, title_key: str) -> str:
    """`block_key` from keys already normalised (saves normalising the title twice)."""
    return f"{company_key}|{title_key}"
