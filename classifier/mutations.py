"""Vacancy-changing mutations: the same text made into a *different* vacancy.

Real boards are full of these look-alikes (gold-dev: 68 of 80 pairs): one description
posted for several sites, for band 5 and band 6, as a bank and a substantive post, for
another specialty, or by another employer from a shared template. Each mutation copies an
ad and changes exactly what makes it another vacancy, sometimes in the text as well
(campaigns replace the town or the grade in the body too). Pure: (posting, rng, donor
fields) → posting.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from classifier import gazetteer, variants
from classifier.features import contract_comparison
from classifier.fields import extract_fields, place_keys
from classifier.lexicon import ENGAGEMENT, GENDER_MARKER
from classifier.stated_place import LEVELS, statement, title_place
from classifier.stated_title import restate

Posting = dict[str, Any]

SENIORITY_LEVELS = (
    ("Junior ", ""),
    ("Senior ", ""),
    ("Trainee ", ""),
    ("Lead ", ""),
    ("Head of ", ""),
    ("Principal ", ""),
    ("Assistant ", ""),
    ("Deputy ", ""),
    ("", " junior"),
    ("", " confirmé(e)"),
    ("Stagiaire ", ""),
    ("Chef de ", ""),
    ("Werkstudent ", ""),
    ("Apprentice ", ""),
)
"""(prefix, suffix) of a title naming its level; two different ones make two vacancies."""
CONTRACT_TITLES: tuple[tuple[tuple[str, str], tuple[str, str]], ...] = (
    (("", " - Full Time"), ("", " - Part Time")),
    (("", " (Permanent)"), ("", " - Fixed Term (12 months)")),
    (("", " - Permanent"), ("", " - Maternity Cover")),
    (("", " - Days"), ("", " - Nights")),
    (("", " (CDI)"), ("", " (CDD)")),
    (("", " - CDI"), ("", " - CDD 6 mois")),
    (("", " - Temps plein"), ("", " - Temps partiel")),
    (("", " (unbefristet)"), ("", " (befristet)")),
    (("", " | Vollzeit"), ("", " | Teilzeit")),
    (("", " - vast contract"), ("", " - tijdelijk")),
    (("", " - pełny etat"), ("", " - niepełny etat")),
    (("", " - Tempo inteiro"), ("", " - Tempo parcial")),
    (("", " - na neodređeno"), ("", " - na određeno")),
    (("", ""), ("Bank ", "")),
    (("", ""), ("Locum ", "")),
    (("", ""), ("", " - Agency")),
    (("", ""), ("", " - Volunteer")),
    (("", " - Permanent"), ("Bank ", "")),
)
"""(one side's title decoration, the other's) as (prefix, suffix): terms that make another
vacancy, stated on both sides (full against part time, CDI against CDD). One side silent is
not a conflict (re-posts add "- Full Time"), except for the engagement markers (bank, locum,
agency, volunteer): the bank version of a post is another vacancy while the substantive ad
never says "permanent"."""
CONTRACT_SENTENCES = (
    ("This is a permanent contract, full time.", "This is a fixed term contract for 12 months."),
    ("This is a permanent post.", "This is a bank position: shifts are offered as needed."),
    ("This is a full time post of 37.5 hours.", "This is a part time post of 22.5 hours."),
    ("Il s'agit d'un CDI à temps plein.", "Il s'agit d'un CDD de 6 mois."),
    ("Poste à temps plein.", "Poste à temps partiel."),
    ("Die Stelle ist unbefristet.", "Die Stelle ist auf zwei Jahre befristet."),
    ("Het betreft een vast contract.", "Het betreft een tijdelijk contract voor een jaar."),
)
"""(one side's sentence, the other's) stating incompatible terms in the body."""
SPECIALTIES = (
    "Cardiology",
    "Oncology",
    "Paediatrics",
    "Emergency Department",
    "Orthopaedics",
    "Theatres",
    "Community",
    "Finance",
    "Marketing",
    "Logistics",
    "Customer Service",
    "IT Support",
    "Sales",
    "Payroll",
    "Maintenance",
    "Night Shift",
)
UNIT_FORMS = (
    "Ward {n}",
    "Unit {n}",
    "Team {n}",
    "Post {n}",
    "{n} {point}",
    "{point}",
    "Team {point}",
)
COMPASS = ("North", "South", "East", "West")
UNIT_SHARE = 0.3
"""Of the other_specialty pairs, the share naming another unit: one role for several wards
or areas with one text is an NHS habit (South Tees' "Staff Nurse (Ward 2)" ... "(Ward 25)",
Essex's "Bank Nurse - West Essex" / "- South Essex" / "- North Essex")."""
_GRADE = re.compile(r"\b(band|grade|level|schaal|stufe|niveau)(\s*)(\d{1,2})([a-d]?)\b", re.I)


@dataclass(frozen=True)
class Donors:
    """Real values a mutation can borrow: locations and titles of the same employer (a
    multi-site campaign uses the employer's own sites) and other employers with a place."""

    locations: Sequence[str]
    titles: Sequence[str]
    employers: Sequence[tuple[str, str]]
    """(company, location) of ads by other employers."""


Mutation = Callable[[Posting, random.Random, Donors], tuple[Posting, Posting] | None]
"""(one side, the other side) of a pair of different vacancies, or None if not applicable."""


def other_location(
    posting: Posting, rng: random.Random, donors: Donors
) -> tuple[Posting, Posting] | None:
    """Another place of work. The town is replaced in the title, and sometimes in the text
    as well: a campaign's ad for another site names its own site where the first named the
    first, and a title still naming the old town under the new listing would state the old
    place of work (`classifier.stated_place`), one vacancy listed under two communes. Only
    places a board would not give for the same vacancy (`_another_place`)."""
    current = str(posting.get("location") or "")
    here = gazetteer.resolve(current)
    codes, towns = place_keys(current)
    choices = [
        location for location in donors.locations if _another_place(here, codes, towns, location)
    ]
    if not choices:
        return None
    location = rng.choice(choices)
    result = {**posting, "location": location}
    old_names = _place_names(current)
    new_town = variants.town(location) or _first_word(location)
    if old_names and new_town:
        alternatives = "|".join(map(re.escape, sorted(old_names, key=len, reverse=True)))
        pattern = re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE)
        result["title"] = pattern.sub(new_town, posting["title"])
        if rng.random() < 0.4:
            result["description"] = pattern.sub(new_town, posting["description"])
    return posting, result


