"""Re-posting transformations of a real ad: what boards and aggregators do to one vacancy.

Pure functions of (posting dict, seeded `random.Random`) → a new posting dict. `repost`
keeps the vacancy (the ad is truncated, re-wrapped, padded with boilerplate, retitled with
decorations, lightly edited, re-dated); training applies it to *both* labels at the same
rates, so the model cannot learn "was transformed" as "is a duplicate". The vacancy-changing
mutations live in `classifier.mutations`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from classifier import gazetteer
from classifier.lexicon import GENERIC_COMPANY_WORDS

Posting = dict[str, Any]

BOILERPLATE: dict[str, tuple[str, ...]] = {
    "en": (
        "About us: we are a growing, people-first organisation and we are proud of the "
        "difference our teams make every day.",
        "We are an equal opportunities employer and welcome applications from all sections "
        "of the community, regardless of age, disability, gender, race, religion or sexual "
        "orientation.",
        "What we offer: competitive salary, generous annual leave, pension scheme, flexible "
        "working, cycle to work scheme and an employee assistance programme.",
        "Please note that this vacancy may close early if we receive a high volume of "
        "applications, so we encourage you to apply as soon as possible.",
        "Disclaimer: this job was found on a partner site. Click apply to be redirected to "
        "the employer's application page.",
    ),
    "fr": (
        "Qui sommes-nous ? Une entreprise à taille humaine qui place ses collaborateurs au "
        "coeur de son développement.",
        "Conformément à nos engagements, tous nos postes sont ouverts aux personnes en "
        "situation de handicap.",
        "Avantages : tickets restaurant, mutuelle d'entreprise, RTT, télétravail partiel et "
        "prime de participation.",
        "Offre diffusée par notre partenaire. Cliquez sur postuler pour accéder au site du "
        "recruteur.",
    ),
    "de": (
        "Über uns: Wir sind ein familiengeführtes Unternehmen mit flachen Hierarchien und "
        "einem starken Teamgeist.",
        "Wir leben Vielfalt und freuen uns über Bewerbungen unabhängig von Geschlecht, "
        "Nationalität, Religion, Behinderung, Alter und sexueller Identität.",
        "Wir bieten: 30 Tage Urlaub, betriebliche Altersvorsorge, Jobrad, flexible "
        "Arbeitszeiten und Weiterbildungsmöglichkeiten.",
        "Diese Stellenanzeige wurde von unserem Partnerportal übernommen. Bitte bewerben Sie "
        "sich direkt beim Arbeitgeber.",
    ),
    "nl": (
        "Over ons: wij zijn een ambitieuze organisatie waar collega's elkaar helpen en "
        "samen groeien.",
        "Wij vinden diversiteit belangrijk en nodigen iedereen uit om te solliciteren, "
        "ongeacht leeftijd, afkomst, geslacht of beperking.",
        "Wat bieden wij: een goed salaris, vakantiegeld, een pensioenregeling, "
        "opleidingsbudget en de mogelijkheid om deels thuis te werken.",
    ),
}
"""Generic intro, equal-opportunity, benefits and aggregator snippets per language."""

TITLE_DECORATIONS = (
    " (H/F)",
    " H/F",
    " (F/H)",
    " (m/w/d)",
    " (w/m/d)",
    " (m/f/d)",
    " (M/V)",
    " (m/v/x)",
    " - Remote",
    " - New",
)
TITLE_PREFIXES = ("URGENT: ", "Urgent - ", "NEW: ", "Hiring: ", "Job: ", "Vacature: ")
LEGAL_FORMS = (" Ltd", " Limited", " GmbH", " SAS", " B.V.", " S.A.", " plc", " AG", " NV")
SYNONYMS: dict[str, str] = {
    "job": "role",
    "role": "position",
    "position": "post",
    "team": "department",
    "opportunity": "chance",
    "excellent": "outstanding",
    "experience": "background",
    "looking for": "seeking",
    "apply": "send your application",
    "poste": "emploi",
    "équipe": "service",
    "stelle": "position",
    "aufgaben": "tätigkeiten",
    "functie": "baan",
}
_GRADE = re.compile(r"\b(band|grade|level)\s*(\d{1,2}[a-d]?)\b", re.IGNORECASE)
_POSTCODE = re.compile(r"\b[A-Z]{1,2}\d[A-Z\d]?(?:\s*\d[A-Z]{2})?\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Context:
    """What a transformation may borrow: the ad's language and real paragraphs of other ads
    of the same employer (its own boilerplate)."""

    language: str = "en"
    employer_paragraphs: Sequence[str] = field(default_factory=tuple)
    small_communes: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Real listings of communes the gazetteer lacks ("07 - LYAS"), by the key of the
    département they are named under (`board_habits.small_communes`)."""
    pay: str | None = None
    """The ad's salary field as its employer wrote it: a copy that left it out still
    advertises that pay, so no habit gives it another
    (`board_habits.drop_sentence_add_salary`)."""


