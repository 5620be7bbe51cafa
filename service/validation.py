"""Validation errors as the API reports them (`{"field", "reason"}`), without the web stack:
the CLI reports invalid lines the same way and need not import FastAPI (0.4 s of start-up)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["field_path", "validation_details"]


def field_path(loc: Sequence[int | str]) -> str:
    """("body", 3, "title") → "[3].title"; ("query", "min_size") → "min_size"."""
    parts = list(loc[1:]) if loc and loc[0] in ("body", "query", "path", "header") else list(loc)
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "body"


def validation_details(errors: Sequence[Any], prefix: str = "") -> list[dict[str, Any]]:
    """Pydantic/FastAPI error dicts → [{"field", "reason"}], optionally under `prefix`."""
    details = []
    for err in errors:
        path = field_path(tuple(err.get("loc", ())))
        if prefix:
            path = (
                prefix if path == "body" else f"{prefix}{'' if path.startswith('[') else '.'}{path}"
            )
        details.append({"field": path, "reason": str(err.get("msg", "invalid"))})
    return details