def _another_place(
    here: gazetteer.Place | None, codes: frozenset[str], towns: frozenset[str], location: str
) -> bool:
    """Whether `location` is clearly another place of work than the listing `here` (its
    postcodes `codes`, town words `towns`), not one a board gives for the same vacancy: a
    listing that holds the other ("France" and "07 - VESSEAUX", "Île-de-France" and
    "Villevaudé": the bench's country_location and region_location re-posts) or a town
    within `NEIGHBOUR_KM` (a board's commune for one stated place of work, the bench's
    nearby_commune; `other_neighbour_town` makes those negatives where nothing states the
    place). Two postcodes tell two sites apart whatever their towns ("Leeds, LS1" and
    "Leeds, LS9")."""
    other_codes, other_towns = place_keys(location)
    if not (codes.isdisjoint(other_codes) and towns.isdisjoint(other_towns) and other_towns):
        return False  # the same place rewritten
    if codes and other_codes:
        return True
    there = gazetteer.resolve(location)
    if gazetteer.relation(here, there) in ("same", "contains"):
        return False
    distance = gazetteer.distance_km(here, there)
    return distance is None or distance > NEIGHBOUR_KM[1]


def _place_names(location: str) -> set[str]:
    """The words a title or text uses for the listing's town or district: its name as the
    gazetteer writes it (`variants.town`: "La Voulte-sur-Rhône" for "07 - LA VOULTE SUR
    RHONE") and the listing's first long word."""
    return {name for name in (variants.town(location), _first_word(location)) if name}


