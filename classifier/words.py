"""The words and word 3-grams the classifier compares texts by.

One tokenisation and one 3-gram hash for every caller: `fields` builds a posting's shingles
from them and `cover_sentences` the shingles of single sentences, and the two sets are only
comparable because both come from here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from indexer.shingles import token_hashes
from indexer.text import tokenize

_ASCII_WORDS = bytes(
    ord(chr(c).lower()) if c < 128 and chr(c).isalnum() else 32 for c in range(256)
)
"""bytes.translate table: ASCII letters lower-cased, digits kept, everything else a space."""

SHINGLE_SIZE = 3
"""Word n-gram size of the exact text features: shorter than the index's 5 so that an edit
or a typo breaks fewer shingles, which is what separates "edited re-post" from "other ad
sharing boilerplate" once the index has already said the texts overlap."""


def words(text: str) -> list[str]:
    """The words of `indexer.text.tokenize`, through the ASCII fast path when possible."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_WORDS).decode("ascii").split()
    return tokenize(text)


def trigram_hashes(tokens: Sequence[str]) -> npt.NDArray[np.int64]:
    """One hash per word 3-gram, in text order (position i is tokens[i:i + 3]); empty for
    fewer than three words. Built from the index's memoised xxhash of each token
    (`indexer.shingles.token_hashes`), not Python's string hash: that one is seeded per
    process, so hashes made in one process (a training or preparation worker) would not
    compare with hashes made in another."""
    if len(tokens) < SHINGLE_SIZE:
        return np.empty(0, dtype=np.int64)
    hashes = token_hashes(tokens).view(np.int64)
    with np.errstate(over="ignore"):
        combined = hashes[: len(hashes) - 2] * np.int64(0x9E3779B1)
        combined ^= hashes[1 : len(hashes) - 1] * np.int64(0x85EBCA77)
        combined ^= hashes[2:] * np.int64(0xC2B2AE3D)
    return combined


def shared_count(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> int:
    """Size of the intersection of two sorted unique arrays: a binary search of the smaller
    in the larger (np.intersect1d concatenates and re-sorts both, 3x slower here)."""
    if a.size > b.size:
        a, b = b, a
    if not a.size:
        return 0
    positions = np.searchsorted(b, a)
    positions[positions == b.size] = 0
    return int(np.count_nonzero(b[positions] == a))


def sorted_unique(values: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Sorted unique values, sorting in place: np.unique's hashing path took 10x longer on
    ~500 values than a sort and a neighbour comparison."""
    if not values.size:
        return values
    values.sort()
    keep = np.empty(len(values), dtype=bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]
