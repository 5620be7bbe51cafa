"""Contacts, references and salary of a posting: the facts a re-post keeps even when its text
is cut, re-wrapped or padded (classifier.fields gathers them with the rest).

Pure. Regexes run only at positions a `str.find` already located ("@", "http", "ref",
currency words): a regex scanning a whole 3 KB ad costs a few hundred µs in Python's `re`.
`phonenumbers` (about 50 µs a call) only sees substrings a cheap regex found to look like a
phone number, and is memoised because an employer's numbers recur across its ads.
"""

from __future__ import annotations

import re
from functools import lru_cache

import phonenumbers

from classifier import lexicon as lx

_MAX_PHONE_CANDIDATES = 8
_MAX_AMOUNTS = 8
_NON_DIGIT = re.compile(r"\D")
_WHITESPACE = re.compile(r"\s")


def positions(haystack: str, needle: str, limit: int = 50) -> list[int]:
    """Start offsets of `needle` in `haystack` (at most `limit`), by `str.find`."""
    found: list[int] = []
    start = haystack.find(needle)
    while start != -1 and len(found) < limit:
        found.append(start)
        start = haystack.find(needle, start + 1)
    return found


def emails(text: str) -> frozenset[str]:
    """Addresses around each "@" (located with str.find, then two anchored regexes)."""
    found: set[str] = set()
    for at in positions(text, "@"):
        local = lx.EMAIL_LOCAL.search(text, max(0, at - 64), at)
        domain = lx.EMAIL_DOMAIN.match(text, at + 1)
        if local and domain:
            found.add(f"{local.group(0)}@{domain.group(0)}".lower().strip("."))
    return frozenset(found)


def urls(text: str) -> frozenset[str]:
    """URLs without scheme, "www." and trailing punctuation, lower-cased: boards rewrite
    "https://www.x.org/jobs/" as "x.org/jobs"."""
    lowered = text.lower()
    found: set[str] = set()
    for start in sorted(set(positions(lowered, "http")) | set(positions(lowered, "www."))):
        match = lx.URL.match(text, start)
        if match:
            url = match.group(0).lower().split("://", 1)[-1]
            url = url.removeprefix("www.").rstrip("/.,;:!?")
            if url:
                found.add(url)
    return frozenset(found)


def phones(text: str, region: str, references: frozenset[str] = frozenset()) -> frozenset[str]:
    """E.164 numbers of the phone-like substrings of `text` (national numbers read in the
    region of the ad's language, GB by default); a reference code ("Kennziffer 2024-0815")
    is not a phone number even when it has eight digits."""
    found: set[str] = set()
    for count, match in enumerate(lx.PHONE_CANDIDATE.finditer(text)):
        if count >= _MAX_PHONE_CANDIDATES:
            break
        start = match.start()
        before = text[start - 1] if start else " "
        if before.isalnum() or before in "/,.-_":
            continue
        digits = _NON_DIGIT.sub("", match.group(0))
        candidate = match.group(0).strip()
        if (
            not 8 <= len(digits) <= 15
            or candidate.lower() in references
            or lx.NUMERIC_DATE.match(candidate)
        ):
            continue
        plus = "+" if text[max(0, start - 2) : start].strip(" (").endswith("+") else ""
        number = parse_phone(plus + digits, region)
        if number:
            found.add(number)
    return frozenset(found)


@lru_cache(maxsize=65536)
def parse_phone(candidate: str, region: str) -> str | None:
    try:
        number = phonenumbers.parse(candidate, region)
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_possible_number(number):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def references(text: str) -> frozenset[str]:
    """Job reference codes: after a reference keyword ("Ref: ABC-123", "Job ID 4711",
    "Référence : 22/118") or dashed codes mixing letters and digits ("318-SB-1234")."""
    if not text:
        return frozenset()
    found: set[str] = set()
    lowered = text.lower()
    for keyword in lx.REFERENCE_KEYWORDS:
        for start in positions(lowered, keyword, limit=20):
            if start and lowered[start - 1].isalnum():
                continue
            match = lx.REFERENCE.match(text, start)
            if match:
                code = match.group(1).lower().rstrip("./-_")
                if any(c.isdigit() for c in code):
                    found.add(code)
    for dash in positions(text, "-", limit=200):
        if not (0 < dash < len(text) - 1 and text[dash - 1].isalnum()):
            continue
        space = _WHITESPACE.search(text, max(0, dash - 12), dash)
        begin = space.end() if space else max(0, dash - 12)
        match = lx.CODE.match(text, begin)
        if match and match.end() > dash:
            code = match.group(0).lower()
            if (
                any(c.isdigit() for c in code)
                and any(c.isalpha() for c in code)
                and not lx.DATE_LIKE.match(code)
            ):
                found.add(code)
    return frozenset(found)


def salary(
    salary_text: str,
    salary_tokens: frozenset[str],
    description: str,
    tokens: frozenset[str],
) -> tuple[float, float] | None:
    """(min, max) amount of the salary field, else of currency amounts in the description.

    In the salary field a bare number counts when it is at least 100 (or has a "k"), so
    "Up to Band 7" gives no salary; in the description only amounts next to a currency count.
    """
    amounts = _currency_amounts(salary_text, salary_tokens)
    if salary_text and not amounts:
        for match in lx.PLAIN_AMOUNT.finditer(salary_text):
            value = _number(match.group(1), bool(match.group(2)))
            if value is not None and (value >= 100 or match.group(2)):
                amounts.append(value)
    if not amounts:
        amounts = _currency_amounts(description, tokens)
    amounts = [a for a in amounts if a > 0]
    return (min(amounts), max(amounts)) if amounts else None


def _currency_amounts(text: str, tokens: frozenset[str]) -> list[float]:
    """Amounts written right after or right before a currency word or "$"."""
    words = tokens & lx.CURRENCY_WORDS
    if not words and "$" not in text:
        return []
    lowered = text.lower()
    amounts: list[float] = []
    for word in [*sorted(words), "$"]:
        for start in positions(lowered, word, limit=_MAX_AMOUNTS):
            end = start + len(word)
            if word != "$" and (
                (start and lowered[start - 1].isalpha())
                or (end < len(lowered) and lowered[end].isalpha())
            ):
                continue
            after = lx.AMOUNT_AFTER.match(lowered, end)
            before = lx.AMOUNT_BEFORE.search(lowered, max(0, start - 24), start)
            for match in (after, before):
                if match:
                    value = _number(match.group(1), bool(match.group(2)))
                    if value is not None:
                        amounts.append(value)
                    break
    return amounts


def _number(text: str, kilo: bool) -> float | None:
    """Parse "24,907.00", "45.000", "45 000", "9,86" or "30" (times 1000 with "k").

    With both "," and "." the last one is the decimal mark; with one kind only, it is a
    thousands separator when every group after it has exactly three digits.
    """
    compact = text.replace(" ", "")
    if "," in compact and "." in compact:
        decimal = "," if compact.rfind(",") > compact.rfind(".") else "."
        thousands = "." if decimal == "," else ","
        compact = compact.replace(thousands, "").replace(decimal, ".")
    else:
        for sep in ",.":
            if sep in compact:
                groups = compact.split(sep)
                if all(len(g) == 3 for g in groups[1:]):
                    compact = compact.replace(sep, "")
                else:
                    compact = compact.replace(sep, ".")
    try:
        value = float(compact)
    except ValueError:
        return None
    return value * 1000 if kilo else value
