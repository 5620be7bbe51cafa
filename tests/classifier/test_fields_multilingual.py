"""Fields of multilingual ads (classifier.fields): seniority, contract markers, company,
places, contacts, references and pay in English, French, Dutch and German phrasing.
Hand-made fixtures, no shared data."""

from __future__ import annotations

from typing import Any

import pytest

from classifier.contacts import Pay
from classifier.fields import extract_fields, place_keys


def _ad(description: str = "Text.", **fields: Any) -> dict[str, Any]:
    return {"id": "x", "title": fields.pop("title", "Job"), "description": description, **fields}


# --- title: key, seniority, contract -------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "seniority"),
    [
        ("Consultant SAP confirmé (H/F)", {"senior"}),
        ("Ingénieure expérimentée - CDI", {"senior"}),
        ("Développeur débutant (H/F)", {"junior"}),
        ("Stagiaire contrôle de gestion", {"trainee"}),
        ("Chargé de recrutement en alternance", {"trainee"}),
        ("Medior Java Developer (m/v)", {"medior"}),
        ("Ervaren Monteur", {"senior"}),
        ("Afstudeerder Data Science", {"trainee"}),
        ("Erfahrener Elektriker (m/w/d)", {"senior"}),
        ("Berufseinsteiger Vertrieb (m/w/d)", {"junior"}),
        ("Leitung Buchhaltung (m/w/d)", {"lead"}),
        ("Ausbildung zum Elektroniker (m/w/d)", {"trainee"}),
        ("Head of Finance (f/m/d)", {"head"}),
        ("Intermediate Care Nurse", set()),  # a service, not a level
    ],
)
def test_seniority_in_several_languages(title: str, seniority: set[str]) -> None:
    assert extract_fields(_ad(title=title)).seniority == seniority


def test_seniority_is_kept_in_the_title_key_and_exposed() -> None:
    fields = extract_fields(_ad(title="Senior Data Engineer (H/F) - CDI - Télétravail"))
    assert fields.title_key == "senior data engineer"
    assert fields.seniority == {"senior"}
    assert fields.title_tokens == {"senior", "data", "engineer"}


@pytest.mark.parametrize(
    ("title", "markers"),
    [
        ("Sachbearbeiter in Festanstellung", {"permanent"}),
        ("Verkäufer (Minijob)", {"part"}),
        ("Serveur plein temps", {"full"}),
        ("Comptable intérimaire", {"agency"}),
        ("Développeur auto-entrepreneur", {"freelance"}),
        ("Monteur (befristete Stelle)", {"fixed"}),
    ],
)
def test_title_contract_markers_in_several_languages(title: str, markers: set[str]) -> None:
    assert extract_fields(_ad(title=title)).title_contract == markers


def test_contract_words_leave_the_key_but_stay_as_markers() -> None:
    fields = extract_fields(_ad(title="Comptable (CDD 6 mois) H/F"))
    assert fields.title_key == "comptable"
    assert fields.title_contract == {"fixed"}


def test_description_contract_in_german() -> None:
    text = "Es handelt sich um eine Festanstellung in Vollzeit."
    assert extract_fields(_ad(text)).description_contract == {"permanent", "full"}


@pytest.mark.parametrize(
    ("text", "markers"),
    [
        ("Piedāvājam pastāvīgu darbu un stabilu atalgojumu.", {"permanent"}),
        ("Aicinām pastāvīgā darbā: operatorus.", {"permanent"}),
        ("Pastāvīgs līgums, pilna slodze.", {"permanent", "full"}),
        ("Mēs pastāvīgi meklējam jaunus kolēģus.", set()),  # "constantly"
        ("Работа на пълно работно време.", {"full"}),
        ("Работа на непълно работно време.", {"part"}),
    ],
)
def test_description_contract_in_latvian_and_bulgarian(text: str, markers: set[str]) -> None:
    assert extract_fields(_ad(text)).description_contract == markers


@pytest.mark.parametrize(
    "text",
    [
        "Benefits: the opportunity to work bank shifts and expand knowledge in other areas.",
        "A 6 month probationary period applies (this includes bank staff).",
        "We are part of the NHS family, which sets us apart from locum agencies.",
        "We encourage all doctors (whether locum or substantive) to gain competencies.",
        "Benefits: 25 days leave, maternity leave at 3 months' service, a pension.",
        "Shared parental leave matching the maternity leave benefit.",
        "Life cover, enhanced maternity cover, a car lease scheme.",
    ],
)
def test_a_contract_phrase_about_other_staff_or_a_perk_is_not_the_posts(text: str) -> None:
    assert extract_fields(_ad(text)).description_contract == frozenset()


