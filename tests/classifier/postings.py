"""Hand-made postings for the classifier tests: English, French, German and Dutch ads with
contacts, references, salaries, grades and places, so every extractor has something to find.
No shared data: the suite runs in a bare clone."""

from __future__ import annotations

from typing import Any

from classifier.corpora import Ad

NURSE_EN: dict[str, Any] = {
    "id": "en-1",
    "title": "Staff Nurse - Band 5",
    "description": (
        "An exciting opportunity has arisen for a Band 5 Staff Nurse to join our busy surgical "
        "ward at Riverside Hospital. You will provide high quality care to adult patients "
        "before and after surgery, working closely with doctors and therapists.\n\n"
        "We are looking for a registered nurse with excellent communication skills and a "
        "commitment to patient safety. Newly qualified nurses are welcome to apply.\n\n"
        "This is a permanent, full time post. Salary: £24,907 - £30,615 per annum.\n\n"
        "For an informal visit contact Jane Smith, Ward Manager, on 01438 286133 or email "
        "jane.smith@riverside.nhs.uk. Job reference: 318-SN-1234. More information at "
        "https://www.riverside-nhs.uk/careers/."
    ),
    "company": "Riverside Hospitals NHS Foundation Trust",
    "location": "Riverside Hospital, Stevenage SG1 4AB",
    "posted_at": "2020-11-03",
    "source": "board-a",
    "salary": "£24,907 - £30,615 per annum",
}

DEVELOPER_FR: dict[str, Any] = {
    "id": "fr-1",
    "title": "Développeur Python (H/F)",
    "description": (
        "Rejoignez notre équipe produit à Lyon ! Nous recherchons un développeur Python pour "
        "concevoir et maintenir nos services de traitement de données.\n\n"
        "Vos missions : développer de nouvelles fonctionnalités, écrire des tests, participer "
        "aux revues de code et à l'amélioration continue de la plateforme.\n\n"
        "Profil : vous avez au moins trois ans d'expérience avec Python et une bonne "
        "connaissance des bases de données.\n\n"
        "Contrat : CDI, temps plein. Salaire : 45 000 € - 55 000 € par an. "
        "Référence : DEV-2024-17. Contact : recrutement@dataflux.fr ou +33 4 72 10 20 30."
    ),
    "company": "DataFlux SAS",
    "location": "Lyon 69002",
    "posted_at": "2024-03-01",
    "source": "board-b",
    "language": "fr",
}

ENGINEER_DE: dict[str, Any] = {
    "id": "de-1",
    "title": "Elektroingenieur (m/w/d)",
    "description": (
        "Für unseren Standort in München suchen wir einen Elektroingenieur für die Planung "
        "von Schaltanlagen und die Betreuung unserer Kunden.\n\n"
        "Ihre Aufgaben: Planung und Dokumentation elektrischer Anlagen, Abstimmung mit "
        "Lieferanten und Inbetriebnahme vor Ort.\n\n"
        "Ihr Profil: abgeschlossenes Studium der Elektrotechnik und erste Berufserfahrung.\n\n"
        "Die Stelle ist unbefristet und in Vollzeit zu besetzen, Vergütung nach TV-L E 13. "
        "Kennziffer: 2024-0815. Fragen an bewerbung@schaltwerk.de oder 089 1234 5678."
    ),
    "company": "Schaltwerk GmbH",
    "location": "80331 München",
    "posted_at": "2024-05-10",
    "source": "board-c",
}

ADVISOR_NL: dict[str, Any] = {
    "id": "nl-1",
    "title": "Klantadviseur",
    "description": (
        "Voor ons kantoor in Utrecht zoeken wij een enthousiaste klantadviseur die onze "
        "klanten helpt met vragen over hun verzekering.\n\n"
        "Wat ga je doen? Je beantwoordt vragen per telefoon en e-mail en zoekt samen met "
        "collega's naar de beste oplossing voor de klant.\n\n"
        "Wat vragen wij? Een afgeronde mbo-opleiding en goede communicatieve vaardigheden.\n\n"
        "Het betreft een tijdelijk contract van een jaar, 32 uur per week, salaris schaal 6. "
        "Vacaturenummer: 2024-311. Bel 030 123 4567 of mail naar werken@verzekeraar.nl."
    ),
    "company": "Verzekeraar N.V.",
    "location": "Utrecht, 3511 AB",
    "posted_at": "2024-02-12",
    "source": "board-d",
    "language": "nl",
}

