"""SQLite-specific behaviour of `SqliteStore`; the shared behaviour lives in tests/contract."""

from __future__ import annotations

import json
import random
import sqlite3
import threading
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from indexer.boilerplate import UnitCounter
from indexer.minhash import SketchParams
from indexer.store import (
    CandidateQuery,
    IncompatibleIndex,
    Merge,
    StoredPosting,
    StoreError,
    StoreUnavailable,
    WriteSet,
)
from indexer.stores.sqlite import documents as sqlite_documents
from indexer.stores.sqlite import store as sqlite_module
from indexer.stores.sqlite.schema import from_micros, to_micros
from indexer.stores.sqlite.store import SqliteStore, open_sqlite_store
from tests.unit.layouts import as_layout_5, as_layout_6, as_layout_7, as_layout_8

PARAMS = SketchParams(num_perm=16, bands=8, rows=2)
T0 = datetime(2024, 3, 1, 9, 30, tzinfo=UTC)


def posting(pid: str, cluster: str = "c", size: int = 16) -> StoredPosting:
    sketch = np.random.default_rng(1).integers(-(2**40), 2**40, size=size, dtype=np.int64)
    return StoredPosting(
        id=pid,
        content_hash="h",
        posted_at=T0,
        title="t",
        company=None,
        source=None,
        company_key="",
        block_key="",
        sketch=sketch,
        shingle_count=1,
        cluster_id=cluster,
        document={},
        decision={},
    )


def test_open_creates_directory_and_uses_wal_with_full_sync(tmp_path: Path) -> None:
    store = open_sqlite_store(tmp_path / "nested" / "data", PARAMS)
    store.close()
    path = tmp_path / "nested" / "data" / "index.sqlite3"
    assert path.is_file()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()
    store = SqliteStore(path, PARAMS)
    try:
        with store._connection("test") as conn:
            assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    finally:
        store.close()


def test_other_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    SqliteStore(path, PARAMS).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    conn.close()
    with pytest.raises(IncompatibleIndex, match="schema version 999"):
        SqliteStore(path, PARAMS)


def test_parameter_mismatch_message_names_both_values(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    SqliteStore(path, SketchParams(num_perm=64, bands=8, rows=2)).close()
    with pytest.raises(IncompatibleIndex) as caught:
        SqliteStore(path, SketchParams(num_perm=128, bands=8, rows=2))
    message = str(caught.value)
    assert "num_perm=64" in message and "num_perm=128" in message
    assert str(path) in message and "bands" not in message


def test_foreign_sqlite_file_is_not_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("CREATE TABLE something (x)")
    conn.close()
    with pytest.raises(IncompatibleIndex, match="not an index"):
        SqliteStore(path, PARAMS)


def test_garbage_file_raises_store_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreUnavailable, match="open index"):
        SqliteStore(path, PARAMS)


def test_failed_apply_rolls_back_and_is_translated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SqliteStore(tmp_path / "index.sqlite3", PARAMS)
    try:
        store.apply(WriteSet(upserts=[(posting("kept"), [1])]))

        def broken(conn: sqlite3.Connection, cluster_id: str) -> None:
            raise sqlite3.OperationalError("disk I/O error")

        monkeypatch.setattr("indexer.stores.sqlite.store.refresh_cluster", broken)
        with pytest.raises(StoreUnavailable, match="apply changes failed: disk I/O error"):
            store.apply(WriteSet(upserts=[(posting("lost"), [1])], deletions=["kept"]))
        monkeypatch.undo()

        assert store.get_posting("lost") is None
        assert store.get_posting("kept") is not None
        store.apply(WriteSet(upserts=[(posting("after"), [1])]))
        assert store.stats().postings == 2
    finally:
        store.close()


def test_wrong_sketch_length_is_rejected_before_writing(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "index.sqlite3", PARAMS)
    try:
        with pytest.raises(ValueError, match="num_perm=16"):
            store.apply(WriteSet(upserts=[(posting("a", size=8), [1])]))
        assert store.stats().postings == 0
    finally:
        store.close()


def test_closed_store_is_unavailable(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "index.sqlite3", PARAMS)
    store.close()
    store.close()
    with pytest.raises(StoreUnavailable, match="closed"):
        store.ping()
    assert issubclass(StoreUnavailable, StoreError)