NEIGHBOUR_KM = (3.0, 20.0)
"""How far the neighbouring site lies: as far as boards' communes lie from one stated place
of work (`board_habits.NEARBY_KM`), so that distance alone cannot tell the two apart."""


def other_neighbour_town(
    posting: Posting, rng: random.Random, donors: Donors
) -> tuple[Posting, Posting] | None:
    """The same text for a site in a neighbouring town, 3-20 km away (a campaign's ads in
    the towns of one area; guideline: neighbouring towns are not the same place). The
    employer's own sites (`other_location`) are mostly further apart, and a board listing
    one vacancy under a neighbouring commune (`board_habits.nearby_commune`) is a
    duplicate: the place the ad states is what tells the two apart, so only ads whose text
    and title state none are moved, and the moved ad states none either; a town the text
    names is renamed with the listing. A town the gazetteer reads as inside the listed
    one (a city's quarter: `gazetteer.relation` "contains") is no neighbour: a board naming
    the quarter where another names the city lists one place, as the bench's
    region_location does, and such negatives taught the model that a quarter 0.6 km from
    its city's centre was another town (Intendente / Lisbon)."""
    listed = gazetteer.resolve(str(posting.get("location") or ""))
    if listed is None or listed.level not in LEVELS:
        return None
    title = str(posting["title"])
    stated = statement(str(posting["description"]), field=listed)
    if (stated.named and not stated.weak) or title_place(title, listed) is not None:
        return None  # a text naming its town only after "sur" is moved, the town renamed
    options = [
        town
        for town in gazetteer.towns_near(listed, *NEIGHBOUR_KM)
        if gazetteer.relation(listed, town) == "different"
    ]
    if not options:
        return None
    town = rng.choice(options[:12])
    # A campaign's ad names its own town where the first named the first ("Garde d'enfant
    # ... sur Aussonne" / "... sur Colomiers"); a text still naming the old town under the
    # new listing would read as one vacancy listed under two communes.
    name = re.compile(rf"\b{re.escape(listed.name)}\b", re.IGNORECASE)
    text = name.sub(town.name, str(posting["description"]))
    return posting, {**posting, "location": town.name, "description": text}


def other_grade(
    posting: Posting, rng: random.Random, donors: Donors
) -> tuple[Posting, Posting] | None:
    """Band/grade/level moved by one (everywhere it occurs), salary scaled with it; if the ad
    names no grade, both ads get one in the title (the mutated one a different one)."""
    text = f"{posting['title']}\n{posting['description']}\n{posting.get('salary') or ''}"
    step = rng.choice((-1, 1))
    if _GRADE.search(text):

        def shift(match: re.Match[str]) -> str:
            value = max(1, int(match.group(3)) + step)
            return f"{match.group(1)}{match.group(2)}{value}{match.group(4)}"

        result = {
            **posting,
            "title": _GRADE.sub(shift, posting["title"]),
            "description": _GRADE.sub(shift, posting["description"]),
        }
        original = posting
    else:
        word = rng.choice(("Band", "Grade", "Level", "Niveau", "Schaal"))
        value = rng.randint(2, 8)
        original = {**posting, "title": f"{posting['title']} - {word} {value}"}
        result = {**posting, "title": f"{posting['title']} - {word} {value + step}"}
    if posting.get("salary"):
        factor = 1.0 + step * rng.uniform(0.1, 0.3)
        result["salary"] = _scale_amounts(str(posting["salary"]), factor)
    return original, result