@pytest.mark.parametrize(
    "text",
    [
        "You will join the existing 5 substantive consultants and 1 locum consultant.",
        "The cardiology department has three permanent and two locum consultants.",
    ],
)
def test_a_locum_counted_among_the_team_is_not_the_posts_engagement(text: str) -> None:
    assert "locum" not in extract_fields(_ad(text)).description_contract


@pytest.mark.parametrize(
    "text",
    [
        "The Trust is inviting applications for 2 locum consultant posts.",
        "We are looking to recruit two locum consultants for 12 months.",
    ],
)
def test_a_count_of_locum_posts_offered_is_the_posts_engagement(text: str) -> None:
    assert "locum" in extract_fields(_ad(text)).description_contract


def test_the_posts_own_contract_is_read_beside_an_aside() -> None:
    text = "This is a bank post. A 6 month probation applies (this includes bank staff)."
    assert extract_fields(_ad(text)).description_contract == {"bank"}
    text = "A locum post for 12 months; we do not use locum agencies."
    assert extract_fields(_ad(text)).description_contract == {"locum"}
    text = "This post is to cover maternity leave. We offer enhanced maternity pay."
    assert extract_fields(_ad(text)).description_contract == {"fixed"}


# --- company -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "company", ["Acme GmbH", "ACME", "Acme B.V.", "Acme SAS", "Acme Ltd", "The Acme Company"]
)
def test_company_key_ignores_the_legal_form(company: str) -> None:
    assert extract_fields(_ad(company=company)).company_key == "acme"


def test_country_words_are_in_the_company_key_but_do_not_identify_it() -> None:
    fields = extract_fields(_ad(company="Schaltwerk Deutschland GmbH"))
    assert fields.company_key == "schaltwerk deutschland"
    assert fields.company_tokens == {"schaltwerk"}


# --- places --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("location", "postcodes", "towns"),
    [
        ("Paris 75008", {"75008"}, {"paris"}),
        ("75008 Paris", {"75008"}, {"paris"}),
        ("F-75008 Paris Cedex 08", {"75008"}, {"paris"}),
        ("1012 AB Amsterdam", {"1012ab"}, {"amsterdam"}),
        ("1012AB Amsterdam", {"1012ab"}, {"amsterdam"}),
        ("Amsterdam-Zuidoost", set(), {"amsterdam", "zuidoost"}),
        ("80331 München", {"80331"}, {"munchen"}),
        ("Frankfurt am Main", set(), {"frankfurt", "main"}),
        ("1000 Bruxelles", {"1000"}, {"bruxelles"}),
        ("London, UK", set(), {"london"}),
        ("Lyon (hybride)", set(), {"lyon"}),
    ],
)
def test_postcodes_and_towns(location: str, postcodes: set[str], towns: set[str]) -> None:
    fields = extract_fields(_ad(location=location))
    assert fields.postcodes == postcodes
    assert fields.towns == towns
    assert place_keys(location)[1] == towns


def test_town_tokens_match_a_town_written_with_its_district_or_river() -> None:
    # Decision: names are not rewritten ("Frankfurt (Oder)" is another town); the shared
    # town token is what the location features compare.
    for short, long in (("Frankfurt", "Frankfurt am Main"), ("Amsterdam", "Amsterdam-Zuidoost")):
        a, b = extract_fields(_ad(location=short)), extract_fields(_ad(location=long))
        assert a.location_key != b.location_key
        assert a.towns <= b.towns


@pytest.mark.parametrize(
    ("title", "location", "title_key"),
    [
        ("Data Engineer", "Remote", "data engineer"),
        ("Data Engineer", "Télétravail", "data engineer"),
        ("Data Engineer", "Thuiswerken", "data engineer"),
        ("Data Engineer", "Homeoffice", "data engineer"),
        ("Data Engineer (Remote)", "Berlin", "data engineer"),
        ("Entwickler (m/w/d) - Homeoffice", "Berlin", "entwickler"),
        ("Developer - Hybrid", "Lyon", "developer"),
    ],
)
def test_remote_markers(title: str, location: str, title_key: str) -> None:
    fields = extract_fields(_ad(title=title, location=location))
    assert fields.remote
    assert fields.title_key == title_key


def test_remote_only_location_key() -> None:
    assert extract_fields(_ad(location="Télétravail")).location_key == "remote"
    assert extract_fields(_ad(location="Homeoffice")).location_key == "remote"


