"""Turn an embedded index written by the current code into what an older layout left, so the
migrations are tested on files of the shape they meet (tests only)."""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path


def as_layout_5(path: Path, compressed: bool = True) -> None:
    """Put each posting's document, decision and keys back into its `postings` row (the
    document zlib-compressed, or JSON text as layout 4 wrote it when `compressed` is False),
    the statistics back into `unit_witnesses`, and drop what layout 6 added. Written before
    any dictionary (bodies without one)."""
    conn = sqlite3.connect(path)
    with conn:
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
        conn.execute("INSERT INTO unit_witnesses SELECT scope, unit, witness FROM unit_stats")
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
