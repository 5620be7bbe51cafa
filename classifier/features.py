"""Pair features: two postings' fields and sketch estimates → one named vector of floats.

Pure (no I/O, no model library). `FEATURE_NAMES` and `FEATURE_VERSION` are part of every
model artifact: a model trained on other features is refused at load time, because LightGBM
would silently read column k as whatever feature k is now.

Why these features: on real boards the text alone does not separate duplicates from
look-alikes. Multi-site campaigns, bank and substantive versions, band 5 and band 6 of one
role share their whole description, so the model needs the *fields that differ* (location,
title, grade, contract, salary), while a re-post that is truncated, re-wrapped or padded with
boilerplate keeps its contacts, references, title and salary. Every feature is symmetric in
the two postings (min/max or unordered comparisons), so scores do not depend on which one
arrived first.

Missing values are NaN (LightGBM routes them on their own branch): "both have a salary and
they differ" must not look like "one side has no salary".
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
from rapidfuzz import fuzz

from classifier import gazetteer
from classifier.anchors import shared_anchors
from classifier.companies import company_ratio
from classifier.cover_sentences import COVER, kept_share
from classifier.fields import PostingFields, extract_fields
from classifier.gender_forms import one_gender
from classifier.lexicon import (
    COMPASS_WORDS,
    CONTRACT_DIMENSIONS,
    ENGAGEMENT,
    STRONG_CONTRACT,
    STUB_LEADS,
)
from classifier.scoring import Candidate
from classifier.stated_place import LEVELS, near, same_place
from classifier.stems import stem_words
from classifier.words import shared_count
from indexer.anchor_words import transliterate
from indexer.language import stop_words
from indexer.minhash import SketchParams, estimate_jaccard, overlap_from_jaccard
from indexer.prepare import PreparedPosting, prepare_document
from indexer.store import StoredPosting
from indexer.stub_keys import names_title
from indexer.text import tokenize

FEATURE_VERSION = 51
# 2: jaccard/overlap of the index sketch after boilerplate and non-job sections are left out;
#    core_share_min/max, content_jaccard, salary_yearly_log_ratio; multilingual fields.
# 3: anchor_overlap, anchor_shared_log (names, places, codes: what a translation keeps).
# 4: three-valued contract and seniority comparisons (conflict / agree / unknown) instead of
#    one-sided counts; titles compared without place names; title_stem_jaccard; text
#    features of the job-specific units; place containment and distance (gazetteer).
# 5: titles also compared without the employer's identifying words; towns without the short
#    function words of multi-word names ("sur"), which made any two French ads "co-located".
# 6: layout_ratio (the texts' punctuation, numbers and line breaks: what a translation keeps).
# 7: titles with both genders of a word ("Vendeur / Vendeuse", "Verkäufer/in") read with one
#    (`classifier.gender_forms`), as job centres' occupation labels write them.
# 8: location_in_other_description: two different towns (gazetteer) each named whole.
# 9: both genders also folded in Spanish, Portuguese, German and Croatian; "/In-" starting a
#    word is no German "/in"; a commune too small for the gazetteer is not the town ending
#    its name ("Ernolsheim-lès-Saverne" is not Saverne), and such a commune counts by its own
#    words in location_in_other_description, which now needs all of a town's own words.
# 10: title_equal, title_jaccard, title_token_set_ratio, title_ratio and title_diff_tokens
#     compare the titles' words without inflection (`classifier.stems`); a double-gender
#     form folds across words the two forms share ("Secrétaire administratif / Secrétaire
#     administrative") and across hyphens ("Conducteur-receveur / Conductrice-receveuse").
# 11: title_words_in_text_min: whether the words one title has and the other lacks are
#     words of the other side's text (a job centre's label for the job the text describes,
#     against another role's title put on the same text).
# 12: stated_place_agrees: whether the place of work the texts state ("basée sur Bussy
#     Saint Georges", `classifier.stated_place`) is where both ads are listed (boards file
#     one vacancy under neighbouring communes).
# 13: the statement read after Croatian, Latvian and Lithuanian cues and a colon-less Polish
#     one; an article after a cue is a whole word ("based in Derby" was "de" + "rby").
# 14: title_label_one_sided: one title written in both genders in full (a job centre's
#     occupation label), the other not, and naming the label's occupation word.
# 15: a German "/in" label's word is the word before its own slash, not before the title's
#     first one ("Führungskraft (m/w/d) (Projektleiter/in)" read "m").
# 16: stated_place_agrees also reads the town or district a title names near its listing
#     when the text states none ("Data Engineer CDI Paris 12ème" under Ivry-sur-Seine).
# 17: not a name the title starts with, unless that part is the name alone: Greek
#     "ΕΡΓΑΤΕΣ" (workers) is also a village 10 km from Nicosia.
# 18: cover_sentence_kept: how much of the sentence stating a one-sided cover the other text
#     keeps (`classifier.cover_sentences`): a lost sentence against an edited announcement.
# 19: stub_names_title: whether a stub's phrases ("En bref : <title>, <keywords>") name the
#     other side's title (`indexer.stub_keys`): a job centre's relay against another title;
#     stated_place_agrees also reads French "sur <town near the listing>" ("Garde d'enfant
#     CDI (H/F) sur Muret"), after the other cues.
# 20: a stub naming the other side's title is compared by that title in the title features
#     (`_as_named`): the job centre's label over its "En bref : <title>, ..." is no retitle.
# 21: a town the text states is kept as the place of work under a listing of a commune the
#     gazetteer lacks, named under the département holding the town ("07 - LYAS" for an
#     establishment "situé à PRIVAS"; `stated_place.near_listing`).
# 22: a contract dimension one side reads from a text that the other copy's own title
#     contradicts with a weak marker is one-sided, not a conflict (`_text_voided`: "Data
#     Scientist - Temps plein" on a text offering "formules de travail à temps partiel").
# 23: ... only if the titled copy's text holds no number the other lacks (an employer's edit
#     to other terms, "22 hours per week", is no board's copy).
# 24: a bare listing name many towns bear ("Hook", "Rainham", "Saint-Vallier") is the
#     namesake near the place the ad's own title or text states (`stated_place.
#     listing_place`); company names in Cyrillic or Greek against Latin ones are compared
#     transliterated (`_same_script`: "АУРУБИС БЪЛГАРИЯ АД" / "AURUBIS BULGARIA AD").
# 25: ... and, when the ad states no place, the namesake near the other copy's place in
#     the place features (`_pair_places`: "Châtillon" beside "69 - CHATILLON"); a name's
#     areas ("Varna" the province) are no namesakes.
# 26: a stated place may start with any Latin capital ("Miejsce pracy: Żywiec", "Mjesto
#     rada: Šibenik"); the gazetteer reads countries in the boards' languages ("България"),
#     EURES' Polish "South-East", English counties' postal abbreviations ("Staffs", "Hants"),
#     Reading and Luton inside their counties, and no town in a street's name ("London
#     Road, DE1 2QY").
# 27: British and Irish places written another way (`gazetteer_data.english_variants`:
#     "Burton on Trent", "W Sussex", "Co. Durham"; a big town's short form, "Southend") and
#     the preserved counties of Wales ("Gwent", "Clwyd", "Dyfed", the Glamorgans).
# 28: the text's words a feed glued where it deleted line breaks are parted again, on line
#     breaks of their own (`indexer.glue`: "Vos missionsComptabiliser", "FranceDescription").
# 29: a stated place of work may go on in lower case ("basé sur Le pouzin (07)", "basé à
#     Reignier esery (74)"): the longest such run that is a town's whole name near the
#     listing (`stated_place._lower_case_tail`).
# 30: company_client_voice (how many texts speak for an unnamed end client: "pour le compte
#     de notre client"); two different names are then unknown, not another employer.
# 31: "working with a client group" (a care team's client) is no agency's voice.
# 32: stated_place_agrees also reads a site the gazetteer lacks, named alike by both texts
#     ("Lieu : Sophia Antipolis" under Vallauris and Valbonne; `stated_place.site_name`).
# 33: stub_phrases_in_text: the share of a stub's phrases besides the title that the other
#     side's text holds (`_stub_phrases_in_text`): a relay's keywords are its ad's, the stub
#     of another vacancy of the title lists another text's.
#     A stub read by the title it names takes that title's seniority too: the job centre's
#     label over it ("Chef des ventes" over "En bref : MANAGER DES VENTES (21), ...") is no
#     seniority of the vacancy (`_as_named`); a stub's phrases run to 16 title-key words,
#     not 8 (`indexer.stub_keys.PHRASE_MAX_WORDS`), so a long title it names is read.
# 34: a place of work typed all in lower case with its code after it ("basé à vert saint
#     denis (77240)") is read near the listing (`stated_place._LOWER_WITH_CODE`).
# 35: French "basé au Teil" states Le Teil (the article "au" holds, `stated_place.
#     _CONTRACTED`; it was read as "basé a" + "u Teil"); a site's name may hold "and" or
#     "of" and end with a kind of site written in lower case ("Eastern and Coastal Area
#     Offices", "Meadowbrook unit"; `stated_place._site_at`).
# 36: stated_title_agrees: the employer's titles the texts state in their opening lines
#     ("POSTE : Business Developer H/F", "Job Title: ..."; `classifier.stated_title`), where
#     a job centre's relay carries its occupation label as the title. A French "au" before
#     a country names no site ("basé au Canada").
# 37: countries outside Europe under their names in the boards' languages ("basés aux
#     États-Unis" named a site; `gazetteer_data._add_country_translations`).
# 38: a French listing's commune without its article is the town that has one ("07 -
#     Vans" is Les Vans; `gazetteer._with_article`).
# 39: Latvian "pastāvīgu darbu" / "pastāvīgs līgums" (permanent) and Bulgarian "(не)пълно
#     работно време" (full / part time) read as contract and schedule.
# 40: contract phrases about other staff or a perk ("the opportunity to work bank shifts",
#     "this includes bank staff", "locum agencies") are not the post's
#     (`lexicon.DESCRIPTION_ASIDES`).
# 41: a maternity-leave perk in a list of benefits ("maternity leave at 3 months' service",
#     "enhanced maternity cover") is not a maternity cover (`lexicon.DESCRIPTION_ASIDES`).
# 42: a locum counted among the team ("joins the existing 5 substantive consultants and 1
#     locum consultant") is not the post's engagement (`lexicon.COLLEAGUE_COUNT`).
# 43: contract words listed as alternatives ("cabinet de recrutement CDI, CDD et intérim",
#     "full or part time", "permanent or fixed term") state nothing on the dimension they
#     list (`classifier.contract_lists`).
# 44: cover_sentence_kept: a copy that ends mid-sentence inside the opening of the other's
#     cover sentence (an aggregator's snippet cut before "na određeno vrijeme") lost the
#     sentence, it did not edit it: share 0 (`cover_sentences.is_cut`, `tail_grams`).
# 45: stated_place_agrees reads the town of a site's address after a cue ("based at
#     Addenbrookes Hospital, Cambridge", "… Princess of Wales Hospital in Bridgend"; not a
#     list of towns), a cue naming a far place leaves the next cue its turn, and a site's
#     name in an e-mail address is no lower-case word (`stated_place._address_town`).
# 46: the salary features read a description's pay without the money that is not pay: an
#     amount with a magnitude ("£70 million") or named by its clause as a fee, a turnover,
#     a bonus or an allowance ("the DBS disclosure which is £29.50"; `contacts._is_pay`),
#     and two pays within `PAY_TOLERANCE` (6%) agree: salary_equal allows it,
#     salary_log_ratio and salary_yearly_log_ratio count only the difference past it.
# 47: a short text written in sentences is no stub (`indexer.stub_keys.LISTED_SHARE`: its
#     phrases must hold half its words; a household's "Bonjour, nous cherchons ..." kept
#     only "bonjour"), and the pay of a text leaves out the money the EURES languages name
#     that is not pay (a meal card, a per diem, a sports allowance; `lexicon.NOT_PAY`).
# 48: company_ratio compares the names without the ad's own place closing them and with
#     one name's words run together as the other writes them (`classifier.companies`:
#     "CER FRANCE ARDECHE" / "Cerfrance"); place_distance_log is 0 for a place inside the
#     other (a city's quarter was 0.6 km from its centre, read as a neighbouring town).
# 49: a place closing an employer's name stays in it when it is part of the name: after a
#     qualifier ("West Suffolk", "Royal Berkshire"), another place of the country ("Norfolk
#     and Suffolk"), only generic words ("University Hospitals Birmingham"), or the listing
#     writing the employer ("Kingston Hospital, Kingston Upon Thames"); 933 of 7,972 NHS
#     company/listing pairs were cut, "West Suffolk" to "west", 66 are now.
# 50: cover_one_sided_full and cover_sentence_kept read a cover only against a side that says
#     nothing of it: a side stating a permanent post (the other not) is no silent re-post.
# 51: title_unit_conflict (`classifier.title_units`: both titles name a ward's or post's
#     number, or a compass point, and not the same one: "Ward 6" / "Ward 7", "7 South" /
#     "7 North"); the title features no longer drop an employer's compass words from both
#     titles ("London North West University Healthcare" made "Staff Nurse - 7
#     North" and "- 7 South" one title); `lexicon.NAME_QUALIFIERS` holds the German, Dutch,
#     Portuguese, Romanian and Croatian compass words.
"""Bump whenever a feature's definition changes (not only its name): artifacts record it."""

