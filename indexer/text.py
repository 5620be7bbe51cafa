"""Text normalisation for job postings: HTML to comparable plain text, tokens and field keys.

Everything here is pure (no I/O) and deterministic across processes, because the output feeds
hashes that are persisted: any change to what `clean` or `tokenize` produce must bump
`NORMALISER_VERSION`, which is stored with every sketch and checked when an index is opened.
"""

from __future__ import annotations

import html
import re
import sys
import unicodedata
from functools import lru_cache

NORMALISER_VERSION = 1
"""Version of the cleaning/tokenising rules; part of `SketchParams` and so of every index."""

_BLOCK_TAG = re.compile(
    r"<\s*/?\s*(?:p|div|br|li|ul|ol|h[1-6]|tr|td|th|table|section|article|header|footer)\b[^>]*>",
    re.IGNORECASE,
)
_DROP_BLOCK = re.compile(r"<\s*(script|style)\b[^>]*>.*?<\s*/\s*\1\s*>", re.IGNORECASE | re.DOTALL)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_ANY_TAG = re.compile(r"<[^>]{0,2000}>")
_NON_WORD = re.compile(r"[^\w]+")
_UNDERSCORE = re.compile(r"_+")
_SPACES = re.compile(r"\s+")

# Title decorations that re-posts add or drop without changing the vacancy: gender markers
# ("(H/F)", "m/w/d", "(m/f/x)") and contract words. Applied to the cleaned, casefolded title.
_TITLE_NOISE = re.compile(
    r"\b(?:h\s*f|f\s*h|m\s*w\s*d|m\s*f\s*d|m\s*f\s*x|m\s*f|w\s*m\s*d|f\s*m|x\s*f\s*m)\b"
    r"|\b(?:full\s+time|part\s+time|permanent|temporary|fixed\s+term|contract|remote"
    r"|cdi|cdd|vacature|vacancy|job|urgent|new)\b"
)
_COMPANY_LEGAL = re.compile(
    r"\b(?:gmbh|ag|kg|bv|b\s+v|nv|n\s+v|sas|sa|sarl|sàrl|ltd|limited|inc|incorporated|llc|plc"
    r"|llp|co|corp|corporation|company|srl|spa|oy|ab|as|aps|nhs\s+foundation\s+trust"
    r"|foundation\s+trust|nhs\s+trust|the)\b"
)


def strip_html(raw: str) -> str:
    """Turn HTML (or plain text) into plain text with line breaks at block elements.

    Entities are unescaped twice because scraped ads are often double-escaped
    (``&amp;amp;``); plain text passes through unchanged apart from entities.
    """
    if "<" not in raw and "&" not in raw:
        return raw
    text = _COMMENT.sub(" ", raw)
    text = _DROP_BLOCK.sub(" ", text)
    text = _BLOCK_TAG.sub("\n", text)
    text = _ANY_TAG.sub(" ", text)
    return html.unescape(html.unescape(text))


def fold_accents(text: str) -> str:
    """Remove combining marks after NFKD so "Responsable" matches "Résponsable".

    Only combining marks go (é → e, й → и, ά → α); letters stay in their own script, and
    letters without a decomposition (ß, ø, ł) are kept as they are.
    """
    if text.isascii():
        return text
    return _combining_marks().sub("", unicodedata.normalize("NFKD", text))


@lru_cache(maxsize=1)
def _combining_marks() -> re.Pattern[str]:
    """A character class of every combining mark, built once on first use (not at import)."""
    marks = [chr(c) for c in range(0x300, sys.maxunicode + 1) if unicodedata.combining(chr(c))]
    return re.compile("[" + "".join(re.escape(m) for m in marks) + "]")


def clean(raw: str) -> str:
    """Normalise a title or description for comparison: one line of casefolded words.

    Steps: HTML to text, entity unescape, NFKC, casefold, accent folding, punctuation to
    spaces, whitespace collapsed. Digits are kept (grades, bands and reference numbers tell
    vacancies apart). Unit: a str in, a str out.
    """
    text = strip_html(raw)
    text = unicodedata.normalize("NFKC", text).casefold()
    text = fold_accents(text)
    text = _NON_WORD.sub(" ", text)
    text = _UNDERSCORE.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def tokenize(raw: str) -> list[str]:
    """Word tokens of `clean(raw)`; Unicode-aware, so Cyrillic and Greek words survive."""
    cleaned = clean(raw)
    return cleaned.split(" ") if cleaned else []


def normalise_title(title: str) -> str:
    """Title key for blocking: cleaned, decorations such as "(H/F)" or "m/w/d" removed."""
    text = _TITLE_NOISE.sub(" ", clean(title))
    return _SPACES.sub(" ", text).strip()


def normalise_company(company: str | None) -> str:
    """Company key for blocking: cleaned, legal forms ("GmbH", "Ltd", "NHS Foundation Trust")
    removed so that the same employer written two ways gets one key."""
    if not company:
        return ""
    text = _COMPANY_LEGAL.sub(" ", clean(company))
    return _SPACES.sub(" ", text).strip()


def normalise_location(location: str | None) -> str:
    """Location key: cleaned text (city, postcode); empty when unknown."""
    return clean(location) if location else ""


def block_key(company: str | None, title: str) -> str:
    """The (company, title) blocking key; re-posts of one vacancy usually share it."""
    return f"{normalise_company(company)}|{normalise_title(title)}"
