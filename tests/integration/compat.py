"""TEST-ONLY: lets the official `elasticsearch` client talk to the local OpenSearch test node.

The client refuses a server that is not Elasticsearch in two ways; this node class (passed as
`node_class=`) undoes both, as ../shared/tools/opensearch-local/README.md describes:
1. it sends plain `application/json` / `application/x-ndjson` instead of the vendor types
   `application/vnd.elasticsearch+json; compatible-with=N`, which OpenSearch answers with 406;
2. it marks every response with `x-elastic-product: Elasticsearch` for the product check.
Production never uses it: there the client talks to a real Elasticsearch.
"""

from __future__ import annotations

import dataclasses
import re

from elastic_transport import HttpHeaders, Urllib3HttpNode
from elastic_transport._models import DEFAULT, DefaultType
from elastic_transport._node import NodeApiResponse

_VENDOR = re.compile(r"application/vnd\.elasticsearch\+([a-z-]+);\s*compatible-with=\d+")


class OpenSearchCompatNode(Urllib3HttpNode):
    """`Urllib3HttpNode` with the two rewrites above."""

    def perform_request(
        self,
        method: str,
        target: str,
        body: bytes | None = None,
        headers: HttpHeaders | None = None,
        request_timeout: DefaultType | float | None = DEFAULT,
    ) -> NodeApiResponse:
        plain = HttpHeaders()
        for name, value in (headers or {}).items():
            plain[name] = _VENDOR.sub(r"application/\1", value)
        response = super().perform_request(method, target, body, plain, request_timeout)
        answered = HttpHeaders(response.meta.headers)
        answered["x-elastic-product"] = "Elasticsearch"
        meta = dataclasses.replace(response.meta, headers=answered)
        return NodeApiResponse(meta, response.body)