BASE_POSTINGS = (NURSE_EN, DEVELOPER_FR, ENGINEER_DE, ADVISOR_NL)

_ROLES = (
    ("Warehouse Operative", "picking and packing customer orders", "Leeds LS1 3EB"),
    ("Accounts Assistant", "processing invoices and supplier payments", "York YO31 8HE"),
    ("Chef de partie", "preparing dishes for our busy restaurant", "Bath BA2 7BR"),
    ("Data Analyst", "building reports and dashboards for managers", "Bristol BS1 4DJ"),
    ("Receptionist", "welcoming visitors and answering calls", "Norwich NR4 7TD"),
    ("Electrician", "installing and testing electrical systems", "Derby DE24 8PU"),
    ("Care Assistant", "supporting residents with daily living", "Exeter EX2 5DW"),
    ("Software Tester", "testing releases of our mobile app", "Reading RG1 6DL"),
)


def synthetic_ads(count: int = 24) -> list[Ad]:
    """`count` distinct small ads of distinct employers (three paragraphs each), plus the
    four hand-made ones: enough variety to fit a tiny model."""
    ads = [
        Ad(dict(p), f"base:{p['company']}", str(p.get("language") or "en")) for p in BASE_POSTINGS
    ]
    for i in range(count):
        title, duty, location = _ROLES[i % len(_ROLES)]
        company = f"Employer {i} Ltd"
        description = (
            f"{company} is looking for a {title.lower()} to join our team. The role involves "
            f"{duty} in a friendly and supportive environment.\n\n"
            f"You will work {20 + i} hours per week and receive full training. Experience is "
            f"welcome but not essential; we value reliability and a positive attitude.\n\n"
            f"We offer {25 + i} days of annual leave, a pension and free parking. Apply with "
            f"your CV to jobs{i}@employer{i}.co.uk or call 0113 496 {1000 + i:04d}."
        )
        document = {
            "id": f"syn-{i}",
            "title": title,
            "description": description,
            "company": company,
            "location": location,
            "posted_at": f"2024-01-{1 + i % 28:02d}",
            "salary": f"£{20000 + 500 * i:,} - £{23000 + 500 * i:,} per annum",
        }
        ads.append(Ad(document, f"syn:{i}", "en"))
    return ads


# A Polish ad, its English translation, and another English ad of the same city.
WELDER_PL = {
    "id": "pl-1",
    "title": "Spawacz MIG/MAG",
    "company": "Stocznia Gdańsk S.A.",
    "location": "Gdańsk",
    "posted_at": "2025-03-03",
    "description": (
        "Zatrudnimy spawacza w Gdańsku. Wymagamy uprawnień MIG/MAG 135 oraz znajomości "
        "rysunku technicznego. Oferujemy umowę o pracę i 6500 PLN brutto. CV prosimy "
        "wysyłać na adres rekrutacja@stocznia.pl, nr ref. SG-2025-17."
    ),
}
WELDER_EN = {
    "id": "pl-1-en",
    "title": "MIG/MAG welder",
    "company": "Stocznia Gdańsk S.A.",
    "location": "Gdańsk",
    "posted_at": "2025-03-05",
    "description": (
        "We will hire a welder in Gdańsk. We require MIG/MAG 135 qualifications and knowledge "
        "of technical drawing. We offer an employment contract and PLN 6500 gross. Please send "
        "your CV to rekrutacja@stocznia.pl, ref. no. SG-2025-17."
    ),
}
WAREHOUSE_EN = {
    "id": "pl-2-en",
    "title": "Warehouse operative",
    "company": "Magazyny Polskie",
    "location": "Gdańsk",
    "posted_at": "2025-03-05",
    "description": (
        "We are looking for a forklift operator for our warehouse near Poznań. Shift work, "
        "UDT licence required, 5200 PLN gross. Apply at praca@magazyny.pl."
    ),
}