def other_contract(
    posting: Posting, rng: random.Random, donors: Donors
) -> tuple[Posting, Posting] | None:
    """The post offered on other terms, stated in both titles (`CONTRACT_TITLES`), sometimes
    in both texts as well; pay scaled down on the part-time, fixed or bank side."""
    sides = rng.choice(CONTRACT_TITLES)
    if rng.random() < 0.5:
        sides = (sides[1], sides[0])
    (prefix_a, suffix_a), (prefix_b, suffix_b) = sides
    first = {**posting, "title": f"{prefix_a}{posting['title']}{suffix_a}"}
    result = {**posting, "title": f"{prefix_b}{posting['title']}{suffix_b}"}
    if rng.random() < 0.4:
        sentence_a, sentence_b = rng.choice(CONTRACT_SENTENCES)
        first["description"] = f"{sentence_a}\n\n{posting['description']}"
        result["description"] = f"{sentence_b}\n\n{posting['description']}"
    if posting.get("salary") and rng.random() < 0.5:
        result["salary"] = _scale_amounts(str(posting["salary"]), rng.uniform(0.5, 0.9))
    return (first, result) if _states_other_terms(first, result) else None


def other_terms(
    posting: Posting, rng: random.Random, donors: Donors
) -> tuple[Posting, Posting] | None:
    """Same title and text but other terms stated in both bodies, at their start (where
    snippets keep them): the permanent post and its fixed-term cover or bank version; or,
    a quarter of the time, a cover announced in the opening sentence of one side only (see
    `_cover_in_first_sentence`). Terms stated in one body only are otherwise unknown, not
    another vacancy: re-posts lose later sentences."""
    if rng.random() < 0.25:
        covered = _cover_in_first_sentence(str(posting["description"]), rng)
        if covered is None:
            return None
        return posting, {**posting, "description": covered}
    sentence_a, sentence_b = rng.choice(CONTRACT_SENTENCES)
    if rng.random() < 0.5:
        sentence_a, sentence_b = sentence_b, sentence_a
    first = {**posting, "description": f"{sentence_a}\n\n{posting['description']}"}
    second = {**posting, "description": f"{sentence_b}\n\n{posting['description']}"}
    return (first, second) if _states_other_terms(first, second) else None


COVER_CLAUSES = (
    " to cover a maternity leave post",
    " on a fixed term basis for 12 months",
    " on a bank basis",
    " (CDD de remplacement de 6 mois)",
    " (befristet als Elternzeitvertretung)",
)
_FIRST_STOP = re.compile(r"[.!?](?=\s|$)")


def _cover_in_first_sentence(text: str, rng: random.Random) -> str | None:
    """The opening sentence made to announce a cover or bank post ("... to join their team
    to cover a maternity leave post."), as gold-dev's Service Manager pair does. In the first
    sentence, which no re-post transformation drops (truncations keep the start, edits delete
    later sentences), so a one-sided cover stated there is evidence of another vacancy."""
    stop = _FIRST_STOP.search(text)
    if stop is None or stop.start() > 400:
        return None
    return text[: stop.start()] + rng.choice(COVER_CLAUSES) + text[stop.start() :]


def _states_other_terms(a: Posting, b: Posting) -> bool:
    """Whether the two sides read as other terms (a contract conflict, or a bank or locum
    title against a silent one): an ad whose own title or text already states the terms
    ("Staff Nurse - Full or Part Time") hides the change, and would teach the model that
    agreeing terms mean another vacancy."""
    fields_a, fields_b = extract_fields(a), extract_fields(b)
    if contract_comparison(fields_a, fields_b)[0] == 1.0:
        return True
    return bool((fields_a.title_contract ^ fields_b.title_contract) & ENGAGEMENT)


def other_base(
    posting: Posting, rng: random.Random, donors: Donors
) -> tuple[Posting, Posting] | None:
    """A campaign: one ad per site, the shared text naming every site and each title its
    own town ("CAMHS Psychiatrist Canterbury" / "... Thanet")."""
    moved = other_location(posting, rng, donors)
    if moved is None:
        return None
    first, second = moved
    town_a, town_b = variants.town(first.get("location")), variants.town(second.get("location"))
    if not town_a or not town_b:
        return None
    sentence = variants.CAMPAIGN_SENTENCES.get(
        str(posting.get("language") or "en"), variants.CAMPAIGN_SENTENCES["en"]
    ).format(a=town_a, b=town_b)
    text = f"{sentence}\n\n{posting['description']}"
    return (
        {**first, "title": f"{first['title']} - {town_a}", "description": text},
        {**second, "title": f"{second['title']} - {town_b}", "description": text},
    )


