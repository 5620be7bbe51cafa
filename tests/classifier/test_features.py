"""Pair features (classifier.features) on small hand-made pairs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from classifier.features import FEATURE_NAMES, candidate_features, pair_features
from classifier.scoring import candidate_for
from indexer.minhash import SketchParams
from indexer.prepare import prepare_document, to_stored
from tests.classifier.postings import ADVISOR_NL, DEVELOPER_FR, ENGINEER_DE, NURSE_EN


def _features(a: dict[str, Any], b: dict[str, Any]) -> dict[str, float]:
    return dict(zip(FEATURE_NAMES, pair_features(a, b).tolist(), strict=True))


def _copy(posting: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**posting, "id": f"{posting['id']}-copy", **changes}


def test_names_are_unique_and_match_the_vector() -> None:
    assert len(set(FEATURE_NAMES)) == len(FEATURE_NAMES)
    vector = pair_features(NURSE_EN, DEVELOPER_FR)
    assert vector.shape == (len(FEATURE_NAMES),)
    assert vector.dtype == np.float64


@pytest.mark.parametrize(
    ("a", "b"), [(NURSE_EN, DEVELOPER_FR), (ENGINEER_DE, ADVISOR_NL), (NURSE_EN, NURSE_EN)]
)
def test_features_are_symmetric(a: dict[str, Any], b: dict[str, Any]) -> None:
    np.testing.assert_array_equal(pair_features(a, b), pair_features(b, a))


def test_exact_copy() -> None:
    f = _features(NURSE_EN, _copy(NURSE_EN))
    assert f["jaccard"] == f["overlap"] == f["description_equal"] == 1.0
    assert f["shingle3_jaccard"] == f["shingle3_overlap"] == 1.0
    assert f["shingle3_unshared_log"] == 0.0
    assert f["title_equal"] == f["company_equal"] == f["location_equal"] == 1.0
    assert f["email_match"] == f["phone_match"] == f["url_match"] == f["reference_match"] == 1.0
    assert f["salary_equal"] == 1.0
    assert f["days_apart"] == 0.0
    assert f["grade_conflict"] == 0.0


def test_different_location_with_identical_text() -> None:
    other = _copy(NURSE_EN, location="Lister Hospital, Hitchin SG5 1AB")
    f = _features(NURSE_EN, other)
    assert f["description_equal"] == 1.0
    assert f["location_equal"] == 0.0
    assert f["postcode_equal"] == 0.0
    assert f["outward_equal"] == 0.0
    assert f["location_token_jaccard"] < 0.5


def test_location_written_differently() -> None:
    f = _features(NURSE_EN, _copy(NURSE_EN, location="Stevenage SG1 4AB"))
    assert f["postcode_equal"] == 1.0
    assert f["location_token_containment"] == 1.0


def test_grade_and_bank_mismatch() -> None:
    band6 = _copy(NURSE_EN, title="Staff Nurse - Band 6", salary="£31,365 - £37,890 per annum")
    f = _features(NURSE_EN, band6)
    assert f["grade_conflict"] == 1.0
    assert f["salary_equal"] == 0.0
    assert f["salary_overlap"] == 0.0
    bank = _copy(NURSE_EN, title="Bank Staff Nurse - Band 5")
    g = _features(NURSE_EN, bank)
    assert g["engagement_title_one_sided"] == 1.0  # the bank version is another vacancy
    assert g["grade_conflict"] == 0.0


def test_contract_stated_on_one_side_is_unknown_not_a_conflict() -> None:
    silent = _copy(NURSE_EN, description=NURSE_EN["description"].replace("permanent, full", ""))
    f = _features(silent, _copy(silent, title="Staff Nurse - Band 5 - Full Time"))
    assert math.isnan(f["contract_conflict"])
    assert f["contract_one_sided"] == 1.0
    assert f["engagement_title_one_sided"] == 0.0


def test_a_cover_stated_against_a_full_silent_ad_is_flagged_but_not_against_a_snippet() -> None:
    cover = _copy(
        NURSE_EN, description="This post is to cover maternity leave. " + NURSE_EN["description"]
    )
    assert _features(cover, NURSE_EN)["cover_one_sided_full"] == 1.0
    snippet = _copy(NURSE_EN, id="s", description=NURSE_EN["description"][:300])
    assert _features(cover, snippet)["cover_one_sided_full"] == 0.0
    assert math.isnan(_features(NURSE_EN, snippet)["cover_one_sided_full"])


def test_contracts_stated_on_both_sides_conflict_or_agree() -> None:
    cdi = _copy(DEVELOPER_FR, title="Développeur Python (CDI)")
    cdd = _copy(DEVELOPER_FR, title="Développeur Python (CDD)", description="Un CDD de 6 mois.")
    assert _features(cdi, cdd)["contract_conflict"] == 1.0
    full = _copy(NURSE_EN, title="Staff Nurse - Band 5 - Full Time")
    part = _copy(NURSE_EN, id="p", title="Staff Nurse - Band 5 - Part Time")
    assert _features(full, part)["contract_conflict"] == 1.0
    assert _features(full, _copy(full, id="f2"))["contract_conflict"] == 0.0


BENEFIT_TERMS = [
    (  # a benefit, in French, under the board's "Temps plein"
        "Data Scientist",
        "Data Scientist - Temps plein",
        "Nous recrutons un data scientist pour notre équipe produit à Lyon. Vous concevez nos "
        "modèles et les déployez. Avantages : mutuelle, des formules de travail à temps "
        "partiel, 14 RTT.",
    ),
    (  # an option, in English, under "- Full Time"
        "Staff Nurse - Band 5",
        "Staff Nurse - Band 5 - Full Time",
        "Join our surgical ward team in Stevenage. You will care for patients before and "
        "after surgery. We would consider applicants with a preference for part time hours.",
    ),
    (  # a benefit, in German, under "(Vollzeit)"
        "Elektroingenieur (m/w/d)",
        "Elektroingenieur (m/w/d) (Vollzeit)",
        "Wir suchen einen Elektroingenieur für unsere Entwicklung in München. Sie planen "
        "Schaltanlagen. Wir bieten flexible Arbeitszeiten und Teilzeit nach Absprache.",
    ),
]


@pytest.mark.parametrize(("title", "decorated", "text"), BENEFIT_TERMS)
def test_a_title_against_its_own_text_leaves_the_other_copy_of_that_text_unknown(
    title: str, decorated: str, text: str
) -> None:
    ad = _copy(DEVELOPER_FR, title=title, description=text)
    relayed = _copy(ad, id="r", title=decorated)
    f = _features(ad, relayed)
    assert math.isnan(f["contract_conflict"])  # the text's part time is not the post's
    assert f["contract_one_sided"] == 1.0
    other_text = _copy(ad, id="o", description="Poste à temps partiel, 24 heures par semaine.")
    assert _features(other_text, relayed)["contract_conflict"] == 1.0  # another text's terms


def test_a_text_edited_to_other_terms_under_a_contract_title_stays_a_conflict() -> None:
    full = _copy(NURSE_EN, description="Flexible working hours full time, no nights. " * 4)
    edited = full["description"].replace("no nights.", "no nights, 22 hours per week.", 1)
    part = _copy(full, id="p", title="Part-time Staff Nurse", description=edited)
    assert _features(full, part)["contract_conflict"] == 1.0
    unedited = _copy(full, id="u", title="Part-time Staff Nurse")
    assert math.isnan(_features(full, unedited)["contract_conflict"])


def test_a_strong_title_marker_against_its_own_text_stays_a_conflict() -> None:
    permanent = _copy(NURSE_EN, description="This is a permanent post. " * 4)
    fixed = _copy(permanent, id="f", title="Staff Nurse - Fixed Term")
    assert _features(permanent, fixed)["contract_conflict"] == 1.0


def test_pay_spread_over_thirteen_months_is_not_a_fixed_term() -> None:
    text = "Rémunération : 42 000 € brut annuel sur 13 mois. Poste en CDI."
    cdi = _copy(DEVELOPER_FR, description=text)
    f = _features(cdi, _copy(DEVELOPER_FR, id="d2", title="Développeur Python (CDI)"))
    assert f["contract_conflict"] == 0.0


def test_title_decorations_do_not_change_the_title_key() -> None:
    a = _copy(DEVELOPER_FR, title="Développeur Python")
    f = _features(DEVELOPER_FR, a)
    assert f["title_equal"] == 1.0
    assert f["title_diff_tokens"] == 0.0


def test_seniority_on_one_side_is_unknown_and_two_levels_conflict() -> None:
    senior = _copy(ENGINEER_DE, title="Senior Elektroingenieur (m/w/d)")
    f = _features(ENGINEER_DE, senior)
    assert f["seniority_one_sided"] == 1.0
    assert math.isnan(f["seniority_conflict"])
    assert f["title_equal"] == 0.0
    junior = _copy(ENGINEER_DE, id="j", title="Junior Elektroingenieur (m/w/d)")
    g = _features(junior, senior)
    assert g["seniority_conflict"] == 1.0
    assert g["seniority_one_sided"] == 0.0


def test_town_in_the_title_is_not_a_title_difference() -> None:
    a = _copy(DEVELOPER_FR, title="Développeur Python H/F - Lyon", location="Lyon")
    b = _copy(DEVELOPER_FR, id="b", title="Développeur Python", location="Lyon")
    f = _features(a, b)
    assert f["title_equal"] == 1.0
    assert f["title_diff_tokens"] == 0.0


@pytest.mark.parametrize(
    "decorated",
    [
        "Association Béthanie - Développeur Python (H/F)",
        "Développeur Python | Association Béthanie",
        "Béthanie - Développeur Python",
    ],
)
def test_the_employer_in_the_title_is_not_a_title_difference(decorated: str) -> None:
    a = _copy(DEVELOPER_FR, title=decorated, company="Association Béthanie")
    b = _copy(DEVELOPER_FR, id="b", company="Association Béthanie")
    f = _features(a, b)
    assert f["title_equal"] == 1.0
    assert f["title_diff_tokens"] == 0.0


def test_two_roles_of_one_employer_still_differ_by_their_role_words() -> None:
    a = _copy(DEVELOPER_FR, title="Acme - Développeur Python", company="Acme")
    b = _copy(DEVELOPER_FR, id="b", title="Acme - Chef de projet", company="Acme")
    f = _features(a, b)
    assert f["title_equal"] == 0.0
    assert f["title_jaccard"] == 0.0


def test_a_particle_of_a_town_name_is_not_the_town_named_in_the_other_ad() -> None:
    """ "sur" of "Saint-Marcel-sur-Lignon" is in any French text; the town is not."""
    text = DEVELOPER_FR["description"] + " Poste basé sur notre site."
    a = _copy(DEVELOPER_FR, description=text, location="Saint-Marcel-sur-Lignon")
    b = _copy(DEVELOPER_FR, id="b", description=text, location="Villeneuve-sur-Lot")
    assert _features(a, b)["location_in_other_description"] == 0.0
    c = _copy(DEVELOPER_FR, id="c", description=text + " Villeneuve", location="Villeneuve")
    d = _copy(DEVELOPER_FR, id="d", description=text + " Villeneuve", location="Villeneuve")
    assert _features(c, d)["location_in_other_description"] == 1.0


def test_snippet_is_contained_in_the_full_ad() -> None:
    snippet = _copy(NURSE_EN, description=NURSE_EN["description"][:400])
    f = _features(NURSE_EN, snippet)
    assert f["shingle3_overlap"] > 0.95
    assert f["length_ratio"] < 0.6
    assert math.isnan(f["email_match"])  # the snippet lost the contact paragraph
    assert f["email_sides"] == 1.0


def test_conflicting_contacts() -> None:
    text = (
        NURSE_EN["description"]
        .replace("01438 286133", "01223 245151")
        .replace("jane.smith", "john.doe")
    )
    f = _features(NURSE_EN, _copy(NURSE_EN, description=text))
    assert f["phone_match"] == 0.0
    assert f["email_match"] == 0.0
    assert f["reference_match"] == 1.0


def test_missing_values_are_nan() -> None:
    bare = {"id": "bare", "title": "Staff Nurse", "description": "Join our ward team today."}
    f = _features(NURSE_EN, bare)
    for name in ("company_equal", "location_equal", "salary_equal", "postcode_equal"):
        assert math.isnan(f[name]), name
    assert math.isnan(f["days_apart"])
    assert f["company_missing"] == 1.0
    assert f["location_missing"] == 1.0
    assert f["salary_sides"] == 1.0


def test_days_and_language() -> None:
    later = _copy(ADVISOR_NL, posted_at="2024-04-12")
    f = _features(ADVISOR_NL, later)
    assert f["days_apart"] == 60.0
    assert f["language_equal"] == 1.0
    assert _features(ADVISOR_NL, DEVELOPER_FR)["language_equal"] == 0.0


def test_sites_named_in_each_others_text() -> None:
    listing = "The post can be based at Stevenage or Hitchin.\n\n" + NURSE_EN["description"]
    a = _copy(NURSE_EN, description=listing)
    b = _copy(NURSE_EN, id="b", description=listing, location="Lister Hospital, Hitchin SG5 1AB")
    assert _features(a, b)["location_in_other_description"] == 1.0
    moved = _copy(NURSE_EN, location="Lister Hospital, Hitchin SG5 1AB")
    assert _features(NURSE_EN, moved)["location_in_other_description"] == 0.0


def test_agency_names_the_client() -> None:
    agency = _copy(
        NURSE_EN,
        company="Hays",
        description="Our client, Riverside Hospitals, is recruiting.\n\n" + NURSE_EN["description"],
    )
    f = _features(NURSE_EN, agency)
    assert f["company_equal"] == 0.0
    assert f["company_in_other_description"] == 1.0
    assert f["company_client_voice"] == 0.0


def test_an_agency_speaking_for_an_unnamed_client_leaves_the_employer_unknown() -> None:
    text = NURSE_EN["description"].replace("Riverside Hospitals", "our client")
    agency = _copy(NURSE_EN, company="Hays", description="On behalf of our client, " + text)
    f = _features(NURSE_EN, agency)
    assert math.isnan(f["company_equal"]) and math.isnan(f["company_ratio"])
    assert f["company_missing"] == 0.0
    assert f["company_client_voice"] == 1.0
    same_agency = _features(agency, _copy(agency, id="b"))
    assert same_agency["company_equal"] == 1.0  # one agency's name on both: compared
    plain_other = _features(NURSE_EN, _copy(NURSE_EN, company="Hays"))
    assert plain_other["company_equal"] == 0.0 and plain_other["company_client_voice"] == 0.0


@pytest.mark.parametrize(
    ("written", "transliterated"),
    [
        ("АУРУБИС БЪЛГАРИЯ АД", "AURUBIS BULGARIA AD"),
        ("КЕРОС КЕРАМИКА ЕАД", "KEROS CERAMICS EAD"),
        ("ΧΑΡΛΗΣ ΠΑΓΟΠΟΙΕΙΑ ΛΤΔ", "CHARLIS PAGOPOIEIA LTD"),
    ],
)
def test_an_employer_written_in_another_script_is_the_same_name(
    written: str, transliterated: str
) -> None:
    # a translated copy writes the employer's name in the reader's script
    a = _copy(NURSE_EN, company=written)
    b = _copy(NURSE_EN, id="b", company=transliterated)
    assert _features(a, b)["company_ratio"] >= 0.7
    other = _copy(NURSE_EN, id="c", company="Riverside Hospitals")
    assert _features(a, other)["company_ratio"] < 0.5


def test_candidate_matrix_matches_pair_features() -> None:
    params = SketchParams()
    query = prepare_document(NURSE_EN, params)
    others = [_copy(NURSE_EN, location="Hitchin SG5 1AB"), DEVELOPER_FR, ENGINEER_DE]
    candidates = []
    for document in others:
        prepared = prepare_document(document, params)
        candidates.append(candidate_for(query, to_stored(prepared, prepared.id)))
    matrix = candidate_features(query, candidates)
    assert matrix.shape == (3, len(FEATURE_NAMES))
    for row, document in zip(matrix, others, strict=True):
        np.testing.assert_array_equal(row, pair_features(NURSE_EN, document, params))


def test_content_words_ignore_stop_words_and_numbers() -> None:
    a = _copy(DEVELOPER_FR, description="Nous cherchons un développeur Python pour 2 projets.")
    b = _copy(DEVELOPER_FR, description="Un développeur Python pour les projets, et 5 jours.")
    f = _features(a, b)
    # content words: {cherchons, developpeur, python, projets} vs {developpeur, python, projets,
    # jours}: stop words ("nous", "un", "pour", "les", "et") and numbers do not count
    assert f["content_jaccard"] == pytest.approx(3 / 5)


def test_yearly_salary_compares_monthly_and_yearly_pay() -> None:
    monthly = _copy(ENGINEER_DE, salary="4.000 EUR brutto pro Monat")
    yearly = _copy(ENGINEER_DE, salary="48.000 EUR brutto pro Jahr")
    f = _features(monthly, yearly)
    assert f["salary_yearly_log_ratio"] == pytest.approx(0.0)
    assert f["salary_log_ratio"] > 2.0  # as written, the amounts differ twelvefold


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("2 150 € brut mensuel", "2 200 € brut mensuel"),  # one ad at Aubenas, two copies
        ("£37,890 to £44,503 per annum", "£38,890 to £44,503 per annum"),  # a typo
        ("£24,214 - £30,112 per annum", "£24,907 - £30,615 per annum"),  # Band 5, 2019 and 2020
    ],
)
def test_two_statements_of_one_pay_agree(first: str, second: str) -> None:
    """Within `PAY_TOLERANCE` two salaries are one pay: read exactly, a model trained on
    consistent re-posts called the French export's "2 150 €" and "2 200 €" two vacancies."""
    f = _features(_copy(NURSE_EN, salary=first), _copy(NURSE_EN, salary=second))
    assert f["salary_equal"] == 1.0
    assert f["salary_log_ratio"] == 0.0 and f["salary_yearly_log_ratio"] == 0.0


