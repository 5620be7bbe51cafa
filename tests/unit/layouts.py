"""Turn an embedded index written by the current code into what an older layout left, so the
migrations are tested on files of the shape they meet (tests only)."""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Sequence
from pathlib import Path

import zstandard

from indexer.boilerplate import Observation
from indexer.stores.sqlite.documents import ZSTD_BODY
from indexer.stores.sqlite.unit_stats import WITNESS_BITS


def as_layout_8(path: Path) -> None:
    """Rewrite every Zstandard body as layout 8 wrote it: zlib level 3, with the body's
    dictionary as zlib's preset bytes (layout 8's dictionaries were raw samples; zlib takes
    any bytes)."""
    conn = sqlite3.connect(path)
    with conn:
        _to_layout_8(conn)
    conn.close()


def _to_layout_8(conn: sqlite3.Connection) -> None:
    dictionaries = {i: bytes(b) for i, b in conn.execute("SELECT id, bytes FROM dictionaries")}
    for rid, body in conn.execute("SELECT rid, body FROM documents").fetchall():
        header = int.from_bytes(body[:2], "little")
        if not header & ZSTD_BODY:
            continue
        dict_id = header & ~ZSTD_BODY
        data = dictionaries.get(dict_id)
        raw = zstandard.ZstdDecompressor(
            dict_data=None if data is None else zstandard.ZstdCompressionDict(data)
        ).decompress(body[2:])
        compressor = zlib.compressobj(3, zdict=data) if data else zlib.compressobj(3)
        packed = compressor.compress(raw) + compressor.flush()
        conn.execute(
            "UPDATE documents SET body = ? WHERE rid = ?",
            (dict_id.to_bytes(2, "little") + packed, rid),
        )
    conn.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")


def as_layout_7(path: Path) -> None:
    """Drop layout 8's `postings.language` (what every row written before held)."""
    conn = sqlite3.connect(path)
    with conn:
        _to_layout_7(conn)
    conn.close()


def _to_layout_7(conn: sqlite3.Connection) -> None:
    _to_layout_8(conn)
    conn.execute("ALTER TABLE postings DROP COLUMN language")
    conn.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")


def as_layout_6(path: Path, statistics: Sequence[Observation] = ()) -> None:
    """Replace layout 7's statistics log by layout 6's `unit_stats` table holding
    `statistics` (31-bit witnesses, as layout 6 stored them). The log's keys cannot be
    turned back into (scope, unit), so the caller says which rows the file held."""
    conn = sqlite3.connect(path)
    with conn:
        _to_layout_6(conn, statistics)
    conn.close()


def _to_layout_6(conn: sqlite3.Connection, statistics: Sequence[Observation]) -> None:
    _to_layout_7(conn)
    conn.execute(
        "CREATE TABLE unit_stats (scope INTEGER NOT NULL, unit INTEGER NOT NULL,"
        " witness INTEGER NOT NULL, PRIMARY KEY (scope, unit, witness)) WITHOUT ROWID"
    )
    conn.executemany(
        "INSERT OR IGNORE INTO unit_stats VALUES (?, ?, ?)",
        [(scope, unit, witness & WITNESS_BITS) for scope, unit, witness in statistics],
    )
    conn.execute("DROP TABLE unit_stat_log")
    conn.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")


def as_layout_5(
    path: Path, compressed: bool = True, statistics: Sequence[Observation] = ()
) -> None:
    """Put each posting's document, decision and keys back into its `postings` row (the
    document zlib-compressed, or JSON text as layout 4 wrote it when `compressed` is False),
    `statistics` into `unit_witnesses` (full 64-bit witnesses, as layout 5 stored them),
    and drop what layouts 6 and 7 added. Written before any dictionary (bodies without
    one)."""
    conn = sqlite3.connect(path)
    with conn:
        _to_layout_6(conn, ())
        for rid, body in conn.execute("SELECT rid, body FROM documents").fetchall():
            assert body[:2] == b"\x00\x00", "a body compressed with a dictionary"
            document, decision = json.loads(zlib.decompress(body[2:]))
            text = json.dumps(document)
            conn.execute(
                "UPDATE postings SET document = ?, decision = ? WHERE rid = ?",
                (zlib.compress(text.encode()) if compressed else text, json.dumps(decision), rid),
            )
        conn.execute(
            "UPDATE postings SET band_keys ="
            " (SELECT band_keys FROM posting_keys k WHERE k.rid = postings.rid)"
        )
        conn.execute(
            "CREATE TABLE unit_witnesses (scope INTEGER NOT NULL, unit INTEGER NOT NULL,"
            " witness INTEGER NOT NULL, PRIMARY KEY (scope, unit, witness)) WITHOUT ROWID"
        )
        conn.executemany("INSERT OR IGNORE INTO unit_witnesses VALUES (?, ?, ?)", statistics)
        for statement in (
            "DROP TABLE documents",
            "DROP TABLE dictionaries",
            "DROP TABLE posting_keys",
            "DROP TABLE unit_stats",
            "ALTER TABLE postings DROP COLUMN score",
            "UPDATE meta SET value = '5' WHERE key = 'schema_version'",
        ):
            conn.execute(statement)
    conn.close()
