"""Lookup keys: lead fingerprints find snippets, the company-title key finds company variants,
and an employer's boilerplate intro gives no key."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from indexer.language import stop_words
from indexer.lookup_keys import (
    LEAD_SHINGLES,
    SNIPPET_SHINGLES,
    WINDOW,
    bare_title,
    bare_title_key,
    block_company_title_key,
    company_title_key,
    company_word,
    lead_fingerprints,
    lookup_keys,
    opening_keys,
)
from indexer.minhash import SketchParams
from indexer.prepare import PreparedPosting, prepare_corpus, prepare_document, with_boilerplate
from indexer.stub_keys import search_keys as stub_search_keys
from indexer.text import normalise_company, normalise_title
from tests.snippets import (
    ANALYST_FULL,
    BAKER_FULL,
    DATA_ENGINEER_FULL,
    DATA_ENGINEER_FULL_TEXT,
    DATA_ENGINEER_SNIPPET,
    INTRO_SNIPPET_TEXT,
    WTTJ_FULL,
    WTTJ_INTRO_SNIPPET,
    ad,
    snippet_of,
)
from tests.unit.support import DETERMINISTIC

PARAMS = SketchParams()


def prepared(document: dict[str, Any]) -> PreparedPosting:
    return prepare_document(document, PARAMS)


def shared_fingerprints(a: PreparedPosting, b: PreparedPosting) -> set[int]:
    return set(lead_fingerprints(a.profile, a.boilerplate)) & set(
        lead_fingerprints(b.profile, b.boilerplate)
    )


def test_an_aggregator_snippet_shares_lead_fingerprints_with_the_full_ad() -> None:
    full, snippet = prepared(DATA_ENGINEER_FULL), prepared(DATA_ENGINEER_SNIPPET)
    assert 250 <= len(DATA_ENGINEER_SNIPPET["description"]) <= 500
    assert DATA_ENGINEER_SNIPPET["description"].endswith("…")
    assert full.block_key != snippet.block_key  # "acme assurances" against "acme"
    assert not set(full.band_keys) & set(snippet.band_keys)  # Jaccard too low for LSH
    assert shared_fingerprints(full, snippet)
    assert set(full.lookup_keys) & set(snippet.lookup_keys) <= set(full.index_keys)


@pytest.mark.parametrize("characters", [250, 300, 350, 400, 450, 500])
def test_snippets_of_every_aggregator_length_share_a_fingerprint(characters: int) -> None:
    text = snippet_of(DATA_ENGINEER_FULL_TEXT, characters)
    snippet = prepared(ad("s", title="Data Engineer", company="Acme", description=text))
    assert shared_fingerprints(prepared(DATA_ENGINEER_FULL), snippet)


def test_the_first_half_of_an_ad_shares_fingerprints_with_the_whole() -> None:
    half = DATA_ENGINEER_FULL_TEXT[: len(DATA_ENGINEER_FULL_TEXT) // 2]
    first = prepared(ad("h", title="Data Engineer", company="Acme", description=half))
    assert shared_fingerprints(prepared(DATA_ENGINEER_FULL), first)


def test_an_unrelated_ad_shares_no_lookup_key() -> None:
    baker = prepared(BAKER_FULL)
    for other in (DATA_ENGINEER_FULL, DATA_ENGINEER_SNIPPET, ANALYST_FULL):
        assert not set(baker.lookup_keys) & set(prepared(other).lookup_keys)


def test_another_vacancy_of_the_employer_shares_no_company_title_key() -> None:
    engineer, analyst = prepared(DATA_ENGINEER_FULL), prepared(ANALYST_FULL)
    assert company_title_key(engineer.company_key, engineer.title_key) != company_title_key(
        analyst.company_key, analyst.title_key
    )


def test_an_intro_snippet_gives_no_fingerprint_once_the_intro_is_boilerplate() -> None:
    # Three titles of one employer open with the same intro: the index learns it as that
    # employer's boilerplate, and neither the full ads nor a snippet of the intro alone
    # fingerprint it, so the snippet does not fetch every ad of the employer.
    third = ad(
        "wttj-3",
        title="Actuaire (H/F)",
        company="Acme Assurances",
        description=DATA_ENGINEER_FULL["description"].split("\n\n")[0]
        + "\n\nVos missions\n\nVous construisez les modèles de provisionnement des sinistres "
        "corporels et présentez vos travaux au comité des risques chaque trimestre.",
    )
    intro_only = ad(
        "adzuna-2",
        title="Gestionnaire sinistres",
        company="Acme Assurances",
        description=INTRO_SNIPPET_TEXT,
    )
    corpus = prepare_corpus([DATA_ENGINEER_FULL, ANALYST_FULL, third, intro_only], PARAMS)
    engineer, analyst, _, snippet = corpus
    assert snippet.boilerplate[0]  # the intro's first sentence is boilerplate now
    assert not shared_fingerprints(snippet, engineer)
    assert not shared_fingerprints(snippet, analyst)
    # ...while without the statistics the intro alone links both vacancies.
    plain = prepared(intro_only)
    assert shared_fingerprints(plain, prepared(DATA_ENGINEER_FULL))
    assert shared_fingerprints(plain, prepared(ANALYST_FULL))


def test_company_sections_give_no_fingerprint() -> None:
    text = "Qui sommes-nous ?\n\n" + INTRO_SNIPPET_TEXT
    posting = prepared(ad("c", title="Data Engineer", company="Acme", description=text))
    assert set(posting.profile.sections) == {"company"}
    assert lead_fingerprints(posting.profile, posting.boilerplate) == []


def test_with_boilerplate_drops_the_fingerprints_of_masked_units() -> None:
    full = prepared(DATA_ENGINEER_FULL)
    mask = [i < 2 for i in range(len(full.boilerplate))]  # the two intro sentences
    masked = with_boilerplate(full, mask, PARAMS)
    assert masked.lookup_keys != full.lookup_keys
    assert not shared_fingerprints(masked, prepared(ad("i", description=INTRO_SNIPPET_TEXT)))


def test_text_shorter_than_one_window_gives_no_fingerprint() -> None:
    short = prepared(ad("s", title="Data Engineer", description="CDI temps plein à Lyon."))
    assert lead_fingerprints(short.profile, short.boilerplate) == []


@given(st.integers(min_value=0, max_value=2**32))
@DETERMINISTIC
def test_fingerprints_are_bounded_and_only_cover_the_lead(seed: int) -> None:
    rng = np.random.default_rng(seed)
    words = [f"w{rng.integers(0, 400)}" for _ in range(400)]
    posting = prepared(ad("r", title="t", description=" ".join(words)))
    keys = lead_fingerprints(posting.profile, posting.boilerplate)
    assert 0 < len(keys) <= LEAD_SHINGLES - WINDOW + 1
    tail = prepared(ad("r", title="t", description=" ".join(words[LEAD_SHINGLES + 4 :])))
    assert not set(keys) & set(lead_fingerprints(tail.profile, tail.boilerplate))


@pytest.mark.parametrize(
    "name", ["Acme", "Acme Assurances", "ACME France SAS", "Groupe Acme", "Le Groupe ACME"]
)
def test_company_variants_share_the_company_title_key(name: str) -> None:
    key = company_title_key(normalise_company(name), "data engineer")
    assert key is not None
    assert key == company_title_key(normalise_company("Acme"), "data engineer")


def test_the_company_title_key_needs_a_distinctive_word_and_a_title() -> None:
    assert company_word("groupe la poste") == "poste"
    assert company_title_key("groupe", "data engineer") is None
    assert company_title_key("acme", "") is None
    assert company_title_key("", "data engineer") is None
    assert company_title_key("beta", "data engineer") != company_title_key("acme", "data engineer")


def test_lookup_keys_never_equal_band_keys() -> None:
    full = prepared(DATA_ENGINEER_FULL)
    stub = stub_search_keys(full.bare_title, full.stub_phrases, full.title_key)
    assert not set(full.lookup_keys) & set(full.band_keys)
    assert not set(stub) & {*full.band_keys, *full.lookup_keys}
    assert full.search_keys == [*full.band_keys, *full.lookup_keys, *stub]


@given(st.lists(st.booleans(), min_size=12, max_size=12))
@DETERMINISTIC
def test_with_boilerplate_keeps_the_keys_only_when_no_job_unit_changed(mask: list[bool]) -> None:
    full = prepared(DATA_ENGINEER_FULL)
    assert len(full.boilerplate) == len(mask)
    masked = with_boilerplate(full, mask, PARAMS)
    want = lookup_keys(full.profile, mask, full.company_key, full.title_key, full.bare_title)
    assert masked.lookup_keys == want


def test_an_intro_snippet_shares_opening_keys_with_the_full_ad_whoever_it_names() -> None:
    """The full ad leaves its intro (a company section) out of its lead fingerprints; the
    opening keys read it, so an intro-only snippet naming no employer meets the ad."""
    full = prepared(WTTJ_FULL)
    snippet = prepared({**WTTJ_INTRO_SNIPPET, "company": None})
    assert not shared_fingerprints(full, snippet)
    shared = set(opening_keys(full.profile, full.boilerplate, full.bare_title)) & set(
        opening_keys(snippet.profile, snippet.boilerplate, snippet.bare_title)
    )
    assert shared
    assert shared <= set(full.lookup_keys) & set(snippet.lookup_keys)
    assert not shared & {*full.band_keys, *lead_fingerprints(full.profile, full.boilerplate)}


def test_opening_keys_are_bound_to_the_bare_title() -> None:
    """The employer's intro opens all its ads: under another title it links nothing."""
    full = prepared(WTTJ_FULL)
    other = prepared({**WTTJ_INTRO_SNIPPET, "title": "Actuaire (H/F)"})
    decorated = prepared({**WTTJ_INTRO_SNIPPET, "title": "Offre d'emploi : Data Engineer"})
    keys = set(opening_keys(full.profile, full.boilerplate, full.bare_title))
    assert not keys & set(opening_keys(other.profile, other.boilerplate, other.bare_title))
    assert keys & set(opening_keys(decorated.profile, decorated.boilerplate, decorated.bare_title))
    assert opening_keys(full.profile, full.boilerplate, "") == []