# --- contacts ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language", "phone"),
    [
        ("Tél. : +33 1 43 38 21 33", "fr", "+33143382133"),
        ("Tél. : 01 43 38 21 33", "fr", "+33143382133"),
        ("Tél. : 01.43.38.21.33", "fr", "+33143382133"),
        ("Bel 020-1234567", "nl", "+31201234567"),
        ("Bel 06 12 34 56 78", "nl", "+31612345678"),
        ("Tel. +49 (0)30 1234567", "de", "+49301234567"),
        ("Tel. 030 1234567", "de", "+49301234567"),
        ("Tel. 030/1234567", "de", "+49301234567"),
        ("Tel. 0049 30 1234567", "de", "+49301234567"),
        ("Tél. : +32 2 555 12 34", "fr", "+3225551234"),
        ("Tél. : 02 555 12 34", "fr", "+3225551234"),  # Brussels, read as Belgian
        ("Bel 0470 12 34 56", "nl", "+32470123456"),  # a Belgian mobile in a Flemish ad
        ("Call 020 7946 0958", "en", "+442079460958"),
        ("Call +44 (0)20 7946 0958", "en", "+442079460958"),
    ],
)
def test_phone_formats(text: str, language: str, phone: str) -> None:
    assert extract_fields(_ad(text, language=language)).phones == {phone}


@pytest.mark.parametrize(
    "text",
    [
        "Gehalt: 45.000 - 55.000 EUR im Jahr.",
        "Salaire : 45 000 - 55 000 € par an.",
        "Kennziffer: 2024/0815/12.",
        "Bewerbungsschluss 30.11.2024.",
    ],
)
def test_amounts_references_and_dates_are_not_phones(text: str) -> None:
    assert extract_fields(_ad(text, language="de")).phones == frozenset()


@pytest.mark.parametrize(
    "text",
    [
        "Write to jobs@acme.com today.",
        "Write to jobs [at] acme [dot] com today.",
        "Write to jobs(at)acme.com today.",
        "Write to jobs (at) acme (dot) com today.",
        "Schreiben Sie an jobs[at]acme[punkt]com.",
        "Write to JOBS [AT] ACME [DOT] COM today.",
    ],
)
def test_emails_plain_and_obfuscated(text: str) -> None:
    assert extract_fields(_ad(text)).emails == {"jobs@acme.com"}


def test_at_in_brackets_without_an_address_is_no_email() -> None:
    assert extract_fields(_ad("Meet us (at) the fair.")).emails == frozenset()


def test_urls_of_multilingual_ads() -> None:
    fields = extract_fields(_ad("Bewerbung über www.acme.de/karriere/ oder https://acme.de/jobs."))
    assert fields.urls == {"acme.de/karriere", "acme.de/jobs"}


@pytest.mark.parametrize(
    ("text", "reference"),
    [
        ("Référence : INF-2024-17", "inf-2024-17"),
        ("Réf. 55512", "55512"),
        ("Référence de l'offre : 2024-117", "2024-117"),
        ("Vacaturenummer: 2024-311", "2024-311"),
        ("Vacature-ID: 8812", "8812"),
        ("Referentienummer AB1234", "ab1234"),
        ("Kennziffer: 2024-0815", "2024-0815"),
        ("Referenznummer 98765", "98765"),
        ("Stellen-ID 4711", "4711"),
        ("Stellennummer 12345", "12345"),
        ("Job-ID: 4711", "4711"),
    ],
)
def test_references_in_several_languages(text: str, reference: str) -> None:
    assert reference in extract_fields(_ad(text)).references


def test_reference_in_the_title_is_kept_as_a_reference() -> None:
    fields = extract_fields(_ad(title="Elektriker (m/w/d) - Kennziffer 2024-0815"))
    assert fields.title_key == "elektriker"
    assert "2024-0815" in fields.references


