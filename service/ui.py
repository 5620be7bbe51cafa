"""The analysts' review page: static HTML, CSS and JavaScript served by the service itself.

No build step and no separate server: `make run` serves it at `/ui`. The page is a client of
the public REST API (`/clusters`, `/pairs/explain`, `/review`, `/feedback`, `/stats`, `/ready`)
and holds no data of its own, so its files are open paths; everything it shows is fetched with
the API key the analyst types into the page (read scope to look, write scope to label), which
the service checks exactly as for any other client.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse

from service.errors import ApiError

UI_DIR = Path(__file__).with_name("ui")
ASSETS = {
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "favicon.svg": "image/svg+xml",
}
"""The page's files, served by name from a fixed list: no path from the request reaches the
file system."""

PAGE_PATH = "/ui"
ASSET_PATH = "/ui/assets/{name}"
# Files change only with a release; a short cache keeps reloads fast without stale pages
# after an upgrade.
_CACHE = {"Cache-Control": "public, max-age=300"}


def mount_ui(app: FastAPI) -> None:
    """Add the page and its assets to `app` (both outside the OpenAPI schema)."""

    @app.get(PAGE_PATH, include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(
            UI_DIR / "index.html", media_type="text/html; charset=utf-8", headers=_CACHE
        )

    @app.get(ASSET_PATH, include_in_schema=False)
    def asset(name: str) -> FileResponse:
        media_type = ASSETS.get(name)
        if media_type is None:
            raise ApiError(404, "not_found", f"no asset {name!r}")
        return FileResponse(UI_DIR / name, media_type=media_type, headers=_CACHE)
