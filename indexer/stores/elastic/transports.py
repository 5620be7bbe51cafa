"""The two `Transport`s: one REST call through the `elasticsearch` or the `opensearch-py` client.

Each is a few lines on purpose: the client's node pool, serialisation and (for
Elasticsearch) product check are used as they are; only errors are translated here, so that
nothing above this module ever sees a client exception. Neither client keeps dead-connection
state that outlives an outage: `elastic_transport` resurrects its only node when no node is
alive, and opensearch-py's single-host pool never marks its connection dead.

Neither client retries anything (`max_retries=0`): a retry inside the client would run
with a fresh timeout each time, multiplying the wait a caller sees; `EngineClient` retries
within one budget instead. Each request carries its own timeout (what is left of the
caller's budget). The connection pool holds `POOL_SIZE` connections, more than the
threads that can call at once (FastAPI's thread pool: 40), so no connection is opened and
thrown away per request ("Connection pool is full, discarding connection").
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import elastic_transport
import elasticsearch
import elasticsearch.serializer
import opensearchpy
import orjson

from indexer.store import StoreError, StoreUnavailable
from indexer.stores.elastic.client import EngineError

CLIENT_RETRIES = 0  # retried by EngineClient, within the caller's budget
POOL_SIZE = 64  # connections kept per engine node: above anyio's 40 worker threads
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


class OrjsonOpenSearchSerializer(opensearchpy.JSONSerializer):
    """opensearch-py's JSON (de)serialiser on orjson, as the `elasticsearch` client ships
    one (`elasticsearch.serializer.OrjsonSerializer`): the standard library's json took
    about an eighth of the engine path's CPU (posting documents, candidate queries, hits)."""

    def loads(self, s: str) -> Any:
        try:
            return orjson.loads(s)
        except orjson.JSONDecodeError as exc:
            raise opensearchpy.SerializationError(s, exc) from exc

    def dumps(self, data: Any) -> Any:
        if isinstance(data, str | bytes):  # already serialised (bulk and msearch bodies)
            return data
        try:
            return orjson.dumps(data, default=self.default, option=orjson.OPT_SERIALIZE_NUMPY)
        except (TypeError, orjson.JSONEncodeError) as exc:
            raise opensearchpy.SerializationError(data, exc) from exc


class ElasticsearchTransport:
    """REST calls through the official `elasticsearch` client (8.x or 9.x; the client's
    major version must not be newer than the server's)."""

    engine = "elasticsearch"

    def __init__(self, client: elasticsearch.Elasticsearch, timeout: float) -> None:
        self._client = client
        self.timeout = timeout

    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        ndjson: bool = False,
        timeout: float | None = None,
    ) -> Any:
        client = self._client
        if timeout is not None and timeout < self.timeout:
            client = client.options(request_timeout=timeout)
        try:
            response = client.perform_request(
                method, path, params=params, headers=_headers(body, ndjson), body=body
            )
        except elasticsearch.UnsupportedProductError as exc:
            raise StoreError(
                f"elasticsearch: the server is not Elasticsearch ({exc.message}); for "
                "OpenSearch set JOBDEDUP_BACKEND=opensearch"
            ) from exc
        except elasticsearch.ApiError as exc:
            raise EngineError(exc.meta.status, exc.body) from exc
        except elastic_transport.SerializationError as exc:  # a bug: retrying will not help
            raise StoreError(f"elasticsearch: {method} {path}: {exc}") from exc
        except elastic_transport.TransportError as exc:  # connection failures and timeouts
            raise StoreUnavailable(f"elasticsearch: {method} {path}: {exc}") from exc
        return response.body

    def close(self) -> None:
        self._client.close()


class OpenSearchTransport:
    """REST calls through `opensearch-py` (OpenSearch 2.x)."""

    engine = "opensearch"

    def __init__(self, client: opensearchpy.OpenSearch, timeout: float) -> None:
        self._client = client
        self.timeout = timeout

    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        ndjson: bool = False,
        timeout: float | None = None,
    ) -> Any:
        # Always given: without it the client would take a `timeout` query parameter (the
        # engine-side wait of a write) for its own HTTP timeout.
        limit = self.timeout if timeout is None else min(timeout, self.timeout)
        try:
            return self._client.transport.perform_request(
                method,
                path,
                params=dict(params or {}),
                body=body,
                timeout=limit,
                headers=_headers(body, ndjson),
            )
        except opensearchpy.ConnectionError as exc:  # includes timeouts
            raise StoreUnavailable(f"opensearch: {method} {path}: {exc}") from exc
        except opensearchpy.TransportError as exc:
            status = exc.status_code
            if not isinstance(status, int):
                raise StoreUnavailable(f"opensearch: {method} {path}: {exc}") from exc
            raise EngineError(status, exc.info) from exc
        except (opensearchpy.SerializationError, opensearchpy.ImproperlyConfigured) as exc:
            raise StoreError(f"opensearch: {method} {path}: {exc}") from exc

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
        connections_per_node=POOL_SIZE,
        serializer=elasticsearch.serializer.OrjsonSerializer(),
        **options,
    )
    return ElasticsearchTransport(client, timeout)


def connect_opensearch(url: str, timeout: float) -> OpenSearchTransport:
    """A client for `url`; nothing is sent until the first request."""
    _quiet_request_logs()
    client = opensearchpy.OpenSearch(
        hosts=[url],
        timeout=timeout,
        max_retries=CLIENT_RETRIES,
        retry_on_timeout=False,
        retry_on_status=(),
        pool_maxsize=POOL_SIZE,
        serializer=OrjsonOpenSearchSerializer(),
    )
    return OpenSearchTransport(client, timeout)
