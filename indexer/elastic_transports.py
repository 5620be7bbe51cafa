"""The two `Transport`s: one REST call through the `elasticsearch` or the `opensearch-py` client.

Each is a few lines on purpose: the client's node pool, timeouts, serialisation and (for
Elasticsearch) product check are used as they are; only errors are translated here, so that
nothing above this module ever sees a client exception. Neither client keeps dead-connection
state that outlives an outage: `elastic_transport` resurrects its only node when no node is
alive, and opensearch-py's single-host pool never marks its connection dead.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import elastic_transport
import elasticsearch
import opensearchpy

from indexer.elastic_client import EngineError
from indexer.store import StoreError, StoreUnavailable

CLIENT_RETRIES = 1  # one immediate retry of a dropped connection; 429s are retried above
_REQUEST_LOGGERS = ("elastic_transport.transport", "opensearch")  # one INFO line per request


def _quiet_request_logs() -> None:
    """Both clients log every request at INFO: thousands of lines per second of ingest. Raise
    their loggers to WARNING unless an entry point configured them (failures still show)."""
    for name in _REQUEST_LOGGERS:
        client_logger = logging.getLogger(name)
        if client_logger.level == logging.NOTSET:
            client_logger.setLevel(logging.WARNING)


def _headers(body: Any, ndjson: bool) -> dict[str, str]:
    headers = {"accept": "application/json"}
    if body is not None:
        headers["content-type"] = "application/x-ndjson" if ndjson else "application/json"
    return headers


class ElasticsearchTransport:
    """REST calls through the official `elasticsearch` client (8.x or 9.x; the client's
    major version must not be newer than the server's)."""

    engine = "elasticsearch"

    def __init__(self, client: elasticsearch.Elasticsearch) -> None:
        self._client = client

    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        ndjson: bool = False,
    ) -> Any:
        try:
            response = self._client.perform_request(
                method, path, params=params, headers=_headers(body, ndjson), body=body
            )
        except elasticsearch.UnsupportedProductError as exc:
            raise StoreError(
                f"elasticsearch: the server is not Elasticsearch ({exc.message}); for "
                "OpenSearch set JOBDEDUP_BACKEND=opensearch"
            ) from exc
        except elasticsearch.ApiError as exc:
            raise EngineError(exc.meta.status, exc.body) from exc
        except elastic_transport.TransportError as exc:
            raise StoreUnavailable(f"elasticsearch: {method} {path}: {exc}") from exc
        return response.body

    def close(self) -> None:
        self._client.close()


class OpenSearchTransport:
    """REST calls through `opensearch-py` (OpenSearch 2.x)."""

    engine = "opensearch"

    def __init__(self, client: opensearchpy.OpenSearch) -> None:
        self._client = client

    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        ndjson: bool = False,
    ) -> Any:
        try:
            return self._client.transport.perform_request(
                method, path, params=params, body=body, headers=_headers(body, ndjson)
            )
        except opensearchpy.ConnectionError as exc:  # includes timeouts
            raise StoreUnavailable(f"opensearch: {method} {path}: {exc}") from exc
        except opensearchpy.TransportError as exc:
            status = exc.status_code
            if not isinstance(status, int):
                raise StoreUnavailable(f"opensearch: {method} {path}: {exc}") from exc
            raise EngineError(status, exc.info) from exc

    def close(self) -> None:
        self._client.close()


def connect_elasticsearch(
    url: str, timeout: float, node_class: type[elastic_transport.BaseNode] | None = None
) -> ElasticsearchTransport:
    """A client for `url`; `node_class` swaps the HTTP node (tests use it to reach an
    OpenSearch node with this client). Nothing is sent until the first request."""
    _quiet_request_logs()
    options: dict[str, Any] = {}
    if node_class is not None:
        options["node_class"] = node_class
    client = elasticsearch.Elasticsearch(
        url,
        request_timeout=timeout,
        max_retries=CLIENT_RETRIES,
        retry_on_timeout=False,
        retry_on_status=(),
        **options,
    )
    return ElasticsearchTransport(client)


def connect_opensearch(url: str, timeout: float) -> OpenSearchTransport:
    """A client for `url`; nothing is sent until the first request."""
    _quiet_request_logs()
    client = opensearchpy.OpenSearch(
        hosts=[url],
        timeout=timeout,
        max_retries=CLIENT_RETRIES,
        retry_on_timeout=False,
        retry_on_status=(),
    )
    return OpenSearchTransport(client)