FEATURE_NAMES: tuple[str, ...] = (
    # text similarity
    "jaccard",
    "overlap",
    "containment_min",
    "shingle_ratio",
    "description_equal",
    "shingle3_jaccard",
    "shingle3_overlap",
    "shingle3_unshared_log",
    "numbers_jaccard",
    "length_ratio",
    "core_share_min",
    "core_share_max",
    "content_jaccard",
    "anchor_overlap",
    "anchor_shared_log",
    "job_shingle3_overlap",
    "job_shingle3_jaccard",
    "layout_ratio",
    # title
    "title_equal",
    "title_jaccard",
    "title_token_set_ratio",
    "title_ratio",
    "title_diff_tokens",
    "title_in_description_min",
    "title_in_description_max",
    "title_stem_jaccard",
    "title_words_in_text_min",
    "title_label_one_sided",
    "stub_names_title",
    "stub_phrases_in_text",
    "stated_title_agrees",
    # seniority, grade, contract: conflict (1), agree (0), unknown (NaN), and one-sidedness
    "seniority_conflict",
    "seniority_one_sided",
    "grade_conflict",
    "grade_one_sided",
    "description_grade_conflict",
    "title_unit_conflict",
    "contract_conflict",
    "contract_one_sided",
    "engagement_title_one_sided",
    "cover_one_sided_full",
    "cover_sentence_kept",
    # company
    "company_equal",
    "company_ratio",
    "company_missing",
    "company_in_other_description",
    "company_client_voice",
    # location
    "location_equal",
    "location_token_jaccard",
    "location_token_containment",
    "location_ratio",
    "postcode_equal",
    "outward_equal",
    "location_missing",
    "remote_any",
    "location_in_other_description",
    "place_relation",
    "place_distance_log",
    "stated_place_agrees",
    # contacts
    "email_match",
    "email_sides",
    "phone_match",
    "phone_sides",
    "url_match",
    "url_sides",
    "reference_match",
    "reference_sides",
    # salary
    "salary_equal",
    "salary_overlap",
    "salary_log_ratio",
    "salary_sides",
    "salary_yearly_log_ratio",
    # time and language
    "days_apart",
    "language_equal",
)

