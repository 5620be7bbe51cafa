"""Operations endpoints: /health, /metrics (Prometheus text) and the OpenAPI description."""

from __future__ import annotations

from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from classifier.model import load_model
from tests.api.postings import DATA_ENGINEER, DATA_ENGINEER_REPOST, STAFF_NURSE, posting
from tests.api.support import dedup

STAGES = ("clean", "sketch", "candidates", "score", "persist", "writer_wait")
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def _scrape(client: TestClient) -> Samples:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    samples: Samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def _value(samples: Samples, name: str, **labels: str) -> float:
    key = (name, frozenset(labels.items()))
    assert key in samples, f"no sample {name}{labels}"
    return samples[key]


def _label_values(samples: Samples, name: str, label: str) -> set[str]:
    return {dict(labels)[label] for (n, labels) in samples if n == name and label in dict(labels)}


def test_health(client: TestClient) -> None:
    response = client.get("/health")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_metrics_count_requests_decisions_stages_and_index_size(client: TestClient) -> None:
    dedup(client, DATA_ENGINEER)  # new
    dedup(client, DATA_ENGINEER_REPOST)  # duplicate (one candidate)
    dedup(client, DATA_ENGINEER_REPOST)  # unchanged
    dedup(client, STAFF_NURSE, dry_run="true")  # new, dry run: nothing persisted
    assert client.post("/dedup", json=posting(STAFF_NURSE, title=None)).status_code == 422
    assert client.get("/postings/nope").status_code == 404
    assert client.get("/no/such/route").status_code == 404

    samples = _scrape(client)

    requests = "jobdedup_http_requests_total"
    assert _value(samples, requests, route="/dedup", method="POST", status="200") == 4
    assert _value(samples, requests, route="/dedup", method="POST", status="422") == 1
    assert _value(samples, requests, route="unmatched", method="GET", status="404") == 1
    routes = _label_values(samples, requests, "route")
    assert not any("nope" in r or "no/such" in r for r in routes)  # templates, not raw paths
    assert any(r.startswith("/postings/{posting_id") for r in routes)
    assert _value(samples, "jobdedup_http_request_seconds_count", route="/dedup") == 5

    decisions = "jobdedup_decisions_total"
    assert _value(samples, decisions, status="new", dry_run="false") == 1
    assert _value(samples, decisions, status="duplicate", dry_run="false") == 1
    assert _value(samples, decisions, status="unchanged", dry_run="false") == 1
    assert _value(samples, decisions, status="new", dry_run="true") == 1

    stages = _label_values(samples, "jobdedup_stage_seconds_bucket", "stage")
    assert stages - {"recheck"} == set(STAGES)
    if "recheck" in stages:  # a search engine: other instances may write at the same time
        assert _value(samples, "jobdedup_stage_seconds_count", stage="recheck") == 2
    for stage in STAGES:
        assert _value(samples, "jobdedup_stage_seconds_bucket", stage=stage, le="+Inf") > 0
    count = "jobdedup_stage_seconds_count"
    assert _value(samples, count, stage="clean") == 4  # every decision is prepared
    assert _value(samples, count, stage="candidates") == 3  # not for the unchanged re-post
    assert _value(samples, count, stage="persist") == 2  # not unchanged, not dry run
    assert _value(samples, count, stage="writer_wait") == 4  # every decision waits its turn

    assert _value(samples, "jobdedup_candidates_per_posting_count") == 3
    assert _value(samples, "jobdedup_candidates_per_posting_sum") == 1
    assert _value(samples, "jobdedup_candidates_per_posting_bucket", le="0.0") == 2

    assert _value(samples, "jobdedup_index_postings") == 2
    assert _value(samples, "jobdedup_index_clusters") == 1
    assert _value(samples, "jobdedup_index_bytes") > 0
    version = load_model().version
    assert _value(samples, "jobdedup_scorer_info", scorer="lightgbm", version=version) == 1


def test_metrics_of_a_batch_are_counted_per_posting(client: TestClient) -> None:
    response = client.post("/dedup/batch", json=[DATA_ENGINEER, DATA_ENGINEER_REPOST])
    assert response.status_code == 200

    samples = _scrape(client)

    route = {"route": "/dedup/batch", "method": "POST", "status": "200"}
    assert _value(samples, "jobdedup_http_requests_total", **route) == 1
    assert _value(samples, "jobdedup_decisions_total", status="new", dry_run="false") == 1
    assert _value(samples, "jobdedup_decisions_total", status="duplicate", dry_run="false") == 1
    assert _value(samples, "jobdedup_index_postings") == 2


def test_openapi_lists_every_route(client: TestClient) -> None:
    response = client.get("/openapi.json")

    assert response.status_code == 200
    spec = response.json()
    paths = {path: set(ops) for path, ops in spec["paths"].items()}
    assert paths == {
        "/dedup": {"post"},
        "/dedup/batch": {"post"},
        "/postings/{posting_id}": {"get", "delete"},
        "/clusters/{cluster_id}": {"get"},
        "/clusters": {"get"},
        "/pairs/score": {"post"},
        "/feedback": {"post"},
        "/health": {"get"},
        "/ready": {"get"},
        "/metrics": {"get"},
        "/stats": {"get"},
        "/review": {"get"},
        "/pairs/explain": {"get"},
    }
    batch_body = spec["paths"]["/dedup/batch"]["post"]["requestBody"]["content"]
    assert set(batch_body) == {"application/json", "application/x-ndjson"}
    assert batch_body["application/json"]["schema"]["maxItems"] == 1000
    responses = spec["paths"]["/dedup"]["post"]["responses"]
    assert {"200", "404", "413", "415", "422", "503"} <= set(responses)
    error_ref = responses["422"]["content"]["application/json"]["schema"]["$ref"]
    assert error_ref.endswith("/ErrorOut")
    assert {"Posting", "DedupResult", "ErrorOut"} <= set(spec["components"]["schemas"])


def test_docs_page_is_served(client: TestClient) -> None:
    response = client.get("/docs")

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "swagger-ui" in response.text
    assert "/openapi.json" in response.text
