"""Stub keys: how a relay that keeps only a board's title and a few keywords meets its ad.

A job centre relays some partner-board ads as a stub: "En bref : Commercial(e) vente
menuiserie aluminium, 07260 Joyeuse, Relation client" (55 of the 1,450 Pôle emploi partner
ads, median 76 characters), under its own occupation label and without the company. Such a
stub shares no band key and no lead fingerprint with the ad (a dozen words, no run of 26
copied words), no block, company-title or bare-title key (no company, another title), so
nothing in the index proposed the ad: `bench/robustness.py`'s teaser_relay family was found
by 0 of 40 pairs through ingest although the classifier, shown the pairs, found 22.

What such a stub keeps is the ad's title, whole, as one of its comma-separated phrases. So:

* every posting is indexed under a **title key** of its bare title (`indexer.lookup_keys.
  bare_title`, company-free) and a stub searches with the title keys of its phrases;
* a stub is indexed under a **named-title key** of each phrase and every posting searches
  with the named-title key of its bare title, so an ad arriving after its stub finds it too.

Only a stub (`STUB_MAX_WORDS` words of description or fewer) has phrases, so only the
stubs' searches look among all titles, and a non-stub search meets stubs only. Both kinds
are signed 64-bit ints from their own hash domains, like `indexer.lookup_keys`. A hit found
only this way is kept for scoring when the other side's title is one of the stub's phrases
(`names_title`), and the classifier decides. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise

from indexer.lookup_keys import signed_hash
from indexer.text import normalise_title, tokenize

STUB_MAX_WORDS = 30
"""Description words up to which a posting counts as a stub. The job centre's teasers hold
6-25 words (median 12); a 250-500-character aggregator snippet holds 40 or more, and the
lead fingerprints find those."""

PHRASE_MAX_WORDS = 16
"""Longest phrase (in title-key words) read as a title. 1.9% of the French corpora's 3,305
titles have more than 8 ("Femme/Homme de ménage et Garde d'enfants + 3 ans à Privas et ses
alentours (H/F)": 14), and at 8 a stub naming one never met its ad; 4 have more than 16. A
longer phrase only adds keys that match a title key whole, so a stub's sentence ("Vous
aurez pour mission de nettoyer l'agence postale") finds nothing unless it is some ad's
whole title."""

LISTED_SHARE = 0.5
"""Share of a short text's words its phrases must hold for it to be a stub, a list of
phrases: the job centre's teasers hold 0.75-1.0 of theirs in phrases, while a household's
short ad written in one long sentence after a greeting ("Bonjour, nous cherchons un/une
assistant(e) maternel(le) agrée secteur bordeaux ... fin septembre.", 0.04) kept only
"bonjour", which the other ad's text held too, and two households' ads read as a stub and
its ad (`classifier.features._stub_phrases_in_text` 1.0): 7 of the French corpora's 100
short texts were such sentences (0.04-0.43)."""

_SEPARATORS = re.compile(r"[,;:|\n•·]+")
"""What separates a stub's phrases. Not "/" nor "-": titles hold them ("Contrôleur /
Contrôleuse", "Data Engineer - Lyon")."""

_TITLE_PREFIX = "stub-title\x1f"
_NAMED_PREFIX = "stub-named\x1f"


def stub_phrases(description: str) -> tuple[str, ...]:
    """The title keys (`normalise_title`) of a stub's phrases and of each two neighbouring
    ones, in order, without repeats; () for a posting that is not a stub: one of more than
    `STUB_MAX_WORDS` words, or whose phrases hold less than `LISTED_SHARE` of its words
    (sentences, not a list). A phrase is a part that `_is_phrase`."""
    if len(description.split()) > 2 * STUB_MAX_WORDS or len(tokenize(description)) > STUB_MAX_WORDS:
        return ()  # the first test, in C, spares tokenising every ordinary ad
    parts = _SEPARATORS.split(description)
    keys = [normalise_title(part) for part in parts]
    listed = sum(len(key.split()) for key in keys if _is_phrase(key))
    if listed < LISTED_SHARE * sum(len(key.split()) for key in keys):
        return ()  # sentences: "Bonjour, nous cherchons un/une assistant(e) maternel(le) ..."
    # Two neighbouring parts read as one phrase too: a title may hold a comma itself
    # ("Betoneerija, betoonivalmistaja", "Data Engineer | Software Engineer").
    joined = [normalise_title(f"{a} {b}") for a, b in pairwise(parts)]
    phrases = dict.fromkeys(key for key in (*keys, *joined) if _is_phrase(key))
    return tuple(phrases)


def _is_phrase(key: str) -> bool:
    """Whether a part's title key reads as a title or keyword: one to `PHRASE_MAX_WORDS`
    words, one word only if of four letters or more (not "SAV")."""
    words = key.split()
    return 2 <= len(words) <= PHRASE_MAX_WORDS or (len(words) == 1 and len(key) >= 4)


def index_keys(bare: str, phrases: Iterable[str], title_key: str = "") -> list[int]:
    """The keys a posting is indexed under: the title key of its bare title (and of its
    whole title key, when the bare title dropped a place from it: see `_titles`), and the
    named-title key of each of its stub phrases."""
    keys = [signed_hash(_TITLE_PREFIX + title) for title in _titles(bare, title_key)]
    keys += [signed_hash(_NAMED_PREFIX + phrase) for phrase in phrases]
    return keys


def search_keys(bare: str, phrases: Iterable[str], title_key: str = "") -> list[int]:
    """The keys a posting searches with: the named-title key of its bare title and whole
    title key (which only stubs naming it are indexed under), and the title key of each of
    its stub phrases."""
    keys = [signed_hash(_NAMED_PREFIX + title) for title in _titles(bare, title_key)]
    keys += [signed_hash(_TITLE_PREFIX + phrase) for phrase in phrases]
    return keys


def _titles(bare: str, title_key: str) -> list[str]:
    """The bare title, and the title key when it differs. A stub copies the board's title
    as written, its town included ("En bref : Directeur de magasin Dourdan, ..."), while
    the ad's bare title has lost the town of its listing ("directeur de magasin"): keyed by
    the bare title alone, 3 of the 100 relays of `bench/robustness.py --limit 100 --seed 13
    --families teaser_relay` that the classifier accepts were never candidates."""
    return [t for t in dict.fromkeys((bare, title_key)) if t]


def names_title(phrases: Iterable[str], *titles: str) -> bool:
    """Whether one of a stub's phrases is one of `titles` (title keys): what keeps a hit
    the stub keys found, since the store does not say which key matched."""
    wanted = {t for t in titles if t}
    return any(phrase in wanted for phrase in phrases)
