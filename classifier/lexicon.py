"""Multilingual word lists and patterns that `classifier.fields` looks for in a posting.

Kept apart from the extraction code because this is data that grows (a new language is a few
words here) while the extraction logic stays the same. Every marker maps to a
language-independent canonical name, so "befristet", "CDD" and "fixed term" compare equal.

Markers are *phrases of cleaned tokens* (`indexer.text.clean`: casefolded, accents folded,
punctuation turned into spaces), matched by a token scan rather than by regexes: a dozen
word-boundary alternations over a 3 KB ad cost about 0.3 ms each in Python's `re`, a scan of
its 400 tokens against a dict a few dozen µs. "#" in a phrase stands for any number token.

The lists are deliberately short: a marker that fires on ordinary prose ("bank holiday",
"level 3 qualification") adds noise the model has to unlearn, so the description phrases
demand context the title phrases do not.
"""

from __future__ import annotations

import re

from indexer.key_patterns import UK_INWARD as UK_INWARD  # one definition, shared with the keys
from indexer.key_patterns import UK_OUTWARD as UK_OUTWARD
from indexer.key_patterns import words as words


def by_canonical(table: dict[str, str]) -> dict[str, str]:
    """Word → canonical name, from canonical name → its words as text."""
    return {word: canonical for canonical, text in table.items() for word in text.split()}


SENIORITY_WORDS = by_canonical(
    {
        "junior": "junior jr jnr beginner debutant debutante berufseinsteiger berufseinsteigerin"
        " einsteiger starter startende młodszy",
        "medior": "medior",
        "senior": "senior sr snr confirme confirmee experimente experimentee ervaren erfahren"
        " erfahrene erfahrener starszy",
        "lead": "lead leader teamleiter teamleiterin leiter leiterin leitung teamleider"
        " leidinggevende responsable chef supervisor",
        "head": "head hoofd director directeur directrice direktor direktorin chief",
        "principal": "principal",
        "manager": "manager managerin gerant",
        "deputy": "deputy adjoint adjointe stellvertretender stellvertretende",
        "assistant": "assistant assistante",
        "trainee": "trainee intern internship stagiaire stage stagiair praktikant praktikantin"
        " praktikum werkstudent werkstudentin apprentice apprenti apprentie alternance"
        " alternant alternante afstudeerder leerling ausbildung volontar auszubildende"
        " auszubildender azubi student graduate",
    }
)
"""Title word (cleaned: "confirmé" is "confirme") → canonical seniority, in EN, FR, NL, DE and
a few other languages. Role nouns ("nurse", "engineer") are not here: two titles differing
only in the role are caught by the title-token features instead. "medior" (Dutch, between
junior and senior) is its own level; "mid" and "intermediate" are not read, as NHS titles use
them for places ("Mid Essex") and services ("Intermediate Care")."""

EURES_TERMS: dict[str, tuple[str, ...]] = {
    "permanent": (
        "na czas nieokreslony", "contrato sem termo", "sem termo", "perioada nedeterminata",
        "hatarozatlan ideju", "na neodređeno", "beztermina", "neterminuota", "tahtajatu",
        "αοριστου χρονου", "безсрочен договор", "безсрочен", "indefinido", "tempo indeterminato",
        "pastavigu darbu", "pastaviga darba", "pastavigs darbs", "pastavigs ligums",
        "pastavigu darba vietu",
    ),
    "fixed": (
        "na czas okreslony", "contrato a termo", "termo certo", "perioada determinata",
        "hatarozott ideju", "na određeno", "uz noteiktu laiku", "terminuota", "tahtajaline",
        "ορισμενου χρονου", "срочен договор", "срочен", "tempo determinato",
    ),
    "full": (
        "pełny etat", "pełen etat", "pełnym etacie", "tempo inteiro", "tempo integral",
        "norma intreaga", "teljes munkaido", "puno radno vrijeme", "pilna slodze", "pilnu etatu",
        "pilnas etatas", "taistooaeg", "taiskoormus", "πληρησ απασχοληση", "пълен работен ден",
        "jornada completa", "tiempo completo", "tempo pieno", "пълно работно време",
    ),
    "part": (
        "niepełny etat", "pol etatu", "tempo parcial", "norma partiala", "reszmunkaido",
        "nepuno radno vrijeme", "nepilna slodze", "nepilnu etatu", "osaline tooaeg", "osakoormus",
        "μερικη απασχοληση", "непълен работен ден", "media jornada", "tiempo parcial",
        "tempo parziale", "непълно работно време",
    ),
}  # fmt: skip
"""Permanent, fixed-term, full- and part-time phrases of the EURES languages, Spanish and
Italian (cleaned: accents folded, "ł" and "đ" kept), read in titles and texts alike: they are
specific enough for running text. Latvian "pastāvīg-" is permanent only beside "darb-" (work)
or "līgums" (contract): alone, "pastāvīgi" is "constantly" ("pastāvīgi meklējam"). Title
keys drop those boards put in titles (`indexer.key_patterns`; the Latvian and Bulgarian
phrases above occur in texts only: 6 Latvian and 1 Bulgarian EURES ads)."""


