"""The sentence in which an ad states a cover, bank or locum post, and whether the other ad
of a pair keeps that sentence without it.

One text stating a cover that the other never states is two different habits. A re-post
that lost a sentence ("Fixed term - 3 months", a truncated tail) is the same vacancy with
a fact unknown; an employer that edits its announcement ("seeking two Service Managers"
against "seeking a Service Manager to cover a maternity leave post", gold-dev) advertises
another post. The first removes the whole sentence; the second keeps the sentence and
changes it. So the evidence is the share of the cover sentence's 3-grams, outside the cover
phrase itself, that the other text holds: near 0 for a dropped sentence, high for an edit.

A third habit keeps part of the sentence without an edit: a copy cut by its length
(an aggregator's snippet, "… na Odsjeku za…") that ends inside the sentence, before its cover
phrase. What it holds is the sentence's opening and nothing after, so the kept share read it
as an edit: three Croatian project posts ("… 1 izvršitelj na određeno vrijeme", fixed term)
whose snippets ended in that sentence kept 0.35-0.44 of it and scored 0.23-0.27
(`bench/robustness.py --limit 100 --seed 29`, aggregator). A copy that ends mid-sentence
(`is_cut`) with words of the sentence's opening is read as having lost the sentence
(share 0); one that ends a sentence there is an edit, as before.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from classifier import lexicon as lx
from classifier.words import SHINGLE_SIZE, shared_count, sorted_unique, trigram_hashes, words

COVER = frozenset({"fixed", "bank", "locum"})
"""Contract markers that make a post a cover or a pool of shifts rather than the substantive
vacancy."""

MIN_GRAMS = 3
"""A cover sentence with fewer 3-grams outside its phrase ("Fixed term - 3 months") says
nothing about an edit: it carries no words of its own to find in the other text."""

TAIL_GRAMS = 2
"""The last word 3-grams of a cut text that say where it ends (`PostingFields.tail_grams`):
two, since a cut may split the last word ("Odsje…") and spoil the last one."""

_SENTENCE_END = (".", "!", "?")


def is_cut(text: str) -> bool:
    """Whether a text ends mid-sentence: with an ellipsis ("…", "...") or with no full stop,
    question or exclamation mark. An edited announcement ends its last sentence; a copy cut
    by its length does not."""
    end = text.rstrip()
    return end.endswith(("…", "...")) or not end.endswith(_SENTENCE_END)


class CoverSentence(NamedTuple):
    """One sentence stating a cover: its 3-grams outside the cover phrase (`grams`) and
    those before its first cover phrase (`opening`), both sorted and unique."""

    grams: npt.NDArray[np.int64]
    opening: npt.NDArray[np.int64]


_BREAK = "qxsentenceendqx"
"""The word that marks a sentence end in the words of a text (`words.words` keeps ASCII
letters)."""


def _mark_sentence_ends(text: str) -> str:
    """The text with `_BREAK` at each line break and after each full stop, question or
    exclamation mark, semicolon or colon followed by a space. `str.replace` scans at C speed;
    a regex for the same ends cost 85 µs per ad (measured while a training ran)."""
    marked = text.replace("\n", f" {_BREAK} ")
    for stop in ".!?;:":
        marked = marked.replace(f"{stop} ", f" {_BREAK} ")
    return marked


Phrase = tuple[str, ...]


@cache
def _phrases() -> dict[str, tuple[tuple[Phrase, int], ...]]:
    """The description's cover phrases (`lexicon.DESCRIPTION_CONTRACT` and the EURES terms)
    as word tuples ("#" stands for a number), by a word they hold: the first, or for
    "# months contract" the first that is not a number; with that word's place in the
    phrase."""
    by_key: dict[str, list[tuple[Phrase, int]]] = {}
    for marker, phrases in lx.with_eures_terms(lx.DESCRIPTION_CONTRACT).items():
        if marker in COVER:
            for phrase in phrases:
                parts = tuple(phrase.split())
                place = next(i for i, part in enumerate(parts) if part != "#")
                by_key.setdefault(parts[place], []).append((parts, place))
    return {key: tuple(found) for key, found in by_key.items()}


def _matches(tokens: Sequence[str], start: int, phrase: Phrase) -> bool:
    if start < 0 or start + len(phrase) > len(tokens):
        return False
    if "#" not in phrase:
        return tuple(tokens[start : start + len(phrase)]) == phrase
    return all(
        token.isdigit() if part == "#" else token == part
        for part, token in zip(phrase, tokens[start : start + len(phrase)], strict=True)
    )


def _occurrences(tokens: list[str], word: str) -> list[int]:
    """Every position of `word`: `list.index` runs in C, once per occurrence, where a loop
    over the words would run once per word (a 600-word ad)."""
    found: list[int] = []
    try:
        while True:
            found.append(tokens.index(word, found[-1] + 1 if found else 0))
    except ValueError:
        return found


def _phrase_positions(tokens: list[str]) -> set[int]:
    """Positions of the words of every cover phrase in a text's words, looked for only
    where one of their words occurs."""
    phrases = _phrases()
    covered: set[int] = set()
    for key in phrases.keys() & set(tokens):
        for position in _occurrences(tokens, key):
            for phrase, place in phrases[key]:
                if _matches(tokens, position - place, phrase):
                    covered.update(range(position - place, position - place + len(phrase)))
    return covered


def cover_sentences(text: str) -> tuple[CoverSentence, ...]:
    """For each sentence of a plain text that states a cover phrase, the sorted unique hashes
    of its word 3-grams (`words.trigram_hashes`) that hold no word of the phrase, and of
    those that end before its first phrase word; sentences with fewer than `MIN_GRAMS` such
    3-grams are left out. The text is read once, its sentence ends marked by a word no text
    uses (`_BREAK`): reading it sentence by sentence cost half as much again (0.34 against
    0.23 ms per ad stating a cover, both measured while a training ran)."""
    tokens = words(_mark_sentence_ends(text))
    covered = _phrase_positions(tokens)
    if not covered:
        return ()
    ends = [*_occurrences(tokens, _BREAK), len(tokens)]
    found: list[CoverSentence] = []
    for sentence in sorted({bisect.bisect_left(ends, position) for position in covered}):
        start = ends[sentence - 1] + 1 if sentence else 0
        grams = trigram_hashes(tokens[start : ends[sentence]])
        keep = np.ones(grams.size, dtype=bool)
        first = ends[sentence]
        for position in covered:
            if start <= position < ends[sentence]:
                keep[max(0, position - start - SHINGLE_SIZE + 1) : position - start + 1] = False
                first = min(first, position)
        if int(keep.sum()) >= MIN_GRAMS:
            opening = grams[: max(0, first - start - SHINGLE_SIZE + 1)]
            found.append(CoverSentence(sorted_unique(grams[keep]), sorted_unique(opening.copy())))
    return tuple(found)


def kept_share(
    sentences: Sequence[CoverSentence],
    shingles: npt.NDArray[np.int64],
    tail: npt.NDArray[np.int64],
) -> float:
    """The largest share of one cover sentence's 3-grams that another text's sorted 3-grams
    (`PostingFields.shingles`) hold: how much of the sentence the other ad kept while not
    stating the cover. 0 for a sentence in whose opening the other text ends (`tail`, its
    last `TAIL_GRAMS` 3-grams, sorted and unique; empty for a text that ends a sentence):
    a copy cut there lost the rest, it did not edit it. NaN when there is no sentence to
    look for."""
    if not sentences:
        return float("nan")
    return max(
        0.0
        if shared_count(sentence.opening, tail)
        else shared_count(sentence.grams, shingles) / sentence.grams.size
        for sentence in sentences
    )