NAN = math.nan
FeatureMatrix = npt.NDArray[np.float64]
FieldExtractor = Callable[[PreparedPosting | StoredPosting], PostingFields]


def document_fields(posting: PreparedPosting | StoredPosting) -> PostingFields:
    """Fields of a posting, extracted from its document (no memo)."""
    return extract_fields(posting.document)


@dataclass(frozen=True)
class TextSimilarity:
    """What the index knows about a pair before reading documents: the sketch Jaccard
    estimate, both shingle-set sizes and the gap between posting dates (days, None if
    unknown)."""

    jaccard: float
    shingles_a: int
    shingles_b: int
    days_apart: float | None

    @classmethod
    def between(cls, a: PreparedPosting, b: PreparedPosting, dated: bool) -> TextSimilarity:
        """The estimates of two prepared postings (`dated`: both had a real posted_at)."""
        return cls(
            jaccard=estimate_jaccard(a.sketch, b.sketch),
            shingles_a=a.shingle_count,
            shingles_b=b.shingle_count,
            days_apart=abs((a.posted_at - b.posted_at).total_seconds()) / 86400.0
            if dated
            else None,
        )


def candidate_features(
    query: PreparedPosting,
    candidates: Sequence[Candidate],
    extract: FieldExtractor = document_fields,
) -> FeatureMatrix:
    """Feature matrix (len(candidates) x len(FEATURE_NAMES)) of a query against its
    verified candidates. `extract` lets the scorer pass a memoised extractor (candidates
    recur across queries); the default reads `posting.document`, which must be filled."""
    matrix = np.empty((len(candidates), len(FEATURE_NAMES)), dtype=np.float64)
    query_fields = extract(query)
    for row, candidate in enumerate(candidates):
        other = candidate.posting
        similarity = TextSimilarity(
            jaccard=candidate.jaccard,
            shingles_a=query.shingle_count,
            shingles_b=other.shingle_count,
            days_apart=abs((query.posted_at - other.posted_at).total_seconds()) / 86400.0,
        )
        matrix[row] = feature_row(query_fields, extract(other), similarity)
    return matrix


def pair_features(
    a: Mapping[str, Any], b: Mapping[str, Any], params: SketchParams | None = None
) -> npt.NDArray[np.float64]:
    """Feature vector of two posting dicts (API schema), sketched with `params` exactly as the
    index would (default parameters if None). For evaluation, training and explanations."""
    params = params or SketchParams()
    similarity = TextSimilarity.between(
        prepare_document(dict(a), params),
        prepare_document(dict(b), params),
        dated=bool(a.get("posted_at")) and bool(b.get("posted_at")),
    )
    return np.asarray(feature_row(extract_fields(a), extract_fields(b), similarity))


def feature_row(a: PostingFields, b: PostingFields, sim: TextSimilarity) -> list[float]:
    """The features of one pair, in `FEATURE_NAMES` order."""
    named_a, named_b = _as_named(a, b), _as_named(b, a)
    row = (
        _text_features(a, b, sim)
        + _title_features(named_a, named_b)
        + _marker_features(named_a, named_b)
        + _company_features(a, b)
        + _location_features(a, b)
        + _contact_features(a, b)
        + _salary_features(a, b)
        + [
            NAN if sim.days_apart is None else sim.days_apart,
            NAN if not (a.language and b.language) else float(a.language == b.language),
        ]
    )
    return row


def _text_features(a: PostingFields, b: PostingFields, sim: TextSimilarity) -> list[float]:
    small, large = sorted((sim.shingles_a, sim.shingles_b))
    overlap = overlap_from_jaccard(sim.jaccard, sim.shingles_a, sim.shingles_b)
    containment_min = overlap * small / large if large else 0.0
    lengths = sorted((a.description_length, b.description_length))
    shared = shared_count(a.shingles, b.shingles)
    sizes = sorted((a.shingles.size, b.shingles.size))
    return [
        sim.jaccard,
        overlap,
        containment_min,
        small / large if large else NAN,
        float(a.description_hash == b.description_hash),
        shared / (sizes[0] + sizes[1] - shared) if sizes[1] else NAN,
        shared / sizes[0] if sizes[0] else NAN,
        math.log1p(sizes[0] - shared),
        _jaccard(a.description_numbers, b.description_numbers),
        lengths[0] / lengths[1] if lengths[1] else NAN,
        *_core_shares(a, b, sim),
        _jaccard(a.content_tokens, b.content_tokens),
        *_anchor_features(a, b),
        *_job_text_features(a, b),
        _layout_ratio(a, b),
    ]


LAYOUT_MIN_CHARS = 4
"""Shorter layouts (a one-line ad) say nothing: NaN."""


def _layout_ratio(a: PostingFields, b: PostingFields) -> float:
    """Similarity (rapidfuzz's normalised Indel ratio) of the two texts' layouts
    (`fields.layout`): near 1 for an ad and its translation, lower for two ads that merely
    share an employer's template."""
    if min(len(a.layout), len(b.layout)) < LAYOUT_MIN_CHARS:
        return NAN
    return fuzz.ratio(a.layout, b.layout) / 100.0


def _job_text_features(a: PostingFields, b: PostingFields) -> list[float]:
    """(overlap, Jaccard) of the 3-word shingles of the middles of the two descriptions
    (`fields.MIN_JOB_TOKENS`): an employer intro or outro rewritten between two scrapes changes
    the full-text figures but not these; NaN when either ad is too short to have a middle."""
    if not (a.job_shingles.size and b.job_shingles.size):
        return [NAN, NAN]
    shared = shared_count(a.job_shingles, b.job_shingles)
    sizes = sorted((a.job_shingles.size, b.job_shingles.size))
    return [shared / sizes[0], shared / (sizes[0] + sizes[1] - shared)]


def _anchor_features(a: PostingFields, b: PostingFields) -> list[float]:
    """(share of the smaller anchor set found on the other side, log1p of how many anchors
    are shared): a translated re-post keeps its names and codes while sharing no shingles.
    (A third, the share without the employer's name, left the same employer's translated
    vacancies as confusable: 36% against 38% false positives on held-out pairs.)"""
    shared = len(shared_anchors(a.anchors, b.anchors, a.description_tokens, b.description_tokens))
    smaller = min(len(a.anchors), len(b.anchors))
    return [min(1.0, shared / smaller) if smaller else NAN, math.log1p(shared)]