def test_two_stores_on_one_file_see_each_others_writes(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    first, second = SqliteStore(path, PARAMS), SqliteStore(path, PARAMS)
    try:
        first.apply(WriteSet(upserts=[(posting("a", "A"), [1])]))
        second.apply(WriteSet(upserts=[(posting("b", "A"), [1])]))
        assert first.stats().postings == second.stats().postings == 2
        cluster = first.get_cluster("A")
        assert cluster is not None and cluster.size == 2
    finally:
        first.close()
        second.close()


def test_time_conversion_round_trips_and_treats_naive_as_utc() -> None:
    moment = datetime(1969, 12, 31, 23, 59, 59, 1, tzinfo=UTC)
    assert from_micros(to_micros(moment)) == moment
    assert to_micros(datetime(1970, 1, 1)) == 0
    assert from_micros(0).tzinfo is UTC


def _keys_query(keys: list[int]) -> CandidateQuery:
    return CandidateQuery(
        band_keys=keys, block_key="", since=None, until=None, exclude_id=None, limit=10
    )


def test_a_version_2_index_is_migrated_and_keeps_its_candidates(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    store = SqliteStore(path, PARAMS)
    store.apply(WriteSet(upserts=[(posting("a"), [11, 12]), (posting("b"), [12])]))
    store.close()
    as_layout_5(path, compressed=False)
    conn = sqlite3.connect(path)
    with conn:  # the version-2 layout: per-key rows beside the postings
        conn.execute("CREATE TABLE bands (key INTEGER, posted_at INTEGER, rid INTEGER)")
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    conn.close()
    store = SqliteStore(path, PARAMS)
    try:
        assert [p.id for p in store.find_candidates(_keys_query([12, 11]))] == ["a", "b"]
    finally:
        store.close()
    conn = sqlite3.connect(path)
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    finally:
        conn.close()
    assert "bands" not in tables and version[0] == "9"


def test_a_failed_batch_leaves_no_key_behind_and_reopening_rebuilds_the_keys(
    tmp_path: Path,
) -> None:
    path = tmp_path / "index.sqlite3"
    store = SqliteStore(path, PARAMS)
    try:
        store.apply(WriteSet(upserts=[(posting("kept"), [7])]))
        with pytest.raises(RuntimeError), store.batch():
            store.apply(WriteSet(upserts=[(posting("lost"), [7, 8])]))
            store.apply(WriteSet(deletions=["kept"]))
            assert [p.id for p in store.find_candidates(_keys_query([7]))] == ["lost"]
            raise RuntimeError("the group fails before its commit")
        assert [p.id for p in store.find_candidates(_keys_query([7, 8]))] == ["kept"]
        store.apply(WriteSet(upserts=[(posting("kept"), [9])]))  # an update moves its keys
        assert store.find_candidates(_keys_query([7])) == []
    finally:
        store.close()
    store = SqliteStore(path, PARAMS)
    try:
        assert [p.id for p in store.find_candidates(_keys_query([9, 7]))] == ["kept"]
    finally:
        store.close()


def test_expire_gives_pages_back_to_the_file_system_and_drops_key_entries(
    tmp_path: Path,
) -> None:
    path = tmp_path / "index.sqlite3"
    store = SqliteStore(path, PARAMS)
    try:
        for n in range(300):
            item = posting(f"p{n:03d}", cluster=f"c{n}")
            item = StoredPosting(
                **{
                    **vars(item),
                    "posted_at": from_micros(to_micros(T0) + n * 60_000_000),
                    "document": {"description": f"{n} " + _random_words(4000, n)},
                }
            )
            store.apply(WriteSet(upserts=[(item, [n, 1000 + n, 7])]))
    finally:
        store.close()  # the last connection checkpoints: the file holds every page
    size_before = path.stat().st_size
    store = SqliteStore(path, PARAMS)
    try:
        assert store.find_candidates(_keys_query([7])) != []
        entries_before = store._bands.entries if store._bands else 0

        assert store.expire(from_micros(to_micros(T0) + 290 * 60_000_000)) == 290

        assert path.stat().st_size < 0.25 * size_before
        assert store._bands is not None and store._bands.entries == 30 < entries_before
        assert len(store.find_candidates(CandidateQuery([7], "", None, None, None, 50))) == 10
    finally:
        store.close()


def _random_words(size: int, seed: int) -> str:
    """Text that compresses about as badly as an ad (the store compresses documents)."""
    letters = np.random.default_rng(seed).integers(0, 27, size=size)
    return "".join("abcdefghijklmnopqrstuvwxyz "[int(k)] for k in letters)


def test_documents_get_their_own_rows_and_rows_of_layouts_4_and_5_still_read(
    tmp_path: Path,
) -> None:
    """Layout 6 writes document and decision to `documents`; a layout-4 row (JSON text) and
    a layout-5 row (zlib-compressed document) are read as they are beside it, and the review
    queue reads the score of every kind of row."""
    path = tmp_path / "index.sqlite3"
    document = {"title": "Nurse", "description": "Ward 7 " * 200, "extra": {"n": 10**30}}
    decision = {
        "status": "new",
        "score": 0.5,
        "candidates": [{"id": "x", "score": 0.5, "cluster_id": "x"}],
    }
    store = SqliteStore(path, PARAMS)
    try:
        store.apply(
            WriteSet(
                upserts=[
                    (replace(posting(pid, cluster=pid), document=document, decision=decision), [1])
                    for pid in ("x", "v4", "v5")
                ]
            )
        )
    finally:
        store.close()
    as_layout_5(path)  # every row as layout 5 left it; "v4" as layout 4 did
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE postings SET document = ? WHERE id = 'v4'", (json.dumps(document),))
    conn.close()

    store = SqliteStore(path, PARAMS)
    try:
        new = replace(posting("v6", cluster="v6"), document=document, decision=decision)
        store.apply(WriteSet(upserts=[(new, [2])]))
        for pid in ("v4", "v5", "v6"):
            found = store.get_posting(pid)
            assert found is not None and (found.document, found.decision) == (document, decision)
        reviewed = store.review_pairs(threshold=0.5, margin=0.01, limit=10)
        assert sorted(pair.a.id for pair in reviewed) == ["v4", "v5", "v6", "x"]
    finally:
        store.close()
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT p.id, typeof(p.document), length(d.body) FROM postings p"
            " LEFT JOIN documents d ON d.rid = p.rid ORDER BY p.id"
        ).fetchall()
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'")
        assert [row[:2] for row in rows] == [
            ("v4", "text"),
            ("v5", "blob"),
            ("v6", "text"),
            ("x", "blob"),
        ]
        assert rows[2][2] < len(json.dumps([document, decision])) / 10
        assert version.fetchone()[0] == "9"
    finally:
        conn.close()


def _stored(found: StoredPosting | None) -> tuple[str, dict[str, Any], dict[str, Any]]:
    assert found is not None
    return found.id, found.document, found.decision


def _apply_and_finish_training(store: SqliteStore, writes: WriteSet) -> None:
    """`apply`, then wait for a dictionary training it started: the next batch commits the
    dictionary, so the rows that use it do not depend on the thread's timing."""
    store.apply(writes)
    store._codec.wait()


def test_a_dictionary_trains_while_the_writer_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The training runs in a thread: while it runs, batches are written with the current
    dictionary (none yet) and a second training is not started; the first batch after it
    is done commits the dictionary, and the rows from there on name it."""
    monkeypatch.setattr(sqlite_documents, "FIRST_DICTIONARY_AT", 20)
    release = threading.Event()
    trained = sqlite_documents._trained

    def slow(sample: list[bytes]) -> bytes:
        release.wait(10)
        return trained(sample)

    monkeypatch.setattr(sqlite_documents, "_trained", slow)
    path = tmp_path / "index.sqlite3"
    store = SqliteStore(path, PARAMS)
    try:
        for n in range(30):
            store.apply(WriteSet(upserts=[(_doc_posting(n), [n])]))
        assert store._codec.training() and not store._codec.trained()
        release.set()
        store._codec.wait()
        for n in range(30, 35):
            store.apply(WriteSet(upserts=[(_doc_posting(n), [n])]))
        assert all(_stored(store.get_posting(f"p{n:02d}")) == _stored(_doc_posting(n))
                   for n in range(35))  # fmt: skip
    finally:
        store.close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT id, from_rid FROM dictionaries").fetchall() == [(1, 31)]
        headers = dict(conn.execute("SELECT rid, substr(body, 1, 2) FROM documents").fetchall())
    finally:
        conn.close()
    assert {headers[rid] for rid in range(1, 31)} == {b"\x00\x80"}
    assert {headers[rid] for rid in range(31, 36)} == {b"\x01\x80"}


def _doc_posting(n: int) -> StoredPosting:
    return replace(
        posting(f"p{n:02d}", cluster=f"c{n}"),
        document={"description": f"Ward {n} {_random_words(300, n)}"},
        decision={"status": "new", "score": None, "candidates": []},
    )


def test_documents_are_compressed_with_a_dictionary_sampled_from_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `FIRST_DICTIONARY_AT` postings a dictionary is trained beside the writer and
    committed at the next batch after the training is done, later bodies name it and are
    smaller, they read back after a reopen, and a second store on the file reads them
    without having loaded that dictionary."""
    monkeypatch.setattr(sqlite_documents, "FIRST_DICTIONARY_AT", 20)
    monkeypatch.setattr(sqlite_documents, "SAMPLE_EVERY", 2)
    path = tmp_path / "index.sqlite3"
    intro = "Leeds Teaching Hospitals is one of the largest NHS trusts in the country. " * 3

    def ad(n: int) -> StoredPosting:
        words = _random_words(600, n)
        return replace(
            posting(f"p{n:02d}", cluster=f"c{n}"),
            document={"description": f"{intro} {words} Apply by {n} May."},
            decision={"status": "new", "score": None, "candidates": []},
        )

    store = SqliteStore(path, PARAMS)
    reader = SqliteStore(path, PARAMS)
    try:
        for n in range(40):
            _apply_and_finish_training(store, WriteSet(upserts=[(ad(n), [n])]))
        for side in (store, reader):
            assert _stored(side.get_posting("p39")) == _stored(ad(39))
    finally:
        store.close()
        reader.close()
    conn = sqlite3.connect(path)
    try:
        dictionaries = conn.execute("SELECT id, from_rid, length(bytes) FROM dictionaries")
        # due at row 21 (20 written), trained meanwhile, used from the next batch on
        assert [row[:2] for row in dictionaries.fetchall()] == [(1, 22)]
        sizes = dict(conn.execute("SELECT rid, length(body) FROM documents").fetchall())
        headers = dict(conn.execute("SELECT rid, substr(body, 1, 2) FROM documents").fetchall())
    finally:
        conn.close()
    assert {headers[rid] for rid in range(1, 22)} == {b"\x00\x80"}  # Zstandard, none
    assert {headers[rid] for rid in range(22, 41)} == {b"\x01\x80"}  # Zstandard, 1
    assert sum(sizes[rid] for rid in range(22, 41)) < sum(sizes[rid] for rid in range(2, 21))
    store = SqliteStore(path, PARAMS)
    try:
        for n in range(40):
            assert _stored(store.get_posting(f"p{n:02d}")) == _stored(ad(n))
    finally:
        store.close()


def test_zlib_bodies_of_layout_8_read_and_its_dictionary_compresses_new_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A layout-8 file (zlib bodies, some with a preset dictionary) opened by this code: every
    body reads back, later postings are written as Zstandard frames with the file's current
    dictionary (read as raw content), and both kinds read after a reopen. A document that
    orjson cannot write as the standard library does (an integer beyond 64 bits, NaN) reads
    back as written."""
    monkeypatch.setattr(sqlite_documents, "FIRST_DICTIONARY_AT", 20)
    monkeypatch.setattr(sqlite_documents, "SAMPLE_EVERY", 2)
    path = tmp_path / "index.sqlite3"

    def ad(n: int) -> StoredPosting:
        extra: dict[str, Any] = {"big": 10**30 + n, "nan": float("nan")} if n % 7 == 0 else {}
        return replace(
            posting(f"p{n:02d}", cluster=f"c{n}"),
            document={"description": f"Ward {n} {_random_words(600, n)}", "extra": extra},
            decision={"status": "new", "score": None, "candidates": []},
        )

    def same(found: StoredPosting | None, n: int) -> bool:
        # json.dumps of both sides: NaN != NaN, but the two texts are equal
        return json.dumps(_stored(found)) == json.dumps(_stored(ad(n)))

    store = SqliteStore(path, PARAMS)
    try:
        for n in range(30):
            _apply_and_finish_training(store, WriteSet(upserts=[(ad(n), [n])]))
    finally:
        store.close()
    as_layout_8(path)
    conn = sqlite3.connect(path)
    with conn:
        old_headers = {h for (h,) in conn.execute("SELECT substr(body, 1, 2) FROM documents")}
    conn.close()
    assert old_headers == {b"\x00\x00", b"\x01\x00"}  # zlib, without and with the dictionary
    store = SqliteStore(path, PARAMS)
    try:
        assert all(same(store.get_posting(f"p{n:02d}"), n) for n in range(30))
        for n in range(30, 40):
            store.apply(WriteSet(upserts=[(ad(n), [n])]))
    finally:
        store.close()
    conn = sqlite3.connect(path)
    with conn:
        headers = dict(conn.execute("SELECT rid, substr(body, 1, 2) FROM documents").fetchall())
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    conn.close()
    assert version[0] == "9"
    assert {headers[rid] for rid in range(31, 41)} == {b"\x01\x80"}
    store = SqliteStore(path, PARAMS)
    try:
        assert all(same(store.get_posting(f"p{n:02d}"), n) for n in range(40))
    finally:
        store.close()


def test_a_stale_key_of_a_deleted_posting_never_finds_the_next_one(tmp_path: Path) -> None:
    """SQLite hands the largest rowid out again once its row is deleted; the key index keeps
    the deleted posting's entries until a merge, so the next posting must get another rid."""
    store = SqliteStore(tmp_path / "index.sqlite3", PARAMS)
    try:
        store.apply(WriteSet(upserts=[(posting("first"), [5])]))
        store.apply(WriteSet(deletions=["first"]))
        store.apply(WriteSet(upserts=[(posting("second"), [6])]))
        assert store.find_candidates(_keys_query([5])) == []
        assert [p.id for p in store.find_candidates(_keys_query([6]))] == ["second"]
    finally:
        store.close()


def _daily(tmp_path: Path, days: int) -> Path:
    """An index of one posting a day from T0, each with key 7 and a key of its own."""
    path = tmp_path / "index.sqlite3"
    store = SqliteStore(path, PARAMS)
    try:
        for day in range(days):
            item = replace(
                posting(f"d{day}", cluster=f"c{day}"), posted_at=T0 + timedelta(days=day)
            )
            store.apply(WriteSet(upserts=[(item, [7, 100 + day])]))
    finally:
        store.close()
    return path


def _window(keys: list[int], first_day: int, limit: int = 20) -> CandidateQuery:
    return CandidateQuery(keys, "", T0 + timedelta(days=first_day), None, None, limit)


def test_the_key_index_loads_the_searched_window_and_older_ones_when_asked(
    tmp_path: Path,
) -> None:
    """A reopened store reads only the postings of the window searched, and an older window
    later, without counting twice a posting written in between."""
    store = SqliteStore(_daily(tmp_path, 10), PARAMS)
    try:
        assert [p.id for p in store.find_candidates(_window([7], 8))] == ["d8", "d9"]
        assert store._bands is not None and store._bands.entries == 4  # 2 postings, 2 keys
        new = replace(posting("n", cluster="cn"), posted_at=T0 + timedelta(days=1))
        store.apply(WriteSet(upserts=[(new, [7, 101])]))
        found = [p.id for p in store.find_candidates(_window([7, 101], 0))]
        assert found == ["d1", "n", "d0", *(f"d{day}" for day in range(2, 10))]
        assert store._bands.entries == 22
    finally:
        store.close()


def test_a_rolled_back_batch_keeps_a_deleted_posting_loaded_during_it(tmp_path: Path) -> None:
    """The batch deletes a posting the index has not loaded, then a search loads its window:
    the rows come from the committed file, so the rollback finds the posting again."""
    store = SqliteStore(_daily(tmp_path, 3), PARAMS)
    try:
        with pytest.raises(RuntimeError), store.batch():
            store.apply(WriteSet(deletions=["d0"]))
            assert [p.id for p in store.find_candidates(_window([7], 0))] == ["d1", "d2"]
            raise RuntimeError("the group fails before its commit")
        assert [p.id for p in store.find_candidates(_window([7], 0))] == ["d0", "d1", "d2"]
    finally:
        store.close()


def _failing_insert(*_: object) -> tuple[str, bool]:
    raise sqlite3.IntegrityError("injected: the posting's insert fails")


@pytest.mark.parametrize("layout", [5, 6])
def test_boilerplate_statistics_of_older_layouts_move_to_the_log_with_the_same_counts(
    tmp_path: Path, layout: int
) -> None:
    """Layout 5's (scope, unit, witness) rows (signed 64-bit hashes of every sign) and layout
    6's `unit_stats` rows (31-bit witnesses) become records of layout 7's `unit_stat_log`,
    whose counts and "own witness" answers are those of a file written by layout 7 from the
    same observations; the old table is gone."""
    rng = random.Random(5)

    def h() -> int:
        return rng.randrange(-(2**63), 2**63)

    scopes = [(0, h()), (h(), h()), (h(), h())]  # (scope, this posting's witness)
    units = [h() for _ in range(12)]
    rows = [
        (scope, unit, witness)
        for scope, _ in scopes
        for unit in units[: rng.randrange(1, 12)]
        for witness in [h() for _ in range(rng.randrange(1, 4))]
    ]
    rows.append((scopes[1][0], units[0], scopes[1][1]))  # this posting is a witness of one
    fresh_path, old_path = tmp_path / "fresh.sqlite3", tmp_path / "old.sqlite3"
    for path in (fresh_path, old_path):
        store = SqliteStore(path, PARAMS)
        store.apply(WriteSet(unit_observations=rows))
        store.close()
    if layout == 5:
        as_layout_5(old_path, statistics=rows)
    else:
        as_layout_6(old_path, statistics=rows)
    fresh, migrated = SqliteStore(fresh_path, PARAMS), SqliteStore(old_path, PARAMS)
    try:
        expected = fresh.unit_counts(scopes, [*units, None])
        assert expected[(scopes[1][0], units[0])][1] is True
        assert migrated.unit_counts(scopes, [*units, None]) == expected
        assert sum(count for count, _ in expected.values()) == len(set(rows))
        tables = {r[0] for r in migrated._rows("t", "SELECT name FROM sqlite_master")}
        assert "unit_stat_log" in tables
        assert not tables & {"unit_stats", "unit_witnesses"}
    finally:
        fresh.close()
        migrated.close()


def test_boilerplate_statistics_in_memory_answer_as_a_set_per_scope_and_unit_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Random witness rows written through batches, single applies, savepoints rolled back
    and batches rolled back: after every step the store answers as `UnitCounter` (sets in
    memory, fed only what was committed or is in the open batch), also once the records
    were merged into the sorted arrays and after the file is opened again."""
    rng = random.Random(11)
    scopes = [0, *(rng.randrange(-(2**63), 2**63) for _ in range(3))]
    units = [rng.randrange(-(2**63), 2**63) for _ in range(40)]
    witnesses = [rng.randrange(-(2**63), 2**63) for _ in range(6)]

    def some_rows() -> list[tuple[int, int, int]]:
        return [
            (rng.choice(scopes), rng.choice(units), rng.choice(witnesses))
            for _ in range(rng.randrange(1, 8))
        ]

    def check(store: SqliteStore, reference: UnitCounter) -> None:
        for scope in scopes:
            ask = [(scope, rng.choice(witnesses))]
            assert store.unit_counts(ask, [*units, None]) == reference.unit_counts(ask, units)

    path = tmp_path / "index.sqlite3"
    store = SqliteStore(path, PARAMS)
    reference = UnitCounter()
    try:
        for step in range(60):
            if step == 30:  # from here on every commit merges into the sorted arrays
                assert store._stats is not None
                store._stats._merge()
            kind = rng.choice(["apply", "batch", "failed batch", "failed apply in batch"])
            if kind == "apply":
                rows = some_rows()
                store.apply(WriteSet(unit_observations=rows))
                reference.record(rows)
            elif kind == "batch":
                with store.batch():
                    for _ in range(3):
                        rows = some_rows()
                        store.apply(WriteSet(unit_observations=rows))
                        reference.record(rows)
                        check(store, reference)
            elif kind == "failed batch":
                before = {k: set(v) for k, v in reference._seen.items()}
                with pytest.raises(RuntimeError), store.batch():
                    store.apply(WriteSet(unit_observations=some_rows()))
                    raise RuntimeError("the batch fails")
                reference._seen = {k: frozenset(v) for k, v in before.items()}
            else:
                with store.batch():
                    rows = some_rows()
                    store.apply(WriteSet(unit_observations=rows))
                    reference.record(rows)
                    with monkeypatch.context() as patched:  # the write fails after them
                        patched.setattr(sqlite_module, "insert_posting", _failing_insert)
                        with pytest.raises(StoreError):
                            store.apply(
                                WriteSet(
                                    upserts=[(posting(f"p{step}"), [])],
                                    unit_observations=[*some_rows(), (0, units[0], 12345)],
                                )
                            )
            check(store, reference)
        store.close()
        store = SqliteStore(path, PARAMS)
        check(store, reference)
    finally:
        store.close()


def test_a_layout_7_index_gains_the_language_column(tmp_path: Path) -> None:
    """Rows written before layout 8 read back with no language kept (None: read again from
    the document), rows written after with theirs."""
    store = open_sqlite_store(tmp_path, PARAMS)
    store.apply(WriteSet(upserts=[(replace(posting("old"), language="en"), [1])]))
    store.close()
    as_layout_7(tmp_path / "index.sqlite3")
    store = open_sqlite_store(tmp_path, PARAMS)
    try:
        old = store.get_posting("old")
        assert old is not None and old.language is None
        store.apply(WriteSet(upserts=[(replace(posting("new", cluster="n"), language=""), [1])]))
        new = store.get_posting("new")
        assert new is not None and new.language == ""
        assert sorted((p.id, p.language) for p in store.find_candidates(_keys_query([1]))) == [
            ("new", ""),
            ("old", None),
        ]
    finally:
        store.close()
    conn = sqlite3.connect(tmp_path / "index.sqlite3")
    try:
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        assert version[0] == "9"
    finally:
        conn.close()


def test_clusters_opened_at_insert_match_a_full_refresh(tmp_path: Path) -> None:
    """`insert_posting` writes the row of a cluster a posting opens itself and skips its
    refresh: after any sequence of writes (new postings, updates moving a posting, several
    postings in one write, merges, deletions) every cluster row, canonical flag and
    statistics count equals what refreshing every cluster from its members gives."""
    from indexer.stores.sqlite.writes import refresh_cluster

    rng = random.Random(7)
    path = tmp_path / "index.sqlite3"
    store = SqliteStore(path, PARAMS)
    sources = [None, "board-a", "board-b"]

    def some_posting(pid: str) -> StoredPosting:
        return replace(
            posting(pid, cluster=rng.choice([pid, f"c{rng.randrange(4)}"])),
            posted_at=T0 + timedelta(days=rng.randrange(5)),
            source=rng.choice(sources),
        )

    def tables() -> tuple[list[Any], ...]:
        conn = sqlite3.connect(path)
        try:
            return tuple(
                conn.execute(sql).fetchall()
                for sql in (
                    "SELECT * FROM clusters ORDER BY id",
                    "SELECT id, canonical FROM postings ORDER BY id",
                    "SELECT * FROM stats_by_source WHERE n != 0 ORDER BY 1, 2, 3, 4",
                )
            )
        finally:
            conn.close()

    try:
        ids: list[str] = []
        for step in range(60):
            upserts: list[tuple[StoredPosting, list[int]]] = []
            for _ in range(rng.choice([1, 1, 2, 3])):
                pid = rng.choice(ids) if ids and rng.random() < 0.3 else f"p{step}-{len(upserts)}"
                upserts.append((some_posting(pid), [rng.randrange(6)]))
                ids.append(pid)
            clusters = [row[0] for row in tables()[0]]
            merges = []
            if len(clusters) > 1 and rng.random() < 0.2:
                absorbed, survivor = rng.sample(clusters, 2)
                merges.append(Merge(absorbed=absorbed, survivor=survivor, posting_id="x"))
            deletions = [rng.choice(ids)] if ids and rng.random() < 0.2 else []
            store.apply(WriteSet(upserts=upserts, merges=merges, deletions=deletions))
            written = tables()
            conn = sqlite3.connect(path)
            try:
                with conn:
                    for (cluster_id,) in conn.execute("SELECT DISTINCT cluster_id FROM postings"):
                        refresh_cluster(conn, cluster_id)
            finally:
                conn.close()
            assert tables() == written, f"step {step}"
    finally:
        store.close()
