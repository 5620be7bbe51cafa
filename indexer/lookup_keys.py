"""Lookup keys: index keys beside the LSH band keys, for snippets and company-name variants.

LSH band keys find pairs of high Jaccard similarity. An aggregator's snippet (the first 250-500
characters of an ad, cut mid-sentence) against the full ad has a Jaccard of 0.2 or less
however exactly it copies it, so it shares no band key; and the (company, title) block key
fails when the two boards name the employer differently ("Acme" / "Acme Assurances" /
"Groupe Acme"). Two more kinds of keys close those gaps:

* **Lead fingerprints** (containment keys): winnowing (Schleimer et al. 2003) over the word
  shingles of the leading job text, i.e. the first `LEAD_SHINGLES` shingles of the units
  that describe the vacancy (sections intro, tasks, profile) and are not boilerplate: the
  position of the minimum shingle hash of every window of `WINDOW` consecutive shingles is an
  anchor, and the key hashes the 15 words from it (the anchor shingle and the shingles 5 and
  10 after it). A window lying inside text two postings share picks the same anchor on both
  sides, so two postings whose leading job texts share a run of `WINDOW` + 10 shingles (26
  words) share a key, however little else they share: a snippet and its full ad, the first
  half of an ad and the whole. Only the start of an ad is fingerprinted, because that is what
  snippets copy, and it bounds the keys to about 2 * LEAD_SHINGLES / (WINDOW + 1) per posting.
* **Company-title key**: the first distinctive word of the company key (generic leading words
  such as "groupe" or "the" skipped) joined to the title key, so "Acme Assurances | data
  engineer" meets "Acme | data engineer" and "Groupe Acme | data engineer".
* **Bare-title key**: the company key joined to the title key without what boards add to a
  title from the ad's other fields or their own systems: the words of the ad's own location
  ("Employé(e) de ménage H/F - Largentière" at "07 - LARGENTIERE"), requisition codes
  written without a keyword ("INGENIEUR DATA JUNIOR - H/F - (STG-5521)") and a board's
  lead-in ("Offre d'emploi : Data Engineer"), which
  `indexer.text.normalise_title` keeps, so the block key and the company-title key of the
  decorated title never meet the plain one's. It matters most where the text cannot find
  the re-post: an employer posting one text in many towns under town-decorated titles makes
  that text boilerplate (units recurring under different titles), and then only the title
  can. Every posting is indexed under its bare-title key and searches with it (for a plain
  title it is the block key again, in the key index). Where the bare title is not the title
  key, the company-title key of the bare title is one more key: an aggregator that both
  decorates the title and names the employer another way meets the board's ad through it.

* **Opening keys**: the same winnowing over the first `OPENING_SHINGLES` shingles of the
  whole text, whatever their sections and boilerplate, in a hash domain of the bare title.
  An aggregator's snippet often holds only the employer's intro, which the board's ad keeps
  out of its lead fingerprints as a company section, and a posting may name no employer
  (1,635 of the 3,305 French ads name none): with both, no other key meets the board's ad.
  Bound to the bare title, an employer's intro links only ads of one title, never the
  employer's other vacancies.

Boilerplate stays out of the lead fingerprints: units the index judges boilerplate and
company, offer, legal or apply sections give no fingerprint, since a fingerprint of an
employer's intro would link every ad of that employer. Hits through the lead fingerprints
are verified like band hits (estimated overlap coefficient, which is the containment of the
smaller shingle set), not kept unconditionally like block-key hits; a hit under the query's
bare title, of the same employer or of a posting naming none, is kept like a block-key hit
(`service.pipeline`), since an intro the full ad's sketch leaves out cannot vouch for it.

Every key is a signed 64-bit int from its own hash domain (a domain constant mixed in before
the final avalanche, or a prefix in the hashed string), so the stores index them in the same
list as the band keys and a key only ever meets keys of its own kind. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt
import xxhash

from indexer.key_patterns import BOARD_LEAD_IN, BOARD_LEAD_IN_FIRST, PLACE_ABBREVIATIONS
from indexer.minhash import to_signed
from indexer.sections import JOB_SECTIONS
from indexer.shingles import mix
from indexer.text import fold_accents, fold_field, normalise_location, normalise_title
from indexer.units import UnitProfile

LEAD_SHINGLES = 64
"""Shingles of leading job text whose positions may be anchors (about 78 words with the keys'
context): what a 250-500-character snippet holds. Each key is a stored row and a term of every
search: 64 gives 8.8 keys per NHS ad against 13.6 for 96, with the same share (98.8%) of
250-500-character snippets of 1,200 NHS ads sharing a key with their ad."""

WINDOW = 12
"""Winnowing window in shingles: every run of 12 consecutive lead shingles holds an anchor."""

CONTEXT_STEPS = (5, 10)
"""Shingles hashed with an anchor, by offset: the key covers the 15 words from the anchor.
A bare anchor shingle (5 words, "we are looking for a") recurs across thousands of ads and
made 6.7 raw hits per NHS ad, of which 0.6 passed verification; 15 words rarely recur
unless copied. Two texts sharing a run of WINDOW + 10 shingles (26 words) share a key."""

_GENERIC_WORDS = """
    the a an le la les l de des du d of and et y und der die das het el los las il
    groupe group grupo gruppe groep cabinet agence agency societe ste compagnie company cie
    etablissements ets entreprise entreprises holding association fondation foundation
    institut institute centre center university universite hopital hospital clinique
    ville mairie commune conseil departement region caisse banque bank mutuelle cooperative
    laboratoire laboratoires services service solutions international france europe uk nhs
    st saint sainte new national general
