"""Every feature has words, and the words say what the value means and which way it pushed."""

from __future__ import annotations

import math

import pytest

from classifier.feature_words import FEATURE_WORDS, describe
from classifier.features import FEATURE_NAMES


def test_every_feature_has_words_and_no_words_are_orphaned() -> None:
    assert set(FEATURE_WORDS) == set(FEATURE_NAMES)


@pytest.mark.parametrize("feature", FEATURE_NAMES)
@pytest.mark.parametrize("value", [0.0, 0.5, 1.0, 2.0, 37.0, math.nan, None])
def test_every_feature_says_every_value_in_one_sentence(feature: str, value: float | None) -> None:
    text = describe(feature, value, 0.3)
    assert text.endswith(" — raises the score")
    phrase = text.removesuffix(" — raises the score")
    assert phrase[0].isupper() or phrase[0].isdigit()
    assert "nan" not in phrase.lower().split() and "{" not in phrase


def test_shares_are_percentages_and_the_direction_follows_the_sign() -> None:
    assert (
        describe("jaccard", 0.93, 1.2)
        == "The descriptions share an estimated 93% of their word sequences — raises the score"
    )
    assert describe("title_equal", 0.0, -0.8) == "The titles differ — lowers the score"
    assert describe("days_apart", 3.0, 0.001) == "Posted 3.0 days apart — makes no difference"


def test_unknown_values_are_not_conflicts() -> None:
    assert describe("contract_conflict", math.nan, 0.2) == (
        "The contract types are not stated on both ads (unknown, not a conflict) — raises the score"
    )
    assert describe("contract_one_sided", 1.0, -0.1) == (
        "Only one side states 1 contract term (unknown, not a conflict) — lowers the score"
    )
    assert describe("salary_log_ratio", None, -0.3).startswith("A salary is not given on both")


def test_logs_and_counts_are_said_back_in_their_units() -> None:
    assert describe("salary_log_ratio", math.log(1.1), -0.5) == (
        "The salaries differ by 10% — lowers the score"
    )
    assert describe("place_distance_log", math.log1p(12), -0.5) == (
        "The places are 12 km apart — lowers the score"
    )
    assert describe("place_distance_log", 0.0, 0.2) == (  # a place inside the other
        "The places are one, or one lies inside the other — raises the score"
    )
    assert describe("email_sides", 2.0, 0.1) == "Both ads give an email address — raises the score"


def test_a_feature_without_words_is_named_with_its_value() -> None:
    assert describe("made_up", 0.25, 0.1) == "made_up = 0.25 — raises the score"
