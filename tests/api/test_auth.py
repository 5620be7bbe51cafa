"""API keys with scopes: every route refuses without a key (401) or with a narrower key (403),
nothing is stored by a refused request, keys rotate through the file, and a public bind
without keys is refused at start-up."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.routing import Route

from service.api import create_app
from service.auth import OPEN_PATHS, ROUTE_SCOPES, AuthConfigError, ScopeName
from service.settings import Settings
from tests.api.postings import DATA_ENGINEER, DATA_ENGINEER_REPOST
from tests.api.support import error_of
from tests.processes import CLI, cli_env, start_serve

READ_KEY = "read-key-0123456789abcdef"
WRITE_KEY = "write-key-0123456789abcdef"
ADMIN_KEY = "admin-key-0123456789abcdef"
KEYS = f"read:{READ_KEY},write:{WRITE_KEY},admin:{ADMIN_KEY}"
KEY_OF: dict[ScopeName, str] = {"read": READ_KEY, "write": WRITE_KEY, "admin": ADMIN_KEY}
NARROWER: dict[ScopeName, ScopeName | None] = {"read": None, "write": "read", "admin": "write"}


@pytest.fixture
def keyed(data_dir: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(data_dir=data_dir, api_keys=KEYS))) as client:
        yield client


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _call(client: TestClient, method: str, template: str, headers: dict[str, str]) -> Any:
    """One request to the route `template` with a body that passes validation."""
    path = template.replace("{posting_id:path}", "job-1").replace("{cluster_id:path}", "c-1")
    body: Any = None
    if path == "/dedup":
        body = DATA_ENGINEER
    elif path == "/dedup/batch":
        body = [DATA_ENGINEER]
    elif path == "/pairs/score":
        body = {"a": DATA_ENGINEER, "b": DATA_ENGINEER_REPOST}
    elif path == "/feedback":
        body = {"a_id": "x", "b_id": "y", "label": "duplicate"}
    return client.request(method, path, json=body, headers=headers)


def test_every_route_has_a_scope_or_is_open(keyed: TestClient) -> None:
    app_routes = {
        (method, route.path)
        for route in keyed.app.router.routes  # type: ignore[attr-defined]
        if isinstance(route, Route) and route.path not in OPEN_PATHS
        for method in set(route.methods or ()) - {"HEAD"}
    }
    assert app_routes == set(ROUTE_SCOPES)


@pytest.mark.parametrize(("method", "template"), sorted(ROUTE_SCOPES))
def test_each_route_needs_its_scope(keyed: TestClient, method: str, template: str) -> None:
    needed = ROUTE_SCOPES[(method, template)]
    anonymous = error_of(_call(keyed, method, template, {}), 401)
    assert anonymous["code"] == "unauthorized"
    assert "WWW-Authenticate" in _call(keyed, method, template, {}).headers
    error_of(_call(keyed, method, template, _bearer("not-a-key-0123456789abcdef")), 401)
    narrower = NARROWER[needed]
    if narrower is not None:
        refused = error_of(_call(keyed, method, template, _bearer(KEY_OF[narrower])), 403)
        assert needed in refused["message"]
    for scope, key in KEY_OF.items():
        if scope == needed or NARROWER[scope] == needed or scope == "admin":
            answer = _call(keyed, method, template, {"X-API-Key": key})
            assert answer.status_code not in (401, 403), (scope, answer.text)


def test_refused_requests_store_nothing(keyed: TestClient) -> None:
    reader = _bearer(READ_KEY)
    assert keyed.post("/dedup", json=DATA_ENGINEER, headers=reader).status_code == 403
    assert keyed.post("/dedup/batch", json=[DATA_ENGINEER]).status_code == 401
    assert keyed.get(f"/postings/{DATA_ENGINEER['id']}", headers=reader).status_code == 404

    assert keyed.post("/dedup", json=DATA_ENGINEER, headers=_bearer(WRITE_KEY)).status_code == 200
    deleted = keyed.delete(f"/postings/{DATA_ENGINEER['id']}", headers=_bearer(WRITE_KEY))
    assert deleted.status_code == 403
    assert keyed.get(f"/postings/{DATA_ENGINEER['id']}", headers=reader).status_code == 200
    deleted = keyed.delete(f"/postings/{DATA_ENGINEER['id']}", headers=_bearer(ADMIN_KEY))
    assert deleted.status_code == 200


def test_an_anonymous_oversized_body_is_refused_before_it_is_read(keyed: TestClient) -> None:
    big = b"[" + b" " * 2_000_000 + b"]"
    answer = keyed.post("/dedup", content=big, headers={"Content-Type": "application/json"})
    assert error_of(answer, 401)["code"] == "unauthorized"


def test_probes_and_the_api_description_stay_open(keyed: TestClient) -> None:
    assert keyed.get("/health").status_code == 200
    assert keyed.get("/ready").status_code == 200
    schema = keyed.get("/openapi.json").json()
    assert set(schema["components"]["securitySchemes"]) == {"bearer", "apiKey"}
    for method, template in ROUTE_SCOPES:
        operation = schema["paths"][template.replace(":path}", "}")][method.lower()]
        assert operation["security"] == [{"bearer": []}, {"apiKey": []}]
        assert {"401", "403"} <= set(operation["responses"])
    assert keyed.get("/metrics").status_code == 401
    assert keyed.get("/metrics", headers=_bearer(READ_KEY)).status_code == 200
    assert keyed.get("/no-such-route").status_code == 401
    assert keyed.get("/no-such-route", headers=_bearer(READ_KEY)).status_code == 404


def test_both_header_forms_and_scheme_case(keyed: TestClient) -> None:
    for headers in (
        {"Authorization": f"bearer {READ_KEY}"},
        {"Authorization": f"Bearer  {READ_KEY} "},
        {"X-API-Key": READ_KEY},
    ):
        assert keyed.get("/clusters", headers=headers).status_code == 200, headers
    assert keyed.get("/clusters", headers={"Authorization": f"Basic {READ_KEY}"}).status_code == 401


def test_keys_rotate_through_the_file_without_restart(data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "keys"
    path.write_text(f"# rotation\nread:{READ_KEY}\n", encoding="utf-8")
    with TestClient(create_app(Settings(data_dir=data_dir, api_keys_file=path))) as client:
        assert client.get("/clusters", headers=_bearer(READ_KEY)).status_code == 200
        path.write_text(f"admin:{ADMIN_KEY}\n", encoding="utf-8")
        os.utime(path, ns=(time.time_ns(), time.time_ns() + 1_000_000_000))
        assert client.get("/clusters", headers=_bearer(READ_KEY)).status_code == 401
        assert client.get("/clusters", headers=_bearer(ADMIN_KEY)).status_code == 200
        # A broken rotation keeps the last good keys instead of opening or closing the door.
        path.write_text("admin:short\n", encoding="utf-8")
        os.utime(path, ns=(time.time_ns(), time.time_ns() + 2_000_000_000))
        assert client.get("/clusters", headers=_bearer(ADMIN_KEY)).status_code == 200


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"api_keys": "read:short"}, "at least 16"),
        ({"api_keys": f"root:{READ_KEY}"}, "SCOPE one of"),
        ({"api_keys": READ_KEY}, "SCOPE:KEY"),
        ({"host": "0.0.0.0"}, "refusing to serve 0.0.0.0 without API keys"),
        ({"auth": "on"}, "JOBDEDUP_AUTH=on needs"),
        ({"api_keys_file": Path("/nonexistent/keys")}, "does not exist"),
    ],
)
def test_unusable_configurations_refuse_to_start(
    data_dir: Path, changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(AuthConfigError, match=message) as caught:
        create_app(Settings(data_dir=data_dir, **changes))
    assert READ_KEY not in str(caught.value)
    assert not data_dir.exists()  # refused before the index was opened


def test_auth_off_serves_a_public_bind_openly(data_dir: Path) -> None:
    app = create_app(Settings(data_dir=data_dir, host="0.0.0.0", auth="off", api_keys=KEYS))
    with TestClient(app) as client:
        assert client.get("/clusters").status_code == 200


@pytest.mark.sqlite_only
def test_serve_refuses_a_public_bind_and_never_logs_keys(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "index")
    command = [*CLI, "serve"]
    refused = subprocess.run(
        [*command, "--host", "0.0.0.0"], env=env, capture_output=True, text=True, timeout=60
    )
    assert refused.returncode == 1
    assert "without API keys" in refused.stderr

    env.update(JOBDEDUP_API_KEYS=KEYS, JOBDEDUP_LOG_LEVEL="DEBUG")
    server, base = start_serve(env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert httpx.get(f"{base}/clusters", headers=_bearer(WRITE_KEY)).status_code == 200
        wrong = "wrong-key-0123456789abcdef"
        assert httpx.get(f"{base}/clusters", headers={"X-API-Key": wrong}).status_code == 401
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=30)
    assert "/clusters" in output  # the access log was captured
    for secret in (READ_KEY, WRITE_KEY, ADMIN_KEY, "wrong-key-0123456789abcdef"):
        assert secret not in output