"""
GENERIC_COMPANY_WORDS = frozenset(_GENERIC_WORDS.split())
"""Leading words of company keys that name a kind of organisation, not an employer: the
company-title key uses the first word after them ("groupe acme" → "acme")."""

_LEAD_DOMAIN = np.uint64(0x4C45414446505254)  # "LEADFPRT": fingerprints never equal band keys
_OPENING_DOMAIN = np.uint64(0x4F50454E494E4753)  # "OPENINGS", the bare title's hash mixed in

OPENING_SHINGLES = 40
"""Shingles of the whole text's opening that opening keys winnow (about 50 words with the
keys' context): what a 250-character snippet holds."""
SNIPPET_SHINGLES = 2 * OPENING_SHINGLES
"""Shingles under which a posting is snippet-sized (a 500-character snippet has about 70):
it always has opening keys, whatever its opening, since the ad it was cut from may open
with text the lead fingerprints leave out."""
_COMPANY_TITLE_PREFIX = "company-title\x1f"
_BARE_TITLE_PREFIX = "bare-title\x1f"

_TITLE_CODE = re.compile(
    r"(?:\b(?i:r[eé]f(?:[eé]rence)?|req|job[\s-]?id)\b\.?\s*(?:n[o°]\.?\s*)?[:#]?\s*)?"
    r"\b[A-Z]{1,6}[-_]?\d{3,}[\w-]*"
)
"""A requisition code written without a keyword: capitals then three or more digits
("STG-5521", "JR104233", "REQ_2041"), with a reference word before it if there is one
("- Ref. Z11894": the code alone would leave "ref" in the key). Capitals only, so grades
and numbers of role words stay ("Band 5", "Level 3", "B2B"), and a bare number stays too:
titles that differ only by one ("Role 1234", "Role 1235") are different postings, and a
key they all shared would make every one a candidate of every other. `normalise_title`
already drops codes announced by a keyword ("Réf. ABC-123", "Job ID 4711")."""


def eligible_units(sections: Sequence[str], boilerplate: Sequence[bool]) -> npt.NDArray[np.bool_]:
    """Units whose shingles may be fingerprinted: job sections that are not boilerplate."""
    return np.array(
        [s in JOB_SECTIONS and not b for s, b in zip(sections, boilerplate, strict=True)],
        dtype=bool,
    )


def lead_changed(sections: Sequence[str], before: Sequence[bool], after: Sequence[bool]) -> bool:
    """Whether a new boilerplate mask changes which units are fingerprinted (the index mostly
    learns benefits, legal and apply text, which never was): else the keys stand."""
    return any(
        b != a and s in JOB_SECTIONS for s, b, a in zip(sections, before, after, strict=True)
    )


def lead_fingerprints(profile: UnitProfile, boilerplate: Sequence[bool]) -> list[int]:
    """Lead fingerprints of a posting (see the module docstring): anchors chosen by winnowing
    among the first `LEAD_SHINGLES` shingles of its eligible units, each key hashing the
    anchor shingle with the shingles `CONTEXT_STEPS` after it. An empty list when that text
    is too short to give one whole key.

    `boilerplate` is the posting's unit mask (one flag per unit of `profile`). Shingles
    belong to the unit they start in, as in the sketch."""
    if not len(profile.shingles) or not len(profile.sections):
        return []
    stream = profile.shingles[eligible_units(profile.sections, boilerplate)[profile.owners]]
    return _winnowed(stream, LEAD_SHINGLES, _LEAD_DOMAIN)


