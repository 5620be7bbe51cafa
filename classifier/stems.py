"""Title words read without their inflection, in the posting's language.

Why: a re-post often writes the same title word in another inflection: a plural ("Garde
d'enfants à domicile" / "Garde d'enfant à domicile"), an adjective agreeing with another
noun ("Planificateur industriel" / "Planificateur de production industrielle"), the
other number of "Contrôleur technique automobile(s)". Compared word for word such titles
differ, and the classifier learned from the employers' other vacancies (one digit or one
word apart: "Staff Nurse Ward 5" / "Ward 6") that titles differing at all are two jobs:
such pairs with identical texts scored 0.35-0.45 (`bench/robustness.py`, occupation_title).

The stems come from the Snowball algorithms (`snowballstemmer`, the stemmers Sphinx and
many search engines use), which exist for every language of our corpora but Croatian, read
with the Serbian one (the same Latin-script inflections). They strip inflections, not
meaning: "technicien" and "technique", "développeur" and "développement" keep different
stems; a few derivations meet ("manager" / "management"), which titles seldom oppose.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache

import snowballstemmer

_ALGORITHMS = {
    "cs": "czech",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": "english",
    "es": "spanish",
    "et": "estonian",
    "fi": "finnish",
    "fr": "french",
    "hr": "serbian",
    "hu": "hungarian",
    "it": "italian",
    "lt": "lithuanian",
    "nl": "dutch",
    "no": "norwegian",
    "nb": "norwegian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "sv": "swedish",
    "tr": "turkish",
}
"""ISO 639-1 codes (what `indexer.language` reports) to Snowball algorithm names."""


def stem_words(words: Iterable[str], language: str | None) -> list[str]:
    """Each of `words` (normalised title words) replaced by its stem in `language`; as
    given for a language without a stemmer or unknown."""
    code = (language or "").split("-")[0].lower()
    if code not in _ALGORITHMS:
        return list(words)
    return [_stem(word, code) for word in words]


@lru_cache(maxsize=65536)  # bounded: title words recur; one entry is a few dozen bytes
def _stem(word: str, code: str) -> str:
    if word.isdigit() or len(word) < 4:  # numbers and short words ("ward 5", "it") as written
        return word
    return _stemmer(code)(word)


@lru_cache(maxsize=len(_ALGORITHMS))
def _stemmer(code: str) -> Callable[[str], str]:
    stem: Callable[[str], str] = snowballstemmer.stemmer(_ALGORITHMS[code]).stemWord
    return stem