def _core_shares(a: PostingFields, b: PostingFields, sim: TextSimilarity) -> list[float]:
    """How much of each description the index sketch kept (shingles per token, at most 1):
    low when boilerplate or company and legal sections were left out. Lets the model weigh
    the sketch overlap (job text only) against the full-text overlap (boilerplate included)."""
    if not (a.description_length and b.description_length):
        return [NAN, NAN]
    shares = sorted(
        min(1.0, shingles / length)
        for shingles, length in (
            (sim.shingles_a, a.description_length),
            (sim.shingles_b, b.description_length),
        )
    )
    return shares


def _title_features(a: PostingFields, b: PostingFields) -> list[float]:
    """Titles compared without what boards add from the posting's other fields:
    - the place names either side gives as its location, when only one title names a place
      ("Data Analyst H/F - Lyon"); when both titles name different places they stay
      ("CAMHS Psychiatrist Canterbury" / "... Thanet": a campaign's one ad per site);
    - the identifying words of either side's employer ("Association Béthanie -
      Kinésithérapeute (H/F)", "Data Engineer | Acme"), dropped from both titles alike, so
      two vacancies of one employer still differ by their role words. The compass words of a
      name ("London North West University Healthcare") identify no employer and stay: in a
      title they name a ward or an area ("Staff Nurse - 7 North" / "- 7 South").

    The last feature (`_label_names_title`) says whether one title only is written in both
    genders in full and the other names its occupation word: a job centre relaying an ad
    under its occupation label ("Infirmier H/F en SSR" / "Infirmier / Infirmière de soins
    généraux") changes the title's words and its form but keeps the occupation. The folded
    titles above no longer show the form."""
    if not (a.title_key and b.title_key):
        return [NAN] * 12 + [_stated_title_agrees(a, b)]
    places = a.towns | b.towns
    named_a, named_b = a.title_tokens & places, b.title_tokens & places
    if named_a and named_b and named_a != named_b:
        places = frozenset()
    added = places | ((a.company_tokens | b.company_tokens) - COMPASS_WORDS)
    key_a, tokens_a = _without_places(a.title_key, a.title_tokens, added)
    key_b, tokens_b = _without_places(b.title_key, b.title_tokens, added)
    # Compared without inflection: one gender on each side ("ménagère" / "ménager") is one
    # word, and so are the forms a stemmer joins ("enfants" / "enfant"; `classifier.stems`).
    # The word sets are the keys' words that are tokens (not title stop words), read alike.
    plain_a, plain_b = key_a.split(), key_b.split()
    seq_a, seq_b = one_gender(plain_a, plain_b)
    read_a = stem_words(seq_a, a.language or b.language)
    read_b = stem_words(seq_b, b.language or a.language)
    stem_a, stem_b = " ".join(read_a), " ".join(read_b)
    words_a = frozenset(r for w, r in zip(plain_a, read_a, strict=True) if w in tokens_a)
    words_b = frozenset(r for w, r in zip(plain_b, read_b, strict=True) if w in tokens_b)
    return [
        float(stem_a == stem_b),
        _jaccard(words_a, words_b),
        fuzz.token_set_ratio(stem_a, stem_b) / 100.0,
        fuzz.ratio(stem_a, stem_b) / 100.0,
        float(len(words_a ^ words_b)),
        *sorted(
            (
                _covered(a.title_tokens, b.description_tokens),
                _covered(b.title_tokens, a.description_tokens),
            )
        ),
        _jaccard(_stems(tokens_a), _stems(tokens_b)),
        _own_words_in_text(
            _beginnings(plain_a, read_a, words_a - words_b),
            _beginnings(plain_b, read_b, words_b - words_a),
            a,
            b,
        ),
        _label_names_title(a, b, plain_a, plain_b),
        _stub_names_title(a, b),
        _stub_phrases_in_text(a, b),
        _stated_title_agrees(a, b),
    ]


def _stated_title_agrees(a: PostingFields, b: PostingFields) -> float:
    """Whether the employer's titles the texts state in their opening lines agree
    (`classifier.stated_title`: "POSTE : Business Developer H/F"): 1 when both state one
    title, or one states the other's title field; 0 when both state different titles (a
    job centre's relays of two roles under one occupation label: "Business Developer" and
    "Business Developer Solutions" at each of 24 towns of the French export); NaN
    otherwise. One side's stated title against a title field that differs says nothing:
    that field may be the job centre's label."""
    if a.stated_title and b.stated_title:
        return float(a.stated_title == b.stated_title)
    stated, other = (a, b) if a.stated_title else (b, a)
    if not stated.stated_title:
        return NAN
    return 1.0 if stated.stated_title == other.title_key else NAN


def _as_named(stub: PostingFields, other: PostingFields) -> PostingFields:
    """`stub` with `other`'s title when `stub` is a stub one of whose phrases is that title
    (`indexer.stub_keys`), else `stub` unchanged.

    A job centre's stub states the board's title in its text ("En bref : Serveur / Serveuse
    pour la saison d'été, 3 coupures, ...") under its own occupation label ("Serveur /
    Serveuse de restaurant"). Compared by the label, the titles read as two roles, and the
    title features outweighed `stub_names_title`: 17 of 100 relays scored under the
    threshold with model 7cd3bc9c34da (`bench/robustness.py --limit 100 --seed 13`), 14 of
    them with `stub_names_title` 1. The stub's phrases
    stay, so `stub_names_title` still reads the title it named.

    The label's seniority word goes with it (the marker features read the named sides too):
    "Chef des ventes" over "En bref : MANAGER DES VENTES (21), ..." read as lead against
    the board's manager, and `seniority_conflict` cost 2.0 of log-odds in 3 of the 6
    relays model c1bc8f12ca36 missed (`--limit 100 --seed 13`), each naming the board's
    title exactly."""
    if not stub.stub_phrases or not names_title(
        stub.stub_phrases, other.index_title_key, other.title_key
    ):
        return stub
    return replace(
        stub,
        title_key=other.title_key,
        title_tokens=other.title_tokens,
        title_label_words=other.title_label_words,
        seniority=other.seniority,
    )


def _stub_names_title(a: PostingFields, b: PostingFields) -> float:
    """1 when a side is a stub one of whose phrases is the other's title as the index keys
    it (`indexer.stub_keys`: "En bref : Commercial(e) vente menuiserie aluminium, Relation
    client" under the job centre's "Assistant commercial"), 0 when a side is a stub naming
    no such title, NaN when neither side is a stub: a stub's dozen words give the text
    features nothing to read, and the title it names is what the relay keeps of the ad."""
    if not (a.stub_phrases or b.stub_phrases):
        return NAN
    return float(
        names_title(a.stub_phrases, b.index_title_key, b.title_key)
        or names_title(b.stub_phrases, a.index_title_key, a.title_key)
    )


_LEAD_WORDS = frozenset(
    w for leads in STUB_LEADS.values() for lead in leads for w in tokenize(lead)
)
"""The words of the leads a stub opens with ("En bref : "): no keyword of the ad."""


