"""The core posting type: what the pipeline takes, whoever received it.

The HTTP schema (`service.schemas.Posting`) and the CLI's JSON lines validate what a client
sent and hand over a `JobPosting` (`Posting.core()`); the pipeline, the preparation processes
and the benchmarks take this plain, picklable value and never see pydantic. Validation
(lengths, blank fields, the date range, addressable ids) stays at the edge, where a failure
is a 422 or a reported line.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from typing import Any


@dataclass(frozen=True)
class JobPosting:
    """A validated job posting. `posted_at` is in UTC (None: the receipt time is used);
    `extra` holds the client's other fields as JSON values, kept as they came."""

    id: str
    title: str
    description: str
    company: str | None = None
    location: str | None = None
    posted_at: datetime | None = None
    url: str | None = None
    source: str | None = None
    language: str | None = None
    salary: str | None = None
    extra: dict[str, Any] | None = None

    def received(self) -> dict[str, Any]:
        """What the client sent, as JSON values, in field order and without the fields it
        left out: the basis of the content hash (a retry is `unchanged`) and of the stored
        document. Dates are written as the API writes them (`2026-01-05T09:30:00Z`); a test
        holds this equal to the HTTP schema's own JSON form."""
        received: dict[str, Any] = {}
        for field in fields(self):
            value = getattr(self, field.name)
            if value is None:
                continue
            received[field.name] = _json_date(value) if isinstance(value, datetime) else value
        return received


def _json_date(value: datetime) -> str:
    """ISO 8601 with `Z` for UTC (an aware datetime in another zone keeps its offset)."""
    text = value.isoformat()
    return text[:-6] + "Z" if value.utcoffset() == timedelta(0) and value.tzinfo else text
