"""The thin layer between the search-engine store and an engine's official Python client.

`Transport` is the only part that differs between engines: one REST call through the
official client (`elasticsearch` for Elasticsearch 8/9, `opensearch-py` for OpenSearch 2.x),
with the client's own errors translated at this boundary. `EngineClient` builds every
operation the store needs on top of it, once, so both engines get identical requests; it
retries 429s (the engine shedding load) with exponential backoff, for whole requests and
for the items of a bulk, and raises only `StoreUnavailable` or `StoreError`
(`indexer.stores.elastic.errors` decides which).

Time: every request is bounded by the transport's `timeout` (JOBDEDUP_SEARCH_TIMEOUT), and
by the deadline of the enclosing `until()` block when there is one (the writer lock and
claim waits): retries (a 429, a dropped connection) happen inside that budget, never on top
of it, so a caller gets its answer or a `StoreUnavailable` within the timeout.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Protocol
from urllib.parse import quote

import orjson

from indexer.store import StoreError, StoreUnavailable
from indexer.stores.elastic.errors import is_blocked, is_transient

logger = logging.getLogger(__name__)

RETRIES_ON_429 = 6  # waits of 0.05, 0.1, ... 1.6 s: about 3 s in all before giving up
BACKOFF_S = 0.05
BULK_BYTES = 8 * 1024 * 1024  # per bulk request: far below http.max_content_length (100 MB)
FAST_FAILURE_S = 1.0  # a connection failure quicker than this (a stale keep-alive) is retried
ENGINE_SHARE = 0.8  # engine-side wait for an unavailable shard: this share of the budget

Operation = tuple[dict[str, Any], dict[str, Any] | None]
"""One bulk operation: the action line ({"index": {"_index", "_id"}}) and its source, if any."""


class EngineError(Exception):
    """An HTTP error answered by the engine (status and parsed body), before translation."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"HTTP {status}: {str(body)[:500]}")
        self.status = status
        self.body = body

    @property
    def error(self) -> Any:
        """The answer's `error` object (or string), None if the body has none."""
        return self.body.get("error") if isinstance(self.body, dict) else None

    @property
    def reason(self) -> str:
        """The engine's error type (e.g. "resource_already_exists_exception"), or ""."""
        error = self.error
        return str(error.get("type", "")) if isinstance(error, dict) else ""


class Transport(Protocol):
    """One REST call through an engine's client; raises `EngineError` for HTTP errors and
    `StoreUnavailable` when the engine cannot be reached or does not answer in time.
    `timeout` (seconds) is the most any call may take; `request(timeout=...)` asks less."""

    engine: str
    timeout: float

    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        ndjson: bool = False,
        timeout: float | None = None,
    ) -> Any: ...

    def close(self) -> None: ...


def part(value: str) -> str:
    """One percent-encoded path segment (ids may hold '/', '?', spaces or any character)."""
    return quote(value, safe="")


def ndjson_lines(lines: Sequence[Any]) -> list[bytes]:
    """Each bulk line serialised once (so request sizes are known before sending), by orjson:
    the same compact UTF-8 JSON as `json.dumps(..., ensure_ascii=False)`, several times
    faster on the posting documents and candidate queries a group sends."""
    return [orjson.dumps(line) for line in lines]


