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
dimensions are removed before the text's contract phrases are read: the text's other
statements ("poste en CDI") then decide, and a text stating nothing else is silent there.

Found by `str.find` on the phrases whose first word the text holds, as `fields._scan` does:
no regex over the whole text.
"""

from __future__ import annotations

from functools import cache

from classifier import contacts
from classifier import lexicon as lx

MAX_CONNECTORS = 2
"""Connector words allowed between two members ("cdd et en cdi", "ou en")."""


@cache
def _members() -> dict[str, tuple[tuple[str, str], ...]]:
    """First word → (phrase, marker) of every list member, longest phrase first: the
    description phrases of the markers with a dimension, and the elliptic words
    (`lexicon.LIST_ELLIPSES`) that only count inside a run."""
    table = lx.with_eures_terms(lx.DESCRIPTION_CONTRACT)
    pairs = {
        (phrase, marker)
        for marker, phrases in table.items()
        if marker in lx.CONTRACT_DIMENSIONS
        for phrase in phrases
        if "#" not in phrase.split()
    } | set(lx.LIST_ELLIPSES.items())
    members: dict[str, list[tuple[str, str]]] = {}
    for phrase, marker in pairs:
        members.setdefault(phrase.split()[0], []).append((phrase, marker))
    return {
        first: tuple(sorted(found, key=lambda item: (-len(item[0]), item)))
        for first, found in members.items()
    }


def drop_listed(padded: str, tokens: frozenset[str]) -> str | None:
    """`padded` (cleaned words joined by single spaces, a space at both ends) without the
    members of its contract lists on their listed dimensions, or None when it has none.
    `tokens` is its word set: a text with fewer than two member words is left at once."""
    members = _members()
    firsts = tokens & members.keys()
    if len(firsts) < 2 and not any(len(members[first]) > 1 for first in firsts):
        return None
    spans = _spans(padded, firsts, members)
    drop: list[tuple[int, int]] = []
    run: list[tuple[int, int, str]] = []
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


def _spans(
    padded: str, firsts: frozenset[str], members: dict[str, tuple[tuple[str, str], ...]]
) -> list[tuple[int, int, str]]:
    """(start, end, marker) of each member occurrence, without the spaces around it, in
    text order; where two overlap (the phrase "part time" and the elliptic "part") the
    longer one, found first, is kept."""
    found: list[tuple[int, int, str]] = []
    for first in firsts:
        for phrase, marker in members[first]:
            for at in contacts.positions(padded, f" {phrase} ", limit=20):
                found.append((at + 1, at + 1 + len(phrase), marker))
    found.sort(key=lambda span: (span[0], -span[1]))
    kept: list[tuple[int, int, str]] = []
    for span in found:
        if not kept or span[0] > kept[-1][1]:
            kept.append(span)
    return kept


def _joined(gap: str) -> bool:
    """Whether the text between two members joins them into one list: nothing, or at most
    `MAX_CONNECTORS` connector words."""
    between = gap.split()
    return len(between) <= MAX_CONNECTORS and all(w in lx.LIST_CONNECTORS for w in between)


def _listed(run: list[tuple[int, int, str]]) -> list[tuple[int, int]]:
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
