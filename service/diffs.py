"""Word-level differences between two texts, for showing two postings side by side.

Python's `difflib.SequenceMatcher` (stdlib) over word tokens. Each token keeps the whitespace
that follows it, so the segments' `a` parts joined give the first text exactly and the `b`
parts the second: a page renders them verbatim (escaped) and highlights what is not `equal`.
Tokens are compared without their trailing whitespace, so re-wrapped text (a newline where
the other has a space) is `equal` — with each side's own whitespace in `a` and `b`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

DiffOp = Literal["equal", "insert", "delete", "replace"]

MAX_DIFF_TOKENS = 4_000
"""Tokens of each text that are compared (~25,000 characters of an ad, far more than a
typical one): SequenceMatcher's time grows with the product of the lengths, and an ad of
200,000 characters would hold a worker thread for seconds. The rest of a longer text is
one trailing segment, not compared, and the diff says it was cut."""

_TOKEN = re.compile(r"\s+|\w+\s*|[^\w\s]\s*")
"""Leading whitespace, then words and single punctuation marks, each with the whitespace
after it: every character belongs to exactly one token."""


_OPS: dict[str, DiffOp] = {op: op for op in ("equal", "insert", "delete", "replace")}


@dataclass(frozen=True)
class DiffSegment:
    """A run of tokens: `equal` (both texts, possibly differing in whitespace), `delete`
    (only in a), `insert` (only in b) or `replace` (a's run stands where b's is)."""

    op: DiffOp
    a: str
    b: str


@dataclass(frozen=True)
class TextDiff:
    """The segments of a diff and whether the texts were longer than what was compared."""

    segments: list[DiffSegment]
    truncated: bool


def tokens(text: str) -> list[str]:
    """Word and punctuation tokens with their trailing whitespace; `"".join` gives `text`."""
    return _TOKEN.findall(text)


def diff_texts(a: str, b: str, max_tokens: int = MAX_DIFF_TOKENS) -> TextDiff:
    """The word-level diff of two texts (see the module docstring): consecutive segments of
    one op are merged, and the parts past `max_tokens` tokens form one last segment."""
    left, right = tokens(a), tokens(b)
    head_a, head_b = left[:max_tokens], right[:max_tokens]
    keys_a, keys_b = [t.rstrip() for t in head_a], [t.rstrip() for t in head_b]
    # autojunk off: it treats frequent words ("the", ",") as junk, which splits equal runs.
    matcher = SequenceMatcher(None, keys_a, keys_b, autojunk=False)
    segments: list[DiffSegment] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        _append(segments, _OPS[op], "".join(head_a[i1:i2]), "".join(head_b[j1:j2]))
    rest_a, rest_b = "".join(left[max_tokens:]), "".join(right[max_tokens:])
    truncated = bool(rest_a or rest_b)
    if truncated:
        _append(segments, _op_of(rest_a, rest_b), rest_a, rest_b)
    return TextDiff(segments, truncated)


def _op_of(a: str, b: str) -> DiffOp:
    if a == b:
        return "equal"
    if not a:
        return "insert"
    return "delete" if not b else "replace"


def _append(segments: list[DiffSegment], op: DiffOp, a: str, b: str) -> None:
    if segments and segments[-1].op == op:
        last = segments.pop()
        a, b = last.a + a, last.b + b
    segments.append(DiffSegment(op, a, b))