def test_a_long_ad_opening_with_job_text_has_no_opening_keys() -> None:
    """Its snippets meet it through the lead fingerprints: the opening keys would only add
    index rows. A snippet-sized posting keeps them whatever it opens with."""
    full = prepared(DATA_ENGINEER_FULL)
    assert len(full.profile.shingles) >= SNIPPET_SHINGLES
    assert opening_keys(full.profile, full.boilerplate, full.bare_title) == []
    snippet = prepared(DATA_ENGINEER_SNIPPET)
    assert opening_keys(snippet.profile, snippet.boilerplate, snippet.bare_title)
    intro_first = prepared(WTTJ_FULL)  # opens with a company section
    assert len(intro_first.profile.shingles) >= SNIPPET_SHINGLES
    assert opening_keys(intro_first.profile, intro_first.boilerplate, intro_first.bare_title)


def test_a_hit_s_company_title_key_is_read_from_its_block_key() -> None:
    """The store does not say which key found a hit: the pipeline recomputes the hit's
    company-title key from its block key ("company key|title key")."""
    prepared = prepare_document(WTTJ_FULL, PARAMS)
    snippet = prepare_document(WTTJ_INTRO_SNIPPET, PARAMS)
    assert prepared.block_key != snippet.block_key  # "acme assurances" / "groupe acme"
    expected = company_title_key(snippet.company_key, snippet.title_key)
    assert expected is not None
    assert block_company_title_key(prepared.block_key) == expected
    assert block_company_title_key("|data engineer") is None  # no employer named


