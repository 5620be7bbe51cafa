"""A posting's reading: its language and its anchors, read once from the document.

Both the index and the classifier need them: the anchor keys (`indexer.anchor_keys`) find
translations through them, and the classifier's fields (`classifier.fields`) compare them.
They were the costliest part of either (py3langid 0.40 ms and the anchor scan 0.34 ms per
NHS ad, measured before py3langid's walk was compiled), so the preparation step reads them
once, outside the deciding thread, and the query's fields take them from the prepared
posting instead of reading them again (`classifier.fields.extract_fields(document,
reading)`). A candidate read back from the index is read here again, from the text its
fields extraction has already cleaned (`read_text`).

One function reads them for both, from the document alone, so what the index keys and what
the classifier compares cannot drift apart. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from indexer.anchor_words import anchors
from indexer.language import DETECT_PREFIX_CHARS, detect_language, stop_words
from indexer.text import plain, repair_encoding, strip_html


@dataclass(frozen=True)
class Reading:
    """What a posting's text says before any comparison."""

    language: str | None
    """The client's `language` field (first subtag, lower case), else what py3langid reads
    in the opening of the description, else None."""
    anchors: frozenset[str]
    """Anchor words of title, company and description (`indexer.anchor_words`), without the
    stop words of `language`."""
    place_anchors: frozenset[str] = frozenset()
    """Anchor words of the `location` field that `anchors` lacks: the index keys them too
    (`indexer.anchor_keys.posting_anchors`), because a translated re-post keeps its place
    field as written ("Intendente") when its text names no place, firm or figure; the
    classifier's anchor features stay on `anchors`, what its model was trained on."""


def read_document(document: Mapping[str, Any]) -> Reading:
    """The reading of a posting dict in the API schema (`title`, `company`, `description`,
    `location` and `language` are read; absent or non-string values count as empty)."""
    text = plain(strip_html(field_text(document, "description")))
    return read_text(document, text, places=True)


def read_text(
    document: Mapping[str, Any],
    text: str,
    places: bool = False,
    known_language: str | None = None,
) -> Reading:
    """`read_document`, given the document's description already HTML-stripped and
    typography-replaced (`plain`) as `text`. `places`: read `place_anchors` too (only the
    index keys them: a candidate's fields, extracted on the deciding thread, skip them).
    `known_language`: what an earlier reading of this document found ("" for none), which
    is then not identified again (`StoredPosting.language`)."""
    if known_language is not None:
        language = known_language or None
    else:
        language = given_language(document.get("language")) or _detected(
            text[: 4 * DETECT_PREFIX_CHARS]
        )
    stop = stop_words(language or "")
    joined = "\n".join((short_field(document, "title"), short_field(document, "company"), text))
    found = anchors(joined, stop)
    location = short_field(document, "location") if places else ""
    if not location:
        return Reading(language, found)
    return Reading(language, found, anchors(location, stop, names=True) - found)


def given_language(value: object) -> str | None:
    """The language a client's `language` field names: its first subtag, lower case ("fr-BE"
    and "FR_be" -> "fr"); None when absent or blank."""
    if isinstance(value, str) and value.strip():
        return value.strip().lower().replace("_", "-").split("-")[0]
    return None


@lru_cache(maxsize=4096)  # training reads each ad's variants again; bounded for a service
def _detected(opening: str) -> str | None:
    """`detect_language` of a text's opening: all of the text it reads (see there)."""
    return detect_language(opening)


def field_text(document: Mapping[str, Any], key: str) -> str:
    """A string field of a posting dict; "" when absent or not a string."""
    value = document.get(key)
    return value if isinstance(value, str) else ""


def short_field(document: Mapping[str, Any], key: str) -> str:
    """A one-line field (title, company, location, salary) as it was written: a feed that
    mis-decoded an ad's text mis-decoded these too ("PrÃ©parateur / PrÃ©paratrice",
    "sÃ©curitÃ©"), and `repair_encoding` reads them back. The description is repaired by
    `strip_html`, which every reader of it calls."""
    return repair_encoding(field_text(document, key))
