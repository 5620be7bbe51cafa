"""Stub relays as training transformations: an ad reduced to its title and a few keywords.

A job centre relays some partner-board ads as a stub ("En bref : Commercial(e) vente
menuiserie aluminium, Relation client, Autonomie": 55 of the 1,450 Pôle emploi partner ads,
median 76 characters), under its own occupation label and often without the company. The
training corpora had none against their ads, so the model read such a pair by its text
features, which a dozen words leave near 0, and by its titles, which the label changes:
`bench/robustness.py`'s teaser_relay family was found at 0.47-0.55 by `evaluate`.

What the relay keeps of the ad is its title, as one of its phrases, and its place; what
makes another vacancy is a stub naming another title of the employer (its template's other
role) or the same title at another of its sites. Both are made here, in every language the
corpora hold (the lead words and keywords below; bare lists elsewhere), so the model learns
`stub_names_title` together with the place, not the "En bref" of one board. Pure: a seeded
`random.Random` decides everything.
"""

from __future__ import annotations

import random
import re

from classifier import board_habits, mutations
from classifier.lexicon import GENDER_MARKER, STUB_LEADS
from classifier.variants import Context, Posting

SEPARATORS = (", ", " | ", " ; ", " • ", "\n")

KEYWORDS: dict[str, tuple[str, ...]] = {
    "fr": (
        "Travail en équipe",
        "Sens du service",
        "Autonomie",
        "Rigueur",
        "Polyvalence",
        "Permis B",
        "Esprit d'équipe",
        "Organisation",
        "Écoute",
        "Gestion des priorités",
    ),
    "en": (
        "Teamwork",
        "Communication skills",
        "Attention to detail",
        "Customer service",
        "Flexibility",
        "Driving licence",
        "Time management",
        "Problem solving",
    ),
    "de": ("Teamfähigkeit", "Zuverlässigkeit", "Führerschein B", "Kundenorientierung"),
    "nl": ("Teamspeler", "Klantgericht", "Rijbewijs B", "Flexibiliteit"),
}
"""Generic keywords a board lists after the title, by language (none in the others: there
the stub lists phrases of the ad's own text only)."""

_CHUNKS = re.compile(r"[,;:()•·\n.!?]|\s[-–]\s")


def own_phrases(text: str) -> list[str]:
    """Short phrases of an ad's own text (two to four words between punctuation): what a
    board lists as the ad's keywords."""
    found = {
        part.strip(" -*")
        for part in _CHUNKS.split(text)
        if 2 <= len(part.split()) <= 4 and 6 <= len(part.strip()) <= 40
    }
    return sorted(found)


def stub(posting: Posting, rng: random.Random, ctx: Context, named: str) -> Posting:
    """`posting` relayed as a stub naming the title `named`: a lead word or none, the title
    (its gender marker dropped half the time), one to three phrases of the ad's text and up
    to two generic keywords, joined by one separator; the title first four times in five.
    The relay's own title is the ad's occupation label where it has one (else its title),
    and the company is dropped two times in three."""
    language = ctx.language if ctx.language in STUB_LEADS else ""
    if rng.random() < 0.5:
        named = GENDER_MARKER.sub("", named).strip(" -")
    phrases = own_phrases(str(posting.get("description") or ""))
    items = rng.sample(phrases, min(len(phrases), rng.randint(1, 3)))
    generic = KEYWORDS.get(language, ())
    items += rng.sample(generic, min(len(generic), rng.randint(0, 2)))
    rng.shuffle(items)
    items.insert(0 if rng.random() < 0.8 else rng.randint(0, len(items)), named)
    lead = rng.choice(STUB_LEADS.get(language, ("",)))
    description = lead + rng.choice(SEPARATORS).join(items)
    label = board_habits.occupation_of(posting)
    result = {**posting, "description": description, "title": label or posting["title"]}
    if rng.random() < 2 / 3:
        result.pop("company", None)
    return result


def relay(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """The stub relay of `posting`: naming its own title (a duplicate)."""
    return stub(posting, rng, ctx, str(posting["title"]))


def other_role(
    posting: Posting, rng: random.Random, ctx: Context, donors: mutations.Donors
) -> Posting | None:
    """A stub naming another title of the employer, with phrases of the same template text:
    another vacancy. The label of the ad's occupation goes, since it was given for the
    other title (`board_habits.without_occupation`)."""
    current = str(posting["title"]).lower()
    titles = [t for t in donors.titles if t and t.lower() != current]
    if not titles:
        return None
    title = rng.choice(titles)
    made = stub(board_habits.without_occupation(posting), rng, ctx, title)
    return {**made, "title": title if rng.random() < 0.5 else made["title"]}


def other_site(
    posting: Posting, rng: random.Random, ctx: Context, donors: mutations.Donors
) -> Posting | None:
    """A stub naming the ad's title at another of the employer's sites: another vacancy of
    one campaign."""
    moved = mutations.other_location(posting, rng, donors)
    return None if moved is None else relay(moved[1], rng, ctx)
