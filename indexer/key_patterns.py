"""Patterns and word lists of the field keys (`indexer.text.normalise_title`,
`normalise_company`, `normalise_location`): the data that grows with every language a board
adds, kept apart from the functions that apply it (as `classifier.lexicon` is for fields).

They run on short strings (a title, a company, a location), so regexes are cheap here, unlike
over a whole ad. Patterns that need punctuation ("(m/w/d)", "Entwickler*in", "Ref: 123",
"- Remote") read the casefolded, accent-folded title with its punctuation; word lists read
the cleaned text. Each costly pattern comes with the words (or characters) one of which must
occur for it to match, so that most titles and names skip it. What these produce is persisted
in block keys: a change here bumps `indexer.text.NORMALISER_VERSION`.
"""

from __future__ import annotations

import re


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of `text`, as a set (word lists read better as text)."""
    return frozenset(text.split())


def alternation(phrases: str) -> str:
    """A regex alternation of ";"-separated phrases, longest first."""
    return "|".join(sorted((p.strip() for p in phrases.split(";")), key=len, reverse=True))


# --- title ----------------------------------------------------------------------------------------

MALE = frozenset({"m", "h"})  # German/English/Dutch/Polish "m", French and Spanish "h"
FEMALE = frozenset({"f", "w", "v", "k", "z"})  # f, weiblich, vrouw, kobieta, žena
THIRD = frozenset({"d", "x", "i", "n", "nb", "div", "divers", "diverse"})
GENDER_PHRASES = frozenset(
    {"gn", "all genders", "all gender", "alle geschlechter", "genderneutral", "tous genres"}
)
PARENTHESISED = re.compile(r"\(([^()]{1,40})\)")
SLASHED = re.compile(r"(?<![\w/])[a-z]{1,7}\.?(?:\s*[/|]\s*[a-z]{1,7}\.?){1,3}(?![\w/])")
TRAILING_LETTERS = re.compile(r"(?:\s[a-z]){2,4}$")  # "Chef de projet H F", punctuation lost
GENDER_SPLIT = re.compile(r"[\s/|,*.]+")
SUFFIX = "euse|eure|ere|es|ese|se|e|rice|trice|ice|ne|le|te|fe|ve|ive|as|a"
GENDER_SUFFIX = re.compile(
    # Inclusive endings written after a word of 3+ letters: "Entwickler*in", "Chargé(e)",
    # "Développeur·se", "Técnico/a", Lithuanian "Vadybininkas (-ė)"; "/in" and "(in)" only
    # after "-er" or at the end ("Mitarbeiter/in", not "Nurse/In Patients"), never before "-"
    # ("Sister/In-reach"); Croatian "Tehničar/ka", "Vodič/ica", "Savjetnik/ca".
    rf"(?<=[^\W\d_]{{3}})(?:\s?\(\s?-\s?[^\W\d_]{{1,4}}\)|\((?:{SUFFIX}|o)\)"
    rf"|[*:_\u00b7]-?(?:innen|in|{SUFFIX})|(?:/-?|\.)(?:{SUFFIX})"
    r"|(?<=er)(?:/-?|\()(?:innen|in)\)?|/-?in(?=\s*(?:$|[),(]))|(?<=mann)/-?frau"
    r"|/-?(?:ka|ica)|(?<=k)/-?ca)(?![^\W\d_]|-)"
)
TITLE_REFERENCE = re.compile(
    r"(?:\b(?:ref(?:erence|erenz|erentie)?(?:nummer|nr|no)?|job[\s-]?(?:id|ref|code|no|nr"
    r"|number|reference)|vacature[\s-]?(?:id|nummer|nr|code)?|kennziffer|kennz"
    r"|stellen[\s-]?(?:id|nummer|nr)|requisition(?:[\s-]?id)?|req[\s-]?id|offre)\b\.?\s*"
    r"(?:(?:no|nr|number|nummer|id)\b\.?\s*|n\u00b0\s*)?[:#]?\s*|(?<![\w+#])#\s?)"
    r"(?=[\w/.-]*\d)\w[\w/.-]*"
)
"""A reference keyword (or "#") and a code with a digit: "Ref: 12345", "Réf. ABC-123",
"Job ID 4711", "Vacature-ID 88", "Kennziffer 2024/17", "#12345" (never "C#")."""
MARKER = (
    r"(?:(?:100\s?%?|full|fully|teilweise|partly|partial(?:ly)?)[\s-]?)?"
    r"(?:remote|hybrid|hybride|home[\s-]?based|home-?office|on[\s-]?site|contract|new"
    r"|urgent(?:ly\s+required)?|job|vacancy|vacature|immediate\s+start|asap|vast|vz|tz)"
    r"(?:[\s-](?:first|friendly|possible|optional|working|work|werken|moglich|mogelijk))?"
)
MARKERS = rf"{MARKER}(?:(?:\s*[/&+,]\s*|\s+(?:(?:or|and|oder|und|ou|et|of|en)\s+)?){MARKER})*"
DELIMITER = r"()\[\]|,;:!/\u2013\u2014-"
TITLE_DELIMITED = re.compile(
    rf"(?:(?:^|(?<=[{DELIMITER}]))\s*{MARKERS}\s*(?=$|[{DELIMITER}])|\s{MARKERS}\s*$)"
)
"""Words that are decoration only when set apart ("Data Engineer - Remote", "(Contract)",
"NEW: Nurse") or at the end: inside a title they name the role ("Remote Sensing Analyst",
"Urgent Care Practitioner", "Contract Manager", "New Hall", "Job Coach")."""
DURATION = r"\d+ (?:months?|mths?|mois|monate?n?|maand(?:en)?|weeks?|years?|jahre?|ans?|jaar)"
TITLE_WORDS = "|".join(
    [
        r"full (?:or |and )?part time|part (?:or |and )?full time|full time|fulltime|part time",
        r"parttime|permanent|temporary|temp|fixed term contract|fixed term|ftc",
        rf"{DURATION} (?:fixed term(?: contract)?|contract|ftc)|work from home|wfh",
        r"(?:(?:fully|full|100) remote|homeoffice|teletravail|thuiswerk(?:en)?)"
        r"(?: (?:partiel|total|complet|possible|moglich|mogelijk|option|optional))?",
        r"hybrid working|cdi|cdd|plein temps|mi temps|temps (?:plein|complet|partiel)",
        r"vast contract|vaste aanstelling|vast dienstverband|voltijd|deeltijd|hybride werken",
        r"tijdelijke?(?: contract| aanstelling)?|per direct|vollzeit|teilzeit|(?:un)?befristete?",
        r"(?:voll|teil)(?: (?:oder|und|bzw))? (?:teil|voll)zeit|festanstellung|mobiles arbeiten",
        r"ab sofort",
        # permanent, fixed-term, full and part time in the EURES languages, ES and IT
        r"(?:na )?czas (?:nie)?okreslony|(?:nie)?pełny etat|pełen etat|pol etatu",
        r"(?:contrato )?(?:sem termo|a termo)|termo certo|tempo (?:inteiro|integral|parcial)",
        r"norma (?:intreaga|partiala)|perioada (?:ne)?determinata",
        r"teljes munkaido|reszmunkaido|hatarozatlan ideju|hatarozott ideju",
        r"(?:ne)?puno radno vrijeme|na (?:ne)?određeno|(?:ne)?pilna slodze|beztermina",
        r"uz noteiktu laiku|(?:ne)?pilnu etatu|pilnas etatas|(?:ne)?terminuota",
        r"taistooaeg|taiskoormus|osaline tooaeg|osakoormus|tahtajatu|tahtajaline",
        r"(?:πληρησ|μερικη) απασχοληση|(?:αοριστου|ορισμενου) χρονου",
        r"(?:не)?пълен работен ден|(?:без)?срочен(?: договор)?",
        r"jornada completa|media jornada|tiempo (?:completo|parcial)|indefinido",
        r"tempo (?:pieno|parziale|determinato|indeterminato)",
        r"all genders?|alle geschlechter",
        # Working hours ("37.5 hours", "24-32 uur per week"), but not "24 Hour Care" or
        # "24 Stunden Pflege" (round-the-clock services); days a week ("2 days per week").
        r"(?!24 (?:hours|hrs|uur|uren|stunden|std|heures)\b(?! (?:per|pro|p|a|par) w| pw))"
        r"\d+(?: (?:(?:to|tot|bis|a) )?\d+)? ?(?:hours|hrs|uur|uren|stunden|std|heures)"
        r"(?: (?:per|pro|p|a|par) (?:week|woche|wk|w|semaine)| pw)?|\d+ days? (?:a|per|p) week",
    ]
)
TITLE_NOISE = re.compile(
    r"\b(?:(?:in|en|a|im|op|auf|on|als|voor|pour|for|mit|met|avec|zur|with) )?"
    rf"(?:{TITLE_WORDS})(?: (?:(?:or|and|oder|und|ou|et|of|en|bzw|de|van|von|for|voor|pour"
    rf"|auf|fur) )?(?:{TITLE_WORDS}|{DURATION}))*\b"
)
"""Contract, schedule, remote and gender words of the cleaned title, with the preposition and
connectors around them ("en CDI", "in Voll- oder Teilzeit", "CDD de 6 mois"). They say how
the same post is offered; `classifier.fields` keeps the contract markers as their own field.
Words that change the vacancy stay in the key: bank, locum, agency, interim, freelance, the
trainee roles (stage, alternance, apprentice, Werkstudent, Praktikum, Ausbildung), minijob."""

SUFFIX_MARKS = frozenset("*:_\u00b7/")
SUFFIX_HINT = re.compile(r"\([^()]{1,6}\)|\.[^\W\d_]")
"""With `SUFFIX_MARKS`, what `GENDER_SUFFIX` needs: a short parenthesis or a letter after "."."""
REFERENCE_HINTS = words("ref job vacature kennz stellen req offre #")
DELIMITED_HINTS = words(
    "remote hybrid home site contract new urgent job vacanc vacature immediate asap vast vz tz"
)
NOISE_FIRST_WORDS = words(
    "full part fulltime parttime permanent temporary temp fixed ftc work wfh fully 100 homeoffice"
    " teletravail thuiswerk thuiswerken hybrid cdi cdd plein mi temps vast vaste voltijd deeltijd"
    " hybride tijdelijk tijdelijke per vollzeit teilzeit befristet befristete unbefristet"
    " unbefristete voll teil festanstellung mobiles ab all alle"
    " na czas pełny pełen niepełny pol contrato sem a termo tempo norma perioada teljes"
    " reszmunkaido hatarozatlan hatarozott puno nepuno pilna nepilna beztermina uz pilnu"
    " nepilnu pilnas neterminuota terminuota taistooaeg taiskoormus osaline osakoormus"
    " tahtajatu tahtajaline πληρησ μερικη αοριστου ορισμενου пълен непълен безсрочен срочен"
    " jornada media tiempo indefinido"
)
"""Words that can start a `TITLE_NOISE` match; keep in step with it."""
NOISE_UNIT_WORDS = words(
    "hours hrs uur uren stunden std heures days day month months mth mths mois monat monate"
    " monaten maand maanden week weeks year years jahr jahre an ans jaar"
)
"""With a number, the other start of a `TITLE_NOISE` match: "37.5 hours", "12 month contract"
("30hrs" is one token: a number glued to letters counts too)."""


def is_gender_group(parts: list[str]) -> bool:
    """Whether separated letters name genders: a male letter with a female one, optionally
    a third option ("m/w/d", "h/f", "(M/K)", "d/f/m"); "H/W" (hardware) or "F/X" are not.
    With "h" (French homme, Spanish hombre) the female letter is "f" (femme) or "m"
    (Spanish mujer: "Camarero/a (H/M)")."""
    found = set(parts)
    if not 2 <= len(parts) <= 4 or len(found) != len(parts) or found - MALE - FEMALE - THIRD:
        return False
    if "h" in found:
        return bool(found & {"f", "m"}) and not found & FEMALE - {"f"}
    return "m" in found and bool(found & FEMALE)


# --- company --------------------------------------------------------------------------------------

LEGAL_ANYWHERE = (
    "gmbh; ggmbh; gesmbh; mbh; haftungsbeschrankt; co kg; co kgaa; kgaa; ohg; gbr; ltd; limited;"
    " plc; llc; llp; inc; incorporated; sarl; s a r l; sasu; eurl; bvba; sprl; asbl; vzw; s p a;"
    " s r l; s a s; sp z o o; j d o o; społka z ograniczona odpowiedzialnoscia; społka akcyjna;"
    " społka komandytowa; społka jawna; d o o; s r o; kft; zrt; nyrt; unipessoal;"
    " korlatolt felelossegu tarsasag; zartkoruen mukodo reszvenytarsasag; reszvenytarsasag;"
    " sabiedriba ar ierobezotu atbildibu; akciju sabiedriba; uzdaroji akcine bendrove;"
    " akcine bendrove; mazoji bendrija; osauhing; aktsiaselts; λτδ; λιμιτεδ;"
    " nhs foundation trust; foundation trust; nhs trust"
)
"""Legal forms that are never a word of a name (the Polish "ł" has no accent to fold)."""
LEGAL_TRAILING = (
    "ag; kg; se; ug; eg; ek; e k; e v; ev; bv; b v; nv; n v; cv; vof; sa; s a; sas; sl; s l;"
    " slu; snc; sca; srl; srls; spa; sp j; sp k; as; a s; asa; ab; aps; oy; oyj; ou; bt; dd;"
    " d d; doo; sro; uab; mb; sia; lda; co; corp; corporation; company; pty; the;"
    " еоод; оод; ад; еад; ооо; αε; α ε; επε; ε π ε; ικε"
)
LEGAL_LEADING = "the; sia; uab; ab; as; ou; mb; vsi; sc; s c"
"""Baltic and Romanian ads put the form first: "SIA Acme", "UAB Acme", "S.C. Acme S.R.L."."""
COMPANY_ANYWHERE = re.compile(rf"(?<!\S)(?:{alternation(LEGAL_ANYWHERE)})(?!\S)")
COMPANY_TRAILING = re.compile(rf"(?<=\S)(?:\s(?:{alternation(LEGAL_TRAILING)}))+$")
"""Short forms ("AG", "SA", "Co") only at the end of the name, so "AG Barr" keeps its first
word; at least one word always stays ("BT" is not emptied)."""
COMPANY_LEADING = re.compile(rf"^(?:{alternation(LEGAL_LEADING)})\s(?=\S)")
COMPANY_AND = re.compile(r"\s(?:and|und|et|en|y|e|i)(?=\s|$)")
""""&" is punctuation to `clean`, so "Marks and Spencer" drops its "and" to match it."""
ANYWHERE_FIRST = words(" ".join(p.split()[0] for p in LEGAL_ANYWHERE.split(";")))
TRAILING_LAST = words(" ".join(p.split()[-1] for p in LEGAL_TRAILING.split(";")))
LEADING_FIRST = words(" ".join(p.split()[0] for p in LEGAL_LEADING.split(";")))
AND_WORDS = words("and und et en y e i")
"""Words that must occur for each pattern above to match: most names need none of them."""


# --- location -------------------------------------------------------------------------------------

LOCATION_REMOTE = re.compile(
    r"\b(?:(?:fully |100 |full )?remote(?: first| working| work)?|hybrid|hybride|home ?based"
    r"|home working|work from home|wfh"
    r"|home ?office|teletravail|thuis ?werk(?:en)?|telewerk(?:en)?|telearbeit|mobiles arbeiten"
    r"|anywhere|teletrabajo|teletrabalho|telelavoro|smart working|remoto|zdalna|zdalnie)\b"
)
REMOTE_FIRST = words(
    "fully 100 full remote hybrid hybride home homebased homeoffice work wfh teletravail thuis"
    " thuiswerk thuiswerken telewerk telewerken telearbeit mobiles anywhere teletrabajo"
    " teletrabalho telelavoro smart remoto zdalna zdalnie"
)
"""Words that can start a `LOCATION_REMOTE` match; keep in step with it."""
COUNTRIES = alternation(
    "uk; u k; gb; great britain; united kingdom; england; scotland; wales; northern ireland;"
    " ireland; france; fr; deutschland; germany; allemagne; de; nederland; netherlands;"
    " the netherlands; nl; holland; pays bas; belgium; belgique; belgie; be; luxembourg; lu;"
    " osterreich; austria; at; schweiz; suisse; switzerland; ch; espana; spain; es; italia;"
    " italy; it; polska; poland; pl; portugal; pt; europe; eu"
)
LOCATION_COUNTRY = re.compile(rf"[,(/|;]\s*(?:{COUNTRIES})\s*\)?\s*$")
"""A country set apart at the end ("London, UK", "Berlin (DE)"); "Île-de-France" is a region."""
LOCATION_CODES = re.compile(
    r"(?<![\w-])[a-z]{1,2}-(?=\d{4,5}\b)|\bcedex(?:\s+\d{1,2})?\b|\b(\d{2})-(\d{3})\b"
)
"""Country prefixes of postcodes ("F-75008", "D-80331"), French "Cedex 08" (postal routing,
not a place) and Polish "00-950" (joined into one postcode)."""
POSTCODE = re.compile(r"^(?:\d{4,5}|\d{4}[a-z]{2})$")
UK_OUTWARD = re.compile(r"^[a-z]{1,2}\d[a-z\d]?$")
UK_INWARD = re.compile(r"^\d[a-z]{2}$")


PLACE_ABBREVIATIONS = {"saint": "st", "sainte": "ste", "sankt": "st", "mount": "mt"}
"""Place-name words as their abbreviation, so "Saint-Péray" and "ST PERAY" compare: the
gazetteer's names (`classifier.gazetteer_data.norm`) and the bare title's place words
(`indexer.lookup_keys.bare_title`). Not used by the block key."""


# --- board lead-ins (bare title only) -------------------------------------------------------------

BOARD_LEAD_INS = alternation(
    # en
    "job offer; job opening; job opportunity; career opportunity; opportunity; vacancy; job;"
    " jobs; position; we are hiring; we re hiring; now hiring; hiring; urgent; urgently required;"
    " new;"
    # fr
    " offre d emploi; offre de poste; offre; nouvelle offre; emploi; annonce; poste;"
    " recrutement; on recrute; nous recrutons; recrute; nouveau;"
    # de, nl
    " stellenangebot; stellenanzeige; jobangebot; wir suchen; wir stellen ein; dringend; neu;"
    " vacature; gezocht; wij zoeken; nieuw;"
    # es, it, pt
    " oferta de empleo; oferta de trabajo; oferta laboral; oferta; empleo; se busca; buscamos;"
    " urgente; nuevo; vacante; offerta di lavoro; offerta; lavoro; cercasi; cerchiamo; nuovo;"
    " oferta de emprego; oferta de trabalho; vaga de emprego; vaga; emprego; recrutamento;"
    " recrutamos; novo;"
    # pl, ro, hu, hr
    " oferta pracy; praca; pilne; pilnie; zatrudnimy; rekrutacja; oferta de munca;"
    " loc de munca; angajam; angajare; recrutare; allasajanlat; allas; surgos; felveszunk;"
    " oglas za posao; posao; zaposljavamo; hitno; natjecaj;"
    # lv, lt, et
    " vakance; darba piedavajums; steidzami; darbo pasiulymas; skubiai; ieskome;"
    " toopakkumine; tookuulutus; vaba ametikoht; kiire;"
    # el, bg (casefolded: final sigma as σ)
    " θεση εργασιασ; αγγελια; ζητειται; επειγον; обява за работа; обява; свободна позиция;"
    " търсим; спешно"
)
BOARD_LEAD_IN_FIRST = words(" ".join(p.split()[0] for p in BOARD_LEAD_INS.split("|")))
"""First words of the lead-ins: a title key starting with none of them has no lead-in left
(`normalise_title` keeps the words of one it does not drop), so most titles skip the fold
and the pattern."""
BOARD_LEAD_IN = re.compile(
    r"^\s*[\[(]?\s*(?:"
    + BOARD_LEAD_INS.replace(" ", r"\s+")
    + r")\s*(?:[\])]\s*[:|!>\u2013\u2014-]*|[:|!>\u2013\u2014-]+)\s*"
)
"""What a board or an aggregator puts before the employer's title, set apart by a colon,
dash, bar, "!" or a bracket, in the languages the boards write ("Offre d'emploi : Data
Engineer", "Stellenangebot: Elektriker", "[URGENT] Nurse", "Oferta pracy - Kierowca"). Read on
the casefolded, accent-folded title with its punctuation, the apostrophe as a space. Only at
the start and only set apart: "New Hall Nurse" and "Job Coach" are titles. Used by the bare
title, not by the block key (`indexer.lookup_keys.bare_title`): `normalise_title` drops the
English and Dutch ones already (`TITLE_DELIMITED`), and changing it would change every
stored block key of such a title."""
