"""Stub relays: `stub_names_title` (FEATURE_VERSION 19), the title a stub names read as its
title (FEATURE_VERSION 20), and the training transformations that teach them
(`classifier.stub_relays`)."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

import pytest

from classifier import mutations, stub_relays, variants
from classifier.features import FEATURE_NAMES, pair_features
from classifier.fields import extract_fields
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


def _feature(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    row = dict(zip(FEATURE_NAMES, pair_features(a, b), strict=True))
    return float(row["stub_names_title"])


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


def test_no_stub_no_value() -> None:
    """Two ordinary ads: the feature is unknown, not "names another title"."""
    assert math.isnan(_feature(AD, {**AD, "id": "b", "title": "Poseur (H/F)"}))


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