def _stub_phrases_in_text(a: PostingFields, b: PostingFields) -> float:
    """Of a stub's phrases other than the titles (`_found_phrases`), the share whose words
    are all in the other side's text (the larger of the two sides when both are stubs); NaN
    when neither side is a stub or a stub has no other phrase.

    A job centre's stub lists, after the board's title, keywords of that ad ("En bref :
    Développeur frontend, API, Spring, Node.js") and of its own skill list ("Négocier les
    prix"). The title alone cannot tell the relay from the stub of another vacancy of that
    title, which the index proposes against every ad so titled: the shipped model
    c1bc8f12ca36 accepted 26 of the 26 such pairs of `bench/robustness.py --limit 100
    --seed 13 --families teaser_other_vacancy` where the ad was listed under its country,
    and the French export joined a "Responsable technique, Technicien d'études en génie
    climatique, climatisation" stub at Malville to a property developer's "Responsable
    technique" ad that names neither. Of that bench's 100 relays, 93 have a phrase found
    in the ad's text; of the 26 stubs of another vacancy, 7 (none above 0.5)."""
    shares = [
        share
        for stub, other in ((a, b), (b, a))
        if stub.stub_phrases and (share := _found_phrases(stub, other)) is not None
    ]
    return max(shares) if shares else NAN


def _found_phrases(stub: PostingFields, other: PostingFields) -> float | None:
    """The share of `stub`'s phrases found in `other`'s text, a phrase read as its words
    without stop words, numbers, lead words and either title's words, and found when each
    word or its stem is a word of the text; None when no phrase is left. A phrase that is
    two neighbouring ones joined (`indexer.stub_keys.stub_phrases`) is left out, and so is
    one whose words another phrase repeats (the title joined to a keyword)."""
    language = stub.language or other.language or ""
    dropped = stop_words(language) | _LEAD_WORDS | stub.title_tokens | other.title_tokens
    titles = {other.index_title_key, other.title_key}
    read: list[frozenset[str]] = []
    for phrase in stub.stub_phrases:
        if phrase in titles:
            continue
        kept = frozenset(w for w in phrase.split() if w not in dropped and not w.isdigit())
        if kept and kept not in read:
            read.append(kept)
    phrases = [
        words
        for words in read
        if not any(x | y == words for x in read for y in read if x != words != y and x != y)
    ]
    if not phrases:
        return None
    text = other.description_tokens
    stems: frozenset[str] | None = None
    found = 0
    for words in phrases:
        missing = sorted(words - text)
        if missing and stems is None:
            stems = frozenset(stem_words(sorted(text), language))
        found += stems is None or set(stem_words(missing, language)) <= stems
    return found / len(phrases)


def _label_names_title(
    a: PostingFields, b: PostingFields, plain_a: list[str], plain_b: list[str]
) -> float:
    """1 when one title only is a job centre's label (words written in both genders) and the
    other title names one of those occupation words (in either gender, or by its stem:
    "Infirmier H/F en SSR" / "Infirmier / Infirmière de soins généraux"), else 0."""
    if bool(a.title_label_words) == bool(b.title_label_words):
        return 0.0
    label, other, language = (
        (a.title_label_words, plain_b, a.language or b.language)
        if a.title_label_words
        else (b.title_label_words, plain_a, b.language or a.language)
    )
    words, others = one_gender(sorted(label), other)
    return float(not set(stem_words(words, language)).isdisjoint(stem_words(others, language)))


def _beginnings(plain: list[str], read: list[str], own: frozenset[str]) -> frozenset[str]:
    """What a text word must start with to name each title word whose stem is in `own`: the
    stem's first 5 letters, or the word's own first letters when the stem is shorter than 4
    ("aide" -> "aid", "data" -> "dat", "sala" -> "sal" would miss "aide", "data", "sala")."""
    if not own:
        return frozenset()
    pairs = zip(plain, read, strict=True)
    return frozenset((r if len(r) >= 4 else w)[:5] for w, r in pairs if r in own)


def _own_words_in_text(
    own_a: frozenset[str], own_b: frozenset[str], a: PostingFields, b: PostingFields
) -> float:
    """Of the words each title has and the other lacks (read without inflection), the share
    found in the other side's description (`_beginnings`: a word of the text starting with
    the stem's first 5 letters, so that "soin" finds "soins" and "general" finds "généraux"):
    the smaller of the two sides; NaN when the titles have the same words.

    A job centre relaying an ad under its occupation label ("Conseiller de vente (H/F)" ->
    "Conseiller / Conseillère des ventes automobiles") adds words of the job the text
    describes; another role's title put on one employer's text adds words the text lacks
    ("Comptable" on a sales rep's ad). In `bench/robustness.py --limit 400 --seed 11`, 25 of
    the 106 French relays model 6f420cb17f8c missed had all their label's own words in the
    text, against 29 of the 739 pairs of employer_template (another role on one employer's
    text, or two real ads of the employer)."""
    shares = [
        sum(_named(beginning, text) for beginning in own) / len(own)
        for own, text in ((own_a, b.description_tokens), (own_b, a.description_tokens))
        if own
    ]
    return min(shares) if shares else NAN


def _named(beginning: str, tokens: frozenset[str]) -> bool:
    """Whether a text's tokens hold a word starting with `beginning` (`_beginnings`); under 4
    letters ("rh", "7"), the word itself."""
    if beginning in tokens:
        return True
    return len(beginning) >= 4 and f" {beginning}" in _joined(tokens)


@lru_cache(maxsize=1024)
def _joined(tokens: frozenset[str]) -> str:
    """A text's tokens in one string, each after a space: a word beginning is then one
    substring search. Built once per posting (a frozenset keeps its hash): over the NHS
    ads' ingest the feature costs 24 µs per scored pair, against 80 µs with a set of
    every token's beginnings."""
    return " " + " ".join(tokens)


def _without_places(
    key: str, tokens: frozenset[str], places: frozenset[str]
) -> tuple[str, frozenset[str]]:
    """A title key and its tokens without place (or employer) names, unless nothing else
    would be left."""
    if places.isdisjoint(tokens) or tokens <= places:
        return key, tokens
    return " ".join(w for w in key.split() if w not in places), tokens - places


def _stems(tokens: frozenset[str]) -> frozenset[str]:
    """Word beginnings (5 letters): one title word across languages and spellings ("analyste"
    / "analyst", "developpeur" / "developer" stay apart, "ingenieur" / "ingenieure" meet)."""
    return frozenset(t[:5] for t in tokens)


def _marker_features(a: PostingFields, b: PostingFields) -> list[float]:
    return [
        _conflict(a.seniority, b.seniority),
        float(bool(a.seniority) != bool(b.seniority)),
        _conflict(a.grades, b.grades),
        float(bool(a.grades) != bool(b.grades)),
        _conflict(a.description_grades, b.description_grades),
        _unit_conflict(a, b),
        *contract_comparison(a, b),
        _engagement_one_sided(a, b),
        _cover_one_sided_full(a, b),
        _cover_sentence_kept(a, b),
    ]