# --- pay -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("salary", "description", "expected"),
    [
        ("€45.000 - €55.000", "", Pay(45000.0, 55000.0, "year", (45000.0, 55000.0))),
        ("45 000 € à 55 000 €", "", Pay(45000.0, 55000.0, "year", (45000.0, 55000.0))),
        ("45k-55k", "", Pay(45000.0, 55000.0, "year", (45000.0, 55000.0))),
        ("EUR 3.500 brutto pro Monat", "", Pay(3500.0, 3500.0, "month", (42000.0, 42000.0))),
        ("£25,000 - £30,000 per annum", "", Pay(25000.0, 30000.0, "year", (25000.0, 30000.0))),
        (
            "£25,000 - £30,000, 37.5 hours per week",
            "",
            Pay(25000.0, 30000.0, "year", (25000.0, 30000.0)),
        ),
        ("£9.86 per hour", "", Pay(9.86, 9.86, "hour", None)),
        (
            "",
            "Gehalt: EUR 45.000 - 55.000 brutto.",
            Pay(45000.0, 55000.0, "year", (45000.0, 55000.0)),
        ),
        (
            "",
            "Gehalt: 45.000 - 55.000 EUR im Jahr.",
            Pay(45000.0, 55000.0, "year", (45000.0, 55000.0)),
        ),
        ("", "Rémunération : 45-55 k€ par an.", Pay(45000.0, 55000.0, "year", (45000.0, 55000.0))),
        (
            "",
            "Het salaris is € 3.500 bruto per maand.",
            Pay(3500.0, 3500.0, "month", (42000.0, 42000.0)),
        ),
        ("", "Monatsgehalt: 3.500 € brutto.", Pay(3500.0, 3500.0, "month", (42000.0, 42000.0))),
        ("", "Salaire : 2 500 € brut mensuel.", Pay(2500.0, 2500.0, "month", (30000.0, 30000.0))),
        ("", "Tarif : 450 € par jour.", Pay(450.0, 450.0, "day", None)),
        ("", "Vergütung 3.500 € brutto, 30 Tage Jahresurlaub.", Pay(3500.0, 3500.0, None, None)),
    ],
)
def test_pay_range_and_period(salary: str, description: str, expected: Pay) -> None:
    posting = _ad(description or "Text.", salary=salary) if salary else _ad(description)
    fields = extract_fields(posting)
    assert fields.salary == (expected.low, expected.high)
    assert fields.salary_period == expected.period
    assert fields.salary_yearly == expected.yearly


@pytest.mark.parametrize(
    ("salary", "written", "period", "yearly"),
    [
        ("£30,615 per annum pro rata (£15.66 per hour)", (15.66, 30615.0), "year", 30615.0),
        ("£16.40 per hour (£32,920 per annum)", (16.4, 32920.0), "hour", 32920.0),
        ("£16.45 plus 12.1% Annual Leave (£18.44ph)", (16.45, 18.44), "hour", None),
    ],
)
def test_each_amount_is_read_with_its_own_period(
    salary: str, written: tuple[float, float], period: str, yearly: float | None
) -> None:
    # NHS salary fields often give a yearly and an hourly figure: the range as written spans
    # both (what the model learnt from), the yearly range only what converts.
    fields = extract_fields(_ad(salary=salary))
    assert fields.salary == written
    assert fields.salary_period == period
    assert fields.salary_yearly == (None if yearly is None else (yearly, yearly))


def test_monthly_and_yearly_pay_compare_per_year() -> None:
    # Decision: the amounts stay as written in `salary` (what the shipped model learnt from);
    # `salary_yearly` converts months (x 12) and weeks (x 52), not days or hours.
    monthly = extract_fields(_ad("Vergütung: 3.500 EUR brutto pro Monat."))
    yearly = extract_fields(_ad("Vergütung: 42.000 EUR brutto im Jahr."))
    assert monthly.salary != yearly.salary
    assert monthly.salary_yearly == yearly.salary_yearly == (42000.0, 42000.0)
    hourly = extract_fields(_ad("Pay: £12.50 an hour."))
    assert hourly.salary_period == "hour"
    assert hourly.salary_yearly is None


def test_a_range_end_far_from_its_start_is_not_read() -> None:
    # "to 3" is no upper end of "EUR 45.000": a range needs ends of comparable size.
    fields = extract_fields(_ad("Gehalt EUR 45.000 bis 3 Monate nach Probezeit."))
    assert fields.salary == (45000.0, 45000.0)


@pytest.mark.parametrize(
    ("text", "markers"),
    [
        # an agency's list of the contracts it places, beside the post's own contract
        ("Cabinet de recrutement CDI, CDD et intérim, nous recrutons un technicien en CDI.",
         {"permanent"}),
        ("Retrouvez toutes nos opportunités CDI CDD intérim. Poste en CDD de 6 mois.",
         {"fixed"}),
        ("Hays Santé, acteur du recrutement permanent en CDD, CDI dans le domaine médical.",
         set()),
        ("We recruit for permanent, temporary and contract roles. A permanent contract.",
         {"permanent"}),
        # an employer open to either
        ("Full or part time hours considered.", set()),
        ("Full time, part time hours. This is a fixed term post.", {"fixed"}),
        ("Temps plein ou temps partiel, en CDI.", {"permanent"}),
        ("Voll- oder Teilzeit, unbefristet.", {"permanent"}),
        ("Applications are welcome for permanent or fixed term positions.", set()),
        # one value per dimension is no list
        ("A permanent contract, full time.", {"permanent", "full"}),
        ("Un CDI à temps plein.", {"permanent", "full"}),
        ("Part of the team, full time.", {"full"}),
    ],
)  # fmt: skip
def test_contract_words_listed_as_alternatives_state_nothing(text: str, markers: set[str]) -> None:
    assert extract_fields(_ad(text)).description_contract == markers
