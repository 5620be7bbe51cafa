"""Plain-language sentences for feature contributions, for people reviewing a verdict.

Every name of `classifier.features.FEATURE_NAMES` has words here (a unit test asserts it, so a
new feature without words fails the suite): an analyst who never read the feature code must
still see why two ads were linked. A sentence says what the value means for this pair and
which way it pushed the score: "The descriptions share 93% of their word sequences — raises
the score". A value the feature leaves unknown (NaN: a fact stated on one side only) gets its
own sentence, because "unknown" is not "different" and the model treats it apart.

Pure: no I/O, no model library.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

NEGLIGIBLE = 0.005
"""Contributions (log-odds) smaller than this in size are reported as making no difference."""


@dataclass(frozen=True)
class FeatureWords:
    """How to say one feature's value: `known` for a number, `unknown` for NaN."""

    known: Callable[[float], str]
    unknown: str


def _pct(value: float) -> str:
    return f"{round(100 * value)}%"


def _count(value: float) -> int:
    return round(value)


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one}" if n == 1 else f"{n} {many or one + 's'}"


def _share(template: str, unknown: str) -> FeatureWords:
    """A 0-1 share, said through `template` with `{pct}` ("93%")."""
    return FeatureWords(lambda v: template.format(pct=_pct(v)), unknown)


def _flag(yes: str, no: str, unknown: str = "Not known for both ads") -> FeatureWords:
    return FeatureWords(lambda v: yes if v >= 0.5 else no, unknown)


def _conflict(what: str) -> FeatureWords:
    """1 conflict, 0 agreement, NaN when not stated on both sides."""
    return FeatureWords(
        lambda v: f"The {what} conflict" if v >= 0.5 else f"The {what} agree",
        f"The {what} are not stated on both ads (unknown, not a conflict)",
    )


def _one_sided(what: str) -> FeatureWords:
    """0/1: stated on one side only."""
    return _flag(
        f"Only one ad states {what} (unknown, not a conflict)",
        f"Both ads or neither state {what}",
    )


def _contact(thing: str) -> tuple[FeatureWords, FeatureWords]:
    """(match, sides) of a contact kind."""
    match = _flag(
        f"The ads share {thing}",
        f"The ads give different {thing}s",
        f"{thing[0].upper()}{thing[1:]} is not given on both ads (nothing to compare)",
    )
    sides = FeatureWords(
        lambda v: (
            f"Neither ad gives {thing}",
            f"Only one ad gives {thing}",
            f"Both ads give {thing}",
        )[min(2, max(0, _count(v)))],
        "Not known",
    )
    return match, sides


def _missing(what: str) -> FeatureWords:
    return FeatureWords(
        lambda v: (
            f"Both ads name the {what}",
            f"Only one ad names the {what}",
            f"Neither ad names the {what}",
        )[min(2, max(0, _count(v)))],
        "Not known",
    )


def _times(value: float) -> str:
    """A log ratio |log(x/y)| as a percentage difference."""
    return f"{round(100 * (math.exp(value) - 1))}%"


_EMAIL, _EMAIL_SIDES = _contact("an email address")
_PHONE, _PHONE_SIDES = _contact("a phone number")
_URL, _URL_SIDES = _contact("a web link")
_REF, _REF_SIDES = _contact("a job reference")
_SALARY_SIDES = _contact("a salary")[1]
_PLACES = ("The ads name the same place", "One ad's place contains the other's", "Different places")