def other_seniority(
    posting: Posting, rng: random.Random, donors: Donors
) -> tuple[Posting, Posting] | None:
    """A more and a less senior version of the role, each title stating its level (one side
    silent is unknown: boards add "Senior" to a title whose text asks for seniority)."""
    title = str(posting["title"])
    (prefix_a, suffix_a), (prefix_b, suffix_b) = rng.sample(SENIORITY_LEVELS, k=2)
    if any(title.lower().startswith(p.lower()) for p in (prefix_a, prefix_b) if p):
        return None
    first = _retitled(posting, f"{prefix_a}{title}{suffix_a}")
    other = f"{prefix_b}{title}{suffix_b}"
    text = str(posting["description"])
    if rng.random() < 0.3:
        # Before `_retitled`: a stated-title line already holding `other` would read
        # "Senior Senior X" once the plain title in it were replaced.
        text = text.replace(title, other)
    return first, _retitled({**posting, "description": text}, other)


def other_role(
    posting: Posting, rng: random.Random, donors: Donors
) -> tuple[Posting, Posting] | None:
    """Another of the employer's roles advertised with the same template: the new title,
    and the new role's name wherever the text names the first title (`_named_role`).

    An employer fills its template in; it does not leave another role's name in it. Of the
    777 pairs of real NHS ads with one normalised text and two titles (neither inside the
    other), the text names one title in 19, most of them retitles of one post ("Scrub
    Nurse" / "Scrub Practitioner", "Staff Nurse - Medical Receiving Unit" / "Staff Nurse -
    MRU"), while 34% of the NHS training ads name their own title so (18% of the French,
    11% of the EURES ones): copied as it was, the text taught the trees that a text naming
    one side's title under another title is two vacancies, which is what a job centre's
    relay under its occupation label looks like."""
    current = str(posting["title"]).lower()
    choices = [t for t in donors.titles if t and t.lower() != current]
    if not choices:
        return None
    title = rng.choice(choices)
    text = _named_role(str(posting["title"])).sub(
        GENDER_MARKER.sub("", title).strip(" -"), str(posting["description"])
    )
    return posting, _retitled({**posting, "description": text}, title)


def _retitled(posting: Posting, title: str) -> Posting:
    """`posting` under `title`, the employer's title its text states in its opening line
    ("POSTE : ...", `classifier.stated_title`) made that title too: another role's ad of
    one template states its own title there. Left as it was, two roles' negatives stated
    one title on both sides, what a job centre's relay of one vacancy looks like."""
    text = restate(str(posting.get("description") or ""), title)
    return {**posting, "title": title, "description": text}


def _named_role(title: str) -> re.Pattern[str]:
    """Where a text names `title` as written, gender marker aside ("Chef de secteur (H/F)"
    finds "Chef de Secteur", "chef de secteur H/F"): its words in order, any punctuation or
    space between them, whole words, any case. A title without words matches nothing."""
    words = re.findall(r"\w+", GENDER_MARKER.sub(" ", title))
    if not words:
        return re.compile(r"(?!)")
    return re.compile(r"\b" + r"[\W_]+".join(map(re.escape, words)) + r"\b", re.IGNORECASE)


def other_specialty(
    posting: Posting, rng: random.Random, donors: Donors
) -> tuple[Posting, Posting] | None:
    """The same role for another specialty or department ("Staff Nurse - Cardiology"), or,
    `UNIT_SHARE` of the time, for another ward, team or area named by a number or a compass
    point (`_units`)."""
    first, second = _units(rng) if rng.random() < UNIT_SHARE else rng.sample(SPECIALTIES, k=2)
    title = posting["title"]
    return _retitled(posting, f"{title} - {first}"), _retitled(posting, f"{title} - {second}")


