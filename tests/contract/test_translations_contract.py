"""`find_translations` on every store adapter: rare anchor keys found in other languages only,
weighted by rarity, inside the window, with the open batch's writes."""

from __future__ import annotations

from indexer.anchor_keys import (
    MAX_ANCHOR_DF,
    PostingAnchors,
    TranslationQuery,
    stored_keys,
)
from indexer.store import IndexStore, WriteSet
from tests.contract.test_store_contract import day, posting, upsert


def anchors(language: str, *hashes: int) -> PostingAnchors:
    return PostingAnchors(language, tuple(sorted(hashes)))


def index(store: IndexStore, pid: str, found: PostingAnchors, when: float = 0) -> None:
    upsert(store, posting(pid, posted=day(when), seed=len(pid)), stored_keys(found))


def search(
    found: PostingAnchors,
    since: float | None = -30,
    until: float | None = 30,
    exclude: str | None = None,
    limit: int = 3,
    near: float | None = None,
) -> TranslationQuery:
    return TranslationQuery(
        anchors=found,
        since=None if since is None else day(since),
        until=None if until is None else day(until),
        exclude_id=exclude,
        limit=limit,
        near=None if near is None else day(near),
    )


def ids(store: IndexStore, query: TranslationQuery) -> list[str]:
    return [p.id for p in store.find_translations(query)]


def test_other_languages_only(store: IndexStore) -> None:
    index(store, "pl-1", anchors("pl", 11, 12, 13))
    index(store, "en-1", anchors("en", 11, 12, 13))
    assert ids(store, search(anchors("en", 11, 12, 13, 99))) == ["pl-1"]
    assert ids(store, search(anchors("pl", 11, 12))) == ["en-1"]
    assert ids(store, search(anchors("lv", 11))) == ["en-1", "pl-1"]  # equal weight: by id


def test_nothing_without_language_or_anchors(store: IndexStore) -> None:
    index(store, "pl-1", anchors("pl", 11, 12))
    assert ids(store, search(PostingAnchors(None, (11, 12)))) == []
    assert ids(store, search(anchors("en"))) == []


def test_rarer_and_more_shared_anchors_rank_first(store: IndexStore) -> None:
    # anchor 1 is in every Polish posting, 7 in two of them, 8 and 9 in one each
    index(store, "pl-a", anchors("pl", 1, 7, 8))
    index(store, "pl-b", anchors("pl", 1, 7))
    index(store, "pl-c", anchors("pl", 1, 9))
    index(store, "pl-d", anchors("pl", 1))
    assert ids(store, search(anchors("en", 1, 7, 8, 9), limit=3)) == ["pl-a", "pl-c", "pl-b"]
    assert ids(store, search(anchors("en", 1, 7, 8, 9), limit=1)) == ["pl-a"]


def test_equal_weights_rank_the_closest_in_time_first(store: IndexStore) -> None:
    # every Polish posting shares one anchor (a place) with the query, so all weigh alike
    for pid, when in (("pl-old", -20), ("pl-mid", -9), ("pl-near", 1), ("pl-late", 12)):
        index(store, pid, anchors("pl", 7, 100 + len(pid) + int(when)), when)
    assert ids(store, search(anchors("en", 7), near=0, limit=2)) == ["pl-near", "pl-mid"]
    assert ids(store, search(anchors("en", 7), near=11, limit=2)) == ["pl-late", "pl-near"]
    assert ids(store, search(anchors("en", 7), limit=2)) == ["pl-old", "pl-mid"]  # by time
    # a heavier posting still ranks first, however far
    index(store, "pl-heavy", anchors("pl", 7, 55), -25)
    assert ids(store, search(anchors("en", 7, 55), near=0, limit=2)) == ["pl-heavy", "pl-near"]


def test_common_anchor_gives_nothing(store: IndexStore) -> None:
    store.apply(
        WriteSet(
            upserts=[
                (posting(f"pl-{i:03d}", posted=day(0), seed=i), stored_keys(anchors("pl", 5)))
                for i in range(MAX_ANCHOR_DF + 1)
            ]
        )
    )
    assert ids(store, search(anchors("en", 5))) == []


def test_anchor_common_on_the_query_side_gives_nothing(store: IndexStore) -> None:
    index(store, "pl-1", anchors("pl", 6, 7))
    store.apply(
        WriteSet(
            upserts=[
                (posting(f"en-{i:03d}", posted=day(0), seed=i), stored_keys(anchors("en", 6)))
                for i in range(MAX_ANCHOR_DF + 1)
            ]
        )
    )
    assert ids(store, search(anchors("en", 6))) == []  # 6 is in every English posting
    assert ids(store, search(anchors("en", 6, 7))) == ["pl-1"]


def test_window_and_exclusion(store: IndexStore) -> None:
    index(store, "pl-old", anchors("pl", 21), when=-40)
    index(store, "pl-new", anchors("pl", 21), when=10)
    assert ids(store, search(anchors("en", 21))) == ["pl-new"]
    assert ids(store, search(anchors("en", 21), since=None, until=None)) == ["pl-old", "pl-new"]
    assert ids(store, search(anchors("en", 21), since=10, until=10)) == ["pl-new"]
    assert ids(store, search(anchors("en", 21), exclude="pl-new")) == []


def test_deleted_posting_is_not_found(store: IndexStore) -> None:
    index(store, "pl-1", anchors("pl", 31))
    store.apply(WriteSet(deletions=["pl-1"]))
    assert ids(store, search(anchors("en", 31))) == []


def test_batch_sees_its_own_writes(store: IndexStore) -> None:
    with store.batch():
        index(store, "pl-1", anchors("pl", 41, 42))
        assert ids(store, search(anchors("en", 41))) == ["pl-1"]
    assert ids(store, search(anchors("en", 42))) == ["pl-1"]


def test_found_postings_carry_no_document(store: IndexStore) -> None:
    index(store, "pl-1", anchors("pl", 51))
    (found,) = store.find_translations(search(anchors("en", 51)))
    assert found.id == "pl-1" and found.posted_at == day(0) and found.document == {}