def with_eures_terms(table: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """A marker table with `EURES_TERMS` added to its markers."""
    return {marker: phrases + EURES_TERMS.get(marker, ()) for marker, phrases in table.items()}


TITLE_CONTRACT: dict[str, tuple[str, ...]] = {
    "bank": ("bank", "staff bank", "nhsp"),
    "locum": ("locum", "vacataire"),
    "agency": ("agency", "interimaire", "uitzendkracht", "leiharbeit", "zeitarbeit"),
    "permanent": (
        "permanent",
        "cdi",
        "unbefristet",
        "unbefristete",
        "festanstellung",
        "vast",
        "vaste aanstelling",
    ),
    "fixed": (
        "fixed term",
        "ftc",
        "temporary",
        "temp",
        "cdd",
        "befristet",
        "befristete",
        "tijdelijk",
        "tijdelijke",
        "interim",
        "maternity",
        "secondment",
        "# month",
        "# months",
        "# mois",
        "# monate",
        "# maanden",
    ),
    "part": (
        "part time",
        "parttime",
        "teilzeit",
        "temps partiel",
        "deeltijd",
        "mi temps",
        "minijob",
        "halbtags",
    ),
    "full": (
        "full time",
        "fulltime",
        "vollzeit",
        "temps plein",
        "temps complet",
        "plein temps",
        "voltijd",
    ),
    "freelance": (
        "freelance",
        "freelancer",
        "freiberuflich",
        "contractor",
        "zzp",
        "auto entrepreneur",
        "honorarbasis",
    ),
    "volunteer": ("volunteer", "voluntary", "benevole", "ehrenamtlich", "vrijwilliger"),
    "night": ("night", "nights", "nachtdienst", "nuit", "nacht"),
    "day": ("days", "days only", "day shift", "day shifts", "tagdienst"),
}
"""Contract and shift markers in a title: canonical name → phrases (EN, FR, DE, NL; the
EURES languages come from `EURES_TERMS`)."""

DESCRIPTION_CONTRACT: dict[str, tuple[str, ...]] = {
    "bank": (
        "staff bank",
        "bank only",
        "bank contract",
        "bank basis",
        "bank position",
        "bank post",
        "bank role",
        "bank worker",
        "bank staff",
        "bank shifts",
        "bank nurse",
        "join our bank",
        "nhsp",
    ),
    "locum": ("locum",),
    "permanent": (
        "permanent contract",
        "permanent position",
        "permanent post",
        "permanent role",
        "permanent basis",
        "cdi",
        "contrat a duree indeterminee",
        "unbefristet",
        "unbefristete",
        "unbefristeten",
        "unbefristetes",
        "festanstellung",
        "vast contract",
        "vaste aanstelling",
        "vast dienstverband",
    ),
    "fixed": (
        "fixed term",
        "ftc",
        "temporary contract",
        "temporary position",
        "temporary post",
        "temporary role",
        "temporary basis",
        "cdd",
        "contrat a duree determinee",
        "befristet",
        "befristete",
        "befristeten",
        "befristeter",
        "befristetes",
        "tijdelijk contract",
        "tijdelijke aanstelling",
        "tijdelijk dienstverband",
        "maternity leave",
        "maternity cover",
        "secondment",
        "interim position",
        "interim role",
        "interim basis",
        "# months contract",
        "# month contract",
        "# months fixed",
        "cdd de # mois",
        "contrat de # mois",
        "mission de # mois",
    ),
    "part": (
        "part time",
        "parttime",
        "teilzeit",
        "temps partiel",
        "deeltijd",
        "mi temps",
    ),
    "full": (
        "full time",
        "fulltime",
        "vollzeit",
        "temps plein",
        "temps complet",
        "voltijd",
    ),
    "freelance": ("freelance", "freiberuflich", "freiberufliche", "zzp"),
}
"""Contract markers in running text: phrases only, since single words ("bank", "temporary")
are common in ordinary sentences."""

DESCRIPTION_ASIDES: tuple[str, ...] = (
    "opportunity to work bank shifts",
    "pick up bank shifts",
    "bank shifts available",
    "includes bank staff",
    "substantive and bank staff",
    "locum agencies",
    "locum agency",
    "locum or substantive",
    "substantive or locum",
    "whether locum",
    "maternity leave at 3",
    "maternity leave benefit",
    "enhanced maternity",
)
"""Phrases of running text holding a contract phrase that is not the post's: a perk
("the opportunity to work bank shifts and expand knowledge"), a policy for every kind of
staff ("a 6 month probationary period (this includes bank staff)"), other staff ("sets us
apart from locum agencies", "whether locum or substantive"). Of the 14,842 NHS ads, 82
whose title names no bank read as bank only through these (514 such ads before, 432
after), and a substantive post then agreed with its bank version. Removed from the text
before `DESCRIPTION_CONTRACT` is read. A maternity-leave perk in a list of benefits
("maternity leave at 3 months' service", "parental leave matching the maternity leave
benefit", "enhanced maternity cover") read as a maternity cover: NHS ads whose text alone
read fixed-term went from 1,631 to 1,576 with the last three asides."""

COLLEAGUE_COUNT = re.compile(
    r" (and|join|joins|joining|existing|has|have|comprises|comprising|with) "
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten) locum "
    r"(?!posts? |positions? |roles? |vacanc)"
)
"""A locum counted among the team ("will join the existing 5 substantive consultants and 1
locum consultant", "the department has three permanent and two locum consultants"): the
post's colleagues, not its engagement, in the text of a substantive post. `locum` is a
one-word description phrase, so without this that text read locum and agreed with the
same department's locum ad. A count of posts offered ("applications for 2 locum
consultant posts", "we are looking to recruit two locum consultants") is not preceded by
these words or names the posts. In the 14,842 NHS ads it matches 7 texts; the one locum
post among them ("Trust Locum Consultant in Radiology") still reads locum from its title.
Replaced by its first word (group 1) before `DESCRIPTION_ASIDES` are removed."""