def test_another_grade_or_hours_is_another_pay() -> None:
    band6 = _copy(NURSE_EN, salary="£31,365 - £37,890 per annum")  # NURSE_EN is Band 5
    part_time = _copy(NURSE_EN, salary="£12,454 - £15,308 per annum")
    for other in (band6, part_time):
        f = _features(NURSE_EN, other)
        assert f["salary_equal"] == 0.0 and f["salary_log_ratio"] > 0.1


def test_core_share_is_low_when_sections_are_left_out() -> None:
    job = " ".join(f"You will maintain system number {i} for our clients." for i in range(20))
    intro = "About us\n" + " ".join(
        f"Acme was founded in {1900 + i} by friends." for i in range(30)
    )
    short = _copy(NURSE_EN, description=job)
    long = _copy(NURSE_EN, description=f"{intro}\n\nYour role\n{job}")
    f = _features(short, long)
    assert f["core_share_max"] > 0.5
    assert f["core_share_min"] < 0.5


_ORIGINAL_LT = (
    "Pagrindinės funkcijos: organizuoja ir prižiūri įstaigos energetines (elektros, dujų,"
    " šilumos, vandens) sistemas; užtikrina nepertraukiamą tiekimą; analizuoja duomenis,"
    " teikia pasiūlymus vadovybei ir kt.\n\nDarbo užmokestis: 2500 EUR."
)
_TRANSLATED_EN = (
    "Main functions: organizes and supervises the institution's energy (electricity, gas,"
    " heat, water) systems; ensures continuous supply; analyzes data, provides suggestions"
    " to management, etc.\n\nSalary: 2500 EUR."
)
_OTHER_EN = (
    "We are looking for a driver. Duties include deliveries in Vilnius and nearby towns,"
    " loading and unloading, keeping records.\n\nRequirements: licence C; 3 years of"
    " experience; good health. Salary: 1800 EUR; overtime paid; meals provided."
)


def test_a_translation_keeps_the_layout_that_another_ad_does_not() -> None:
    original = {"id": "lt", "title": "Inžinierius-energetikas", "description": _ORIGINAL_LT}
    translated = {"id": "en", "title": "Power Engineer", "description": _TRANSLATED_EN}
    other = {"id": "other", "title": "Driver", "description": _OTHER_EN}
    same = _features(original, translated)
    assert same["shingle3_overlap"] == 0.0  # no shared words: the layout is the evidence
    assert same["layout_ratio"] > 0.9  # "ir kt." became ", etc.": one comma more
    assert _features(translated, other)["layout_ratio"] < 0.6
    one_line = {"id": "short", "title": "Nurse", "description": "Join us"}
    assert math.isnan(_features(one_line, translated)["layout_ratio"])
