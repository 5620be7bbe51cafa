"""Anchor keys: how a re-post translated into another language becomes a candidate.

A translation shares no shingle with its original, so no band key, lead fingerprint or
block key finds it (bench/robustness.py: 2 of 40 EURES translations found through ingest),
while the classifier scores such a pair well once it sees it (`classifier.anchors`). What a
translation keeps is its *anchors* (`indexer.anchor_words`: names, places, tools, numbers,
codes). docs/crosslingual.md measured anchor keys that are rare in the index as the best
cheap way to retrieve translations; this module makes them index keys:

* **Stored keys.** A posting whose language is known is indexed under one key per anchor in
  its own language's hash domain (`anchor_key(h, language)`), at most `STORED_ANCHORS` of
  them (the anchors of lowest hash: a consistent sample, so two postings sharing many anchors
  keep many of the same ones), plus one *language key* that says "a posting in this
  language" and counts the language's postings in a window.
* **Searched keys.** A posting is searched only in the *other* languages the window holds
  (their language keys have hits): every one of its anchors in each such language's domain.
  A monolingual index (NHS, French boards) therefore searches nothing here, and a same-
  language pair never meets through an anchor (band keys and the classifier handle those).
* **Rarity.** A key held by more than `MAX_ANCHOR_DF` postings of the window says nothing
  (a country, a tool every ad names), nor does an anchor held by more than that many
  postings of the query's own language ("NHS" when a few Welsh ads sit among English ones);
  a rarer key weighs log((`RARITY_SCALE` + 1) / df) (inverse document frequency).
  Postings are ranked by the sum of the weights of the keys they share, and the best
  `TRANSLATION_CANDIDATES` are candidates, scored by the classifier like any other.

Measured before building (simulation over the 1,110 EURES originals and their English
machine translations in one pool, arrival order shuffled; /tmp script, not kept): a
translation's original among the 3 best ranked for 85% of pairs at 2.7 candidates per query
with IDF weights log(2000 / df) (78% when every shared key counted 1); 88% with 5
candidates; storing the 24 lowest-hash anchors instead of all lost 0-4 points. EURES ads
have a median of 17 anchors and NHS ads 45, so `STORED_ANCHORS` = 32 keeps most ads whole.

Keys are signed 64-bit ints from their own hash domains (as in `indexer.lookup_keys`), so the
stores index them in the same list as the band keys. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache, lru_cache

import numpy as np
import xxhash

from indexer.language import CANDIDATE_LANGUAGES
from indexer.minhash import to_signed
from indexer.reading import Reading
from indexer.shingles import mix

STORED_ANCHORS = 32
"""Anchor keys stored per posting, lowest anchor hashes first (see the module docstring)."""

MAX_ANCHOR_DF = 50
"""Postings of the window (in the key's language) above which an anchor key is ignored."""

TRANSLATION_CANDIDATES = 3
"""Postings an anchor search proposes: the best ranked by summed key weight."""

RARITY_SCALE = 1000
"""The N of the inverse document frequency log((N + 1) / df): a constant rather than the
window's postings of the language, so that a store need not count a language's postings
(every posting, in a big index) on each search, only see that it has some. The simulation
of the module docstring ranked as well with N = 2,000 fixed as with the pool's size."""

_ANCHOR_DOMAIN = "anchor\x1f"
_LANGUAGE_DOMAIN = "posting-language\x1f"
SEARCHED_LANGUAGES: tuple[str, ...] = tuple(
    language for language in CANDIDATE_LANGUAGES if language != "zxx"
)
"""Languages a posting may be keyed in: those `indexer.language` may answer, or a client's
`language` field, when it names one of them."""


@dataclass(frozen=True)
class PostingAnchors:
    """What the index keys of a posting's anchors: its language (None: not identified, so no
    anchor key at all) and the xxh64 of every anchor, ascending."""

    language: str | None
    hashes: tuple[int, ...]

    @property
    def stored(self) -> tuple[int, ...]:
        """The hashes stored as keys: the `STORED_ANCHORS` lowest."""
        return self.hashes[:STORED_ANCHORS]


NO_ANCHORS = PostingAnchors(None, ())


def posting_anchors(reading: Reading) -> PostingAnchors:
    """What the index keys of a posting's reading (`indexer.reading`): its language, if it
    is one of `SEARCHED_LANGUAGES`, and the xxh64 of each anchor word of its text and of its
    location field; nothing otherwise."""
    if reading.language not in SEARCHED_LANGUAGES:
        return NO_ANCHORS
    words = reading.anchors | reading.place_anchors
    hashes = sorted({xxhash.xxh64_intdigest(word.encode("utf-8")) for word in words})
    return PostingAnchors(reading.language, tuple(hashes))


@cache
def language_key(language: str) -> int:
    """The key every posting in `language` is indexed under."""
    return _signed(xxhash.xxh64_intdigest(f"{_LANGUAGE_DOMAIN}{language}".encode()))


def anchor_keys(hashes: Sequence[int], language: str) -> list[int]:
    """The keys of these anchor hashes in `language`'s domain (order kept)."""
    if not hashes:
        return []
    return list(_anchor_keys(tuple(hashes), language))


@lru_cache(maxsize=64)
def _anchor_keys(hashes: tuple[int, ...], language: str) -> tuple[int, ...]:
    """`anchor_keys`, remembered: a search keys the same anchors for `searched_keys` and
    again for `key_weights`, on the same thread, one query after the other."""
    seed = np.uint64(xxhash.xxh64_intdigest(f"{_ANCHOR_DOMAIN}{language}".encode()))
    values = np.asarray(hashes, dtype=np.uint64) ^ seed
    keyed: list[int] = to_signed(mix(values, ())).tolist()
    return tuple(keyed)


def stored_keys(posting: PostingAnchors) -> list[int]:
    """The keys a posting is indexed under for translations: its language key, then its
    stored anchors in its language (nothing without a language)."""
    if posting.language is None:
        return []
    return [language_key(posting.language), *anchor_keys(posting.stored, posting.language)]


@dataclass(frozen=True)
class TranslationQuery:
    """Find postings in other languages sharing rare anchors with `anchors`, posted within
    [since, until] (inclusive; None = unbounded), best `limit` first, `exclude_id` left out.
    `near`: the query posting's posted_at, which orders postings of equal weight (`ranked`).
    Results carry no `document` (as `CandidateQuery`'s)."""

    anchors: PostingAnchors
    since: datetime | None
    until: datetime | None
    exclude_id: str | None
    limit: int = TRANSLATION_CANDIDATES
    near: datetime | None = None


def other_languages(query: TranslationQuery) -> list[str]:
    """The languages whose language keys a store counts first (all but the query's)."""
    own = query.anchors.language
    if own is None or not query.anchors.hashes or query.limit <= 0:
        return []
    return [language for language in SEARCHED_LANGUAGES if language != own]


@cache
def languages_by_key() -> dict[int, str]:
    """Each of `SEARCHED_LANGUAGES`, in that order, by its language key: which language a
    posting's index keys say it is in."""
    return {language_key(language): language for language in SEARCHED_LANGUAGES}


def languages_held(keys: AbstractSet[int], exclude: str | None) -> list[str]:
    """The languages of `SEARCHED_LANGUAGES` but `exclude`, in that order, whose language
    key is among `keys` (the language keys an index has seen): `other_languages` narrowed to
    what an index holds, read from its few seen keys rather than by looking each of the
    languages up (9% of the time of 3,000 anchor searches in the full NHS index, cProfile)."""
    by_key = languages_by_key()
    held = {by_key[key] for key in keys if key in by_key}
    return [lang for lang in by_key.values() if lang in held and lang != exclude]


def other_keys(query: TranslationQuery, present: Sequence[str]) -> list[int]:
    """Every anchor of the query in each language of `present`, each block in the order of
    `query.anchors.hashes`: the first blocks of `searched_keys`."""
    if query.anchors.language is None:
        return []
    return [key for language in present for key in anchor_keys(query.anchors.hashes, language)]


def searched_keys(query: TranslationQuery, present: Sequence[str]) -> list[int]:
    """The keys a store counts: every anchor of the query in each
    language of `present` (`other_keys`), then every anchor in the query's own language (how
    common the anchor is on the query's side: see `key_weights`), each block in the order of
    `query.anchors.hashes`. Nothing when `present` is empty."""
    own = query.anchors.language
    if not present or own is None:
        return []
    return [*other_keys(query, present), *anchor_keys(query.anchors.hashes, own)]


def key_weights(
    query: TranslationQuery,
    postings_per_key: Mapping[int, int],
    postings_per_language: Mapping[str, int],
) -> dict[int, float]:
    """The weight of each other-language key of `searched_keys(query, present)`, `present`
    being the languages of `postings_per_language` with postings: log((RARITY_SCALE + 1) /
    df), df the window's postings holding the key, for a key held by 1 to `MAX_ANCHOR_DF`
    postings whose anchor is also held by at most `MAX_ANCHOR_DF` postings of the query's
    own language. Counts above `MAX_ANCHOR_DF` may be given as any larger value (a store may
    stop counting there). The second bound matters where a language has few postings:
    three Welsh ads among 14,842 English NHS ads made every anchor of the Welsh ads "rare"
    ("NHS", "Band", "Wales"), and every English ad a candidate of them, until the anchor's
    count on the English side said how common it is. Keys without weight are left out."""
    own = query.anchors.language
    if own is None:
        return {}
    own_keys = anchor_keys(query.anchors.hashes, own)
    weights: dict[int, float] = {}
    # The own side's count is read only for the anchors rare on the other side (usually
    # none), not for every anchor: most of a query's keys are held by no other posting.
    for language, total in postings_per_language.items():
        if language == own or total <= 0:
            continue
        for i, key in enumerate(anchor_keys(query.anchors.hashes, language)):
            df = postings_per_key.get(key, 0)
            if 1 <= df <= MAX_ANCHOR_DF and postings_per_key.get(own_keys[i], 0) <= MAX_ANCHOR_DF:
                weights[key] = math.log((RARITY_SCALE + 1) / df)
    return weights


def ranked(
    scores: Mapping[str, tuple[float, datetime]], limit: int, near: datetime | None = None
) -> list[str]:
    """Posting ids by summed weight (descending), then closeness of posted_at to `near` (the
    query's own; skipped when None), then posted_at, then id; the first `limit`. Weights are
    rounded to 9 decimals first, so that sums taken in another order (another store) rank
    alike.

    Why closeness: postings sharing only a place or an employer's name weigh the same, and a
    translated re-post appears beside its original (the EURES ads and their English copies
    are posted the same day or the next), while the other ads of that place are spread over
    the window. Ordered by posted_at alone, the oldest of the tied postings took the places:
    of the 400 translations of `bench/robustness.py --families translated` ingested in one
    index, 35 that the classifier scores as duplicates never met their original."""
    order = sorted(
        scores,
        key=lambda pid: (
            -round(scores[pid][0], 9),
            seconds_apart(scores[pid][1], near),
            scores[pid][1],
            pid,
        ),
    )
    return order[:limit]


def seconds_apart(posted_at: datetime, near: datetime | None) -> float:
    """|posted_at - near| in whole microseconds as seconds (0 when `near` is None): the
    stores compare it exactly, whether they hold datetimes or microsecond counts."""
    if near is None:
        return 0.0
    return abs((posted_at - near) // timedelta(microseconds=1)) / 1e6


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value
