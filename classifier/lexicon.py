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


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of `text`, as a set (word lists read better as text)."""
    return frozenset(text.split())


SENIORITY_WORDS: dict[str, str] = {
    "junior": "junior",
    "jr": "junior",
    "jnr": "junior",
    "debutant": "junior",
    "beginner": "junior",
    "senior": "senior",
    "sr": "senior",
    "snr": "senior",
    "confirme": "senior",
    "ervaren": "senior",
    "lead": "lead",
    "leader": "lead",
    "teamleiter": "lead",
    "teamleiterin": "lead",
    "leiter": "lead",
    "leiterin": "lead",
    "teamleider": "lead",
    "responsable": "lead",
    "chef": "lead",
    "supervisor": "lead",
    "head": "head",
    "hoofd": "head",
    "director": "head",
    "directeur": "head",
    "directrice": "head",
    "direktor": "head",
    "direktorin": "head",
    "chief": "head",
    "principal": "principal",
    "manager": "manager",
    "managerin": "manager",
    "gerant": "manager",
    "deputy": "deputy",
    "assistant": "assistant",
    "assistante": "assistant",
    "adjoint": "deputy",
    "adjointe": "deputy",
    "stellvertretender": "deputy",
    "stellvertretende": "deputy",
    "trainee": "trainee",
    "intern": "trainee",
    "internship": "trainee",
    "stagiaire": "trainee",
    "stage": "trainee",
    "stagiair": "trainee",
    "praktikant": "trainee",
    "praktikantin": "trainee",
    "praktikum": "trainee",
    "werkstudent": "trainee",
    "werkstudentin": "trainee",
    "apprentice": "trainee",
    "apprenti": "trainee",
    "apprentie": "trainee",
    "alternance": "trainee",
    "auszubildende": "trainee",
    "auszubildender": "trainee",
    "azubi": "trainee",
    "student": "trainee",
    "graduate": "trainee",
}
"""Title word → canonical seniority. Role nouns ("nurse", "engineer") are not here: two
titles differing only in the role are caught by the title-token features instead."""

TITLE_CONTRACT: dict[str, tuple[str, ...]] = {
    "bank": ("bank", "staff bank", "nhsp"),
    "locum": ("locum", "vacataire"),
    "agency": ("agency", "interimaire", "uitzendkracht", "leiharbeit", "zeitarbeit"),
    "permanent": ("permanent", "cdi", "unbefristet", "vast", "vaste aanstelling"),
    "fixed": (
        "fixed term",
        "ftc",
        "temporary",
        "temp",
        "cdd",
        "befristet",
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
    "part": ("part time", "parttime", "teilzeit", "temps partiel", "deeltijd", "mi temps"),
    "full": ("full time", "fulltime", "vollzeit", "temps plein", "temps complet", "voltijd"),
    "freelance": ("freelance", "freelancer", "freiberuflich", "contractor", "zzp"),
    "volunteer": ("volunteer", "voluntary", "benevole", "ehrenamtlich", "vrijwilliger"),
    "night": ("night", "nights", "nachtdienst", "nuit", "nacht"),
    "day": ("days", "days only", "day shift", "day shifts", "tagdienst"),
}
"""Contract and shift markers in a title: canonical name → phrases."""

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
        "# mois",
    ),
    "part": ("part time", "parttime", "teilzeit", "temps partiel", "deeltijd", "mi temps"),
    "full": ("full time", "fulltime", "vollzeit", "temps plein", "temps complet", "voltijd"),
    "freelance": ("freelance", "freiberuflich", "freiberufliche", "zzp"),
}
"""Contract markers in running text: phrases only, since single words ("bank", "temporary")
are common in ordinary sentences."""

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

# --- places ----------------------------------------------------------------------------------

REMOTE = re.compile(
    r"\b(?:remote|home\s*based|work\s+from\s+home|wfh|homeoffice|home\s+office"
    r"|teletravail|thuiswerk\w*|hybrid\w*|hybride|anywhere)\b"
)
"""Remote-work markers in a cleaned title or location (short strings: a regex is fine)."""

UK_OUTWARD = re.compile(r"^[a-z]{1,2}\d[a-z\d]?$")
UK_INWARD = re.compile(r"^\d[a-z]{2}$")
NUMERIC_POSTCODE = re.compile(r"^\d{4,6}$")
DASHED_POSTCODE = re.compile(r"\b(\d{2})-(\d{3})\b")  # Polish "00-950"

LOCATION_STOPWORDS = words(
    "and the of upon on in at de la le les du des et en und am im an der die das van het op uk"
    " gb united kingdom england scotland wales france deutschland germany nederland netherlands"
    " belgium belgique street road st rd"
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

GENERIC_COMPANY_WORDS = words(
    "nhs trust foundation health healthcare care board university hospital hospitals services"
    " service group gp practice practices partnership council county city ltd limited plc"
    " llp inc company international global solutions recruitment staffing consulting uk"
    " europe national of and the for de la le des et und der die van het sa sas gmbh ag bv"
    " srl sp z o oo as ab oy"
)
"""Words of a company name that do not identify it; the rest ("swansea bay", "hywel dda")
are looked for in the other posting's text, where agencies and shared campaigns name the
client."""

# --- contacts and references --------------------------------------------------------------------

TYPOGRAPHY: tuple[tuple[str, str], ...] = (
    ("\u2019", "'"),
    ("\u2018", "'"),
    ("\u201c", '"'),
    ("\u201d", '"'),
    ("\u2013", "-"),
    ("\u2014", "-"),
    ("\u2022", " "),
    ("\u00b7", " "),
    ("\u25cf", " "),
    ("\u2026", "."),
    ("\u00a0", " "),
    ("\u202f", " "),
    ("\u00a3", " gbp "),
    ("\u20ac", " eur "),
)
"""Typographic characters replaced before extraction. Most English ads are ASCII but for a
curly quote, a dash or "£"; replacing them keeps the text ASCII, where `str.lower` and
`str.translate` take fast paths. Currency symbols become ISO-like words,
which the salary patterns read like "EUR 45.000"."""

EMAIL_LOCAL = re.compile(r"[\w.+-]{1,64}$")
EMAIL_DOMAIN = re.compile(r"[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}", re.IGNORECASE)
URL = re.compile(r"(?:https?://|www\.)[^\s<>\"'()\[\]]+", re.IGNORECASE)
PHONE_CANDIDATE = re.compile(r"\d[\d \t().-]{6,20}\d")
"""Cheap prefilter for phone numbers: a digit run with the separators phones use. Only these
substrings go to `phonenumbers`, which is 50x slower than a regex over the whole text."""

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
    r"(?:ref(?:erence)?|job\s*(?:id|ref|code|no|number|reference)|vacancy\s*(?:id|ref|no"
    r"|number|reference)|réf(?:érence)?|referenz(?:nummer)?|kennziffer|stellen[\s-]*id"
    r"|vacature(?:nummer)?|referentie(?:nummer)?|requisition(?:\s*id)?|posting\s*id)\b"
    r"\s*(?:no\.?|nr\.?|number|n°|num(?:éro)?|code|id)?\s*[:#.]?\s*([a-z0-9][a-z0-9/_.-]{2,30})",
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
"""Currency tokens (after TYPOGRAPHY turned "£"/"€" into "gbp"/"eur")."""
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

# --- language guess ------------------------------------------------------------------------------

STOPWORDS: dict[str, frozenset[str]] = {
    "en": words("the and of to with for you are our will is in we this be"),
    "fr": words("le la les des et est une vous nous pour dans avec sur du au"),
    "de": words("der die das und ist mit sie wir fur ein eine zu im auf den von"),
    "nl": words("de het een en van voor met je jij wij zijn bij naar ons is op"),
    "es": words("el la los las y de con para una por que en del se"),
    "it": words("il la di e per con una che del della sono gli le"),
    "pt": words("o a os as e de do da com para uma que em no na"),
    "pl": words("i w na z do oraz sie jest dla od pracy przez"),
    "ro": words("si de in cu pentru la un o al care din pe"),
    "hr": words("i u za na je s od se rad ili kao"),
    "hu": words("a az es hogy egy vagy van nem munka is"),
    "lt": words("ir su i is darbo per kaip bei del"),
    "lv": words("un ar par uz no ir vai darba"),
    "et": words("ja on voi ning kui ka see toode"),
}
"""A dozen frequent words per language, accent-folded (tokens are folded). Enough to tell
the languages of a job board apart on 80 tokens; not a general language identifier."""