def _units(rng: random.Random) -> tuple[str, str]:
    """Two units of one kind, as NHS titles name them ("Ward 6" / "Ward 7", "7 North" / "7
    South", "East" / "West"; `classifier.title_units`)."""
    form = rng.choice(UNIT_FORMS)
    n, m = rng.sample(range(1, 40), k=2)
    p, q = rng.sample(COMPASS, k=2)
    if "{n}" in form and "{point}" in form:
        m = n  # "7 North" / "7 South": the point tells them apart
    return form.format(n=n, point=p), form.format(n=m, point=q)


def other_employer(
    posting: Posting, rng: random.Random, donors: Donors
) -> tuple[Posting, Posting] | None:
    """The same template text used by another employer at its own place (franchises, GP
    practices, agencies' stock ads): company and location change, and the words naming the
    old employer in the text name the new one. Keeping the old place, or the old employer
    named in the text, would describe an aggregator re-posting the same vacancy instead."""
    current = str(posting.get("company") or "")
    choices = [
        (company, location)
        for company, location in donors.employers
        if company.lower() != current.lower() and location
    ]
    if not choices:
        return None
    company, location = rng.choice(choices)
    text = str(posting["description"])
    replacement = company.split(",")[0].strip()
    # One pass over all the words: a word of the new name that was also a word of the old
    # one ("Health Education England" for "North of England ...") is not replaced again, and
    # the text no longer depends on the order the words are tried in (a set's order follows
    # the process's string hash: one training pair, and with it the shipped model, did).
    words = sorted(variants.distinctive_words(current), key=lambda w: (-len(w), w))
    if words:
        pattern = r"\b(?:" + "|".join(map(re.escape, words)) + r")\b"
        text = re.sub(pattern, lambda _: replacement, text, flags=re.IGNORECASE)
    result = {**posting, "company": company, "location": location, "description": text}
    if rng.random() < 0.3:  # an agency advertising for another client with the same template
        result["company"] = rng.choice(variants.RECRUITERS)
        result["description"] = variants.for_client(text, company, "en", rng)
    return posting, result


MUTATIONS: tuple[tuple[Mutation, float], ...] = (
    (other_location, 0.20),
    (other_neighbour_town, 0.06),
    (other_base, 0.05),
    (other_grade, 0.13),
    (other_contract, 0.12),
    (other_terms, 0.06),
    (other_seniority, 0.09),
    (other_role, 0.13),
    (other_specialty, 0.07),
    (other_employer, 0.09),
)
"""Mutations with their weights: location first, as in real multi-site campaigns (a
neighbouring town is a quarter of those)."""


def mutate(
    posting: Posting, rng: random.Random, donors: Donors
) -> tuple[str, Posting, Posting] | None:
    """Two different vacancies made from `posting` (mutation name, one side, the other), or
    None when the drawn mutation cannot apply (no donor value)."""
    functions = [m for m, _ in MUTATIONS]
    weights = [w for _, w in MUTATIONS]
    mutation = rng.choices(functions, weights=weights, k=1)[0]
    result = mutation(posting, rng, donors)
    return None if result is None else (mutation.__name__, *result)


def _first_word(location: str) -> str | None:
    for word in re.split(r"[\s,]+", location):
        if len(word) > 3 and word.isalpha():
            return word
    return None


def _scale_amounts(text: str, factor: float) -> str:
    def scale(match: re.Match[str]) -> str:
        raw = match.group(0)
        value = float(raw.replace(",", ""))
        scaled = round(value * factor, 2 if value < 100 else 0)
        return f"{scaled:,.0f}" if value >= 100 else f"{scaled:.2f}"

    return re.sub(r"\d[\d,]*(?:\.\d+)?", scale, text)
