"""The API's one error shape, the table from exceptions to status codes, and the body limit.

Every error response is `{"error": {"code", "message", "details": [{"field", "reason"}]}}`.
Core packages raise their own errors without HTTP codes; this module is the single place that
maps them to statuses.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from indexer.store import IncompatibleIndex, StoreError, StoreUnavailable
from service.validation import validation_details

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5


class ApiError(Exception):
    """An error with an HTTP status, raised by routes for client mistakes (404, 413, 415)."""

    def __init__(
        self, status: int, code: str, message: str, details: Sequence[dict[str, Any]] = ()
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = list(details)


def error_response(
    status: int,
    code: str,
    message: str,
    details: Sequence[dict[str, Any]] = (),
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """Build the one JSON error shape."""
    body = {"error": {"code": code, "message": message, "details": list(details)}}
    return JSONResponse(status_code=status, content=body, headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    """The table from errors to status codes."""

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        details = validation_details(exc.errors())
        names = ", ".join(d["field"] for d in details[:5])
        return error_response(422, "validation_error", f"invalid request: {names}", details)

    @app.exception_handler(ApiError)
    async def _api(_: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, exc.details)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return error_response(exc.status_code, code, str(exc.detail))

    @app.exception_handler(StoreUnavailable)
    async def _unavailable(_: Request, exc: StoreUnavailable) -> JSONResponse:
        logger.warning("store unavailable: %s", exc)
        return error_response(
            503,
            "store_unavailable",
            "the index is unavailable; nothing was written, retry later",
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )

    @app.exception_handler(IncompatibleIndex)
    async def _incompatible(_: Request, exc: IncompatibleIndex) -> JSONResponse:
        return error_response(500, "incompatible_index", str(exc))

    @app.exception_handler(StoreError)
    async def _store(_: Request, exc: StoreError) -> JSONResponse:
        logger.error("store error: %s", exc)
        return error_response(500, "store_error", "internal store error")


class BodyLimit:
    """ASGI middleware: refuse request bodies over a size limit with 413 before any work.

    Checks Content-Length up front and also counts streamed (chunked) bodies, buffering at most
    the limit; the buffered body is replayed to the app.
    """

    def __init__(self, app: ASGIApp, default_limit: int, limits: dict[str, int]) -> None:
        self.app = app
        self.default_limit = default_limit
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        limit = self.limits.get(scope["path"], self.default_limit)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._reject(scope, receive, send, limit)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self._reject(scope, receive, send, limit)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        chunks.clear()  # else the pieces stay alive beside `body` for the whole request
        sent = False

        async def replay() -> Message:
            nonlocal sent, body
            if not sent:
                sent = True
                replayed, body = body, b""  # the app holds the only reference from here
                return {"type": "http.request", "body": replayed, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _reject(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        response = error_response(
            413, "payload_too_large", f"request body exceeds {limit} bytes; nothing was stored"
        )
        await response(scope, receive, send)


def parse_json_lines(body: bytes) -> list[Any]:
    """NDJSON → list of values; a bad line raises ApiError 422 naming its 1-based line."""
    items: list[Any] = []
    for number, line in enumerate(body.decode("utf-8", errors="strict").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise ApiError(
                422,
                "validation_error",
                f"line {number} is not valid JSON",
                [{"field": f"line {number}", "reason": exc.msg}],
            ) from exc
        except RecursionError as exc:
            raise ApiError(
                422,
                "validation_error",
                f"line {number} is nested too deeply",
                [{"field": f"line {number}", "reason": "nested too deeply"}],
            ) from exc
    return items
