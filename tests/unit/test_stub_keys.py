"""Stub phrases and keys (`indexer.stub_keys`)."""

from __future__ import annotations

import pytest

from indexer.stub_keys import (
    PHRASE_MAX_WORDS,
    STUB_MAX_WORDS,
    index_keys,
    names_title,
    search_keys,
    stub_phrases,
)
from indexer.text import normalise_title


@pytest.mark.parametrize(
    ("stub", "title"),
    [
        (
            "En bref : Contrôleur / Contrôleuse technique de véhicules automobiles, "
            "Aisance à l'oral, Autonomie",
            "Contrôleur / Contrôleuse technique de véhicules automobiles (H/F)",
        ),
        ("En bref : Livreur / Livreuse, Autonomie, Négocier les prix", "Livreur / Livreuse H/F"),
        ("Kurz: Pflegefachkraft (m/w/d); Teamarbeit; Schichtdienst", "Pflegefachkraft m/w/d"),
        ("In short: Staff Nurse | Band 5 | Teamwork", "Staff Nurse"),
        ("Boulanger\nAutonomie\nTravail en équipe", "Boulanger (H/F)"),
        (
            "Betoneerija, betoonivalmistaja | Kodus töötamise võimalus",
            "Betoneerija, betoonivalmistaja",
        ),
        (  # 14 title-key words: longer than most titles, still one
            "En bref : Femme/Homme de ménage et Garde d'enfants + 3 ans à Privas et ses "
            "alentours, Travail en équipe",
            "Femme/Homme de ménage et Garde d'enfants + 3 ans à Privas et ses alentours (H/F)",
        ),
    ],
)
def test_a_stub_s_phrases_hold_the_title_key_of_the_title_it_names(stub: str, title: str) -> None:
    assert names_title(stub_phrases(stub), normalise_title(title))


def test_short_or_long_phrases_are_not_titles() -> None:
    """A word of three letters ("SAV") names no title, nor does a run of more than
    `PHRASE_MAX_WORDS` words."""
    long = (
        "Vous aurez pour mission de nettoyer chaque matin les locaux et les bureaux de "
        "l'agence du centre"
    )
    assert len(normalise_title(long).split()) > PHRASE_MAX_WORDS
    assert stub_phrases(f"SAV, {long}") == ()


def test_a_short_ad_written_in_sentences_is_no_stub() -> None:
    """A household's ad of a greeting and one long sentence kept only "bonjour" as a
    phrase, which another household's ad held too: read as a stub and its ad."""
    sentence = (
        "Bonjour, nous cherchons un/une assistant(e) maternel(le) agréée secteur Bordeaux "
        "Caudéran pour début décembre pour une petite fille qui va naître fin septembre."
    )
    assert stub_phrases(sentence) == ()
    english = (
        "Hello, we are a family of four looking for a nanny to collect our two children "
        "from school every weekday and cook their tea until we get home."
    )
    assert stub_phrases(english) == ()
    assert stub_phrases("Bonjour, Boulanger, Autonomie, Travail en équipe") != ()


def test_an_ordinary_ad_has_no_phrases() -> None:
    text = " ".join(["mot"] * (STUB_MAX_WORDS + 1))
    assert stub_phrases(text) == ()
    assert stub_phrases(" ".join(["Infirmier, Autonomie"] * STUB_MAX_WORDS)) == ()


def test_the_keys_meet_across_directions_only() -> None:
    """A stub searches with its phrases' title keys, which every posting is indexed under
    (its bare title); every posting searches with the named-title key of its bare title,
    which only stubs naming it are indexed under. Two ordinary postings of one title share
    no stub key: that is the block key's work, and would flood common titles."""
    phrases = ("infirmier", "autonomie")
    assert set(search_keys("", phrases)) & set(index_keys("infirmier", ()))
    assert set(search_keys("infirmier", ())) & set(index_keys("", phrases))
    assert not set(search_keys("infirmier", ())) & set(index_keys("infirmier", ()))
