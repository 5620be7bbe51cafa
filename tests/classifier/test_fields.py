"""Extraction of comparable fields from one posting (classifier.fields), in four languages."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from classifier import contacts
from classifier.fields import extract_fields, place_keys
from indexer import reading
from indexer.reading import read_document
from tests.classifier.postings import ADVISOR_NL, DEVELOPER_FR, ENGINEER_DE, NURSE_EN
from tests.misdecoding import as_windows_1252


def _with(description: str, **fields: Any) -> dict[str, Any]:
    return {"id": "x", "title": fields.pop("title", "Job"), "description": description, **fields}


# --- contacts and references --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("posting", "phone"),
    [
        (NURSE_EN, "+441438286133"),
        (DEVELOPER_FR, "+33472102030"),
        (ENGINEER_DE, "+498912345678"),
        (ADVISOR_NL, "+31301234567"),
    ],
)
def test_phones_are_e164_in_the_region_of_the_language(posting: dict[str, Any], phone: str) -> None:
    assert extract_fields(posting).phones == {phone}


def test_phone_written_differently_normalises_to_the_same_number() -> None:
    national = extract_fields(_with("Call 01438 286133 today."))
    international = extract_fields(_with("Call +44 (0)1438 286 133 today."))
    assert national.phones == international.phones == {"+441438286133"}


def test_dates_salaries_and_reference_codes_are_not_phones() -> None:
    fields = extract_fields(
        _with("Closing 2020-11-30. Salary £24,907 - £30,615. Kennziffer: 2024-0815.")
    )
    assert fields.phones == frozenset()


def test_emails_and_urls() -> None:
    fields = extract_fields(NURSE_EN)
    assert fields.emails == {"jane.smith@riverside.nhs.uk"}
    assert fields.urls == {"riverside-nhs.uk/careers"}
    bare = extract_fields(_with("See http://Riverside-NHS.uk/careers for details"))
    assert bare.urls == fields.urls


def test_the_prose_without_its_addresses_keeps_every_other_word() -> None:
    text = "Mail jo.ward@riverside.nhs.uk or see WWW.Riverside.org/jobs, then call riverside."
    prose = contacts.without_addresses(text)
    assert "jo.ward" not in prose and "Riverside.org" not in prose
    assert prose.startswith("Mail ") and prose.endswith(" then call riverside.")
    assert contacts.without_addresses("No address here.") == "No address here."


@pytest.mark.parametrize(
    ("posting", "reference"),
    [
        (NURSE_EN, "318-sn-1234"),
        (DEVELOPER_FR, "dev-2024-17"),
        (ENGINEER_DE, "2024-0815"),
        (ADVISOR_NL, "2024-311"),
    ],
)
def test_references(posting: dict[str, Any], reference: str) -> None:
    assert reference in extract_fields(posting).references


def test_reference_needs_a_digit_and_dates_are_not_codes() -> None:
    fields = extract_fields(_with("Reference checks apply. Closing date 30-Nov-2020."))
    assert fields.references == frozenset()
    assert extract_fields(_with("Job ID: 4711")).references == {"4711"}


# --- salary ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("salary", "description", "expected"),
    [
        ("£25,000 - £30,000 per annum", "", (25000.0, 30000.0)),
        ("30k", "", (30000.0, 30000.0)),
        ("", "Salaire : 45 000 € - 55 000 € par an.", (45000.0, 55000.0)),
        ("€45.000 - €52.500", "", (45000.0, 52500.0)),
        ("£9.86 per hour", "", (9.86, 9.86)),
        ("24,907.00 - 30,615.00", "", (24907.0, 30615.0)),
        ("Up to Band 7 (depending on experience)", "", None),
        ("Competitive", "Pay is EUR 3.200 per month.", (3200.0, 3200.0)),
    ],
)
def test_salary(salary: str, description: str, expected: tuple[float, float] | None) -> None:
    posting = _with(description or "Text.", salary=salary) if salary else _with(description)
    assert extract_fields(posting).salary == expected


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        # money a text names that is not the pay: a fee, a magnitude, a bonus, an allowance
        ("You will pay for the DBS disclosure which is £29.50.", None),
        ("The trust has a turnover of nearly £1 billion.", None),
        ("Saving the NHS over £70 million each year.", None),
        ("A welcome bonus of £3,000 is paid after probation.", None),
        ("Profitez d'un bon d'achat de 30 € par mois.", None),
        ("Des indemnités kilométriques à 0,47 € par kilomètre.", None),
        ("Société par actions simplifiée au capital de 37 000 €.", None),
        ("Sie erhalten einen Willkommensbonus von 3000 EUR.", None),
        ("Benefity: karta lunchowa ładowana co miesiąc (450 PLN netto).", None),
        ("Diurna de pana la 82 euro/zi de la iesirea din tara.", None),
        ("Pakume 50 EUR sporditoetust kuus.", None),
        ("Dodatnih 1000 EUR neto prigodnih nagrada godišnje.", None),
        # the pay beside them is still read, with what the text adds to it
        (
            "Salary: £30,615 per annum. The DBS disclosure costs £29.50, saving the NHS "
            "over £70 million.",
            (30615.0, 30615.0),
        ),
        ("Salaire : 13.05 EUR /h + primes + 13e mois.", (13.05, 13.05)),
        ("Rémunération : 1900 € bruts / intéressement en plus.", (1900.0, 1900.0)),
        ("Salary £34,500 plus a £5,000 welcome bonus.", (34500.0, 34500.0)),
        (
            "Atalgojums 1800 EUR/mēnesī; ceļa izdevumu kompensāciju 75 EUR.",
            (1800.0, 1800.0),
        ),
        ("Pay: £36,500 per annum. Reimbursement of PIN, free DBS.", (36500.0, 36500.0)),
        ("Indemnités kilométriques (0,55 €/km) et tickets restaurant (6 € par jour).", None),
        (
            "Une rémunération comprise entre 28 000 et 34 000 € selon votre profil, prime.",
            (34000.0, 34000.0),
        ),
    ],
)
def test_description_pay_leaves_out_money_that_is_not_pay(
    description: str, expected: tuple[float, float] | None
) -> None:
    """Read from any currency amount, the pay of an ad without a salary field was the DBS
    check's fee or the trust's turnover, and a copy that left the field out then read as
    another vacancy's pay: of the NHS ads whose field states their pay, the description's
    amounts disagreed with it for 1,794 (706 now)."""
    assert extract_fields(_with(description)).salary == expected


# --- grade, seniority, contract --------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "grades"),
    [
        ("Staff Nurse - Band 5", {"5"}),
        ("Band 5/6 Staff Nurse", {"5", "6"}),
        ("Nurse Specialist Band 8a", {"8a"}),
        ("Policy Officer, Grade 7", {"7"}),
        ("Ingenieur (E13)", {"13"}),
        ("Beleidsmedewerker schaal 10", {"10"}),
        ("Staff Nurse", set()),
    ],
)
def test_title_grades(title: str, grades: set[str]) -> None:
    assert extract_fields(_with("Text.", title=title)).grades == grades


@pytest.mark.parametrize(
    ("salary", "expected"),
    [
        ("£34,500.00 plus £5,000 Welcome Bonus", (34500.0, 34500.0)),
        ("27,373.50 - 29,000 plus £5,000 Welcome Bonus", (27373.5, 29000.0)),
        ("£17.40 per hour (plus £4,000 retention bonus)", (17.4, 17.4)),
        ("£36500.00 Per Annum Reimbursement of PIN, free DBS", (36500.0, 36500.0)),
        ("UP to £16.71 -  Location allowance of £4,000", (16.71, 16.71)),
    ],
)
def test_salary_field_leaves_out_bonuses_and_allowances(
    salary: str, expected: tuple[float, float]
) -> None:
    """87 of the 5,492 NHS salary fields name a bonus or allowance beside the pay; read
    as one range, "£34,500 plus £5,000 Welcome Bonus" was £5,000-£34,500."""
    assert extract_fields(_with("Text.", salary=salary)).salary == expected


def test_grade_in_salary_field_and_description() -> None:
    fields = extract_fields(ENGINEER_DE)
    assert fields.description_grades == {"13"}
    assert extract_fields(_with("Text.", salary="Band 6")).grades == {"6"}
    salary_numbers = extract_fields(_with("Band 5 £24,907 - £30,615 per annum."))
    assert salary_numbers.description_grades == {"5"}


@pytest.mark.parametrize(
    ("title", "seniority"),
    [
        ("Senior Software Engineer", {"senior"}),
        ("Junior Accountant", {"junior"}),
        ("Chef de projet", {"lead"}),
        ("Stagiaire marketing", {"trainee"}),
        ("Werkstudent Vertrieb (m/w/d)", {"trainee"}),
        ("Head of People Operations", {"head"}),
        ("Nurse", set()),
    ],
)
def test_seniority(title: str, seniority: set[str]) -> None:
    assert extract_fields(_with("Text.", title=title)).seniority == seniority


@pytest.mark.parametrize(
    ("title", "markers"),
    [
        ("Bank Mental Health Nurse - Band 5", {"bank"}),
        ("Locum Consultant Psychiatrist", {"locum"}),
        ("Theatre Practitioner - 12 Month Fixed Term Contract", {"fixed"}),
        ("Comptable (CDD)", {"fixed"}),
        ("Sachbearbeiter (befristet, Teilzeit)", {"fixed", "part"}),
        ("Verpleegkundige - tijdelijk", {"fixed"}),
        ("Night Support Worker", {"night"}),
        ("Registered Nurse", set()),
    ],
)
def test_title_contract_markers(title: str, markers: set[str]) -> None:
    assert extract_fields(_with("Text.", title=title)).title_contract == markers


def test_description_contract_markers_need_context() -> None:
    assert extract_fields(_with("We are closed on bank holidays.")).description_contract == set()
    cover = extract_fields(_with("The post holder will cover a maternity leave."))
    assert cover.description_contract == {"fixed"}
    assert extract_fields(ADVISOR_NL).description_contract == {"fixed"}
    assert extract_fields(DEVELOPER_FR).description_contract == {"permanent", "full"}
    assert "permanent" in extract_fields(ENGINEER_DE).description_contract


# --- company and place ---------------------------------------------------------------------------


def test_company_key_drops_legal_form_and_keeps_distinctive_words() -> None:
    fields = extract_fields(NURSE_EN)
    assert fields.company_key == "riverside hospitals"
    assert fields.company_tokens == {"riverside"}
    assert extract_fields(DEVELOPER_FR).company_key == "dataflux"


@pytest.mark.parametrize(
    ("text", "voice"),
    [
        ("Pour le compte de notre client, nous recherchons un(e) comptable.", True),
        ("Notre cliente, basée à Annonay, recrute un technicien.", True),
        ("Nous recrutons pour l'un de nos clients un chef de chantier.", True),
        ("Pour le compte d'une entreprise industrielle, nous recherchons un soudeur.", True),
        ("On behalf of our client, we are recruiting a Band 5 nurse.", True),
        ("Our client is a leading logistics firm in Leeds.", True),
        ("Für unseren Kunden suchen wir einen Elektriker.", True),
        ("Voor onze opdrachtgever zoeken wij een monteur.", True),
        # an employer's own customers, not an end client recruited for
        ("Vous conseillez nos clients en agence.", False),
        ("You will look after our clients across the region.", False),
        ("Wir bieten unseren Kunden maßgeschneiderte Lösungen.", False),
        ("Le service client est ouvert du lundi au vendredi.", False),
        ("Experience working with a client population with autism.", False),
        ("A genuine passion for working with our client group.", False),
        ("We work with a client centred approach.", False),
    ],
)
def test_client_voice_is_an_agency_writing_for_an_unnamed_client(text: str, voice: bool) -> None:
    assert extract_fields({"title": "x", "description": text}).client_voice is voice


@pytest.mark.parametrize(
    ("location", "postcodes", "outward", "towns"),
    [
        ("Riverside Hospital, Stevenage SG1 4AB", {"sg1 4ab"}, {"sg1"}, {"riverside", "stevenage"}),
        ("Southend SS0", set(), {"ss0"}, {"southend"}),
        ("Lyon 69002", {"69002"}, set(), {"lyon"}),
        ("Utrecht, 3511 AB", {"3511ab"}, set(), {"utrecht"}),
        ("00-950 Warszawa", {"00950"}, set(), {"warszawa"}),
    ],
)
def test_location_parts(
    location: str, postcodes: set[str], outward: set[str], towns: set[str]
) -> None:
    fields = extract_fields(_with("Text.", location=location))
    assert fields.postcodes == postcodes
    assert fields.outward_codes == outward
    assert fields.towns == towns
    assert place_keys(location) == (frozenset(postcodes | outward), frozenset(towns))


def test_remote_markers() -> None:
    assert extract_fields(_with("Text.", title="Data Engineer - Remote")).remote
    assert extract_fields(_with("Text.", location="Télétravail")).remote
    assert not extract_fields(NURSE_EN).remote


# --- language and text ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("posting", "language"),
    [(NURSE_EN, "en"), (DEVELOPER_FR, "fr"), (ENGINEER_DE, "de"), (ADVISOR_NL, "nl")],
)
def test_language_given_or_guessed(posting: dict[str, Any], language: str) -> None:
    guessed = {k: v for k, v in posting.items() if k != "language"}
    assert extract_fields(posting).language == language
    assert extract_fields(guessed).language == language


def test_language_codes_are_normalised_and_detected_in_any_script() -> None:
    assert extract_fields(_with("Text.", language="fr-BE")).language == "fr"
    assert extract_fields(_with("Text.", language="bg")).language == "bg"
    cyrillic = "Търсим инженер проектант за нашия екип в София с опит в строителството"
    assert extract_fields(_with(cyrillic)).language == "bg"
    greek = "Ζητείται μηχανικός παραγωγής με εμπειρία για εργοστάσιο στη Θεσσαλονίκη"
    assert extract_fields(_with(greek)).language == "el"


def test_content_words_leave_out_numbers_and_the_languages_stop_words() -> None:
    fields = extract_fields(_with("Nous recherchons un développeur pour 3 projets.", language="fr"))
    assert "developpeur" in fields.content_tokens and "projets" in fields.content_tokens
    assert not {"nous", "un", "pour", "3"} & fields.content_tokens


def test_description_hash_ignores_markup_and_case() -> None:
    html = {**NURSE_EN, "description": "<p>" + NURSE_EN["description"].upper() + "</p>"}
    assert extract_fields(html).description_hash == extract_fields(NURSE_EN).description_hash


def test_missing_fields_are_empty() -> None:
    fields = extract_fields({"id": "x", "title": "", "description": ""})
    assert fields.title_key == ""
    assert fields.company_key == ""
    assert fields.location_key == ""
    assert fields.salary is None
    assert fields.language is None
    assert fields.shingles.size == 0


def test_fields_extracted_in_another_process_equal_this_process_fields() -> None:
    """Fields extracted in one process must compare with fields extracted in another (worker
    processes of training and ingest): nothing in them may depend on the process, and
    Python's string hash is seeded per process."""
    import dataclasses
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    import numpy as np

    documents = [
        {
            "id": "p1",
            "title": "Staff Nurse - Full Time",
            "description": "We are looking for a staff nurse to join our busy ward team. "
            "You will assess patients, plan care and support junior colleagues every day.",
            "company": "Leeds Teaching Hospitals NHS Trust",
            "location": "Leeds, LS9 7TF",
            "salary": "£25,655 - £31,534 a year",
        },
        {
            "id": "p2",
            "title": "Développeur Python (H/F)",
            "description": "Nous recherchons un développeur Python pour notre équipe données.",
            "company": "Acme SAS",
            "location": "Lyon",
        },
    ]
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        remote = list(pool.map(extract_fields, documents))
    for document, there in zip(documents, remote, strict=True):
        here = extract_fields(document)
        for field in dataclasses.fields(here):
            a, b = getattr(here, field.name), getattr(there, field.name)
            same = np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
            assert same, field.name