LIST_CONNECTORS = frozenset({"and", "or", "et", "ou", "en", "und", "oder", "y", "o", "e"})
"""Words that join contract words into a list of alternatives (`classifier.contract_lists`):
"CDD et CDI", "full or part time", "en CDD ou en CDI", "befristet oder unbefristet"; EN,
FR, NL ("en"), DE, ES and IT/PT ("o", "e")."""

LIST_ELLIPSES: dict[str, str] = {
    "full": "full",
    "part": "part",
    "plein": "full",
    "complet": "full",
    "partiel": "part",
    "voll": "full",
    "teil": "part",
    "permanent": "permanent",
    "substantive": "permanent",
    "temporary": "fixed",
    "fixed": "fixed",
    "interim": "fixed",
    "bank": "bank",
    "agency": "agency",
}
"""Contract words that are markers only inside a list of contract words
(`classifier.contract_lists`): the first half of an elided pair ("full or part time",
"temps plein ou partiel", "Voll- oder Teilzeit") and the bare words an agency lists
("permanent, temporary and contract roles", "bank and agency staff", "intérim, CDD, CDI").
Alone in running text they are ordinary words ("a full induction", "part of the team")."""

CONTRACT_DIMENSIONS: dict[str, tuple[str, ...]] = {
    "permanent": ("duration", "engagement"),
    "fixed": ("duration",),
    "full": ("schedule",),
    "part": ("schedule",),
    "night": ("shift",),
    "day": ("shift",),
    "bank": ("engagement",),
    "locum": ("engagement",),
    "agency": ("engagement",),
    "freelance": ("engagement",),
    "volunteer": ("engagement",),
}
"""What each contract marker states, by dimension: two postings conflict on a dimension only
when both state it with incompatible values (a CDI against a CDD, full time against part time,
bank against permanent). A dimension stated on one side only is unknown, not a conflict: boards
add "- Full Time" or "(CDI)" to a title, and a truncated re-post loses the sentence naming the
contract. "permanent" also states the engagement (an employee, not a bank or agency worker)."""
GENDER_MARKER = re.compile(
    r"\s*[(\[]?\b(?:h\s*/\s*f|f\s*/\s*h|m\s*/\s*w\s*/\s*d|m\s*/\s*f)\b[)\]]?", re.I
)
"""The common gender markers of a title as written ("(H/F)", "F/H", "m/w/d"), with the
space before them: what training removes from a title it copies into a text.
`indexer.text.normalise_title` removes every form, but it also normalises the rest."""
STUB_LEADS: dict[str, tuple[str, ...]] = {
    "fr": ("En bref : ", "Résumé : ", "Mots-clés : ", "Le poste : ", ""),
    "en": ("In short: ", "Summary: ", "Key skills: ", "At a glance: ", ""),
    "de": ("Kurz: ", "Auf einen Blick: ", "Stichworte: ", ""),
    "nl": ("In het kort: ", "Samenvatting: ", ""),
}
"""What a job centre's stub may open with, by language (nothing in the others): "En bref :
Commercial terrain, Relation client" (`classifier.stub_relays` writes them; the features
read a stub's phrases without them)."""
ENGAGEMENT = frozenset({"bank", "locum", "agency", "freelance", "volunteer"})
"""Markers that name another pool of work even when the other side is silent: "Bank Staff
Nurse" is the bank version of "Staff Nurse" (gold-dev labels it another vacancy), whereas an
added "Full Time" describes the same post."""

