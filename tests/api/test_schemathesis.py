"""Schemathesis over the OpenAPI document: every operation, generated inputs, no 5xx.

Runs against the real service (uvicorn on a loopback port, the embedded index in a temporary
directory, no API keys on the loopback default) with 200 examples per operation generated
from the schema. Checked: no server error, documented status codes, responses that match
their schema. A failure names the operation and the generated request (as curl)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from service.api import create_app
from service.settings import Settings
from tests.api.support import serve

EXAMPLES = 200


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[schemathesis.BaseSchema]:
    data_dir: Path = tmp_path_factory.mktemp("schemathesis") / "index"
    with serve(create_app(Settings(data_dir=data_dir))) as base_url:
        yield schemathesis.openapi.from_url(f"{base_url}/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.mark.sqlite_only
@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_no_operation_answers_a_server_error(case: schemathesis.Case[Any]) -> None:
    case.call_and_validate(
        checks=[not_a_server_error, status_code_conformance, response_schema_conformance]
    )
