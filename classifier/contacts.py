"""Contacts, references and pay of a posting: the facts a re-post keeps even when its text
is cut, re-wrapped or padded (classifier.fields gathers them with the rest). Pay is read with
the period it is paid for, so a German monthly and an English yearly salary can be compared.

Pure. Regexes run only at positions a `str.find` already located ("@", "http", "ref",
currency words): a regex scanning a whole 3 KB ad costs a few hundred µs in Python's `re`.
`phonenumbers` (about 50 µs a call) only sees substrings a cheap regex found to look like a
phone number, and is memoised because an employer's numbers recur across its ads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from typing import Any

import phonenumbers

from classifier import lexicon as lx

_MAX_PHONE_CANDIDATES = 8
_MAX_AMOUNTS = 8
_NON_DIGIT = re.compile(r"\D")
_WHITESPACE = re.compile(r"\s")
_AMOUNT_FOLLOWS = ("eur", "gbp", "chf", "pln", "k ", "k.", "k,")
_PERIOD_REACH = 20
"""Characters after an amount within which its period is read ("£30,615 per annum", "3.500
EUR brutto pro Monat"); further away a period word belongs to something else."""
_PER_YEAR = {"year": 1.0, "month": 12.0, "week": 52.0}
_YEARLY_FROM = 10_000.0


def positions(haystack: str, needle: str, limit: int = 50) -> list[int]:
    """Start offsets of `needle` in `haystack` (at most `limit`), by `str.find`."""
    found: list[int] = []
    start = haystack.find(needle)
    while start != -1 and len(found) < limit:
        found.append(start)
        start = haystack.find(needle, start + 1)
    return found


def _email_spans(text: str) -> list[tuple[int, int]]:
    """Where the addresses around each "@" lie (located with str.find, then two anchored
    regexes)."""
    spans: list[tuple[int, int]] = []
    for at in positions(text, "@"):
        local = lx.EMAIL_LOCAL.search(text, max(0, at - 64), at)
        domain = lx.EMAIL_DOMAIN.match(text, at + 1)
        if local and domain:
            spans.append((local.start(), domain.end()))
    return spans


def emails(text: str) -> frozenset[str]:
    """Addresses around each "@", lower-cased, and obfuscated ones ("name [at] domain")."""
    found = {text[start:end].lower().strip(".") for start, end in _email_spans(text)}
    return frozenset(found | _obfuscated_emails(text))


def _obfuscated_emails(text: str) -> set[str]:
    """Addresses written "name [at] domain [dot] com" or "name(at)domain.de", normalised to
    "name@domain.com" so that they match the plain spelling in another ad. Only brackets
    (found with str.find) are tried: a regex over the whole ad would cost ten times more."""
    found: set[str] = set()
    for opening in "([{":
        for start in positions(text, opening, limit=100):
            if at := lx.OBFUSCATED_AT.match(text, start):
                end = start
                while end and text[end - 1] == " ":
                    end -= 1
                local = lx.EMAIL_LOCAL.search(text, max(0, end - 64), end)
                domain = lx.OBFUSCATED_DOMAIN.match(text, at.end())
                if not (local and domain):
                    continue
                host = lx.OBFUSCATED_DOT.sub(".", domain.group(0)).lower().strip(".")
                suffix = host.rsplit(".", 1)[-1]
                if "." in host and len(suffix) >= 2 and suffix.isalpha():
                    found.add(f"{local.group(0).lower()}@{host}")
    return found


def _url_spans(text: str) -> list[tuple[int, int]]:
    """Where the web addresses lie ("http…", "www.…", in any case; `lexicon.URL`)."""
    lowered = text.lower()
    spans: list[tuple[int, int]] = []
    for start in sorted(set(positions(lowered, "http")) | set(positions(lowered, "www."))):
        match = lx.URL.match(text, start)
        if match:
            spans.append(match.span())
    return spans


def urls(text: str) -> frozenset[str]:
    """URLs without scheme, "www." and trailing punctuation, lower-cased: boards rewrite
    "https://www.x.org/jobs/" as "x.org/jobs"."""
    found: set[str] = set()
    for start, end in _url_spans(text):
        url = text[start:end].lower().split("://", 1)[-1]
        url = url.removeprefix("www.").rstrip("/.,;:!?")
        if url:
            found.add(url)
    return frozenset(found)


def without_addresses(text: str) -> str:
    """The text with its e-mail and web addresses blanked (the spans `emails` and `urls`
    read): addresses write names in lower case by custom ("paul.selby@addenbrookes.nhs.uk"),
    so a reader of the prose's words must not see them (`stated_place.site_name`)."""
    spans = sorted(_email_spans(text) + _url_spans(text))
    if not spans:
        return text
    parts: list[str] = []
    done = 0
    for start, end in spans:
        if start >= done:
            parts.append(text[done:start])
        done = max(done, end)
    parts.append(text[done:])
    return " ".join(parts)


def phones(
    text: str,
    region: str,
    references: frozenset[str] = frozenset(),
    fallbacks: tuple[str, ...] = (),
) -> frozenset[str]:
    """E.164 numbers of the phone-like substrings of `text`: national numbers are read in
    `region` (the ad's language's, GB by default), else in the first of `fallbacks` where they
    are valid (a French-language ad from Brussels: "02 555 12 34" is Belgian), else as a
    possible number of `region`. A reference code ("Kennziffer 2024-0815") or a salary
    ("45.000 - 55.000 EUR") is not a phone number even when it has eight digits."""
    found: set[str] = set()
    first = islice(lx.PHONE_CANDIDATE.finditer(text), _MAX_PHONE_CANDIDATES)
    for match in [*first, *_slashed_phones(text)][:_MAX_PHONE_CANDIDATES]:
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
        if not plus and _looks_like_amount(candidate, text[match.end() : match.end() + 8]):
            continue
        number = _phone(plus + digits, region, fallbacks)
        if number:
            found.add(number)
    return frozenset(found)


def _slashed_phones(text: str) -> list[re.Match[str]]:
    """Numbers with a "/" after the area code, matched from the digits before each "/" (the
    main prefilter does not take "/", which would join "01482 301701 / 336638" into one)."""
    found: list[re.Match[str]] = []
    for slash in positions(text, "/", limit=50):
        if 0 < slash < len(text) - 1 and text[slash - 1].isdigit() and text[slash + 1].isdigit():
            start = slash - 1
            while start and slash - start < 6 and text[start - 1].isdigit():
                start -= 1
            if match := lx.SLASHED_PHONE.match(text, start):
                found.append(match)
    return found


def _looks_like_amount(candidate: str, after: str) -> bool:
    return bool(lx.PHONE_LIKE_AMOUNT.match(candidate)) and (
        "." in candidate or "-" in candidate or after.lstrip().lower().startswith(_AMOUNT_FOLLOWS)
    )


def _phone(digits: str, region: str, fallbacks: tuple[str, ...]) -> str | None:
    if digits.startswith(("+", "00")) or not fallbacks:
        return parse_phone(digits, region)
    for candidate_region in (region, *fallbacks):
        if number := _valid_phone(digits, candidate_region):
            return number
    return parse_phone(digits, region)


@lru_cache(maxsize=65536)
def parse_phone(candidate: str, region: str) -> str | None:
    """E.164 form of a possible phone number (national numbers read in `region`), else None."""
    return _e164(candidate, region, phonenumbers.is_possible_number)


@lru_cache(maxsize=65536)
def _valid_phone(candidate: str, region: str) -> str | None:
    """E.164 form of a number valid in `region` (checked against its numbering plan, which
    `is_possible_number`, a length test, is not), else None."""
    return _e164(candidate, region, phonenumbers.is_valid_number)


def _e164(candidate: str, region: str, accept: Callable[[Any], bool]) -> str | None:
    try:
        number = phonenumbers.parse(candidate, region)
    except phonenumbers.NumberParseException:
        return None
    if not accept(number):
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


_Amount = tuple[float, int, int]
"""(value, start, end) of an amount in lower-cased text; `end` is where its period may follow
(after the currency word or the other end of its range)."""


@dataclass(frozen=True, slots=True)
class Pay:
    """A salary as written and as a yearly range.

    `low` and `high` span every amount found, as written (what the shipped model learnt from,
    even when a field gives a yearly and an hourly figure). `period` is the first period
    written after an amount ("per annum", "brutto pro Monat", "par mois", "per uur") or
    before the first ("Jahresgehalt: 52.000 €"), "year" for unlabelled amounts of 10,000 or
    more, else None. `yearly` converts each amount by its own period (else `period`):
    monthly × 12, weekly × 52; daily and hourly amounts are left out (the days and hours
    worked vary too much to convert). A 13th month or holiday pay (NL, BE, AT, DE) adds up to
    ~17% to twelve months, so yearly amounts compare with a tolerance, not for equality.
    """

    low: float
    high: float
    period: str | None
    yearly: tuple[float, float] | None


def pay(
    salary_text: str,
    salary_tokens: frozenset[str],
    description: str,
    tokens: frozenset[str],
) -> Pay | None:
    """The salary of the salary field, else of currency amounts in the description.

    In the salary field a bare number counts when it is at least 100 (or has a "k"), so
    "Up to Band 7" gives no salary; in the description only amounts next to a currency count,
    with the other end of a range ("EUR 45.000 - 55.000", "45-55k €").
    """
    lowered = salary_text.lower()
    amounts = [a for a in _currency_amounts(lowered, salary_tokens) if _is_pay(lowered, a)]
    if not amounts:
        amounts = [a for a in _plain_amounts(lowered) if _is_pay(lowered, a)]
    if not amounts:
        lowered = description.lower()
        amounts = [a for a in _currency_amounts(lowered, tokens) if _is_pay(lowered, a)]
    amounts = sorted((a for a in amounts if a[0] > 0), key=lambda amount: amount[1])
    if not amounts:
        return None
    after = {end: _period_after(lowered, end) for end in {end for _, _, end in amounts}}
    periods = [after[end] for _, _, end in amounts]  # the ends of a range share one end
    period = next((p for p in periods if p), None) or _period_before(lowered, amounts[0][1])
    values = [value for value, _, _ in amounts]
    if period is None and min(values) >= _YEARLY_FROM:
        period = "year"
    per_year = [
        value * factor
        for value, own in zip(values, periods, strict=True)
        if (factor := _PER_YEAR.get(own or period or ""))
    ]
    yearly = (min(per_year), max(per_year)) if per_year else None
    return Pay(min(values), max(values), period, yearly)


_SENTENCE_END = re.compile(r"[.;!?]\s|\n")
"""Where the words before an amount stop being its clause's ("Salary: £30,615 per annum.
The DBS disclosure costs £29.50"); a parenthesis does not ("indemnités kilométriques
(0,55 €/km)")."""
_CLAUSE_END = re.compile(r"[.;!?]\s|[\n()]")
"""Where the words after an amount stop naming it ("£24,907 (plus HCAS)")."""
_CLAUSE_REACH = 40
"""Characters read before and after an amount for the words of its clause."""
_NAMED_END = re.compile(
    r"[+&]|(?:^|\s)[/–-]\s|\b(?:plus|and|et|und|en|y|e|i|a|un|ja|ir|és|og|och|и|και"
    r"|with|avec|mit|incl\w*|inc|exclu\w*|hors)\b"
)
_NAMED_WORDS = 3
"""What follows an amount names it only up to a conjunction, and in a few words ("£3,000
welcome bonus", "3000 EUR Willkommensbonus"); further on, "£35,000 + bonus" or "13,05 EUR/h
+ primes" name something added to the pay."""


def _is_pay(lowered: str, amount: _Amount) -> bool:
    """Whether a currency amount of a description is pay: not followed by a magnitude word
    ("£70 million"), and no word of other money (`lexicon.NOT_PAY`: a fee, a turnover, a
    bonus, a share capital) in its clause. Of the NHS ads whose salary field states their
    pay, the description's amounts had matched that field for 1,431 and not for 1,794
    (1,674 and 706 now): "the DBS disclosure which is £29.50", "saving the NHS over £70
    million", "a turnover of nearly £1 billion" were read as salaries, and a re-post that
    left the field out (as aggregators do) then read as another vacancy's pay. The salary
    field is read so too: "£34,500 plus £5,000 Welcome Bonus" is £34,500."""
    _, start, end = amount
    if lx.MONEY_MAGNITUDE.match(lowered, end):
        return False
    begin = max(0, start - _CLAUSE_REACH)
    before = lowered[begin:start]
    cut = [m.end() for m in _SENTENCE_END.finditer(before)]
    before = before[cut[-1] :] if cut else before
    if lx.NOT_PAY.search(before):
        return False
    after = lowered[end : end + _CLAUSE_REACH]
    if lx.PAY_PERIOD.match(after, len(after) - len(after.lstrip())):
        return True  # "£36,500 per annum": a period names the amount as pay
    stops = [m.start() for m in (_CLAUSE_END.search(after), _NAMED_END.search(after)) if m]
    after = " ".join(after[: min(stops, default=len(after))].split()[:_NAMED_WORDS])
    return not lx.NOT_PAY.search(after)


def _plain_amounts(lowered: str) -> list[_Amount]:
    """Numbers of a salary field without a currency: 100 or more, or with a "k"."""
    found: list[_Amount] = []
    for match in lx.PLAIN_AMOUNT.finditer(lowered):
        value = _number(match.group(1), bool(match.group(2)))
        if value is not None and (value >= 100 or match.group(2)):
            found.append((value, match.start(), match.end()))
    return found


def _currency_amounts(lowered: str, tokens: frozenset[str]) -> list[_Amount]:
    """Amounts written right after or right before a currency word or "$", with the other end
    of their range."""
    words = tokens & lx.CURRENCY_WORDS
    if not words and "$" not in lowered:
        return []
    amounts: list[_Amount] = []
    for word in [*sorted(words), "$"]:
        for start in positions(lowered, word, limit=_MAX_AMOUNTS):
            end = start + len(word)
            if word != "$" and (
                (start and lowered[start - 1].isalpha())
                or (end < len(lowered) and lowered[end].isalpha())
            ):
                continue
            if match := lx.AMOUNT_AFTER.match(lowered, end):
                other = lx.RANGE_AFTER.match(lowered, match.end())
                span = (start, other.end() if other else match.end())
            elif match := lx.AMOUNT_BEFORE.search(lowered, max(0, start - 24), start):
                other = lx.RANGE_BEFORE.search(lowered, max(0, match.start() - 24), match.start())
                span = (other.start() if other else match.start(), end)
            else:
                continue
            amounts += [(value, *span) for value in _range(match, other)]
    return amounts


def _range(match: re.Match[str], other: re.Match[str] | None) -> list[float]:
    """The amount of `match` and, when it is plausible, the other end of its range; a "k" on
    one end applies to both ("45-55k")."""
    value = _number(match.group(1), bool(match.group(2)))
    if value is None:
        return []
    if other is None or (partner := _number(other.group(1), bool(other.group(2)))) is None:
        return [value]
    if bool(match.group(2)) != bool(other.group(2)) and min(value, partner) < 1000:
        value, partner = (value * 1000, partner) if value < partner else (value, partner * 1000)
    return [value, partner] if partner > 0 and 1 / 3 <= value / partner <= 3 else [value]


def _period_after(lowered: str, end: int) -> str | None:
    """The period written within reach after an amount ending at `end`."""
    for position, name in _periods(lowered, end, end + _PERIOD_REACH + 16):
        if position - end <= _PERIOD_REACH:
            return name
    return None


def _period_before(lowered: str, start: int) -> str | None:
    """The closest period written just before the first amount ("Annual salary: £25,000")."""
    before = _periods(lowered, max(0, start - 40), start)
    return before[-1][1] if before else None


def _periods(lowered: str, pos: int, endpos: int) -> list[tuple[int, str]]:
    """(position, period) of the pay periods in lowered[pos:endpos], except those right after
    a working time ("37.5 hours per week")."""
    return [
        (match.start(), match.lastgroup or "")
        for match in lx.PAY_PERIOD.finditer(lowered, pos, endpos)
        if not lx.WORKING_TIME.search(lowered, max(0, match.start() - 8), match.start())
    ]


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