STRONG_CONTRACT = frozenset(
    {"bank", "locum", "agency", "fixed", "freelance", "volunteer", "night", "day"}
)
"""Markers that make another vacancy (the bank or locum version of a post, a fixed-term
cover). "permanent", "full" and "part" are weak: re-posts add them, and one vacancy is often
offered full or part time."""

GRADE_WORDS = words(
    "band grade level lvl scale schaal niveau stufe entgeltgruppe eg tvod echelon categorie e"
)
"""Words that introduce a pay grade ("Band 5", "Grade 7", "Schaal 10", "E 13")."""
GRADE_VALUE = re.compile(r"^(?:\d{1,2}[a-d]?|i{1,3}|iv|v|vi{1,3}|ix|x)$")
GRADE_JOINED = re.compile(r"^(?:band|grade|level|eg|e)(\d{1,2}[a-d]?)$")
"""A grade written as one token: "band5", "E13", "EG9"."""
SINGLE_GRADE = re.compile(r"^\d[a-d]?$")
"""A second grade without a connecting word must be one digit, so "Band 5 £24,907" does not
read "24" as a grade."""
GRADE_CONNECTORS = words("or to and ou oder of bis et und en a")

# --- intermediaries --------------------------------------------------------------------------

CLIENT_VOICE = re.compile(
    r" (?:notre client|notre cliente|votre futur employeur"
    r"|(?:pour|de|chez) (?:l )?un de nos clients"
    r"|pour le compte (?:de la societe|de l entreprise|d un client|d une (?:entreprise|societe))"
    r"|on behalf of (?:our|a|an|its|one of our) clients?|one of our clients"
    r"|our client (?:is|are|has|a|an|based|located|who|seeks|requires|needs|operates)"
    r"|(?:for|with) (?:our|a) (?:leading |major |well known |global |prestigious )?client"
    r"(?! (?:group|groups|population|base|facing|care|contact|caseload|needs|services?"
    r"|centre|centred|centered|led|focused) )"
    r"|(?:fur|im auftrag) (?:unseren|unseres|einen|eines) (?:kunden|mandanten)"
    r"|unser (?:kunde|mandant)|(?:onze|een) opdrachtgever|voor onze klant"
    r"|(?:nuestro|nuestra|nostro|nostra|nosso|nossa) (?:cliente|empresa cliente|azienda cliente)"
    r"|per conto di|(?:nasz|naszego|naszemu) klient(?:a|em|owi)?|var (?:kund|uppdragsgivare)"
    r") "
)
"""What an agency, an interim firm or an IT services firm writes for the end client it
recruits for, on the cleaned, space-padded text (`classifier.words`): "Nous recherchons pour
le compte de notre client", "Notre client, basé à Annonay", "On behalf of our client", "für
unseren Kunden", "onze opdrachtgever". Its copy names itself as the company, so the company
field says nothing about the employer (179 of the 1,584 France Travail Ardèche ads, 96 of
the 1,450 Pôle emploi partner ads and 13 of the 271 Google Jobs ads read so). Singular and
recruiting senses only: "nos clients", "our clients", "unseren Kunden bieten" are an
employer's own customers, and "working with a client group", "a client centred approach"
(6 of the 18 NHS ads the pattern first read) are a care team's words; 12 NHS ads are read
now, one of them wrongly ("with a client focus")."""

CLIENT_VOICE_WORDS = frozenset(
    {"client", "clients", "cliente", "employeur", "compte", "kunden", "mandanten", "kunde"}
    | {"mandant", "opdrachtgever", "klant", "conto", "klient", "klienta", "klientem"}
    | {"klientowi", "kund", "uppdragsgivare"}
)
"""A word every phrase of `CLIENT_VOICE` holds (tests/unit/test_lexicon_gates.py generates
the phrases from the pattern): a text without one is not searched. The search tries its
thirty branches at every space of the text, 53 µs of the 1.05 ms a 2,000-ad NHS extraction
takes, and most texts hold none of these words."""


