"""Stored documents of the embedded index (layout 6): each posting's document and decision in
a `documents` row of their own, zlib-compressed with a preset dictionary sampled from the
index's own earlier postings.

Why a table of their own: a `postings` row holding its document was 2-4 KB, one row per
4 KB page, and the page's remainder stayed unused (772 of 4,304 bytes per posting at 200k
generated postings). Without the documents (and the keys, `posting_keys`) a `postings` row
is ~1.3 KB, three to a page, and document rows of ~1 KB about three (the NHS ingest: 1,377
and 1,278 bytes of file per posting for the two tables).

Why a dictionary: ads of one board or employer repeat their intros, benefits and the
decision's field names, which zlib cannot see across rows. A preset dictionary (the last
32 KB of every 50th of the latest 2,000 postings) gives it that context. `jobdedup ingest`
of the 14,842 NHS ads: layout 5 stored 1,389 bytes of compressed document and 208 of
decision text per ad, a body takes 1,041 (the ads after the first 512, which are written
before the dictionary). It is built from the user's own data, never shipped. A compressor
primed with it is copied per row (`LEVEL`).

Dictionaries are built in a transaction of their own, before the writes that use them, so a
rolled-back write can never leave a row naming a dictionary the file does not hold. Ids only
grow; every committed dictionary stays (32 KB each, a new one every `NEW_DICTIONARY_EVERY`
postings).
"""

from __future__ import annotations

import json
import sqlite3
import struct
import threading
import zlib
from typing import Any

from indexer.stores.sqlite.schema import to_json

LEVEL = 3
"""zlib level with the dictionary. Per NHS ad with its decision (2,000 ads, one process):
level 6 took 222 µs for 1,085 bytes, level 3 113 µs for 1,154, level 1 82 µs for 1,314;
plain zlib of the document alone at level 6 (layout 5) took ~100 µs. At level 6 `jobdedup
ingest` of the NHS ads ran 12% slower than layout 5 (persist 0.92 -> 1.24 ms per posting)."""
DICTIONARY_BYTES = 32768
"""zlib's window: a preset dictionary longer than this is not used."""
FIRST_DICTIONARY_AT = 500
"""Postings written before the first dictionary is sampled (plain zlib until then)."""
NEW_DICTIONARY_EVERY = 100_000
"""A new dictionary after this many more postings: the ads' boards and employers drift."""
SAMPLE_LATEST, SAMPLE_EVERY = 2000, 50
_HEADER = struct.Struct("<H")
"""Each body starts with the id of its dictionary (0: none)."""


class DocumentCodec:
    """Packs and unpacks `documents.body`; caches the file's dictionaries.

    `pack` and `build` run under the store's writer lock; `unpack` from any thread (a
    dictionary another store on the same file wrote is read on first sight).
    """

    def __init__(self) -> None:
        self._dictionaries: dict[int, bytes] = {}
        self._current = 0
        self._since_rid = 0
        self._primed: Any = None  # a zlib compressor primed with the current dictionary
        self._lock = threading.Lock()

    def load(self, conn: sqlite3.Connection) -> None:
        """Read the file's dictionaries (at open)."""
        rows = conn.execute("SELECT id, from_rid, bytes FROM dictionaries ORDER BY id").fetchall()
        with self._lock:
            for dict_id, from_rid, data in rows:
                self._dictionaries[int(dict_id)] = bytes(data)
                self._use(int(dict_id), int(from_rid))

    def _use(self, dict_id: int, from_rid: int) -> None:
        self._current, self._since_rid = dict_id, from_rid
        self._primed = zlib.compressobj(LEVEL, zdict=self._dictionaries[dict_id])

    def wants_dictionary(self, next_rid: int) -> bool:
        """Whether enough postings were written since the last dictionary (or since none)."""
        if self._current == 0:
            return next_rid > FIRST_DICTIONARY_AT
        return next_rid - self._since_rid > NEW_DICTIONARY_EVERY

    def build(self, conn: sqlite3.Connection, next_rid: int) -> None:
        """Sample a dictionary from the latest postings and commit it (own transaction)."""
        rows = conn.execute(
            "SELECT p.document, p.decision, d.body FROM postings p"
            " LEFT JOIN documents d ON d.rid = p.rid ORDER BY p.rid DESC LIMIT ?",
            (SAMPLE_LATEST,),
        ).fetchall()
        sample = [self.raw(conn, *row) for row in rows[::SAMPLE_EVERY]]
        data = b"".join(reversed(sample))[-DICTIONARY_BYTES:]
        if not data:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            dict_id = conn.execute(
                "INSERT INTO dictionaries (from_rid, bytes) VALUES (?, ?)", (next_rid, data)
            ).lastrowid
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        assert dict_id is not None
        with self._lock:
            self._dictionaries[dict_id] = data
            self._use(dict_id, next_rid)

    def pack(self, document: dict[str, Any], decision: dict[str, Any]) -> bytes:
        """A body: the current dictionary's id, then zlib over the JSON [document, decision].
        The standard library's JSON, not orjson: `extra` is stored as received, and orjson
        reads integers beyond 64 bits back as floats."""
        raw = to_json([document, decision]).encode("utf-8")
        if self._current == 0:
            return _HEADER.pack(0) + zlib.compress(raw, LEVEL)
        compressor = self._primed.copy()
        packed: bytes = compressor.compress(raw) + compressor.flush()
        return _HEADER.pack(self._current) + packed

    def unpack(
        self, conn: sqlite3.Connection, body: bytes
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """(document, decision) of a body."""
        loaded = json.loads(self._inflate(conn, body))
        return loaded[0], loaded[1]

    def raw(
        self, conn: sqlite3.Connection, document: bytes | str, decision: str, body: bytes | None
    ) -> bytes:
        """The JSON bytes of a posting's document and decision as the sample sees them, from
        a layout-6 body or from the columns of a row written before."""
        if body is not None:
            return self._inflate(conn, body)
        text = zlib.decompress(document) if isinstance(document, bytes) else document.encode()
        return text + decision.encode()

    def _inflate(self, conn: sqlite3.Connection, body: bytes) -> bytes:
        (dict_id,) = _HEADER.unpack_from(body)
        if dict_id == 0:
            return zlib.decompress(body[_HEADER.size :])
        data = self._dictionaries.get(dict_id)
        if data is None:  # written by another store on this file since this one loaded
            row = conn.execute("SELECT bytes FROM dictionaries WHERE id = ?", (dict_id,))
            data = bytes(row.fetchone()[0])
            with self._lock:
                self._dictionaries[dict_id] = data
        inflater = zlib.decompressobj(zdict=data)
        return inflater.decompress(body[_HEADER.size :]) + inflater.flush()