Transform = Callable[[Posting, random.Random, Context], Posting]


def paragraphs(text: str) -> list[str]:
    """Non-empty paragraphs (blank-line separated, or lines when there are no blank lines)."""
    parts = re.split(r"\n\s*\n", text) if "\n\n" in text else text.split("\n")
    return [p.strip() for p in parts if p.strip()]


def snippet(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """A 250-600 character cut at a word boundary, mid-sentence, as search engines and
    aggregator APIs (Adzuna: 250-500 characters and "…") show."""
    text = posting["description"]
    limit = rng.randint(250, 600)
    if len(text) <= limit + 50:
        return first_paragraphs(posting, rng, ctx)
    cut = text.rfind(" ", 0, limit)
    end = rng.choice(("…", "…", "...", " [...]", "... Read more", ""))
    return {**posting, "description": text[: cut if cut > 100 else limit].rstrip() + end}


def first_paragraphs(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """Only the first one or two paragraphs (a teaser; the rest is on the employer's site)."""
    parts = paragraphs(posting["description"])
    if len(parts) < 3:
        return posting
    keep = rng.randint(1, min(3, len(parts) - 1))
    while keep < len(parts) - 1 and sum(len(p) for p in parts[:keep]) < 300:
        keep += 1  # a teaser is a few sentences, not a one-line heading
    return {**posting, "description": "\n\n".join(parts[:keep])}


def add_boilerplate(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """An intro before and/or equal-opportunity/benefits text after; generic snippets in the
    ad's language (English otherwise) or a real paragraph from another ad of the employer."""
    pool = list(BOILERPLATE.get(ctx.language, BOILERPLATE["en"]))
    if ctx.employer_paragraphs and rng.random() < 0.5:
        pool = list(ctx.employer_paragraphs)
    before = rng.random() < 0.4
    chosen = rng.sample(pool, k=min(len(pool), rng.randint(1, 2)))
    extra = "\n\n".join(chosen)
    text = posting["description"]
    return {**posting, "description": f"{extra}\n\n{text}" if before else f"{text}\n\n{extra}"}


def drop_paragraph(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """One paragraph other than the first removed (boards strip "how to apply" sections)."""
    parts = paragraphs(posting["description"])
    if len(parts) < 4:
        return posting
    del parts[rng.randrange(1, len(parts))]
    return {**posting, "description": "\n\n".join(parts)}


def reorder(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """Two paragraphs swapped, or the last moved to the top."""
    parts = paragraphs(posting["description"])
    if len(parts) < 3:
        return posting
    if rng.random() < 0.5:
        i = rng.randrange(len(parts) - 1)
        parts[i], parts[i + 1] = parts[i + 1], parts[i]
    else:
        parts.insert(0, parts.pop())
    return {**posting, "description": "\n\n".join(parts)}


def rewrap(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """Different markup of the same text: HTML paragraphs and lists, one line, or bullets."""
    parts = paragraphs(posting["description"])
    style = rng.randrange(4)
    if style == 0:
        html = []
        for part in parts:
            if part.startswith(("-", "•", "*")):
                html.append(f"<ul><li>{part.lstrip('-•* ')}</li></ul>")
            else:
                html.append(f"<p>{part}</p>")
        text = "".join(html)
    elif style == 1:
        text = " ".join(parts)
    elif style == 2:
        text = "\n".join(f"• {p.lstrip('-•* ')}" if len(p) < 120 else p for p in parts)
    else:
        text = "\n\n".join(p.replace("\n", " ") for p in parts).replace("&", "&amp;")
        text = f"<div>{text}</div>"
    return {**posting, "description": text}


def edit_words(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """Light edits: a typo or two, a synonym, or one sentence deleted."""
    text = posting["description"]
    kind = rng.randrange(3)
    if kind == 0:
        words = text.split(" ")
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(words))
            word = words[i]
            if len(word) > 3 and word.isalpha():
                j = rng.randrange(len(word) - 1)
                words[i] = word[:j] + word[j + 1] + word[j] + word[j + 2 :]
        text = " ".join(words)
    elif kind == 1:
        for old, new in rng.sample(sorted(SYNONYMS.items()), k=4):
            text = re.sub(rf"\b{re.escape(old)}\b", new, text, count=2)
    else:
        sentences = _SENTENCE_END.split(text)
        if len(sentences) > 3:
            del sentences[rng.randrange(1, len(sentences))]
            text = " ".join(sentences)
    return {**posting, "description": text}


def retitle(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """Title decorations that keep the vacancy: gender markers, "URGENT:", case, the grade
    moved ("Band 5 Staff Nurse" / "Staff Nurse (Band 5)"), the town appended."""
    title = posting["title"].strip()
    kind = rng.randrange(5)
    if kind == 0:
        title += rng.choice(TITLE_DECORATIONS)
    elif kind == 1:
        title = rng.choice(TITLE_PREFIXES) + title
    elif kind == 2:
        title = title.upper() if rng.random() < 0.5 else title.title()
    elif kind == 3 and (grade := _GRADE.search(title)):
        rest = (title[: grade.start()] + title[grade.end() :]).strip(" -–(),")
        marker = grade.group(0)
        title = rng.choice((f"{marker} {rest}", f"{rest} ({marker})", f"{rest} - {marker}"))
    else:
        place = town(posting.get("location"))
        if place:
            title = f"{title} - {place}"
        else:
            title += rng.choice(TITLE_DECORATIONS)
    return {**posting, "title": title}


def restate_fields(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """Metadata written differently: legal form added or removed, location as postcode only,
    town only or with the country, salary re-formatted or left out."""
    result = dict(posting)
    company = result.get("company")
    if company and rng.random() < 0.5:
        stripped = company.strip()
        for form in LEGAL_FORMS:
            if stripped.endswith(form):
                result["company"] = stripped[: -len(form)]
                break
        else:
            result["company"] = (
                stripped.upper() if rng.random() < 0.3 else stripped + rng.choice(LEGAL_FORMS)
            )
    location = result.get("location")
    if location and rng.random() < 0.6:
        result["location"] = _restate_location(location, rng, ctx.language)
    salary = result.get("salary")
    if salary and rng.random() < 0.5:
        if rng.random() < 0.3:
            del result["salary"]
        else:
            result["salary"] = _restate_salary(salary, rng)
    return result


def redate(posting: Posting, rng: random.Random, base: str | None) -> Posting:
    """Posted the same day, within two weeks, or re-posted 31-90 days later (temporal)."""
    if not base:
        return posting
    roll = rng.random()
    days = 0 if roll < 0.45 else rng.randint(1, 14) if roll < 0.85 else rng.randint(31, 90)
    moved = date.fromisoformat(base[:10]) + timedelta(days=days)
    return {**posting, "posted_at": moved.isoformat()}


TRUNCATIONS: tuple[Transform, ...] = (snippet, first_paragraphs)
EDITS: tuple[Transform, ...] = (drop_paragraph, reorder, edit_words)
DECORATIONS: tuple[Transform, ...] = (add_boilerplate, rewrap)


def repost(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """The same vacancy as another board would show it, in the order boards do it: maybe cut
    to a teaser (of the original text, so a snippet never holds only added boilerplate) or
    edited, then maybe padded with boilerplate and re-wrapped; maybe retitled, maybe with
    restated metadata. At least one change to the text. The date is left to `redate`."""
    result = dict(posting)
    steps: list[Transform] = []
    if rng.random() < 0.3:
        steps.append(rng.choice(TRUNCATIONS))
    elif rng.random() < 0.5:
        steps += rng.sample(EDITS, k=rng.choice((1, 1, 2)))
    steps += [t for t in DECORATIONS if rng.random() < 0.45]
    if not steps:
        steps.append(rng.choice((*TRUNCATIONS, *EDITS, *DECORATIONS)))
    for transform in steps:
        result = transform(result, rng, ctx)
    if rng.random() < 0.4:
        result = retitle(result, rng, ctx)
    if rng.random() < 0.6:
        result = restate_fields(result, rng, ctx)
    if not str(result.get("description", "")).strip():
        result["description"] = posting["description"]
    return result


RECRUITERS = (
    "Hays",
    "Randstad",
    "Adecco",
    "Reed Specialist Recruitment",
    "ManpowerGroup",
    "Michael Page",
    "Jobs Europe AB",
    "Talent Partners",
    "Lansera AB",
)
CLIENT_INTROS = {
    "en": "Our client, {client}, is recruiting for the following role.",
    "fr": "Notre client, {client}, recrute pour le poste suivant.",
    "de": "Unser Kunde, {client}, sucht für die folgende Position.",
    "nl": "Onze opdrachtgever, {client}, zoekt voor de volgende functie.",
}


UNNAMED_CLIENT_INTROS = {
    "en": (
        "We are recruiting for our client, a well-established organisation.",
        "Our client is looking for an experienced candidate for the role below.",
    ),
    "fr": (
        "Nous recrutons pour l'un de nos clients le poste décrit ci-dessous.",
        "Notre client recherche son futur collaborateur.",
    ),
    "de": ("Für unseren Kunden suchen wir zum nächstmöglichen Zeitpunkt:",),
    "nl": ("Voor onze opdrachtgever zoeken wij een nieuwe collega.",),
    "es": ("Para nuestro cliente buscamos un nuevo profesional.",),
    "it": ("Per conto di un nostro cliente ricerchiamo la figura seguente.",),
    "pt": ("O nosso cliente procura um novo colaborador.",),
    "pl": ("Dla naszego klienta poszukujemy osoby na stanowisko:",),
    "sv": ("Vår kund söker nu en ny medarbetare.",),
}
"""How an agency opens a client's ad when it keeps the client's name to itself; each
line is one `lexicon.CLIENT_VOICE` reads."""
UNNAMED_CLIENT = {
    "en": "our client",
    "fr": "notre client",
    "de": "unser Kunde",
    "nl": "onze opdrachtgever",
    "es": "nuestro cliente",
    "it": "il nostro cliente",
    "pt": "o nosso cliente",
    "pl": "nasz klient",
    "sv": "vår kund",
}
"""What the agency writes where the client's text named the client."""


def distinctive_words(company: str) -> set[str]:
    """Words of a company name that identify it (see `lexicon.GENERIC_COMPANY_WORDS`)."""
    return {
        word
        for word in re.split(r"[^\w]+", company)
        if len(word) > 2 and word.lower() not in GENERIC_COMPANY_WORDS
    }


def for_client(text: str, client: str, language: str, rng: random.Random) -> str:
    """`text` as an agency posts it for `client`: opened with an intro naming the client or,
    half the time, one keeping the name to itself (agencies do not let candidates apply
    round them): the whole name, then any run of its identifying words ("Riverside" of
    "Riverside Hospitals NHS Foundation Trust", as texts shorten it), reads "our client"."""
    if rng.random() < 0.5:
        intro = CLIENT_INTROS.get(language, CLIENT_INTROS["en"]).format(client=client)
        return f"{intro}\n\n{text}"
    unnamed = UNNAMED_CLIENT.get(language, UNNAMED_CLIENT["en"])
    names = sorted({client, client.split(",")[0].strip()} - {""}, key=len, reverse=True)
    words = sorted(distinctive_words(client), key=lambda w: (-len(w), w))
    # the whole name in any case; its words only as the name writes them ("Care" of "Care
    # UK", not the text's "care")
    for alternatives, flags in ((names, re.IGNORECASE), (words, re.NOFLAG)):
        if alternatives:
            one = "(?:" + "|".join(map(re.escape, alternatives)) + ")"
            pattern = rf"\b{one}(?:[\s-]+{one})*\b"
            text = re.sub(pattern, lambda _: unnamed, text, flags=flags)
    intro = rng.choice(UNNAMED_CLIENT_INTROS.get(language, UNNAMED_CLIENT_INTROS["en"]))
    return f"{intro}\n\n{text}"


def via_recruiter(posting: Posting, rng: random.Random, ctx: Context) -> Posting:
    """The vacancy re-advertised by an agency or aggregator under its own name, for the
    client (still the same vacancy: same end client, same place, same role)."""
    client = str(posting.get("company") or "").strip()
    if not client:
        return posting
    return {
        **posting,
        "company": rng.choice(RECRUITERS),
        "description": for_client(str(posting["description"]), client, ctx.language, rng),
    }


MULTISITE_SENTENCES = {
    "en": (
        "The post can be based at {a} or {b}.",
        "Base: the vacancy is for {a} and {b} and will be offered to the most suitable "
        "candidate irrespective of location.",
        "Location: {a} / {b} (your choice).",
    ),
    "fr": ("Poste basé à {a} ou {b}, au choix du candidat.",),
    "de": ("Einsatzort: {a} oder {b} (nach Wahl).",),
    "nl": ("Standplaats: {a} of {b}, naar keuze.",),
}
"""One vacancy offered at several bases: each board lists it under one of the towns."""
CAMPAIGN_SENTENCES = {
    "en": "We are recruiting at each of our sites in {a} and {b}.",
    "fr": "Nous recrutons sur chacun de nos sites de {a} et {b}.",
    "de": "Wir stellen an jedem unserer Standorte in {a} und {b} ein.",
    "nl": "Wij werven op elk van onze locaties in {a} en {b}.",
}
"""A campaign of separate vacancies, one ad per site, naming all sites in the shared text."""


def town(location: object) -> str | None:
    """The town or district the gazetteer reads in a location string, under its own name,
    as a board writes it alone or in a title ("Willenhall, West Midlands WV13 3AG" →
    "Willenhall", "07 - VALLON PONT D ARC" → "Vallon-Pont-d'Arc"); None when the gazetteer
    reads no town there (a county, a region, a commune too small for it).

    It used to be the comma part holding the postcode, else the first part, cut to its
    first two alphabetic words: "07 - ST SAUVEUR DE MONTAGUT" gave "ST SAUVEUR" (Saint-
    Sauveur in Haute-Saône), "07 - Les Ollières-sur-Eyrieux" gave "Les" (a village in
    Catalonia), "Willenhall, West Midlands WV13 3AG" the county. For 24.5% of the French
    boards' town listings and 11% of the NHS ones, a re-post's restated location or titled
    town was another place or none: a duplicate whose copies read as two places."""
    if not isinstance(location, str) or not location.strip():
        return None
    place = gazetteer.resolve(location)
    if place is None or place.level not in ("town", "district"):
        return None
    return place.name


def _restate_location(location: str, rng: random.Random, language: str) -> str:
    postcode = _POSTCODE.search(location)
    place = town(location)
    options = [location.upper()]
    if language == "en":
        options.append(f"{location}, {rng.choice(('UK', 'United Kingdom'))}")
    if "," in location and postcode:
        options.append(location.split(",", 1)[1].strip())
    if postcode:
        options.append(postcode.group(0))
        if place:
            options.append(f"{place}, {postcode.group(0)}")
    if place:
        options.append(place)
    return rng.choice(options)


_YEARLY = 10_000.0
"""Amounts from which a salary reads as yearly (`classifier.contacts`' `_YEARLY_FROM`)."""


def _restate_salary(salary: str, rng: random.Random) -> str:
    numbers = re.findall(r"\d[\d,]*(?:\.\d+)?(?!\d|[.,]?\d|\s?%)", salary)
    values = [n.replace(",", "") for n in numbers]
    if not values:
        return salary
    symbol, code = next(
        ((s, c) for s, c in (("£", "GBP"), ("€", "EUR"), ("$", "USD")) if s in salary), ("", "")
    )
    style = rng.randrange(3)
    amounts = [float(v) for v in values]
    if (
        len(amounts) > 2
        or not 1 / 3 <= amounts[0] / max(amounts[-1], 0.01) <= 3
        or (style == 0 and min(amounts) < _YEARLY)
    ):
        # A board restates the pay it was given: "£31,365 - £37,890 + £2,162 LW" or "£43,000
        # per annum (£20 per hour)" joined into one run of numbers, or "£11.20 per hour"
        # made "a year", is another salary (a draw of training pairs had 146 re-posts
        # whose two salaries so disagreed).
        style = 2
    if style == 0:
        return " - ".join(f"{symbol}{v}" for v in values) + " a year"
    if style == 1:
        return (" to ".join(values) + f" {code}").strip()
    return salary.replace(" - ", " to ").replace("per annum", "pa")
