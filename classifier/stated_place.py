"""The place of work an ad's own text states ("poste basé à Bussy Saint Georges", "Lieu :
Paris 12ème", "based in Leeds"), resolved in the shipped gazetteer.

Boards file one vacancy under different communes: a geocoder's nearest town, or one listing
per commune around the site. Seen in `../shared/data`: TD SYNNEX's "Data analyst, en
alternance" listed by one board under six communes of Seine-et-Marne, 5.7-11.3 km from the
place every text states ("notre équipe basée sur Bussy Saint Georges"); Appel Médical's
radiographer for an establishment "situé à PRIVAS" under 20 communes of Ardèche; DYNAMIS
RH's "Data Engineer CDI Paris 12ème" under Paris on one board and Ivry-sur-Seine on another
(not read: "en CDI à Paris 12ème" has no cue, and a bare "à" introduces anything). The
location fields differ there and the vacancy does not: where the text states the place of
work, that is the place of work (the annotation guideline's "same place of work"). A
campaign's ads for different sites state each its own site, so their stated places differ.

Only a place after a cue is read (a town named anywhere else may be the employer's seat or a
hospital's name), and only a town or district the gazetteer knows is a place. A site it does
not know ("Lieu : Sophia Antipolis", a technology park; "based at Queen Alexandra
Hospital") is kept as the name the text gives (`Statement.site`): Thales' "Data Engineer
F/H", one text stating "Lieu : Sophia Antipolis", is listed under Vallauris by Welcome to
the Jungle and under Valbonne by Thales' own site, 8 km apart. Pure; the memo is the
gazetteer's.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from classifier import contacts, gazetteer
from classifier import lexicon as lx
from classifier.gazetteer_data import norm, norm_each

_CUE = re.compile(
    r"(?:"
    # French
    r"\bbas[ée]e?s?\s+(?:aux|au|à|a|sur|en)\b"
    r"|\bsitu[ée]e?s?\s+(?:aux|au|à|a|sur|en)\b"
    r"|\blieu\s+de\s+travail\s*:|\blieu\s*:|\blocalisation\s*:|\bposte\s+à\s+pourvoir\s+à"
    # English
    r"|\bbased\s+(?:in|at)|\blocated\s+(?:in|at)|\blocation\s*:"
    r"|\bplace\s+of\s+work\s*:"
    # German, Dutch, Spanish, Italian, Portuguese, Polish
    r"|\b(?:arbeitsort|einsatzort|dienstort|standort)\s*:|\b(?:standplaats|werklocatie)\s*:"
    r"|\bubicad[oa]\s+en|\blugar\s+de\s+trabajo\s*:|\bsede\s+di\s+lavoro\s*:"
    r"|\blocal\s+de\s+trabalho\s*:|\bmiejsce\s+pracy\s*:?"
    # Croatian, Latvian, Lithuanian (EURES: "Mjesto rada: Osijek", "Darbo vieta - Jonava")
    r"|\bmjesto\s+rada\s*[:–-]|\bdarb[ao]\s+vieta\s*[:–-]"
    r")\s*(?:(?:de|the)\s+|(?:d|l)['’]\s*)?",
    re.IGNORECASE,
)
"""What introduces the place of work, in the languages of the corpora, with an optional
article ("basé à", "situé sur", "Lieu de travail :", "based in", "Arbeitsort:"). An article
is a whole word: "based in Derby" is not "based in de" + "rby". So is the French
preposition: "basé au Pouzin" was read as "basé a" + "u Pouzin", a lower-case word, and
stated nothing (`_CONTRACTED` reads the article "au" holds)."""

_CONTRACTED = re.compile(r"\ba(ux?)\s+$", re.IGNORECASE)
"""A cue ending with French "au" or "aux": the preposition holds the article of the town's
name, "basé au Teil" is at Le Teil, "basée aux Ulis" at Les Ulis. Read bare, "Teil" is no
town; 8 of the 3,305 French ads state their place so ("au Cheylard", "au Teil", "au
Pouzin", in Ardèche)."""

_CONNECTORS = r"(?:sur|sous|en|lès|les|le|la|de|du|des|aux|upon|on|am|an|der|St|Saint|Sainte)"
_CAPITAL = "A-Z" + "".join(ch for ch in map(chr, range(0xC0, 0x250)) if ch.isupper())
"""The capital letters of the Latin alphabets the cues' languages write, Latin-1 and Latin
Extended-A/B: Polish "Łódź" and "Żywiec", Croatian "Šibenik", Lithuanian "Šiauliai" and
Latvian "Ķekava" start with letters beyond "À-Ý", and a name after a cue that starts with
one was never read ("Miejsce pracy: Żywiec" stated nothing)."""
_NAME = re.compile(
    rf"[{_CAPITAL}][\w'’.]*"
    rf"(?:[- ](?:{_CONNECTORS}[- ])?[{_CAPITAL}0-9][\w'’]*){{0,4}}"
)
"""A place name: capitalised words, joined by spaces, hyphens and the particles of town
names ("Bussy Saint Georges", "Lagny-sur-Marne", "Newcastle upon Tyne", "Paris 12ème");
it stops at the first lower-case word ("Bussy Saint Georges en tant que"; `_WRITTEN_LOW`
reads on where that name is no town). A word's later letters are any word characters,
which hold every alphabet's letters."""
_WRITTEN_LOW = re.compile(rf"[{_CAPITAL}][\w'’.]*(?:[- ]+\w[\w'’]*){{1,5}}")
"""A capitalised word and up to five words after it in any case: where `_NAME`'s name
resolves to no town, the name may go on in lower case ("basé sur Le pouzin (07)", "basé à
Reignier esery (74)"), as employers type it. Only a run that is a town's whole name is read
then (`_lower_case_tail`). Not read: a capitalised part that is itself a town somewhere
("Clermont ferrand", "Stoke on trent"), which `_resolved` takes before the tail is tried."""

_LOWER_WITH_CODE = re.compile(r"([^\W\d_][\w'’]*(?:[- ][^\W\d_][\w'’]*){0,5})\s*\(\d{2,5}\)")
"""A name written all in lower case, then its postcode or département number in
parentheses: "Le poste est basé à vert saint denis (77240)", as a home-care agency's
campaign types each copy's town. `_NAME` needs a capital, so the town went unread and
the text read as silent, and a silent copy "agreed" with its neighbouring towns' copies
(`stated_place_agrees`): one copy of 48 joined five others in the Pôle emploi partner
corpus. The code in parentheses is what makes a lower-case run a place; it is read as
`_lower_case_tail` reads a run, a town's whole name near the listing."""

LEVELS = ("town", "district")
"""The levels a stated place of work can be: a region or a country names no site."""

RADIUS_KM = 25.0
"""How far a board's commune may lie from the stated place of work: the French corpora's
listings lie 1-21 km from it. Further is another site (or a name the cue did not mean)."""
_WEAK_CUE = re.compile(rf"\bsur\s+(?=[{_CAPITAL}])")
"""French "sur" before a capitalised word: "Garde d'enfant CDI (H/F) sur Muret", "un poste
sur Lyon". It introduces much else ("sur Excel", "sur Mesure", "sur SAP"), so it states a
place only when what follows is a town or district the gazetteer resolves near the ad's
listing (`place_of_work`), and only when no cue of `_CUE` states one. A capitalised name
after it that is no such town still makes the text one that names a place (`Statement.
named`): "sur Garche" (a quarter of Thionville the gazetteer lacks) is not a silent text
that another ad's stated town could explain."""
MAX_CUES = 4
"""Cues tried per text: the place of work is stated near the top or in a details block, and
a long text's later cues are its employer's other sites."""


def near(a: gazetteer.Place, b: gazetteer.Place) -> bool:
    """One place holds the other, or they lie within `RADIUS_KM`."""
    return _within(a, b, RADIUS_KM)


def near_listing(place: gazetteer.Place, listing: gazetteer.Place) -> bool:
    """Whether a place a text states may be where the ad is listed: `near`, or the listing
    is a commune the gazetteer lacks (cities1000 has no commune under 1,000 inhabitants,
    two thirds of France's), named under the département that holds `place` ("07 - LYAS"
    for an establishment "situé à PRIVAS"). Such a listing has no coordinates, so only its
    département can be checked; a stated town outside it is still another site. Seen in
    `../shared/data`: Appel Médical's radiographer "(basé à privas)" under 20 communes of
    Ardèche, 10 of them too small for the gazetteer, whose ads read as 2 places where the
    resolved communes' read as one."""
    if near(place, listing):
        return True
    unknown_commune = bool(listing.unresolved) and listing.level == "admin2"
    return unknown_commune and listing.key in place.within and place.level in LEVELS


SAME_KM = 2.0
"""Two stated places this close are one (a town and its quarter written two ways)."""


def same_place(a: gazetteer.Place, b: gazetteer.Place) -> bool:
    """Two stated places of work are one: the same, one holding the other, or within
    `SAME_KM` when one is a district. Two sites of a campaign each stated in its text lie
    further apart (Meaux and Bussy-Saint-Georges: 22 km, within what `near` forgives a
    board's listing), or are two towns, however close: a childcare campaign states each
    commune of a suburb ("… sur Aucamville", "… sur Fonbeauzard", 1 km apart)."""
    if a.level == "town" and b.level == "town":
        return _within(a, b, 0.0)
    return _within(a, b, SAME_KM)


def _within(a: gazetteer.Place, b: gazetteer.Place, km: float) -> bool:
    """The same place, one holding the other, or towns at most `km` apart."""
    if gazetteer.relation(a, b) in ("same", "contains"):
        return True
    distance = gazetteer.distance_km(a, b)
    return distance is not None and distance <= km


class Statement(NamedTuple):
    """What a text says of its place of work: the town or district (None when it names
    none the gazetteer resolves, or one far from the ad's listing), whether a cue was
    followed by a name at all (a text that names a place it is not read as silent), and
    whether the place is the one the title names (`title_place`)."""

    place: gazetteer.Place | None
    named: bool
    titled: bool = False
    weak: bool = False
    """What was read follows a weak cue (`_WEAK_CUE`), which states a place only for a
    town near the listing."""
    site: str = ""
    """The first site a strong cue names (`site_name`: a proper name that is no whole place
    name of the gazetteer), empty when none: what two copies of one vacancy listed under two
    communes still share when no town is stated near the listing."""


SILENT = Statement(None, False)


def place_of_work(
    text: str,
    field: gazetteer.Place | None,
    words: frozenset[str] | None = None,
    title: str = "",
) -> Statement:
    """`statement` of the text, its place kept only when it is near the ad's own location
    `field` (or the field is not resolved): a stated place far from it is a word the cue did
    not mean ("Location: Band 5") or one of several sites the text lists. When the text
    gives no such place, the place its `title` names (`title_place`)."""
    found = statement(text, words, field)
    if found.place is not None and (field is None or near_listing(found.place, field)):
        return found._replace(named=True)
    titled = title_place(title, field) if title else None
    if titled is not None:
        return Statement(titled, True, titled=True)
    # a name read as a town far from the listing is a site's ("based at John Radcliffe
    # Hospital" is no Radcliffe in Greater Manchester for an ad listed at Oxford)
    return found if found.place is None else Statement(None, True, weak=found.weak, site=found.site)


class Listing(NamedTuple):
    """What a listing names: its `place`, the text's `statement` under it, and the
    `namesakes` it may also be when the ad states no place near any of them (empty
    otherwise: what the ad states decided, or the listing names one place only)."""

    place: gazetteer.Place | None
    statement: Statement
    namesakes: tuple[gazetteer.Place, ...] = ()


def listing_place(
    location: str, text: str, words: frozenset[str] | None = None, title: str = ""
) -> Listing:
    """The place a listing names and the text's `place_of_work` under it. A bare name many
    towns bear (`gazetteer.namesakes`: "Hook", "Rainham", "Saint-Vallier") is the namesake
    near which the ad's own title or text states its place of work, when the one `resolve`
    prefers has none near it: a geocoder lists "Occupational Therapist - Reablement -
    Basingstoke" under "Hook" (Hampshire, 9 km; `resolve` prefers Hook in London) and an
    ambulance service "based at Gillingham" under "Rainham" (Medway, not Havering). Read
    under the wrong namesake, the stated place is dropped as far from the listing and two
    copies of one vacancy read as towns 60 km apart. Namesakes are tried in `resolve`'s
    order, so an ad stating nothing keeps `resolve`'s place, and the namesakes are returned
    for the pair's other copy to decide between."""
    place = gazetteer.resolve(location)
    found = place_of_work(text, place, words, title)
    if found.place is not None:
        return Listing(place, found)
    options = gazetteer.namesakes(location)
    for option in options:
        if option.key == (place.key if place else None):
            continue
        stated = place_of_work(text, option, words, title)
        if stated.place is not None:
            return Listing(option, stated)
    return Listing(place, found, options)


_TITLE_PARTS = re.compile(r"\s[-–—:|]\s|[()\[\],;|/•]")
"""Where a title's parts end: a spaced dash, colon or bar, brackets, commas, slashes. A
place name lies within one part ("Data Engineer CDI Paris 12ème - secteur Médias")."""


_LINKS = gazetteer.COMPOUND_LINKS
"""A name hyphened after one of these ends a compound commune's name, so it is not the
place; spaced, it is ("Garde d'enfants sur Chambéry" names Chambéry)."""

MAX_NAME_WORDS = 4


def title_place(title: str, field: gazetteer.Place | None) -> gazetteer.Place | None:
    """The town or district the title names near the ad's own listing `field`: boards put
    the place of work in the title as often as in a cue of the text, and list the vacancy
    under a geocoder's commune. Seen in `../shared/data`: DYNAMIS RH's "Data Engineer CDI
    Paris 12ème" under Paris on one board and Ivry-sur-Seine on another; Appel Médical's
    "Médecin psychiatre (f/h) (basé à tain-l'hermitage)" under Tournon-sur-Rhône, Mauves
    and Saint-Jean-de-Muzols. The longest run of a part's words (up to `MAX_NAME_WORDS`)
    that is a whole place name; a name far from the listing is not read: a word that is
    also a town's name ("Sens", "Sale"), or a company's ("Orange"), names no place there.
    Nor is a name the title starts with, unless it is a part of its own ("Lyon - Data
    Engineer"): the job comes first, and Greek "ΕΡΓΑΤΕΣ" (workers) is a village near
    Nicosia.
    None unless the listing is a town or district: under a region or a country nothing
    says which of a name's towns is meant, and a word of the title that is some village's
    name ("Ergátes", workers, in Cyprus) lies inside it."""
    if field is None or field.level not in LEVELS:
        return None
    parts = _TITLE_PARTS.split(title)
    for index, part in enumerate(parts):
        words: list[str] = []
        hyphened: list[bool] = []  # the word was joined to the one before by a hyphen
        for written in part.split():
            pieces = norm(written).split()
            words += pieces
            hyphened += [False] + [True] * (len(pieces) - 1)
        for size in range(min(MAX_NAME_WORDS, len(words)), 0, -1):
            for start in range(len(words) - size + 1):
                span = " ".join(words[start : start + size])
                if len(span) < 3 or (hyphened[start] and words[start - 1] in _LINKS):
                    continue  # "Ernolsheim-lès-Saverne" is a commune beside Saverne
                if index == 0 and start == 0 and (size < len(words) or len(parts) == 1):
                    continue  # the job's own first word ("ΕΡΓΑΤΕΣ", workers; a village too)
                if not gazetteer.is_name(span):
                    continue
                place = gazetteer.resolve_near(span, field)
                if place is not None and place.level in LEVELS and near(place, field):
                    return place
    return None


_STARTS: dict[str, frozenset[str]] = {
    "bas": frozenset({"base", "basee", "bases", "basees"}),
    "situ": frozenset({"situe", "situee", "situes", "situees"}),
    "lieu": frozenset({"lieu"}),
    "localisation": frozenset({"localisation"}),
    "poste": frozenset({"pourvoir"}),
    "based": frozenset({"based"}),
    "located": frozenset({"located"}),
    "location": frozenset({"location"}),  # "work location:", "job location:" end with it
    "place of work": frozenset({"place"}),
    **{w: frozenset({w}) for w in ("arbeitsort", "einsatzort", "dienstort", "standort")},
    **{w: frozenset({w}) for w in ("standplaats", "werklocatie", "lugar", "sede", "local")},
    "ubicad": frozenset({"ubicado", "ubicada"}),
    "miejsce": frozenset({"miejsce"}),
    "mjesto": frozenset({"mjesto"}),
    "darb": frozenset({"darba", "darbo"}),
    "sur": frozenset({"sur"}),
}
"""Where a cue may begin (lower case), and the words of `classifier.fields`' tokens (lower
case, no accents) that must be in the text for it to be there. `_CUE` is tried only at
those places: Python's regex engine tries an alternation at every position of a text (300
µs for a French ad, case-insensitive), `str.find` skips to the candidates."""

_FORMS = {literal: tuple({literal, literal.capitalize(), literal.upper()}) for literal in _STARTS}
"""Each cue start as written in lower case, capitalised or in capitals."""

CUE_WORDS = frozenset().union(*_STARTS.values())
"""A text without one of these words states no place (most texts)."""


def statement(
    text: str, words: frozenset[str] | None = None, field: gazetteer.Place | None = None
) -> Statement:
    """The first cue followed by a name whose longest leading run of words the gazetteer
    resolves to a town or district (of a name many towns bear, the one nearest the ad's
    listing `field`: `gazetteer.resolve_near`), or by a site's name whose address gives one
    (`_address_town`); `SILENT` when no cue is followed by a name. A strong cue's place far
    from `field` is returned only when no later cue gives one near it: "based at Mount
    Vernon Hospital" (Vernon, Eure) must not hide "based in Northwood". `words`, the text's
    tokens when the caller has them, spares the search in a text without a cue word."""
    if words is not None and words.isdisjoint(CUE_WORDS):
        return SILENT
    named = weak_named = False
    weak: gazetteer.Place | None = None
    far: gazetteer.Place | None = None  # the first strong cue's place, far from `field`
    site = ""  # the first strong cue's name that is a site (`site_name`)
    for position, is_weak in _cue_ends(text, words):
        name = _NAME.match(text, position)
        if name is None:
            name = None if is_weak else _LOWER_WITH_CODE.match(text, position)
            place = _lower_case_town(name.group(1), field) if name else None
            if place is not None:
                return Statement(place, True, site=site)
            continue
        place = (
            _with_article(text, position, name.group(), field)
            or _resolved(name.group(), field)
            or _lower_case_tail(text, name, field)
        )
        if is_weak:
            weak, weak_named = weak or place, True
            continue
        named = True
        if not site:
            site = _site_at(text, position, name)
        if place is None or (field is not None and not near_listing(place, field)):
            # a site's name, or a name read far away: its address may give the town
            address = _address_town(text, _name_end(text, name), field)
            if address is None:
                far = far or place
                continue
            place = address  # near the listing, or anywhere without one
        return Statement(place, True, site=site)
    if far is not None:
        return Statement(far, True, site=site)
    if weak_named:
        return Statement(weak, True, weak=True, site=site)
    return Statement(None, named, site=site)


_ADDRESS_STEP = re.compile(r"[ \t]*(?:,|–|\b(?:in|at|à|a|en|em|te)\b)[ \t]*")
"""What leads from a site's name to the next part of its address, on the same line: a
comma, a dash, or "in" / "at" / "à" / "a" / "en" / "em" / "te" of the corpora's languages
("Addenbrookes Hospital, Cambridge", "Princess of Wales Hospital in Bridgend", "Hospital
La Paz en Madrid", "Ospedale Niguarda a Milano")."""
ADDRESS_PARTS = 3
"""Parts of an address read after a site's name: a site, a street and the town
("City Campus, Hucknall Rd, Nottingham NG5 1PB")."""


def _name_end(text: str, name: re.Match[str]) -> int:
    """Where a cue's name ends, read as a site's (`_SITE`: "Princess of Wales Hospital",
    which `_NAME` stops at "of")."""
    longer = _SITE.match(text, name.start())
    return name.end() if longer is None else max(name.end(), longer.end())


def _address_town(text: str, end: int, field: gazetteer.Place | None) -> gazetteer.Place | None:
    """The town or district the address after a cue's name gives, when that name is no
    place near the listing: of the next `ADDRESS_PARTS` parts (`_SITE`'s capitalised runs,
    a street's name skipped: "Hucknall Rd" is in Nottingham), the one whose leading words
    resolve to a town or district, when it is the only one and lies near the listing
    `field` (anywhere without one). Boards and trusts write the place of work as an
    address: "based at the University Dental Hospital, Cardiff", "Princess of Wales
    Hospital in Bridgend"; read at the site's name only, the text stated no place, and a
    copy listed under a neighbouring town read as another site's. Two towns are a list of
    places, not an address: "3 agences situées à Andrézieux, Montbrison, St Etienne" (an
    agency's branches) states none."""
    found: list[gazetteer.Place] = []
    for _ in range(ADDRESS_PARTS):
        step = _ADDRESS_STEP.match(text, end)
        part = _SITE.match(text, step.end()) if step is not None else None
        if part is None:
            break
        end = part.end()
        words = norm(part.group()).split()
        if (
            not words
            or words[0] in gazetteer.STREET_BEFORE
            or not gazetteer.STREET_AFTER.isdisjoint(words)
        ):
            continue  # a street's name ("Hucknall Rd"), not the town
        place = _resolved(part.group(), field)
        if place is not None:
            found.append(place)
    if len(found) != 1:
        return None  # no town, or a list of them
    return found[0] if field is None or near_listing(found[0], field) else None


_LETTERS = re.compile(r"[^\W\d_]+")
"""A run of letters: the words whose case `site_name` reads."""
_NEXT_WORD = re.compile(r"\s*([^\W\d_]+)")
_AFTER_SITE = frozenset(
    {"in", "at", "near", "and", "or", "with", "within", "for", "on", "to", "by", "et", "ou"}
    | {"à", "a", "au", "aux", "en", "près", "pres", "dans", "avec", "pour", "und", "oder"}
    | {"bei", "im"}
)
"""Lower-case words that may follow a site's name ("based at Queen Alexandra Hospital in
Portsmouth", "Lieu : Sophia Antipolis et télétravail"); any other goes on with the name's
sentence ("Lieu de travail : Entretien de la banque MARZE à Vals les Bains")."""


_SITE = re.compile(
    rf"[{_CAPITAL}][\w'’.]*"
    rf"(?:[- ](?:(?:{_CONNECTORS}|and|of|et|&)[- ])?[{_CAPITAL}0-9][\w'’]*){{0,6}}"
)
"""A site's name: `_NAME`'s capitalised words, also joined by "and", "of", "et" or "&"
("Eastern and Coastal Area Offices", "Princess of Wales Hospital"). `_NAME` stops there,
and "based at the Eastern and Coastal Area Offices, Canterbury" left "Eastern" (a Fijian
region) as the site, which names none. Kept only when it ends with a kind of site
(`lexicon.SITE_KINDS`) and its first part does not: "Rennes et Lyon", "South West of
London" and "Maidstone Hospital and Tunbridge Wells Hospital" are two places, an area and
two sites, read as their first name as before."""
_SITE_NOUN = re.compile(r"[ \t]+(" + "|".join(sorted(lx.SITE_KINDS)) + r")\b")
"""A kind of site written in lower case after its proper name: "based at Meadowbrook unit,
Eagleton Ward", "based at the Ardenleigh site". Read as part of the name; before, the
lower-case word after it read as the name's sentence going on (`site_name`), and no site
was kept."""


def _site_at(text: str, position: int, first: re.Match[str]) -> str:
    """The site named at `position`, after a strong cue (`site_name`; `first` is `_NAME`'s
    match there), with a kind of site written in lower case after it (`_SITE_NOUN`) and the
    article the cue's "au" holds (`_article`: "au Teil" names the town Le Teil, no site; "au
    Canada" the country, which keeps its name without the article); empty when it names
    none."""
    name = _SITE.match(text, position)
    if name is None or (name.end() > first.end() and not _one_site(name.group(), first.group())):
        name = first
    written, end = name.group(), name.end()
    article = _article(text, position)
    if article:
        if gazetteer.is_name(norm(written)):
            return ""
        written = article + written
    noun = _SITE_NOUN.match(text, end)
    if noun is not None:
        written, end = f"{written} {noun[1]}", noun.end()
    return site_name(written, text, text[end:])


def _one_site(linked: str, first: str) -> bool:
    """Whether a name joined by "and" or "of" (`_SITE`) is one site's: it ends with a kind
    of site and the name before the first link does not."""
    words, head = norm(linked).split(), norm(first).split()
    return words[-1] in lx.SITE_KINDS and lx.SITE_KINDS.isdisjoint(head)


def site_name(name: str, text: str, after: str = "") -> str:
    """A cue's name the gazetteer does not resolve, normalised, when it names a site: not a
    region or country (a whole place name of the gazetteer: "Kent", "Ile de France"),
    not remote work, and holding a word of 4 letters or more that is no generic place word
    (`lexicon.GENERIC_PLACE_WORDS`: "Various", "Centre") and that the text never writes in
    lower case. A proper name is capitalised wherever it occurs; what a cue picks up
    otherwise is a word of the sentence ("Location: This role…"), or a kind of site every
    town has ("Child Development Centre"). Nor is a name a site when the text `after` it
    goes on in lower case other than with `_AFTER_SITE`: "Lieu de travail : Entretien de la
    banque MARZE à Vals les Bains" (three cleaning posts at three branches 5 km apart) names
    no site "Entretien". Empty when it names none."""
    normalised = norm(name).strip(" .")
    if not normalised or gazetteer.is_name(normalised) or lx.REMOTE.search(normalised):
        return ""
    if after.lstrip(" \t").startswith(":"):
        return ""  # the next field's label of a form left empty ("Location:\nStart date:")
    following = _NEXT_WORD.match(after)
    if following and following[1].islower() and following[1] not in _AFTER_SITE:
        return ""
    candidates = [
        word
        for word in normalised.split()
        if len(word) >= 4
        and not word.isdigit()
        and word not in lx.GENERIC_PLACE_WORDS
        and word not in lx.LOCATION_STOPWORDS
    ]
    if not candidates:
        return ""  # "Various", "City Campus": the text's words need not be read
    # an address writes a name in lower case ("paul.selby@addenbrookes.nhs.uk"): not prose
    prose = contacts.without_addresses(text)
    lower = norm_each({word for word in set(_LETTERS.findall(prose)) if word.islower()})
    return normalised if any(word not in lower for word in candidates) else ""


def _with_article(
    text: str, position: int, name: str, field: gazetteer.Place | None
) -> gazetteer.Place | None:
    """The town near the listing `field` that `name` with the article its cue's "au" or
    "aux" holds is (`_CONTRACTED`: "basé au Pouzin" is at Le Pouzin); None when the cue
    holds none or the name with it is no town near the listing."""
    article = _article(text, position)
    if not article or field is None:
        return None
    return _longest_name_near(norm(article + name).split(), 1, field)


def _article(text: str, position: int) -> str:
    """ "le " or "les " when the cue ending at `position` ends with French "au" or "aux"
    (`_CONTRACTED`), else empty."""
    contracted = _CONTRACTED.search(text, max(0, position - 6), position)
    if contracted is None:
        return ""
    return "les " if contracted[1].lower() == "ux" else "le "


def _resolved(name: str, field: gazetteer.Place | None) -> gazetteer.Place | None:
    """The town or district the longest leading run of a name's words resolves to, nearest
    `field` (`gazetteer.resolve_near`)."""
    names = name.split()
    for end in range(len(names), 0, -1):
        place = gazetteer.resolve_near(" ".join(names[:end]).rstrip("."), field)
        if place is not None and place.level in LEVELS:
            return place
    return None


def _lower_case_tail(
    text: str, name: re.Match[str], field: gazetteer.Place | None
) -> gazetteer.Place | None:
    """The town or district near the listing `field` whose whole name (`gazetteer.is_name`)
    is the longest run of words from `name` on that goes past it in lower case
    (`_WRITTEN_LOW`); None when no such run is one. A whole name, not `resolve`: that one
    reads a string's parts and finds "Ligné" in "Beaune un Conducteur de ligne". Only
    near the listing: a lower-case run is weaker evidence than a capitalised name, and
    "St George's University Hospitals" is no Swiss "Saint-George"."""
    written = _WRITTEN_LOW.match(text, name.start())
    if written is None or field is None:
        return None
    return _longest_name_near(norm(written.group()).split(), len(norm(name.group()).split()), field)


def _lower_case_town(written: str, field: gazetteer.Place | None) -> gazetteer.Place | None:
    """The town or district near the listing `field` whose whole name is `written` (a run
    `_LOWER_WITH_CODE` read), or else the longest leading run of its words that is one;
    None when none is."""
    return None if field is None else _longest_name_near(norm(written).split(), 0, field)


def _longest_name_near(
    words: list[str], shorter: int, field: gazetteer.Place
) -> gazetteer.Place | None:
    """The town or district near `field` whose whole name (`gazetteer.is_name`) is the
    longest leading run of `words` longer than `shorter` words; None when none is."""
    for end in range(len(words), shorter, -1):
        run = " ".join(words[:end])
        if gazetteer.is_name(run):
            place = gazetteer.resolve_near(run, field)
            if place is not None and place.level in LEVELS and near_listing(place, field):
                return place
    return None


def _cue_ends(text: str, words: frozenset[str] | None) -> list[tuple[int, bool]]:
    """Where the names after the first `MAX_CUES` cues of the text begin, and the first
    `MAX_CUES` weak ones (`_WEAK_CUE`), each with whether it is weak. A cue is looked for
    as written in lower case, capitalised or in capitals."""
    starts: set[int] = set()
    for literal, needs in _STARTS.items():
        if words is not None and words.isdisjoint(needs):
            continue
        for form in _FORMS[literal]:
            position = text.find(form)
            while position >= 0:
                starts.add(position)
                position = text.find(form, position + 1)
    ends: list[tuple[int, bool]] = []
    strong = weak = 0
    for start in sorted(starts):
        cue = _CUE.match(text, start)
        if cue is not None and strong < MAX_CUES:
            ends.append((cue.end(), False))
            strong += 1
        elif cue is None and weak < MAX_CUES and (cue := _WEAK_CUE.match(text, start)):
            ends.append((cue.end(), True))
            weak += 1
        if strong >= MAX_CUES and weak >= MAX_CUES:
            break
    return ends