@pytest.mark.parametrize("posting", [NURSE_EN, DEVELOPER_FR, ENGINEER_DE, ADVISOR_NL])
def test_a_stored_language_gives_the_same_fields_without_identifying_it(
    posting: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A candidate read back from the index carries its reading's language
    (`StoredPosting.language`): its fields are those of a fresh extraction, and the language
    identifier is not run."""
    fresh = extract_fields(posting)
    stored = read_document(posting).language or ""

    def refuse(opening: str) -> str | None:
        raise AssertionError("the language was identified again")

    monkeypatch.setattr(reading, "_detected", refuse)
    again = extract_fields(posting, known_language=stored)
    for name in fresh.__slots__:
        first, second = getattr(fresh, name), getattr(again, name)
        if isinstance(first, np.ndarray | tuple):  # tuple: cover_sentences' arrays
            np.testing.assert_equal(first, second, err_msg=name)
        else:
            assert first == second, name


_PHARMACY = {
    "title": "Préparateur / Préparatrice en pharmacie hospitalière (H/F)",
    "company": "Hôpital Sainte-Marie de Sécurité Sociale",
    "location": "07 - Privas",
    "salary": "£16195 (under 25) £17222–18681 (over 25)",
    "description": "Vous êtes préparateur en pharmacie ? Rejoignez l'équipe de Privas.",
}


@pytest.mark.parametrize("posting", [_PHARMACY, DEVELOPER_FR, ENGINEER_DE, NURSE_EN])
def test_every_field_a_feed_mis_decoded_reads_as_written(posting: dict[str, Any]) -> None:
    """A feed that read an ad's UTF-8 as Windows-1252 did so for its one-line fields too: the
    title's two genders ("PrÃ©parateur / PrÃ©paratrice"), the anchors of title and company,
    the salary's dash. Each extracted field is the one of the ad as written."""
    fields = ("title", "company", "location", "salary", "description")
    damaged = {
        k: as_windows_1252(v) if k in fields and isinstance(v, str) else v
        for k, v in posting.items()
    }
    assert damaged != posting
    assert read_document(damaged) == read_document(posting)
    written, read = extract_fields(posting), extract_fields(damaged)
    for name in written.__dataclass_fields__:
        expected, got = getattr(written, name), getattr(read, name)
        if isinstance(expected, np.ndarray):
            assert np.array_equal(expected, got), name
        else:
            assert expected == got, name
