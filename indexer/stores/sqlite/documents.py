"""Stored documents of the embedded index (layouts 6 and 9): each posting's document and
decision in a `documents` row of their own, compressed with a dictionary built from the
index's own earlier postings.

Why a table of their own: a `postings` row holding its document was 2-4 KB, one row per
4 KB page, and the page's remainder stayed unused (772 of 4,304 bytes per posting at 200k
generated postings). Without the documents (and the keys, `posting_keys`) a `postings` row
is ~1.3 KB, three to a page, and document rows of ~1 KB about three (the NHS ingest: 1,377
and 1,278 bytes of file per posting for the two tables).

Why a dictionary: ads of one board or employer repeat their intros, benefits and the
decision's field names, which a compressor cannot see across rows. A dictionary gives it
that context. It is built from the user's own data, never shipped.

Why Zstandard with a trained dictionary (layout 9) rather than zlib with a preset one
(layout 6: the last 32 KB of every 50th of the latest 2,000 postings): packing ran on the
deciding thread at 125-166 µs per NHS ad in a loop and ~310 µs inside an ingest (zlib ~100
µs and the standard library's JSON ~70 µs, both slower with cold caches), a quarter of the
persist stage's samples in a py-spy profile of the NHS ingest. On 1,000 NHS
ads with their decision (a throwaway loop; dictionary from the 2,000 ads before them):
zlib level 3 with the preset dictionary 970 bytes and ~100 µs each; zstd level 3 with
a dictionary trained by `zstandard.train_dictionary` on those 2,000, 893 bytes and 20 µs;
with the preset bytes as a raw-content dictionary 1,008 bytes and 40 µs. Inflating: 8 µs
against 27-30 µs. The JSON is written by orjson (6.5 µs against 69 µs; byte-identical
for 6,000 of 6,000 NHS ads), except where it cannot say what the standard library says
(integers beyond 64 bits, non-finite floats, keys that are not strings): those documents
take `json.dumps`, so what is stored reads back the same either way. Reading stays on
`json.loads`, which keeps integers beyond 64 bits exact.

Bodies of both kinds are read: a body's first two bytes hold its dictionary's id (0: none),
with `ZSTD_BODY` set for a Zstandard body. A dictionary is a trained Zstandard dictionary
(its magic number says so) or, in files written before layout 9, the preset bytes zlib
used, which Zstandard reads as raw content when such a file is written on.

Dictionaries are built in a transaction of their own, before the writes that use them, so a
rolled-back write can never leave a row naming a dictionary the file does not hold. Ids only
grow; every committed dictionary stays (110 KB each, a new one every `NEW_DICTIONARY_EVERY`
postings, sooner while the index is young).
"""

from __future__ import annotations

import json
import math
import sqlite3
import struct
import threading
import zlib
from typing import Any

import orjson
import zstandard

from indexer.stores.sqlite.schema import to_json

LEVEL = 3
"""Zstandard level (the dictionary is trained for it). On 1,000 NHS ads with a dictionary
trained for level 3: level 3 20 µs for 893 bytes, level 5 39 µs for 910."""
DICTIONARY_BYTES = 112_640
"""Size of a trained dictionary (Zstandard's default). Bodies of NHS ads 10,001-14,842
(throwaway loop): trained on the 2,000 ads before ad 2,000, 32 KB gave 955 bytes a body,
64 KB 921, 112,640 895; trained on the 5,000 before ad 8,000, 64 KB 877 and 112,640 845
(32 KB on the 2,000 before ad 8,000: 925)."""
FIRST_DICTIONARY_AT = 500
"""Postings written before the first dictionary is built (no dictionary until then)."""
NEW_DICTIONARY_EVERY = 100_000
"""At most this many postings between two dictionaries: the ads' boards and employers drift.
A young index gets a new one sooner, once it holds ten times the postings its current
dictionary was trained after (at 500, ~5,000, ~50,000, then every 100,000): the first is
trained on only 500 ads (NHS bodies 10,001-14,842 with a 32 KB dictionary: 966 bytes when
trained on the first 500 ads, 925 on the 2,000 before ad 8,000)."""
SAMPLE_LATEST, SAMPLE_EVERY = 5000, 50
"""A dictionary is trained on the latest `SAMPLE_LATEST` postings (~1.3 s for 5,000 NHS ads,
once per dictionary, in a thread beside the writer: `DocumentCodec.start`); when training
fails (too few or too alike), the last `DICTIONARY_BYTES` of every `SAMPLE_EVERY`-th of
them is a raw-content dictionary instead (what layout 6 sampled)."""
_HEADER = struct.Struct("<H")
"""Each body starts with the id of its dictionary (0: none), `ZSTD_BODY` set for Zstandard."""
ZSTD_BODY = 0x8000
"""Set in the header of a Zstandard body (layout 9). Dictionary ids stay far below it: a new
one every 100,000 postings."""