@pytest.mark.parametrize(
    ("title", "location", "bare"),
    [
        ("Employé(e) de ménage H/F - Largentière", "07 - LARGENTIERE", "employe de menage"),
        ("Employé(e) de ménage H/F", "07 - LARGENTIERE", "employe de menage"),
        ("Data Analyst H/F - Lyon", "Lyon, Auvergne-Rhône-Alpes", "data analyst"),
        ("Staff Nurse - Birmingham", "Birmingham, B15 2TH", "staff nurse"),
        (
            "Responsable des flux (H/F) - Choisy-le-Roi",
            "94 - CHOISY LE ROI",
            "responsable des flux",
        ),
        ("Associate Nurse - Bury St Edmunds", "Bury St Edmunds, IP33 2AR", "associate nurse"),
        ("Data Engineer F/H - Villeneuve-d'Ascq", "Villeneuve-d'Ascq", "data engineer"),
        ("INGENIEUR DATA JUNIOR - H/F - (STG-5521)", "Paris", "ingenieur data junior"),
        ("Data Engineer JR104233", None, "data engineer"),
        ("Employe commercial     h    f (H/F) - Soyons", "07 - SOYONS", "employe commercial"),
        (
            "Care Assistant – Penylan House, Cardiff (D",
            "Cardiff, CF23 5YG",
            "care assistant penylan house",
        ),
        (
            "Care Assistant, Penylan House, Cardiff",
            "Cardiff, CF23 5YG",
            "care assistant penylan house",
        ),
        # a place marked by its département number, whatever the listing says
        ("CDD DATA ANALYST H/F - NICE (06)", "Alpes-Maritimes", "data analyst"),
        ("URGENT - CDD DATA ANALYST H/F - NICE (06", "Alpes-Maritimes", "data analyst"),
        ("Data Engineer F/H | LILLE (59)", "France", "data engineer"),
        ("Conseiller clientèle H/F - Saint André de l'Eure (27)", "France", "conseiller clientele"),
        ("Chargé de clientèle H/F - COSNE SUR LOIRE(58)", None, "charge de clientele"),
        ("Infirmier Lyon (69)", "France", "infirmier lyon"),
        ("IAPT Wellbeing Navigator Lead (731)", "Bristol, BS1", "iapt wellbeing navigator lead"),
        # grades, levels and numbers without capitals are role words or names, not codes
        ("Role 1234", None, "role 1234"),
        ("Band 5 Staff Nurse - Ward 7", "London", "band 5 staff nurse ward 7"),
        ("B2B Sales Level 3", "Leeds", "b2b sales level 3"),
        # a town of another place stays; a title that is only the place is kept whole
        ("Employé(e) de ménage H/F - Lanas", "07 - LARGENTIERE", "employe de menage lanas"),
        ("Paris", "Paris", "paris"),
    ],
)
def test_the_bare_title_drops_the_own_place_and_requisition_codes(
    title: str, location: str | None, bare: str
) -> None:
    assert bare_title(title, location, normalise_title(title)) == bare


