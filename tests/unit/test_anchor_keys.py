"""Anchor keys: which postings get them, how they are keyed per language, weighed and ranked."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np

from indexer.anchor_keys import (
    MAX_ANCHOR_DF,
    RARITY_SCALE,
    STORED_ANCHORS,
    PostingAnchors,
    TranslationQuery,
    anchor_keys,
    key_weights,
    language_key,
    other_languages,
    posting_anchors,
    ranked,
    searched_keys,
    stored_keys,
)
from indexer.reading import Reading, read_document
from indexer.stores.sqlite.band_index import BandIndex
from tests.translations import EN_CAPITALS, EN_TRANSLATION, PL_ORIGINAL, PT_CAPITALS

T0 = datetime(2025, 10, 1, tzinfo=UTC)


def of(posting: dict[str, str]) -> PostingAnchors:
    return posting_anchors(read_document(posting))


def read(title: str, company: str | None, description: str, language: str | None) -> Reading:
    return read_document(
        {"title": title, "company": company, "description": description, "language": language}
    )


def test_a_translation_keeps_anchors_of_its_original() -> None:
    original, translated = of(PL_ORIGINAL), of(EN_TRANSLATION)
    assert (original.language, translated.language) == ("pl", "en")
    shared = set(original.hashes) & set(translated.hashes)
    assert len(shared) >= 10  # names, models, figures, the e-mail address


def test_the_place_field_is_keyed_but_not_compared_as_an_anchor() -> None:
    """The location's anchor words are keys (a translation keeps its place field) but not
    part of the reading's anchors, which the classifier's features compare."""
    pt, en = read_document(PT_CAPITALS), read_document(EN_CAPITALS)
    assert pt.anchors & en.anchors == frozenset()
    assert pt.place_anchors == en.place_anchors == frozenset({"odivelas"})
    assert len(set(of(PT_CAPITALS).hashes) & set(of(EN_CAPITALS).hashes)) == 1
    named = {**PT_CAPITALS, "description": PT_CAPITALS["description"] + " ODIVELAS."}
    assert read_document(named).place_anchors == frozenset()  # the text names it already
    # a place field is names whatever its case; its stop words are not
    lower = {**EN_CAPITALS, "location": "odivelas, near lisboa"}
    assert read_document(lower).place_anchors == frozenset({"odivelas", "lisboa"})


def test_language_given_by_the_client_wins_and_unknown_gives_no_keys() -> None:
    given = posting_anchors(read("Engineer", "Acme", "Acme hires in Lyon.", "fr-BE"))
    assert given.language == "fr" and given.hashes
    assert posting_anchors(read("", None, "12345 67890", None)) == PostingAnchors(None, ())
    assert stored_keys(PostingAnchors(None, (1, 2))) == []
    # a language the index does not key: the reading keeps it, the keys say nothing
    klingon = read("x", None, "Some text in English here.", "tlh")
    assert klingon.language == "tlh" and posting_anchors(klingon) == PostingAnchors(None, ())


def test_stored_keys_are_the_language_key_then_the_lowest_anchor_hashes() -> None:
    many = PostingAnchors("pl", tuple(range(1, 100)))
    keys = stored_keys(many)
    assert keys[0] == language_key("pl")
    assert keys[1:] == anchor_keys(tuple(range(1, STORED_ANCHORS + 1)), "pl")


def test_keys_of_one_anchor_differ_by_language() -> None:
    assert anchor_keys((42,), "pl") != anchor_keys((42,), "en")
    assert anchor_keys((42,), "pl") == anchor_keys((42,), "pl")
    assert language_key("pl") not in anchor_keys(tuple(range(1000)), "pl")


def test_searched_languages_and_keys() -> None:
    query = TranslationQuery(PostingAnchors("en", (5, 6)), None, None, None)
    languages = other_languages(query)
    assert "en" not in languages and "pl" in languages and "zxx" not in languages
    keys = searched_keys(query, ["pl", "lv"])
    own = anchor_keys((5, 6), "en")
    assert keys == [*anchor_keys((5, 6), "pl"), *anchor_keys((5, 6), "lv"), *own]
    assert searched_keys(query, []) == []
    assert other_languages(TranslationQuery(PostingAnchors("en", ()), None, None, None)) == []


def test_weights_are_inverse_document_frequencies_of_keys_rare_on_both_sides() -> None:
    query = TranslationQuery(PostingAnchors("en", (1, 2, 3, 4, 5, 6)), None, None, None)
    pl, lv, en = (anchor_keys(query.anchors.hashes, lang) for lang in ("pl", "lv", "en"))
    counts = {
        pl[0]: 1,
        pl[1]: 4,
        pl[2]: 0,
        pl[3]: MAX_ANCHOR_DF + 1,  # common in Polish
        lv[4]: MAX_ANCHOR_DF,
        pl[5]: 1,
        en[5]: MAX_ANCHOR_DF + 1,  # rare in Polish, common on the query's (English) side
        en[0]: MAX_ANCHOR_DF,
    }
    weights = key_weights(query, counts, {"pl": 99, "lv": MAX_ANCHOR_DF, "de": 0})
    assert weights == {
        pl[0]: math.log((RARITY_SCALE + 1) / 1),
        pl[1]: math.log((RARITY_SCALE + 1) / 4),
        lv[4]: math.log((RARITY_SCALE + 1) / MAX_ANCHOR_DF),
    }
    assert key_weights(query, counts, {"lv": 3}) == {lv[4]: weights[lv[4]]}
    assert key_weights(TranslationQuery(PostingAnchors(None, (1,)), None, None, None), {}, {}) == {}


def test_ranked_by_weight_then_time_then_id() -> None:
    later = datetime(2025, 10, 2, tzinfo=UTC)
    scores = {"b": (1.0, T0), "a": (1.0, T0), "c": (1.0 + 1e-12, later), "d": (2.0, later)}
    assert ranked(scores, 3) == ["d", "a", "b"]


def test_ranked_among_equal_weights_by_closeness_to_the_query() -> None:
    scores = {
        "early": (1.0, T0 - timedelta(days=10)),
        "same_day": (1.0, T0 + timedelta(hours=3)),
        "after": (1.0, T0 + timedelta(days=2)),
        "before": (1.0, T0 - timedelta(days=2)),
        "heavier": (2.0, T0 - timedelta(days=50)),
    }
    assert ranked(scores, 4, near=T0) == ["heavier", "same_day", "before", "after"]
    assert ranked(scores, 2) == ["heavier", "early"]  # without `near`: by posted_at


def test_holders_of_each_key_within_the_window() -> None:
    index = BandIndex()
    index.stage_add(index.allocate_rid(), 10, [100, 200])
    index.stage_add(index.allocate_rid(), 20, [100])
    index.commit()
    index.stage_add(index.allocate_rid(), 30, [100, 300])  # staged, not committed
    rows, rids, posted = index.holders(index.spans([300, 100, 999]), 0, 25)
    assert list(zip(rows.tolist(), rids.tolist(), posted.tolist(), strict=True)) == [
        (1, 1, 10),
        (1, 2, 20),
    ]
    rows, rids, _ = index.holders(index.spans([300, 100]), 0, 30)
    assert np.bincount(rows, minlength=2).tolist() == [1, 3]
    index.stage_remove(2)
    rows, rids, _ = index.holders(index.spans([100]), 0, 30)
    assert rids.tolist() == [1, 3]
    index.rollback_to()
    assert index.holders(index.spans([300]), 0, 100)[1].tolist() == []


def test_key_counts_are_exact_up_to_the_bound_and_stop_beyond() -> None:
    index = BandIndex()
    for day in range(600):
        index.stage_add(index.allocate_rid(), day, [1, 2] if day % 100 == 0 else [1])
    index.commit()
    index.stage_add(index.allocate_rid(), 50, [2])  # staged
    two, one, three = index.count(index.spans([2, 1, 3]), 0, 599, 10)
    assert (two, three) == (7, 0) and one > 10  # key 1: 600 holders, counting stopped
    assert index.count(index.spans([1]), 0, 599, 1000) == [600]
    assert index.count(index.spans([1, 2]), 100, 300, 1000) == [201, 3]
    index.stage_remove(1)  # the posting of day 0
    assert index.count(index.spans([2]), 0, 599, 10) == [6]


def test_seen_tracks_keys_ever_held() -> None:
    index = BandIndex(tracked=[7, 8, 9])
    index.stage_add(index.allocate_rid(), 1, [7, 100])
    assert set(index.seen_keys) == {7}  # 100 is not tracked
    index.rollback_to()
    assert set(index.seen_keys) == {7}  # stays seen: a search for it finds nothing
    loaded = BandIndex(max_rid=5, tracked=[7, 8, 9])
    blob = np.asarray([8, 200], dtype="<i8").tobytes()
    loaded.load([(3, 10, blob)], since=0)
    assert set(loaded.seen_keys) == {8}