def client_voice(padded: str, tokens: frozenset[str]) -> bool:
    """Whether `padded` (cleaned words, space-padded; `tokens` its words) speaks of an end
    client (`CLIENT_VOICE`)."""
    return not CLIENT_VOICE_WORDS.isdisjoint(tokens) and CLIENT_VOICE.search(padded) is not None


# --- places ----------------------------------------------------------------------------------

REMOTE = re.compile(
    r"\b(?:remote|home\s*based|work\s+from\s+home|wfh|homeoffice|home\s+office"
    r"|teletravail|thuiswerk\w*|thuis\s+werken|telewerk\w*|telearbeit|mobiles\s+arbeiten"
    r"|hybrid\w*|hybride|anywhere|teletrabajo|teletrabalho|telelavoro|smart\s+working"
    r"|remoto|zdaln\w+)\b"
)
"""Remote-work markers in a cleaned title or location (short strings: a regex is fine)."""

NUMERIC_POSTCODE = re.compile(r"^\d{4,6}$")
JOINED_POSTCODE = re.compile(r"^\d{4}[a-z]{2}$")  # Dutch "1012AB"
DASHED_POSTCODE = re.compile(r"\b(\d{2})-(\d{3})\b")  # Polish "00-950"

LOCATION_STOPWORDS = words(
    "and the of upon on in at de la le les du des et en und am im an der die das van het op uk"
    " gb united kingdom england scotland wales france deutschland germany nederland netherlands"
    " belgium belgique belgie street road st rd cedex remote hybrid hybride teletravail"
    " thuiswerken thuiswerk homeoffice wfh"
)

GENERIC_PLACE_WORDS = words(
    "hospital hospitals centre center house floor building buildings road street lane avenue"
    " park site sites unit clinic health medical general university community city town north"
    " south east west upper lower new royal saint county district nhs trust practice surgery"
    " ward wing office offices campus based various locations location area region 1st 2nd 3rd"
    " 4th ground level central greater krankenhaus klinik strasse platz hopital centre rue"
    " avenue ziekenhuis straat weg plein"
)
"""Words of a location that are not the town: "Ellis Centre, Scarborough" names the town
"scarborough"; "centre" occurs in half the ads and would make every pair look co-located."""

SITE_KINDS = words(
    "hospital hospitals infirmary hospice centre center unit ward wards campus site office"
    " offices house building clinic hub wing surgery practice"
)
"""Words that end a site's name in English ads ("Norfolk and Norwich University Hospital",
"Meadowbrook unit"): a name linked by "and" or "of" that ends with one is one site's name,
where "Rennes et Lyon" or "South West of London" are two places or an area
(`stated_place._site_at`)."""

GENERIC_COMPANY_WORDS = words(
    "nhs trust foundation health healthcare care board university hospital hospitals services"
    " service group gp practice practices partnership council county city ltd limited plc"
    " llp inc company international global solutions recruitment staffing consulting uk"
    " europe national of and the for de la le des et und der die van het sa sas gmbh ag bv"
    " srl sp z o oo as ab oy nederland deutschland france belgie belgique belgium germany"
    " netherlands benelux holding"
)
"""Words of a company name that do not identify it; the rest ("swansea bay", "hywel dda")
are looked for in the other posting's text, where agencies and shared campaigns name the
client."""

