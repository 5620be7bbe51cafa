"""The sentence in which an ad states a cover, bank or locum post, and whether the other ad
of a pair keeps that sentence without it.

One text stating a cover that the other never states is two different habits. A re-post
that lost a sentence ("Fixed term - 3 months", a truncated tail) is the same vacancy with
a fact unknown; an employer that edits its announcement ("seeking two Service Managers"
against "seeking a Service Manager to cover a maternity leave post", gold-dev) advertises
another post. The first removes the whole sentence; the second keeps the sentence and
changes it. So the evidence is the share of the cover sentence's 3-grams, outside the cover
phrase itself, that the other text holds: near 0 for a dropped sentence, high for an edit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

import numpy as np
import numpy.typing as npt

from classifier import lexicon as lx
from classifier.words import SHINGLE_SIZE, sorted_unique, trigram_hashes, words

COVER = frozenset({"fixed", "bank", "locum"})
"""Contract markers that make a post a cover or a pool of shifts rather than the substantive
vacancy."""

MIN_GRAMS = 3
"""A cover sentence with fewer 3-grams outside its phrase ("Fixed term - 3 months") says
nothing about an edit: it carries no words of its own to find in the other text."""

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\s*\n\s*")

Phrase = tuple[str, ...]


@cache
def _phrases() -> dict[str, tuple[Phrase, ...]]:
    """First word → the description's cover phrases starting with it, as word tuples ("#"
    stands for a number), from `lexicon.DESCRIPTION_CONTRACT` and the EURES terms."""
    by_first: dict[str, list[Phrase]] = {}
    for marker, phrases in lx.with_eures_terms(lx.DESCRIPTION_CONTRACT).items():
        if marker in COVER:
            for phrase in phrases:
                parts = tuple(phrase.split())
                by_first.setdefault(parts[0], []).append(parts)
    return {first: tuple(found) for first, found in by_first.items()}


def _matches(tokens: Sequence[str], start: int, phrase: Phrase) -> bool:
    if start + len(phrase) > len(tokens):
        return False
    return all(
        token.isdigit() if part == "#" else token == part
        for part, token in zip(phrase, tokens[start : start + len(phrase)], strict=False)
    )


def _phrase_positions(tokens: Sequence[str]) -> set[int]:
    """Positions of the words of every cover phrase in a sentence's words."""
    phrases = _phrases()
    numbered = phrases.get("#", ())
    covered: set[int] = set()
    for i, token in enumerate(tokens):
        candidates = phrases.get(token, ()) + (numbered if token.isdigit() else ())
        for phrase in candidates:
            if _matches(tokens, i, phrase):
                covered.update(range(i, i + len(phrase)))
    return covered


def cover_sentences(text: str) -> tuple[npt.NDArray[np.int64], ...]:
    """For each sentence of a plain text that states a cover phrase, the sorted unique hashes
    of its word 3-grams (`words.trigram_hashes`) that hold no word of the phrase; sentences
    with fewer than `MIN_GRAMS` such 3-grams are left out. Only worth calling on a text whose
    contract markers include `COVER`: it splits and re-reads the whole text."""
    found: list[npt.NDArray[np.int64]] = []
    for sentence in _SENTENCE_END.split(text):
        tokens = words(sentence)
        covered = _phrase_positions(tokens)
        if not covered:
            continue
        grams = trigram_hashes(tokens)
        keep = np.ones(grams.size, dtype=bool)
        for position in covered:
            keep[max(0, position - SHINGLE_SIZE + 1) : position + 1] = False
        if int(keep.sum()) >= MIN_GRAMS:
            found.append(sorted_unique(grams[keep]))
    return tuple(found)


def kept_share(
    sentences: Sequence[npt.NDArray[np.int64]], shingles: npt.NDArray[np.int64]
) -> float:
    """The largest share of one cover sentence's 3-grams that another text's sorted 3-grams
    (`PostingFields.shingles`) hold: how much of the sentence the other ad kept while not
    stating the cover. NaN when there is no sentence to look for."""
    if not sentences:
        return float("nan")
    return max(float(np.isin(grams, shingles, assume_unique=True).mean()) for grams in sentences)
