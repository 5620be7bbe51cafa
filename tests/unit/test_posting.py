"""The core posting type against the HTTP schema it is taken from (indexer.posting)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from service.schemas import Posting

_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=12).filter(
    lambda s: s.strip() != "" and s.strip(".") != ""
)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)
_DATES = st.datetimes(min_value=datetime(1900, 1, 2), max_value=datetime(2199, 12, 30)).flatmap(
    lambda d: st.sampled_from(
        [None, UTC, timezone(timedelta(hours=2)), timezone(-timedelta(hours=5))]
    ).map(lambda tz: d if tz is None else d.replace(tzinfo=tz))
)


@given(
    optional=st.fixed_dictionaries(
        {},
        optional={
            "company": _TEXT,
            "location": _TEXT,
            "posted_at": _DATES
            | st.dates(datetime(1900, 1, 2).date(), datetime(2199, 12, 30).date()).map(str),
            "url": _TEXT,
            "source": _TEXT,
            "language": st.sampled_from(["en", "fr", "de-AT"]),
            "salary": _TEXT,
            "extra": st.dictionaries(_TEXT, _JSON, max_size=3),
        },
    )
)
def test_received_form_is_the_schemas_json_form(optional: dict[str, Any]) -> None:
    """The content hash and the stored document are taken from `received()`: it must be what
    the HTTP schema dumps, or every re-sent posting indexed before would come back `updated`."""
    posting = Posting.model_validate(
        {"id": "p-1", "title": "Nurse", "description": "Ward."} | optional
    )
    core = posting.core()
    assert core.received() == posting.model_dump(mode="json", exclude_none=True)
    assert list(core.received()) == list(posting.model_dump(mode="json", exclude_none=True))
