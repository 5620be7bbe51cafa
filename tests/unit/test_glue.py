"""Tests for indexer.glue: the line breaks a feed deleted between words, put back."""

from __future__ import annotations

import pytest

from classifier.features import FEATURE_NAMES, pair_features
from indexer.glue import glued, unglue
from indexer.sections import split_units
from indexer.text import normalise_company, normalise_title, strip_html, tokenize

BOARD = """Description de l'entreprise
Le Groupe Talan est un cabinet de conseil en innovation et transformation par la technologie.
Vos missions
Concevoir et construire les pipelines de données sur Azure et Databricks
Industrialiser les traitements Spark avec les équipes data
Profil recherché
Vous avez cinq ans d'expérience en ingénierie des données et vous aimez travailler en équipe
Avantages
Télétravail partiel et tickets restaurant"""
"""A board's ad with its headings and list items on lines of their own."""

RELAY = "".join(BOARD.split("\n"))
"""The same ad as a feed relays it: every line break deleted ("l'entrepriseLe Groupe",
"technologie.Vos missionsConcevoir")."""


def test_a_relay_with_its_line_breaks_deleted_reads_as_the_board_s_ad() -> None:
    assert tokenize(RELAY) == tokenize(BOARD)
    board = [(u.tokens, u.section, u.heading) for u in split_units(BOARD)]
    assert [(u.tokens, u.section, u.heading) for u in split_units(RELAY)] == board


def test_the_relay_shares_the_board_s_shingles() -> None:
    a = {"id": "a", "title": "Data Engineer", "description": BOARD, "company": "Talan"}
    b = {**a, "id": "b", "description": RELAY}
    features = dict(zip(FEATURE_NAMES, pair_features(a, b), strict=True))
    assert features["jaccard"] == pytest.approx(1.0)
    assert features["shingle3_jaccard"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("relayed", "words"),
    [
        (
            "en CDIVos missionsComptabiliser les facturesSolutionner les litiges",
            "en cdi vos missions comptabiliser les factures solutionner les litiges",
        ),
        (
            "Prise de posteHoraire : 2 x 8Lieu : PrivasRémunération : selon profilAvantages",
            "prise de poste horaire 2 x 8 lieu privas remuneration selon profil avantages",
        ),
        (
            "la conformité RGPDDescription du posteAu cœur de l'équipeVous",
            "la conformite rgpd description du poste au cœur de l equipe vous",
        ),
        (
            "Зарплата высокаяОпыт работы требуетсяГрафик",
            "зарплата высокая опыт работы требуется график",
        ),
        (  # Greek, as a EURES relay would glue it
            "Θέση εργασίαςΠεριγραφή καθηκόντωνΑπαιτούμενα προσόντα",
            "θεση εργασιασ περιγραφη καθηκοντων απαιτουμενα προσοντα",
        ),
        (  # NHS Jobs, the space lost around inline tags
            "Main dutiesTo provide nursing careJob titleClinical Lead",
            "main duties to provide nursing care job title clinical lead",
        ),
    ],
)
def test_glued_words_part(relayed: str, words: str) -> None:
    assert " ".join(tokenize(relayed)) == words


@pytest.mark.parametrize(
    "text",
    [
        "We use DevOps, JavaScript, SharePoint and BigQuery with our eLearning on iPhone.",
        "Vous maîtrisez TypeScript, GitLab et PowerBI au sein de notre équipe.",
        "",
    ],
)
def test_text_without_the_habit_is_left_alone(text: str) -> None:
    assert not glued(text)
    assert unglue(text) is text


def test_camel_case_names_of_a_glued_text_part_only_after_three_lowercase_letters() -> None:
    text = (
        "Vos missionsConcevoir des pipelines JavaScript avec les équipes DevOps et BigQueryProfil"
        " recherchéVous"
    )
    assert unglue(text) == (
        "Vos missions\nConcevoir des pipelines Java\nScript avec les équipes DevOps et BigQuery\n"
        "Profil recherché\nVous"
    )


def test_fields_the_index_keys_keep_their_tokens() -> None:
    assert normalise_title("DevOps Engineer - SharePoint") == "devops engineer sharepoint"
    assert normalise_company("LinkedIn") == normalise_company("Linkedin")


def test_repairing_twice_changes_nothing() -> None:
    once = strip_html(RELAY)
    assert strip_html(once) == once
    assert unglue(once) is once


def test_a_snippet_of_a_glued_ad_is_repaired_as_the_ad_is() -> None:
    """An aggregator's snippet holding one glued word is read as its source's repair reads
    that span, so cutting an ad short never loses the shingles the repair gave back."""
    snippet = RELAY[:120]
    assert "l'entrepriseLe" in snippet
    assert "technologie.Vos" not in snippet
    words = " ".join(tokenize(snippet)[:-1])
    assert words in " ".join(tokenize(RELAY))
    assert "entreprise le groupe" in words
