"""How alike two employers' names are, read past the two ways boards write one employer.

Two habits make one employer's name read as another's under `fuzz.token_set_ratio` alone,
which forgives only a name that is a subset of the other ("Keyrus" / "Keyrus France"):

- **A branch named by its own place.** A job centre or a network lists the branch that
  posts the ad: "CER FRANCE ARDECHE" for "Cerfrance", "Domaliance Aubenas" against
  "Domaliance Annonay", "Yoopala Val de Marne" against "Yoopala Paris". The place closing
  such a name is the ad's own listing (its town, département, county or region), which the
  place features compare already; `company_core` leaves it out of the name, unless the
  place is part of the name: an NHS trust or a public body is named after the area it
  serves ("West Suffolk", "Norfolk and Suffolk", "University Hospitals Birmingham").
- **Words run together or apart.** "Cer France" / "Cerfrance", "Pole Emploi" / "Poleemploi":
  `respaced` writes a run of one name's words as the single word the other name has.

Unit: one name (`company_core`, once per posting) or one pair of names (`company_ratio`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from rapidfuzz import fuzz

from classifier import gazetteer
from classifier.gazetteer import Place
from classifier.gazetteer_data import norm
from classifier.lexicon import GENERIC_COMPANY_WORDS, NAME_QUALIFIERS

MAX_PLACE_WORDS = 4
"""Longest place name a company name is read to end with ("saint martin de valamas")."""

MIN_JOINED = 4
"""Shortest word a run of the other name's words may spell: shorter ones ("sa", "ag") are
legal forms and initials, which join by chance."""


def place_names(place: Place | None, location_words: Iterable[str]) -> frozenset[str]:
    """The names an ad's own listing goes by, in `norm` form: its resolved place's name and
    every area holding it (département, county, region: the last part of each area key,
    "FR/2/auvergne rhone alpes/ardeche" → "ardeche"), and the listing's words, which name
    the towns the gazetteer lacks or files under a longer name ("07 - VOGUE", "TOURNON SUR
    RHONE"). The countries holding a resolved place are not added ("Keyrus France" listed
    at Lyon stays whole), but a country the listing writes is one of its words ("TELUS
    Digital Bulgaria" listed "Sofia, Bulgaria" is "telus digital"), and a listing that is
    a country names itself (an aggregator's "France": "Keyrus France" there is "keyrus").
    The listing's words that name no one or qualify a name (`GENERIC_COMPANY_WORDS`,
    `NAME_QUALIFIERS`) are left out: NHS listings write the site, often the employer itself
    ("Kingston Hospital, Kingston Upon Thames"), and "hospital", "board" or "centre" closing
    a name is no branch's place."""
    names = {
        w
        for w in map(norm, location_words)
        if w not in GENERIC_COMPANY_WORDS and w not in NAME_QUALIFIERS
    }
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
    listing: str = "",
) -> str:
    """`company_key` without the name of the ad's own place closing it (`place_names`):
    "cer france ardeche" → "cer france", "domaliance aubenas" → "domaliance". The key
    itself when nothing closes it so, or when the place belongs to the name (`_part_of_name`).
    The listing's names (`place_names`) are read only for a name of two words or more:
    most are one. `listing` is the cleaned location (`indexer.text.clean`), in which
    `_part_of_name` looks for the employer's own name."""
    words = company_key.split()
    if len(words) < 2:
        return company_key
    names = place_names(place, location_words)
    for size in range(min(MAX_PLACE_WORDS, len(words) - 1), 0, -1):
        if norm(" ".join(words[-size:])) in names:
            rest = words[:-size]
            if _part_of_name(rest, words[-size - 1 :], place, stop, listing):
                return company_key
            return " ".join(rest)
    return company_key


def _part_of_name(
    rest: list[str], named: list[str], place: Place | None, stop: Collection[str], listing: str
) -> bool:
    """Whether a place closing an employer's name is part of the name, not the branch's
    place, so that the name is kept whole:

    - the rest is only words that name no one (`lexicon.GENERIC_COMPANY_WORDS`,
      `NAME_QUALIFIERS`: "University Hospitals Dorset" at Poole, "Public Health England"
      at Salisbury); a name of one word ("orange" listed at Orange) never reaches here;
    - a function word ties the place to the name ("mairie de privas", "hopital de saint
      etienne", "admr de l ardeche"): the place is what the institution is of, and the
      rest ("mairie") would name every town's;
    - a qualifier makes the place part of a longer name ("west suffolk", "royal berkshire",
      `NAME_QUALIFIERS`), or another place of the country precedes it: a body serving
      several areas ("norfolk suffolk", "derby burton"), not a branch (a country name is a
      legal entity's, "cer france ardeche");
    - the listing writes the employer's own name with the place in it ("royal marsden"
      listed "The Royal Marsden, Sutton"): the place is then the employer's name's word
      (a number before it is the département's, "expansion 07" listed "07 - AUBENAS").
    """
    if all(w in GENERIC_COMPANY_WORDS or w in NAME_QUALIFIERS or w in stop for w in rest):
        return True
    last = rest[-1]
    if last in stop or last in NAME_QUALIFIERS:
        return True
    if last not in GENERIC_COMPANY_WORDS and _a_place_in_the_country(last, place):
        return True
    return (
        bool(listing)
        and named[0].isalpha()
        and f" {norm(' '.join(named))} " in f" {norm(listing)} "
    )


def _a_place_in_the_country(word: str, place: Place | None) -> bool:
    """Whether `word` names a place in the country of the ad's own place (`resolve_near`):
    "norfolk" before "suffolk" under Bury St Edmunds, not "caseo" (an Italian village)
    before "aubenas"."""
    if place is None or not gazetteer.is_name(norm(word)):
        return False
    found = gazetteer.resolve_near(word, place)
    return found is not None and found.country == place.country


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
