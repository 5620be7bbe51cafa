"""API keys with scopes: who may read, write or administer the index.

Keys come from `JOBDEDUP_API_KEYS` (comma-separated `SCOPE:KEY`) and/or the file named by
`JOBDEDUP_API_KEYS_FILE` (one `SCOPE:KEY` per line, `#` comments). Scopes nest: `admin` ⊃
`write` ⊃ `read`. Several keys per scope let operators rotate without downtime; the file is
re-read when its modification time changes, so a rotation needs no restart.

The check runs as ASGI middleware, before the body is read or parsed: a caller without a valid
key cannot make the service buffer a 64 MB batch, parse JSON or touch the index. Keys are
compared in constant time (HMAC digests of equal length, every key compared) and never logged.

With no key configured the service answers everyone, which is only safe on a loopback bind:
`check_exposure` refuses any other address unless `JOBDEDUP_AUTH=off` says so explicitly.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

from service.errors import error_response
from service.factory import ConfigurationError
from service.ui import ASSET_PATH, PAGE_PATH

logger = logging.getLogger(__name__)

ScopeName = Literal["read", "write", "admin"]
SCOPES: tuple[ScopeName, ...] = ("read", "write", "admin")
_RANK: dict[str, int] = {name: rank for rank, name in enumerate(SCOPES)}
MIN_KEY_LENGTH = 16  # a key shorter than this is guessable; refused at start-up

# Paths anyone may reach: liveness/readiness probes, the API's own description, and the review
# page's code (`service.ui`: no data in it; what it shows comes through the keyed API).
OPEN_PATHS = frozenset(
    {
        "/health",
        "/ready",
        "/openapi.json",
        "/docs",
        "/docs/oauth2-redirect",
        "/redoc",
        PAGE_PATH,
        ASSET_PATH,
    }
)

# The scope each operation needs, by (method, route template). A route missing here needs
# `admin` (fail closed) and tests/api/test_auth.py fails until it is listed.
ROUTE_SCOPES: dict[tuple[str, str], ScopeName] = {
    ("GET", "/postings/{posting_id:path}"): "read",
    ("GET", "/clusters"): "read",
    ("GET", "/clusters/{cluster_id:path}"): "read",
    ("GET", "/metrics"): "read",
    ("GET", "/stats"): "read",
    ("GET", "/pairs/explain"): "read",
    ("GET", "/review"): "read",
    ("POST", "/dedup"): "write",
    ("POST", "/dedup/batch"): "write",
    ("POST", "/pairs/score"): "write",
    ("POST", "/feedback"): "write",
    ("DELETE", "/postings/{posting_id:path}"): "admin",
}


class AuthConfigError(ConfigurationError):
    """The key configuration is unusable (bad scope, short key, exposed without keys)."""


def _digest(key: str) -> bytes:
    # Fixed-length digests make compare_digest's time independent of the key's length.
    return hashlib.sha256(key.encode("utf-8")).digest()


def parse_keys(entries: Iterable[str], origin: str) -> list[tuple[ScopeName, bytes]]:
    """`SCOPE:KEY` entries → (scope, digest of key); errors name the entry's position, never
    the key itself."""
    keys: list[tuple[ScopeName, bytes]] = []
    for number, raw in enumerate(entries, start=1):
        entry = raw.strip()
        if not entry or entry.startswith("#"):
            continue
        scope, sep, key = entry.partition(":")
        scope = scope.strip().lower()
        key = key.strip()
        if not sep or scope not in _RANK:
            raise AuthConfigError(
                f"{origin} entry {number}: expected SCOPE:KEY with SCOPE one of {', '.join(SCOPES)}"
            )
        if len(key) < MIN_KEY_LENGTH or any(c.isspace() for c in key):
            raise AuthConfigError(
                f"{origin} entry {number}: a key needs at least {MIN_KEY_LENGTH} characters "
                "and no whitespace (e.g. `openssl rand -hex 24`)"
            )
        keys.append((scope, _digest(key)))  # type: ignore[arg-type]
    return keys


@dataclass
class KeyRing:
    """The configured keys: from the environment once, from the file whenever it changes."""

    inline: str | None
    path: Path | None

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._inline = parse_keys((self.inline or "").split(","), "JOBDEDUP_API_KEYS")
        self._file: list[tuple[ScopeName, bytes]] = []
        self._stamp: tuple[int, int] | None = None
        if self.path is not None:
            self._reload(strict=True)

    @property
    def enabled(self) -> bool:
        """Whether any key source is configured (an empty file still means "keys on")."""
        return bool(self._inline) or self.path is not None

    def _reload(self, strict: bool) -> None:
        assert self.path is not None
        try:
            stat = self.path.stat()
            stamp = (stat.st_mtime_ns, stat.st_size)
            if stamp == self._stamp:
                return
            keys = parse_keys(self.path.read_text(encoding="utf-8").splitlines(), str(self.path))
        except (OSError, UnicodeError, AuthConfigError) as exc:
            if strict:
                raise AuthConfigError(f"JOBDEDUP_API_KEYS_FILE: {exc}") from exc
            # A rotation that went wrong keeps the last good keys rather than locking
            # everyone out (or letting everyone in).
            logger.error("API keys file not reloaded, keeping the previous keys: %s", exc)
            return
        self._file, self._stamp = keys, stamp
        logger.info("API keys loaded from %s: %d keys", self.path, len(keys))

    def scope_of(self, presented: str) -> ScopeName | None:
        """The widest scope granted to `presented`, or None. Every key is compared."""
        if self.path is not None:
            with self._lock:
                self._reload(strict=False)
        digest = _digest(presented)
        best: ScopeName | None = None
        for scope, candidate in (*self._inline, *self._file):
            if hmac.compare_digest(digest, candidate) and (
                best is None or _RANK[scope] > _RANK[best]
            ):
                best = scope
        return best


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The key sent as `Authorization: Bearer KEY` or `X-API-Key: KEY`."""
    authorization = headers.get("authorization", "")
    scheme, _, credentials = authorization.partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    key = headers.get("x-api-key", "").strip()
    return key or None


