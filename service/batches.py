"""A batch request's memory held for as short a time as its meaning allows.

A batch is validated whole before anything is stored (one bad item rejects all of it), so
every posting is in memory at once when processing starts; what can be bounded is how long
each piece stays. The raw body goes once it is parsed, and each posting once the pipeline
has taken it, so a 64 MB batch does not keep its body, its 1,000 postings and their
prepared forms alive until the response is built (`bench/soak.py --batch`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeVar

from starlette.requests import Request

_T = TypeVar("_T")


async def take_body(request: Request) -> bytes:
    """The request body, read without Starlette's per-request cache (`Request.body()` keeps
    it on the request until the response is sent), so the caller's reference is the only
    one and the bytes are freed when the caller drops them."""
    chunks = [chunk async for chunk in request.stream()]
    body = b"".join(chunks)
    chunks.clear()  # a body of several chunks would otherwise exist twice until return
    return body


def drain(items: list[_T]) -> Iterator[_T]:
    """The items of `items` in order, each removed from the list as it is handed out, so a
    consumer that drops an item after use frees it although the caller still holds the
    list. The list is empty once the iterator is exhausted."""
    items.reverse()
    while items:
        yield items.pop()
