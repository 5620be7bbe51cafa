"""Stub relays: `stub_names_title` (FEATURE_VERSION 19), the title a stub names read as its
title (FEATURE_VERSION 20), whether the stub's other phrases are in the ad's text
(`stub_phrases_in_text`, FEATURE_VERSION 33), and the training transformations that teach
them (`classifier.stub_relays`, `classifier.pairs.Synthesiser`)."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

import pytest

from classifier import mutations, stub_relays, variants
from classifier.corpora import Ad
from classifier.features import FEATURE_NAMES, pair_features
from classifier.fields import extract_fields
from classifier.pairs import Synthesiser
from indexer.minhash import SketchParams
from indexer.prepare import prepare_document, to_stored
from indexer.text import normalise_title
from tests.classifier.postings import DEVELOPER_FR, NURSE_EN

FR = variants.Context(language="fr")
EN = variants.Context(language="en")
DONORS = mutations.Donors(
    locations=("07 - PRIVAS", "07 - ANNONAY"),
    titles=("Chef de projet informatique (H/F)", "Technicien support (H/F)"),
    employers=(),
)


def _feature(a: Mapping[str, Any], b: Mapping[str, Any], name: str = "stub_names_title") -> float:
    row = dict(zip(FEATURE_NAMES, pair_features(a, b), strict=True))
    return float(row[name])


AD = {
    "id": "ad",
    "title": "Commercial(e) vente menuiserie aluminium (H/F)",
    "company": "RG Aluminium",
    "location": "07 - JOYEUSE",
    "description": (
        "L'entreprise RG Aluminium, spécialisée dans la menuiserie aluminium et les projets "
        "d'aménagement personnalisés, recherche un(e) commercial(e) motivé(e) pour renforcer "
        "son équipe. Vous prospectez une clientèle de particuliers et de professionnels."
    ),
}


@pytest.mark.parametrize(
    ("stub", "value"),
    [
        ("En bref : Commercial(e) vente menuiserie aluminium, Relation client, Autonomie", 1.0),
        ("Commercial(e) vente menuiserie aluminium H/F | Permis B", 1.0),
        ("En bref : Poseur menuiserie aluminium, Relation client, Autonomie", 0.0),
    ],
)
def test_a_stub_names_the_other_s_title_or_another(stub: str, value: float) -> None:
    relay = {"id": "relay", "title": "Assistant commercial", "description": stub}
    assert _feature(AD, relay) == value
    assert _feature(relay, AD) == value  # symmetric


def _titles(a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[float, float]:
    row = dict(zip(FEATURE_NAMES, pair_features(a, b), strict=True))
    return float(row["title_equal"]), float(row["title_token_set_ratio"])


def test_a_stub_is_compared_by_the_title_it_names() -> None:
    """The job centre's label over a stub ("Assistant commercial") is not the board's
    title; the title the stub names is, so the title features read the two as one title.
    A stub naming another title keeps its own, and so does an ordinary short ad."""
    relay = {
        "id": "relay",
        "title": "Assistant commercial",
        "description": "En bref : Commercial(e) vente menuiserie aluminium, Relation client",
    }
    assert _titles(AD, relay) == (1.0, 1.0)
    assert _titles(relay, AD) == (1.0, 1.0)
    other = {**relay, "description": "En bref : Poseur menuiserie aluminium, Relation client"}
    plain = {**AD, "id": "b", "title": "Assistant commercial"}  # not a stub
    for unnamed in (other, plain):
        equal, ratio = _titles(AD, unnamed)
        assert equal == 0.0
        assert ratio < 1.0


def test_a_stub_takes_the_seniority_of_the_title_it_names() -> None:
    """The label's seniority word ("Chef des ventes": lead) is the job centre's, not the
    vacancy's: a stub naming the board's "Manager des ventes" reads as a manager like it.
    A stub naming another title keeps its label's word, and the conflict stays."""
    board = {**AD, "title": "MANAGER DES VENTES (21) H/F"}
    relay = {
        "id": "relay",
        "title": "Chef des ventes (H/F)",
        "description": "En bref : MANAGER DES VENTES (21), des challenges, Travail en équipe",
    }
    assert _feature(board, relay, "seniority_conflict") == 0.0
    assert _feature(relay, board, "seniority_conflict") == 0.0
    other = {**relay, "description": "En bref : Commercial terrain, des challenges"}
    assert _feature(board, other, "seniority_conflict") == 1.0


def test_no_stub_no_value() -> None:
    """Two ordinary ads: the features are unknown, not "names another title"."""
    other = {**AD, "id": "b", "title": "Poseur (H/F)"}
    assert math.isnan(_feature(AD, other))
    assert math.isnan(_feature(AD, other, "stub_phrases_in_text"))


@pytest.mark.parametrize(
    ("stub", "value"),
    [
        # the ad's own words: "particuliers et de professionnels", "projets d'aménagement"
        ("En bref : Commercial(e) vente menuiserie aluminium, Projets d'aménagement", 1.0),
        ("En bref : Commercial(e) vente menuiserie aluminium, Particuliers, Négocier un prix", 0.5),
        # another vacancy's keywords: none in this ad's text
        ("En bref : Commercial(e) vente menuiserie aluminium, Showroom, Vérandas bois", 0.0),
    ],
)
def test_a_stub_s_other_phrases_are_read_in_the_ad_s_text(stub: str, value: float) -> None:
    """The share of a stub's phrases besides the title (the lead and the title left out)
    that the other ad's text holds, word by word up to inflection ("Particuliers" /
    "particuliers", "Projets" / "projets"): a relay lists keywords of its ad, the stub of
    another vacancy of the title those of another text."""
    relay = {"id": "relay", "title": "Assistant commercial", "description": stub}
    assert _feature(AD, relay, "stub_phrases_in_text") == value
    assert _feature(relay, AD, "stub_phrases_in_text") == value


