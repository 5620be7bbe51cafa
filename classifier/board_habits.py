"""Re-post habits of real job boards that keep the vacancy, as training transformations.

Measured on real cross-board pairs (French boards, NHS): the classifier missed re-posts whose
title gained a contract or schedule word ("- Full Time", "(CDI)", "- Temps plein"), a seniority
word the text already states, the town or the employer's name; whose place was given at
region or country level; whose company carried a group or country suffix; whose employer
intro was rewritten between two scrapes; or which dropped a sentence and gained a salary
line. Each habit is one pure function (posting, seeded rng, `variants.Context`) → posting, in
every language the corpora hold;
`variants.repost` applies them at label-independent rates, and `classifier.mutations` makes the
hard negatives that state *another* contract, seniority or place on both sides.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterable
from functools import lru_cache

import xxhash

from classifier import gazetteer
from classifier.fields import description_markers, extract_fields
from classifier.stated_place import LEVELS, listing_place
from classifier.variants import BOILERPLATE, Context, Posting, paragraphs, town
from indexer.text import fold_accents, normalise_title

CONTRACT_DECORATIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "full": {
        "en": (" (Full Time)", " - Full Time", " - Full-time", " | Full time"),
        "fr": (" - Temps plein", " (temps complet)", " - Temps Plein"),
        "de": (" | Vollzeit", " (Vollzeit)"),
        "nl": (" - Fulltime", " (voltijd)"),
        "pl": (" - pełny etat",),
        "pt": (" - Tempo inteiro",),
        "ro": (" - normă întreagă",),
        "hu": (" - teljes munkaidő",),
        "hr": (" - puno radno vrijeme",),
        "lv": (" - pilna slodze",),
        "lt": (" - pilnu etatu",),
        "et": (" - täistööaeg",),
        "el": (" - πλήρης απασχόληση",),
        "bg": (" - пълен работен ден",),
    },
    "permanent": {
        "en": (" - Permanent", " (Permanent)", " - Permanent Contract"),
        "fr": (" (CDI)", " - CDI", " en CDI", " CDI"),
        "de": (" (unbefristet)", " - Festanstellung"),
        "nl": (" - vast contract",),
        "pl": (" - umowa na czas nieokreślony",),
        "pt": (" - contrato sem termo",),
        "ro": (" - perioadă nedeterminată",),
        "hu": (" - határozatlan idejű",),
        "hr": (" - na neodređeno",),
        "lv": (" - beztermiņa",),
        "lt": (" - neterminuota",),
        "et": (" - tähtajatu",),
        "el": (" - αορίστου χρόνου",),
        "bg": (" - безсрочен договор",),
    },
}
"""Title decorations per contract marker and language: what boards append to a title."""
_INCOMPATIBLE = {"full": {"part"}, "permanent": {"fixed", "bank", "locum", "agency", "freelance"}}

SENIORITY_FORMS: dict[str, tuple[str, str]] = {
    "senior": ("Senior ", ""),
    "junior": ("Junior ", ""),
    "confirme": ("", " confirmé(e)"),
    "experimente": ("", " expérimenté"),
    "erfahren": ("Erfahrene/r ", ""),
    "ervaren": ("Ervaren ", ""),
}
"""A seniority word of the text → how a board adds it to the title (prefix, suffix)."""

COUNTRY_NAMES = {
    "en": "United Kingdom",
    "fr": "France",
    "de": "Deutschland",
    "nl": "Nederland",
    "pl": "Polska",
    "pt": "Portugal",
    "ro": "România",
    "hu": "Magyarország",
    "hr": "Hrvatska",
    "lv": "Latvija",
    "lt": "Lietuva",
    "et": "Eesti",
    "el": "Κύπρος",
    "bg": "България",
}
"""The country an aggregator names instead of the town, by the ad's language (our corpora:
NHS is the UK, EURES Greek ads are Cypriot)."""

GROUP_FORMS = ("{} Group", "Groupe {}", "{} France", "{} UK", "{} Services", "{} Holding", "{} SA")
SALARY_LINES = {
    "en": "Salary: £{amount:,} per annum",
    "fr": "Salaire : {amount} € brut annuel",
    "de": "Gehalt: {amount} € brutto jährlich",
    "nl": "Salaris: € {amount} bruto per jaar",
}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def contract_in_title(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """A contract or schedule word appended to the title, in the ad's language, never one
    that contradicts what the text states ("(CDI)" is not added to a CDD ad)."""
    stated = description_markers(str(posting.get("description", "")))
    choices = [m for m, bad in _INCOMPATIBLE.items() if not stated & bad]
    if not choices:
        return posting
    table = CONTRACT_DECORATIONS[rng.choice(choices)]
    language = ctx.language if ctx.language in table else "en"
    if language != "en" and rng.random() < 0.15:
        language = "en"  # boards of every country use the English words too
    return {**posting, "title": posting["title"].rstrip() + rng.choice(table[language])}


def seniority_in_title(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """A seniority word the text already uses ("senior", "confirmé") added to the title."""
    text = str(posting.get("description", "")).lower()
    found = [w for w in SENIORITY_FORMS if re.search(rf"\b{w}", fold_accents(text))]
    if not found:
        return contract_in_title(posting, rng, ctx)
    prefix, suffix = SENIORITY_FORMS[rng.choice(found)]
    return {**posting, "title": f"{prefix}{posting['title'].strip()}{suffix}"}


def occupation_title(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """The job centre's occupation title in place of the employer's ("Infirmier H/F en SSR -
    CDI" relayed as "Infirmier / Infirmière de soins généraux"), where the ad carries it
    (`extra.occupation`, from the French corpora); else a contract word in the title."""
    occupation = occupation_of(posting)
    if not occupation:
        return contract_in_title(posting, rng, ctx)
    return {**posting, "title": occupation + rng.choice(("", " (H/F)", " H/F"))}


def occupation_of(posting: Posting) -> str | None:
    """The job centre's occupation label an ad carries (`extra.occupation`), if any."""
    extra = posting.get("extra")
    occupation = extra.get("occupation") if isinstance(extra, dict) else None
    return str(occupation) if occupation else None


def relabelled_title(posting: Posting) -> str | None:
    """The occupation label of an ad when the label is not already its title: a relay under
    such a label is the habit worth learning. Most labelled ads of the partner corpus *are*
    relays (616 of Meteojob's 639 carry the label as their title), and relabelling those
    changed nothing: 791 of the 991 training pairs meant to teach the habit had
    `title_token_set_ratio` 1 (model 6b0ed75daecd's three draws)."""
    occupation = occupation_of(posting)
    if occupation is None:
        return None
    if normalise_title(occupation) in normalise_title(str(posting.get("title", ""))):
        return None
    return occupation


def without_occupation(posting: Posting) -> Posting:
    """`posting` without its occupation label: a label belongs to the title it was given for,
    so a posting made into another role ("other_role", "other_seniority") has no known one.
    Left on, a relay habit wrote the *first* role's label over the second role's title, and
    training read the relay of a vacancy as another vacancy."""
    extra = posting.get("extra")
    if not isinstance(extra, dict) or "occupation" not in extra:
        return posting
    return {**posting, "extra": {k: v for k, v in extra.items() if k != "occupation"}}


def town_in_title(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """The town of the location put in the title, as boards do ("Data Analyst H/F - Lyon")."""
    place = town(posting.get("location"))
    if not place:
        return posting
    place = place.title()
    title = posting["title"].strip()
    forms = (
        f"{title} - {place}",
        f"{title} H/F - {place}",
        f"{title} ({place})",
        f"{place} - {title}",
    )
    return {**posting, "title": rng.choice(forms)}


EMPLOYER_FORMS = ("{company} - {title}", "{title} - {company}", "{title} | {company}")
"""How boards join an employer's name to a title, in every language alike."""


def employer_in_title(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """The employer's name put in the title, as aggregators and job centres do
    ("Association Béthanie - Kinésithérapeute (H/F)", "Data Engineer | Acme")."""
    company = str(posting.get("company") or "").strip()
    if not company:
        return posting
    title = rng.choice(EMPLOYER_FORMS).format(company=company, title=posting["title"].strip())
    return {**posting, "title": title}


def coarser_location(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """The place at another granularity: its département or county, its region, or the
    country (aggregators), from the shipped gazetteer; the country alone when the town is
    not in it."""
    location = posting.get("location")
    if not location:
        return posting
    areas = _enclosing_names(str(location))
    country = COUNTRY_NAMES.get(ctx.language, "")
    options = [*areas, *([country] if country else [])]
    if not options:
        return posting
    area = rng.choice(options)
    if area != country and country and rng.random() < 0.4:
        area = f"{area}, {country}"
    return {**posting, "location": area}


NEARBY_KM = (3.0, 20.0)
"""How far from the stated place of work boards' communes lie (`classifier.stated_place`:
1-21 km in the French corpora's listings)."""


SMALL_COMMUNE_SHARE = 0.3
"""Share of `nearby_commune`'s listings under a commune the gazetteer lacks, where the
corpora list one in the stated place's département: 414 of the French boards' 3,305 ads
are listed so ("07 - LYAS"), under 246 such listings in 35 départements."""


def small_communes(postings: Iterable[Posting]) -> dict[str, tuple[str, ...]]:
    """The listings of `postings` that name a commune too small for the gazetteer under its
    département ("07 - LYAS": cities1000 holds no commune under 1,000 inhabitants), by the
    département's key, sorted: what `nearby_commune` lists a vacancy under, as job centres
    list theirs."""
    found: dict[str, set[str]] = defaultdict(set)
    for posting in postings:
        location = str(posting.get("location") or "")
        place = gazetteer.resolve(location)
        if place is not None and place.unresolved and place.level == "admin2":
            found[place.key].add(location)
    return {key: tuple(sorted(names)) for key, names in sorted(found.items())}


def nearby_commune(
    posting: Posting, rng: random.Random, ctx: Context, written_title: str | None = None
) -> Posting:
    """The vacancy listed under a commune near the place of work its text states ("basée sur
    Bussy Saint Georges" listed under Noisiel, Villevaudé or Gretz-Armainvilliers): a board's
    geocoder, or one listing per commune around the site. Only for a text that states its
    place of work near its own listing; the text is unchanged. Sometimes
    (`SMALL_COMMUNE_SHARE`) the commune is one the gazetteer lacks, named under the stated
    place's département (`Context.small_communes`): Appel Médical's radiographer "situé à
    PRIVAS" is listed under Lyas, Pranles and Rompon, whose place is only "Ardèche".

    A town the title names counts as stated only in `written_title`, the title as the
    employer wrote it (`with_habits`): a board that appends its listing's town to the title
    ("Trainee Pharmacy Technician - Peterlee") lists the vacancy under that town. Read from
    the copy's own title, the decoration made a copy titled with one town and listed under
    its neighbour, against a copy naming no place: a campaign's two ads as the features see
    them. 208 copies among one draw's 12,667 re-posts were such, and model 74d3c2e3266e
    scored 80% of their pairs under its threshold."""
    text = str(posting.get("description") or "")
    location = str(posting.get("location") or "")
    title = str(posting.get("title") or "") if written_title is None else written_title
    listing = listing_place(location, text, title=title)
    stated = listing.statement.place
    if stated is None:
        return _near_stated_site(posting, rng, listing.place, listing.statement.site)
    small = [c for c in ctx.small_communes.get(stated.admin2 or "", ()) if c != location]
    if small and rng.random() < SMALL_COMMUNE_SHARE:
        return {**posting, "location": rng.choice(small)}
    return _listed_near(posting, rng, stated)


def _near_stated_site(
    posting: Posting, rng: random.Random, listed: gazetteer.Place | None, site: str
) -> Posting:
    """`nearby_commune` for a text naming a site the gazetteer lacks ("Lieu : Sophia
    Antipolis"): the vacancy listed under a town `NEARBY_KM` from the ad's own listing (a
    town or district), text unchanged, as Thales' one text is under Vallauris and Valbonne."""
    if not site or listed is None or listed.level not in LEVELS:
        return posting
    return _listed_near(posting, rng, listed)


def _listed_near(posting: Posting, rng: random.Random, place: gazetteer.Place) -> Posting:
    """`posting` listed under one of the 12 nearest towns `NEARBY_KM` from `place`."""
    options = gazetteer.towns_near(place, *NEARBY_KM)
    if not options:
        return posting
    return {**posting, "location": rng.choice(options[:12]).name}


def company_variant(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """The employer named with a group, country or business suffix ("Acme" / "Acme Group")."""
    company = str(posting.get("company") or "").strip()
    if not company:
        return posting
    return {**posting, "company": rng.choice(GROUP_FORMS).format(company)}


def unnamed_employer(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """The copy without the employer in its company field, the text as it is: job centres'
    anonymous offers and their partners' relays name none (1,635 of the 3,305 French ads),
    and an aggregator's copy may drop it. Applied to positives and hard negatives alike, so
    that one side naming no employer says nothing either way: before, no training pair had
    it, and the model read `company_missing` = 1 against a duplicate (-0.26 of log-odds on
    every snippet pair of `bench/robustness.py`'s aggregator_unnamed)."""
    return {key: value for key, value in posting.items() if key != "company"}


def rewrite_intro(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """The opening paragraph (the employer's intro) replaced by another intro: the employer's
    own from another of its ads, or a generic one; the job text is kept. A first paragraph
    holding more than half of the text is no intro: a text of single-spaced lines that
    boilerplate was appended to splits into the whole ad and that boilerplate, and replacing
    its "intro" left the boilerplate alone."""
    text = str(posting.get("description", ""))
    parts = paragraphs(text)
    if len(parts) < 3 or 2 * len(parts[0]) > len(text):
        return posting
    if states_its_vacancy(parts[0], str(posting.get("title") or "")):
        return posting  # a headline or the bases ("Poste basé à Annonay ou Saint-Félicien")
    pool = list(ctx.employer_paragraphs) or list(BOILERPLATE.get(ctx.language, BOILERPLATE["en"]))
    parts[0] = rng.choice(pool)
    return {**posting, "description": "\n\n".join(parts)}


@lru_cache(maxsize=1 << 16)
def states_its_vacancy(paragraph: str, title: str) -> bool:
    """Whether a paragraph of an ad titled `title` states its vacancy rather than its
    employer: the title, a grade, pay, contract terms, a cover or a place of work. Such a
    paragraph is no intro to rewrite (`rewrite_intro`: "The post can be based at Winchester
    or Bedford" is what ties one vacancy's copies under two towns), nor boilerplate to
    borrow into another ad (`classifier.pairs`): "Clinical Pharmacist | Pharmacy | Band 7
    dependent on experience | Bristol | Full Time" put another role and grade into a
    Senior Radiographer's duplicate. In one draw of training pairs (seed 20201106, scored
    by model 74d3c2e3266e, re-posts without `nearby_commune`), the re-posts with a
    rewritten intro fell under the threshold 12.6% of the time, against 4.3% of all.
    Cached: a sibling lends its paragraphs to many pairs, over every draw."""
    fields = extract_fields({"id": "", "title": title, "description": paragraph})
    return bool(
        fields.description_grades
        or fields.salary
        or fields.description_contract
        or fields.cover_sentences
        or fields.place_named
        or (fields.title_tokens and fields.title_tokens <= fields.description_tokens)
    )


def drop_sentence_add_salary(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """One sentence dropped and a salary line added: the copy's own salary field, or, when
    the ad states no pay at all, an amount of the ad's own (`_stated_amount`), so that the
    line adds a fact on one side instead of contradicting the other.

    Drawn afresh for each copy, and added to a copy that had left the ad's salary field
    out, the line gave one vacancy two salaries: of one draw of training pairs, 108 re-posts
    disagreed so ("Salary: £46,000 per annum" against "£24,907 - £30,615", "£59,000"
    against "£31,000"), and the model missed 43 of them."""
    text = str(posting.get("description", ""))
    sentences = _SENTENCE_END.split(text)
    if len(sentences) > 3:
        del sentences[rng.randrange(1, len(sentences))]
        text = " ".join(sentences)
    salary = posting.get("salary")
    if salary:
        line = f"{'Salaire' if ctx.language == 'fr' else 'Salary'} : {salary}"
    elif ctx.pay or re.search(r"[£€$]|\b(?:salary|salaire|gehalt|eur|gbp)\b", text, re.IGNORECASE):
        line = ""
    else:
        template = SALARY_LINES.get(ctx.language, SALARY_LINES["en"])
        line = template.format(amount=_stated_amount(posting))
    return {**posting, "description": f"{text}\n\n{line}".strip()}


def _stated_amount(posting: Posting) -> int:
    """A yearly amount (22,000-69,000) fixed by the ad's id, which every copy of one ad
    keeps until its pair is finished: two copies of one vacancy state one salary."""
    return (22 + xxhash.xxh32_intdigest(str(posting.get("id") or "").encode()) % 48) * 1000


HABITS = (
    contract_in_title,
    seniority_in_title,
    occupation_title,
    town_in_title,
    coarser_location,
    nearby_commune,
    employer_in_title,
    company_variant,
    unnamed_employer,
    rewrite_intro,
    drop_sentence_add_salary,
)
_PLACE_HABITS = (coarser_location, nearby_commune)
HABIT_RATE = 0.12
"""Chance of each habit per re-posted side: about half the re-posts show at least one."""


def with_habits(
    posting: Posting,
    rng: random.Random,
    ctx: Context,
    places: bool = True,
    written_title: str | None = None,
) -> Posting:
    """`posting` with each board habit applied at `HABIT_RATE`, in a fixed order. `places`
    False leaves the location alone: a pair of two sites of a campaign would become a town
    against the region that holds both, which no longer says whether they are one vacancy.
    `written_title` is the title before this copy's re-posting (`nearby_commune` reads its
    place there); None reads the copy's own."""
    for habit in HABITS:
        if rng.random() < HABIT_RATE and (places or habit not in _PLACE_HABITS):
            if habit is nearby_commune:
                posting = nearby_commune(posting, rng, ctx, written_title)
            else:
                posting = habit(posting, rng, ctx)
    return posting


def _enclosing_names(location: str) -> list[str]:
    """Display names of the département or county and the region holding a town found in
    the gazetteer (from its area keys, "FR/2/auvergne rhone alpes/ardeche" → "Ardeche")."""
    place = gazetteer.resolve(location)
    if place is None or place.level not in ("town", "district"):
        return []
    keys = [k for k in (place.admin2, place.admin1) if k]
    return [k.rsplit("/", 1)[-1].title() for k in keys]
