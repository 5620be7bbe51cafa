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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from rapidfuzz import fuzz

from classifier.anchors import shared_anchors
from classifier.fields import PostingFields, extract_fields
from classifier.lexicon import STRONG_CONTRACT
from classifier.scoring import Candidate
from indexer.minhash import SketchParams, estimate_jaccard, overlap_from_jaccard
from indexer.prepare import PreparedPosting, prepare_document
from indexer.store import StoredPosting

FEATURE_VERSION = 3
# 2: jaccard/overlap of the index sketch after boilerplate and non-job sections are left out;
#    core_share_min/max, content_jaccard, salary_yearly_log_ratio; multilingual fields.
# 3: anchor_overlap, anchor_shared_log (names, places, codes: what a translation keeps).
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
    # title
    "title_equal",
    "title_jaccard",
    "title_token_set_ratio",
    "title_ratio",
    "title_diff_tokens",
    "title_in_description_min",
    "title_in_description_max",
    # seniority, grade, contract
    "seniority_diff",
    "grade_conflict",
    "grade_one_sided",
    "description_grade_conflict",
    "contract_title_strong_diff",
    "contract_title_weak_diff",
    "contract_description_strong_diff",
    "contract_description_weak_diff",
    # company
    "company_equal",
    "company_ratio",
    "company_missing",
    "company_in_other_description",
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
    row = (
        _text_features(a, b, sim)
        + _title_features(a, b)
        + _marker_features(a, b)
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
    shared = _shared(a.shingles, b.shingles)
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
    ]


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
    if not (a.title_key and b.title_key):
        return [NAN] * 7
    return [
        float(a.title_key == b.title_key),
        _jaccard(a.title_tokens, b.title_tokens),
        fuzz.token_set_ratio(a.title_key, b.title_key) / 100.0,
        fuzz.ratio(a.title_key, b.title_key) / 100.0,
        float(len(a.title_tokens ^ b.title_tokens)),
        *sorted(
            (
                _covered(a.title_tokens, b.description_tokens),
                _covered(b.title_tokens, a.description_tokens),
            )
        ),
    ]


def _marker_features(a: PostingFields, b: PostingFields) -> list[float]:
    return [
        float(len(a.seniority ^ b.seniority)),
        _conflict(a.grades, b.grades),
        float(bool(a.grades) != bool(b.grades)),
        _conflict(a.description_grades, b.description_grades),
        *_contract_diffs(a.title_contract, b.title_contract),
        *_contract_diffs(a.description_contract, b.description_contract),
    ]


def _company_features(a: PostingFields, b: PostingFields) -> list[float]:
    missing = float((not a.company_key) + (not b.company_key))
    named = [
        _covered(a.company_tokens, b.description_tokens),
        _covered(b.company_tokens, a.description_tokens),
    ]
    named_elsewhere = max((x for x in named if not math.isnan(x)), default=NAN)
    if missing:
        return [NAN, NAN, missing, named_elsewhere]
    return [
        float(a.company_key == b.company_key),
        fuzz.token_set_ratio(a.company_key, b.company_key) / 100.0,
        0.0,
        named_elsewhere,
    ]


def _location_features(a: PostingFields, b: PostingFields) -> list[float]:
    missing = float((not a.location_key) + (not b.location_key))
    both = not missing
    places_a, places_b = a.location_tokens, b.location_tokens
    has_places = bool(places_a) and bool(places_b)
    # A vacancy offered at several bases lists them in its text ("Manchester, Newcastle or
    # Bristol"): each side's town named in the other's description.
    mentioned = (
        float(
            not a.towns.isdisjoint(b.description_tokens)
            and not b.towns.isdisjoint(a.description_tokens)
        )
        if a.towns and b.towns
        else NAN
    )
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
    ]


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


def _salary_features(a: PostingFields, b: PostingFields) -> list[float]:
    sides = float((a.salary is not None) + (b.salary is not None))
    yearly = _log_ratio(a.salary_yearly, b.salary_yearly)
    if a.salary is None or b.salary is None:
        return [NAN, NAN, NAN, sides, yearly]
    (low_a, high_a), (low_b, high_b) = a.salary, b.salary
    equal = _close(low_a, low_b) and _close(high_a, high_b)
    overlapping = low_a <= high_b * 1.01 and low_b <= high_a * 1.01
    return [float(equal), float(overlapping), _log_ratio(a.salary, b.salary), sides, yearly]


def _log_ratio(a: tuple[float, float] | None, b: tuple[float, float] | None) -> float:
    """|log| of the ratio of two ranges' middles: a monthly German and a yearly English
    figure compare through their yearly forms (NaN when either is missing or not positive)."""
    if a is None or b is None:
        return NAN
    middle_a, middle_b = (a[0] + a[1]) / 2, (b[0] + b[1]) / 2
    if middle_a <= 0 or middle_b <= 0:
        return NAN
    return math.log(max(middle_a, middle_b) / min(middle_a, middle_b))  # exactly symmetric


def _shared(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> int:
    """Size of the intersection of two sorted unique arrays: a binary search of the smaller
    in the larger (np.intersect1d concatenates and re-sorts both, 3x slower here)."""
    if a.size > b.size:
        a, b = b, a
    if not a.size:
        return 0
    positions = np.searchsorted(b, a)
    positions[positions == b.size] = 0
    return int(np.count_nonzero(b[positions] == a))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else NAN


def _covered(words: frozenset[str], text_tokens: frozenset[str]) -> float:
    """Fraction of `words` that occur among `text_tokens` (NaN without words)."""
    return len(words & text_tokens) / len(words) if words else NAN


def _match(a: frozenset[str], b: frozenset[str]) -> float:
    """1 if the two sets share a value, 0 if both are non-empty and share none (a conflict:
    two different phone numbers), NaN if either is empty (nothing to compare)."""
    if not (a and b):
        return NAN
    return 0.0 if a.isdisjoint(b) else 1.0


def _contract_diffs(a: frozenset[str], b: frozenset[str]) -> tuple[float, float]:
    """(strong, weak) marker counts on one side only: "bank" vs nothing is another vacancy,
    "full time" vs nothing usually a re-post that added it (see `lexicon.STRONG_CONTRACT`)."""
    differ = a ^ b
    strong = len(differ & STRONG_CONTRACT)
    return float(strong), float(len(differ) - strong)


def _conflict(a: frozenset[str], b: frozenset[str]) -> float:
    """1 if both sides have values and none is shared ("band 5" vs "band 6"), 0 if they share
    one, NaN if either side has none."""
    if not (a and b):
        return NAN
    return 1.0 if a.isdisjoint(b) else 0.0


def _close(x: float, y: float) -> bool:
    return abs(x - y) <= 0.01 * max(abs(x), abs(y))