COMPASS_POINTS: dict[str, dict[str, str]] = {
    language: by_canonical(table)
    for language, table in {
        "en": {
            "north": "north northern",
            "south": "south southern",
            "east": "east eastern",
            "west": "west western",
        },
        "fr": {"north": "nord", "south": "sud", "east": "est", "west": "ouest"},
        "de": {
            "north": "nord norden",
            "south": "sud suden",
            "east": "ost osten",
            "west": "west westen",
        },
        "nl": {"north": "noord", "south": "zuid", "east": "oost", "west": "west"},
        "pl": {
            "north": "połnoc połnocny",
            "south": "południe południowy",
            "east": "wschod wschodni",
            "west": "zachod zachodni",
        },
        "pt": {"north": "norte", "south": "sul", "east": "leste", "west": "oeste"},
        "ro": {"north": "nord", "south": "sud", "east": "est", "west": "vest"},
        "hr": {"north": "sjever", "south": "jug", "east": "istok", "west": "zapad"},
        "lv": {
            "north": "ziemeli ziemelu",
            "south": "dienvidi dienvidu",
            "east": "austrumi austrumu",
            "west": "rietumi rietumu",
        },
        "lt": {
            "north": "siaure siaures",
            "south": "pietus pietu",
            "east": "rytai rytu",
            "west": "vakarai vakaru",
        },
        "et": {"north": "pohja pohi", "south": "louna", "east": "ida", "west": "laas laane"},
        "hu": {
            "north": "eszak eszaki",
            "south": "del deli",
            "east": "kelet keleti",
            "west": "nyugat nyugati",
        },
        "el": {
            "north": "βορρασ βορεια βορειο",
            "south": "νοτοσ νοτια νοτιο",
            "east": "ανατολη ανατολικα ανατολικο",
            "west": "δυση δυτικα δυτικο",
        },
        "bg": {
            "north": "север северен",
            "south": "юг южен",
            "east": "изток източен",
            "west": "запад западен",
        },
    }.items()
}
"""Compass points by language, as `indexer.text.clean` writes them, to their English name.
A title naming one ("Staff Nurse - 7 North", "Responsable secteur Est") names a ward, a
team or an area of the employer; another point on the other side is another unit. Read in
English and in the title's own language only: "est", "del", "ida" and "sul" are common
words elsewhere."""
COMPASS_WORDS = frozenset(word for table in COMPASS_POINTS.values() for word in table)
"""Every language's compass words: none identifies an employer ("London North West
University Healthcare"), so a title keeps them when the employer's words are dropped."""

NAME_QUALIFIERS = words(
    "north south east west central mid northern southern eastern western greater upper lower"
    " inner outer royal public nord sud est ouest centre grand grande haut haute bas basse"
    " norden suden ost osten westen mitte noord zuid oost midden norte leste oeste centro"
    " vest sjever istok zapad"
)
"""Words that make a place the end of a longer name rather than a branch's place ("West
Suffolk", "Mid and South Essex", "Royal Berkshire", "Public Health England"): an NHS
trust or a public body is named after the area it serves, and without the place the rest
("west", "royal") would name another area's body too. English and French, and the German,
Dutch, Portuguese, Romanian and Croatian compass words (other languages' forms are common
words elsewhere, or inflect)."""

TITLE_QUANTITIES = words(
    "hour hours hr hrs h hpw pw week weeks wk wks month months mth mths year years yr yrs day"
    " days pa pas session sessions post posts position positions vacancy vacancies role roles"
    " heure heures mois an ans semaine semaines jour jours poste postes std stunden monat"
    " monate jahr jahre woche wochen tag tage stelle stellen uur uren maand maanden jaar"
    " jaren weken dag dagen horas meses anos dias godz godzin miesiecy lat k"
)
"""Words after a number in a title that make it a quantity ("16 hours per week", "6 mois",
"(2 POSTS)", "11 PA") rather than the number of a unit ("Ward 6"): a re-post may change
the hours or the count of posts; the unit's number says which ward."""
TITLE_NUMBER_AFTER = words("x covid ref réf reference référence no nr n nº id") | GRADE_WORDS
"""Words before a number that make it no unit's number: a count ("x 3"), a name
("Covid-19"), a reference ("Réf 123": a re-post may get a new one), a grade ("Band 5":
grade_conflict reads those)."""

# --- contacts and references --------------------------------------------------------------------

EMAIL_LOCAL = re.compile(r"[\w.+-]{1,64}$")
EMAIL_DOMAIN = re.compile(r"[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}", re.IGNORECASE)
URL = re.compile(r"(?:https?://|www\.)[^\s<>\"'()\[\]]+", re.IGNORECASE)
PHONE_CANDIDATE = re.compile(r"\d[\d \t().-]{6,20}\d")
"""Cheap prefilter for phone numbers: a digit run with the separators phones use. Only these
substrings go to `phonenumbers`, which is 50x slower than a regex over the whole text."""
SLASHED_PHONE = re.compile(r"0\d{1,5}/\d[\d \t().-]{3,20}\d(?!/)")
"""A German or Hungarian "030/1234567", "06/70-657-4969": a "/" after the area code only
("01482 301701 / 336638" is two numbers, "01/2020" a date); tried where a "/" is."""