def opening_keys(profile: UnitProfile, boilerplate: Sequence[bool], bare: str) -> list[int]:
    """Opening keys of a posting (see the module docstring): the winnowed keys of the first
    `OPENING_SHINGLES` shingles of the whole text, whatever their sections and boilerplate,
    in a hash domain of the bare title (`bare`), so that only postings of one bare title
    meet through them. Empty without a bare title or with too short a text, and for an ad
    of `SNIPPET_SHINGLES` or more whose opening is all lead-fingerprinted job text: a
    snippet of that opening meets it through the lead fingerprints already (97% of NHS
    ads; `boilerplate` is the posting's unit mask, as for `lead_fingerprints`)."""
    if not bare or not len(profile.shingles):
        return []
    if len(profile.shingles) >= SNIPPET_SHINGLES:
        owners = profile.owners[:OPENING_SHINGLES]
        if eligible_units(profile.sections, boilerplate)[owners].all():
            return []
    domain = _OPENING_DOMAIN ^ np.uint64(xxhash.xxh64_intdigest(bare.encode()))
    return _winnowed(profile.shingles, OPENING_SHINGLES, domain)


def _winnowed(stream: npt.NDArray[np.uint64], limit: int, domain: np.uint64) -> list[int]:
    """The winnowed keys of the first `limit` shingle hashes of `stream`, in the hash domain
    `domain` (lead fingerprints, opening keys)."""
    count = min(len(stream), limit) - WINDOW + 1
    if count < 1:
        return []
    # A strided view of the windows over the (contiguous) stream: numpy's
    # sliding_window_view costs 30 µs of wrapper per call, more than the work.
    size = stream.itemsize
    windows = np.ndarray((count, WINDOW), np.uint64, stream, strides=(size, size))
    anchors = windows.argmin(axis=1) + np.arange(count)
    # Winnowed positions never decrease as the window slides: drop repeats without sorting.
    fresh = np.ones(count, dtype=bool)
    np.not_equal(anchors[1:], anchors[:-1], out=fresh[1:])
    anchors = anchors[fresh]
    anchors = anchors[anchors + CONTEXT_STEPS[-1] < len(stream)]
    if not len(anchors):
        return []
    keys = mix(stream[anchors] ^ domain, (stream[anchors + step] for step in CONTEXT_STEPS))
    result: list[int] = to_signed(keys).tolist()
    return result


def company_word(company_key: str) -> str:
    """The first distinctive word of a normalised company key, or "" if it has none."""
    for word in company_key.split():
        if len(word) >= 2 and word not in GENERIC_COMPANY_WORDS:
            return word
    return ""


def company_title_key(company_key: str, title_key: str) -> int | None:
    """The key of (first distinctive company word, title key); None without either."""
    word = company_word(company_key)
    if not word or not title_key:
        return None
    return signed_hash(f"{_COMPANY_TITLE_PREFIX}{word}\x1f{title_key}")


def block_company_title_key(block_key: str) -> int | None:
    """`company_title_key` of a posting known by its block key ("company key|title key"):
    which hits of a search share the query's company-title key, since the store does not
    say which key matched."""
    company_key, _, title_key = block_key.partition("|")
    return company_title_key(company_key, title_key)


_UNCLOSED_TAIL = re.compile(r"\s*\([^()]*$")
"""A parenthesis opened and never closed at the end of a title: what a board's length limit
leaves of a qualifier ("Senior Nursing Care Assistant – Penylan House Nursing Home, Cardiff
(D", cut at 70 characters; 28 of the 14,842 NHS titles end so). The same title written with
another separator is cut elsewhere, or not at all."""


_DEPARTMENT_TAIL = re.compile(r"\s*\(\s*(?:\d{2,3}|2[ABab])\s*\)?\s*$")
"""A French département number in parentheses ending a title, closed or cut by a board's
length limit: "CDD DATA ANALYST H/F - NICE (06)", "… - COSNE SUR LOIRE(58)", the
aggregator's copy "URGENT - CDD DATA ANALYST H/F - NICE (06". It marks what precedes it as a
place (`_without_titled_place`). Two or three digits only, nothing else in the
parentheses: 5 of the 3,305 French board titles end so, all a town and its département, and
4 of the 14,842 NHS titles, all a requisition number ("IAPT Wellbeing Navigator Lead
(731)"), which the bare title may drop as well. "(Band 5)" or "(ST1)" is not matched."""

