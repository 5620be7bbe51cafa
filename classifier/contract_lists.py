"""Contract words listed as alternatives in a text: "CDI, CDD, intérim", "full or part time",
"permanent and fixed term", "Voll- oder Teilzeit".

A run of contract words of different values on one dimension (`lexicon.CONTRACT_DIMENSIONS`),
joined by nothing or by "and" / "or" words (`lexicon.LIST_CONNECTORS`), states no value of
that dimension: it is an agency listing the contracts it places ("cabinet de recrutement
CDI CDD et intérim", "nos opportunités CDI CDD intérim") or an employer open to either
("full or part time hours considered"). Read word by word, such a run gave a CDI ad of an
agency both permanent and fixed-term, so it never conflicted with that agency's CDD ad (95
of the 3,305 French board ads read both), and "full or part time" read part time only (the
phrase is "part time"; 171 of the 14,842 NHS texts). The members of a run on its listed
dimensions are removed before the text's contract phrases are read again: the text's other
statements ("poste en CDI") then decide, and a text stating nothing else is silent there.

Only a text that reads some contract phrase is searched, by `str.find`: the phrases of the
markers it reads, and the elliptic words (`lexicon.LIST_ELLIPSES`) near them. A list
without such a phrase ("bank and agency staff") changes nothing the text reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from classifier import contacts
from classifier import lexicon as lx

MAX_CONNECTORS = 2
"""Connector words allowed between two members ("cdd et en cdi", "ou en")."""

NEAR = 40
"""Characters on each side of a phrase searched for elliptic members: two connectors and
the longest elliptic word ("cdi et en substantive") fit."""

_Span = tuple[int, int, str]  # start, end (the phrase without its spaces), marker


Phrases = Mapping[str, Sequence[tuple[tuple[str, ...], str]]]
"""The text's phrase table as `fields` builds it (`_PhraseTable.by_first`): first word →
(the phrase's other words, marker); phrases with a number are not in it."""


def drop_listed(
    padded: str, tokens: frozenset[str], found: frozenset[str], phrases: Phrases
) -> str | None:
    """`padded` (cleaned words joined by single spaces, a space at both ends; `tokens` its
    words) without the members of its contract lists on their listed dimensions, or None
    when it has none. `found` is what the text reads with `phrases` (`fields._scan`): a
    text reading no two markers of one dimension, counting the elliptic words, holds no
    list."""
    ellipses = tokens & lx.LIST_ELLIPSES.keys()
    stated = found | {lx.LIST_ELLIPSES[word] for word in ellipses}
    if not _two_values(stated):
        return None
    spans = _spans(padded, tokens, found, ellipses, phrases)
    drop: list[tuple[int, int]] = []
    run: list[_Span] = []
    for span in spans:
        if run and not _joined(padded[run[-1][1] : span[0]]):
            drop += _listed(run)
            run = []
        run.append(span)
    drop += _listed(run)
    if not drop:
        return None
    for start, end in sorted(drop, reverse=True):
        padded = f"{padded[:start]} {padded[end:]}"
    return padded


def _two_values(markers: frozenset[str] | set[str]) -> bool:
    """Whether `markers` hold two values of one dimension."""
    seen: set[str] = set()
    for marker in markers:
        for dimension in lx.CONTRACT_DIMENSIONS.get(marker, ()):
            if dimension in seen:
                return True
            seen.add(dimension)
    return False


def _spans(
    padded: str,
    tokens: frozenset[str],
    found: frozenset[str],
    ellipses: frozenset[str],
    phrases: Phrases,
) -> list[_Span]:
    """Each occurrence of a phrase of `found`, and of an elliptic word within `NEAR`
    characters of one, in text order; where two overlap (the phrase "part time" and the
    elliptic "part") the longer is kept."""
    spans = [
        (at + 1, at + 1 + len(phrase), marker)
        for first in tokens & phrases.keys()
        for rest, marker in phrases[first]
        if marker in found and marker in lx.CONTRACT_DIMENSIONS
        for phrase in (" ".join((first, *rest)),)
        for at in contacts.positions(padded, f" {phrase} ", limit=20)
    ]
    near: set[_Span] = set()
    for start, end, _ in spans:
        low = max(0, start - 1 - NEAR)
        window = padded[low : end + 1 + NEAR]
        for word in ellipses:
            for at in contacts.positions(window, f" {word} ", limit=5):
                near.add((low + at + 1, low + at + 1 + len(word), lx.LIST_ELLIPSES[word]))
    ordered = sorted({*spans, *near}, key=lambda span: (span[0], -span[1]))
    kept: list[_Span] = []
    for span in ordered:
        if not kept or span[0] > kept[-1][1]:
            kept.append(span)
    return kept


def _joined(gap: str) -> bool:
    """Whether the text between two members joins them into one list: nothing, or at most
    `MAX_CONNECTORS` connector words."""
    between = gap.split()
    return len(between) <= MAX_CONNECTORS and all(w in lx.LIST_CONNECTORS for w in between)


def _listed(run: list[_Span]) -> list[tuple[int, int]]:
    """The spans of a run to remove: its members on a dimension the run states with two
    values or more. A lone member, or a run of one value per dimension ("permanent full
    time"), removes nothing."""
    if len(run) < 2:
        return []
    values: dict[str, set[str]] = {}
    for _, _, marker in run:
        for dimension in lx.CONTRACT_DIMENSIONS[marker]:
            values.setdefault(dimension, set()).add(marker)
    listed = {dimension for dimension, markers in values.items() if len(markers) > 1}
    return [
        (start, end)
        for start, end, marker in run
        if listed.intersection(lx.CONTRACT_DIMENSIONS[marker])
    ]
