"""Unit tests for indexer.language: language identification, stop words, spaceless scripts,
and that `indexer.text.tokenize` keeps Cyrillic and Greek words whole."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

import indexer.language as language
from indexer.disk_cache import CACHE_DIR_ENV
from indexer.language import (
    CANDIDATE_LANGUAGES,
    NO_SPACE_SCRIPT,
    detect_language,
    stop_words,
)
from indexer.text import tokenize
from indexer.units import shingle_tokens

# Hand-written job-ad snippets, a few sentences each.
ADS = {
    "en": "We are looking for an experienced staff nurse to join our friendly team on the "
    "surgical ward. You will work closely with doctors and therapists and support patients "
    "and their families.",
    "fr": "Nous recherchons un ingénieur qualité pour rejoindre notre équipe de production. "
    "Vous serez chargé du suivi des indicateurs et de l'amélioration continue de nos procédés.",
    "nl": "Wij zoeken een enthousiaste verpleegkundige voor onze afdeling interne geneeskunde. "
    "Je werkt nauw samen met artsen en collega's en je bent verantwoordelijk voor de zorg "
    "van patiënten.",
    "de": "Wir suchen zum nächstmöglichen Zeitpunkt einen Elektroniker für Betriebstechnik "
    "(m/w/d). Sie sind verantwortlich für die Wartung und Instandhaltung unserer "
    "Produktionsanlagen.",
    "es": "Buscamos un técnico de mantenimiento con experiencia en instalaciones industriales. "
    "Se ofrece contrato indefinido, jornada completa y buen ambiente de trabajo en una "
    "empresa consolidada.",
    "pl": "Poszukujemy doświadczonego kierowcy kat. C+E do pracy w transporcie "
    "międzynarodowym. Oferujemy stabilne zatrudnienie na umowę o pracę oraz atrakcyjne "
    "wynagrodzenie.",
    "el": "Ζητείται μηχανικός παραγωγής με εμπειρία στον τομέα των τροφίμων. Προσφέρουμε "
    "ανταγωνιστικές αποδοχές και δυνατότητες εξέλιξης σε ένα σύγχρονο εργασιακό περιβάλλον.",
    "bg": "Търсим опитен счетоводител за нашия офис в София. Предлагаме отлично "
    "възнаграждение, допълнително здравно осигуряване и възможност за професионално развитие.",
}

# Languages of the boards our users crawl (EURES: PL LV HR EE PT HU RO LT BG CY).
SEEN_LANGUAGES = ["en", "fr", "nl", "de", "es", "it", "pt", "pl", "ro", "hu", "el", "bg", "hr"]
SEEN_LANGUAGES += ["lv", "lt", "et"]

SPACELESS = {
    "zh": "招聘高级软件工程师，负责后台系统的设计与开发。要求本科以上学历，三年以上工作经验。",
    "ja": "経験豊富なソフトウェアエンジニアを募集しています。勤務地は東京です。",
    "th": "รับสมัครพนักงานขายประจำสาขากรุงเทพ มีประสบการณ์ด้านการขายอย่างน้อยหนึ่งปี",
    # Latin brand names inside Japanese: the Japanese letters still outnumber them.
    "ja-mixed": "Pythonエンジニア募集（Django/AWS経験者歓迎）。"
    "リモート勤務可能、フレックスタイム制。",
}

# --- detect_language ----------------------------------------------------------------------------


@pytest.mark.parametrize("expected", sorted(ADS))
def test_detect_language_of_ad_snippets(expected: str) -> None:
    assert detect_language(ADS[expected]) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "ok",
        "12345 67890",
        "2024-01-01 10:00",
        "€ 45.000 - 55.000",
        "+44 20 7946 0958",
        "REF: 123/AB-45",
        "www.example.com/jobs/123",
    ],
)
def test_detect_language_is_none_for_short_or_non_linguistic_text(text: str) -> None:
    assert detect_language(text) is None


@pytest.mark.parametrize("text", ["Nurse", "Java developer", "Senior Java Developer (m/w/d)"])
def test_detect_language_abstains_below_the_confidence_threshold(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # These score 0.07-0.13 for their best language: the threshold is what makes them None.
    assert detect_language(text) is None
    monkeypatch.setattr(language, "MIN_CONFIDENCE", 0.0)
    assert detect_language(text) in CANDIDATE_LANGUAGES


def test_detect_language_answers_only_candidate_iso_639_1_codes() -> None:
    assert "zxx" in CANDIDATE_LANGUAGES  # the "no language" class, answered with None
    assert all(len(code) == 2 for code in CANDIDATE_LANGUAGES if code != "zxx")
    assert {"bs", "sr", "mk", "lb"}.isdisjoint(CANDIDATE_LANGUAGES)


def test_detect_language_reads_only_a_bounded_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    text = ADS["de"] + " " + ADS["en"] * 20  # German opening, then much more English
    assert len(ADS["de"]) < language.DETECT_PREFIX_CHARS < len(text)
    assert detect_language(text) == "de"
    monkeypatch.setattr(language, "DETECT_PREFIX_CHARS", len(text))
    assert detect_language(text) == "en"


def test_detect_language_handles_all_caps_with_an_email_address() -> None:
    # py3langid alone lowercases only text without any lowercase letter: this scored 0.06 "pt".
    text = (
        "WE ARE LOOKING FOR AN EXPERIENCED CHEF TO JOIN OUR KITCHEN TEAM IN LIMASSOL. GOOD "
        "KNOWLEDGE OF GREEK AND ENGLISH. SEND YOUR CV TO jobs@example.com"
    )
    assert detect_language(text) == "en"


def test_detect_language_strips_html() -> None:
    html = "<div><p>" + ADS["fr"].replace(". ", ".</p><p>") + "</p></div>"
    assert detect_language(html) == "fr"


def test_identifier_is_built_once_when_threads_race(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from py3langid.langid import LanguageIdentifier

    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))  # an empty cache: the model is built

    loads: list[str] = []
    real_load = LanguageIdentifier.from_model_file

    def counting_load(*args: object, **kwargs: object) -> object:
        loads.append("load")
        return real_load(*args, **kwargs)

    monkeypatch.setattr(LanguageIdentifier, "from_model_file", counting_load)
    monkeypatch.setattr(language, "_identifier", None)
    barrier = threading.Barrier(4)
    results: list[str | None] = []

    def worker(text: str) -> None:
        barrier.wait()
        results.append(detect_language(text))

    threads = [threading.Thread(target=worker, args=(ADS[c],)) for c in ("en", "fr", "el", "bg")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert loads == ["load"]
    assert sorted(r or "" for r in results) == ["bg", "el", "en", "fr"]


def test_import_does_no_work() -> None:
    code = (
        "import sys, indexer.language; "
        "print(sorted(m for m in ('py3langid', 'stopwordsiso') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- stop_words ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("en", {"the", "and", "of"}),
        ("fr", {"et", "le", "la", "etre", "l", "d", "qu"}),  # "être", "l'", "d'", "qu'" folded
        ("nl", {"een", "de", "het", "en"}),
        ("de", {"und", "der", "die", "uber", "fur"}),  # "über", "für" folded
        ("el", {"και", "το", "ηδη"}),  # "ήδη" (spelled with U+2206 in the list) folded
        ("bg", {"и", "на", "за"}),
    ],
)
def test_stop_words_contain_folded_entries(code: str, expected: set[str]) -> None:
    assert expected <= stop_words(code)


@pytest.mark.parametrize("code", ["en", "fr", "nl", "de", "es", "el", "bg"])
def test_stop_words_are_tokens_as_tokenize_makes_them(code: str) -> None:
    words = stop_words(code)
    assert words
    assert all(tokenize(word) == [word] for word in words)
    assert "être" not in words


@pytest.mark.parametrize("code", SEEN_LANGUAGES)
def test_stop_words_cover_the_languages_we_see(code: str) -> None:
    assert len(stop_words(code)) >= 30


def test_stop_words_of_an_unknown_language_are_empty() -> None:
    assert stop_words("xx") == frozenset()
    assert stop_words("") == frozenset()


def test_stop_words_accept_case_and_region_and_are_cached() -> None:
    assert stop_words("FR") == stop_words("fr-BE") == stop_words("fr_CA") == stop_words("fr")
    assert stop_words("fr") is stop_words("fr")


# --- scripts written without spaces (shingled by character in indexer.units) -------------------


@pytest.mark.parametrize("key", sorted(SPACELESS))
def test_spaceless_scripts_are_shingled_by_character(key: str) -> None:
    tokens = tokenize(SPACELESS[key])
    exploded = shingle_tokens(tokens)
    assert len(exploded) > len(tokens)
    assert all(len(t) == 1 for t in exploded if NO_SPACE_SCRIPT.search(t))


@pytest.mark.parametrize("key", sorted(ADS))
def test_latin_cyrillic_and_greek_words_stay_whole(key: str) -> None:
    tokens = tokenize(ADS[key])
    assert shingle_tokens(tokens) == tokens


def test_korean_words_stay_whole() -> None:
    tokens = tokenize("경력 소프트웨어 엔지니어를 모집합니다.")
    assert shingle_tokens(tokens) == tokens


# --- tokenize on Cyrillic and Greek -------------------------------------------------------------


def test_tokenize_keeps_cyrillic_words_whole() -> None:
    assert tokenize("Инженер по качеству") == ["инженер", "по", "качеству"]
    assert tokenize("Инженер-конструктор (м/ж)") == ["инженер", "конструктор", "м", "ж"]
    assert tokenize("Майстор") == ["маистор"]  # й folds to и, like other accents


def test_tokenize_keeps_greek_words_whole_and_folds_tonos_and_final_sigma() -> None:
    # str.casefold maps final sigma (ς) to σ, so "ΜΗΧΑΝΙΚΟΣ" and "μηχανικός" agree.
    assert tokenize("Μηχανικός") == ["μηχανικοσ"]
    assert tokenize("ΜΗΧΑΝΙΚΟΣ") == tokenize("μηχανικός")
    assert tokenize("Μηχανικός Ποιότητας, Αθήνα") == ["μηχανικοσ", "ποιοτητασ", "αθηνα"]


def test_the_model_read_from_the_disk_cache_answers_as_the_one_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The restricted model is pickled after its first build (`indexer.disk_cache`); the copy
    read back by the next process must give the same languages and probabilities."""
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    built = language._load_identifier()
    monkeypatch.setattr(language, "_identifier", None)
    first = language._get_identifier()  # built again and written
    monkeypatch.setattr(language, "_identifier", None)
    second = language._get_identifier()  # read from the file
    assert [p.name.split("-")[0] for p in tmp_path.iterdir()] == ["language"]
    for text in ADS.values():
        assert second.classify(text) == first.classify(text) == built.classify(text)
