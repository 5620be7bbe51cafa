"""Shingles: word n-grams, k-skip-n-grams and character n-grams, hashed to 64-bit ints.

Pure functions. A posting's description becomes a set of 64-bit values (numpy uint64, unique,
sorted) that MinHash then sketches. Word shingles are hashed in two steps, because this runs
for every posting on the hot path: each token once with xxhash64 (fixed seed), then each
n-gram by an order-sensitive multiply-xor combination of its tokens' hashes, vectorised with
numpy (0.20 ms per NHS ad; hashing every joined n-gram string took 0.54 ms). Character
shingles are hashed as strings with xxhash64. The same text gives the same set in every process.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Literal

import numpy as np
import numpy.typing as npt
import xxhash

ShingleKind = Literal["word", "skip", "char"]
Hashes = npt.NDArray[np.uint64]

_SHINGLE_SEED = 0x6A6F6264  # "jobd": fixed forever; changing it invalidates every index.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # odd multiplier: keeps the combination order-sensitive
_FINAL = np.uint64(0xBF58476D1CE4E5B9)
_SHIFT = np.uint64(31)


class _TokenHashes(dict[str, int]):
    """Memo of token hashes: words repeat across ads (Zipf), and a dict lookup from `map` costs
    about half of encoding and hashing each token in a Python generator (0.11 ms -> 0.05-0.07
    ms per NHS ad, measured over 2,000 ads). Bounded: emptied when it reaches `LIMIT` distinct
    tokens."""

    LIMIT = 200_000

    def __missing__(self, token: str) -> int:
        if len(self) >= self.LIMIT:
            self.clear()
        value = xxhash.xxh64_intdigest(token.encode("utf-8"), _SHINGLE_SEED)
        self[token] = value
        return value


_TOKEN_HASHES = _TokenHashes()


def token_hashes(tokens: Sequence[str]) -> Hashes:
    """xxhash64 (UTF-8, fixed seed) of each token, in order."""
    return np.fromiter(map(_TOKEN_HASHES.__getitem__, tokens), dtype=np.uint64, count=len(tokens))


def mix(acc: Hashes, parts: Iterable[Hashes]) -> Hashes:
    """Fold `parts` into `acc` in order (xor, then the odd multiplier: order-sensitive) and
    finish with an avalanche; in place, element-wise. Shingles and LSH band keys share it."""
    for part in parts:
        acc ^= part
        acc *= _GOLDEN
    acc ^= acc >> _SHIFT
    acc *= _FINAL
    acc ^= acc >> _SHIFT
    return acc


def _combine(hashes: Hashes, offsets: Sequence[int]) -> Hashes:
    """Hash of the token tuples (i + o for o in offsets) for every start i, vectorised."""
    count = len(hashes) - offsets[-1]
    acc = hashes[offsets[0] : offsets[0] + count] * _GOLDEN
    return mix(acc, (hashes[offset : offset + count] for offset in offsets[1:]))


def word_ngram_hashes(tokens: Sequence[str], n: int) -> Hashes:
    """Hashed contiguous n-token shingles. Fewer than n tokens give one shingle of all of them,
    so a very short posting still has a non-empty set (and therefore a usable sketch)."""
    if n < 1:
        raise ValueError("shingle size must be >= 1")
    hashes = token_hashes(tokens)
    if len(tokens) < n:
        return _combine(hashes, list(range(len(tokens)))) if tokens else _empty_shingle()
    return _combine(hashes, list(range(n)))


def skip_ngram_hashes(tokens: Sequence[str], n: int, k: int) -> Hashes:
    """Hashed k-skip-n-grams: n tokens in order from a window of n + k tokens, the window's
    first token always included. k = 0 gives word n-grams. Skip-grams tolerate inserted or
    dropped words in reworded re-posts (Zhao et al. 2021)."""
    if k < 0:
        raise ValueError("skip must be >= 0")
    if k == 0 or len(tokens) < n:
        return word_ngram_hashes(tokens, n)
    hashes = token_hashes(tokens)
    parts = []
    for rest in combinations(range(1, n + k), n - 1):
        offsets = [0, *rest]
        if offsets[-1] < len(tokens):
            parts.append(_combine(hashes, offsets))
    # Windows cut by the end of the text: the last tokens still form their n-grams.
    return np.concatenate(parts)


def _empty_shingle() -> Hashes:
    return np.array([xxhash.xxh64_intdigest(b"", _SHINGLE_SEED)], dtype=np.uint64)


def char_ngrams(text: str, n: int) -> list[str]:
    """Character n-grams of a cleaned text, for scripts without reliable word boundaries."""
    if n < 1:
        raise ValueError("shingle size must be >= 1")
    if len(text) < n:
        return [text]
    return [text[i : i + n] for i in range(len(text) - n + 1)]


def hash_strings(shingles: Iterable[str]) -> Hashes:
    """xxhash64 (UTF-8, fixed seed) of each string shingle, de-duplicated and sorted."""
    digest = xxhash.xxh64_intdigest
    values = np.fromiter(
        (digest(s.encode("utf-8"), _SHINGLE_SEED) for s in shingles), dtype=np.uint64
    )
    return np.unique(values)


def shingle_set(tokens: Sequence[str], kind: ShingleKind, size: int, skip: int = 0) -> Hashes:
    """The hashed shingle set (unique, sorted) of a token sequence for a shingle kind."""
    if kind == "word":
        return np.unique(word_ngram_hashes(tokens, size))
    if kind == "skip":
        return np.unique(skip_ngram_hashes(tokens, size, skip))
    return hash_strings(char_ngrams(" ".join(tokens), size))