_TITLE_SEPARATOR = re.compile(r"\s[-\u2013\u2014|]\s|\s*\|\s*")
"""What sets a title's last part apart: a spaced dash, en or em dash, or a bar."""

MAX_TITLED_PLACE_WORDS = 5
"""Words at most in the part before a département number for it to be read as a place
("Saint André de l'Eure (27)"); a longer part is the role itself."""


def _without_titled_place(title: str) -> str:
    """`title` without a place its board marked by a département number
    (`_DEPARTMENT_TAIL`): the whole last part after a separator when it is short ("Data
    Analyst H/F - Nice (06)" → "Data Analyst H/F"), else the number alone. Aggregators list
    such an ad under its département, region or country, so the listing's words cannot take
    the town out of the title, and the snippet's bare title kept "nice" where the board's
    lost it: an intro-only snippet of the ad was then never kept for scoring."""
    if "(" not in title:  # most titles: no regex on the hot path
        return title
    match = _DEPARTMENT_TAIL.search(title)
    if match is None:
        return title
    head = title[: match.start()]
    parts = _TITLE_SEPARATOR.split(head)
    if len(parts) > 1 and 0 < len(parts[-1].split()) <= MAX_TITLED_PLACE_WORDS:
        kept = head[: head.rfind(parts[-1])].rstrip(" -\u2013\u2014|")
        if kept:
            return kept
    return head if head.strip() else title


def _without_lead_in(title: str, title_key: str) -> str:
    """`title` without a board's lead-in (`key_patterns.BOARD_LEAD_IN`), folded as
    `normalise_title` folds it (`indexer.text.fold_field`, so its key is unchanged), or
    `title` itself if it has none or nothing would be left. Runs on every hit a search
    keeps unverified (`service.pipeline._bare_at_query`): only a title key starting with a
    lead-in's first word is folded and matched."""
    if title_key.partition(" ")[0] not in BOARD_LEAD_IN_FIRST:
        return title
    folded = fold_field(title)
    spaced = folded.replace("'", " ").replace("\u2019", " ")
    start = 0
    # Lead-ins stack ("URGENT - Offre d'emploi : Data Engineer"): each one set apart goes.
    while (match := BOARD_LEAD_IN.match(spaced[start:])) is not None and match.end():
        start += match.end()
    if start == 0 or start == len(folded):
        return title
    return folded[start:]


def bare_title(
    title: str, location: str | None, title_key: str, stop: frozenset[str] = frozenset()
) -> str:
    """The title key without requisition codes (`_TITLE_CODE`), without the unclosed
    parenthesis that a board's length limit leaves at the end (`_UNCLOSED_TAIL`), without a
    board's lead-in ("Offre d'emploi : ", `key_patterns.BOARD_LEAD_IN`) and without the
    posting's own place (see the module docstring), unless nothing would be left.

    The place is a run of the location field's words in the title, short ones too
    ("Choisy-le-Roi", "Bury St Edmunds" leave no "le" or "st" behind) as long as the run
    holds a word of three letters or more (the "en" of "planification en industrie" at
    Aix-en-Provence stays), with "Saint" and "St" alike
    (`key_patterns.PLACE_ABBREVIATIONS`). Where the title ends with it, the whole end goes:
    with a district or a number after the town ("Berlin-Mitte", "Paris (75)", "Lyon 3e": at
    most one word that is not the place's, any number of words with a digit), and with the
    word that joins the town to the role ("à Mauves", "in München", "te Utrecht", "en
    Madrid"): a stop word of the posting's language (`stop`) of three letters or fewer,
    written just before the town. Elsewhere in the title only the place's runs go. The
    rest is read by `normalise_title` once more: what the place hid may now end the title
    ("Employe commercial h f (H/F) - Soyons" keeps "h f" until "soyons" goes). `title_key`
    is `normalise_title(title)`, which most titles (no code, nothing cut) keep."""
    raw = _without_lead_in(
        _UNCLOSED_TAIL.sub("", _without_titled_place(_TITLE_CODE.sub(" ", title))), title_key
    )
    key = (normalise_title(raw) or title_key) if raw != title else title_key
    if not location:
        return key
    place = _place_words(location)
    words = key.split()
    runs = _place_runs(words, place)
    if not runs:
        return key
    kept = list(words)
    # While the title ends with its place, the whole end goes, and again: a board that adds
    # the town to a title naming it already ("DATA ANALYST - NICE (06) à Nice").
    while runs and runs[-1][0] and _place_tail(kept[runs[-1][1] :]):
        start = runs.pop()[0]
        kept = kept[:start]
        joining = kept[-1]
        if (
            len(kept) > 1
            and len(joining) <= 3
            and joining in stop
            and _joins(raw, joining, words[start])
        ):
            kept.pop()
    for begin, stop_at in reversed(runs):
        del kept[begin:stop_at]
    if not kept:
        return key
    rest = " ".join(kept)
    return normalise_title(rest) or rest


