"""Month indices without an engine: names, the registry's reading, and where each bulk
operation of a write goes (`Pending.operations`)."""

from __future__ import annotations

from datetime import UTC, datetime

from indexer.stores.elastic.bodies import index_names, to_micros
from indexer.stores.elastic.partitions import (
    DROPPING,
    LIVE,
    PARTITIONS_ID,
    Partitions,
    partition_end,
    partition_from_index,
    partition_of,
    window_months,
)
from indexer.stores.elastic.plan import Pending

NAMES = index_names("jd")
MARCH = to_micros(datetime(2024, 3, 31, 23, 59, tzinfo=UTC))


def targets(pending: Pending, dropping: frozenset[str] = frozenset()) -> list[tuple[str, str, str]]:
    """(action, index, id) of every operation."""
    found = []
    for action, _ in pending.operations(NAMES, dropping=dropping):
        ((verb, meta),) = action.items()
        found.append((verb, meta["_index"], meta["_id"]))
    return found


def test_a_posting_belongs_to_its_utc_month() -> None:
    assert partition_of(MARCH, "month") == "m2024-03"
    assert partition_of(MARCH, "none") is None
    assert partition_end("m2024-03") == datetime(2024, 4, 1, tzinfo=UTC)
    assert partition_end("m2024-12") == datetime(2025, 1, 1, tzinfo=UTC)


def test_only_month_indices_of_this_store_are_read_as_months() -> None:
    assert partition_from_index(NAMES, "jd-postings-m2024-03") == "m2024-03"
    assert partition_from_index(NAMES, "jd-postings-000001") is None
    assert partition_from_index(NAMES, "jd-clusters-m2024-03") is None
    assert partition_from_index(NAMES, "jd-postings-m2024-3x") is None


def test_the_registry_read_last_decides_what_is_known_and_where_writes_go() -> None:
    partitions = Partitions("month")
    partitions.learn({"partitions": {"m2024-02": LIVE, "m2024-03": LIVE}})
    assert partitions.known() == ["m2024-02", "m2024-03"]
    assert partitions.target(MARCH) == "m2024-03"
    partitions.learn({"partitions": {"m2024-03": DROPPING}})
    assert partitions.known() == ["m2024-03"]  # February's index is gone
    assert partitions.target(MARCH) is None  # being dropped: the write index takes it
    partitions.learn(None)  # no registry document: no month
    assert partitions.known() == []


def test_a_new_posting_goes_to_its_month_which_is_registered() -> None:
    pending = Pending(postings={"p": {"posting_id": "p", "partition": "m2024-03"}})
    assert targets(pending) == [
        ("index", "jd-postings-m2024-03", "p"),
        ("update", "jd-clusters", PARTITIONS_ID),
    ]


def test_a_posting_moved_to_another_month_is_deleted_from_the_old_one() -> None:
    pending = Pending(
        postings={"p": {"posting_id": "p", "partition": "m2024-03"}}, stored={"p": None}
    )
    assert targets(pending)[:2] == [
        ("delete", "jd-postings", "p"),
        ("index", "jd-postings-m2024-03", "p"),
    ]
    same = Pending(
        postings={"p": {"posting_id": "p", "partition": "m2024-03"}}, stored={"p": "m2024-03"}
    )
    assert [t[0] for t in targets(same)] == ["index", "update"]


def test_partial_updates_and_deletions_address_the_postings_month() -> None:
    pending = Pending(
        postings={"gone": None},
        stored={"gone": "m2024-01"},
        repoints={"moved": "c2"},
        flags={"head": True},
        where={"moved": "m2024-02", "head": None},
    )
    assert targets(pending) == [
        ("delete", "jd-postings-m2024-01", "gone"),
        ("update", "jd-postings-m2024-02", "moved"),
        ("update", "jd-postings", "head"),
    ]
    assert targets(pending, dropping=frozenset({"m2024-01"})) == [
        ("update", "jd-postings-m2024-02", "moved"),
        ("update", "jd-postings", "head"),
    ]


def test_a_window_names_the_months_it_overlaps() -> None:
    since = to_micros(datetime(2023, 11, 20, tzinfo=UTC))
    until = to_micros(datetime(2024, 1, 19, tzinfo=UTC))
    assert window_months(since, until) == ["m2023-11", "m2023-12", "m2024-01"]
    assert window_months(since, since) == ["m2023-11"]
    assert window_months(since, to_micros(datetime(2026, 1, 1, tzinfo=UTC))) is None