def test_an_english_stub_s_keywords_are_read_alike() -> None:
    """The habit in another language: an English lead ("In short:") and stop words left out,
    the ward's "wound care" found in the ad's text, another ward's "theatre scrub" not."""
    ad = {
        "id": "ad",
        "title": "Staff Nurse",
        "location": "Leeds",
        "description": (
            "We are looking for a staff nurse for our tissue viability team. You will "
            "provide wound care and support patients with leg ulcers on the ward."
        ),
    }
    for stub, value in (
        ("In short: Staff Nurse, Wound care, Teamwork", 0.5),
        ("In short: Staff Nurse, Theatre scrub, Anaesthetics", 0.0),
    ):
        relay = {"id": "relay", "title": "Nurse", "location": "Leeds", "description": stub}
        assert _feature(ad, relay) == 1.0
        assert _feature(ad, relay, "stub_phrases_in_text") == value


def test_a_stub_with_the_title_alone_has_no_share() -> None:
    """A stub listing nothing besides the title (and the lead) gives the share no phrase."""
    relay = {
        "id": "relay",
        "title": "Assistant commercial",
        "description": "En bref : Commercial(e) vente menuiserie aluminium",
    }
    assert _feature(AD, relay) == 1.0
    assert math.isnan(_feature(AD, relay, "stub_phrases_in_text"))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(("ad", "ctx"), [(DEVELOPER_FR, FR), (NURSE_EN, EN)])
def test_a_relay_is_a_stub_naming_the_ad_s_title(
    seed: int, ad: dict[str, object], ctx: variants.Context
) -> None:
    relay = stub_relays.relay(ad, random.Random(seed), ctx)
    assert normalise_title(str(ad["title"])) in extract_fields(relay).stub_phrases
    assert _feature(ad, relay) == 1.0


@pytest.mark.parametrize("seed", range(12))
def test_another_role_s_stub_names_another_title(seed: int) -> None:
    other = stub_relays.other_role(DEVELOPER_FR, random.Random(seed), FR, DONORS)
    assert other is not None
    assert _feature(DEVELOPER_FR, other) == 0.0


@pytest.mark.parametrize("seed", range(12))
def test_another_site_s_stub_is_listed_elsewhere(seed: int) -> None:
    ad = {**DEVELOPER_FR, "location": "07 - AUBENAS"}
    other = stub_relays.other_site(ad, random.Random(seed), FR, DONORS)
    assert other is not None
    assert other["location"] in DONORS.locations
    assert extract_fields(other).stub_phrases


@pytest.mark.parametrize(
    "title",
    [
        "Commercial(e) vente menuiserie aluminium (H/F)",
        "PrÃ©parateur / PrÃ©paratrice (H/F)",  # a feed that mis-decoded the title
        "Pflegefachkraft (m/w/d) - Teilzeit",
        "Ménagère/ménager à domicile (H/F)",  # both genders: the fields' own key folds them
        "",
    ],
)
def test_the_title_key_the_index_gives_is_the_one_extraction_reads(title: str) -> None:
    """The /dedup path hands `extract_fields` the title key a prepared posting has (and a
    stored one's block key holds) instead of normalising the title again; the feature must
    read what training read (`extract_fields` of the document alone), a title a feed
    mis-decoded included, whose index key is not the repaired title's."""
    document = {**AD, "title": title}
    prepared = prepare_document(document, SketchParams())
    stored = to_stored(prepared, "c-1").block_key.partition("|")[2]
    plain = extract_fields(document).index_title_key
    given = extract_fields(document, prepared.reading, index_title_key=prepared.title_key)
    assert given.index_title_key == plain
    assert extract_fields(document, index_title_key=stored).index_title_key == plain


OTHER_AD = {
    "id": "other",
    "title": "Commercial(e) vente menuiserie aluminium (H/F)",
    "company": "Vérandas du Rhône",
    "location": "69 - LYON 03",
    "description": (
        "Fabricant lyonnais de vérandas et pergolas bioclimatiques, nous cherchons un "
        "commercial sédentaire pour notre showroom. Vous suivez les devis, accueillez les "
        "visiteurs du salon et relancez les prospects par téléphone chaque semaine."
    ),
}


@pytest.mark.parametrize("seed", range(6))
def test_a_stub_of_another_ad_of_the_title_is_another_vacancy(seed: int) -> None:
    """The training negative the index's title keys call for: the stub of another real ad
    of the title against this ad (only its listing may change: coarser, half the time). It
    names this ad's title; its phrases are the other text's, so the share found in this
    ad's text stays low."""
    ads = [Ad(dict(AD), "g1", "fr"), Ad(dict(OTHER_AD), "g2", "fr")]
    made = Synthesiser(ads, random.Random(seed))._stubs_of_other_vacancies(4)
    assert len(made) == 4
    for pair in made:
        assert (pair.label, pair.kind, pair.stub) == (0, "mut_stub_other_vacancy", True)
        assert pair.other is not None and pair.other is not pair.ad
        assert {**pair.first, "location": ""} == {**pair.ad.document, "location": ""}
        assert _feature(pair.first, pair.second) == 1.0
        assert _feature(pair.first, pair.second, "stub_phrases_in_text") <= 0.5
