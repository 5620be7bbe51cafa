"""Hand-written postings for the translated re-post tests: a Polish ad, its English translation,
an English ad of another employer, and the same employer's other vacancy in Polish."""

from __future__ import annotations

from typing import Any

PL_ORIGINAL: dict[str, Any] = {
    "id": "eures-pl-1",
    "title": "Operator maszyn drukarskich",
    "company": "Drukarnia Wielicka Sp. z o.o.",
    "location": "Kraków",
    "posted_at": "2025-10-01",
    "source": "eures",
    "description": (
        "Drukarnia Wielicka zatrudni operatora maszyn drukarskich w zakładzie przy ul. "
        "Zabłocie 28 w Krakowie. Obowiązki: obsługa maszyn offsetowych Heidelberg "
        "Speedmaster XL 106 i Komori Lithrone G40, przygotowanie farb według wzornika "
        "Pantone, kontrola jakości wydruków spektrofotometrem X-Rite eXact. Wymagania: "
        "doświadczenie w druku offsetowym, uprawnienia UDT na wózki widłowe, praca w systemie "
        "trzyzmianowym. Oferujemy umowę o pracę, wynagrodzenie 7400 PLN brutto, kartę "
        "Multisport i dofinansowanie dojazdów MPK. CV prosimy przesyłać na adres "
        "rekrutacja@drukarnia-wielicka.pl, tel. 12 655 40 17."
    ),
}

EN_TRANSLATION: dict[str, Any] = {
    "id": "eures-pl-1-en",
    "title": "Printing machine operator",
    "company": "Drukarnia Wielicka Sp. z o.o.",
    "location": "Kraków",
    "posted_at": "2025-10-06",
    "source": "eures",
    "description": (
        "Drukarnia Wielicka will hire a printing machine operator at the plant at Zabłocie "
        "28 in Kraków. Duties: operating Heidelberg Speedmaster XL 106 and Komori Lithrone "
        "G40 offset presses, mixing inks according to the Pantone guide, checking print "
        "quality with an X-Rite eXact spectrophotometer. Requirements: experience in offset "
        "printing, UDT forklift licence, three-shift work. We offer an employment contract, "
        "a salary of PLN 7400 gross, a Multisport card and subsidised MPK commuting. Please "
        "send your CV to rekrutacja@drukarnia-wielicka.pl, tel. 12 655 40 17."
    ),
}

EN_OTHER_EMPLOYER: dict[str, Any] = {
    "id": "nhs-other-1",
    "title": "Print room assistant",
    "company": "Salford Royal NHS Foundation Trust",
    "location": "Salford",
    "posted_at": "2025-10-03",
    "source": "nhs",
    "description": (
        "The print room of Salford Royal produces leaflets and forms for every ward. You will "
        "run our Xerox Versant presses and Duplo finishing line, keep stock records in Excel "
        "and deliver print jobs across the Stott Lane site. Band 2, 37.5 hours a week, "
        "Monday to Friday. Contact the print room manager on 0161 206 3000."
    ),
}

PL_OTHER_VACANCY: dict[str, Any] = {
    "id": "eures-pl-2",
    "title": "Magazynier",
    "company": "Drukarnia Wielicka Sp. z o.o.",
    "location": "Kraków",
    "posted_at": "2025-10-02",
    "source": "eures",
    "description": (
        "Drukarnia Wielicka zatrudni magazyniera w zakładzie przy ul. Zabłocie 28 w "
        "Krakowie. Obowiązki: przyjmowanie dostaw papieru i farb, wydawanie materiałów na "
        "produkcję, inwentaryzacja w systemie WMS Comarch. Wymagania: uprawnienia UDT na wózki "
        "widłowe, praca na dwie zmiany. Oferujemy umowę o pracę, wynagrodzenie 5600 PLN "
        "brutto i kartę Multisport. CV: rekrutacja@drukarnia-wielicka.pl, tel. 12 655 40 17."
    ),
}

PT_CAPITALS: dict[str, Any] = {
    "id": "eures-pt-1",
    "title": "ELETRICISTA DE MANUTENÇÃO",
    "location": "Odivelas",
    "posted_at": "2025-10-01",
    "source": "eures",
    "description": (
        "PROCURA-SE ELETRICISTA PARA A MANUTENÇÃO DE EDIFÍCIOS. FUNÇÕES: REPARAÇÃO DE QUADROS "
        "ELÉTRICOS, SUBSTITUIÇÃO DE ILUMINAÇÃO E VERIFICAÇÃO DE TOMADAS. REQUISITOS: "
        "EXPERIÊNCIA COMPROVADA, CARTA DE CONDUÇÃO E DISPONIBILIDADE IMEDIATA. OFERECEMOS "
        "CONTRATO ESTÁVEL E FORMAÇÃO CONTÍNUA."
    ),
}
"""A job centre's ad written in capitals, without employer, names or figures: every word is
an anchor, and none survives translation but the place field."""

EN_CAPITALS: dict[str, Any] = {
    "id": "eures-pt-1-en",
    "title": "MAINTENANCE ELECTRICIAN",
    "location": "Odivelas",
    "posted_at": "2025-10-03",
    "source": "eures",
    "description": (
        "WE ARE LOOKING FOR AN ELECTRICIAN TO MAINTAIN BUILDINGS. DUTIES: REPAIRING ELECTRICAL "
        "PANELS, REPLACING LIGHTING AND CHECKING SOCKETS. REQUIREMENTS: PROVEN EXPERIENCE, "
        "DRIVING LICENCE AND IMMEDIATE AVAILABILITY. WE OFFER A STABLE CONTRACT AND ONGOING "
        "TRAINING."
    ),
}