@lru_cache(maxsize=4096)
def _place_words(location: str) -> frozenset[str]:
    """The location's words as `bare_title` compares them, remembered: the pipeline reads
    each hit's title against the query's one location (`service.pipeline`)."""
    return frozenset(_abbreviated(w) for w in normalise_location(location).split() if w.isalpha())


def _place_tail(after: Sequence[str]) -> bool:
    """Whether what follows a place in a title still belongs to it: at most one word without
    a digit (a district: "Berlin-Mitte") and any number with one ("(75)", "3e")."""
    return sum(not any(c.isdigit() for c in w) for w in after) <= 1


def _place_runs(words: Sequence[str], place: frozenset[str]) -> list[tuple[int, int]]:
    """(start, end) of each run of consecutive place words holding one of three letters or
    more: "choisy le roi" is one run, the "en" of "planification en industrie" is none
    (Aix-en-Provence's "en" names no place alone)."""
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(words):
        j = i
        while j < len(words) and _abbreviated(words[j]) in place:
            j += 1
        if j > i and any(len(w) >= 3 for w in words[i:j]):
            runs.append((i, j))
        i = max(j, i + 1)
    return runs


def _abbreviated(word: str) -> str:
    return PLACE_ABBREVIATIONS.get(word, word)


def _joins(title: str, word: str, town: str) -> bool:
    """Whether `word` stands right before `town` in the title as written (only spaces
    between): "à Mauves" does, "Head of IT - London" does not."""
    folded = fold_accents(title).lower()
    return re.search(rf"(?<!\w){re.escape(word)}\s+{re.escape(town)}(?!\w)", folded) is not None


def bare_title_key(company_key: str, bare: str) -> int | None:
    """The key of (company key, bare title); None without a title. Kept whatever the
    company (none, or generic), like the block key."""
    if not bare:
        return None
    return signed_hash(f"{_BARE_TITLE_PREFIX}{company_key}|{bare}")


def signed_hash(text: str) -> int:
    """xxh64 of a key's text as the signed 64-bit int every store indexes."""
    value = xxhash.xxh64_intdigest(text.encode())
    return value - (1 << 64) if value >= 1 << 63 else value


def lookup_keys(
    profile: UnitProfile,
    boilerplate: Sequence[bool],
    company_key: str,
    title_key: str,
    bare: str,
) -> list[int]:
    """All lookup keys of a posting: its lead fingerprints, its company-title key, its
    bare-title key (`bare_title_key` of its bare title, `bare`), the company-title key of
    the bare title where that is not the title key, and its opening keys.

    The company-title key of the bare title is for an aggregator's copy that both
    decorates the title and names the employer another way ("Offre d'emploi : Data
    Engineer - H/F" by "Talan France" against "Data Engineer - H/F" by "Talan"): neither
    the bare-title key (whole company key) nor the company-title key (decorated title)
    meets the board's ad, and when the copy is a snippet of the employer's intro, which the
    board's ad leaves out of its sketch, no other key does."""
    keys = lead_fingerprints(profile, boilerplate)
    loose = company_title_key(company_key, title_key)
    if loose is not None:
        keys.append(loose)
    bare_key = bare_title_key(company_key, bare)
    if bare_key is not None:
        keys.append(bare_key)
    loose_bare = company_title_key(company_key, bare) if bare != title_key else None
    if loose_bare is not None and loose_bare != loose:
        keys.append(loose_bare)
    keys += opening_keys(profile, boilerplate, bare)
    return keys