@pytest.mark.parametrize(
    ("title", "bare"),
    [
        ("Offre d'emploi : Data Engineer (H/F)", "data engineer"),
        ("Offre d’emploi - Aide Boulanger(ère) (H/F)", "aide boulanger"),
        ("Stellenangebot: Elektriker (m/w/d)", "elektriker"),
        ("[URGENT] Staff Nurse", "staff nurse"),
        ("Oferta pracy - Kierowca kat. C", "kierowca kat c"),
        ("ΘΈΣΗ ΕΡΓΑΣΊΑΣ: ΤΕΧΝΙΚΟΣ ΠΑΡΑΓΩΓΗΣ", "τεχνικοσ παραγωγησ"),
        ("Alternant(e) Technicien(ne) (H/F) - Ref. Z11894", "alternant technicien"),
        # stacked by an aggregator: each one set apart goes
        (
            "URGENT - Offre d'emploi : Data Engineer / Data Analyst H/F",
            "data engineer data analyst",
        ),
        ("[Nouveau] Offre d'emploi : Infirmier (H/F)", "infirmier"),
        ("Dringend - Stellenangebot: Elektriker (m/w/d)", "elektriker"),
        ("Pilne! Oferta pracy - Kierowca kat. C", "kierowca kat c"),
        ("URGENTE - Oferta de empleo: Camarero", "camarero"),
        ("Urgent : Offre", "offre"),
        # set apart only: a title starting with such a word is a title
        ("New Hall Staff Nurse", "new hall staff nurse"),
        ("Job Coach", "job coach"),
        ("Emploi", "emploi"),
        # a trainee role changes the vacancy: not a board's decoration
        ("Stage : Data Analyst", "stage data analyst"),
    ],
)
def test_the_bare_title_drops_a_board_s_lead_in(title: str, bare: str) -> None:
    assert bare_title(title, None, normalise_title(title)) == bare