def _company_features(a: PostingFields, b: PostingFields) -> list[float]:
    missing = float((not a.company_key) + (not b.company_key))
    named = [
        _covered(a.company_tokens, b.description_tokens),
        _covered(b.company_tokens, a.description_tokens),
    ]
    named_elsewhere = max((x for x in named if not math.isnan(x)), default=NAN)
    voices = float(a.client_voice + b.client_voice)
    if missing:
        return [NAN, NAN, missing, named_elsewhere, voices]
    key_a, key_b = _same_script(a.company_key, b.company_key)
    if key_a != key_b and voices:
        # An agency's copy names the agency and calls the employer "notre client": the two
        # names are of different kinds, so they neither match nor conflict.
        return [NAN, NAN, 0.0, named_elsewhere, voices]
    return [
        float(key_a == key_b),
        company_ratio(*_cores_in_one_script(a, b, key_a, key_b)),
        0.0,
        named_elsewhere,
        voices,
    ]


def _cores_in_one_script(
    a: PostingFields, b: PostingFields, key_a: str, key_b: str
) -> tuple[str, str]:
    """`_same_script` of the two company cores: the keys already compared so (`key_a`,
    `key_b`) when neither name closes with its place, as nearly all do, so that a pair is
    not transliterated twice."""
    if a.company_core == a.company_key and b.company_core == b.company_key:
        return key_a, key_b
    return _same_script(a.company_core, b.company_core)


def _same_script(a: str, b: str) -> tuple[str, str]:
    """Two names in one script: a Cyrillic or Greek name against a Latin one, both in
    Latin letters (`transliterate`, lower case); else as they are. A translated copy keeps
    the employer's name but writes it in the reader's script ("АУРУБИС БЪЛГАРИЯ АД" /
    "AURUBIS BULGARIA AD", "КЕРОС КЕРАМИКА ЕАД" / "KEROS CERAMICS EAD"). Compared as
    written, the two share no letter, and the name reads as another employer's."""
    if a == b:
        return a, b
    latin_a, latin_b = transliterate(a), transliterate(b)
    if (latin_a == a) == (latin_b == b):
        return a, b  # one script on both sides (or both transliterated: compare as written)
    return _LATIN_MARKS.sub("", latin_a).lower(), _LATIN_MARKS.sub("", latin_b).lower()


_LATIN_MARKS = re.compile(r"['`]")
"""What `anyascii` writes for a hard or soft sign ("ъ", "ь"), which a transliteration by
hand leaves out ("българия" → "b'lgariya" against "bulgaria")."""


def _location_features(a: PostingFields, b: PostingFields) -> list[float]:
    a, b = _pair_places(a, b)
    missing = float((not a.location_key) + (not b.location_key))
    both = not missing
    places_a, places_b = a.location_tokens, b.location_tokens
    has_places = bool(places_a) and bool(places_b)
    # A vacancy offered at several bases lists them in its text ("Manchester, Newcastle or
    # Bristol"): each side's town named in the other's description (`_mentioned`).
    relation = gazetteer.relation(a.place, b.place)  # once: both helpers read it
    mentioned = _mentioned(a, b, relation)
    return [
        float(a.location_key == b.location_key) if both else NAN,
        _jaccard(places_a, places_b) if has_places else NAN,
        len(places_a & places_b) / min(len(places_a), len(places_b)) if has_places else NAN,
        fuzz.token_set_ratio(a.location_key, b.location_key) / 100.0 if both else NAN,
        _match(a.postcodes, b.postcodes),
        _match(a.outward_codes, b.outward_codes),
        missing,
        float(a.remote or b.remote),
        mentioned,
        *_place_features(a, b, relation),
        _stated_place_agrees(a, b),
    ]


def _pair_places(a: PostingFields, b: PostingFields) -> tuple[PostingFields, PostingFields]:
    """Each side whose listing is a bare name many towns bear (`PostingFields.namesakes`),
    read as the namesake near the other side's place when the one `resolve` prefers is
    not: "Châtillon" beside "69 - CHATILLON" is the Rhône commune, not the larger one in
    Hauts-de-Seine, and "Rainham" beside "Gillingham, ME7" is Rainham in Medway. Nothing
    in such a listing says which town it is; the other copy of the vacancy does. Sides
    whose ad states its place chose by that already (`stated_place.listing_place`)."""
    if a.namesakes:
        a = _near_namesake(a, b.place)
    if b.namesakes:
        b = _near_namesake(b, a.place)
    return a, b


def _near_namesake(side: PostingFields, other: gazetteer.Place | None) -> PostingFields:
    """`side` with the first of its namesakes near `other`, unless its place is."""
    if other is None or (side.place is not None and near(side.place, other)):
        return side
    for place in side.namesakes:
        if near(place, other):
            return replace(side, place=place)
    return side


def _stated_place_agrees(a: PostingFields, b: PostingFields) -> float:
    """Whether the place of work the texts state (`classifier.stated_place`: after "basé à",
    "Lieu :", "based in", or else the town a title names; kept only near the ad's own
    listing) explains both listings. 1
    when both texts state one place, or one does and the other text is silent (a snippet)
    while listed near it; 0 when both state different places (a campaign's ads state each
    its own site); NaN otherwise. Boards list one vacancy under neighbouring communes (a
    geocoder's, or one listing per commune), which `place_relation` reads as two places. A
    stated place far from the other listing says nothing: a text listing several sites
    ("based at Manchester, Newcastle or Bristol") is read at its first. A place only a title
    names agrees with a silent side's listing never: a campaign titles one ad with its town
    and not the next ("Auxiliaire de vie Viroflay" / "Auxiliaire de Vie" at Buc, 5 km).
    A site the gazetteer lacks ("Lieu : Sophia Antipolis") agrees when both texts name it
    alike and both listings are towns or districts near each other (`near`): Thales' one
    text under Vallauris and Valbonne, 8 km apart. Two names that differ say nothing (one
    hospital's site names are written many ways)."""
    stated_a, stated_b = a.stated_place, b.stated_place
    if stated_a is not None and stated_b is not None:
        return float(same_place(stated_a, stated_b))
    if stated_a is None and stated_b is None:
        return 1.0 if _same_site(a, b) else NAN
    stated, stating, other = (stated_a, a, b) if stated_a is not None else (stated_b, b, a)
    assert stated is not None
    if stating.place_titled or other.place_named or other.place is None:
        return NAN
    return 1.0 if near(stated, other.place) else NAN


def _same_site(a: PostingFields, b: PostingFields) -> bool:
    """Both texts name one site the gazetteer lacks, and both ads are listed at towns or
    districts near each other (see `_stated_place_agrees`)."""
    if not a.stated_site or a.stated_site != b.stated_site:
        return False
    if a.place is None or b.place is None:
        return False
    return a.place.level in LEVELS and b.place.level in LEVELS and near(a.place, b.place)