class DocumentCodec:
    """Packs and unpacks `documents.body`; caches the file's dictionaries.

    `pack`, `start` and `install` run under the store's writer lock; `unpack` from
    any thread (a dictionary another store on the same file wrote is read on first sight).
    A Zstandard context may not be used by two threads at once, so each thread inflates with
    its own. A dictionary is trained in a thread of its own (`start`).
    """

    def __init__(self) -> None:
        self._dictionaries: dict[int, bytes] = {}
        self._zstd_dictionaries: dict[int, zstandard.ZstdCompressionDict] = {}
        self._current = 0
        self._since_rid = 0
        self._compressor = zstandard.ZstdCompressor(level=LEVEL, write_checksum=False)
        self._inflaters = threading.local()
        self._lock = threading.Lock()
        self._training: threading.Thread | None = None
        self._training_result: list[bytes] = []

    def load(self, conn: sqlite3.Connection) -> None:
        """Read the file's dictionaries (at open)."""
        rows = conn.execute("SELECT id, from_rid, bytes FROM dictionaries ORDER BY id").fetchall()
        with self._lock:
            for dict_id, from_rid, data in rows:
                self._dictionaries[int(dict_id)] = bytes(data)
                self._use(int(dict_id), int(from_rid))

    def _use(self, dict_id: int, from_rid: int) -> None:
        self._current, self._since_rid = dict_id, from_rid
        self._compressor = zstandard.ZstdCompressor(
            level=LEVEL,
            dict_data=self._zstd_dictionary(dict_id, self._dictionaries[dict_id]),
            write_checksum=False,
            write_dict_id=False,  # the body's header names it
        )

    def _zstd_dictionary(self, dict_id: int, data: bytes) -> zstandard.ZstdCompressionDict:
        """The dictionary as Zstandard reads it: trained (its magic number says so) or, for
        the preset bytes of layout 6, raw content. Built once per id."""
        found = self._zstd_dictionaries.get(dict_id)
        if found is None:
            found = zstandard.ZstdCompressionDict(data)
            self._zstd_dictionaries[dict_id] = found
        return found

    def wants_dictionary(self, next_rid: int) -> bool:
        """Whether enough postings were written since the last dictionary (or since none)."""
        if self._current == 0:
            return next_rid > FIRST_DICTIONARY_AT
        since = next_rid - self._since_rid
        return since > min(NEW_DICTIONARY_EVERY, 9 * self._since_rid)

    def training(self) -> bool:
        """Whether a dictionary is being trained in the background (`start`)."""
        return self._training is not None

    def trained(self) -> bool:
        """Whether a background training has finished: `install` may take its result."""
        return self._training is not None and not self._training.is_alive()

    def start(self, conn: sqlite3.Connection) -> None:
        """Read the sample (the latest postings' JSON, ~0.1 s for 5,000) and train on it in a
        thread of its own: Zstandard releases the GIL while training (1.3-2.2 s for 5,000
        NHS ads), so writes go on meanwhile with the current dictionary, and no `/dedup`
        request waits for it. `install` commits the result at a later batch."""
        sample = self._sample(conn)
        result: list[bytes] = []
        self._training = threading.Thread(
            target=lambda: result.append(_trained(sample)), name="train-dictionary", daemon=True
        )
        self._training_result = result
        self._training.start()

    def wait(self) -> None:
        """Until a background training has finished (tests, and a caller that must know)."""
        if self._training is not None:
            self._training.join()

    def install(self, conn: sqlite3.Connection, next_rid: int) -> None:
        """Commit the finished background training's dictionary; postings from `next_rid`
        on use it."""
        self.wait()
        result, self._training, self._training_result = self._training_result, None, []
        self._commit(conn, next_rid, result[0] if result else b"")

    def _sample(self, conn: sqlite3.Connection) -> list[bytes]:
        rows = conn.execute(
            "SELECT p.document, p.decision, d.body FROM postings p"
            " LEFT JOIN documents d ON d.rid = p.rid ORDER BY p.rid DESC LIMIT ?",
            (SAMPLE_LATEST,),
        ).fetchall()
        return [self.raw(conn, *row) for row in reversed(rows)]

    def _commit(self, conn: sqlite3.Connection, next_rid: int, data: bytes) -> None:
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
        """A body: the current dictionary's id with `ZSTD_BODY`, then the Zstandard frame of
        the JSON [document, decision] (`to_json_bytes`)."""
        packed: bytes = self._compressor.compress(to_json_bytes([document, decision]))
        return _HEADER.pack(self._current | ZSTD_BODY) + packed

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
        a body or from the columns of a row written before layout 6."""
        if body is not None:
            return self._inflate(conn, body)
        text = zlib.decompress(document) if isinstance(document, bytes) else document.encode()
        return text + decision.encode()

    def _inflate(self, conn: sqlite3.Connection, body: bytes) -> bytes:
        (header,) = _HEADER.unpack_from(body)
        dict_id = header & ~ZSTD_BODY
        data = self._dictionary(conn, dict_id) if dict_id else None
        if header & ZSTD_BODY:
            inflaters = self._thread_inflaters()
            inflater = inflaters.get(dict_id)
            if inflater is None:
                with self._lock:
                    found = None if data is None else self._zstd_dictionary(dict_id, data)
                inflater = zstandard.ZstdDecompressor(dict_data=found)
                inflaters[dict_id] = inflater
            return inflater.decompress(body[_HEADER.size :])
        if data is None:
            return zlib.decompress(body[_HEADER.size :])
        zlib_inflater = zlib.decompressobj(zdict=data)
        return zlib_inflater.decompress(body[_HEADER.size :]) + zlib_inflater.flush()

    def _thread_inflaters(self) -> dict[int, zstandard.ZstdDecompressor]:
        """This thread's Zstandard contexts, by dictionary id."""
        found: dict[int, zstandard.ZstdDecompressor] | None = getattr(
            self._inflaters, "by_id", None
        )
        if found is None:
            found = {}
            self._inflaters.by_id = found
        return found

    def _dictionary(self, conn: sqlite3.Connection, dict_id: int) -> bytes:
        data = self._dictionaries.get(dict_id)
        if data is None:  # written by another store on this file since this one loaded
            row = conn.execute("SELECT bytes FROM dictionaries WHERE id = ?", (dict_id,))
            data = bytes(row.fetchone()[0])
            with self._lock:
                self._dictionaries[dict_id] = data
        return data