def test_a_decorated_title_has_the_company_title_key_of_its_bare_title() -> None:
    decorated = prepared(
        ad("d", title="Offre d'emploi : Data Engineer", company="Acme France", description="x")
    )
    plain = prepared(ad("p", title="Data Engineer", company="Acme", description="y"))
    assert company_title_key("acme", "data engineer") in decorated.lookup_keys
    assert company_title_key("acme", "data engineer") in plain.lookup_keys
    assert len(set(plain.lookup_keys)) == len(plain.lookup_keys)  # no key twice


def test_the_bare_title_key_is_the_employer_s_and_never_a_band_or_company_title_key() -> None:
    key = bare_title_key("acme", "data engineer")
    assert key is not None
    assert key != bare_title_key("beta", "data engineer")
    assert key != company_title_key("acme", "data engineer")
    assert bare_title_key("", "data engineer") is not None  # no employer named: like the block
    assert bare_title_key("acme", "") is None
    decorated = prepared(
        ad("d", title="Data Engineer H/F - Lyon", company="Acme", description="x " * 50)
    )
    plain = prepared(ad("p", title="Data Engineer", company="Acme", description="y " * 50))
    assert decorated.bare_key == plain.bare_key
    assert decorated.bare_key in decorated.lookup_keys
    assert decorated.bare_key not in decorated.band_keys


@pytest.mark.parametrize(
    ("decorated", "plain", "location", "language"),
    [
        ("Pflegefachkraft (m/w/d) in München", "Pflegefachkraft (m/w/d)", "München", "de"),
        ("Verkäufer (m/w/d) - Berlin-Mitte", "Verkäufer (m/w/d)", "Berlin", "de"),
        (
            "Ouvrier vigneron h/f en CDI à Mauves",
            "Ouvrier vigneron h/f en CDI",
            "07 - MAUVES",
            "fr",
        ),
        ("Data Engineer H/F - Paris (75)", "Data Engineer H/F", "Paris, Île-de-France", "fr"),
        ("Data Analyst (Paris 8e)", "Data Analyst", "75008 Paris", "fr"),
        ("Agent de sécurité Saint-Péray", "Agent de sécurité", "07 - ST PERAY", "fr"),
        ("Enfermero/a en Madrid", "Enfermero/a", "Madrid, España", "es"),
        ("Infermiere a Milano", "Infermiere", "Milano", "it"),
        ("Verpleegkundige te Utrecht", "Verpleegkundige", "Utrecht", "nl"),
        ("Staff Nurse in Birmingham", "Staff Nurse", "Birmingham, B15 2TH", "en"),
        ("Referent - Łódź", "Referent", "Łódź", "pl"),
        (
            "Agent / Agente de planification en industrie (H/F) à Aix-en-Provence",
            "Agent / Agente de planification en industrie (H/F)",
            "13 - AIX EN PROVENCE",
            "fr",
        ),
        ("Agent de production H/F - Le Havre", "Agent de production H/F", "76 - LE HAVRE", "fr"),
        # the town added to a title that names it already
        (
            "CDD DATA ANALYST H/F - NICE (06) à Nice",
            "CDD DATA ANALYST H/F - NICE (06)",
            "Nice",
            "fr",
        ),
        (
            "Senior Data Engineer | Paris, FR (Paris)",
            "Senior Data Engineer | Paris, FR",
            "Paris",
            "en",
        ),
        # a short role word before the town is not a joining word: it stays on both sides
        ("Head of IT - London", "Head of IT", "London", "en"),
    ],
)
def test_a_title_naming_its_town_in_any_language_has_the_plain_title_s_bare_title(
    decorated: str, plain: str, location: str, language: str
) -> None:
    stop = stop_words(language)
    bare = bare_title(plain, location, normalise_title(plain), stop)
    assert bare_title(decorated, location, normalise_title(decorated), stop) == bare
    assert location.split(",")[0].split()[-1].casefold() not in bare.split()
    assert normalise_title(plain).split()[0] in bare.split()  # the role stays