FEATURE_WORDS: dict[str, FeatureWords] = {
    # text similarity
    "jaccard": _share(
        "The descriptions share an estimated {pct} of their word sequences",
        "The descriptions' similarity is unknown",
    ),
    "overlap": _share(
        "{pct} of the shorter description's word sequences are in the other",
        "The descriptions' overlap is unknown",
    ),
    "containment_min": _share(
        "{pct} of the longer description's word sequences are in the shorter",
        "The descriptions' containment is unknown",
    ),
    "shingle_ratio": _share(
        "The shorter description has {pct} as many word sequences as the other",
        "The descriptions' sizes are unknown",
    ),
    "description_equal": _flag(
        "The descriptions are identical", "The descriptions are not identical"
    ),
    "shingle3_jaccard": _share(
        "The descriptions share {pct} of their word 3-grams", "A description is empty"
    ),
    "shingle3_overlap": _share(
        "{pct} of the shorter description's word 3-grams are in the other",
        "A description is empty",
    ),
    "shingle3_unshared_log": FeatureWords(
        lambda v: (
            f"{_plural(_count(math.expm1(v)), 'word 3-gram')} of the shorter description"
            " not in the other"
        ),
        "Not known",
    ),
    "numbers_jaccard": _share(
        "The descriptions share {pct} of their numbers", "Neither description holds a number"
    ),
    "length_ratio": _share(
        "The shorter description is {pct} as long as the other",
        "A description is empty",
    ),
    "core_share_min": _share(
        "At least {pct} of each description is job-specific (boilerplate left out)",
        "A description is empty",
    ),
    "core_share_max": _share(
        "At most {pct} of each description is job-specific (boilerplate left out)",
        "A description is empty",
    ),
    "content_jaccard": _share(
        "The descriptions share {pct} of their content words",
        "Neither description has content words",
    ),
    "anchor_overlap": _share(
        "{pct} of the names, places and codes of one ad are in the other",
        "An ad names no people, places or codes",
    ),
    "anchor_shared_log": FeatureWords(
        lambda v: (
            _plural(_count(math.expm1(v)), "name, place or code", "names, places or codes")
            + " in both ads"
        ),
        "Not known",
    ),
    "job_shingle3_overlap": _share(
        "{pct} of the middle (the job itself) of the shorter description is in the other",
        "An ad is too short to have a middle part",
    ),
    "job_shingle3_jaccard": _share(
        "The middles of the descriptions (the job itself) share {pct} of their word 3-grams",
        "An ad is too short to have a middle part",
    ),
    "layout_ratio": _share(
        "The texts' punctuation, numbers and line breaks agree at {pct} (a translation keeps them)",
        "A description is too short to have a layout",
    ),
    # title
    "title_equal": _flag("The titles are the same", "The titles differ", "A title is empty"),
    "title_jaccard": _share("The titles share {pct} of their words", "A title is empty"),
    "title_token_set_ratio": _share(
        "The titles' words match {pct} in any order", "A title is empty"
    ),
    "title_ratio": _share("The titles match {pct} character by character", "A title is empty"),
    "title_diff_tokens": FeatureWords(
        lambda v: f"{_plural(_count(v), 'title word')} in one title only", "A title is empty"
    ),
    "title_in_description_min": _share(
        "At least {pct} of each title's words are in the other ad's text", "A title is empty"
    ),
    "title_in_description_max": _share(
        "Up to {pct} of a title's words are in the other ad's text", "A title is empty"
    ),
    "title_stem_jaccard": _share("The titles share {pct} of their word stems", "A title is empty"),
    "title_words_in_text_min": _share(
        "At least {pct} of the words each title adds are in the other ad's text",
        "The titles have the same words, or one is empty",
    ),
    "title_label_one_sided": _flag(
        "One title is a job centre's label (both genders) whose occupation the other names",
        "Neither title is a job centre's label of the other's occupation",
        "A title is empty",
    ),
    "stub_names_title": _flag(
        "One ad is a stub (a title and a few keywords) naming the other's title",
        "One ad is a stub (a title and a few keywords) naming another title",
        "Neither ad is a stub",
    ),
    "stub_phrases_in_text": _share(
        "{pct} of the stub's keywords besides the title are in the other ad's text",
        "Neither ad is a stub, or a stub lists nothing besides the title",
    ),
    "stated_title_agrees": _flag(
        "The employer's title a text states in its opening line ('POSTE : ...') is the other's",
        "The texts' opening lines state two different employer's titles",
        "No text states a title in its opening line, or one does and the other's title differs",
    ),
    # seniority, grade, contract
    "seniority_conflict": _conflict("seniority levels"),
    "seniority_one_sided": _one_sided("a seniority level"),
    "grade_conflict": _conflict("grades or bands in the titles"),
    "grade_one_sided": _one_sided("a grade or band in its title"),
    "description_grade_conflict": _conflict("grades or bands in the descriptions"),
    "title_unit_conflict": _conflict(
        "wards, posts or areas the titles name (numbers, compass points)"
    ),
    "contract_conflict": _conflict("contract types"),
    "contract_one_sided": FeatureWords(
        lambda v: (
            "Both ads state the same contract terms, or neither does"
            if _count(v) == 0
            else f"Only one side states {_plural(_count(v), 'contract term')}"
            " (unknown, not a conflict)"
        ),
        "Not known",
    ),
    "engagement_title_one_sided": FeatureWords(
        lambda v: (
            "No bank, locum or agency post in one title only"
            if _count(v) == 0
            else "One title says bank, locum or agency and the other ad never does"
        ),
        "Not known",
    ),
    "cover_one_sided_full": FeatureWords(
        lambda v: (
            "One ad states a cover, bank or locum post that the other, as long, does not"
            if v >= 0.5
            else "One ad states a cover, bank or locum post; the other is shorter"
        ),
        "Neither ad states a cover, bank or locum post alone",
    ),
    "cover_sentence_kept": _share(
        "The other ad keeps {pct} of the sentence stating a cover, bank or locum post, without it",
        "Neither ad states a cover, bank or locum post alone in a sentence",
    ),
    # company
    "company_equal": _flag(
        "The employers are the same", "The employers differ", "An ad names no employer"
    ),
    "company_ratio": _share("The employers' names match {pct}", "An ad names no employer"),
    "company_missing": _missing("employer"),
    "company_in_other_description": _share(
        "{pct} of an employer's name is in the other ad's text", "No employer named"
    ),
    "company_client_voice": FeatureWords(
        lambda v: (
            "Neither ad is written for an unnamed client",
            "One ad is an agency's, written for an unnamed client (two names not compared)",
            "Both ads are agencies', written for an unnamed client",
        )[min(2, max(0, _count(v)))],
        "Not known",
    ),
    # location
    "location_equal": _flag(
        "The locations are the same", "The locations differ", "An ad gives no location"
    ),
    "location_token_jaccard": _share(
        "The locations share {pct} of their words", "An ad gives no location"
    ),
    "location_token_containment": _share(
        "{pct} of the shorter location's words are in the other", "An ad gives no location"
    ),
    "location_ratio": _share("The locations match {pct}", "An ad gives no location"),
    "postcode_equal": _flag(
        "The postcodes are the same",
        "The postcodes differ",
        "A postcode is not given on both ads (nothing to compare)",
    ),
    "outward_equal": _flag(
        "The postcode districts are the same",
        "The postcode districts differ",
        "A postcode district is not given on both ads (nothing to compare)",
    ),
    "location_missing": _missing("location"),
    "remote_any": _flag("An ad offers remote work", "Neither ad offers remote work"),
    "location_in_other_description": _flag(
        "Each ad's town is named in the other's text",
        "An ad's town is not named in the other's text",
        "A town is not known for both ads",
    ),
    "place_relation": FeatureWords(
        lambda v: _PLACES[min(2, max(0, _count(v)))],
        "The places could not both be found in the gazetteer",
    ),
    "place_distance_log": FeatureWords(
        lambda v: (
            f"The places are {_count(math.expm1(v))} km apart"
            if v > 0
            else "The places are one, or one lies inside the other"
        ),
        "The distance between the places is unknown",
    ),
    "stated_place_agrees": _flag(
        "The place of work the texts or titles state is where both ads are listed",
        "The texts or titles state different places of work",
        "Neither text nor title states a place of work",
    ),
    # contacts
    "email_match": _EMAIL,
    "email_sides": _EMAIL_SIDES,
    "phone_match": _PHONE,
    "phone_sides": _PHONE_SIDES,
    "url_match": _URL,
    "url_sides": _URL_SIDES,
    "reference_match": _REF,
    "reference_sides": _REF_SIDES,
    # salary
    "salary_equal": _flag(
        "The salaries are the same",
        "The salaries differ",
        "A salary is not given on both ads (unknown, not a conflict)",
    ),
    "salary_overlap": _flag(
        "The salary ranges overlap",
        "The salary ranges do not overlap",
        "A salary is not given on both ads (unknown, not a conflict)",
    ),
    "salary_log_ratio": FeatureWords(
        lambda v: f"The salaries differ by {_times(v)}",
        "A salary is not given on both ads (unknown, not a conflict)",
    ),
    "salary_sides": _SALARY_SIDES,
    "salary_yearly_log_ratio": FeatureWords(
        lambda v: f"The yearly salaries differ by {_times(v)}",
        "A yearly salary is not known for both ads (unknown, not a conflict)",
    ),
    # time and language
    "days_apart": FeatureWords(
        lambda v: f"Posted {v:.1f} days apart", "A posting date is not known"
    ),
    "language_equal": _flag(
        "The ads are in the same language",
        "The ads are in different languages",
        "A language is not known",
    ),
}
"""Words for every feature (keyed by `FEATURE_NAMES`)."""


def effect(contribution: float) -> str:
    """Which way a contribution pushed the score."""
    if not math.isfinite(contribution) or abs(contribution) < NEGLIGIBLE:
        return "makes no difference"
    return "raises the score" if contribution > 0 else "lowers the score"


def describe(feature: str, value: float | None, contribution: float) -> str:
    """One sentence for one feature's part in a verdict: what its value means for the pair,
    then which way it pushed the score. A feature without words (a scorer outside this
    model) is named with its value."""
    words = FEATURE_WORDS.get(feature)
    known = value is not None and math.isfinite(value)
    if words is None:
        phrase = f"{feature} = {value:.3g}" if known and value is not None else f"{feature} unknown"
    elif value is None or not known:
        phrase = words.unknown
    else:
        phrase = words.known(value)
    return f"{phrase} — {effect(contribution)}"
