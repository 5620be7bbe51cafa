"""How alike two employers' names are, read past the two ways boards write one employer.

Two habits make one employer's name read as another's under `fuzz.token_set_ratio` alone,
which forgives only a name that is a subset of the other ("Keyrus" / "Keyrus France"):

- **A branch named by its own place.** A job centre or a network lists the branch that
  posts the ad: "CER FRANCE ARDECHE" for "Cerfrance", "Domaliance Aubenas" against
  "Domaliance Annonay", "Yoopala Val de Marne" against "Yoopala Paris". The place closing
  such a name is the ad's own listing (its town, département, county or region), which the
  place features compare already; `company_core` leaves it out of the name.
- **Words run together or apart.** "Cer France" / "Cerfrance", "Pole Emploi" / "Poleemploi":
  `respaced` writes a run of one name's words as the single word the other name has.

Unit: one name (`company_core`, once per posting) or one pair of names (`company_ratio`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from rapidfuzz import fuzz

from classifier.gazetteer import Place
from classifier.gazetteer_data import norm

MAX_PLACE_WORDS = 4
"""Longest place name a company name is read to end with ("saint martin de valamas")."""

MIN_JOINED = 4
"""Shortest word a run of the other name's words may spell: shorter ones ("sa", "ag") are
legal forms and initials, which join by chance."""


def place_names(place: Place | None, location_words: Iterable[str]) -> frozenset[str]:
    """The names an ad's own listing goes by, in `norm` form: its resolved place's name and
    every area holding it (département, county, region: the last part of each area key,
    "FR/2/auvergne rhone alpes/ardeche" → "ardeche"), and the listing's words as written.
    The countries holding a resolved place are not added ("Keyrus France" listed at Lyon
    stays whole), but a country the listing writes is one of its words ("TELUS Digital
    Bulgaria" listed "Sofia, Bulgaria" is "telus digital"), and a listing that is a
    country names itself (an aggregator's "France": "Keyrus France" there is "keyrus")."""
    names = {norm(w) for w in location_words}
    if place is not None:
        names.add(norm(place.name))
        names.update(key.rsplit("/", 1)[1] for key in place.within if "/" in key)
        if place.level != "country" and "/" in place.key:
            names.add(place.key.rsplit("/", 1)[1])
    names.discard("")
    return frozenset(names)


def company_core(
    company_key: str,
    place: Place | None,
    location_words: Iterable[str],
    stop: Collection[str],
) -> str:
    """`company_key` without the name of the ad's own place closing it (`place_names`):
    "cer france ardeche" → "cer france", "domaliance aubenas" → "domaliance". The key
    itself when nothing closes it so, when nothing would be left ("orange" listed at
    Orange), or when a function word joins the place to the name ("mairie de privas",
    "hopital de saint etienne", "admr de l ardeche"): there the place is what the
    institution is of, and the rest ("mairie") would name every town's. The listing's
    names (`place_names`) are read only for a name of two words or more: most are one."""
    words = company_key.split()
    if len(words) < 2:
        return company_key
    names = place_names(place, location_words)
    for size in range(min(MAX_PLACE_WORDS, len(words) - 1), 0, -1):
        if norm(" ".join(words[-size:])) in names:
            rest = words[:-size]
            return company_key if rest[-1] in stop else " ".join(rest)
    return company_key


def respaced(words: Sequence[str], joined: Collection[str]) -> list[str]:
    """`words` with each run of two or more of them that spells one word of `joined` written
    as that word: ["cer", "france"] against {"cerfrance"} → ["cerfrance"]."""
    wanted = {w for w in joined if len(w) >= MIN_JOINED}
    if not wanted or len(words) < 2:
        return list(words)
    out: list[str] = []
    start = 0
    while start < len(words):
        for end in range(len(words), start + 1, -1):
            if "".join(words[start:end]) in wanted:
                out.append("".join(words[start:end]))
                start = end
                break
        else:
            out.append(words[start])
            start += 1
    return out


def company_ratio(core_a: str, core_b: str) -> float:
    """`fuzz.token_set_ratio` of two employers' names (0-1), each written with the other's
    word boundaries (`respaced`) and without the place of its own branch (`company_core`,
    done by the caller once per posting)."""
    if core_a == core_b:
        return 1.0
    words_a, words_b = core_a.split(), core_b.split()
    joined_a = " ".join(respaced(words_a, words_b))
    joined_b = " ".join(respaced(words_b, words_a))
    return fuzz.token_set_ratio(joined_a, joined_b) / 100.0