def is_loopback(host: str) -> bool:
    """Whether binding `host` keeps the port on this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, keys: KeyRing, mode: str) -> None:
    """Refuse an open service on a non-loopback address unless auth is explicitly off."""
    if mode == "on" and not keys.enabled:
        raise AuthConfigError("JOBDEDUP_AUTH=on needs JOBDEDUP_API_KEYS or JOBDEDUP_API_KEYS_FILE")
    if mode == "auto" and not keys.enabled and not is_loopback(host):
        raise AuthConfigError(
            f"refusing to serve {host} without API keys: set JOBDEDUP_API_KEYS "
            "(e.g. admin:$(openssl rand -hex 24)) or JOBDEDUP_API_KEYS_FILE, bind 127.0.0.1, "
            "or set JOBDEDUP_AUTH=off to expose the service to anyone who reaches the port"
        )


class RequireApiKey:
    """ASGI middleware: 401 without a valid key, 403 with a key lacking the route's scope."""

    def __init__(self, app: ASGIApp, keys: KeyRing, routes: FastAPI) -> None:
        self.app = app
        self.keys = keys
        self.routes = routes

    def _required(self, scope: Scope) -> ScopeName | None:
        if scope["path"] in OPEN_PATHS:
            return None
        for route in self.routes.router.routes:
            match, _ = route.matches(scope)
            if match == Match.FULL:
                template = getattr(route, "path", "")
                if template in OPEN_PATHS:
                    return None
                method = "GET" if scope["method"] == "HEAD" else scope["method"]
                return ROUTE_SCOPES.get((method, template), "admin")
        # Unknown paths and wrong methods answer 404/405 only to callers holding a key, so
        # the route table is not probed anonymously.
        return "read"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        required = self._required(scope)
        if required is None:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        presented = presented_key(headers)
        granted = self.keys.scope_of(presented) if presented else None
        if granted is None:
            response = error_response(
                401,
                "unauthorized",
                "send a valid API key as `Authorization: Bearer KEY` or `X-API-Key: KEY`",
                headers={"WWW-Authenticate": 'Bearer realm="jobdedup"'},
            )
        elif _RANK[granted] < _RANK[required]:
            response = error_response(
                403, "forbidden", f"this key's scope is {granted!r}; this needs {required!r}"
            )
        else:
            await self.app(scope, receive, send)
            return
        await response(scope, receive, send)


def document_security(app: FastAPI) -> None:
    """Declare both key schemes in the OpenAPI document and each operation's scope, with its
    401/403 answers (the middleware enforces; FastAPI cannot see it)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = build()
        components = schema.setdefault("components", {})
        components.setdefault("securitySchemes", {}).update(
            {
                "bearer": {"type": "http", "scheme": "bearer", "description": "API key"},
                "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            }
        )
        error_ref = {"$ref": "#/components/schemas/ErrorOut"}
        for path, operations in schema.get("paths", {}).items():
            for method, operation in operations.items():
                needed = ROUTE_SCOPES.get((method.upper(), _template(app, path)))
                if needed is None:
                    continue
                operation["security"] = [{"bearer": []}, {"apiKey": []}]
                operation["description"] = (
                    operation.get("description", "")
                    + f"\n\nScope: `{needed}` (when API keys are configured)."
                ).strip()
                for status, text in (("401", "No valid API key"), ("403", "Key lacks scope")):
                    operation.setdefault("responses", {})[status] = {
                        "description": text,
                        "content": {"application/json": {"schema": error_ref}},
                    }
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def _template(app: FastAPI, openapi_path: str) -> str:
    """OpenAPI drops `:path` converters; map a documented path back to its route template."""
    for route in app.router.routes:
        template = getattr(route, "path", "")
        if template.replace(":path}", "}") == openapi_path:
            return str(template)
    return openapi_path


def key_ring(inline: str | None, path: Path | None) -> KeyRing:
    """The key ring of the settings (raises AuthConfigError with a message for the operator)."""
    if path is not None and not os.path.exists(path):
        raise AuthConfigError(f"JOBDEDUP_API_KEYS_FILE {path} does not exist")
    return KeyRing(inline=inline, path=path)
