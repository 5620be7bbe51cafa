"""Request bodies and cursors the routes parse by hand: batches (JSON array or NDJSON) and
the opaque pagination cursor. Kept apart from the routes so parsing limits live in one place."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from fastapi import Request
from pydantic import ValidationError

from indexer.posting import JobPosting
from service.batches import take_body
from service.errors import ApiError, parse_json_lines
from service.schemas import MAX_BATCH, Posting
from service.validation import validation_details

_NDJSON_TYPES = {"application/x-ndjson", "application/ndjson", "application/jsonl"}


def encode_cursor(after: str) -> str:
    return base64.urlsafe_b64encode(after.encode("utf-8")).decode("ascii")


def decode_cursor(cursor: str) -> str:
    # validate=True: the lenient decoder drops characters outside the alphabet, so a garbled
    # cursor such as "!!!!" decoded to "" and silently restarted the listing from the top.
    try:
        after = base64.b64decode(cursor.encode("ascii"), altchars=b"-_", validate=True)
        decoded = after.decode("utf-8")
    except (binascii.Error, UnicodeError, ValueError) as exc:
        raise ApiError(
            422, "validation_error", "invalid cursor", [{"field": "cursor", "reason": "invalid"}]
        ) from exc
    if not decoded:
        raise ApiError(
            422, "validation_error", "invalid cursor", [{"field": "cursor", "reason": "empty"}]
        )
    return decoded


async def batch_body(request: Request) -> list[JobPosting]:
    """Parse a batch: a JSON array, or NDJSON with Content-Type application/x-ndjson.

    Every item is validated before anything is processed, so one bad item rejects the whole
    batch (422 naming `[index].field`) and nothing is stored.
    """
    body = await take_body(request)  # uncached: freed below, before validation
    media = request.headers.get("content-type", "application/json").split(";")[0].strip()
    try:
        if media.lower() in _NDJSON_TYPES:
            items = parse_json_lines(body)
        elif media.lower() == "application/json":
            items = json.loads(body)
            if not isinstance(items, list):
                raise ApiError(
                    422,
                    "validation_error",
                    "a JSON batch must be an array of postings",
                    [{"field": "body", "reason": "expected an array"}],
                )
        else:
            raise ApiError(
                415,
                "unsupported_media_type",
                "send application/json (an array) or application/x-ndjson (one per line)",
            )
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ApiError(
            422,
            "validation_error",
            "body is not valid JSON",
            [{"field": "body", "reason": str(exc)}],
        ) from exc
    except RecursionError as exc:  # the C parser recurses per level: 100,000 "[" gave 500
        raise ApiError(
            422,
            "validation_error",
            "body is nested too deeply",
            [{"field": "body", "reason": "nested too deeply"}],
        ) from exc
    del body  # the raw bytes (up to 64 MB) are not needed once parsed
    if len(items) > MAX_BATCH:
        raise ApiError(413, "batch_too_large", f"a batch holds at most {MAX_BATCH} postings")
    if not items:
        raise ApiError(
            422, "validation_error", "empty batch", [{"field": "body", "reason": "empty"}]
        )
    postings: list[JobPosting] = []
    details: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        try:
            postings.append(Posting.model_validate(item).core())
        except ValidationError as exc:
            details.extend(validation_details(exc.errors(), prefix=f"[{index}]"))
        items[index] = None  # the parsed dict is garbage once validated: bounded peak
    if details:
        raise ApiError(422, "validation_error", "invalid postings in batch", details)
    return postings
