"""Places of work in a location string: postcodes and town tokens, what two locations must
share to possibly be one place of work (classifier.fields reads them for every posting).

Pure. Postcodes are read from the cleaned location (`indexer.text.clean`): UK outward and
inward codes ("SW17 7DJ"), 4-6 digit codes (FR/DE "75008", BE/NL "1000"), Dutch "3511 AB" and
"3511AB", Polish "00-950" (read from the raw text, whose dash `clean` drops). What is left,
minus stopwords, country names, remote markers and single letters (the "F" of "F-75008"), are
the place-name tokens. Names are not guessed: "Frankfurt am Main" gives {"frankfurt", "main"}
and "Amsterdam-Zuidoost" {"amsterdam", "zuidoost"}, which share their town with "Frankfurt"
and "Amsterdam" (the features compare tokens by overlap).
"""

from __future__ import annotations

from classifier import lexicon as lx
from indexer.text import clean


def place_keys(location: str | None) -> tuple[frozenset[str], frozenset[str]]:
    """(postcodes and UK outward codes, town tokens) of a location string: what two
    locations must share to possibly be one place of work."""
    full, outward, places = location_parts(clean(location or ""), location or "")
    return full | outward, places - lx.GENERIC_PLACE_WORDS


def location_parts(cleaned: str, raw: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(full postcodes, UK outward codes, place-name tokens) of a location, given its cleaned
    and raw text. A UK postcode is an outward token ("sw17") optionally followed by an inward
    one ("7dj"); the full code keeps the space ("sw17 7dj"), Dutch codes lose it ("3511ab")."""
    words = cleaned.split()
    full: set[str] = {f"{a}{b}" for a, b in lx.DASHED_POSTCODE.findall(raw)}
    outward: set[str] = set()
    used: set[int] = set()
    for i, word in enumerate(words):
        if lx.UK_OUTWARD.match(word) and any(c.isdigit() for c in word):
            outward.add(word)
            used.add(i)
            if i + 1 < len(words) and lx.UK_INWARD.match(words[i + 1]):
                full.add(f"{word} {words[i + 1]}")
                used.add(i + 1)
        elif lx.NUMERIC_POSTCODE.match(word):
            following = words[i + 1] if i + 1 < len(words) else ""
            if len(word) == 4 and len(following) == 2 and following.isalpha():
                full.add(word + following)  # Dutch "3511 AB"
                used.add(i + 1)
            else:
                full.add(word)
            used.add(i)
        elif word[0].isdigit() and lx.JOINED_POSTCODE.match(word):
            full.add(word)
            used.add(i)
    places = frozenset(
        w
        for i, w in enumerate(words)
        if i not in used and len(w) > 1 and w not in lx.LOCATION_STOPWORDS and not w.isdigit()
    )
    return frozenset(full), frozenset(outward), places
