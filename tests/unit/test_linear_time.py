"""Hostile text costs time linear in its length on the whole request path.

A 200 kB description of repeated `<!--` once took 159 s in `strip_html` (issue 13): a
quadratic pattern in one request stalls the whole service. Each case here times the work of
`/pairs/score` (clean, units, sketch, field extraction, scoring and explanation of two such
postings) at n and 4n characters and fails when the time grows like n² (16x) rather than n
(4x). Generous bounds (10x, min of repeats, a floor for tiny times) keep it stable on a loaded
2-core machine; a quadratic path fails by far at these sizes.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from classifier.model import DEFAULT_MODEL_DIR, LightGBMScorer, load_model
from classifier.scoring import candidate_for
from indexer.posting import JobPosting
from indexer.prepare import to_stored
from indexer.text import strip_html
from service.preparation import prepare_posting
from service.settings import Settings

SMALL = 20_000
GROWTH = 4
MAX_RATIO = 10.0  # linear work grows 4x; quadratic 16x
FLOOR_S = 0.02  # below this, timer and allocator noise dominate the ratio

PATTERNS = {
    "unclosed comments": "<!--",
    "unclosed style": "<style>",
    "unclosed script": "<script type='x'>",
    "unclosed block tags": "<p ",
    "unclosed links": '<a href="',
    "lone brackets": "<",
    "comment closers": "-->",
    "entity chains": "&amp;",
    "escaped tags": "&lt;div ",
    "nested tags": "<b><i><u>",
    "newlines": "a \n",
    "dots": "...",
    "emails": "a@b.",
    "digits": "1234 ",
    "urls": "http://x/",
    "labels": "Salaire : ",
    "brackets": "(",
    "capitals": "ABC ",
    "phones": "+33 6 ",
    "no spaces": "x",
}


@cache
def _scorer() -> LightGBMScorer:
    return load_model(DEFAULT_MODEL_DIR)


def _pair_seconds(description: str) -> float:
    """Time of /pairs/score's work on two postings with this description."""
    params = Settings().sketch_params()
    now = datetime(2026, 1, 1, tzinfo=UTC)
    a = JobPosting(id="a", title="Data Engineer", description=description, company="Acme")
    b = JobPosting(id="b", title="Data Engineer", description=description, location="Lyon")
    started = time.perf_counter()
    query, _ = prepare_posting(a, params, now)
    other, _ = prepare_posting(b, params, now)
    candidate = candidate_for(query, to_stored(other, other.id))
    _scorer().score(query, [candidate])
    _scorer().explain(query, candidate)
    return time.perf_counter() - started


def _growth(unit: str, measure: object = _pair_seconds, repeats: int = 3) -> tuple[float, float]:
    assert callable(measure)
    small = (unit * (SMALL // len(unit) + 1))[:SMALL]
    large = (unit * (GROWTH * SMALL // len(unit) + 1))[: GROWTH * SMALL]
    measure(small)  # warm caches and lazy loads out of the timing
    t_small = min(measure(small) for _ in range(repeats))
    t_large = min(measure(large) for _ in range(repeats))
    return t_small, t_large


def _assert_linear(name: str, t_small: float, t_large: float) -> None:
    ratio = t_large / max(t_small, FLOOR_S)
    assert ratio < MAX_RATIO, f"{name}: {t_small:.3f}s at {SMALL} chars, {t_large:.3f}s at 4x"


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_hostile_descriptions_cost_linear_time(name: str) -> None:
    _assert_linear(name, *_growth(PATTERNS[name]))


_FRAGMENTS = ["<", ">", "!--", "-->", "/", "p", "style", "script", " ", "a", '"', "=", "&", ";"]


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_FRAGMENTS), min_size=1, max_size=6))
def test_strip_html_is_linear_on_any_repeated_fragment(parts: list[str]) -> None:
    def measure(text: str) -> float:
        started = time.perf_counter()
        strip_html(text)
        return time.perf_counter() - started

    unit = "".join(parts)
    t_small, t_large = _growth(unit, measure, repeats=3)
    ratio = t_large / max(t_small, 0.002)
    assert ratio < MAX_RATIO, f"{unit!r}: {t_small:.4f}s then {t_large:.4f}s"


def test_unclosed_markup_keeps_the_former_output() -> None:
    # The linear rewrite must not change what real ads become (sketches are persisted).
    assert strip_html("a<!-- b --> c <!-- d") == "a  c <!-- d"
    assert strip_html("x<style>p{}</style>y<style>z") == "x yz"
    assert strip_html("<p>one<script>s()</script></p><style>a") == "\none \na"