PHONE_LIKE_AMOUNT = re.compile(
    r"^[1-9]\d{0,2}(?:[ .]\d{3})+(?:\s*-\s*[1-9]\d{0,2}(?:[ .]\d{3})+)?$"
)
"""A salary ("45.000 - 55.000", "45 000 - 55 000") that the phone prefilter also accepts; it is
dropped when it has a "." or a range dash or a currency follows (a Spanish mobile is written
"612 345 678", so spaces alone are not enough)."""
OBFUSCATED_AT = re.compile(r"[\[({]\s*(?:at|ät)\s*[\])}]\s*", re.IGNORECASE)
OBFUSCATED_DOT = re.compile(r"\s*[\[({]\s*(?:dot|punkt|point|punt)\s*[\])}]\s*|\s+dot\s+", re.I)
OBFUSCATED_DOMAIN = re.compile(
    r"[\w-]+(?:(?:\s*[\[({]\s*(?:dot|punkt|point|punt)\s*[\])}]\s*|\s+dot\s+|\.)[\w-]+)+", re.I
)
"""Addresses written against harvesters: "jobs [at] acme [dot] com", "bewerbung(at)acme.de"."""
NUMERIC_DATE = re.compile(r"^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4})$")
"""Dates look like phone numbers to a digit-run regex ("2020-11-30" is 8 digits)."""

REFERENCE_KEYWORDS = (
    "ref",
    "réf",
    "job",
    "vacanc",
    "vacature",
    "kennziffer",
    "stellen",
    "requisition",
    "posting",
)
REFERENCE = re.compile(
    r"(?:ref(?:erence)?|job[\s-]*(?:id|ref|code|no|nr|number|reference)|vacancy[\s-]*(?:id|ref"
    r"|no|number|reference)|réf(?:érence)?|referenz(?:nummer)?|kennziffer"
    r"|stellen(?:nummer|[\s-]*id)|vacature(?:nummer|code)?|referentie(?:nummer)?"
    r"|requisition(?:\s*id)?|posting\s*id)\b(?:\s+(?:de\s+l'offre|du\s+poste|de\s+l'annonce"
    r"|der\s+stelle|van\s+de\s+vacature))?[\s-]*(?:no\.?|nr\.?|number|nummer|n°|num(?:éro)?|code"
    r"|id)?\s*[:#.]?\s*([a-z0-9][a-z0-9/_.-]{2,30})",
    re.IGNORECASE,
)
"""A reference keyword followed by a code (matched only where a keyword was found); the code
must also contain a digit, so "Reference checks" is not a reference."""
CODE = re.compile(r"[a-z0-9]{1,8}(?:-[a-z0-9]{1,10}){2,3}", re.IGNORECASE)
"""Dashed codes such as NHS "318-SB-1234" or "C9288-20-0938"; letters and digits both
required by the caller, so dates and phone numbers do not count."""
DATE_LIKE = re.compile(r"^\d{1,4}-[a-z]{3,9}-\d{2,4}$")

# --- salary ------------------------------------------------------------------------------------

