"""The unit a title names: a ward's or a post's number, a compass point.

NHS employers advertise one role for several wards, teams or areas with one text, the unit
in the title only: "Staff Nurse (Ward 2)" / "(Ward 6)" / "(Ward 25)" at South Tees, "Staff
Nurse - 7 South" / "- 7 North" at Ealing Hospital, "Bank Nurse - West Essex" / "- South
Essex", "CONSULTANT IN EMERGENCY MEDICINE (POST 1)" / "(POST 2)". The title features read
such a pair as one title with one word changed, and the text as a re-post: the NHS export
joined the Goole wards 6 and 7 and the Ealing wards. Two titles that both name a unit and
name different ones are two vacancies; a unit on one side only says nothing (a board may
drop it, an aggregator add the area).

Numbers that are quantities ("16 hours", "6 mois", "(2 POSTS)", "11 PA"), grades ("Band
5": `grade_conflict`), money and decimals ("£5,000", "37.5") are no unit; nor are numbers
of more than three digits (references, years) or written into a word ("CT1", "35h",
"2x8")."""

from __future__ import annotations

import re

from classifier.lexicon import (
    COMPASS_POINTS,
    GENDER_MARKER,
    TITLE_NUMBER_AFTER,
    TITLE_QUANTITIES,
)

_TOKENS = re.compile(r"\d+(?:[.,]\d+)+|[^\W_]+|[£€$%]")
_NUMBER = re.compile(r"\d{1,3}")
_MONEY = frozenset("£€$%")


def title_numbers(title: str) -> frozenset[str]:
    """The free numbers of `title` as written, leading zeros dropped ("(07)" is "7"): read
    where a decimal point, a thousands separator or a currency sign still shows, and
    without the gender marker, whose "H" of "H/F" is no "h" of hours."""
    tokens = [t.lower() for t in _TOKENS.findall(GENDER_MARKER.sub(" ", title))]
    found: set[str] = set()
    for i, token in enumerate(tokens):
        if not _NUMBER.fullmatch(token):
            continue
        before = tokens[i - 1] if i else ""
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if before in TITLE_NUMBER_AFTER or before in _MONEY:
            continue
        if after in TITLE_QUANTITIES or after in _MONEY:
            continue
        found.add(token.lstrip("0") or "0")
    return frozenset(found)


def title_points(words: list[str], language: str | None) -> frozenset[str]:
    """The compass points a title names, by their English name, read in English and in
    `language` among its `words` as `indexer.text.clean` writes them."""
    english = COMPASS_POINTS["en"]
    own = COMPASS_POINTS.get(language or "", english)
    return frozenset(p for w in words if (p := english.get(w) or own.get(w)) is not None)
