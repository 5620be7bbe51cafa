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

from classifier import variants
from classifier.fields import place_keys
from classifier.lexicon import GENERIC_COMPANY_WORDS

Posting = dict[str, Any]

SENIORITY_PREFIXES = (
    "Senior ",
    "Junior ",
    "Lead ",
    "Trainee ",
    "Deputy ",
    "Assistant ",
    "Head of ",
    "Principal ",
    "Chef de ",
    "Responsable ",
    "Stagiaire ",
    "Leiter ",
    "Werkstudent ",
    "Apprentice ",
)
CONTRACT_TITLES = (
    ("Bank ", ""),
    ("Locum ", ""),
    ("", " - Fixed Term (12 months)"),
    ("", " - Maternity Cover"),
    ("", " - Part Time"),
    ("", " - Nights"),
    ("", " - Days only"),
    ("", " (Temporary)"),
    ("", " - Agency"),
    ("", " (CDD)"),
    ("", " (befristet)"),
    ("", " (Teilzeit)"),
    ("", " - tijdelijk"),
    ("", " - Interim"),
    ("", " - Volunteer"),
)
CONTRACT_SENTENCES = (
    "This is a bank position: shifts are offered as and when required.",
    "This is a fixed term contract for 12 months to cover maternity leave.",
    "This is a part time post of 22.5 hours per week.",
    "Il s'agit d'un CDD de 6 mois.",
    "Die Stelle ist auf zwei Jahre befristet.",
    "Het betreft een tijdelijk contract voor een jaar.",
)
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
    """Another place of work; sometimes the town is replaced in the text as well."""
    current = str(posting.get("location") or "")
    codes, towns = place_keys(current)
    choices = []
    for location in donors.locations:
        other_codes, other_towns = place_keys(location)
        if codes.isdisjoint(other_codes) and towns.isdisjoint(other_towns) and other_towns:
            choices.append(location)  # clearly another place, not the same one rewritten
    if not choices:
        return None
    location = rng.choice(choices)
    result = {**posting, "location": location}
    old_town, new_town = _first_word(current), _first_word(location)
    if old_town and new_town and rng.random() < 0.4:
        pattern = re.compile(rf"\b{re.escape(old_town)}\b")
        result["description"] = pattern.sub(new_town, posting["description"])
        result["title"] = pattern.sub(new_town, posting["title"])
    return posting, result


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
    """Bank, locum, fixed-term, part-time, night or volunteer version of the post."""
    prefix, suffix = rng.choice(CONTRACT_TITLES)
    result = {**posting, "title": f"{prefix}{posting['title']}{suffix}"}
    if rng.random() < 0.4:
        sentence = rng.choice(CONTRACT_SENTENCES)
        result["description"] = f"{sentence}\n\n{posting['description']}"
    if posting.get("salary") and rng.random() < 0.5:
        result["salary"] = _scale_amounts(str(posting["salary"]), rng.uniform(0.5, 0.9))
    return posting, result


TERMS_SENTENCES = (
    "This post is offered to cover maternity leave.",
    "This is a fixed term contract for 12 months.",
    "This is a bank position: shifts are offered as and when required.",
    "This post is offered on a locum basis.",
    "Il s'agit d'un CDD de 6 mois.",
    "Die Stelle ist befristet.",
    "Het betreft een tijdelijk contract.",
)


def other_terms(
    posting: Posting, rng: random.Random, donors: Donors
) -> tuple[Posting, Posting] | None:
    """Same title and text but other terms stated in the body only (one ad is a maternity
    cover or a bank post, the other the substantive vacancy)."""
    parts = variants.paragraphs(posting["description"])
    position = rng.randrange(len(parts) + 1) if parts else 0
    parts.insert(position, rng.choice(TERMS_SENTENCES))
    return posting, {**posting, "description": "\n\n".join(parts)}


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
    """A more or less senior version of the role."""
    title = str(posting["title"])
    prefix = rng.choice(SENIORITY_PREFIXES)
    if title.lower().startswith(prefix.lower()):
        return None
    result = {**posting, "title": prefix + title}
    if rng.random() < 0.3:
        result["description"] = posting["description"].replace(title, prefix + title)
    return posting, result


def other_role(
    posting: Posting, rng: random.Random, donors: Donors
) -> tuple[Posting, Posting] | None:
    """Another of the employer's roles advertised with the same text."""
    current = str(posting["title"]).lower()
    choices = [t for t in donors.titles if t and t.lower() != current]
    if not choices:
        return None
    return posting, {**posting, "title": rng.choice(choices)}


def other_specialty(
    posting: Posting, rng: random.Random, donors: Donors
) -> tuple[Posting, Posting] | None:
    """The same role for another specialty or department ("Staff Nurse - Cardiology")."""
    first, second = rng.sample(SPECIALTIES, k=2)
    title = posting["title"]
    return {**posting, "title": f"{title} - {first}"}, {**posting, "title": f"{title} - {second}"}


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
    for word in sorted(_distinctive(current), key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(word)}\b", replacement, text, flags=re.IGNORECASE)
    result = {**posting, "company": company, "location": location, "description": text}
    if rng.random() < 0.3:  # an agency advertising for another client with the same template
        intro = variants.CLIENT_INTROS["en"].format(client=company)
        result["company"] = rng.choice(variants.RECRUITERS)
        result["description"] = f"{intro}\n\n{text}"
    return posting, result


def _distinctive(company: str) -> set[str]:
    """Words of a company name that identify it (see `lexicon.GENERIC_COMPANY_WORDS`)."""
    return {
        word
        for word in re.split(r"[^\w]+", company)
        if len(word) > 2 and word.lower() not in GENERIC_COMPANY_WORDS
    }


MUTATIONS: tuple[tuple[Mutation, float], ...] = (
    (other_location, 0.26),
    (other_base, 0.05),
    (other_grade, 0.13),
    (other_contract, 0.12),
    (other_terms, 0.06),
    (other_seniority, 0.09),
    (other_role, 0.13),
    (other_specialty, 0.07),
    (other_employer, 0.09),
)
"""Mutations with their weights: location first, as in real multi-site campaigns."""


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