class EngineClient:
    """Every engine operation the store uses, over one `Transport`."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.engine = transport.engine
        self.timeout = transport.timeout
        self._local = threading.local()  # .deadline: monotonic time of the until() block

    # -- time -----------------------------------------------------------------------------

    @contextmanager
    def until(self, deadline: float) -> Iterator[None]:
        """Within the block, this thread's requests end by `deadline` (time.monotonic());
        nested blocks only shorten it."""
        outer: float | None = getattr(self._local, "deadline", None)
        self._local.deadline = deadline if outer is None else min(outer, deadline)
        try:
            yield
        finally:
            self._local.deadline = outer

    def deadline(self) -> float:
        """When the current request must be answered by: the enclosing `until()` deadline,
        or one timeout from now."""
        own = time.monotonic() + self.timeout
        outer: float | None = getattr(self._local, "deadline", None)
        return own if outer is None else min(outer, own)

    def _budget(self, deadline: float, what: str) -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise StoreUnavailable(
                f"{self.engine}: {what}: no time left (timeout {self.timeout} s)"
            )
        return left

    def send(
        self,
        method: str,
        path: str,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        *,
        ndjson: bool = False,
        what: str,
        deadline: float | None = None,
    ) -> Any:
        """One request within the deadline (default: `deadline()`); a connection failure that
        came back at once (a keep-alive connection the engine closed) is retried once.
        Raises `EngineError` for HTTP errors, `StoreUnavailable` when out of time."""
        deadline = self.deadline() if deadline is None else deadline
        for attempt in range(2):
            started = time.monotonic()
            timeout = self._budget(deadline, what)
            try:
                return self.transport.request(method, path, params, body, ndjson, timeout)
            except StoreUnavailable:
                if attempt or time.monotonic() - started > FAST_FAILURE_S:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def call(
        self,
        method: str,
        path: str,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        *,
        ndjson: bool = False,
        what: str,
    ) -> Any:
        """One request; a 429 is retried with exponential backoff and jitter, as long as
        the pause still ends before the deadline."""
        deadline = self.deadline()
        for attempt in range(RETRIES_ON_429 + 1):
            try:
                return self.send(
                    method, path, params, body, ndjson=ndjson, what=what, deadline=deadline
                )
            except EngineError as exc:
                pause = BACKOFF_S * 2**attempt * (1 + random.random() / 2)
                if (
                    exc.status == 429
                    and attempt < RETRIES_ON_429
                    and not is_blocked(exc.error)
                    and time.monotonic() + pause < deadline
                ):
                    time.sleep(pause)
                    continue
                raise self.translate(exc, what) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    def translate(self, exc: EngineError, what: str) -> StoreError:
        """Transient states (overload, gateway, shards recovering, blocks, no master; see
        `indexer.stores.elastic.errors`) are `StoreUnavailable`; the rest is a bug or a
        misconfiguration and becomes `StoreError`."""
        return self._error(exc.status, exc.error, f"{what} failed: {exc}")

    def _error(self, status: int, error: Any, message: str) -> StoreError:
        text = f"{self.engine}: {message}"
        return StoreUnavailable(text) if is_transient(status, error) else StoreError(text)

    def write_params(self, **params: str) -> dict[str, str]:
        """Parameters of a write, with the engine-side wait for an unavailable shard kept
        inside the client's budget: the engine answers 503 before the client gives up, so
        no abandoned write lands later, after a retry or another writer."""
        wait_ms = max(int(self.timeout * ENGINE_SHARE * 1000), 1)
        return {**params, "timeout": f"{wait_ms}ms"}

    # -- single requests ------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        result: dict[str, Any] = self.call("GET", "/", what="ping")
        return result

    def exists(self, name: str) -> bool:
        """True if an alias with this name exists (asked so that absence is an empty answer,
        not an error response that clients log as a failure)."""
        found = self.call(
            "GET", f"/_cat/aliases/{part(name)}", {"format": "json"}, what=f"check alias {name}"
        )
        return any(row.get("alias") == name for row in found)

    def put_template(self, name: str, body: dict[str, Any]) -> None:
        self.call("PUT", f"/_index_template/{part(name)}", body=body, what=f"put template {name}")

    def create_index(self, name: str, body: dict[str, Any]) -> None:
        """Create an index; one already there (another instance won the race) is fine."""
        try:
            self.send("PUT", f"/{part(name)}", None, body, what=f"create index {name}")
        except EngineError as exc:
            if exc.reason != "resource_already_exists_exception":
                raise self.translate(exc, f"create index {name}") from exc

    def get(self, index: str, doc_id: str) -> dict[str, Any] | None:
        """A document by id in real time (no refresh needed): the hit with `_source`,
        `_seq_no` and `_primary_term`, or None if there is no such document."""
        docs = self._mget_docs(index, {"ids": [doc_id]}, f"get {index}/{doc_id}")
        return docs[0] if docs[0].get("found") else None

    def mget(
        self, refs: Sequence[tuple[str, str]], may_be_gone: Callable[[str], bool] | None = None
    ) -> list[Any]:
        """Sources of the documents found among (index, id) pairs, in real time, in one
        request whatever the indices, in request order. A ref to a missing index for which
        `may_be_gone(index)` holds counts as not found (any other error raises)."""
        if not refs:
            return []
        docs = [{"_index": index, "_id": key} for index, key in refs]
        found = self._mget_docs("", {"docs": docs}, "mget", may_be_gone)
        return [doc["_source"] for doc in found if doc.get("found")]

    def get_many(self, index: str, doc_ids: Sequence[str]) -> list[dict[str, Any] | None]:
        """Documents by id in real time, in request order: each hit (with `_source`,
        `_seq_no`, `_primary_term`) or None when absent. One request."""
        if not doc_ids:
            return []
        docs = self._mget_docs(index, {"ids": list(doc_ids)}, f"get {index} by ids")
        return [doc if doc.get("found") else None for doc in docs]

    def _mget_docs(
        self,
        index: str,
        body: dict[str, Any],
        what: str,
        may_be_gone: Callable[[str], bool] | None = None,
    ) -> list[dict[str, Any]]:
        # A missing document is `found: false` in a 200 answer (a single GET would be a 404
        # that clients log as a failed request); a missing index is an error per document.
        path = f"/{part(index)}/_mget" if index else "/_mget"
        result = self.call("POST", path, body=body, what=what)
        docs: list[dict[str, Any]] = result["docs"]
        for doc in docs:
            if "error" in doc and may_be_gone is not None and _index_gone(doc, may_be_gone):
                doc.pop("error")
                doc["found"] = False
            if "error" in doc:
                # A shard recovering answers 200 with an error per document: no status.
                raise self._error(500, doc["error"], f"{what} failed: {doc['error']}")
        return docs

    def search(self, index: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The hits of a search (each with `_source` and `sort`). A shard that fails makes
        the search fail (a 503 for an unavailable shard) instead of answering with fewer
        hits: missing candidates would silently miss duplicates."""
        params = {"allow_partial_search_results": "false"}
        result = self.call(
            "POST", f"/{part(index)}/_search", params, body=body, what=f"search {index}"
        )
        hits: list[dict[str, Any]] = result["hits"]["hits"]
        return hits

    def msearch(
        self,
        index: str,
        bodies: Sequence[dict[str, Any]],
        targets: Sequence[str | None] | None = None,
    ) -> list[list[dict[str, Any]]]:
        """The hits of several searches of one index, in request order, in one round trip;
        `targets` may name other indices per search (comma-separated; None: `index`).
        As with `search`, nothing partial is returned: a search that failed, or whose shards
        did not all answer, fails the whole call (transient causes as `StoreUnavailable`)."""
        return [r["hits"]["hits"] for r in self.msearch_responses(index, bodies, targets)]

    def msearch_responses(
        self,
        index: str,
        bodies: Sequence[dict[str, Any]],
        targets: Sequence[str | None] | None = None,
    ) -> list[dict[str, Any]]:
        """As `msearch`, but each search's whole answer (for its `aggregations`)."""
        if not bodies:
            return []
        # The URL parameter is refused by _msearch (OpenSearch 2.4); each search's header
        # line takes it. Shard failures are checked as well, in case an engine ignores it.
        header: dict[str, Any] = {"allow_partial_search_results": False}
        headers = [
            header if target is None else {**header, "index": target.split(",")}
            for target in (targets or [None] * len(bodies))
        ]
        lines = ndjson_lines(
            [line for head, body in zip(headers, bodies, strict=True) for line in (head, body)]
        )
        payload = b"".join(line + b"\n" for line in lines)
        what = f"msearch {index} ({len(bodies)} searches)"
        result = self.call(
            "POST", f"/{part(index)}/_msearch", None, payload, ndjson=True, what=what
        )
        responses: list[dict[str, Any]] = result["responses"]
        for response in responses:
            if "error" in response:
                status = int(response.get("status", 500))
                raise self._error(status, response["error"], f"{what} failed: {response['error']}")
            shards = response.get("_shards", {})
            if shards.get("failed"):
                failures = {"failed_shards": shards.get("failures", [])}
                raise self._error(503, failures, f"{what}: {shards['failed']} shards failed")
        return responses

    def count(self, index: str, body: dict[str, Any] | None = None) -> int:
        result = self.call("POST", f"/{part(index)}/_count", body=body, what=f"count {index}")
        return int(result["count"])

    def refresh(self, *indices: str) -> None:
        path = f"/{','.join(part(i) for i in indices)}/_refresh"
        self.call("POST", path, what="refresh")

    def store_bytes(self, *indices: str) -> int:
        """On-disk size of the indices (all copies)."""
        path = f"/{','.join(part(i) for i in indices)}/_stats/store"
        result = self.call("GET", path, what="index stats")
        return int(result["_all"]["total"]["store"]["size_in_bytes"])

    # -- versioned single-document writes (tickets and claims) ------------------------------

    def create(self, index: str, doc_id: str, source: dict[str, Any]) -> tuple[int, int] | None:
        """Create a document only if absent: (seq_no, primary_term), or None if it exists."""
        return self._versioned("PUT", f"/{part(index)}/_create/{part(doc_id)}", None, source)

    def put_if(
        self, index: str, doc_id: str, source: dict[str, Any], version: tuple[int, int]
    ) -> tuple[int, int] | None:
        """Replace a document only if it is still at `version` (optimistic concurrency)."""
        params = {"if_seq_no": str(version[0]), "if_primary_term": str(version[1])}
        return self._versioned("PUT", f"/{part(index)}/_doc/{part(doc_id)}", params, source)

    def delete_if(self, index: str, doc_id: str, version: tuple[int, int]) -> bool:
        """Delete a document only if it is still at `version`; False if it changed or left."""
        params = self.write_params(if_seq_no=str(version[0]), if_primary_term=str(version[1]))
        what = f"delete {index}/{doc_id}"
        try:
            self.send("DELETE", f"/{part(index)}/_doc/{part(doc_id)}", params, what=what)
        except EngineError as exc:
            if exc.status in (404, 409):
                return False
            raise self.translate(exc, f"delete {index}/{doc_id}") from exc
        return True

    def _versioned(
        self, method: str, path: str, params: dict[str, str] | None, source: dict[str, Any]
    ) -> tuple[int, int] | None:
        what = f"{method} {path}"
        try:
            result = self.send(method, path, self.write_params(**(params or {})), source, what=what)
        except EngineError as exc:
            if exc.status == 409:
                return None
            raise self.translate(exc, what) from exc
        return int(result["_seq_no"]), int(result["_primary_term"])

    # -- bulk -----------------------------------------------------------------------------

    def bulk(self, operations: Sequence[Operation], refresh: str) -> None:
        """Send (action, source) operations in requests of at most `BULK_BYTES`, retrying
        items the engine refused with 429; every request asks for `refresh` so the writes
        are searchable when this returns. A delete or partial update of a missing document
        is not an error (the state it asks for already holds)."""
        if not operations:
            return
        encoded = [
            ndjson_lines([action] if source is None else [action, source])
            for action, source in operations
        ]
        for chunk in _chunks(encoded, BULK_BYTES):
            self._bulk_chunk(chunk, refresh)

    def bulk_outcomes(
        self, operations: Sequence[Operation], refresh: str = "false"
    ) -> list[tuple[int, tuple[int, int] | None]]:
        """One bulk request whose items may fail one by one (conditional writes, creates):
        per operation, its status and the version it wrote (None when it wrote nothing).
        The caller decides what a 409 or 404 means; a request-level failure raises."""
        if not operations:
            return []
        body = b"".join(
            line + b"\n"
            for action, source in operations
            for line in ndjson_lines([action] if source is None else [action, source])
        )
        params = self.write_params(refresh=refresh)
        result = self.call("POST", "/_bulk", params, body, ndjson=True, what="conditional bulk")
        outcomes: list[tuple[int, tuple[int, int] | None]] = []
        for item in result["items"]:
            outcome = next(iter(item.values()))
            status = int(outcome.get("status", 500))
            version = None
            if status < 300 and "_seq_no" in outcome:
                version = int(outcome["_seq_no"]), int(outcome["_primary_term"])
            if status >= 300 and status not in (404, 409):
                raise self._error(status, outcome.get("error"), f"conditional bulk: {outcome}")
            outcomes.append((status, version))
        return outcomes

    def _bulk_chunk(self, operations: list[list[bytes]], refresh: str) -> None:
        deadline = self.deadline()
        params = self.write_params(refresh=refresh)
        for attempt in range(RETRIES_ON_429 + 1):
            body = b"".join(line + b"\n" for op in operations for line in op)
            with self.until(deadline):
                result = self.call("POST", "/_bulk", params, body, ndjson=True, what="bulk write")
            if not result.get("errors"):
                return
            retry: list[list[bytes]] = []
            for op, item in zip(operations, result["items"], strict=True):
                action, outcome = next(iter(item.items()))
                status = int(outcome.get("status", 500))
                if status < 300 or (status == 404 and action in ("delete", "update")):
                    continue
                error = outcome.get("error")
                if status == 429 and not is_blocked(error):
                    retry.append(op)
                    continue
                what = f"bulk {action} {outcome.get('_id')}"
                raise self._error(status, error, f"{what} failed: {outcome}")
            if not retry:
                return
            operations = retry
            logger.warning("bulk: %d operations refused with 429, retrying", len(retry))
            pause = BACKOFF_S * 2**attempt * (1 + random.random() / 2)
            if time.monotonic() + pause >= deadline:
                break
            time.sleep(pause)
        raise StoreUnavailable(f"{self.engine}: bulk write still refused (429) after retries")


def _chunks(operations: list[list[bytes]], limit: int) -> list[list[list[bytes]]]:
    chunks: list[list[list[bytes]]] = [[]]
    size = 0
    for op in operations:
        op_size = sum(len(line) + 1 for line in op)
        if chunks[-1] and size + op_size > limit:
            chunks.append([])
            size = 0
        chunks[-1].append(op)
        size += op_size
    return [chunk for chunk in chunks if chunk]


def _index_gone(doc: dict[str, Any], may_be_gone: Callable[[str], bool]) -> bool:
    error = doc.get("error")
    reason = error.get("type") if isinstance(error, dict) else None
    return reason == "index_not_found_exception" and may_be_gone(str(doc.get("_index", "")))
