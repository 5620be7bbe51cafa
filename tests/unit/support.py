"""Shared helpers for the unit suite: deterministic Hypothesis settings and seeded set pairs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from hypothesis import settings

from indexer.minhash import SketchParams, band_keys, sketch_tokens
from indexer.shingles import shingle_set
from indexer.text import tokenize

DETERMINISTIC = settings(derandomize=True, database=None, deadline=None, max_examples=100)
"""Hypothesis settings for every property test here: the same examples on every run."""


@dataclass(frozen=True)
class SetPair:
    """Two hashed shingle sets with known sizes and intersection (so exact similarities)."""

    a: npt.NDArray[np.uint64]
    b: npt.NDArray[np.uint64]
    intersection: int

    @property
    def jaccard(self) -> float:
        union = len(self.a) + len(self.b) - self.intersection
        return self.intersection / union if union else 1.0

    @property
    def overlap(self) -> float:
        smaller = min(len(self.a), len(self.b))
        return self.intersection / smaller if smaller else 0.0


def distinct_uint64(rng: np.random.Generator, count: int) -> npt.NDArray[np.uint64]:
    """`count` distinct uniformly random 64-bit values (stand-ins for xxhash shingle hashes)."""
    values = np.unique(rng.integers(0, np.iinfo(np.uint64).max, size=count, dtype=np.uint64))
    while len(values) < count:  # collisions are astronomically rare; top up if one happens
        extra = rng.integers(0, np.iinfo(np.uint64).max, size=count, dtype=np.uint64)
        values = np.unique(np.concatenate([values, extra]))
    picked = values[:count].copy()
    rng.shuffle(picked)
    return picked


def make_pair(rng: np.random.Generator, size_a: int, size_b: int, intersection: int) -> SetPair:
    """Random sets A, B with |A| = size_a, |B| = size_b and |A ∩ B| = intersection."""
    if not 0 <= intersection <= min(size_a, size_b):
        raise ValueError("intersection must be between 0 and min(size_a, size_b)")
    pool = distinct_uint64(rng, size_a + size_b - intersection)
    a = pool[:size_a]
    b = np.concatenate([pool[:intersection], pool[size_a:]])
    return SetPair(a=a, b=b, intersection=intersection)


def fingerprint(text: str) -> dict[str, Any]:
    """Everything persisted about a text under default params, as JSON-ready ints.

    Computed in-process and in a child process with another PYTHONHASHSEED: any use of the
    salted built-in hash() (or other per-process state) makes the two differ.
    """
    tokens = tokenize(text)
    params = SketchParams()
    sketch, count = sketch_tokens(tokens, params)
    return {
        "tokens": tokens,
        "word": [int(v) for v in shingle_set(tokens, "word", 3)],
        "skip": [int(v) for v in shingle_set(tokens, "skip", 3, 2)],
        "char": [int(v) for v in shingle_set(tokens, "char", 5)],
        "sketch": [int(v) for v in sketch],
        "count": count,
        "bands": band_keys(sketch, params),
    }
