"""The embedded index's document bodies (`indexer.stores.sqlite.documents`): orjson where it
writes what the standard library writes, the standard library where it would not."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from indexer.stores.sqlite.documents import DocumentCodec, to_json_bytes
from indexer.stores.sqlite.schema import to_json
from tests.unit.support import DETERMINISTIC

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.characters(codec="utf-8"))
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=5) | st.integers(0, 9), inner, max_size=4)
    ),
    max_leaves=12,
)


def _standard(value: list[Any]) -> bytes | None:
    """What the standard library writes, None when it cannot write it in UTF-8 (a lone
    surrogate), where the codec must fail too."""
    try:
        return to_json(value).encode("utf-8")
    except UnicodeEncodeError:
        return None


@DETERMINISTIC
@given(st.lists(_VALUES, min_size=2, max_size=2))
@example([{"n": float("nan")}, {}])
@example([{"extra": [1, {"x": float("-inf")}]}, {"score": 0.5}])
@example([{"n": 10**30}, {}])
@example([{1: "a"}, {}])
@example([{"t": "\ud800"}, {}])
def test_json_bytes_read_back_as_the_standard_librarys(value: list[Any]) -> None:
    """Integers beyond 64 bits, NaN and infinities, keys that are not strings: whichever
    writer `to_json_bytes` takes, `json.loads` reads back what it reads from `json.dumps`
    (compared as the standard library's text again, since NaN != NaN)."""
    expected = _standard(value)
    if expected is None:
        try:
            to_json_bytes(value)
        except UnicodeEncodeError:
            return
        raise AssertionError("a lone surrogate was written")
    written = to_json_bytes(value)
    assert to_json(json.loads(written)) == to_json(json.loads(expected))


def test_bodies_read_back_from_another_thread_and_without_a_dictionary() -> None:
    """A body packed before any dictionary reads back; one reader per thread."""
    import threading

    codec = DocumentCodec()
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    documents = [{"title": f"Nurse {n}", "n": 10**25 + n, "x": n / 3} for n in range(50)]
    bodies = [codec.pack(d, {"status": "new"}) for d in documents]
    assert all(body[:2] == b"\x00\x80" for body in bodies)
    results: list[list[dict[str, Any]]] = []

    def read() -> None:
        results.append([codec.unpack(conn, body)[0] for body in bodies])

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [documents] * 4