CURRENCY_WORDS = words(
    "gbp eur euro euros usd chf pln zl huf ft ron lei bgn лв kn hrk sek dkk nok kr"
)
"""Currency tokens (after `indexer.text.TYPOGRAPHY` turned "£"/"€" into "gbp"/"eur")."""
AMOUNT_AFTER = re.compile(
    r"[\s:]{0,2}(\d{1,3}(?:[ .,]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)\s?(k\b)?",
    re.IGNORECASE,
)
AMOUNT_BEFORE = re.compile(
    r"(\d{1,3}(?:[ .,]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)\s?(k)?\s?$", re.IGNORECASE
)
PLAIN_AMOUNT = re.compile(
    r"(\d{1,3}(?:[ .,]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)\s?(k\b)?", re.IGNORECASE
)
_CURRENCY = r"(?:eur|euros?|gbp|chf|pln|zl)"
RANGE_AFTER = re.compile(
    rf"\s*(?:-|to|à|a|bis|tot|jusqu'à)\s*(?:{_CURRENCY}\s*)?"
    r"(\d{1,3}(?:[ .,]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)\s?(k\b)?"
)
"""The upper end of a range after a currency amount: "EUR 45.000 - 55.000", "€45k to 55k"."""
RANGE_BEFORE = re.compile(
    r"(\d{1,3}(?:[ .,]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)\s?(k)?"
    rf"\s*(?:{_CURRENCY}\s*)?(?:-|to|à|a|bis|tot)\s*$"
)
"""The lower end of a range before an amount read before a currency: "45.000 - 55.000 EUR"."""
PAY_PERIOD = re.compile(
    r"(?<![a-z])(?:(?P<year>per\s+annum|p\.?\s?a\b\.?|per\s+year|a\s+year|yearly"
    r"|annual(?:ly)?(?!\s+leave)"
    r"|annuel(?:le)?|par\s+an\b|/\s?(?:an|year|yr|jahr|jaar|annum)\b|(?:pro|im)\s+jahr"
    r"|j(?:ä|a)hrlich|jahres(?:gehalt|brutto|einkommen|verdienst)|per\s+jaar|jaarlijks"
    r"|jaarsalaris)"
    r"|(?P<month>per\s+month|a\s+month|monthly|pcm|p\.?\s?m\b\.?|/\s?(?:month|mo|mois|monat"
    r"|maand)\b|par\s+mois|mensuel(?:le)?|(?:pro|im)\s+monat|monatlich|monats(?:gehalt|brutto"
    r"|lohn)|per\s+maand|maandelijks|maandsalaris)"
    r"|(?P<week>per\s+week|a\s+week|weekly|p\.?\s?w\b\.?|/\s?(?:week|wk|semaine|woche)\b"
    r"|par\s+semaine|pro\s+woche|w(?:ö|o)chentlich)"
    r"|(?P<day>per\s+day|a\s+day|daily|/\s?(?:day|jour|tag|dag)\b|par\s+jour|pro\s+tag"
    r"|per\s+dag|day\s+rate|tagessatz|dagtarief)"
    r"|(?P<hour>per\s+hour|an\s+hour|hourly|p\.?\s?h\b\.?|/\s?(?:hour|hr|h|heure|stunde|std"
    r"|uur)\b|par\s+heure|de\s+l'heure|pro\s+stunde|stundenlohn|per\s+uur|uurloon))"
)
"""The period a salary is paid for, in EN, FR, DE and NL (read in lower-cased text)."""
WORKING_TIME = re.compile(r"(?:hours?|hrs|uur|uren|stunden|std|heures|h)\s*$")
"""A period right after a working time ("37.5 hours per week") is not the pay period."""
MONEY_MAGNITUDE = re.compile(
    r"\s?(?:millions?|billions?|bn|mn|m|mio|mrd|milliards?|miljoen|miljard|miljon\w*"
    r"|mln|mld|milion\w*|miliard\w*|milioni?|miliardi?|millones?|millón|milh(?:ões|ão)"
    r"|milijun\w*|milijard\w*)\b"
)
"""A magnitude word right after an amount ("£70 million", "€1.5bn", "2 Mio. €"): a budget,
a turnover or a saving, never a salary."""
NOT_PAY = re.compile(
    r"\b\w*(?:bonus|prämie|zuschuss|kosten|gebühr|umsatz|budget|gutschein|toetus|h[üu]v[ei])\w*\b"
    r"|\b(?:costs?|fees?|charged?|disclosure|dbs|turnover|budgets?|revenues?|invest\w*"
    r"|fund(?:s|ed|ing)?|worth|capital|chiffre\s+d.affaires|umsatz|omzet|bonus(?:es)?"
    r"|primes?|relocation|allowances?|welcome|retention|golden\s+hello|referrals?"
    r"|refer\s+a\s+friend|vouchers?|expenses|reimburs\w*|remboursement|savings?|grants?"
    r"|spend(?:ing)?|loyer|rent|prämie|zuschuss|umzug\w*|kosten|gebühr\w*|vergoeding"
    r"|payments?|deduct\w*|tickets?|discounts?|reduced|lump\s+sum|rewards?|moving"
    r"|accommodation|parking|membership|subscriptions?|loans?|deposit|hcas|supplements?"
    r"|weighting|high\s+cost|indemnit\w*|kilom\w*|mileage|achats?|cadeaux?|ch[eè]ques?"
    r"|mutuelle|participation|int[ée]ressement"
    # the EURES languages: Spanish, Italian, Portuguese, Polish, Latvian, Estonian, Croatian,
    # Romanian, Bulgarian
    r"|bonos?|gastos|dietas|facturaci[oó]n|fatturato|fatura[çc][ãa]o|faturamento|obr[oó]t\w*"
    r"|presupuesto|bilancio|or[çc]amento|bud[żz]et\w*|buget\w*|premi[oa]?|premi[ei]"
    r"|pr[ée]mios?|pr[êe]mios?|pr[ēe]mij\w*|reembols\w*|rimbors\w*|subs[ií]dio\w*"
    r"|indennit\w*|alojamiento|alojamento|alloggio|buoni|vales|lunch\w*|diurn\w*"
    r"|nagrad\w*|izdevum\w*|boonus\w*|ваучер\w*)\b"
)
"""Words of money a text names that is not the pay (a DBS check's fee, the trust's
turnover, a welcome bonus, a share capital), German and Dutch compounds too
("Willkommensbonus", "Reisekosten"), and in the other languages of the corpora (a meal
card "karta lunchowa (450 pln netto)", a per diem "diurna de pana la 82 euro/zi", a sports
allowance "50 eur sporditoetust kuus"): read in the clause around a currency amount
(`contacts.pay`)."""