def _trained(sample: list[bytes]) -> bytes:
    """A Zstandard dictionary trained on `sample` (JSON bodies, oldest first), or, when
    training fails (too few or too alike), the last `DICTIONARY_BYTES` of every
    `SAMPLE_EVERY`-th of them as raw content; empty when there is no sample."""
    if not sample:
        return b""
    try:
        samples: list[bytes | bytearray | memoryview] = list(sample)
        return zstandard.train_dictionary(DICTIONARY_BYTES, samples, level=LEVEL).as_bytes()
    except zstandard.ZstdError:
        return b"".join(sample[::-SAMPLE_EVERY][::-1])[-DICTIONARY_BYTES:]


def to_json_bytes(value: list[Any]) -> bytes:
    """UTF-8 JSON of `value` as `schema.to_json` writes it, by orjson where that says the
    same: not for integers beyond 64 bits or keys that are not strings (orjson refuses
    them), nor for NaN or infinities (orjson writes null)."""
    if not _non_finite(value):
        try:
            return orjson.dumps(value)
        except TypeError:  # orjson.JSONEncodeError
            pass
    return to_json(value).encode("utf-8")


def _non_finite(value: object) -> bool:
    """Whether a float that is NaN or infinite is anywhere in `value` (a loop over a stack,
    strings and integers passed first: this runs for every posting written)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or item is None or kind is int or kind is bool:
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False
