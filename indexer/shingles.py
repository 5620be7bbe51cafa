"""Shingles: word n-grams, k-skip-n-grams and character n-grams, hashed to 64-bit ints.

Pure functions. A posting's description becomes a set of xxhash64 values (numpy uint64,
unique, sorted) that MinHash then sketches. Shingle hashing uses a fixed seed so the same
text gives the same set in every process.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Literal

import numpy as np
import numpy.typing as npt
import xxhash

ShingleKind = Literal["word", "skip", "char"]

_SHINGLE_SEED = 0x6A6F6264  # "jobd": fixed forever; changing it invalidates every index.
_JOIN = "\x1f"  # unit separator: cannot occur inside a cleaned token


def word_ngrams(tokens: Sequence[str], n: int) -> list[str]:
    """Contiguous n-token shingles. Fewer than n tokens give one shingle of all of them, so a
    very short posting still has a non-empty set (and therefore a usable sketch)."""
    if n < 1:
        raise ValueError("shingle size must be >= 1")
    if len(tokens) < n:
        return [_JOIN.join(tokens)]
    return [_JOIN.join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def skip_ngrams(tokens: Sequence[str], n: int, k: int) -> list[str]:
    """k-skip-n-grams: n tokens in order, taken from a window of n + k tokens that starts at
    each position (the first token is always the window's first). k = 0 gives word n-grams.

    Skip-grams tolerate inserted or dropped words in reworded re-posts (Zhao et al. 2021).
    """
    if k < 0:
        raise ValueError("skip must be >= 0")
    if k == 0 or len(tokens) < n:
        return word_ngrams(tokens, n)
    out: list[str] = []
    last = len(tokens)
    for i in range(last - n + 1):
        window = tokens[i + 1 : min(last, i + n + k)]
        for rest in combinations(window, n - 1):
            out.append(_JOIN.join((tokens[i], *rest)))
    return out


def char_ngrams(text: str, n: int) -> list[str]:
    """Character n-grams of a cleaned text, for scripts without reliable word boundaries."""
    if n < 1:
        raise ValueError("shingle size must be >= 1")
    if len(text) < n:
        return [text]
    return [text[i : i + n] for i in range(len(text) - n + 1)]


def hash_shingles(shingles: Iterable[str]) -> npt.NDArray[np.uint64]:
    """xxhash64 of each shingle (UTF-8), de-duplicated and sorted: the posting's shingle set."""
    digest = xxhash.xxh64_intdigest
    values = np.fromiter(
        (digest(s.encode("utf-8"), _SHINGLE_SEED) for s in shingles), dtype=np.uint64
    )
    return np.unique(values)


def shingle_set(
    tokens: Sequence[str], kind: ShingleKind, size: int, skip: int = 0
) -> npt.NDArray[np.uint64]:
    """The hashed shingle set of a token sequence for the configured shingle kind."""
    if kind == "word":
        return hash_shingles(word_ngrams(tokens, size))
    if kind == "skip":
        return hash_shingles(skip_ngrams(tokens, size, skip))
    return hash_shingles(char_ngrams(" ".join(tokens), size))
