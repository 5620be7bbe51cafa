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

from classifier.lexicon import COMPASS_POINTS, TITLE_NUMBER_AFTER, TITLE_QUANTITIES

_TOKENS = re.compile(r"\d+(?:[.,]\d+)+|[^\W_]+|[£€$%]")
_NUMBER = re.compile(r"\d{1,3}")
_MONEY = frozenset("£€$%")


def title_units(title: str, words: list[str], language: str | None) -> frozenset[str]:
    """The units `title` names: its free numbers as "#<n>" (leading zeros dropped, so
    "(07)" is "#7") and its compass points by their English name. `words` are the title's
    words as `indexer.text.clean` writes them (compass points are read there, in English
    and in `language`); numbers are read in the title as written, where a decimal point, a
    thousands separator or a currency sign still shows."""
    tokens = [t.lower() for t in _TOKENS.findall(title)]
    found: set[str] = set()
    for i, token in enumerate(tokens):
        if not _NUMBER.fullmatch(token):
            continue
        before = tokens[i - 1] if i else ""
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if before in TITLE_NUMBER_AFTER or before in _MONEY:
            continue
        if after in _MONEY or (after in TITLE_QUANTITIES and not _gender_marker(tokens, i + 1)):
            continue
        found.add("#" + (token.lstrip("0") or "0"))
    english = COMPASS_POINTS["en"]
    own = COMPASS_POINTS.get(language or "", english)
    for word in words:
        point = english.get(word) or own.get(word)
        if point is not None:
            found.add(point)
    return frozenset(found)


def _gender_marker(tokens: list[str], i: int) -> bool:
    """Whether the "h" at `i` opens a gender marker ("(07) H/F"), not hours ("35 h")."""
    return tokens[i] == "h" and i + 1 < len(tokens) and tokens[i + 1] == "f"


def unit_conflict(a: frozenset[str], b: frozenset[str]) -> float:
    """1 when both titles name a number, or both a compass point, and the two sides share
    none of that kind ("Ward 6" / "Ward 7"; "7 South" / "7 North"); 0 when they share one
    of a kind both name and no kind conflicts; NaN when no kind is named on both sides."""
    verdict = float("nan")
    for numbers in (True, False):
        x = {u for u in a if u.startswith("#") == numbers}
        y = {u for u in b if u.startswith("#") == numbers}
        if x and y:
            if x.isdisjoint(y):
                return 1.0
            verdict = 0.0
    return verdict