def _mentioned(a: PostingFields, b: PostingFields, relation: str) -> float:
    """Whether each side's town is named in the other's description (NaN without towns).
    For two different towns the gazetteer resolved (or communes too small for it, named
    under their département: `_town_name`), a name counts only when all the words that set
    it apart are there (`_own_words`; one alone may be any word of the language:
    "Moyeuvre-Petite" is not named by "petite"). Communes share words
    ("Ernolsheim-lès-Saverne" / "Saint-Jean-Saverne", "Villers-lès-Nancy" /
    "Essey-lès-Nancy", "Lagny-sur-Marne" / "Vaires-sur-Marne"), an ad naming its own
    commune names the shared word too, and one campaign's ads read as one vacancy listing
    both places (14 pairs of one childcare campaign in the French corpora). Otherwise any
    word of the town counts, so a site written two ways still names its town."""
    if not (a.towns and b.towns):
        return NAN
    name_a, name_b = _town_name(a.place), _town_name(b.place)
    if name_a and name_b and relation == "different":
        own_a, own_b = _own_words(name_a, name_b), _own_words(name_b, name_a)
        return float(own_a <= b.description_tokens and own_b <= a.description_tokens)
    return float(
        not a.towns.isdisjoint(b.description_tokens)
        and not b.towns.isdisjoint(a.description_tokens)
    )


def _town_name(place: gazetteer.Place | None) -> str | None:
    """The name of the town a place is: a gazetteer town's, or the commune a board named
    under its département that the gazetteer lacks ("67 - ERNOLSHEIM LES SAVERNE": the
    département with that text unresolved); None for an area."""
    if place is None:
        return None
    if place.level == "town":
        return place.name
    return place.unresolved or None


def _own_words(name: str, other: str) -> frozenset[str]:
    """The words of town `name` that `other` lacks, without short ones ("lès", "sur", "upon",
    "St"), which any text of the language holds: "Newcastle upon Tyne" against "Manchester"
    is named by "newcastle"."""
    own = _name_words(name) - _name_words(other)
    return frozenset(w for w in own if len(w) > 4) or own or _name_words(name)


@lru_cache(maxsize=1 << 14)
def _name_words(name: str) -> frozenset[str]:
    """The words of a gazetteer name as the description's tokens read them."""
    return frozenset(tokenize(name))


PLACE_RELATIONS = {"same": 0.0, "contains": 1.0, "different": 2.0}
"""`gazetteer.relation` as a number (unknown: NaN): "contains" is an aggregator's region or
country against the board's town, not a conflict; "different" is another town or area."""


def _place_features(a: PostingFields, b: PostingFields, relation: str) -> list[float]:
    """(relation of the two resolved places, log1p of their distance in km): neighbouring
    towns are different places, but a suburb named instead of the city is close by. A
    place inside the other is at distance 0 from it: the gap between their centres
    (Lisbon's quarter Intendente 0.6 km from Lisbon's) is no distance between two places of
    work, and read as one it made the quarter a neighbouring town."""
    as_number = PLACE_RELATIONS.get(relation, NAN)
    if relation == "contains":
        return [as_number, 0.0]
    distance = gazetteer.distance_km(a.place, b.place)
    return [as_number, NAN if distance is None else math.log1p(distance)]


def _contact_features(a: PostingFields, b: PostingFields) -> list[float]:
    row: list[float] = []
    for left, right in (
        (a.emails, b.emails),
        (a.phones, b.phones),
        (a.urls, b.urls),
        (a.references, b.references),
    ):
        row += [_match(left, right), float(bool(left) + bool(right))]
    return row


PAY_TOLERANCE = 0.06
"""How far two statements of one pay may differ: a pay scale of another year (NHS Band 5,
£24,214 and £24,907), a typo ("£37,890" for "£38,890"), rounding, a supplement counted in
or not; one grade above, or part time, differs by 9% or more (NHS Band 2 to 3) and mostly
by 15% or far more. Within it, two salaries agree; beyond it, `salary_log_ratio` is the
difference past it. Read exactly, a model trained on consistent re-posts called "2 150 €"
against "2 200 €" two vacancies (the French export's "Animateur / Animatrice logistique"
at Aubenas, 0.757 → 0.343)."""
_LOG_TOLERANCE = math.log1p(PAY_TOLERANCE)


def _salary_features(a: PostingFields, b: PostingFields) -> list[float]:
    sides = float((a.salary is not None) + (b.salary is not None))
    yearly = _beyond_tolerance(_log_ratio(a.salary_yearly, b.salary_yearly))
    if a.salary is None or b.salary is None:
        return [NAN, NAN, NAN, sides, yearly]
    (low_a, high_a), (low_b, high_b) = a.salary, b.salary
    equal = same_pay(low_a, low_b) and same_pay(high_a, high_b)
    overlapping = low_a <= high_b * 1.01 and low_b <= high_a * 1.01
    ratio = _beyond_tolerance(_log_ratio(a.salary, b.salary))
    return [float(equal), float(overlapping), ratio, sides, yearly]


def same_pay(x: float, y: float) -> bool:
    """Whether two amounts state one pay (`PAY_TOLERANCE`)."""
    return abs(x - y) <= PAY_TOLERANCE * max(abs(x), abs(y))


def _beyond_tolerance(log_ratio: float) -> float:
    """A log ratio of two pays less what `PAY_TOLERANCE` allows (NaN stays NaN)."""
    return max(0.0, log_ratio - _LOG_TOLERANCE) if log_ratio == log_ratio else log_ratio


