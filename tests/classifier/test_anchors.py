"""Anchors (classifier.anchors) and the features built on them, on hand-made translations."""

from __future__ import annotations

from typing import Any

import numpy as np

from classifier.anchors import shared_anchors
from classifier.features import FEATURE_NAMES, pair_features
from indexer.anchor_words import anchors, transliterate
from tests.classifier.postings import WAREHOUSE_EN as OTHER_EN
from tests.classifier.postings import WELDER_EN as EN
from tests.classifier.postings import WELDER_PL as PL


def _features(a: dict[str, Any], b: dict[str, Any]) -> dict[str, float]:
    return dict(zip(FEATURE_NAMES, pair_features(a, b).tolist(), strict=True))


def test_names_codes_and_numbers_are_anchors() -> None:
    found = anchors("Spawacz w Gdańsku, MIG/MAG 135, nr SG-2025-17, tel. 58 123 45 67")
    assert {"spawacz", "gdansku", "mig", "mag", "135", "sg", "2025", "17", "58", "123"} <= found
    assert "w" not in found and "nr" not in found  # lower case, or one letter


def test_stop_words_and_lower_case_words_are_not_anchors() -> None:
    found = anchors("The team uses Python. We offer a bonus.", frozenset({"the", "we"}))
    assert found == {"python"}


def test_text_in_capitals_makes_every_word_an_anchor() -> None:
    assert anchors("PRECISAMOS DE ELETRICISTA EM LISBOA") >= {"eletricista", "lisboa"}


def test_cyrillic_and_greek_are_transliterated() -> None:
    assert transliterate("Инженер в Пловдив") == "Inzhener v Plovdiv"
    assert "plovdiv" in anchors("Инженер в Пловдив")
    assert "lemesos" in anchors("Μηχανικός στη Λεμεσός")
    assert transliterate("Gdańsk 日本") == "Gdańsk 日本"  # other scripts stay as they are


def test_an_anchor_matches_the_same_word_in_lower_case() -> None:
    a, b = frozenset({"python", "sap"}), frozenset({"oracle"})
    assert shared_anchors(a, b, frozenset(), frozenset({"python", "and"})) == {"python"}


def test_a_translation_shares_its_anchors_and_another_ad_does_not() -> None:
    same, other = _features(PL, EN), _features(PL, OTHER_EN)
    assert same["anchor_overlap"] >= 0.5 > other["anchor_overlap"]
    assert same["anchor_shared_log"] > other["anchor_shared_log"]
    assert same["shingle3_jaccard"] < 0.05  # the text features see two different ads


def test_anchor_features_are_symmetric_and_nan_without_anchors() -> None:
    np.testing.assert_array_equal(pair_features(PL, EN), pair_features(EN, PL))
    plain = {**OTHER_EN, "id": "x", "title": "welder", "company": "", "description": "we hire"}
    f = _features(plain, EN)
    assert f["anchor_overlap"] != f["anchor_overlap"]  # NaN: nothing to compare
    assert f["anchor_shared_log"] == 0.0