def _log_ratio(a: tuple[float, float] | None, b: tuple[float, float] | None) -> float:
    """|log| of the ratio of two ranges' middles: a monthly German and a yearly English
    figure compare through their yearly forms (NaN when either is missing or not positive)."""
    if a is None or b is None:
        return NAN
    middle_a, middle_b = (a[0] + a[1]) / 2, (b[0] + b[1]) / 2
    if middle_a <= 0 or middle_b <= 0:
        return NAN
    return math.log(max(middle_a, middle_b) / min(middle_a, middle_b))  # exactly symmetric


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|A ∩ B| / |A ∪ B|, the union counted, not built (two sets of a few hundred words)."""
    shared = len(a & b)
    union = len(a) + len(b) - shared
    return shared / union if union else NAN


def _covered(words: frozenset[str], text_tokens: frozenset[str]) -> float:
    """Fraction of `words` that occur among `text_tokens` (NaN without words)."""
    return len(words & text_tokens) / len(words) if words else NAN


def _match(a: frozenset[str], b: frozenset[str]) -> float:
    """1 if the two sets share a value, 0 if both are non-empty and share none (a conflict:
    two different phone numbers), NaN if either is empty (nothing to compare)."""
    if not (a and b):
        return NAN
    return 0.0 if a.isdisjoint(b) else 1.0


@dataclass(frozen=True)
class _Terms:
    """One posting's contract markers by dimension (`lexicon.CONTRACT_DIMENSIONS`), from its
    title and from its text, read once per compared pair."""

    title: dict[str, set[str]]
    text: dict[str, set[str]]

    @property
    def stated(self) -> dict[str, set[str]]:
        """What the posting states, its title first: a title says what this ad is ("Staff
        Nurse - Fixed Term") where its text may describe the employer's usual terms, so the
        text speaks only for dimensions the title leaves open."""
        return {**self.text, **self.title}


def _terms(fields: PostingFields) -> _Terms:
    return _Terms(_by_dimension(fields.title_contract), _by_dimension(fields.description_contract))


def _by_dimension(markers: frozenset[str]) -> dict[str, set[str]]:
    """Contract dimension → the markers of `markers` stating it."""
    found: dict[str, set[str]] = {}
    for marker in markers:
        for dimension in CONTRACT_DIMENSIONS.get(marker, ()):
            found.setdefault(dimension, set()).add(marker)
    return found


def contract_comparison(a: PostingFields, b: PostingFields) -> tuple[float, float]:
    """(conflict, one-sided) over the contract dimensions of `lexicon.CONTRACT_DIMENSIONS`
    (see `_Terms.stated`): conflict is 1 when some dimension is stated on both sides with no
    value in common (CDI / CDD), 0 when every dimension stated on both sides agrees, NaN
    when none is stated on both; one-sided counts the dimensions only one side states (an
    unknown, which re-posts produce by adding "- Full Time" or losing a sentence).

    A dimension one side reads from a text that the other side's own title contradicts
    (`_text_voided`) counts as one-sided: the two texts say the same, so the difference is
    a title word on one side against a text that speaks of something else there."""
    terms_a, terms_b = _terms(a), _terms(b)
    stated_a, stated_b = terms_a.stated, terms_b.stated
    both = stated_a.keys() & stated_b.keys()
    voided = {
        d
        for d in both
        if _text_voided(a, terms_a, b, terms_b, d) or _text_voided(b, terms_b, a, terms_a, d)
    }
    judged = both - voided
    conflict = float(any(stated_a[d].isdisjoint(stated_b[d]) for d in judged)) if judged else NAN
    return conflict, float(len(stated_a.keys() ^ stated_b.keys()) + len(voided))


def _text_voided(
    titled: PostingFields, own: _Terms, other: PostingFields, others: _Terms, dimension: str
) -> bool:
    """Whether `other`'s text reading of `dimension` is void against `titled` (`own` and
    `others` are their terms): `titled`'s title states it with weak markers only (not
    `lexicon.STRONG_CONTRACT`) that contradict `titled`'s own text, and `other`, whose title
    is silent there, reads from its text what that text reads. A text names terms that are
    not the post's: "des formules de travail à temps partiel" among the benefits,
    "Maternity leave at 3 months full pay", "would consider part-time hours". A board that
    appends its own field ("- Temps plein", "(Permanent)") to such an ad makes the copy
    contradict its own text, and the title against the other copy's text read as another
    contract (0.05 for "Data Scientist" / "Data Scientist - Temps plein" on one text, model
    47043a83727e). A strong title marker (fixed term, bank, locum) against its own text
    stays a conflict: that is how the fixed or bank version of a post reuses the
    substantive post's text. The two texts must be one (`SAME_TEXT_SHARE`), and the titled
    copy's text must hold no number the other lacks: an employer that re-advertises a post
    as part time edits its text ("Flexible hours" -> "22 hours per week", Spire's
    pre-assessment nurse at Methley Park, 99.5% of the text kept) and states other terms on
    both sides, where a board's copy adds nothing to it."""
    title, own_text = own.title.get(dimension), own.text.get(dimension)
    if not title or not own_text or title & STRONG_CONTRACT or not title.isdisjoint(own_text):
        return False
    other_text = others.text.get(dimension)
    if dimension in others.title or not other_text or own_text.isdisjoint(other_text):
        return False
    if not titled.description_numbers <= other.description_numbers:
        return False  # the titled copy's text was edited: "22 hours per week" written in
    smaller = min(titled.shingles.size, other.shingles.size)
    shared = shared_count(titled.shingles, other.shingles)
    return smaller > 0 and shared >= SAME_TEXT_SHARE * smaller


SAME_TEXT_SHARE = 0.5
"""Share of the shorter text's 3-grams the other must hold for `_text_voided` to read the
two as one text (a copy, a snippet or a first half of it): another text stating those
terms ("Poste à temps partiel, 24 heures par semaine") states them of its own post."""


def _cover_alone(one: PostingFields, other: PostingFields) -> bool:
    """Whether `one` states a cover, bank or locum post (`COVER`) of which `other` says
    nothing: `other` states no such marker, and no permanent post unless `one` also does
    ("permanent or fixed term"). A permanent post stated against a fixed one is two facts,
    which `contract_conflict` reads; the cover features read a silence, where a re-post that
    lost the sentence is the same vacancy. Read as a silence, "Staff Nurse - Permanent"
    against "Staff Nurse - Fixed Term" on one text scored as a lost sentence (+2.2 of
    log-odds with e8f713d3423a) and cancelled the conflict (-2.7)."""
    own = one.title_contract | one.description_contract
    said = other.title_contract | other.description_contract
    if not own & COVER or said & COVER:
        return False
    return "permanent" not in said or "permanent" in own


def _cover_one_sided_full(a: PostingFields, b: PostingFields) -> float:
    """1 when one text states a cover, bank or locum post (`COVER`) that the other, silent,
    text does not, although that other text is as long (at least 90% of the tokens): a
    re-post that lost the sentence is shorter (a snippet, a first half), while an ad of the
    same length that says nothing of a maternity cover advertises the substantive post
    (gold-dev). 0 when one side is silent but shorter, NaN when no side states a cover alone
    (`_cover_alone`)."""
    found = NAN
    for one, other in ((a, b), (b, a)):
        if not _cover_alone(one, other):
            continue
        long_enough = other.description_length >= 0.9 * one.description_length
        found = max(0.0 if math.isnan(found) else found, float(long_enough))
    return found


def _cover_sentence_kept(a: PostingFields, b: PostingFields) -> float:
    """When one ad states a cover, bank or locum post that the other never states: the share
    of the sentence stating it that the other text keeps without it
    (`cover_sentences.kept_share`). Near 0 for a re-post that lost the sentence (the same
    vacancy, a fact unknown), high for an announcement edited to another post ("seeking two
    Service Managers" against "a Service Manager to cover a maternity leave post"). NaN when
    no side states a cover alone (`_cover_alone`) in a sentence of its text."""
    found = NAN
    for one, other in ((a, b), (b, a)):
        if not _cover_alone(one, other):
            continue
        share = kept_share(one.cover_sentences, other.shingles, other.tail_grams)
        if not math.isnan(share):
            found = share if math.isnan(found) else max(found, share)
    return found


def _engagement_one_sided(a: PostingFields, b: PostingFields) -> float:
    """Bank, locum, agency, freelance or volunteer in one title while the other posting
    states no engagement anywhere: the bank version of a post is another vacancy even though
    the substantive ad never says "permanent" (see `lexicon.ENGAGEMENT`)."""
    found = 0
    for one, other in ((a, b), (b, a)):
        own = one.title_contract & ENGAGEMENT
        if own and not (other.title_contract | other.description_contract) & (
            ENGAGEMENT | {"permanent"}
        ):
            found += len(own)
    return float(found)


def _unit_conflict(a: PostingFields, b: PostingFields) -> float:
    """The units both titles name (`classifier.title_units`): 1 when the numbers or the
    compass points conflict ("Ward 6" / "Ward 7"; "7 South" / "7 North"), else 0 when
    either agrees, NaN when neither is named on both sides."""
    kinds = (_conflict(a.title_numbers, b.title_numbers), _conflict(a.title_points, b.title_points))
    return max((v for v in kinds if not math.isnan(v)), default=NAN)


def _conflict(a: frozenset[str], b: frozenset[str]) -> float:
    """1 if both sides have values and none is shared ("band 5" vs "band 6"), 0 if they share
    one, NaN if either side has none."""
    if not (a and b):
        return NAN
    return 1.0 if a.isdisjoint(b) else 0.0
